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

from .checklist import CHECK_TITLES, MANUAL_CHECKS, SUBMITTED, Finding, could_not_check, summarize
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


def review_summary(findings, judgements) -> dict[str, int]:
    """The counts every page, list and mail shows (failing, warning, for the editor's judgement, ...).

    One function over the checklist's findings and the editor's judgements, so the queue, the review
    page, the history, My proposals and the mails never disagree: a judgement recorded as satisfied
    counts as a pass, one recorded as not satisfied as a failure, and a question answered is no
    longer "for the editor's judgement". ``findings``: Findings or their stored dicts;
    ``judgements``: check id -> anything with ``ok``."""
    statuses = []
    for finding in findings:
        check_id, status = (
            (finding.id, finding.status) if isinstance(finding, Finding) else (finding["id"], finding["status"])
        )
        judgement = judgements.get(check_id)
        if status == FindingStatus.EDITOR and judgement is not None:
            status = FindingStatus.PASS if judgement.ok else FindingStatus.FAIL
        statuses.append({"status": status})
    return summarize(statuses)


#: How each count reads, in the order pages, lists and mails give them (``counts_sentence``).
COUNT_WORDS = (
    (FindingStatus.FAIL, "failing"),
    (FindingStatus.WARNING, "with a warning"),
    (FindingStatus.EDITOR, "for the editor's judgement"),
    (FindingStatus.NOT_RUN, "not run"),
)


def count_parts(summary: dict | None) -> list[tuple[str, int, str]]:
    """(status, count, words) for a summary (``review_summary``): the three counts always, "not
    run" only when there is one."""
    summary = summary or {}
    return [
        (status, summary.get(status, 0), words)
        for status, words in COUNT_WORDS
        if status != FindingStatus.NOT_RUN or summary.get(status, 0)
    ]


def counts_sentence(summary: dict | None) -> str:
    """ "1 failing, 0 with a warning, 0 for the editor's judgement": the same words everywhere."""
    return ", ".join(f"{n} {words}" for _, n, words in count_parts(summary))


@dataclass(frozen=True)
class Blocker:
    """One reason an approval needs the editor's written reason: a failing check, a judgement
    recorded as not satisfied, or a judgement not recorded at all."""

    check_id: str
    kind: str  # "fail" | "not-satisfied" | "not-recorded"
    message: str

    @property
    def title(self) -> str:
        return CHECK_TITLES.get(self.check_id, self.check_id)

    @property
    def sentence(self) -> str:
        """How the blocker reads in a list, a mail, the public page and the log."""
        if self.kind == "not-satisfied":  # the editor's note stays in the review, not in public
            return f"{self.title}: judged not satisfied"
        if self.kind == "not-recorded":
            return f"{self.title}: not judged"
        return f"{self.title}: fails ({self.message})" if self.message else f"{self.title}: fails"

    def as_dict(self) -> dict:
        return {"check": self.check_id, "title": self.title, "kind": self.kind, "sentence": self.sentence}


def approval_blockers(findings, judgements) -> list[Blocker]:
    """What stands in the way of an approval: the one rule, for the web, the API and the command.

    Approval is refused while any automated check fails, or any of the four judgements of
    GFD.191 §5 is recorded as not satisfied or not recorded, unless the editor writes a reason
    (``services.proposal_transition`` enforces it; the confirmation page lists these)."""
    out = []
    for finding in findings:
        raw = finding.as_dict() if isinstance(finding, Finding) else finding
        if could_not_check(raw):  # not a failure to override: a fresh check answers it (the service's refusal)
            continue
        if raw["status"] == FindingStatus.FAIL:
            out.append(Blocker(raw["id"], "fail", raw.get("message", "")))
    for check_id in MANUAL_CHECKS:
        judgement = judgements.get(check_id)
        if judgement is None:
            if not any(b.check_id == check_id for b in out):  # one cause, one line
                out.append(Blocker(check_id, "not-recorded", ""))
        elif not judgement.ok:
            out.append(Blocker(check_id, "not-satisfied", (getattr(judgement, "note", "") or "").strip()))
    return out


def decision_facts(proposal: Proposal, judgements: dict, blockers: list[Blocker]) -> tuple:
    """What a decision on ``proposal`` rests on, as plain values for the token of what the editor was
    shown (views.seen; the confirmation page and the API's ``decision_basis``): the proposal as stored,
    each judgement and each blocker. (Not every check's status: a cut-short or borderline measurement
    may differ between two runs or two workers without changing what the approval rule decides on;
    the decision's own run is compared with the blockers shown, ``seen_blockers``.)"""
    return (
        proposal.pk,
        proposal.state,
        proposal.updated_at.isoformat(),
        sorted((c, j.ok, j.updated_at.isoformat()) for c, j in judgements.items()),
        [b.sentence for b in blockers],
    )


def judgements_of(proposal: Proposal) -> dict:
    """The editor's judgements on ``proposal``: check id -> Judgement (with its editor)."""
    return {j.check_id: j for j in proposal.judgements.select_related("editor")}


def overridden_of(proposal: Proposal) -> list[dict]:
    """What an approved version was approved over (``Blocker.as_dict`` each): stored with the
    decision; for a version approved before the rule covered judgements, its failing checks."""
    if proposal.overridden:
        return list(proposal.overridden)
    failed = sorted({f["id"] for f in (proposal.findings or []) if f.get("status") == FindingStatus.FAIL})
    return [Blocker(check_id, "fail", "").as_dict() for check_id in failed]


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
