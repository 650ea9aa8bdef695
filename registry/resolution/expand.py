"""Fill a resolver template for one URN: the SNID's grammar says what each rule matched.

The validator of a registration is one RE2 pattern without capture groups (a lookup
needs only yes/no). For resolution, ``capture_program`` builds the same pattern once
more with a group around each use of the rules a template names, so one RE2 match
(linear time, like the lookup) gives every placeholder's text. The program is stored
with the SNID's resolvers when they are approved or replaced, so resolving never
reads ABNF; ``Expander`` compiles it once per process.

Values are percent-encoded for a URL path or query: everything but RFC 3986's
unreserved characters is encoded, except ``%XX`` escapes already in the URN, which
stand for the same octet in a URL and are passed on as they are.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import lru_cache
from urllib.parse import quote

import re2

from ..grammar import grammar_compile
from ..grammar.analysis import Scope
from ..grammar.limits import RE2_MAX_MEM
from ..grammar.regex import PatternBuilder, Piece, TooComplex
from ..grammar.ir import Ref
from .templates import NSS, Placeholder, template_check

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
        raise ExpandError(f"The URL would be {len(url):,} characters long; the registry sends nobody to a URL "
                          f"longer than {URL_MAX_LENGTH:,}.")
    return url


def percent_encode(value: str) -> str:
    if _UNRESERVED.issuperset(value):
        return value  # most values need no encoding at all
    if "%" not in value:
        return quote(value, safe="-._~")  # the common case, in the standard library's quoter
    out = []
    index = 0
    while index < len(value):
        char = value[index]
        if char in _UNRESERVED:
            out.append(char)
        elif char == "%" and len(value) > index + 2 and value[index + 1] in _HEX and value[index + 2] in _HEX:
            out.append("%" + value[index + 1:index + 3].upper())
            index += 3
            continue
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        index += 1
    return "".join(out)


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
            return rule is not None and node.key not in self.recursive and \
                self._contains_capture(rule.expr, depth + 1)
        return any(self._contains_capture(item, depth + 1) for item in getattr(node, "items", ()))


def capture_program(abnf: str, rule: str, templates: list[str]) -> dict | None:
    """The stored program for ``templates``: {pattern, groups, full_urn}; None if no rule is used.

    Raises ExpandError when the grammar cannot validate or a rule is unknown.
    """
    if not any(p.name.lower() != NSS for t in templates for p in template_check(t).placeholders):
        return None
    return program_of(grammar_compile(abnf, rule), templates)


def program_of(compiled, templates: list[str]) -> dict | None:
    """``capture_program`` for an already compiled grammar (the checklist's)."""
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
        raise ExpandError(f"The rule {rules[missing[0]].name} is not used by the top rule, so it never "
                          "matches anything.")
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


@lru_cache(maxsize=1024)
def _checked(template: str):
    """A template's parts, read once per process (templates are few; resolutions many)."""
    return template_check(template)


def expand(template: str, nss: str, values: dict[str, str]) -> str:
    """The URL ``template`` gives for a URN whose (normalised) NSS is ``nss`` and whose rules
    matched ``values`` (``rule_values``); raises ExpandError naming an unfilled placeholder."""
    checked = _checked(template)
    if not checked.ok:
        raise ExpandError(checked.errors[0])
    out = []
    for part in checked.parts:
        if not isinstance(part, Placeholder):
            out.append(part)
            continue
        key = part.name.lower()
        value = nss if key == NSS else values.get(key)
        if value is None or value == "":
            raise ExpandError(f"{{{part.name}}} matched nothing in this URN.")
        out.append(percent_encode(value))
    return url_bounded("".join(out))


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
    values = rule_values(program, normalized, nss) if program else {}
    if values is None:
        raise ExpandError("The URN does not match the grammar, so its rules have no values.")
    return expand(resolver["template"], nss, values)


def preview(resolvers: list[dict], compiled, examples, steps=()) -> list[tuple[str, str, str, str]]:
    """Every resolver's URL for every example: (resolver name, example, url, problem) rows."""
    rows = []
    for resolver in resolvers:
        try:
            program = program_of(compiled, [resolver["template"]])
        except ExpandError as exc:
            rows.append((resolver["name"], "", "", str(exc)))
            continue
        for example in examples:
            parts = urn_parts(example, steps)
            if parts is None:
                continue
            try:
                rows.append((resolver["name"], example, resolver_url(resolver, program, *parts), ""))
            except ExpandError as exc:
                rows.append((resolver["name"], example, "", str(exc)))
    return rows
