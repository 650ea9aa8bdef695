"""Fill a resolver template for one URN: the SNID's grammar says what each rule matched.

The validator of a registration is one RE2 pattern without capture groups (a lookup
needs only yes/no). For resolution, ``program_of`` builds the same pattern once more
with a group around each use of the rules the templates name — one program for the
SNID's whole resolver set — so one RE2 match (linear time, like the lookup) gives
every placeholder's text for every template. The program is stored with the SNID's
resolvers when they are approved or replaced, with what resolving one URN was
measured to cost (``resolution.cost``), so resolving never reads ABNF; ``_compiled``
compiles it once per process.

Values are percent-encoded for a URL path or query: everything but RFC 3986's
unreserved characters is encoded, except ``%XX`` escapes already in the URN, which
stand for the same octet in a URL and are passed on as they are. A value never
changes the URL's shape: '/', '?', '#' and ':' are encoded, the host is written out
in the template, and a value that would make a '.' or '..' path segment (``%2e``
counts as '.') is refused (``templates.dot_segment``)."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote

import re2

from ..grammar.analysis import Scope
from ..grammar.ir import Ref
from ..grammar.limits import RE2_MAX_MEM
from ..grammar.regex import PatternBuilder, Piece, TooComplex
from .templates import NSS, Placeholder, dot_segment, template_check

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_HEX = frozenset("0123456789ABCDEFabcdef")


#: Longest URL the registry sends anyone to: RFC 9110 §4.1 asks senders and recipients to
#: support at least 8,000 octets; longer ones break in proxies and browsers (and a
#: ``Location`` header that size breaks in the registry's own front server).
URL_MAX_LENGTH = 8000


class ExpandError(ValueError):
    """A template that cannot be filled for this URN (the message says which placeholder)."""


def url_bounded(url: str) -> str:
    """``url``, or ExpandError when it is too long to send anyone to."""
    if len(url) > URL_MAX_LENGTH:
        raise ExpandError(
            f"The URL would be {len(url):,} characters long; the registry sends nobody to a URL "
            f"longer than {URL_MAX_LENGTH:,}."
        )
    return url


#: Each ASCII character as it stands in a URL: itself if unreserved (or '%', whose escapes are
#: handled apart), else its %XX escape; ``str.translate`` maps a value in one C loop.
_ENCODED = [chr(code) if chr(code) in _UNRESERVED or code == 0x25 else f"%{code:02X}" for code in range(128)]
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_BARE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_LOWER_ESCAPE = re.compile(r"%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-F])")


def _upper(match) -> str:
    return match.group(0).upper()


def percent_encode(value: str) -> str:
    """``value`` for a URL path or query: everything but RFC 3986's unreserved characters
    percent-encoded, except ``%XX`` escapes already there (the same octet; hex upper-cased).

    Linear, and in C loops for the ASCII values URNs are made of (about 0.1 µs a character):
    resolving a 4,096-character URN encodes it once, whatever the templates."""
    if _UNRESERVED.issuperset(value):
        return value  # most values need no encoding at all
    if not value.isascii():
        parts = _ESCAPE.split(value)
        parts[0::2] = [quote(part, safe="-._~") for part in parts[0::2]]
        parts[1::2] = ["%" + digits.upper() for digits in parts[1::2]]
        return "".join(parts)
    encoded = value.translate(_ENCODED)
    if "%" not in value:
        return encoded
    if _BARE_PERCENT.search(value):  # a '%' that starts no escape (a rule cut one apart): '%25'
        encoded = _BARE_PERCENT.sub("%25", encoded)
    if _LOWER_ESCAPE.search(encoded):
        encoded = _LOWER_ESCAPE.sub(_upper, encoded)
    return encoded


class _CapturingBuilder(PatternBuilder):
    """The validator's pattern with a numbered group around every use of the chosen rules."""

    def __init__(self, scope: Scope, recursive: set[str], capture: set[str]):
        super().__init__(scope, recursive)
        self.capture = capture
        self.groups: list[str] = []  # rule key of group 1, 2, ...

    def rule(self, key: str) -> Piece:
        if key not in self.capture:
            # Memoised pieces would repeat groups without recording them: only memoise
            # rules that contain no captured rule (the result is the same text).
            before = len(self.groups)
            piece = super().rule(key)
            if len(self.groups) != before:
                self.memo.pop(key, None)
            return piece
        self.groups.append(key)
        inner = super().rule(key)
        self.memo.pop(key, None)
        return Piece(f"({inner.text})", inner.size + 1, inner.repeat)

    def single(self, node, depth: int = 0):
        if isinstance(node, Ref) and node.key in self.capture:
            return None
        if depth == 0 and self._contains_capture(node, 0):
            return None
        return super().single(node, depth)

    def _contains_capture(self, node, depth: int) -> bool:
        if depth > 50:
            return True
        if isinstance(node, Ref):
            if node.key in self.capture:
                return True
            rule = self.scope.lookup(node.key)
            return rule is not None and node.key not in self.recursive and self._contains_capture(rule.expr, depth + 1)
        return any(self._contains_capture(item, depth + 1) for item in getattr(node, "items", ()))


def program_of(compiled, templates: list[str]) -> dict | None:
    """The capture program of ``templates`` under a compiled grammar: {pattern, groups, full_urn},
    one program for all of them; None if none names a rule. ExpandError when the grammar cannot
    validate or a rule is unknown or unused."""
    wanted = []
    for template in templates:
        wanted += [p.name.lower() for p in template_check(template).placeholders if p.name.lower() != NSS]
    wanted = list(dict.fromkeys(wanted))
    if not wanted:
        return None
    if compiled is None or not compiled.ok or compiled.analysis.top is None:
        raise ExpandError("The grammar cannot validate URNs, so its rules cannot fill a template.")
    rules = compiled.parsed.rules
    unknown = [name for name in wanted if name not in rules]
    if unknown:
        raise ExpandError(f"{{{unknown[0]}}} is not a rule of the grammar.")
    builder = _CapturingBuilder(Scope(rules), set(compiled.analysis.recursive), set(wanted))
    try:
        piece = builder.rule(compiled.analysis.top)
    except (TooComplex, RecursionError) as exc:
        raise ExpandError(f"The grammar is too large to capture rules from: {exc}") from None
    missing = [name for name in wanted if name not in builder.groups]
    if missing:
        raise ExpandError(
            f"The rule {rules[missing[0]].name} is not used by the top rule, so it never matches anything."
        )
    return {"pattern": piece.text, "groups": builder.groups, "full_urn": compiled.analysis.full_urn}


_programs: OrderedDict[str, object] = OrderedDict()
_programs_lock = threading.Lock()


def _compiled(pattern: str):
    """A function bytes -> list of group spans (or None), compiled once per pattern.

    It calls the RE2 binding's anchored ``Match`` directly, as the lookup does
    (registry/grammar/re2match.py): the public wrapper's match objects cost several
    times the match itself."""
    with _programs_lock:
        found = _programs.get(pattern)
        if found is not None:
            _programs.move_to_end(pattern)
            return found
    options = re2.Options()
    options.max_mem = RE2_MAX_MEM
    options.log_errors = False
    try:
        from re2 import _re2

        program = _re2.RE2(pattern.encode("utf-8"), options)
        if not program.ok():
            raise ExpandError("The capture program cannot be compiled.")
        anchor, match = _re2.RE2.Anchor.ANCHOR_BOTH, program.Match

        def spans(data: bytes):
            found = match(anchor, data, 0, len(data))
            return None if found[0] == (-1, -1) else found
    except (ImportError, AttributeError):  # pragma: no cover - binding layout changed
        compiled = re2.compile(pattern, options)

        def spans(data: bytes):
            found = compiled.fullmatch(data.decode("latin-1"))
            return None if found is None else [found.span(i) for i in range(compiled.groups + 1)]

    with _programs_lock:
        _programs[pattern] = spans
        while len(_programs) > 256:
            _programs.popitem(last=False)
    return spans


def rule_values(program: dict | None, urn: str, nss: str) -> dict[str, str] | None:
    """What each captured rule matched in ``urn`` (the first use that matched), or None if the
    program does not match (the URN is not valid under the grammar)."""
    if not program:
        return {}
    subject = urn if program["full_urn"] else nss
    if not subject.isascii():
        return None
    data = subject.encode("ascii")
    spans = _compiled(program["pattern"])(data)
    if spans is None:
        return None
    values: dict[str, str] = {}
    for number, key in enumerate(program["groups"], start=1):
        start, end = spans[number]
        if start != -1 and key not in values:
            values[key] = subject[start:end]
    return values


@dataclass(frozen=True, slots=True)
class _Plan:
    """A template read once: its parts, and where its path starts (after scheme and host)."""

    parts: tuple
    error: str
    path_start: int  # characters of the first literal part before the path
    placeholder_in_path: bool


@lru_cache(maxsize=1024)
def _plan(template: str) -> _Plan:
    """A template's parts, read once per process (templates are few; resolutions many)."""
    checked = template_check(template)
    if not checked.ok:
        return _Plan((), checked.errors[0], 0, False)
    first = checked.parts[0] if checked.parts and isinstance(checked.parts[0], str) else ""
    scheme_end = first.find("//") + 2
    path_start = len(first)
    for stop in "/?#":
        position = first.find(stop, scheme_end)
        if position != -1:
            path_start = min(path_start, position)
    in_path, seen_query = False, False
    for part in checked.parts:
        if isinstance(part, Placeholder):
            in_path = in_path or not seen_query
        elif "?" in part or "#" in part:
            seen_query = True
    return _Plan(tuple(checked.parts), "", path_start, in_path)


def expand(template: str, nss: str, values: dict[str, str], encoded: dict | None = None) -> str:
    """The URL ``template`` gives for a URN whose (normalised) NSS is ``nss`` and whose rules
    matched ``values`` (``rule_values``); raises ExpandError naming an unfilled placeholder, or
    when a value would make a '.' or '..' path segment (a browser would resolve it to another path).

    ``encoded``: the values already percent-encoded for this URN (each value is encoded once
    per URN, however many templates and placeholders use it)."""
    plan = _plan(template)
    if plan.error:
        raise ExpandError(plan.error)
    encoded = {} if encoded is None else encoded
    out = []
    for part in plan.parts:
        if not isinstance(part, Placeholder):
            out.append(part)
            continue
        key = part.name.lower()
        value = nss if key == NSS else values.get(key)
        if value is None or value == "":
            raise ExpandError(f"{{{part.name}}} matched nothing in this URN.")
        found = encoded.get(value)
        if found is None:
            found = encoded[value] = percent_encode(value)
        out.append(found)
    url = url_bounded("".join(out))
    if plan.placeholder_in_path and (problem := dot_segment(url[plan.path_start :])):
        raise ExpandError(problem)
    return url


def urn_parts(urn: str, steps=()) -> tuple[str, str] | None:
    """(normalised URN, its NSS) of a syntactically valid urn:ogf: URN, else None."""
    from ..grammar import UrnSyntaxError, normalize, parse_urn

    try:
        parsed = parse_urn(urn)
    except UrnSyntaxError:
        return None
    normalized = normalize(parsed, steps)
    return normalized, normalized.split(":", 3)[3]


def resolver_url(resolver: dict, program: dict | None, normalized: str, nss: str) -> str:
    """The URL of one resolver for one normalised URN, or ExpandError."""
    url, problem = urls_for([resolver["template"]], program, normalized, nss)[0]
    if problem:
        raise ExpandError(problem)
    return url


def urls_for(templates, program: dict | None, normalized: str, nss: str) -> list[tuple[str, str]]:
    """Everything resolving one URN does once it is known valid: one capture of every rule the
    templates name (one RE2 match, ``program`` covers the whole set), then every template filled,
    each value encoded once. (url, "") or ("", problem) for each template, in order.

    This is the work ``resolution.cost`` measures, and what is run in the bounded worker for a
    resolver set measured over the budget."""
    values = rule_values(program, normalized, nss) if program else {}
    encoded: dict[str, str] = {}
    out = []
    for template in templates:
        if values is None:
            out.append(("", "The URN does not match the grammar, so its rules have no values."))
            continue
        try:
            out.append((expand(template, nss, values, encoded), ""))
        except ExpandError as exc:
            out.append(("", str(exc)))
    return out


def urls_grouped(pairs, normalized: str, nss: str) -> list[tuple[str, str]]:
    """``urls_for`` of (template, program) pairs: one capture per distinct program (an SNID's
    current set shares one; rows stored before sets shared a program have one each)."""
    groups: dict[str, list[int]] = {}
    for number, (_template, program) in enumerate(pairs):
        groups.setdefault(program["pattern"] if program else "", []).append(number)
    out: list = [None] * len(pairs)
    for numbers in groups.values():
        program = pairs[numbers[0]][1]
        results = urls_for([pairs[n][0] for n in numbers], program, normalized, nss)
        for number, result in zip(numbers, results, strict=True):
            out[number] = result
    return out
