"""``grammar_compile``: ABNF text in, a checked, analysed, linear-time validator out.

Compiled grammars are cached by a hash of their content, so a registration's
grammar is parsed, analysed, translated and cross-checked once per process and
every later lookup is one RE2 match. When Django is configured the result is
also kept in its shared cache (Redis in production), keyed by the same hash and
by a hash of the engine's own source and the ``abnf`` version, so the other web
processes and a restarted one take it from there instead of checking the same
text again, and a new release never reads a stale result. Results that depend
on how busy the machine was (a job over its budget, a cross-check stopped by
its time or memory limit, a matching cost measured close to its budget) stay
in the process only.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import re2

from .. import engineconfig
from .analysis import INFINITE, Analysis, Scope, analyse
from .cost import Cost, measure, measure_locator
from .ir import Ref
from .limits import LOCATOR_PROGRAM_MAX, MATCH_BUDGET_MS, RE2_MAX_MEM
from .parse import Issue, ParsedGrammar, parse_grammar
from .portable import stored_body
from .position import Locator, Position, build_prefix
from .re2match import PatternError, compile_anchored
from .regex import RECURSION_DEPTH, TooComplex, build_pattern
from .samples import _Generator
from .urn import PREFIX, URN_MAX_LENGTH, ParsedUrn

CACHE_SIZE = 256
#: The kind of the one issue of a grammar whose check stopped (registry.sandbox faults):
#: a warning, never cached, never a verdict on the grammar.
NOT_CHECKED = "not-checked"
_cache: OrderedDict[str, CompiledGrammar] = OrderedDict()
_worker_cache: OrderedDict[str, Validator] = OrderedDict()
_lock = threading.Lock()
logger = logging.getLogger(__name__)
#: Seconds a compiled grammar stays in the shared cache.
SHARED_SECONDS = 30 * 24 * 3600


def _engine_version() -> str:
    """A hash of this package's source and of the ``abnf`` version: part of every shared key."""
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(importlib.metadata.version("abnf").encode())
    return digest.hexdigest()


ENGINE_VERSION = _engine_version()
#: Seconds a validator that ran out of its bounded worker's budget is answered "not
#: checked" at once, so a batch of its URNs costs one budget, not one each.
UNCHECKED_SECONDS = 60.0


class NotChecked(Exception):
    """A URN could not be checked against a grammar within the registry's limits (a fault or a
    grammar too costly to match, not a verdict on the URN); ``message`` is for people."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class Validator:
    """What a registry lookup needs of a grammar: one RE2 program and how to apply it.

    It can be stored (``as_dict``) with an approved registration and rebuilt from
    that (``from_dict``) without reading the grammar again, so a lookup never
    parses or compiles ABNF.
    """

    __slots__ = ("pattern", "full_urn", "length_cap", "rule", "_matches", "locator", "cost", "_unchecked_until")

    def __init__(
        self,
        pattern: str,
        full_urn: bool,
        length_cap: int,
        rule: str,
        matches=None,
        locator: Locator | None = None,
        cost: Cost | None = None,
    ):
        self.pattern, self.full_urn, self.length_cap, self.rule = pattern, full_urn, length_cap, rule
        #: Compiled on first use in this process: a validator not proven cheap is only
        #: ever run in the bounded worker, so the web process never compiles it.
        self._matches = matches
        #: Says where an invalid URN goes wrong (position.py); None for validators stored
        #: before positions existed or grammars too large to locate errors in.
        self.locator = locator
        #: The measured worst case (cost.py); None until measured (validators stored before
        #: costs were measured: measured on first use, in the bounded worker).
        self.cost = cost
        self._unchecked_until = 0.0

    def as_dict(self) -> dict:
        """What is stored with an approved version. ``portable`` is the published pattern's body,
        translated here once so exports never translate (portable.py); the lookup ignores it."""
        return {**self._fields(), "portable": stored_body(self.pattern)}

    def _fields(self) -> dict:
        """What ``from_dict`` reads back."""
        data = {"pattern": self.pattern, "full_urn": self.full_urn, "length_cap": self.length_cap, "rule": self.rule}
        if self.locator is not None:
            data["prefix_pattern"] = self.locator.pattern
            data["prefix_rules"] = self.locator.rules
        return data

    @classmethod
    def from_dict(cls, data: dict, cost: dict | Cost | None = None) -> Validator:
        locator = None
        if data.get("prefix_pattern"):
            locator = Locator(data["prefix_pattern"], data.get("prefix_rules", []))
        if not isinstance(cost, Cost):
            cost = Cost.from_dict(cost)
        return cls(data["pattern"], data["full_urn"], data["length_cap"], data["rule"], locator=locator, cost=cost)

    @staticmethod
    def _rebuild(data: dict, cost: dict | None) -> Validator:
        return Validator.from_dict(data, cost)

    def _match(self, data: bytes) -> bool:
        if self._matches is None:
            self._matches = compile_anchored(self.pattern)
        return self._matches(data)

    @property
    def proven(self) -> bool:
        """Whether matching may run here: measured within the budget, or this is the bounded worker."""
        if self.cost is not None and self.cost.cheap:
            return True
        from .. import sandbox

        return sandbox.in_worker()

    def position(self, parsed: ParsedUrn) -> Position | None:
        """Where a URN this validator rejects stops matching (None if unknown).

        In the web process only for a locator measured within ``LOCATE_BUDGET_MS``.
        """
        if self.locator is None:
            return None
        if not (self.cost is not None and self.cost.locate_cheap):
            from .. import sandbox

            if not sandbox.in_worker():
                return None
        subject = parsed.urn if self.full_urn else parsed.sss
        offset = len(parsed.urn) - len(subject)

        def complete(text: str) -> bool:
            return self._match(text.encode("ascii"))

        try:
            return self.locator.locate(subject, offset, complete=complete)
        except re2.error:  # pragma: no cover - the pattern compiled when it was built
            return None

    def __reduce__(self):
        # Sent back from a bounded worker as its patterns; RE2 compiles them again here.
        return (Validator._rebuild, (self._fields(), self.cost.as_dict() if self.cost else None))

    def matches(self, text: str) -> bool:
        """Whether ``text`` (whole URN or string after the SNID, see full_urn) is in the language.

        Text over the length cap or outside ASCII is rejected before matching. Raises
        NotChecked if the validator is not proven cheap and its bounded run failed.
        """
        if len(text) > self.length_cap or not text.isascii():
            return False
        if not self.proven:
            return self._bounded("matches", text, None)
        return self._match(text.encode("ascii"))

    def check(self, parsed: ParsedUrn) -> list[str]:
        """Why a generically valid URN is not valid under this grammar ([] if it is).

        Runs here only if the validator is proven cheap (``proven``); otherwise in the
        bounded worker, and raises NotChecked if that fails or ran out of its budget.
        """
        if not self.proven:
            return self._bounded("check", parsed, parsed.snid)
        subject = parsed.urn if self.full_urn else parsed.sss
        if len(subject) <= self.length_cap and self._match(subject.encode("ascii")):
            return []
        what = "URN" if self.full_urn else f"string after '{PREFIX}{parsed.snid}:'"
        if len(subject) > self.length_cap:
            # Like every other failure, name the first character past the limit and its place.
            at = len(parsed.urn) - len(subject) + self.length_cap + 1
            return [
                f"At character {at} ({subject[self.length_cap]!r}): the {what} is {len(subject)} characters "
                f"long; this grammar allows at most {self.length_cap}."
            ]
        position = self.position(parsed)
        where = f" {position.message}" if position is not None else ""
        return [f"The {what} does not match the grammar's rule {self.rule!r}.{where}"]

    def _bounded(self, method: str, subject, snid: str | None):
        """``method`` of this validator in the bounded worker; measures an unmeasured one first."""
        from .. import sandbox

        if time.monotonic() < self._unchecked_until:
            raise NotChecked(self._unchecked_message())
        try:
            if self.cost is None:
                heads = (f"{PREFIX}{snid}:",) if self.full_urn and snid else ("",)
                figures = sandbox.run_bounded(_measure_in_worker, self._fields(), heads, what="grammar's matching cost")
                self.cost = Cost.from_dict(figures)
                if self.proven:  # now measured cheap: from here on it runs in this process
                    return getattr(self, method)(subject)
            cost = self.cost.as_dict() if self.cost else None
            return sandbox.run_bounded(_run_in_worker, self._fields(), cost, method, subject, what="URN check")
        except sandbox.BudgetExceeded as exc:
            if exc.deterministic:  # a fault (a killed worker) says nothing about the grammar's cost
                self._unchecked_until = time.monotonic() + UNCHECKED_SECONDS
                if self.cost is None:
                    self.cost = Cost(match_ms=float("inf"), worst="measurement stopped", length=0, complete=False)
            raise NotChecked(self._unchecked_message(exc.message)) from None

    def _unchecked_message(self, reason: str = "") -> str:
        cost = ""
        if self.cost is not None and not self.cost.cheap:
            cost = (
                f" Matching one URN against it was measured at more than the registry's limit "
                f"of {MATCH_BUDGET_MS:g} ms; the editors have been told."
            )
        return (
            "The URN could not be checked against this SNID's grammar within the registry's "
            f"limits.{cost} {reason}".rstrip()
        )


@dataclass(slots=True)
class CompiledGrammar:
    abnf: str
    rule: str | None  # the top rule as written
    parsed: ParsedGrammar
    analysis: Analysis
    issues: list[Issue] = field(default_factory=list)
    pattern: str | None = None
    crosscheck: object | None = None  # crosscheck.CrossCheck (imported by a compilation only)
    validator: Validator | None = None
    #: The cost measured for a validator refused for it (the figure the finding names).
    measured: Cost | None = None

    @property
    def not_checked(self) -> bool:
        """The checker stopped before it could say anything (a fault, not a verdict)."""
        return any(issue.kind == NOT_CHECKED for issue in self.issues)

    @property
    def ok(self) -> bool:
        """Whether the grammar can validate URNs (it may still have warnings)."""
        return self.validator is not None

    @property
    def errors(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.severity == "error"]

    @property
    def full_urn(self) -> bool:
        """True if the grammar describes the whole URN, False for the string after the SNID."""
        return self.analysis.full_urn

    @property
    def length_cap(self) -> int:
        maximum = self.analysis.max_length
        return URN_MAX_LENGTH if maximum == INFINITE else int(min(maximum, URN_MAX_LENGTH))

    def matches(self, text: str) -> bool:
        try:
            return self.validator is not None and self.validator.matches(text)
        except NotChecked:
            return False

    @property
    def cost(self) -> Cost | None:
        """The validator's measured worst case (None: no validator, or it was never built)."""
        return self.validator.cost if self.validator is not None else self.measured

    def check(self, parsed: ParsedUrn) -> list[str]:
        """Why a generically valid URN is not valid under this grammar ([] if it is)."""
        if self.validator is None:
            return [
                "The registered grammar cannot be used for validation: "
                + "; ".join(issue.message for issue in self.errors[:3])
            ]
        try:
            return self.validator.check(parsed)
        except NotChecked as exc:
            return [exc.message]

    @property
    def top_rule_name(self) -> str:
        key = self.analysis.top
        rule = self.parsed.rules.get(key) if key else None
        return rule.name if rule else (self.rule or "")


def _content_key(abnf: str, rule: str | None, examples: tuple[str, ...]) -> str:
    """The text checked and the budget it was checked within (an answer "too complex within
    2 s of CPU time" is not the answer under a larger budget)."""
    from .. import sandbox  # a leaf module with no Django dependency

    digest = hashlib.sha256(repr(sandbox.budget()).encode())
    for part in (abnf, rule or "", *examples):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


def grammar_compile(abnf: str, rule: str | None = None, examples=()) -> CompiledGrammar:
    """Parse, analyse and compile ``abnf`` with top rule ``rule`` (default: the first rule).

    ``examples`` are strings the cross-check must also agree on (the registration's
    own example URNs). The result is cached by content.
    """
    rule = (rule or "").strip() or None
    examples = tuple(examples)
    key = _content_key(abnf, rule, examples)
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    shared = _shared_cache()
    compiled = _shared_get(shared, key)
    if compiled is None:
        compiled, settled = _compile_bounded(abnf, rule, examples)
        if settled:
            _shared_set(shared, key, compiled)
        elif compiled.not_checked:
            return compiled  # a fault is not an answer: the next check tries again
    with _lock:
        _cache[key] = compiled
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return compiled


def cache_clear() -> None:
    """Forget this process's compiled grammars (the shared cache is cleared with the cache)."""
    with _lock:
        _cache.clear()


def shared_key(key: str) -> str:
    return f"registry:grammar:{ENGINE_VERSION}:{key}"


#: () -> the cache shared by the registry's processes (get/set), or None: Django's cache once the
#: app is ready (registry/engineconfig.py, or ``shared_cache_from``); the engine imports no Django itself.
_shared_cache_source: Callable[[], object] | None = None


def shared_cache_from(source: Callable[[], object] | None) -> None:
    """Keep compiled grammars also in the cache ``source()`` returns; None: in this process only."""
    global _shared_cache_source
    _shared_cache_source = source


def _shared_cache():
    """The shared cache when one was given (the engine also runs without it)."""
    source = _shared_cache_source or engineconfig.shared_cache_source  # the app's (registry/engineconfig.py)
    return source() if source is not None else None


def _shared_get(shared, key: str) -> CompiledGrammar | None:
    if shared is None:
        return None
    try:
        found = shared.get(shared_key(key))
    except Exception:  # noqa: BLE001 - an unreachable cache only costs the compile
        logger.warning("shared grammar cache unavailable", exc_info=True)
        return None
    return found if isinstance(found, CompiledGrammar) else None


def _shared_set(shared, key: str, compiled: CompiledGrammar) -> None:
    if shared is None:
        return
    try:
        shared.set(shared_key(key), compiled, SHARED_SECONDS)
    except Exception:  # noqa: BLE001
        logger.warning("shared grammar cache unavailable", exc_info=True)


def _compile_bounded(abnf: str, rule: str | None, examples: tuple[str, ...]) -> tuple[CompiledGrammar, bool]:
    """``_compile`` within the registry's time and memory budget (registry.sandbox).

    Over budget, the answer is a grammar that cannot validate, with one error
    naming the limit; the rules are still read (linear, bounded) so pages can
    show them. The flag says whether the answer is settled, i.e. would be the
    same on an idle machine (no budget or time limit was reached).
    """
    from .. import sandbox  # a leaf module with no Django dependency

    try:
        compiled = sandbox.run_bounded(_compile, abnf, rule, examples, what="grammar")
    except sandbox.BudgetExceeded as exc:
        parsed = parse_grammar(abnf)
        analysis = Analysis(top=None)
        if exc.fault:
            # The checker stopped (killed, crashed, stuck): nothing is known about the grammar.
            issue = Issue(NOT_CHECKED, "warning", exc.message)
            return CompiledGrammar(abnf, rule, parsed, analysis, issues=[issue]), False
        # Past the CPU-time or memory budget: a property of the grammar, kept like any answer.
        issue = Issue("too-complex", "error", exc.message)
        return CompiledGrammar(abnf, rule, parsed, analysis, issues=parsed.issues + [issue]), True
    cost = compiled.cost
    return compiled, not (compiled.crosscheck and compiled.crosscheck.load_dependent) and (
        cost is None or cost.decisive
    )


def _compile(abnf: str, rule: str | None, examples: tuple[str, ...]) -> CompiledGrammar:
    parsed = parse_grammar(abnf)
    try:
        analysis = analyse(parsed, rule)
    except RecursionError:
        analysis = Analysis(top=None)
        analysis.issues.append(
            Issue(
                "too-complex",
                "error",
                "The grammar nests rules too deeply to analyse (hundreds of levels); real "
                "registrations need far fewer.",
            )
        )
    compiled = CompiledGrammar(abnf, rule, parsed, analysis, issues=parsed.issues + analysis.issues)
    if analysis.top is None or analysis.top not in parsed.rules:
        return compiled
    scope = Scope(parsed.rules)
    try:
        pattern, truncated = build_pattern(scope, analysis.top, set(analysis.recursive))
        matcher = compile_anchored(pattern)
    except (TooComplex, RecursionError) as exc:
        reason = str(exc) if isinstance(exc, TooComplex) else "its rules nest too deeply"
        compiled.issues.append(
            Issue("too-complex", "error", f"The grammar cannot be turned into a linear-time validator: {reason}.")
        )
        return compiled
    except PatternError:
        compiled.issues.append(
            Issue(
                "too-complex",
                "error",
                "The grammar cannot be turned into a linear-time validator: its matcher needs more "
                f"than the {RE2_MAX_MEM >> 20} MB the registry allows one grammar; simplify the "
                "rules that are repeated or used many times.",
            )
        )
        return compiled
    compiled.pattern = pattern
    heads, samples = _heads(scope, analysis)
    costliest: list[str] = []
    cost = measure(pattern, compiled.length_cap, heads, samples, costliest=costliest)
    if not cost.cheap:
        compiled.measured = cost
        compiled.issues.append(Issue("too-costly", "error", cost.message))
        return compiled
    locator = _locator(compiled, scope, analysis, matcher)
    if locator is not None:
        cost = measure_locator(locator, cost, compiled.length_cap, heads, costliest)
        if not cost.locate_cheap:
            locator = None
            compiled.issues.append(
                Issue(
                    "positions-not-given",
                    "warning",
                    f"URNs are validated, but the registry will not say where an invalid URN goes "
                    f"wrong: {cost.locate_why}.",
                )
            )
    compiled.validator = Validator(
        pattern, analysis.full_urn, compiled.length_cap, compiled.top_rule_name, matcher, locator, cost
    )
    if truncated:
        compiled.issues.append(
            Issue(
                "recursion-bounded",
                "warning",
                f"Recursive rules are checked to a nesting depth of {RECURSION_DEPTH}; deeper nesting is rejected.",
            )
        )
    from .crosscheck import CrossCheck, cross_check  # with a compilation: a lookup needs no abnf package

    if analysis.recursive:
        compiled.crosscheck = CrossCheck(skipped="recursive grammar: compared to the bounded form only")
        return compiled
    subjects = [_subject(example, analysis.full_urn) for example in examples]
    compiled.crosscheck = cross_check(
        scope, analysis.top, analysis.reachable, compiled.matches, [s for s in subjects if s is not None]
    )
    for text, ours, theirs in compiled.crosscheck.disagreements[:5]:
        compiled.issues.append(
            Issue(
                "disagreement",
                "error",
                f"The compiled validator {'accepts' if ours else 'rejects'} {text!r} but the "
                f"reference ABNF parser {'accepts' if theirs else 'rejects'} it; the grammar "
                "cannot be trusted for validation until this is resolved (please report it).",
            )
        )
    if compiled.crosscheck.disagreements:
        compiled.validator = None
    return compiled


def _heads(scope: Scope, analysis: Analysis) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(heads, samples) for the cost measurement: the shortest string of the language, and for
    a grammar of whole URNs its ``urn:ogf:<snid>:`` start, so adversarial strings begin alive."""
    try:
        shortest = _Generator(scope).shortest(Ref(analysis.top))
    except Exception:  # noqa: BLE001 - generation is bounded and optional here
        shortest = None
    samples = (shortest,) if shortest else ()
    heads = [""]
    if analysis.full_urn and shortest and shortest.lower().startswith(PREFIX):
        rest = shortest[len(PREFIX) :]
        if ":" in rest:
            heads.append(shortest[: len(PREFIX) + rest.index(":") + 1])
    return tuple(heads), samples


def _locator(compiled: CompiledGrammar, scope: Scope, analysis: Analysis, matcher) -> Locator | None:
    """The error locator, if the grammar is small enough to build one (a warning says if not)."""
    size = getattr(matcher, "program_size", 0)
    if size > LOCATOR_PROGRAM_MAX:
        compiled.issues.append(
            Issue(
                "positions-not-given",
                "warning",
                f"URNs are validated, but the registry will not say where an invalid URN goes wrong: "
                f"the grammar's matcher has {size:,} steps, more than the {LOCATOR_PROGRAM_MAX:,} "
                "for which error positions are worked out.",
            )
        )
        return None
    try:
        return Locator(*build_prefix(scope, analysis.top, set(analysis.recursive)))
    except (TooComplex, RecursionError):
        return None  # URNs are still validated; only the error position is not given


def _worker_validator(fields: dict, cost: dict | None) -> Validator:
    """A validator rebuilt in the bounded worker (kept: the same grammar is usually asked again)."""
    key = json.dumps(fields, sort_keys=True)
    with _lock:
        found = _worker_cache.get(key)
        if found is not None:
            _worker_cache.move_to_end(key)
            return found
    validator = Validator.from_dict(fields, cost)
    with _lock:
        _worker_cache[key] = validator
        while len(_worker_cache) > 16:
            _worker_cache.popitem(last=False)
    return validator


def _run_in_worker(fields: dict, cost: dict | None, method: str, subject):
    """``Validator.check`` or ``Validator.matches`` in the bounded worker."""
    return getattr(_worker_validator(fields, cost), method)(subject)


def _measure_in_worker(fields: dict, heads: tuple[str, ...]) -> dict:
    """The cost of a stored validator (``manage.py measure_validators``, and on first use)."""
    validator = Validator.from_dict(fields)
    costliest: list[str] = []
    cost = measure(validator.pattern, validator.length_cap, heads, costliest=costliest)
    if cost.cheap and validator.locator is not None:
        cost = measure_locator(validator.locator, cost, validator.length_cap, heads, costliest)
    return cost.as_dict()


def _subject(example: str, full_urn: bool) -> str | None:
    """The part of an example URN a grammar describes."""
    if full_urn:
        return example
    if example[: len(PREFIX)].lower() != PREFIX:
        return example
    rest = example[len(PREFIX) :]
    return rest.split(":", 1)[1] if ":" in rest else None
