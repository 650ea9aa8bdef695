"""Translate a grammar's IR into one RE2 pattern.

RE2 guarantees matching in time linear in the input, so a registration's
grammar can never be made to hang a lookup. Three things RE2 cannot express
directly get a bounded treatment with a finding: recursion is unrolled to
``RECURSION_DEPTH`` levels, repetition counts RE2 would refuse (above 1000, or
nested counts whose product is) are written out as consecutive copies, and a
grammar whose matcher would pass ``PROGRAM_MAX_SIZE`` steps or
``PATTERN_MAX_CHARS`` characters is refused before it is built.
"""

from __future__ import annotations

from dataclasses import dataclass

from .analysis import Scope, literal_chars, merge
from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep
from .limits import PATTERN_MAX_CHARS, PROGRAM_MAX_SIZE

RECURSION_DEPTH = 6
MAX_PATTERN = PATTERN_MAX_CHARS
RE2_MAX_REPEAT = 1000  # RE2 refuses counts, and products of nested counts, above this
NEVER = r"[^\x00-\x{10FFFF}]"  # an empty character class: matches nothing


class TooComplex(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Piece:
    """A pattern with what RE2 will make of it.

    ``repeat`` is the product of the counted repetitions nested in it (RE2 refuses
    a product above 1000); ``size`` estimates the compiled program (RE2 copies the
    body of ``x{n}`` n times), so an exponential grammar is refused before the
    pattern text, let alone the program, is built.
    """

    text: str
    size: int
    repeat: int = 1


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


def _too_large(size: int) -> TooComplex:
    return TooComplex(
        f"it expands to a matcher of about {size:,} steps, more than the registry's limit of "
        f"{PROGRAM_MAX_SIZE:,} (repetition counts multiply: a rule repeated 64 times inside "
        "one repeated 64 times is 4,096 copies); simplify the nested or often-used repetitions"
    )


def _counted(unit: Piece, count: int, optional: bool) -> Piece:
    """``unit`` exactly ``count`` times (or up to, if ``optional``)."""
    if count == 0:
        return Piece("", 0)
    size = unit.size * count + 1
    if size > PROGRAM_MAX_SIZE:
        raise _too_large(size)
    if unit.repeat * count <= RE2_MAX_REPEAT:
        text = f"{unit.text}{{0,{count}}}" if optional else f"{unit.text}{{{count}}}"
        return Piece(text, size, unit.repeat * count)
    # RE2 would refuse the count: write the copies out, each at most 1000 per quantifier.
    chunk = max(1, RE2_MAX_REPEAT // unit.repeat)
    parts = []
    remaining = count
    while remaining:
        step = min(chunk, remaining)
        if step == 1:
            parts.append(f"{unit.text}?" if optional else unit.text)
        else:
            parts.append(f"{unit.text}{{0,{step}}}" if optional else f"{unit.text}{{{step}}}")
        remaining -= step
    text = "(?:" + "".join(parts) + ")"
    if len(text) > MAX_PATTERN:
        raise _too_large(size)
    return Piece(text, size, unit.repeat * min(chunk, count))


def _repeat(unit: Piece, low: int, high: int | None) -> Piece:
    """``unit`` repeated low..high times, in a form RE2 accepts."""
    if (low, high) == (1, 1):
        return unit
    if (low, high) == (0, 1):
        return Piece(unit.text + "?", unit.size + 1, unit.repeat)
    if high is None:
        if low == 0:
            return Piece(unit.text + "*", unit.size + 1, unit.repeat)
        if low == 1:
            return Piece(unit.text + "+", unit.size + 1, unit.repeat)
        head = _counted(unit, low, optional=False)
        return Piece(f"(?:{head.text}{unit.text}*)", head.size + unit.size + 1, head.repeat)
    if unit.repeat * high <= RE2_MAX_REPEAT:
        text = f"{unit.text}{{{low}}}" if low == high else f"{unit.text}{{{low},{high}}}"
        size = unit.size * high + 1
        if size > PROGRAM_MAX_SIZE:
            raise _too_large(size)
        return Piece(text, size, unit.repeat * high)
    head = _counted(unit, low, optional=False)
    tail = _counted(unit, high - low, optional=True)
    size = head.size + tail.size
    if size > PROGRAM_MAX_SIZE:
        raise _too_large(size)
    return Piece(f"(?:{head.text}{tail.text})", size, max(head.repeat, tail.repeat))


class PatternBuilder:
    """Builds the pattern of a rule, inlining references (memoised per rule)."""

    def __init__(self, scope: Scope, recursive: set[str]):
        self.scope = scope
        self.recursive = recursive
        self.memo: dict[str, Piece] = {}
        self.depth: dict[str, int] = {}
        self.truncated = False
        self.size = 0

    def rule(self, key: str) -> Piece:
        if key in self.memo:
            return self.memo[key]
        rule = self.scope.lookup(key)
        if rule is None:
            return Piece(NEVER, 1)
        if key in self.recursive:
            level = self.depth.get(key, 0)
            if level >= RECURSION_DEPTH:
                self.truncated = True
                return Piece(NEVER, 1)
            self.depth[key] = level + 1
            try:
                return self.expr(rule.expr)
            finally:
                self.depth[key] = level
        piece = self.expr(rule.expr)
        self.memo[key] = piece
        return piece

    def single(self, node, depth: int = 0) -> list[tuple[int, int]] | None:
        """Intervals if ``node`` always matches exactly one character."""
        if depth > 50:
            return None
        if isinstance(node, Range):
            return [(node.lo, node.hi)]
        if isinstance(node, Lit) and len(node.text) == 1:
            return [(c, c) for c in literal_chars(node)]
        if isinstance(node, Alt):
            out = []
            for item in node.items:
                part = self.single(item, depth + 1)
                if part is None:
                    return None
                out.extend(part)
            return out
        if isinstance(node, Ref) and node.key not in self.recursive:
            rule = self.scope.lookup(node.key)
            return self.single(rule.expr, depth + 1) if rule is not None else None
        if isinstance(node, Prose):
            known = self.scope.prose(node)
            return self.single(known, depth + 1) if known is not None else None
        return None

    def expr(self, node) -> Piece:
        chars = self.single(node)
        if chars is not None:
            return Piece(char_class(chars), 1)
        if isinstance(node, Lit):
            text = "".join(_char(ord(c)) for c in node.text)
            if not node.case_sensitive:
                piece = Piece(f"(?i:{text})", len(node.text))
            else:
                piece = Piece(text if len(node.text) == 1 else f"(?:{text})", len(node.text))
        elif isinstance(node, Cat):
            if not node.items:
                return Piece("", 0)
            parts = [self.expr(item) for item in node.items]
            piece = self._join(parts, "", sum(p.size for p in parts))
        elif isinstance(node, Alt):
            # Merge the one-character alternatives into a single class.
            chars, others = [], []
            for item in node.items:
                single = self.single(item)
                if single is None:
                    others.append(self.expr(item))
                else:
                    chars.extend(single)
            branches = ([Piece(char_class(chars), 1)] if chars else []) + others
            piece = self._join(branches, "|", sum(p.size for p in branches) + len(branches))
        elif isinstance(node, Rep):
            inner = self.expr(node.item)
            if inner.text == "":
                return inner
            if not (len(inner.text) == 1 or _atomic(inner.text)):
                inner = Piece(f"(?:{inner.text})", inner.size, inner.repeat)
            piece = _repeat(inner, node.min, node.max)
        elif isinstance(node, Ref):
            piece = self.rule(node.key)
        elif isinstance(node, Prose):
            known = self.scope.prose(node)
            piece = self.expr(known) if known is not None else Piece(NEVER, 1)
        else:  # pragma: no cover
            raise TypeError(node)
        self.size += len(piece.text)
        if self.size > MAX_PATTERN:
            raise TooComplex(
                "the grammar expands to a matcher larger than the registry accepts "
                f"({MAX_PATTERN:,} characters); simplify rules that are used many times"
            )
        return piece

    @staticmethod
    def _join(parts: list[Piece], separator: str, size: int) -> Piece:
        if size > PROGRAM_MAX_SIZE:
            raise _too_large(size)
        if sum(len(p.text) for p in parts) > MAX_PATTERN:
            raise TooComplex(
                "the grammar expands to a matcher larger than the registry accepts "
                f"({MAX_PATTERN:,} characters); simplify rules that are used many times"
            )
        text = "(?:" + separator.join(p.text for p in parts) + ")"
        return Piece(text, size, max((p.repeat for p in parts), default=1))


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
    piece = builder.rule(top)
    return piece.text, builder.truncated
