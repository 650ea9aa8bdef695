"""The automated review's verdict on a proposal: told once, the same on every page and in the API.

A decided proposal (approved or rejected) shows the findings it was decided on: the
snapshot stored with the decision event (services.proposal_transition), labelled
with the decision's date. Re-running the checklist later answers a different
question — what would it say today, against a registry that now holds the
proposal itself and perhaps newer versions — so a live re-check is offered
separately (``recheck``) and says what changed since, never mixed into the
decision record. A proposal not decided yet shows the live checklist.

The queue (``Proposal.findings_summary``), the review page, the applicant's page
and the API all read ``proposal_verdict``.

What the editor judged by hand (the four judgements of GFD.191 §5) is shown as judged,
before the decision and after it alike (``judged``): a question the editor answered is
never listed as still waiting for them. The judgements are part of the review, so only
the pages of those who see the review show them (the queue and the API keep the
checklist's statuses).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field

from .checklist import SUBMITTED, Finding, summarize
from .enums import FindingStatus, ProposalAction, ProposalState
from .models import Proposal
from .selectors import proposal_findings

#: The decisions that end a review; their events carry the findings snapshot.
FINAL_DECISIONS = (ProposalAction.APPROVE, ProposalAction.REJECT)


def finding_from(raw: dict) -> Finding:
    """A stored finding (``Finding.as_dict``) as a Finding again."""
    return Finding(
        raw.get("id", ""), raw.get("status", ""), raw.get("message", ""), raw.get("reference", ""), raw.get("item")
    )


@dataclass(frozen=True)
class Verdict:
    findings: list[Finding]
    #: Set for a decided proposal: the decision ("approve"/"reject") and when it was made.
    decision: str = ""
    decided_at: dt.datetime | None = None

    @property
    def decided(self) -> bool:
        return bool(self.decision)

    @property
    def summary(self) -> dict[str, int]:
        return summarize(self.findings)

    @property
    def label(self) -> str:
        """What a page says above the findings."""
        if not self.decided:
            return ""
        verb = "approved" if self.decision == ProposalAction.APPROVE else "rejected"
        when = self.decided_at.strftime("%Y-%m-%d") if self.decided_at else "an unknown date"
        return f"The findings this proposal was {verb} on, {when}."


def decision_snapshot(proposal: Proposal) -> Verdict | None:
    """The verdict a decided proposal was decided on, or None if it is not decided."""
    if proposal.state not in (ProposalState.APPROVED, ProposalState.REJECTED):
        return None
    event = (
        proposal.events.filter(action__in=FINAL_DECISIONS)
        .order_by("-created_at", "-id")
        .only("action", "created_at", "data")
        .first()
    )
    raw = (event.data or {}).get("findings") if event is not None else None
    if raw is None:
        # Decided before decisions kept their snapshot: the findings stored at the last
        # transition are the ones the editor saw.
        raw = proposal.findings or []
    action = (
        event.action
        if event is not None
        else (ProposalAction.APPROVE if proposal.state == ProposalState.APPROVED else ProposalAction.REJECT)
    )
    decided_at = event.created_at if event is not None else proposal.decided_at
    return Verdict([finding_from(f) for f in raw], action, decided_at)


def sentence(text: str) -> str:
    """``text`` closed as a sentence: a full stop added only when it does not end with one already (an
    editor's note "Fine." stays "Fine.", never "Fine..")."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…", ".”", "!”", "?”", ".)", "!)", "?)")) else text + "."


def judged(findings: list[Finding], judgements) -> list[Finding]:
    """The findings as the editor has judged them: a judgement recorded on a check that asks for
    one replaces "needs the editor's judgement" with its answer (satisfied: pass; not satisfied:
    fail), saying who judged it, when, and their note. ``judgements``: check id -> Judgement."""
    out = []
    for finding in findings:
        judgement = judgements.get(finding.id)
        if finding.status == FindingStatus.EDITOR and judgement is not None:
            verdict = "satisfied" if judgement.ok else "not satisfied"
            note = f": {judgement.note.strip()}" if judgement.note.strip() else ""
            finding = dataclasses.replace(
                finding,
                status=FindingStatus.PASS if judgement.ok else FindingStatus.FAIL,
                message=sentence(
                    f"{finding.message} Judged {verdict} by {judgement.editor.get_username()} "
                    f"on {judgement.updated_at:%Y-%m-%d}{note}"
                ),
            )
        out.append(finding)
    return out


def judgements_of(proposal: Proposal) -> dict:
    """The editor's judgements on ``proposal``: check id -> Judgement (with its editor)."""
    return {j.check_id: j for j in proposal.judgements.select_related("editor")}


def with_judgements(verdict: Verdict, judgements) -> Verdict:
    """``verdict`` with the editor's judgements shown as judged (see ``judged``)."""
    return dataclasses.replace(verdict, findings=judged(verdict.findings, judgements))


def proposal_verdict(proposal: Proposal) -> Verdict:
    """What the automated review says about ``proposal`` as stored: the decision snapshot of a
    decided proposal, the live checklist otherwise."""
    return decision_snapshot(proposal) or Verdict(proposal_findings(proposal))


def _key(finding: Finding) -> tuple[str, str, str]:
    return finding.id, finding.status, finding.message


@dataclass(frozen=True)
class Recheck:
    """The checklist run now on a decided proposal, and how it differs from the decision's."""

    findings: list[Finding]
    checked_at: dt.datetime
    #: Findings the re-check gives that the decision did not have, and those it no longer gives.
    new: list[Finding] = field(default_factory=list)
    gone: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.new or self.gone)


def recheck(proposal: Proposal, verdict: Verdict, now: dt.datetime) -> Recheck:
    """Run the checklist again (as submitted, against today's registry without the proposal)
    and say what changed since ``verdict``."""
    live = proposal_findings(proposal, stage=SUBMITTED)
    then, current = {_key(f) for f in verdict.findings}, {_key(f) for f in live}
    return Recheck(
        live,
        now,
        new=[f for f in live if _key(f) not in then],
        gone=[f for f in verdict.findings if _key(f) not in current],
    )
