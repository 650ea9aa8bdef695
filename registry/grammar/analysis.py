"""What a grammar means: which rules count, what it can produce, how long.

Everything here reads the IR only; nothing matches strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep, RuleDef, walk
from .limits import PREFIX_MAX_CHARS, URN_MAX_LENGTH
from .parse import CORE_RULES, KNOWN_PROSE, Issue, ParsedGrammar, prose_key
from .urn import URN_CHARS, URN_RESERVED

INFINITE = float("inf")


# --- character sets as sorted, merged (lo, hi) intervals ----------------------------------


def merge(intervals) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


def literal_chars(node: Lit) -> set[int]:
    chars = set()
    for char in node.text:
        chars.add(ord(char))
        if not node.case_sensitive and char.isascii() and char.isalpha():
            chars.add(ord(char.swapcase()))
    return chars


def contains(intervals, code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in intervals)


def describe_char(code: int) -> str:
    char = chr(code)
    return repr(char) if 0x21 <= code <= 0x7E else f"U+{code:04X}"


@dataclass(slots=True)
class Scope:
    """Name resolution: the grammar's own rules shadow the core rules."""

    rules: dict[str, RuleDef]

    def lookup(self, key: str) -> RuleDef | None:
        return self.rules.get(key) or CORE_RULES.get(key)

    def prose(self, node: Prose):
        return KNOWN_PROSE.get(prose_key(node.text))


@dataclass(slots=True)
class Analysis:
    top: str | None  # casefolded top rule
    issues: list[Issue] = field(default_factory=list)
    reachable: list[str] = field(default_factory=list)  # casefolded, user rules only
    recursive: list[str] = field(default_factory=list)
    charset: tuple = ()
    min_length: float = 0
    max_length: float = INFINITE
    prefix: str = ""  # fixed leading text, lower-cased where case-insensitive
    full_urn: bool = False
    reserved: list[str] = field(default_factory=list)  # of % / ? # the grammar admits
    outside_urn_chars: list[str] = field(default_factory=list)
    unknown_prose: list[str] = field(default_factory=list)

    @property
    def bounded(self) -> bool:
        return self.max_length != INFINITE


def analyse(parsed: ParsedGrammar, top: str | None) -> Analysis:
    scope = Scope(parsed.rules)
    key = (top or parsed.first_rule or "").casefold() or None
    result = Analysis(top=key)
    if key is None:
        return result
    if key not in parsed.rules:
        known = ", ".join(rule.name for rule in parsed.rules.values())
        result.issues.append(
            Issue(
                "top-rule",
                "error",
                f"The top rule {top!r} is not defined in the grammar"
                + (f" (its rules are: {known})." if known else "."),
                rule=top,
            )
        )
        return result
    _check_references(parsed, scope, key, result)
    _check_core_redefinitions(parsed, result)
    _check_recursion(scope, key, result)
    _measure(scope, key, result)
    return result


def _check_references(parsed, scope, top, result: Analysis) -> None:
    seen, order, stack = {top}, [], [top]
    reported_prose = set()
    # A rule that could not be read is reported where its syntax error is, not again by
    # every rule that uses it ("refers to 'SITE', which is not defined" when SITE lacks a ')').
    unreadable = {issue.rule.casefold() for issue in parsed.issues if issue.kind == "syntax" and issue.rule}
    while stack:
        key = stack.pop()
        rule = scope.lookup(key)
        if key in parsed.rules:
            order.append(key)
        for node in walk(rule.expr):
            if isinstance(node, Ref):
                if scope.lookup(node.key) is None:
                    if (rule.name, node.key) not in reported_prose and node.key not in unreadable:
                        reported_prose.add((rule.name, node.key))
                        result.issues.append(
                            Issue(
                                "undefined",
                                "error",
                                f"Line {node.line}: rule {rule.name!r} refers to {node.name!r}, "
                                "which is not defined (neither in the grammar nor among the "
                                "RFC 5234 core rules).",
                                node.line,
                                None,
                                rule.name,
                            )
                        )
                elif node.key not in seen:
                    seen.add(node.key)
                    stack.append(node.key)
            elif isinstance(node, Prose) and node.text not in reported_prose:
                reported_prose.add(node.text)
                if scope.prose(node) is not None:
                    result.issues.append(
                        Issue(
                            "prose-known",
                            "info",
                            f"Line {node.line}: the prose value <{node.text}> is read as its "
                            "standard definition (RFC 2141 §2.2).",
                            node.line,
                            None,
                            rule.name,
                        )
                    )
                else:
                    result.unknown_prose.append(node.text)
                    result.issues.append(
                        Issue(
                            "prose-unknown",
                            "error",
                            f"Line {node.line}: the prose value <{node.text}> in rule {rule.name!r} "
                            "is free text that cannot be checked by machine; write it in ABNF.",
                            node.line,
                            None,
                            rule.name,
                        )
                    )
    result.reachable = sorted(order, key=lambda k: parsed.rules[k].line)
    for key, rule in parsed.rules.items():
        if key not in seen:
            result.issues.append(
                Issue(
                    "unreachable",
                    "warning",
                    f"Line {rule.line}: rule {rule.name!r} is defined but not used by the top rule "
                    f"{parsed.rules[top].name!r}.",
                    rule.line,
                    None,
                    rule.name,
                )
            )


def _single_chars(expr, scope, depth=0) -> set[int] | None:
    """The characters of a rule that always matches exactly one character, else None."""
    if depth > 20:
        return None
    if isinstance(expr, Range):
        return set(range(expr.lo, min(expr.hi, 0x10FFFF) + 1)) if expr.hi - expr.lo < 70000 else None
    if isinstance(expr, Lit):
        return literal_chars(expr) if len(expr.text) == 1 else None
    if isinstance(expr, Alt):
        out = set()
        for item in expr.items:
            chars = _single_chars(item, scope, depth + 1)
            if chars is None:
                return None
            out |= chars
        return out
    if isinstance(expr, Ref):
        rule = scope.lookup(expr.key)
        return _single_chars(rule.expr, scope, depth + 1) if rule else None
    return None


def _check_core_redefinitions(parsed: ParsedGrammar, result: Analysis) -> None:
    core_scope = Scope({})
    own_scope = Scope(parsed.rules)
    for key, rule in parsed.rules.items():
        if key not in CORE_RULES:
            continue
        standard = _single_chars(CORE_RULES[key].expr, core_scope)
        own = _single_chars(rule.expr, own_scope)
        if standard is not None and standard == own:
            result.issues.append(
                Issue(
                    "core-redefinition",
                    "info",
                    f"Line {rule.line}: {rule.name!r} redefines the RFC 5234 core rule with the "
                    "same meaning; that is harmless.",
                    rule.line,
                    None,
                    rule.name,
                )
            )
        else:
            result.issues.append(
                Issue(
                    "core-redefinition",
                    "warning",
                    f"Line {rule.line}: {rule.name!r} redefines the RFC 5234 core rule "
                    f"{key.upper()} with a different meaning. It is used as defined here, inside "
                    "this grammar only; consider another name to avoid confusing readers.",
                    rule.line,
                    None,
                    rule.name,
                )
            )


def _check_recursion(scope: Scope, top: str, result: Analysis) -> None:
    """Rules that can reach themselves make the language non-regular."""
    graph = {}
    for key in result.reachable:
        graph[key] = {
            ref.key for ref in (n for n in walk(scope.lookup(key).expr) if isinstance(n, Ref)) if ref.key in scope.rules
        }
    recursive = set()
    for start in graph:
        stack, seen = list(graph[start]), set()
        while stack:
            key = stack.pop()
            if key == start:
                recursive.add(start)
                break
            if key not in seen:
                seen.add(key)
                stack.extend(graph.get(key, ()))
    result.recursive = sorted(recursive, key=lambda k: scope.rules[k].line)
    if recursive:
        names = ", ".join(scope.rules[k].name for k in result.recursive)
        first = scope.rules[result.recursive[0]]
        result.issues.append(
            Issue(
                "recursion",
                "warning",
                f"Line {first.line}: the grammar is recursive ({names} refer back to themselves), "
                "so it is not a regular language. Validation checks nesting only up to a fixed "
                "depth; write the structure without recursion if you can.",
                first.line,
                None,
                first.name,
            )
        )


def _measure(scope: Scope, top: str, result: Analysis) -> None:
    """Character set, reserved characters, lengths and the fixed prefix."""
    chars: list[tuple[int, int]] = []
    seen, stack = set(), [scope.lookup(top).expr]
    while stack:
        for node in walk(stack.pop()):
            if isinstance(node, Lit):
                chars.extend((c, c) for c in literal_chars(node))
            elif isinstance(node, Range):
                chars.append((node.lo, node.hi))
            elif isinstance(node, Prose):
                known = scope.prose(node)
                if known is not None and id(known) not in seen:
                    seen.add(id(known))
                    stack.append(known)
            elif isinstance(node, Ref) and node.key not in seen:
                seen.add(node.key)
                rule = scope.lookup(node.key)
                if rule is not None:
                    stack.append(rule.expr)
    result.charset = merge(chars)
    outside = []
    for lo, hi in result.charset:
        if len(outside) > 60:  # enough to show what is wrong; the rest is elided
            outside.append("…")
            break
        for code in range(lo, min(hi, lo + 300) + 1):
            if chr(code) not in URN_CHARS:
                outside.append(describe_char(code))
        if hi > lo + 300:
            outside.append(f"… up to {describe_char(hi)}")
    result.outside_urn_chars = outside
    result.reserved = [c for c in "%/?#" if contains(result.charset, ord(c)) and c in URN_RESERVED]
    lengths = _Lengths(scope, set(result.recursive))
    result.min_length = lengths.min_of(scope.lookup(top).expr)
    result.max_length = lengths.max_of(scope.lookup(top).expr)
    result.prefix = _prefix(scope, scope.lookup(top).expr, set(), {})[0][:PREFIX_MAX_CHARS]
    if URN_MAX_LENGTH < result.min_length < INFINITE:  # INFINITE: undefined parts, said already
        shortest = f"at least {int(result.min_length):,}" if result.min_length < 10**9 else "more than 1,000,000,000"
        result.issues.append(
            Issue(
                "too-large",
                "error",
                f"Every string of this grammar is {shortest} characters long, more than "
                f"the {URN_MAX_LENGTH:,} characters of the longest URN the registry checks, so no "
                "URN can match it (are the repetition counts meant?).",
            )
        )
    result.full_urn = result.prefix.lower().startswith("urn:ogf:")


class _Lengths:
    def __init__(self, scope: Scope, recursive: set[str]):
        self.scope, self.recursive = scope, recursive
        self.min_memo: dict[str, float] = {}
        self.max_memo: dict[str, float] = {}

    def min_of(self, node) -> float:
        if isinstance(node, Lit):
            return len(node.text)
        if isinstance(node, Range):
            return 1
        if isinstance(node, Alt):
            return min(self.min_of(item) for item in node.items)
        if isinstance(node, Cat):
            return sum(self.min_of(item) for item in node.items)
        if isinstance(node, Rep):
            return node.min * self.min_of(node.item) if node.min else 0
        if isinstance(node, Prose):
            known = self.scope.prose(node)
            return self.min_of(known) if known is not None else INFINITE
        if isinstance(node, Ref):
            if node.key not in self.min_memo:
                self.min_memo[node.key] = INFINITE  # a cycle contributes nothing shorter
                rule = self.scope.lookup(node.key)
                self.min_memo[node.key] = self.min_of(rule.expr) if rule else INFINITE
            return self.min_memo[node.key]
        raise TypeError(node)  # pragma: no cover

    def max_of(self, node) -> float:
        if isinstance(node, Lit):
            return len(node.text)
        if isinstance(node, Range):
            return 1
        if isinstance(node, Alt):
            return max(self.max_of(item) for item in node.items)
        if isinstance(node, Cat):
            return sum(self.max_of(item) for item in node.items)
        if isinstance(node, Rep):
            inner = self.max_of(node.item)
            if inner == 0 or node.max == 0:
                return 0
            return INFINITE if node.max is None else node.max * inner
        if isinstance(node, Prose):
            known = self.scope.prose(node)
            return self.max_of(known) if known is not None else 0
        if isinstance(node, Ref):
            if node.key in self.recursive:
                return INFINITE
            if node.key not in self.max_memo:
                rule = self.scope.lookup(node.key)
                self.max_memo[node.key] = self.max_of(rule.expr) if rule else 0
            return self.max_memo[node.key]
        raise TypeError(node)  # pragma: no cover


def _prefix(scope: Scope, node, active: set, memo: dict) -> tuple[str, bool]:
    """(fixed leading text, whether the node is entirely that fixed text)."""
    if isinstance(node, Lit):
        text = node.text if node.case_sensitive else node.text.lower()
        return text[: PREFIX_MAX_CHARS + 1], len(text) <= PREFIX_MAX_CHARS
    if isinstance(node, Range):
        return (chr(node.lo), True) if node.lo == node.hi else ("", False)
    if isinstance(node, Cat):
        text = ""
        for item in node.items:
            part, fixed = _prefix(scope, item, active, memo)
            text += part
            if not fixed or len(text) > PREFIX_MAX_CHARS:  # only the start matters
                return text[: PREFIX_MAX_CHARS + 1], False
        return text, True
    if isinstance(node, Rep):
        part, fixed = _prefix(scope, node.item, active, memo)
        if node.max is not None and node.min == node.max and fixed:
            # Never build more than the capped prefix, however the counts multiply.
            copies = min(node.min, PREFIX_MAX_CHARS + 1)
            text = (part * copies)[: PREFIX_MAX_CHARS + 1]
            return text, len(text) <= PREFIX_MAX_CHARS and len(part) * node.min == len(text)
        return (part if node.min >= 1 else ""), False
    if isinstance(node, Ref):
        rule = scope.lookup(node.key)
        if rule is None or node.key in active:
            return "", False
        if node.key not in memo:
            memo[node.key] = _prefix(scope, rule.expr, active | {node.key}, memo)
        return memo[node.key]
    if isinstance(node, Alt):
        parts = [_prefix(scope, item, active, memo) for item in node.items]
        if all(p == parts[0] for p in parts):
            return parts[0]
        return "", False
    return "", False
