"""Strings generated from a grammar, to test what it admits.

``character_samples`` builds, for each kind of character the grammar can
produce, a few short strings of the grammar's language that contain it, at
different places. The checklist turns each into a URN and checks it with the
generic urn:ogf: syntax: any that fails is a counter-example showing that the
grammar admits strings that are not URNs (a bare ``%``, a space, a non-ASCII
character, a ``/`` inside the SNID…).

Generation walks the IR once per character with memoised results, so its cost
is bounded by the grammar's size times the number of characters tried.
"""

from __future__ import annotations

from .analysis import Scope, literal_chars
from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep

#: Placements kept per node and character (different positions of the same character).
PER_NODE = 3
#: Characters tried: every ASCII character the grammar admits that is not a letter or
#: digit, one letter, one digit and the first character of each non-ASCII range.
MAX_CHARACTERS = 160
#: Longest sample built: nothing longer can be a URN the registry checks.
MAX_SAMPLE = 4096
#: Nodes visited in all before generation stops (a hostile grammar cannot make it slow).
MAX_STEPS = 200_000


class _OutOfSteps(Exception):
    pass


class _Generator:
    def __init__(self, scope: Scope):
        self.scope = scope
        self.short_memo: dict[str, str | None] = {}
        self.active: set[str] = set()
        self.steps = 0

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _OutOfSteps

    # -- the shortest string of a node (None: none found without recursion) --

    def shortest(self, node) -> str | None:
        self.step()
        if isinstance(node, Lit):
            return node.text
        if isinstance(node, Range):
            return chr(node.lo)
        if isinstance(node, Cat):
            parts = [self.shortest(item) for item in node.items]
            if any(part is None for part in parts) or sum(map(len, parts)) > MAX_SAMPLE:
                return None
            return "".join(parts)
        if isinstance(node, Alt):
            options = [s for s in (self.shortest(item) for item in node.items) if s is not None]
            return min(options, key=len) if options else None
        if isinstance(node, Rep):
            if node.min == 0:
                return ""
            part = self.shortest(node.item)
            return None if part is None or len(part) * node.min > MAX_SAMPLE else part * node.min
        if isinstance(node, Prose):
            known = self.scope.prose(node)
            return self.shortest(known) if known is not None else None
        if isinstance(node, Ref):
            if node.key in self.short_memo:
                return self.short_memo[node.key]
            rule = self.scope.lookup(node.key)
            if rule is None or node.key in self.active:
                return None
            self.active.add(node.key)
            try:
                result = self.shortest(rule.expr)
            finally:
                self.active.discard(node.key)
            self.short_memo[node.key] = result
            return result
        raise TypeError(node)  # pragma: no cover

    # -- short strings of a node containing the character ``code`` --

    def containing(self, node, code: int, memo: dict, active: set) -> list[str]:
        self.step()
        if isinstance(node, Lit):
            chars = literal_chars(node)
            if code not in chars:
                return []
            for index, char in enumerate(node.text):
                if ord(char) == code or ord(char.swapcase()) == code:
                    return [node.text[:index] + chr(code) + node.text[index + 1 :]]
            return []  # pragma: no cover
        if isinstance(node, Range):
            return [chr(code)] if node.lo <= code <= node.hi else []
        if isinstance(node, Cat):
            shortest = [self.shortest(item) for item in node.items]
            out = []
            for index, item in enumerate(node.items):
                others = shortest[:index] + shortest[index + 1 :]
                if any(part is None for part in others):
                    continue
                for middle in self.containing(item, code, memo, active):
                    text = "".join(shortest[:index]) + middle + "".join(shortest[index + 1 :])
                    if len(text) <= MAX_SAMPLE:
                        out.append(text)
                    if len(out) >= PER_NODE:
                        return out
            return out
        if isinstance(node, Alt):
            out = []
            for item in node.items:
                out.extend(self.containing(item, code, memo, active))
                if len(out) >= PER_NODE:
                    break
            return out[:PER_NODE]
        if isinstance(node, Rep):
            if node.max == 0:
                return []
            filler = self.shortest(node.item) if node.min > 1 else ""
            if filler is None or len(filler) * node.min > MAX_SAMPLE:
                return []
            return [text + filler * (node.min - 1) for text in self.containing(node.item, code, memo, active)]
        if isinstance(node, Prose):
            known = self.scope.prose(node)
            return self.containing(known, code, memo, active) if known is not None else []
        if isinstance(node, Ref):
            if node.key in memo:
                return memo[node.key]
            rule = self.scope.lookup(node.key)
            if rule is None or node.key in active:
                return []
            active.add(node.key)
            try:
                result = self.containing(rule.expr, code, memo, active)
            finally:
                active.discard(node.key)
            memo[node.key] = result
            return result
        raise TypeError(node)  # pragma: no cover


def _characters(charset) -> list[int]:
    codes: list[int] = []
    for lo, hi in charset:
        for code in range(lo, min(hi, 0x7F) + 1):
            char = chr(code)
            if not char.isalnum():
                codes.append(code)
        if hi > 0x7F:
            codes.append(max(lo, 0x80))
    letters = [code for lo, hi in charset for code in range(lo, min(hi, 0x7F) + 1) if chr(code).isalpha()]
    digits = [code for lo, hi in charset for code in range(lo, min(hi, 0x7F) + 1) if chr(code).isdigit()]
    codes.extend(letters[:1] + digits[:1])
    return codes[:MAX_CHARACTERS]


def character_samples(scope: Scope, top: str, charset) -> tuple[list[str], bool]:
    """Short strings of rule ``top``'s language: the shortest, then some for each character.

    Returns (samples, complete): ``complete`` is False when the step limit cut
    generation short, so not every character was tried.
    """
    generator = _Generator(scope)
    top_ref = Ref(top)
    samples: list[str] = []
    seen: set[str] = set()
    try:
        shortest = generator.shortest(top_ref)
        if shortest is not None:
            samples.append(shortest)
            seen.add(shortest)
        for code in _characters(charset):
            for text in generator.containing(top_ref, code, {}, set()):
                if text not in seen:
                    seen.add(text)
                    samples.append(text)
    except (_OutOfSteps, RecursionError):
        return samples, False
    return samples, True


# -- long strings of the language: what a costly URN of the grammar looks like --------------------

#: Ways of pumping: which alternative and which character of a range each one prefers.
PUMP_VARIANTS = 4
#: Deepest chain of rule references followed while pumping (deeper: the shortest string).
PUMP_DEPTH = 60


class _Pump:
    """Builds one string of a node's language, as long as fits in ``room``: every repetition
    repeated as often as it can, alternatives and range characters chosen by ``variant``
    (0: the first, 1: the last, 2 and 3: turning through them), so that a measurement sees
    long URNs of the grammar's own shape rather than only runs of one character."""

    def __init__(self, generator: _Generator, variant: int):
        self.generator, self.variant, self.turn = generator, variant, 0

    def _shortest(self, node) -> str | None:
        return self.generator.shortest(node)

    def fill(self, node, room: int, depth: int = 0) -> str | None:
        self.generator.step()
        if room < 0:
            return None
        if isinstance(node, Lit):
            return node.text if len(node.text) <= room else None
        if isinstance(node, Range):
            if room < 1:
                return None
            top = min(node.hi, 0x7E) if node.lo <= 0x7E else node.lo
            span = top - node.lo + 1
            self.turn += 1
            offset = {0: 0, 1: span - 1}.get(self.variant, (self.turn * (self.variant + 1)) % span)
            return chr(node.lo + offset)
        if isinstance(node, Cat):
            shortest = [self._shortest(item) for item in node.items]
            if any(part is None for part in shortest):
                return None
            after = [0] * (len(node.items) + 1)
            for index in range(len(node.items) - 1, -1, -1):
                after[index] = after[index + 1] + len(shortest[index])
            if after[0] > room:
                return None
            out, used = [], 0
            for index, item in enumerate(node.items):
                part = self.fill(item, room - used - after[index + 1], depth)
                part = shortest[index] if part is None else part
                out.append(part)
                used += len(part)
            return "".join(out)
        if isinstance(node, Alt):
            items = list(node.items)
            if self.variant == 1:
                items.reverse()
            elif self.variant >= 2:
                self.turn += 1
                shift = self.turn % len(items)
                items = items[shift:] + items[:shift]
            for item in items[:3]:
                part = self.fill(item, room, depth)
                if part is not None:
                    return part
            options = [s for s in (self._shortest(item) for item in node.items) if s is not None and len(s) <= room]
            return min(options, key=len) if options else None
        if isinstance(node, Rep):
            least = self._shortest(node.item)
            if least is None:
                return "" if node.min == 0 else None
            out, used, count = [], 0, 0
            while node.max is None or count < node.max:
                keep = max(0, node.min - count - 1) * len(least)
                part = self.fill(node.item, room - used - keep, depth)
                if not part:
                    break
                out.append(part)
                used += len(part)
                count += 1
            if count < node.min:
                missing = (node.min - count) * len(least)
                if used + missing > room:
                    return None
                out.append(least * (node.min - count))
            return "".join(out)
        if isinstance(node, Prose):
            known = self.generator.scope.prose(node)
            return self.fill(known, room, depth) if known is not None else None
        if isinstance(node, Ref):
            rule = self.generator.scope.lookup(node.key)
            if rule is None:
                return None
            if depth >= PUMP_DEPTH:
                found = self._shortest(node)
                return found if found is not None and len(found) <= room else None
            return self.fill(rule.expr, room, depth + 1)
        raise TypeError(node)  # pragma: no cover


def long_samples(scope: Scope, top: str, length: int) -> list[str]:
    """Strings of rule ``top``'s language of up to ``length`` characters, each as long as the
    grammar allows (``_Pump``), one per variant, each once; bounded by ``MAX_STEPS`` per string."""
    found: list[str] = []
    for variant in range(PUMP_VARIANTS):
        try:
            text = _Pump(_Generator(scope), variant).fill(Ref(top), length)
        except (_OutOfSteps, RecursionError):
            continue
        if text and text not in found:
            found.append(text)
    return found
