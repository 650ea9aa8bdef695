"""What one match of a grammar's validator costs, measured before the validator is trusted.

RE2 matches in time linear in the input, but the constant is not bounded by
the pattern's size alone: its DFA builds one state per distinct set of
positions the input leads to, keeps them in a cache of fixed size (part of
``RE2_MAX_MEM``), and when a grammar of many overlapping counted alternatives
(``*(a/b) a (200C1 / … / 200C300)``, each class containing ``a``) needs more
states than fit, it throws the cache away again and again and finally falls
back to its NFA: a millisecond per character, seconds for one URN.

So a validator is trusted to run in the web process only once its cost has
been measured: ``measure`` matches adversarial strings of the maximum length,
built from every printable character, pairs of them and the grammar's own
sample strings, and alternations of one character of each of the grammar's own
character classes (the inputs that keep a DFA busy are those that stay alive
in it: runs of one character the grammar repeats, or alternations between
overlapping classes), in CPU time of this thread
(not wall time, so a busy machine does not make a grammar "slow"). Strings
are matched at growing lengths on one fresh program and their costs added, so
the first pass already stops a grammar that is slow at 64 characters. A
grammar whose costliest match passes ``MATCH_BUDGET_MS`` is refused
(compiler.py); one whose error locator passes ``LOCATE_BUDGET_MS`` keeps its
validator without error positions. The figure is stored with an approved
validator (``registry.models.ValidatorCost``) and re-measured by
``manage.py measure_validators``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

from .limits import LOCATE_BUDGET_MS, LOCATOR_COMPILED_MAX, MATCH_BUDGET_MS, MEASURE_MAX_MS, URN_MAX_LENGTH
from .re2match import compile_anchored

#: Every printable ASCII character: the only ones a URN can contain unencoded.
ALPHABET = [chr(code) for code in range(0x21, 0x7F)]
#: Lengths each string is matched at, shortest first (None: its full length).
STEPS = (64, 512, None)
#: Sample strings of the grammar's own language used as heads and cycles.
MAX_SAMPLES = 4
#: Characters standing for the grammar's own classes; every ordered pair of them is tried.
MAX_REPRESENTATIVES = 16
#: A repeated match still costing this share of its first one means the DFA could not
#: keep its states (cache overflow, NFA fallback) rather than building them once.
FALLBACK_SHARE = 0.5
#: A measurement within this factor of a budget is borderline: the verdict is used, but not
#: kept in the shared cache (a busy machine's caches and clocks can move it that much).
MARGIN = 4.0
#: Costliest match inputs whose errors are located when the locator is measured.
COSTLIEST = 6
#: Lengths errors are located at before the maximum length, shortest first: the cost at
#: each, scaled to the maximum length, stops the measurement as soon as it passes the budget.
LOCATE_STEPS = (20, 64, 256, 1024)
SCALE_FROM = 256


@dataclass(frozen=True, slots=True)
class Cost:
    """The measured worst case of one validator, in CPU milliseconds."""

    match_ms: float
    worst: str  # the costliest input, described ("'a' × 4,080")
    length: int  # the longest input measured
    complete: bool  # every adversarial string was measured at full length
    fallback: bool = False  # the DFA fell back to the NFA on the costliest input
    locate_ms: float | None = None  # the costliest error location (None: no locator)
    locate_size: int | None = None  # RE2 instructions of the locator's programs (compiled once)
    compile_ms: float = 0.0  # compiling the programs a lookup needs
    target: int = URN_MAX_LENGTH  # the longest subject the validator matches (its length cap)

    @property
    def cheap(self) -> bool:
        """Proven within the budget: safe to match in the web process."""
        return self.complete and self.match_ms <= MATCH_BUDGET_MS

    @property
    def locate_cheap(self) -> bool:
        return (
            self.locate_ms is not None
            and self.locate_ms <= LOCATE_BUDGET_MS
            and (self.locate_size or 0) <= LOCATOR_COMPILED_MAX
        )

    @property
    def locate_why(self) -> str:
        """Why error positions are not given, naming the limit (only when not ``locate_cheap``)."""
        if (self.locate_size or 0) > LOCATOR_COMPILED_MAX:
            return (
                f"the program that locates errors has {self.locate_size:,} RE2 instructions, more than "
                f"the {LOCATOR_COMPILED_MAX:,} the registry compiles for error positions"
            )
        return (
            f"locating the error costs about {self.locate_ms or 0:,.0f} ms, more than its limit of "
            f"{LOCATE_BUDGET_MS:g} ms"
        )

    @property
    def decisive(self) -> bool:
        """Far enough from every budget that an idle or a busy machine would measure the same
        verdict (within a factor of ``MARGIN``): only such a result may be shared and kept."""

        def clear(value: float | None, budget: float) -> bool:
            return value is None or value <= budget / MARGIN or value >= budget * MARGIN

        # A refusal is measured on a prefix: matching is linear in the input, so scale the cost
        # to the length the verdict is about.
        match_ms = self.match_ms if self.cheap else self.match_ms * max(1.0, self.target / max(1, self.length))
        return clear(match_ms, MATCH_BUDGET_MS) and (not self.cheap or clear(self.locate_ms, LOCATE_BUDGET_MS))

    def as_dict(self) -> dict:
        return {
            **asdict(self),
            "match_ms": round(self.match_ms, 4),
            "locate_ms": None if self.locate_ms is None else round(self.locate_ms, 4),
            "compile_ms": round(self.compile_ms, 3),
            "budget_ms": MATCH_BUDGET_MS,
        }

    @classmethod
    def from_dict(cls, data: dict | None) -> Cost | None:
        if not data or "match_ms" not in data:
            return None
        names = {name for name in cls.__dataclass_fields__}
        return cls(**{key: value for key, value in data.items() if key in names})

    @property
    def message(self) -> str:
        """Why a grammar over the budget is refused, naming the limit."""
        measured = (
            f"about {self.match_ms:,.0f} ms"
            if self.complete
            else f"more than {self.match_ms:,.0f} ms (measuring stopped)"
        )
        why = (
            "RE2's DFA cannot keep the states this grammar needs in its cache and falls back to its slow matcher"
            if self.fallback
            else "every character leads RE2's DFA to new states it must build"
        )
        return (
            f"Matching one URN against this grammar costs {measured} on {self.worst}, more than "
            f"the registry's limit of {MATCH_BUDGET_MS:g} ms per URN of up to "
            f"{URN_MAX_LENGTH:,} characters: {why}. This comes from many overlapping "
            "alternatives that are each repeated many times (for example dozens of character "
            "classes sharing a character, each with a count like 200); give the "
            "alternatives distinct first characters or smaller counts."
        )


def _label(head: str, unit: str, length: int) -> str:
    lead = f"{head!r} + " if head else ""
    return f"{lead}{unit!r} repeated to {length:,} characters"


_CLASS = re.compile(r"\[(\\x\{([0-9A-F]+)\}|[^\\\]])")


def representatives(pattern: str, samples=()) -> list[str]:
    """One printable character of each character class of the pattern and of its samples
    (at most ``MAX_REPRESENTATIVES``): alternating between classes is what a DFA of
    overlapping classes cannot summarise."""
    found: list[str] = []
    for match in _CLASS.finditer(pattern):
        char = chr(int(match.group(2), 16)) if match.group(2) else match.group(1)
        if char in ALPHABET and char not in found:
            found.append(char)
    for sample in samples:
        found += [char for char in dict.fromkeys(sample) if char in ALPHABET and char not in found]
    return found[:MAX_REPRESENTATIVES]


def adversarial(length: int, heads=("",), samples=(), pattern: str = "") -> Iterator[tuple[str, str]]:
    """(description, string) pairs of ``length`` characters that tend to keep a DFA busy."""
    reps = representatives(pattern, samples)
    pairs = [a + b for a, b in zip(ALPHABET, ALPHABET[1:] + ALPHABET[:1], strict=True)]
    pairs += [a + b for a in reps for b in reps if a != b and a + b not in pairs]
    for head in heads:
        room = max(0, length - len(head))
        for char in ALPHABET:
            yield _label(head, char, length), head + char * room
        for pair in pairs:
            yield _label(head, pair, length), head + (pair * (room // 2 + 1))[:room]
    for sample in list(samples)[:MAX_SAMPLES]:
        if sample and sample.isascii():
            yield _label("", sample[:20], length), (sample * (length // len(sample) + 1))[:length]


def measure(
    pattern: str,
    length: int = URN_MAX_LENGTH,
    heads=("",),
    samples=(),
    matcher: Callable[[bytes], bool] | None = None,
    costliest: list | None = None,
) -> Cost:
    """The costliest match of the adversarial strings on one freshly compiled program.

    Stops as soon as one string passes ``MATCH_BUDGET_MS`` or the measurement as a
    whole passes ``MEASURE_MAX_MS`` (a result that is then not ``complete``).
    ``costliest``, if given, receives the strings that cost most, costliest first (the
    ones that stay alive longest in the DFA: ``measure_locator`` locates errors in them).
    """
    started = time.thread_time()
    match = matcher or compile_anchored(pattern)
    compile_ms = (time.thread_time() - started) * 1000
    inputs = [(label, text.encode("ascii")) for label, text in adversarial(length, heads, samples, pattern)]
    spent = [0.0] * len(inputs)
    longest, previous = 0, 0
    for step in STEPS:
        for index, (_, data) in enumerate(inputs):
            if len(data) <= previous:
                continue  # matched whole at an earlier step
            piece = data if step is None else data[:step]
            before = time.thread_time()
            match(piece)
            spent[index] += time.thread_time() - before
            longest = max(longest, len(piece))
            if (
                MATCH_BUDGET_MS < spent[index] * 1000 < MATCH_BUDGET_MS * REPLAY_BELOW
                and compile_ms <= REPLAY_COMPILE_MAX_MS
                and matcher is None
            ):
                spent[index] = min(spent[index], _replayed(pattern, data, step))
            if spent[index] * 1000 > MATCH_BUDGET_MS:
                return _result(inputs, spent, index, longest, False, match, compile_ms)
            if (time.thread_time() - started) * 1000 > MEASURE_MAX_MS:
                worst = max(range(len(inputs)), key=spent.__getitem__)
                return _result(inputs, spent, worst, longest, False, match, compile_ms)
        previous = step or length
    worst = max(range(len(inputs)), key=spent.__getitem__)
    if costliest is not None:
        ranked = sorted(range(len(inputs)), key=spent.__getitem__, reverse=True)
        costliest.extend(inputs[index][1].decode("ascii") for index in ranked[:COSTLIEST])
    return _result(inputs, spent, worst, longest, True, match, compile_ms)


#: Times an input over the budget is matched again, each on a fresh program, before it refuses a grammar.
REPLAYS = 2
#: Above this many times the budget no stall explains the cost: the grammar is refused without replays.
REPLAY_BELOW = 20
#: Replays recompile the program: a grammar whose program costs more than this to compile (a large
#: one, near the job's own CPU budget) is judged on its first count, as before.
REPLAY_COMPILE_MAX_MS = 10.0


def _replayed(pattern: str, data: bytes, upto: int | None) -> float:
    """The least CPU time, in seconds, of ``REPLAYS`` replays of one input's matches up to step ``upto``
    (each on a freshly compiled program, as the first): what the input costs, not what a stall cost.

    A single match can be charged with time that is not the grammar's (seen: 1 ms on an idle machine,
    over 5 ms beside a loaded test suite; likely page faults on the DFA's first memory, served late).
    Such noise only ever adds, so the least of a few runs is the cost; a grammar over the budget is
    over it every time, at most ``REPLAYS`` more matches later."""
    least = float("inf")
    for _ in range(REPLAYS):
        match = compile_anchored(pattern)
        spent = 0.0
        for step in STEPS:
            piece = data if step is None else data[:step]
            before = time.thread_time()
            match(piece)
            spent += time.thread_time() - before
            if step == upto or step is None or len(piece) == len(data):
                break
        least = min(least, spent)
    return least


def _result(inputs, spent, index, longest, complete, match, compile_ms) -> Cost:
    label, data = inputs[index]
    cold = spent[index]
    before = time.thread_time()
    match(data[:longest])
    warm = time.thread_time() - before
    fallback = cold * 1000 > MATCH_BUDGET_MS and warm >= cold * FALLBACK_SHARE
    return Cost(
        match_ms=cold * 1000,
        worst=label,
        length=longest,
        complete=complete,
        fallback=fallback,
        compile_ms=compile_ms,
        target=len(data),
    )


def measure_locator(locator, cost: Cost, length: int, heads=("",), costliest=()) -> Cost:
    """``cost`` with the costliest error location of ``locator`` and the size of its programs.

    Compiling the locator happens once per worker; its cost is judged by the programs'
    size (a count, the same on a busy machine: ``LOCATOR_COMPILED_MAX``), never by the
    compile's CPU time, which a grammar near any limit would cross either way by load.
    Then the strings that cost most to match (``costliest``) and runs of a few characters,
    each cut short and cut short then spoilt (a space, never in a URN), are located
    at growing lengths up to the maximum, shortest first, stopping at the first whose
    cost (scaled to the maximum length) passes the budget, so a grammar whose
    positions would take seconds is found after a few short ones.
    """
    started = time.thread_time()
    size = locator.program_size()
    compile_ms = (time.thread_time() - started) * 1000
    worst = 0.0
    if size > LOCATOR_COMPILED_MAX:
        return _located(cost, None, compile_ms, size)
    started = time.thread_time()
    units = [char for char in ALPHABET if char.isalnum()][:4] + ["-", ".", ":"]
    bases = list(costliest) + [heads[-1] + unit * length for unit in units]
    for size_step in (*LOCATE_STEPS, length - 1):
        size_step = min(size_step, length - 1)
        for base in bases:
            for subject in (base[:size_step], base[:size_step] + " "):
                before = time.thread_time()
                locator._locate(subject, 0, None)
                spent = (time.thread_time() - before) * 1000
                # Locating is linear in the length: from 256 characters on, where the length
                # outweighs the fixed part, scale to what the maximum length would cost.
                scale = (length - 1) / size_step if size_step >= SCALE_FROM else 1.0
                worst = max(worst, spent * max(1.0, scale))
                if worst > LOCATE_BUDGET_MS:
                    return _located(cost, worst, compile_ms, size)
                if (time.thread_time() - started) * 1000 > MEASURE_MAX_MS:
                    # Not measured in full: not proven cheap (the validator keeps no positions).
                    return _located(cost, max(worst, LOCATE_BUDGET_MS * 2), compile_ms, size)
    return _located(cost, worst, compile_ms, size)


def _located(cost: Cost, locate_ms: float | None, compile_ms: float, size: int) -> Cost:
    return Cost(
        **{
            **{name: getattr(cost, name) for name in Cost.__dataclass_fields__},
            "locate_ms": locate_ms,
            "locate_size": size,
            "compile_ms": cost.compile_ms + compile_ms,
        }
    )
