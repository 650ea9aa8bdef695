"""Where a URN stops matching its grammar, and what the grammar expected there.

A yes/no validator only says "does not match". To say *where*, we compile a
second RE2 program from the grammar: the language of every **prefix** of a
string the grammar accepts (including the empty one). Being a prefix of some
valid string is monotone — if ``s[:k]`` can still be completed, so can every
shorter start — so a binary search over ``k`` finds the longest start of the
URN that can still be completed to a valid one with ``log2(n)`` linear-time RE2
matches. The characters that may follow that start are found by trying each
printable ASCII character once more. Nothing here backtracks, so an invalid
URN costs a few dozen RE2 matches of a string of at most 4096 characters.

The prefix pattern wraps each of the grammar's own multi-character rules in a
capture group, so the innermost rule still open at the failure point can be
named ("expected a digit (rule INDEX)"). The pattern and the group-to-rule table
are plain data stored with an approved registration's validator, so positions
for registered SNIDs come from what is stored, never from re-reading the ABNF.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import re2

from .analysis import Scope
from .ir import Alt, Cat, Lit, Prose, Ref, Rep
from .re2match import MAX_MEM, compile_anchored
from .regex import MAX_PATTERN, RECURSION_DEPTH, PatternBuilder, Piece, TooComplex, _repeat, char_class

_PRINTABLE = [chr(code) for code in range(0x21, 0x7F)]
#: The capture groups PrefixBuilder writes (characters of the grammar are always escaped, so
#: this text cannot come from a literal).
_GROUP = re2.compile(r"\(\?P<g[0-9]+>")
_DIGITS = frozenset("0123456789")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_HEX = _DIGITS | frozenset("ABCDEFabcdef")
_URN_OTHER = frozenset("()+,-.:=@;$_!*'")


class Budget:
    """CPU time a process may spend locating errors: ``rate`` s per second, bursts of ``burst`` s.

    Locating costs about a millisecond per invalid URN (against microseconds for the
    yes/no answer), so a flood of invalid URNs (a 10,000-URN batch, say) must not turn
    the lookup API into a CPU sink: past the budget, answers say "does not match"
    without the position until the budget refills.
    """

    def __init__(self, rate: float = 0.25, burst: float = 0.3):
        self.rate, self.burst = rate, burst
        self.tokens, self.updated = burst, time.monotonic()
        self.lock = threading.Lock()

    def available(self) -> bool:
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
            self.updated = now
            return self.tokens > 0

    def spend(self, seconds: float) -> None:
        with self.lock:
            self.tokens -= seconds


BUDGET = Budget()


class PrefixBuilder:
    """Builds the pattern of the prefixes of a rule's language (empty string included)."""

    def __init__(self, scope: Scope, recursive: set[str]):
        self.scope, self.recursive = scope, recursive
        self.full = PatternBuilder(scope, recursive)
        self.rules: list[str] = []  # capture group n (1-based) -> rule name at index n-1
        self.depth: dict[str, int] = {}
        self.size = 0

    def _group(self, name: str, body: str) -> str:
        # Named by creation order; RE2's group index (textual order) is mapped back by name.
        self.rules.append(name)
        return f"(?P<g{len(self.rules)}>{body})"

    def pre(self, node) -> str:
        chars = self.full.single(node)
        if chars is not None:
            return char_class(chars) + "?"
        if isinstance(node, Lit):
            pattern = ""
            for char in reversed(node.text):
                pattern = f"(?:{self.full.expr(Lit(char, node.case_sensitive)).text}{pattern})?"
            result = pattern
        elif isinstance(node, Cat):
            if not node.items:
                return ""
            result = self.pre(node.items[-1])
            for item in reversed(node.items[:-1]):
                # Staying in the item first: RE2 then puts the last character inside
                # the innermost rule that can take it (see _rule_for).
                result = f"(?:{self.pre(item)}|{self.full.expr(item).text}{result})"
        elif isinstance(node, Alt):
            result = "(?:" + "|".join(self.pre(item) for item in node.items) + ")"
        elif isinstance(node, Rep):
            if node.max == 0:
                return ""
            inner = self.full.expr(node.item)
            head = (
                ""
                if inner.text == ""
                else _repeat(
                    Piece(f"(?:{inner.text})", inner.size, inner.repeat), 0, None if node.max is None else node.max - 1
                ).text
            )
            result = f"(?:{head}{self.pre(node.item)})"
        elif isinstance(node, Ref):
            result = self._ref(node.key)
        elif isinstance(node, Prose):
            known = self.scope.prose(node)
            result = self.pre(known) if known is not None else ""
        else:  # pragma: no cover
            raise TypeError(node)
        self.size += len(result)
        if self.size > MAX_PATTERN:
            raise TooComplex("the grammar is too large to locate errors in")
        return result

    def _ref(self, key: str) -> str:
        rule = self.scope.lookup(key)
        if rule is None:
            return ""
        level = self.depth.get(key, 0)
        if key in self.recursive and level >= RECURSION_DEPTH:
            return ""
        self.depth[key] = level + 1
        try:
            body = self.pre(rule.expr)
        finally:
            self.depth[key] = level
        return self._group(rule.name, body) if key in self.scope.rules else body


def build_prefix(scope: Scope, top: str, recursive: set[str]) -> tuple[str, list[str]]:
    """(prefix pattern of rule ``top``, rule name of each capture group)."""
    builder = PrefixBuilder(scope, recursive)
    pattern = builder._ref(top)
    return pattern, builder.rules


@dataclass(frozen=True, slots=True)
class Position:
    """The first character (1-based, in the whole URN) that cannot be part of a valid URN."""

    character: int
    found: str | None  # None: the URN ended too early
    expected: str  # "a digit, '?' or '#'"
    rule: str | None
    may_end: bool  # the URN would be valid if it ended just before ``character``

    def as_dict(self) -> dict:
        return {
            "character": self.character,
            "found": self.found,
            "expected": self.expected,
            "rule": self.rule,
        }

    @property
    def message(self) -> str:
        expected = self.expected
        if self.may_end:
            expected = "the end of the URN" if expected == "nothing more" else expected + " or the end of the URN"
        rule = f" (rule {self.rule})" if self.rule else ""
        if self.found is None:
            return f"The URN ends too early: at character {self.character}, expected {expected}{rule}."
        return f"At character {self.character} ({self.found!r}): expected {expected}{rule}."


#: Character groups said in one phrase, after letters and hexadecimal digits (``describe``).
_GROUP_WORDS = (
    (_DIGITS, "a digit"),
    (_UPPER, "an upper-case letter"),
    (_LOWER, "a lower-case letter"),
    (_URN_OTHER, "one of " + "".join(sorted(_URN_OTHER))),
)


def describe(chars: set[str]) -> str:
    """Plain words for a set of characters: 'a digit', 'a letter or '-'', …"""
    chars = set(chars)
    words = []
    if _UPPER | _LOWER <= chars:
        chars -= _UPPER | _LOWER
        if _DIGITS <= chars:
            chars -= _DIGITS
            words.append("a letter or digit")
        else:
            words.append("a letter")
    elif _HEX <= chars:
        chars -= _HEX
        words.append("a hexadecimal digit")
    for group, word in _GROUP_WORDS:
        if group <= chars:
            chars -= group
            words.append(word)
    runs: list[list[str]] = []
    for char in sorted(chars):
        if runs and ord(char) == ord(runs[-1][-1]) + 1 and char.isalnum() and runs[-1][-1].isalnum():
            runs[-1].append(char)
        else:
            runs.append([char])
    listed = [f"{run[0]!r} to {run[-1]!r}" if len(run) > 2 else None for run in runs]
    items = []
    for run, text in zip(runs, listed, strict=True):
        items.extend([text] if text else [repr(char) for char in run])
    words.extend(items[:12])
    if len(items) > 12:
        words.append(f"{len(items) - 12} other characters")
    if not words:
        return "nothing more"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


class Locator:
    """Runs a stored prefix pattern; compiled on first use (only invalid URNs need it)."""

    __slots__ = ("pattern", "rules", "_compiled", "_viable", "_groups", "_lock", "_recent")

    #: Answers kept per grammar (the same invalid URN is often asked again: a page lists
    #: an example twice, a batch repeats a URN).
    RECENT = 256

    def __init__(self, pattern: str, rules: list[str]):
        self.pattern, self.rules = pattern, list(rules)
        self._compiled = None  # with capture groups: only to name the rule, once per URN
        self._viable = None  # yes/no, no captures: the fast path for every other match
        self._groups: list[tuple[int, str]] = []  # (RE2 group index, rule name)
        self._lock = threading.Lock()
        self._recent: OrderedDict[tuple[str, int], Position | None] = OrderedDict()

    def _program(self):
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    options = re2.Options()
                    options.max_mem = MAX_MEM
                    options.log_errors = False
                    program = re2.compile(self.pattern, options)
                    self._groups = sorted(
                        (index, self.rules[int(name[1:]) - 1])
                        for name, index in program.groupindex.items()
                        if name[1:].isdigit() and int(name[1:]) <= len(self.rules)
                    )
                    # Without groups RE2 answers yes/no with its DFA; with them it must track
                    # submatches (slower by orders of magnitude on long input).
                    self._viable = compile_anchored(_GROUP.sub("(?:", self.pattern))
                    self._compiled = program
        return self._compiled

    def program_size(self) -> int:
        """RE2 instructions of the two programs locating needs (compiling them if not yet)."""
        program = self._program()
        return program.programsize + getattr(self._viable, "program_size", 0)

    def locate(self, subject: str, offset: int = 0, complete=None) -> Position | None:
        """Where ``subject`` stops being completable; ``offset`` characters precede it in the URN.

        ``complete`` tells whether a string is in the language (to say "or the end").
        Returns None if ``subject`` can be completed entirely and is complete.
        """
        key = (subject, offset)
        with self._lock:
            if key in self._recent:
                self._recent.move_to_end(key)
                return self._recent[key]
        if not subject.isascii() or not BUDGET.available():
            return None
        started = time.perf_counter()
        try:
            position = self._locate(subject, offset, complete)
        finally:
            BUDGET.spend(time.perf_counter() - started)
        with self._lock:
            self._recent[key] = position
            while len(self._recent) > self.RECENT:
                self._recent.popitem(last=False)
        return position

    def _locate(self, subject: str, offset: int, complete) -> Position | None:
        program = self._program()
        data = subject.encode("ascii")

        def viable(k: int) -> bool:
            return self._viable(data[:k])

        low, high = 0, len(subject)  # viable(low) holds; find the largest such k
        if not viable(0):
            return None
        while low < high:
            middle = (low + high + 1) // 2
            if viable(middle):
                low = middle
            else:
                high = middle - 1
        start = subject[:low]
        head = data[:low]
        expected = {char for char in _PRINTABLE if self._viable(head + char.encode("ascii"))}
        may_end = bool(complete and complete(start))
        if low == len(subject) and may_end:
            return None
        return Position(
            character=offset + low + 1,
            found=subject[low] if low < len(subject) else None,
            expected=describe(expected),
            rule=self._rule_for(program, start, expected),
            may_end=may_end,
        )

    def _rule_for(self, program, start: str, expected: set[str]) -> str | None:
        """The rule that would take the first expected character (letters and digits first)."""
        if not expected:
            match = program.fullmatch(start)
            return self._rule_at(match, len(start)) if match is not None else None
        representative = min(expected, key=lambda char: (not char.isalnum(), char))
        return self._rule_at(program.fullmatch(start + representative), len(start) + 1, consumed=True)

    def _rule_at(self, match, end: int, consumed: bool = False) -> str | None:
        """The innermost rule still open at ``end``: latest start, then deepest group.

        ``consumed``: the last character was the expected one; the rule must contain it.
        """
        best, best_key = None, None
        for index, name in self._groups:
            start, stop = match.span(index)
            if start < 0 or stop != end or (start == end and consumed):
                continue
            key = (start, index)
            if best_key is None or key > best_key:
                best, best_key = name, key
        return best
