"""Translate a grammar's IR into one RE2 pattern.

RE2 guarantees matching in time linear in the input, so a registration's
grammar can never be made to hang a lookup. Three things RE2 cannot express
directly get a bounded treatment with a finding: recursion is unrolled to
``RECURSION_DEPTH`` levels, repetition counts above 1000 are split into nested
repetitions, and a pattern that grows past ``MAX_PATTERN`` characters is
refused.
"""

from __future__ import annotations

from .analysis import Scope, literal_chars, merge
from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep

RECURSION_DEPTH = 6
MAX_PATTERN = 2_000_000
RE2_MAX_REPEAT = 1000
NEVER = r"[^\x00-\x{10FFFF}]"  # an empty character class: matches nothing


class TooComplex(ValueError):
    pass


def _char(code: int) -> str:
    char = chr(code)
    if char.isascii() and char.isalnum():
        return char
    return f"\\x{{{code:X}}}"


def char_class(intervals) -> str:
    intervals = merge(intervals)
    if len(intervals) == 1 and intervals[0][0] == intervals[0][1]:
        return _char(intervals[0][0])
    body = "".join(_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in intervals)
    return f"[{body}]"


def _repeat(pattern: str, low: int, high: int | None) -> str:
    """``pattern`` repeated low..high times, splitting counts RE2 would refuse."""
    if (low, high) == (1, 1):
        return pattern
    if (low, high) == (0, 1):
        return pattern + "?"
    if high is None:
        if low == 0:
            return pattern + "*"
        if low == 1:
            return pattern + "+"
        return _repeat(pattern, low, low) + pattern + "*"
    if high <= RE2_MAX_REPEAT:
        return f"{pattern}{{{low}}}" if low == high else f"{pattern}{{{low},{high}}}"
    # Split: low = q*1000 + r mandatory copies, then (high-low) optional ones.
    parts = []
    q, r = divmod(low, RE2_MAX_REPEAT)
    if q:
        parts.append(f"(?:{pattern}{{{RE2_MAX_REPEAT}}}){{{q}}}" if q > 1 else f"{pattern}{{{RE2_MAX_REPEAT}}}")
    if r:
        parts.append(f"{pattern}{{{r}}}")
    extra = high - low
    q, r = divmod(extra, RE2_MAX_REPEAT)
    if q:
        parts.append(f"(?:{pattern}{{0,{RE2_MAX_REPEAT}}}){{{q}}}" if q > 1 else f"{pattern}{{0,{RE2_MAX_REPEAT}}}")
    if r:
        parts.append(f"{pattern}{{0,{r}}}")
    if q > RE2_MAX_REPEAT:
        raise TooComplex(f"a repetition of up to {high} items is too large to check")
    return "(?:" + "".join(parts) + ")"


class PatternBuilder:
    """Builds the pattern of a rule, inlining references (memoised per rule)."""

    def __init__(self, scope: Scope, recursive: set[str]):
        self.scope = scope
        self.recursive = recursive
        self.memo: dict[str, str] = {}
        self.depth: dict[str, int] = {}
        self.truncated = False
        self.size = 0

    def rule(self, key: str) -> str:
        if key in self.memo:
            return self.memo[key]
        rule = self.scope.lookup(key)
        if rule is None:
            return NEVER
        if key in self.recursive:
            level = self.depth.get(key, 0)
            if level >= RECURSION_DEPTH:
                self.truncated = True
                return NEVER
            self.depth[key] = level + 1
            try:
                return self.expr(rule.expr)
            finally:
                self.depth[key] = level
        pattern = self.expr(rule.expr)
        self.memo[key] = pattern
        return pattern

    def single(self, node) -> list[tuple[int, int]] | None:
        """Intervals if ``node`` always matches exactly one character."""
        if isinstance(node, Range):
            return [(node.lo, node.hi)]
        if isinstance(node, Lit) and len(node.text) == 1:
            return [(c, c) for c in literal_chars(node)]
        if isinstance(node, Alt):
            out = []
            for item in node.items:
                part = self.single(item)
                if part is None:
                    return None
                out.extend(part)
            return out
        if isinstance(node, Ref) and node.key not in self.recursive:
            rule = self.scope.lookup(node.key)
            return self.single(rule.expr) if rule is not None else None
        if isinstance(node, Prose):
            known = self.scope.prose(node)
            return self.single(known) if known is not None else None
        return None

    def expr(self, node) -> str:
        chars = self.single(node)
        if chars is not None:
            return char_class(chars)
        if isinstance(node, Lit):
            text = "".join(_char(ord(c)) for c in node.text)
            if not node.case_sensitive:
                return f"(?i:{text})"
            return text if len(node.text) == 1 else f"(?:{text})"
        if isinstance(node, Cat):
            if not node.items:
                return ""
            pattern = "(?:" + "".join(self.expr(item) for item in node.items) + ")"
        elif isinstance(node, Alt):
            # Merge the one-character alternatives into a single class.
            chars, others = [], []
            for item in node.items:
                single = self.single(item)
                if single is None:
                    others.append(self.expr(item))
                else:
                    chars.extend(single)
            branches = ([char_class(chars)] if chars else []) + others
            pattern = "(?:" + "|".join(branches) + ")"
        elif isinstance(node, Rep):
            inner = self.expr(node.item)
            if inner == "":
                return ""
            unit = inner if len(inner) == 1 or _atomic(inner) else f"(?:{inner})"
            pattern = _repeat(unit, node.min, node.max)
        elif isinstance(node, Ref):
            pattern = self.rule(node.key)
        elif isinstance(node, Prose):
            known = self.scope.prose(node)
            pattern = self.expr(known) if known is not None else NEVER
        else:  # pragma: no cover
            raise TypeError(node)
        self.size += len(pattern)
        if self.size > MAX_PATTERN:
            raise TooComplex(
                "the grammar expands to a matcher larger than the registry accepts "
                f"({MAX_PATTERN:,} characters); simplify rules that are used many times"
            )
        return pattern


def _atomic(pattern: str) -> bool:
    """Whether ``pattern`` is one unit a quantifier may follow without a group."""
    if pattern.startswith("\\x{") and pattern.endswith("}") and pattern.count("\\x{") == 1:
        return True
    if pattern.startswith("["):
        return pattern.endswith("]") and pattern.count("[") == 1
    if pattern.startswith("(?"):
        depth = 0
        for index, char in enumerate(pattern):
            if char == "\\":
                continue
            if char == "(" and (index == 0 or pattern[index - 1] != "\\"):
                depth += 1
            elif char == ")" and pattern[index - 1] != "\\":
                depth -= 1
                if depth == 0 and index != len(pattern) - 1:
                    return False
        return True
    return False


def build_pattern(scope: Scope, top: str, recursive: set[str]) -> tuple[str, bool]:
    """(pattern for the top rule, whether recursion had to be cut off)."""
    builder = PatternBuilder(scope, recursive)
    pattern = builder.rule(top)
    return pattern, builder.truncated
