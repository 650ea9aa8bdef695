"""Compile-time proof that the RE2 translation means what the grammar says.

The same grammar is loaded into the ``abnf`` package's backtracking parser (the
reference reading) and both are asked about the registration's own examples and
about strings generated from the grammar, plus near misses of them. Any
disagreement is reported as an error.

What the reference is given is our reading of the grammar (the IR), as ABNF in
which our rules cannot collide with core rules (``_abnf_text``). The package's
own ABNF reader took two thirds of a check's time (40 ms for the GFD.191
example) to read that text back, so ``_reference_rules`` builds the very
combinators the reader builds from it (the same classes, arguments and
nesting; tests/test_grammar_crosscheck.py compares the two on every demo
grammar) straight from the IR. What is compared is unchanged: our RE2
translation against the package's matching engine and its own core rules.

The reference parser backtracks: one string can take it exponential time and
memory. Its work is therefore counted (``_Meter``): every call of one of its
combinators and every match one yields is a step, and the comparison stops,
even in the middle of one string, once STEP_BUDGET steps are done. Counting
rather than timing makes where a comparison stops a property of the grammar: the
same text is cut short after the same test strings on an idle and on a busy
machine, so its finding is the same and may be kept. It runs inside a bounded
job (registry.sandbox), whose time and memory limits are the backstop, as is an
interval timer at TIME_BUDGET seconds of CPU time (a result cut short by that
or by memory depends on the machine: ``load_dependent``, never shared). A check
cut short says so (``cut_short``) and is never a pass.

The ``abnf`` package keeps every loaded rule in a process-wide table forever,
so each grammar is loaded into a class of its own and removed from that table
once the check is done.
"""

from __future__ import annotations

import itertools
import random
import signal
import threading
import time
from dataclasses import dataclass, field

from abnf.parser import (
    ABNFGrammarRule,
    Alternation,
    Concatenation,
    Literal,
    Option,
    ParseError,
    Repeat,
    Repetition,
    Rule,
)
from abnf.parser import Prose as ProseParser

from .analysis import Scope
from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep, to_abnf
from .limits import (
    CROSSCHECK_EXAMPLE_MAX_CHARS,
    CROSSCHECK_GENERATE_MAX_STEPS,
    CROSSCHECK_GRAMMAR_MAX_CHARS,
    CROSSCHECK_MAX_STRINGS,
    CROSSCHECK_RULE_MAX_CHARS,
    CROSSCHECK_SAMPLE_MAX_CHARS,
    CROSSCHECK_SAMPLES,
    CROSSCHECK_SECONDS,
    CROSSCHECK_STEPS,
)

SAMPLES = CROSSCHECK_SAMPLES
MAX_SAMPLE_LENGTH = CROSSCHECK_SAMPLE_MAX_CHARS
TIME_BUDGET = CROSSCHECK_SECONDS
STEP_BUDGET = CROSSCHECK_STEPS
_counter = itertools.count()


@dataclass(slots=True)
class CrossCheck:
    checked: int = 0
    disagreements: list[tuple[str, bool, bool]] = field(default_factory=list)  # (text, re2, abnf)
    skipped: str = ""
    #: Set when a limit stopped the comparison early: which limit, in words.
    cut_short: str = ""
    #: The cut came from the memory limit, which may depend on the worker's history:
    #: such a result is not kept for other processes.
    load_dependent: bool = False


class _OutOfTime(Exception):
    pass


class _OutOfSteps(Exception):
    pass


class _Meter:
    """The reference parser's work so far, in steps; raises _OutOfSteps past ``limit``."""

    __slots__ = ("steps", "limit")

    def __init__(self, limit: int):
        self.steps, self.limit = 0, limit

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.limit:
            raise _OutOfSteps


class _Counted:
    """One combinator of the reference parser, its work counted on ``meter``: the call, and each
    match it yields. Reads as the combinator it wraps (``str``), so the reference built here can
    still be compared with the one the package's reader makes from the text."""

    __slots__ = ("inner", "meter")

    def __init__(self, inner, meter: _Meter):
        self.inner, self.meter = inner, meter

    def lparse(self, source, start):
        meter = self.meter
        meter.tick()
        for match in self.inner.lparse(source, start):
            meter.tick()
            yield match

    def __str__(self) -> str:
        return str(self.inner)


class _Timer:
    """Interrupts the reference parser mid-string once the budget is spent.

    Only in the main thread of a bounded worker process (signals cannot be used
    elsewhere); in any other context the check between strings still applies.
    """

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.active = False

    def start(self) -> None:
        from .. import sandbox  # a leaf module: no cycle

        if sandbox.in_worker() and threading.current_thread() is threading.main_thread():
            self.active = True
            signal.signal(signal.SIGVTALRM, self._expire)
            signal.setitimer(signal.ITIMER_VIRTUAL, self.seconds)

    def _expire(self, signum, frame):
        if self.active:
            raise _OutOfTime

    def stop(self) -> None:
        if self.active:
            self.active = False
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.signal(signal.SIGVTALRM, signal.SIG_IGN)  # a late alarm must not escape


def _abnf_text(scope: Scope, keys: list[str]) -> str:
    """The grammar as ABNF text in which our rules cannot collide with core rules."""

    def name_of(ref: Ref) -> str:
        return f"u-{ref.name}" if ref.key in scope.rules else ref.name

    def prose(node: Prose) -> str:
        known = scope.prose(node)
        return f"( {to_abnf(known, name_of, prose)} )" if known is not None else f"<{node.text}>"

    return "\n".join(f"u-{scope.rules[key].name} = {to_abnf(scope.rules[key].expr, name_of, prose)}" for key in keys)


def _printable(text: str) -> bool:
    return '"' not in text and all(0x20 <= ord(c) <= 0x7E for c in text)


def _reference_rules(cls: type[Rule], scope: Scope, keys: list[str], meter: _Meter | None = None) -> None:
    """Define the rules ``keys`` on ``cls`` as the package's reader would from ``_abnf_text``.

    Each IR node becomes what the reader makes of its ``to_abnf`` rendering: a
    printable quoted string a ``Literal`` (case-sensitive only for ``%s`` with a
    letter), a numeric value a case-sensitive ``Literal`` (a range a 2-tuple),
    ``[x]`` an ``Option``, ``n*m x`` a ``Repetition``, a one-item group the item
    itself, ``""`` an empty ``Literal``, unknown ``<prose>`` a ``Prose`` that never
    matches unless its text is a rule name (RFC 5234 §2.1, as the reader does).
    With a ``meter``, every node below a rule's own definition counts its work there.
    """

    def counted(parser):
        return parser if meter is None else _Counted(parser, meter)

    def name_of(ref: Ref) -> str:
        return f"u-{ref.name}" if ref.key in scope.rules else ref.name

    def child(node):
        return counted(build(node))

    def build(node):
        if isinstance(node, Alt):
            items = [child(item) for item in node.items]
            return items[0] if len(items) == 1 else Alternation(*items, first_match=cls._first_match_default)
        if isinstance(node, Cat):
            if not node.items:
                return Literal("", False)
            items = [child(item) for item in node.items]
            return items[0] if len(items) == 1 else Concatenation(*items)
        if isinstance(node, Rep):
            if node.min == 0 and node.max == 1:
                return Option(child(node.item))
            return Repetition(Repeat(node.min, node.max), child(node.item))
        if isinstance(node, Lit):
            if _printable(node.text):
                return Literal(node.text, node.case_sensitive and any(c.isalpha() for c in node.text))
            return Literal(node.text, True)
        if isinstance(node, Range):
            low, high = chr(node.lo), chr(node.hi)
            return Literal(low if node.lo == node.hi else (low, high), True)
        if isinstance(node, Ref):
            return cls(name_of(node))
        if isinstance(node, Prose):
            known = scope.prose(node)
            if known is not None:
                return build(known)
            try:
                ABNFGrammarRule("rulename").parse_all(node.text)
            except ParseError:
                return ProseParser()
            return cls(node.text)
        raise TypeError(node)  # pragma: no cover

    for key in keys:
        rule = scope.rules[key]
        cls(f"u-{rule.name}").definition = build(rule.expr)  # its parts are counted


class _Generator:
    """Random strings of the language, with bounded depth and length."""

    def __init__(self, scope: Scope, rng: random.Random):
        self.scope, self.rng = scope, rng
        self.steps = 0
        self.length = 0

    def sample(self, node) -> str:
        self.steps = self.length = 0
        return self.gen(node, 0)

    def gen(self, node, depth: int) -> str:
        self.steps += 1
        if depth > 40 or self.steps > CROSSCHECK_GENERATE_MAX_STEPS or self.length > MAX_SAMPLE_LENGTH:
            raise OverflowError  # too deep or too long to be a useful test string
        rng = self.rng
        if isinstance(node, Lit):
            self.length += len(node.text)
            if node.case_sensitive:
                return node.text
            return "".join(c.swapcase() if rng.random() < 0.3 else c for c in node.text)
        if isinstance(node, Range):
            self.length += 1
            return chr(rng.randint(node.lo, min(node.hi, node.lo + 200)))
        if isinstance(node, Alt):
            return self.gen(rng.choice(node.items), depth + 1)
        if isinstance(node, Cat):
            return "".join(self.gen(item, depth + 1) for item in node.items)
        if isinstance(node, Rep):
            high = node.max if node.max is not None else node.min + 3
            count = rng.randint(node.min, min(high, node.min + 4))
            return "".join(self.gen(node.item, depth + 1) for _ in range(count))
        if isinstance(node, Ref):
            rule = self.scope.lookup(node.key)
            if rule is None:
                raise OverflowError
            return self.gen(rule.expr, depth + 1)
        if isinstance(node, Prose):
            known = self.scope.prose(node)
            if known is None:
                raise OverflowError
            return self.gen(known, depth + 1)
        raise TypeError(node)  # pragma: no cover


def _mutations(text: str, alphabet: list[str], rng: random.Random):
    if text:
        index = rng.randrange(len(text))
        yield text[:index] + text[index + 1 :]
        yield text[:index] + rng.choice(alphabet) + text[index + 1 :]
    yield text + rng.choice(alphabet)


def cross_check(scope: Scope, top: str, reachable: list[str], matches, extra: list[str]) -> CrossCheck:
    """Compare ``matches`` (the RE2 validator on the top rule) with the abnf parser."""
    result = CrossCheck()
    text = _abnf_text(scope, reachable)
    longest = max((len(line) for line in text.split("\n")), default=0)
    if len(text) > CROSSCHECK_GRAMMAR_MAX_CHARS or longest > CROSSCHECK_RULE_MAX_CHARS:
        result.cut_short = (
            f"the reference ABNF parser was not run: it is given grammars of at most "
            f"{CROSSCHECK_GRAMMAR_MAX_CHARS:,} characters with rules of at most "
            f"{CROSSCHECK_RULE_MAX_CHARS:,} (this one: {len(text):,}, longest rule {longest:,})"
        )
        return result
    cls = type(f"Grammar{next(_counter)}", (Rule,), {})
    timer = _Timer(TIME_BUDGET)
    meter = _Meter(STEP_BUDGET)
    try:
        timer.start()
        _reference_rules(cls, scope, reachable, meter)
        reference = cls(f"u-{scope.rules[top].name}")
        rng = random.Random(0x0F6)
        generator = _Generator(scope, rng)
        generated = []
        for _ in range(SAMPLES):
            try:
                sample = generator.sample(scope.rules[top].expr)
            except (OverflowError, RecursionError):
                continue
            if len(sample) <= MAX_SAMPLE_LENGTH:
                generated.append(sample)
        alphabet = sorted({c for s in generated for c in s} | set("aZ9:-.%/"))
        long_examples = [text for text in extra if len(text) > CROSSCHECK_EXAMPLE_MAX_CHARS]
        candidates = [text for text in extra if len(text) <= CROSSCHECK_EXAMPLE_MAX_CHARS] + generated
        for sample in generated:
            candidates.extend(_mutations(sample, alphabet, rng))
        candidates = list(dict.fromkeys(candidates))[:CROSSCHECK_MAX_STRINGS]
        deadline = time.process_time() + TIME_BUDGET
        for text in candidates:
            if time.process_time() > deadline:  # the backstop where the timer cannot run
                raise _OutOfTime
            if not text.isascii():
                continue
            ours = matches(text)
            try:
                reference.parse_all(text)
                theirs = True
            except ParseError:
                theirs = False
            except RecursionError:
                continue
            result.checked += 1
            if ours != theirs:
                result.disagreements.append((text, ours, theirs))
        if long_examples:
            result.skipped = (
                f"{len(long_examples)} example(s) longer than "
                f"{CROSSCHECK_EXAMPLE_MAX_CHARS} characters were checked by the "
                "validator only"
            )
    except _OutOfSteps:
        # Counted work: the same grammar stops at the same string on any machine.
        result.cut_short = (
            f"the reference ABNF parser reached its limit of {STEP_BUDGET:,} steps of work "
            f"after {result.checked} test string(s)"
        )
    except (_OutOfTime, MemoryError) as exc:
        limit = f"its limit of {TIME_BUDGET:g} s of CPU time" if isinstance(exc, _OutOfTime) else "the memory limit"
        # Backstops: where they stop depends on the machine (its caches and clocks, a fragmented
        # worker's memory), so such a result is used but never shared.
        result.load_dependent = True
        result.cut_short = f"the reference ABNF parser reached {limit} after {result.checked} test string(s)"
    except Exception as exc:  # the reference parser refused the grammar we fed it
        result.skipped = f"the reference parser could not load the grammar ({exc})"
    finally:
        timer.stop()
        for key in [key for key in Rule._obj_map if key[0] is cls]:
            del Rule._obj_map[key]
    return result
