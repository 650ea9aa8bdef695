"""Re-measure what matching costs for every approved version's validator, and what resolving costs.

A new release of the engine or of RE2, or a validator approved before costs were
measured, is measured again here (in the bounded worker, as at check time) and
the figure stored beside the version (ValidatorCost). A validator over the
matching budget is flagged: the editors' review dashboard lists it, lookups run
it only in the bounded worker, and the command exits with status 1 so a
scheduled run is noticed.

Each registered SNID's current resolver set is measured too (resolving/cost.py: the whole
resolution of one URN, capture and templates, against the same budget) and the figure kept
on its rows; a set over the budget (approved over its failing check) is resolved only in
the bounded worker, and counts as slow here.
"""

import json

from django.core.management.base import BaseCommand

from ... import sandbox, services
from ...enums import ProposalState
from ...grammar.compiler import _measure_in_worker
from ...grammar.cost import Cost
from ...grammar.limits import MATCH_BUDGET_MS
from ...grammar.urn import PREFIX
from ...models import Namespace, Proposal
from ...resolution.models import Resolver
from ...resolution.services import ResolutionError, resolvers_measure


class Command(BaseCommand):
    help = (
        "Measure the worst-case matching cost of every approved validator, store it, and flag those "
        f"over the {MATCH_BUDGET_MS:g} ms budget on the editors' dashboard (exit status 1 if any)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--snid", help="Only this SNID's approved versions.")
        parser.add_argument(
            "--no-touch",
            action="store_true",
            help="Leave the SNIDs' rows as they are (a restore measures before any server reads what it restored).",
        )

    def handle(self, snid=None, no_touch=False, **options):
        proposals = Proposal.objects.filter(state=ProposalState.APPROVED, validator__isnull=False)
        if snid:
            proposals = proposals.filter(snid__iexact=snid)
        slow = 0
        measured: dict[str, dict] = {}  # versions with the same validator share one measurement
        for proposal in proposals.order_by("snid", "version").only(
            "id", "snid", "version", "validator", "namespace_id"
        ):
            heads = (f"{PREFIX}{proposal.snid}:",) if proposal.validator.get("full_urn") else ("",)
            same = json.dumps([proposal.validator, heads], sort_keys=True)
            try:
                figures = measured.get(same) or sandbox.run_bounded(
                    _measure_in_worker, proposal.validator, heads, what="grammar's matching cost"
                )
            except sandbox.BudgetExceeded as exc:
                if exc.fault:  # the worker stopped: nothing was learnt; keep what was stored
                    self.stdout.write(f"urn:ogf:{proposal.snid}: v{proposal.version}: not measured: {exc.message}")
                    continue
                # Not measured within the job's budget: certainly not cheap.
                figures = Cost(match_ms=exc.seconds * 1000, worst=exc.message, length=0, complete=False).as_dict()
            measured[same] = figures
            record = services.validator_cost_store(proposal, figures, touch=not no_touch)
            cost = Cost.from_dict(figures)
            slow += record.slow
            flag = "SLOW" if record.slow else "ok"
            locate = "" if cost.locate_ms is None else f", locating an error {cost.locate_ms:.2f} ms"
            self.stdout.write(
                f"urn:ogf:{proposal.snid}: v{proposal.version}: {flag}: "
                f"{'about' if cost.complete else 'more than'} {cost.match_ms:.3f} ms per URN "
                f"on {cost.worst}{locate}"
            )
        self.stdout.write(f"{slow} validator{'s' if slow != 1 else ''} over the {MATCH_BUDGET_MS:g} ms budget.")
        slow_sets = 0
        with_resolvers = Namespace.objects.filter(
            pk__in=Resolver.objects.current().values("namespace_id"), current__isnull=False
        ).select_related("current")
        if snid:
            with_resolvers = with_resolvers.filter(snid__iexact=snid)
        for namespace in with_resolvers.order_by("snid"):
            try:
                cost = resolvers_measure(namespace, touch=not no_touch)
            except ResolutionError as exc:  # the worker stopped: nothing learnt, what was stored stays
                self.stdout.write(f"urn:ogf:{namespace.snid}: resolvers not measured: {exc.errors[0]}")
                continue
            if cost is None:
                continue
            slow_sets += not cost.cheap
            self.stdout.write(
                f"urn:ogf:{namespace.snid}: resolvers: {'ok' if cost.cheap else 'SLOW'}: "
                f"{cost.figure} per URN ({cost.templates} templates, on {cost.worst})"
            )
        self.stdout.write(
            f"{slow_sets} resolver set{'s' if slow_sets != 1 else ''} over the "
            f"{MATCH_BUDGET_MS:g} ms budget for one URN's resolution."
        )
        slow += slow_sets
        if slow:
            raise SystemExit(1)
