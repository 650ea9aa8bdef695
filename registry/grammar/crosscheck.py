"""Compile-time proof that the RE2 translation means what the grammar says.

The same grammar is loaded into the ``abnf`` package's backtracking parser (the
reference reading) and both are asked about the registration's own examples and
about strings generated from the grammar, plus near misses of them. Any
disagreement is reported as an error; nothing here ever runs at request time.

The ``abnf`` package keeps every loaded rule in a process-wide table forever,
so each grammar is loaded into a class of its own and removed from that table
once the check is done.
"""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass, field

from abnf.parser import ParseError, Rule

from .analysis import Scope
from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep, to_abnf

SAMPLES = 40
MAX_SAMPLE_LENGTH = 120
TIME_BUDGET = 0.5  # seconds for the whole check: a save must answer within a second
_counter = itertools.count()


@dataclass(slots=True)
class CrossCheck:
    checked: int = 0
    disagreements: list[tuple[str, bool, bool]] = field(default_factory=list)  # (text, re2, abnf)
    skipped: str = ""


def _abnf_text(scope: Scope, keys: list[str]) -> str:
    """The grammar as ABNF text in which our rules cannot collide with core rules."""

    def name_of(ref: Ref) -> str:
        return f"u-{ref.name}" if ref.key in scope.rules else ref.name

    def prose(node: Prose) -> str:
        known = scope.prose(node)
        return f"( {to_abnf(known, name_of, prose)} )" if known is not None else f"<{node.text}>"

    return "\n".join(
        f"u-{scope.rules[key].name} = {to_abnf(scope.rules[key].expr, name_of, prose)}" for key in keys
    )


class _Generator:
    """Random strings of the language, with bounded depth and length."""

    def __init__(self, scope: Scope, rng: random.Random):
        self.scope, self.rng = scope, rng

    def gen(self, node, depth: int) -> str:
        if depth > 40:
            raise OverflowError
        rng = self.rng
        if isinstance(node, Lit):
            if node.case_sensitive:
                return node.text
            return "".join(c.swapcase() if rng.random() < 0.3 else c for c in node.text)
        if isinstance(node, Range):
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
    cls = type(f"Grammar{next(_counter)}", (Rule,), {})
    try:
        cls.load_grammar(_abnf_text(scope, reachable))
        reference = cls(f"u-{scope.rules[top].name}")
        rng = random.Random(0x0F6)
        generator = _Generator(scope, rng)
        generated = []
        for _ in range(SAMPLES):
            try:
                sample = generator.gen(scope.rules[top].expr, 0)
            except (OverflowError, RecursionError):
                continue
            if len(sample) <= MAX_SAMPLE_LENGTH:
                generated.append(sample)
        alphabet = sorted({c for s in generated for c in s} | set("aZ9:-.%/"))
        candidates = list(extra) + generated
        for sample in generated:
            candidates.extend(_mutations(sample, alphabet, rng))
        deadline = time.monotonic() + TIME_BUDGET
        for text in dict.fromkeys(candidates):
            if time.monotonic() > deadline:
                result.skipped = f"stopped after {result.checked} strings (time budget)"
                break
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
    except Exception as exc:  # the reference parser refused the grammar we fed it
        result.skipped = f"the reference parser could not load the grammar ({exc})"
    finally:
        for key in [key for key in Rule._obj_map if key[0] is cls]:
            del Rule._obj_map[key]
    return result

