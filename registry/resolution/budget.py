"""What one URN of an SNID approved over the resolution budget may cost, stated and kept.

The review holds a resolver set to the validation budget (5 ms of CPU time per URN of up to
4,096 characters, registry/resolving/cost.py). An editor may approve a set over it with a
written reason; the registry then never captures for it in a web thread. What such a set may
still cost is bounded here, per URN, and said where people look: on the SNID's page and in the
API (``resolution_budget``), with the figure the review measured.

- The budget: ``REGISTRY_RESOLVE_JOB_SECONDS`` of CPU time per URN (default 0.05, 50 ms), spent
  in the bounded worker, one such resolution at a time per web process.
- A URN whose resolution the review's figure says would pass the budget by ``CLEARLY_OVER``
  or more (the figure scaled to the URN's length: capturing is linear in it) is not given to the
  worker at all: its answer is the lookup's, without the values of those resolvers' rule
  placeholders, saying why (the landing page, or a resolver naming only ``{nss}``).
- Any other is resolved in the worker within the budget; past it, the same answer.

The figure is the review's worst case over long URNs of the grammar; on a shorter URN the
scaled figure can say more than the resolution would cost, so only a clear excess is answered
without trying.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from ..grammar.limits import URN_MAX_LENGTH
from ..resolving.cost import BUDGET_MS, ResolutionCost

#: A URN predicted to cost this many times the budget is answered without trying.
CLEARLY_OVER = 2.0


def budget_ms() -> float:
    """CPU milliseconds one URN of a set approved over the review's budget may use."""
    return settings.REGISTRY_RESOLVE_JOB_SECONDS * 1000


@dataclass(frozen=True, slots=True)
class OverrideBudget:
    """An SNID whose resolvers were approved over the review's budget: what its URNs may cost."""

    budget_ms: float  # per URN, CPU time, in the bounded worker
    measured: ResolutionCost | None  # the review's figure (None: stored before it was measured)

    @property
    def sentence(self) -> str:
        figure = f"the review measured {self.measured.figure}" if self.measured else "its cost was not measured"
        return (
            f"An editor approved these resolvers although resolving one URN with them costs more than the "
            f"registry's {BUDGET_MS:g} ms per URN ({figure} for a URN of up to {URN_MAX_LENGTH:,} characters). "
            "The registry gives each URN of this "
            f"SNID at most {self.budget_ms:g} ms of CPU time to work out the values of their rule placeholders; "
            "a URN that needs more is answered without those addresses (the lookup's answer and the resolvers "
            "that name only {nss}), saying so."
        )

    def as_dict(self) -> dict:
        measured = self.measured
        return {
            "approved_over_budget": True,
            "review_budget_ms": BUDGET_MS,
            "budget_ms_per_urn": self.budget_ms,
            "measured_ms": round(measured.total_ms, 3) if measured else None,
            "measured_is_lower_bound": (not measured.complete) if measured else None,
            "measured_length": measured.length if measured else None,
            "summary": self.sentence,
        }


def override_budget(rows) -> OverrideBudget | None:
    """For an SNID's current resolvers (objects or dicts with ``program`` and ``cost``): its stated
    budget when the set was approved over the review's, else None (proven within it, or nothing to
    capture)."""
    programs = [row for row in rows if _get(row, "program")]
    if not programs:
        return None
    cost = ResolutionCost.from_dict(_get(programs[0], "cost"))
    if cost is not None and cost.cheap and all(_get(row, "cost") == _get(programs[0], "cost") for row in programs):
        return None
    return OverrideBudget(budget_ms(), cost)


def predicted_ms(cost: ResolutionCost | None, length: int) -> float | None:
    """What resolving a URN of ``length`` characters should cost by the review's figure (None: unknown)."""
    if cost is None or cost.length <= 0:
        return None
    # A figure measuring stopped on is about a URN of the full length (measured at it, or scaled to it).
    reference = cost.length if cost.complete else URN_MAX_LENGTH
    return cost.total_ms * length / reference


def clearly_over(cost: ResolutionCost | None, length: int) -> bool:
    """Whether the figure says a URN of ``length`` characters would pass the budget by far."""
    predicted = predicted_ms(cost, length)
    return predicted is not None and predicted > budget_ms() * CLEARLY_OVER


def _get(row, name: str):
    return row.get(name) if isinstance(row, dict) else getattr(row, name)
