"""Generated registry data for benchmarks: many registered SNIDs and pending proposals."""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.utils import timezone

from registry import interchange
from registry.grammar import grammar_compile
from registry.grammar.cost import Cost
from registry.models import Namespace, Proposal, ProposalEvent, ValidatorCost

ROOT = Path(__file__).resolve().parent.parent


def _template() -> tuple[Proposal, dict]:
    """An approved-looking proposal (the fdc grammar describes only the string after the SNID), and its
    validator's measured cost, which an approval stores beside it."""
    raw = json.loads((ROOT / "fixtures/proposals/fdc.json").read_text())
    proposal = Proposal()
    proposal.apply_data(interchange.load(raw))
    compiled = grammar_compile(proposal.grammar_abnf, proposal.grammar_rule)
    proposal.validator = compiled.validator.as_dict()
    return proposal, compiled.validator.cost.as_dict()


def populate(registered: int, pending: int = 0, prefix: str = "bench") -> None:
    """Add ``registered`` SNIDs (one approved version each) and ``pending`` submitted proposals."""
    user, _ = get_user_model().objects.get_or_create(username="bench-applicant")
    template, cost = _template()
    fields = {
        f.attname: getattr(template, f.attname)
        for f in Proposal._meta.concrete_fields
        if f.attname
        not in (
            "id",
            "namespace_id",
            "submitter_id",
            "snid",
            "state",
            "decided_at",
            "registration_date",
            "submitted_at",
        )
    }
    start = Namespace.objects.filter(snid__startswith=prefix).count()
    now = timezone.now()
    namespaces = Namespace.objects.bulk_create(
        [
            Namespace(snid=f"{prefix}{i}", status="registered", registered_at=now)
            for i in range(start, start + registered)
        ],
        batch_size=500,
    )
    proposals = Proposal.objects.bulk_create(
        [
            Proposal(
                **fields,
                snid=ns.snid,
                namespace=ns,
                submitter=user,
                state="approved",
                decided_at=now,
                registration_date=now.date(),
            )
            for ns in namespaces
        ],
        batch_size=500,
    )
    # Each approval with its event, as the approval service writes it (PostgreSQL insists).
    ProposalEvent.objects.bulk_create(
        [
            ProposalEvent(
                proposal=proposal, action="approve", from_state="submitted", to_state="approved", created_at=now
            )
            for proposal in proposals
        ],
        batch_size=500,
    )
    ValidatorCost.objects.bulk_create(
        [ValidatorCost(proposal=proposal, figures=cost, slow=not Cost.from_dict(cost).cheap) for proposal in proposals],
        batch_size=500,
    )
    for ns, proposal in zip(namespaces, proposals, strict=True):
        ns.current = proposal
    Namespace.objects.bulk_update(namespaces, ["current"], batch_size=500)
    Proposal.objects.bulk_create(
        [
            Proposal(
                **fields,
                snid=f"pending{i}",
                submitter=user,
                state="submitted",
                submitted_at=now - timezone.timedelta(minutes=i),
            )
            for i in range(pending)
        ],
        batch_size=500,
    )
