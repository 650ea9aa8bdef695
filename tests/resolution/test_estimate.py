"""The review's figure for resolving one URN is within 2× of what the costliest input costs.

Held by counting work, not by timing the machine: ``measure_resolution`` is given a clock that
reads the work counted so far and a stand-in for filling the templates that counts the work a
capture does the way RE2 does it — per character of the URN, at one rate while the text is short
enough for its bit-state backtracker (a bitmap of program × text, 256 Kibit) and at a rate tens of
times higher past it, where its NFA takes over. That change of engine with the length is what made
the old figure, a cost at 512 characters scaled to 4,096, say 10 to 40 times too little.

The inputs are the review's own candidates (long URNs of the grammar's shape, the adversarial
strings it accepts, URNs to be percent-encoded, the examples); the cost to hold the figure to is
that of the costliest of them, resolved whole.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from registry.grammar import grammar_compile
from registry.grammar.limits import MEASURE_MAX_MS, URN_MAX_LENGTH
from registry.resolving.cost import BUDGET_MS, _candidates, _prepared, _valid, measure_resolution
from registry.resolving.expand import ExpandError, program_of
from tests.resolution.helpers import CAPTURE_TEMPLATES, capture_heavy

CASES = Path(__file__).resolve().parent.parent / "hostile" / "cases.json"
#: RE2's bit-state limit (kMaxBitStateBitmapSize), in bits of program × text.
BITSTATE_BITS = 256 * 1024
#: Work per character of the NFA against the bit-state backtracker (capturing 10 alternatives × 8
#: of benchmarks/capture.py took 0.04 µs a character at 2,048 characters and 2 µs at 4,096).
NFA_FACTOR = 40


class Work:
    """A clock reading the work counted so far, ``unit`` seconds a unit; and the counting stand-in
    for ``urls_for``: a URN of n characters costs n units a character (times ``NFA_FACTOR`` past the
    bit-state limit of a program of ``size`` instructions)."""

    def __init__(self, size: int, unit: float):
        self.units, self.size, self.unit = 0, max(1, size), unit

    def clock(self) -> float:
        return self.units * self.unit

    def cost(self, normalized: str) -> int:
        length = len(normalized)
        engine = 1 if length * self.size <= BITSTATE_BITS else NFA_FACTOR
        return length * engine

    def fill(self, templates, program, normalized, nss):
        self.units += self.cost(normalized)
        return [("https://example.org/x", "") for _ in templates]


def _costliest_ms(work: Work, compiled, templates, snid="x") -> float:
    """The cost of the review's costliest candidate resolved whole, in the clock's milliseconds."""
    worst = 0
    for _label, urn in _candidates(compiled, snid, URN_MAX_LENGTH, ()):
        parts = _prepared(urn, ())
        if parts is not None and _valid(compiled, *parts):
            worst = max(worst, work.cost(parts[0]))
    return worst * work.unit * 1000


def _estimate(compiled, templates, unit: float):
    program = program_of(compiled, templates)
    work = Work(len(program["pattern"]) if program else 1, unit)
    cost = measure_resolution(compiled, templates, program, clock=work.clock, fill=work.fill)
    return cost, _costliest_ms(Work(work.size, unit), compiled, templates)


@pytest.mark.parametrize("rep", [8, 20, 50])
def test_estimate_capture_heavy_within_twice_the_costliest_input(rep):
    """Within the measurement's reach (a microsecond a unit: under MEASURE_MAX_MS), the figure is the
    costliest input's whole cost, not a short cut scaled up (which said 1/NFA_FACTOR of it)."""
    compiled = grammar_compile(capture_heavy(10, rep))
    templates = [t["template"] for t in CAPTURE_TEMPLATES]
    cost, costliest = _estimate(compiled, templates, unit=1e-7)
    assert costliest <= MEASURE_MAX_MS
    assert costliest / 2 <= cost.resolve_ms <= costliest * 2, (cost.resolve_ms, costliest, cost.worst)


def test_estimate_past_the_stop_point_says_it_is_a_lower_bound():
    """Where measuring stops, the figure never claims more than was measured, and says "at least"."""
    compiled = grammar_compile(capture_heavy(10, 50))
    templates = [t["template"] for t in CAPTURE_TEMPLATES]
    cost, costliest = _estimate(compiled, templates, unit=1e-5)
    assert costliest > MEASURE_MAX_MS
    assert not cost.complete and not cost.cheap
    assert cost.figure.startswith("at least") and cost.resolve_ms <= costliest * 1.001
    assert cost.resolve_ms >= BUDGET_MS  # still refused


def _hostile_grammars():
    from tests.test_hostile import expand  # the corpus keeps long texts as (prefix, repeat × times, suffix)

    return [expand(case["abnf"]) for case in json.loads(CASES.read_text())["grammars"]]


def test_estimate_every_grammar_of_the_hostile_corpus_within_twice_the_costliest_input():
    """Every grammar of the hostile corpus that compiles, its top rule named by a template: the
    figure is within 2× of its costliest input's whole cost wherever that is below the point where
    measuring stops, and a lower bound, said so, past it."""
    checked = 0
    for abnf in _hostile_grammars():
        compiled = grammar_compile(abnf)
        if not compiled.ok or compiled.validator is None or compiled.analysis.top is None:
            continue
        top = compiled.parsed.rules[compiled.analysis.top].name
        templates = [f"https://example.org/{{{top}}}"]
        try:
            cost, costliest = _estimate(compiled, templates, unit=1e-7)
        except ExpandError:
            continue
        checked += 1
        if costliest <= MEASURE_MAX_MS / 2 and cost.complete:
            assert costliest / 2 <= cost.resolve_ms <= costliest * 2, (abnf[:60], cost.resolve_ms, costliest)
        else:
            assert cost.figure.startswith("at least") and cost.resolve_ms <= costliest * 2, abnf[:60]
    assert checked >= 10, f"only {checked} grammars of the corpus could be measured"
