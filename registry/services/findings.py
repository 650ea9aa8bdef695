"""The stored findings of open proposals follow the registry they are checked against.

The queue, My proposals and the mails give the counts stored with a proposal's last check
(``Proposal.findings_summary``); the review page runs the checklist live. Some findings depend
on the registry beside the proposal ("SNID free to register": registered, reserved, deprecated,
whose steward the applicant is), so a change to ``urn:ogf:<snid>:`` — an approval, a
reservation made, renewed, released or expired, a deprecation, a steward added or removed —
changes them for every other open proposal of that SNID. Without this, the queue said
"0 failing" for a proposal whose SNID another editor had just approved for someone else, while
its review page said "1 failing". So, once such a change commits, ``findings_follow`` checks
those proposals again and stores what the checklist says now.

The applicant is told, once, by mail, what changed and why ("SNID free to register: urn:ogf:x: is
registered …"), with the counts before and after: their proposal can no longer be approved as it is
(or, after a release, can again). A check that could not be made (a killed job, a busy machine) is not
stored over a real one: faults are not verdicts; the review page checks again when it is opened.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from .. import notify
from ..checklist import could_not_check
from ..enums import FINAL_STATES, FindingStatus
from ..models import Proposal
from ..selectors import proposal_findings
from ..verdicts import review_summary

logger = logging.getLogger(__name__)


def findings_follow(snids: Iterable[str]) -> int:
    """Check again every open proposal of ``snids`` (compared case-insensitively) and store its
    findings and counts; returns how many proposals' counts changed."""
    changed = 0
    for snid in {s.lower() for s in snids if s}:
        proposals = Proposal.objects.filter(snid__iexact=snid).exclude(state__in=FINAL_STATES)
        for proposal in proposals.select_related("submitter").prefetch_related("judgements"):
            findings = proposal_findings(proposal)
            stored = [f.as_dict() for f in findings]
            if any(could_not_check(f) for f in stored):
                logger.info("findings of proposal %s not refreshed: a check could not be made", proposal.pk)
                continue
            judgements = {j.check_id: j for j in proposal.judgements.all()}
            summary = review_summary(findings, judgements)
            if stored == proposal.findings and summary == proposal.findings_summary:
                continue
            updated = (
                Proposal.objects.filter(pk=proposal.pk)
                .exclude(state__in=FINAL_STATES)
                .update(findings=stored, findings_summary=summary)
            )
            if updated:
                _tell(proposal, proposal.findings or [], stored, proposal.findings_summary, summary)
            changed += summary != proposal.findings_summary
    return changed


def _tell(proposal, before: list[dict], after: list[dict], counts_before: dict, counts_after: dict) -> None:
    """Mail the applicant the findings that appeared (failing or warning) or stopped failing."""
    seen = {(f["id"], f["status"], f["message"]) for f in before}
    failing_now = {f["id"] for f in after if f["status"] == FindingStatus.FAIL}
    appeared = [
        f
        for f in after
        if (f["id"], f["status"], f["message"]) not in seen
        and f["status"] in (FindingStatus.FAIL, FindingStatus.WARNING)
    ]
    cleared = [f for f in before if f["status"] == FindingStatus.FAIL and f["id"] not in failing_now]
    address = proposal.submitter.email if proposal.submitter_id else ""
    if (appeared or cleared) and address:
        context = {
            "proposal": proposal,
            "appeared": appeared,
            "cleared": cleared,
            "summary": counts_after,
            "before": counts_before,
        }
        notify.later("review_changed", [address], context)


def findings_on_registry_changed(sender, snids=(), **kwargs) -> None:
    """``registry_changed``'s receiver (connected in ``apps.RegistryConfig.ready``, imported on first use)."""
    try:
        findings_follow(snids)
    except Exception:  # noqa: BLE001 - the change itself committed; a stale count must not make it a 500
        logger.exception("findings of open proposals of %s not refreshed", ", ".join(snids))
