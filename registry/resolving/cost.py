"""What resolving one URN of a registered SNID costs, measured before it is trusted.

Resolving a URN does everything a lookup does (the validator's match, measured by
``grammar.cost``) and then, for a valid URN, captures the text of every rule the
resolver templates name and fills every template (``expand.urls_for``). Capturing is
one RE2 match too, and linear in the URN, but with groups RE2 cannot answer from its
DFA alone: for a long URN it follows every alternative that is still alive at once,
so its constant is the number of places in the pattern a character can be at. A
grammar of many overlapping alternatives repeated many times, whose validator costs
0.8 ms for a 4,096-character URN, can cost a quarter of a second per template to
capture. So the whole resolution of one URN has one budget, the validation budget
(``MATCH_BUDGET_MS``, 5 ms for a URN of 4,096 characters), and it is measured before a
resolver set is trusted: at "Check without saving" and every review (the checklist's
``resolvers`` check), at approval and at every change of the resolvers.

``measure_resolution`` times the whole per-URN work — the URN parsed and normalised,
the capture, every template filled (percent-encoding, the dot-segment check) — in CPU
time of this thread (not wall time: a busy machine does not make a grammar slow) on
long valid URNs of the grammar: the adversarial strings of ``grammar.cost`` that the
grammar accepts (runs of one character, alternations of its classes), long strings of
the grammar's own shape (``grammar.samples.long_samples``: every repetition pumped to
the maximum length), URNs whose every character must be encoded, and the examples.
Only valid URNs matter: on an invalid one the capture stops at the DFA's "no", which
the validator's measurement already covers.

The figure is measured at the full length, never scaled up from a short cut: RE2 picks the
engine that captures by the length of the text (a backtracker with a bitmap of program × text
while it fits, its NFA past it), and the NFA costs tens of times more per character, so a cost
at 512 characters scaled to 4,096 said 10 to 40 times too little. Each input is resolved cut to
``FIRST_STEP`` characters only to rank them; then, costliest first, each is resolved at 1,024
and 2,048 characters and whole, unless the cost so far, scaled to the whole, passes what the
measurement may still spend (``MEASURE_MAX_MS`` in all): then the figure is that scaled cost and
says so ("at least …, measured at 2,048 characters"). Once the worst passes the budget by
``CLEARLY_OVER`` the measurement stops — the set is refused, and its figure is a lower bound, said
"at least". A set within the budget has every input measured whole, and the three costliest timed
three times, each counting with its median (one match on a busy machine can be disturbed either
way). tests/resolution/test_estimate.py holds the figure within 2× of the cost of the costliest
input by counting work.

A set whose figure passes the budget is a failing check with the figure; an editor may
approve it over that with a written reason, as for validation, and the registry then
never captures for it in a web thread (``resolve``: a bounded job, or 503). The failure
position of an invalid URN keeps its own budget (``LOCATE_BUDGET_MS``: past it, the
validator is kept without positions); its figure is carried here so that one record
says everything a URN of the SNID may cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..grammar import PREFIX, UrnSyntaxError, normalize, parse_urn
from ..grammar.analysis import Scope
from ..grammar.cost import adversarial
from ..grammar.limits import LOCATE_BUDGET_MS, MATCH_BUDGET_MS, MEASURE_MAX_MS, URN_MAX_LENGTH
from ..grammar.samples import long_samples
from .expand import urls_for

#: The budget of the whole resolution of one URN: the validation budget.
BUDGET_MS = MATCH_BUDGET_MS
#: Characters each input is first measured at; its cost scaled to the full length stops a set
#: that is clearly over the budget before any long match.
FIRST_STEP = 512
#: A short match whose cost, scaled to the full length, passes the budget by this factor ends
#: the measurement: the set is over the budget whatever the longer matches would say.
CLEARLY_OVER = 2.0
#: Adversarial strings kept among those the grammar accepts (most are refused at once).
MAX_ADVERSARIAL = 64
#: The costliest inputs timed again, and the runs of each whose median counts.
AGAIN, RUNS = 3, 3


@dataclass(frozen=True, slots=True)
class ResolutionCost:
    """The measured worst case of resolving one URN of an SNID with a resolver set, CPU ms."""

    resolve_ms: float  # capture and every template filled, on the costliest input
    match_ms: float  # the validator's measured worst case (grammar.cost), 0 without a grammar
    worst: str  # the costliest input, described
    length: int  # the longest input measured
    inputs: int  # valid inputs measured
    complete: bool  # every input was measured at full length (else: stopped, not proven cheap)
    templates: int = 0
    locate_ms: float | None = None  # the failure position's measured worst case (its own budget)
    compile_ms: float = 0.0  # compiling the capture program (once per process, not per URN)
    budget_ms: float = BUDGET_MS
    scaled_from: int = 0  # the figure was measured at this many characters and scaled (0: at full length)

    @property
    def total_ms(self) -> float:
        """What one URN may cost: its validation and its resolution."""
        return self.match_ms + self.resolve_ms

    @property
    def cheap(self) -> bool:
        """Proven within the budget: safe to resolve in a web thread."""
        return self.complete and self.total_ms <= BUDGET_MS

    def as_dict(self) -> dict:
        return {
            **asdict(self),
            "resolve_ms": round(self.resolve_ms, 4),
            "match_ms": round(self.match_ms, 4),
            "compile_ms": round(self.compile_ms, 3),
            "total_ms": round(self.total_ms, 4),
            "locate_ms": None if self.locate_ms is None else round(self.locate_ms, 4),
        }

    @classmethod
    def from_dict(cls, data: dict | None) -> ResolutionCost | None:
        if not data or "resolve_ms" not in data:
            return None
        names = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in data.items() if key in names})

    @property
    def figure(self) -> str:
        """The measured figure, said as a person would (for findings and pages): "about" only when
        every input was measured whole; else a lower bound, and why."""
        if self.complete:
            return f"about {self.total_ms:,.2f} ms"
        if self.scaled_from:
            return (
                f"at least {self.total_ms:,.1f} ms (measured at {self.scaled_from:,} characters and scaled to the "
                "full length; measuring stopped)"
            )
        return f"at least {self.total_ms:,.1f} ms (measuring stopped once over the budget)"

    @property
    def message(self) -> str:
        """Why a resolver set over the budget fails its check, naming the limit and the figure."""
        return (
            f"Resolving one URN of this SNID costs {self.figure} of CPU time (validating it "
            f"{self.match_ms:,.2f} ms, then capturing the rules the {self.templates} resolver "
            f"template(s) name and filling them {self.resolve_ms:,.2f} ms, on {self.worst}), more "
            f"than the registry's limit of {BUDGET_MS:g} ms per URN of up to {URN_MAX_LENGTH:,} "
            "characters, the same budget as validation. Capturing a rule that stands inside a "
            "long repetition of overlapping alternatives makes RE2 follow every alternative at "
            "once, character by character. Name rules outside such repetitions, fewer rules, or "
            "{nss}; or an editor may approve it over this check with a written reason, and the "
            "registry then resolves its URNs only in a bounded job."
        )

    @property
    def summary(self) -> str:
        """One line for a passing check."""
        return (
            f"Resolving one URN of up to {URN_MAX_LENGTH:,} characters costs at most {self.figure} "
            f"(validation {self.match_ms:,.2f} ms, capture and {self.templates} template(s) "
            f"{self.resolve_ms:,.2f} ms; {self.inputs} long URNs measured), within the "
            f"{BUDGET_MS:g} ms budget."
        )


def _label(text: str, what: str) -> str:
    return f"{what} of {len(text):,} characters ({text[:24]!r}…)"


def _generic_worst(snid: str, length: int) -> list[tuple[str, str]]:
    """URNs every character of whose NSS must be percent-encoded, or passed on as an escape."""
    room = length - len(PREFIX) - len(snid) - 1
    units = [":", "%2e", "%aa", "a:", "(", "=%41"]
    return [(f"{unit!r} repeated", (unit * (room // len(unit) + 1))[:room]) for unit in units]


def _candidates(compiled, snid: str, length: int, examples) -> list[tuple[str, str]]:
    """(description, URN) pairs: long URNs the grammar may accept, each once."""
    out: list[tuple[str, str]] = []
    head = f"{PREFIX}{snid}:"
    full_urn = compiled is not None and compiled.validator is not None and compiled.validator.full_urn

    def add(label: str, subject: str) -> None:
        urn = subject if full_urn else head + subject
        if len(urn) <= length:
            out.append((label, urn))

    if compiled is not None and compiled.validator is not None:
        from ..grammar.compiler import _heads

        scope = Scope(compiled.parsed.rules)
        heads, samples = _heads(scope, compiled.analysis)
        room = length if full_urn else length - len(head)
        for text in long_samples(scope, compiled.analysis.top, room):
            add(_label(text, "a long URN of the grammar's shape"), text)
        accepted = 0
        for label, text in adversarial(room, heads, samples, compiled.validator.pattern):
            if accepted >= MAX_ADVERSARIAL:
                break
            if compiled.validator.matches(text):
                accepted += 1
                add(label, text)
    for label, nss in _generic_worst(snid, length):
        out.append((label, head + nss))
    for example in examples:
        out.append((_label(example, "the example"), example))
    return list({urn: (label, urn) for label, urn in out}.values())


def _prepared(urn: str, steps) -> tuple[str, str] | None:
    try:
        normalized = normalize(parse_urn(urn), steps)
    except UrnSyntaxError:
        return None
    return normalized, normalized.split(":", 3)[3]


def _valid(compiled, normalized: str, nss: str) -> bool:
    if compiled is None or compiled.validator is None:
        return True  # {nss} alone: every syntactically valid URN is resolved
    validator = compiled.validator
    return validator.matches(normalized if validator.full_urn else nss)


def measure_resolution(
    compiled,
    templates: list[str],
    program: dict | None,
    *,
    snid: str = "x",
    examples=(),
    steps=(),
    length: int = URN_MAX_LENGTH,
    clock: Callable[[], float] = time.thread_time,
    fill: Callable | None = None,
) -> ResolutionCost:
    """The costliest whole resolution of one URN (``expand.urls_for`` after parsing and normalising)
    over long valid URNs, in CPU milliseconds of this thread; see the module's docstring.

    ``clock`` (seconds) and ``fill`` (``urls_for``'s stand-in) let a test count work instead of
    timing the machine (tests/resolution/test_estimate.py)."""
    from .expand import _compiled as compiled_program
    from .expand import _plan

    fill = fill or urls_for
    started = clock()
    if program:
        compiled_program(program["pattern"])
    for template in templates:
        _plan(template)  # read once per process, as in service
    compile_ms = (clock() - started) * 1000
    cost = compiled.validator.cost if compiled is not None and compiled.validator is not None else None
    match_ms = cost.match_ms if cost is not None else 0.0
    locate_ms = cost.locate_ms if cost is not None else None

    def spent_ms() -> float:
        return (clock() - started) * 1000

    def result(resolve_ms: float, worst: str, longest: int, inputs: int, complete: bool, scaled: int = 0):
        return ResolutionCost(
            resolve_ms,
            match_ms,
            worst,
            longest,
            inputs,
            complete,
            len(templates),
            locate_ms,
            compile_ms,
            scaled_from=scaled,
        )

    def work(urn: str) -> float | None:
        before = clock()
        parts = _prepared(urn, steps)
        if parts is None or not _valid(compiled, *parts):
            return None
        fill(templates, program, *parts)
        return (clock() - before) * 1000

    candidates = _candidates(compiled, snid, length, examples)
    # 1. Rank the inputs by their cost cut to FIRST_STEP characters: cheap, and never the figure — a
    #    capture costs per character what the engine RE2 picks for the whole text costs, and it picks
    #    a slower one for longer texts, so a short cut scaled up said 10 to 40 times too little.
    #    A cut already over the budget by far (scaled up: a lower bound) ends the ranking: that input
    #    is measured whole first, and the set is refused.
    ranked, ranking = [], True
    for label, urn in candidates:
        short = work(urn[:FIRST_STEP]) if ranking and len(urn) > FIRST_STEP else None
        ranked.append((short or 0.0, label, urn))
        if short is not None and short * length / FIRST_STEP > BUDGET_MS * CLEARLY_OVER:
            ranking = False
        if spent_ms() > MEASURE_MAX_MS / 2:
            ranking = False
    ranked.sort(key=lambda item: item[0], reverse=True)
    # 2. Each at its full length, costliest first, grown to it (GROWTH) so that no match the
    #    measurement cannot afford is started: past the allowance, the figure is the longest cut
    #    measured scaled to the full length, and says so.
    worst_ms, worst_label, longest, measured, scaled = 0.0, "no valid URN", 0, 0, 0
    timed: list[tuple[float, str, str]] = []
    for _short, label, urn in ranked:
        figure, at = _grown(work, urn, lambda: MEASURE_MAX_MS - spent_ms())
        if figure is None:
            continue
        measured += 1
        longest = max(longest, at)
        if at == len(urn):
            timed.append((figure, label, urn))
        if figure > worst_ms:
            worst_ms = figure
            worst_label = (
                label if at == len(urn) else f"{label}, measured at {at:,} characters (scaled to {len(urn):,})"
            )
            scaled = 0 if at == len(urn) else at
        if match_ms + worst_ms > BUDGET_MS * CLEARLY_OVER or at < len(urn):
            # Over the budget by far (the other inputs can only cost more), or not measurable in full.
            return result(worst_ms, worst_label, longest, measured, False, scaled)
        if spent_ms() > MEASURE_MAX_MS:
            return result(worst_ms, worst_label, longest, measured, False, scaled)
    # One match can be disturbed (a busy machine's caches): the costliest inputs are timed again
    # and each counts with the median of its runs, the figure a resolution of it costs in service.
    figures = []
    for spent, label, urn in sorted(timed, key=lambda item: item[0], reverse=True)[:AGAIN]:
        runs = sorted([spent] + [work(urn) or 0.0 for _ in range(RUNS - 1)])
        figures.append((runs[len(runs) // 2], label))
    if figures:
        worst_ms, worst_label = max(figures, key=lambda item: item[0])
    return result(worst_ms, worst_label, longest, measured, True)


#: Lengths an input is resolved at before its full length, while the projection allows.
GROWTH = (1024, 2048)


def _grown(work, urn: str, allowance: Callable[[], float]) -> tuple[float | None, int]:
    """(ms, length measured at) of ``urn``'s resolution: at GROWTH lengths first, then whole unless
    the last cut's cost, scaled to the whole (linear: the engine no longer changes past these
    lengths' slowest), passes what the measurement may still spend; then that scaled figure."""
    for size in GROWTH:
        if size >= len(urn):
            break
        spent = work(urn[:size])
        if spent is None:
            continue  # a cut the grammar does not accept
        if spent * len(urn) / size > allowance():
            return spent * len(urn) / size, size
    spent = work(urn)
    if spent is None:
        return None, 0
    return spent, len(urn)


__all__ = ["BUDGET_MS", "LOCATE_BUDGET_MS", "ResolutionCost", "measure_resolution"]
