"""The stored findings of open proposals follow the registry they are checked against.

The queue, My proposals and the mails give the counts stored with a proposal's last check
(``Proposal.findings_summary``); the review page runs the checklist live. Some findings depend
on the registry beside the proposal ("SNID free to register": registered, reserved, deprecated,
whose steward the applicant is), so a change to ``urn:ogf:<snid>:`` — an approval, a
reservation made, renewed, released or expired, a deprecation, a steward added or removed —
changes them for every other open proposal of that SNID. Without this, the queue said
"0 failing" for a proposal whose SNID another editor had just approved for someone else, while
its review page said "1 failing". So, once such a change commits, ``findings_follow`` runs the
checks that depend on the registry (``checklist.REGISTRY_CHECKS``) again on those proposals and
stores their findings and counts: the rest of a proposal's findings depend on its text alone,
which did not change (and running only these costs no grammar, no Markdown, whatever the
proposals hold, so an approval's request stays as quick however many drafts name its SNID).

The applicant is told, once, by mail, what changed and why ("SNID free to register: urn:ogf:x: is
registered …"), with the counts before and after: their proposal can no longer be approved as it is
(or, after a release, can again).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import transaction

from .. import notify
from ..checklist import findings_followed
from ..enums import FINAL_STATES, FindingStatus
from ..models import Proposal
from ..selectors import checklist_stage, registry_facts
from ..verdicts import review_summary

logger = logging.getLogger(__name__)


def findings_follow(snids: Iterable[str]) -> int:
    """Run the registry's checks again on every open proposal of ``snids`` (compared case-insensitively)
    and store its findings and counts; returns how many proposals' counts changed."""
    changed = 0
    for snid in {s.lower() for s in snids if s}:
        open_ones = Proposal.objects.filter(snid__iexact=snid).exclude(state__in=FINAL_STATES)
        for pk in open_ones.values_list("pk", flat=True):
            changed += _follow_one(pk)
    return changed


def _follow_one(pk: int) -> bool:
    """One proposal, locked while it is read and written (its applicant may be saving it, an editor
    recording a judgement): whether its counts changed."""
    with transaction.atomic():
        proposal = (
            Proposal.objects.select_for_update(of=("self",))
            .select_related("submitter")
            .exclude(state__in=FINAL_STATES)
            .filter(pk=pk)
            .first()
        )
        if proposal is None:  # decided meanwhile: its findings are the decision's
            return False
        facts = registry_facts(proposal.snid, proposal.submitter_id, exclude_pk=proposal.pk)
        stored = findings_followed(proposal.findings or [], proposal.to_data(), facts, stage=checklist_stage(proposal))
        summary = review_summary(stored, {j.check_id: j for j in proposal.judgements.all()})
        if stored == proposal.findings and summary == proposal.findings_summary:
            return False
        before, counts_before = proposal.findings or [], proposal.findings_summary
        Proposal.objects.filter(pk=proposal.pk).update(findings=stored, findings_summary=summary)
        _tell(proposal, before, stored, counts_before, summary)
        return summary != counts_before


def _tell(proposal, before: list[dict], after: list[dict], counts_before: dict, counts_after: dict) -> None:
    """Mail the applicant the findings that appeared (failing or warning), that still fail or warn but
    now say something else (a reservation renewed to another date), or that stopped failing."""
    was = {f["id"]: f for f in before}
    failing_now = {f["id"] for f in after if f["status"] == FindingStatus.FAIL}
    shown = [f for f in after if f["status"] in (FindingStatus.FAIL, FindingStatus.WARNING)]
    appeared = [f for f in shown if was.get(f["id"], {}).get("status") != f["status"]]
    reworded = [f for f in shown if f not in appeared and was[f["id"]].get("message") != f.get("message")]
    cleared = [f for f in before if f["status"] == FindingStatus.FAIL and f["id"] not in failing_now]
    address = proposal.submitter.email if proposal.submitter_id else ""
    if (appeared or reworded or cleared) and address:
        context = {
            "proposal": proposal,
            "appeared": appeared,
            "reworded": reworded,
            "cleared": cleared,
            "summary": counts_after,
            "before": counts_before,
            "counts_unchanged": counts_after == counts_before,
        }
        notify.later("review_changed", [address], context)


def findings_on_registry_changed(sender, snids=(), **kwargs) -> None:
    """``registry_changed``'s receiver (connected in ``apps.RegistryConfig.ready``, imported on first use)."""
    try:
        findings_follow(snids)
    except Exception:  # noqa: BLE001 - the change itself committed; a stale count must not make it a 500
        logger.exception("findings of open proposals of %s not refreshed", ", ".join(snids))
