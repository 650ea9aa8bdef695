"""The editor's decision on a submitted proposal: its confirmation page, then the decision.

An SNID is never taken back, so a decision rests on exactly what the editor saw: the confirmation
page shows the verdict of every check and of each of the four judgements (GFD.191 §5), what stands in
the way of an approval (``verdicts.approval_blockers``, the one rule the API and the command share),
and everything that changed since the round the editor last decided on (``conversation.round_changes``,
the function the review page uses). Its form carries a token of those facts (``views.seen``): a
decision POSTed without it, or after the facts moved on, changes nothing and shows the page again.
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from .. import services
from ..checklist import MANUAL_CHECKS, unchecked
from ..conversation import round_changes
from ..diffs import proposal_changes
from ..enums import DECISIONS, FindingStatus, ProposalAction, ProposalState
from ..errors import SeenChanged
from ..models import Proposal
from ..verdicts import (
    approval_blockers,
    decision_facts,
    judged,
    judgements_of,
    proposal_verdict,
    review_summary,
)
from .errors import NextStep, conflict
from .review import _approved_before, editor_required
from .seen import seen_matches, seen_token
from .workbench import grouped

DECISION_OUTCOMES = {
    ProposalAction.REQUEST_CHANGES: "The proposal goes back to its applicant, who can edit it and submit it "
    "again; your message is shown at the top of their pages.",
    ProposalAction.APPROVE: "urn:ogf:{snid}: is registered and published at once in the public registry "
    "under /urn/. Approved proposals can never be changed; later changes need a new version.",
    ProposalAction.REJECT: "The review ends: the proposal is rejected for good and cannot be submitted again. "
    "The applicant can only start a new proposal.",
}
#: A new version replaces the current one: the confirmation and the message say so.
NEW_VERSION_OUTCOME = (
    "Version {version} of urn:ogf:{snid}: is registered and published at once, replacing version {current} as the "
    "current version (version {current} stays readable under /urn/{snid}/{current}/). Approved proposals can never "
    "be changed; later changes need a new version."
)
_DONE = {
    ProposalAction.REQUEST_CHANGES: "sent back",
    ProposalAction.APPROVE: "approved",
    ProposalAction.REJECT: "rejected",
}


def _facts(proposal: Proposal, action: str) -> dict:
    """What the confirmation page shows and the decision rests on, computed once for both visits."""
    judgements = judgements_of(proposal)
    verdict = proposal_verdict(proposal)
    findings = judged(verdict.findings, judgements)
    blockers = approval_blockers(verdict.findings, judgements) if action == ProposalAction.APPROVE else []
    current = _approved_before(proposal)
    round_ = round_changes(proposal)
    if round_ is not None:
        changes, since = round_.changes, f"round {round_.base_number}"
    elif current is not None:
        changes, since = proposal_changes(current, proposal), f"the approved version {current.version}"
    else:
        changes, since = None, ""
    return {
        "judgements": judgements,
        "manual": [{"id": c, "judgement": judgements.get(c)} for c in MANUAL_CHECKS],
        "findings": findings,
        "finding_groups": grouped(findings),
        "review_counts": review_summary(verdict.findings, judgements),
        # What could not be checked asks for a fresh check (confirming runs one), never an override.
        "unchecked": [f for f in unchecked(verdict.findings) if f.status != FindingStatus.NOT_RUN]
        if action == ProposalAction.APPROVE
        else [],
        "blockers": blockers,
        "changes": changes,
        "changes_since": since,
        "current": current,
    }


def _seen_facts(proposal: Proposal, action: str, facts: dict) -> tuple:
    """The facts a token stands for: the decision asked for and what it rests on (``decision_facts``)."""
    return (action, *decision_facts(proposal, facts["judgements"], facts["blockers"]))


def _outcome(proposal: Proposal, action: str, current) -> str:
    if action == ProposalAction.APPROVE and current is not None:
        return NEW_VERSION_OUTCOME.format(snid=proposal.snid, version=proposal.version, current=current.version)
    return DECISION_OUTCOMES[action].format(snid=proposal.snid)


def _confirm_page(request, proposal, action: str, facts: dict, *, notice: str = "", status: int = 200):
    post = request.POST
    context = {
        "proposal": proposal,
        "action": action,
        "label": ProposalAction(action).label,
        "comment": post.get("comment", "").strip(),
        "override": post.get("override_reason", "").strip(),
        "outcome": _outcome(proposal, action, facts["current"]),
        "open_threads": proposal.comments.open_threads().count(),
        "back": reverse("registry:review_detail", args=[proposal.pk]),
        "conflict_reason": post.get("conflict_reason", "").strip(),
        "public_note": post.get("public_note", "").strip()[:5000],
        "seen": seen_token(request.user, *_seen_facts(proposal, action, facts)),
        "notice": notice,
        **facts,
    }
    return render(request, "registry/review/confirm_decision.html", context, status=status)


@editor_required
@require_POST
def review_decide(request, pk):
    """Without ``confirm`` this only shows what the decision will do; nothing changes. With it, the
    decision is taken only if the page's token still matches the facts (``views.seen``)."""
    proposal = get_object_or_404(Proposal.objects.select_related("submitter", "namespace__current"), pk=pk)
    action = request.POST.get("action", "")
    if action not in DECISIONS:
        messages.error(request, "Choose request changes, approve or reject.")
        return redirect("registry:review_detail", pk=pk)
    label = ProposalAction(action).label
    comment = request.POST.get("comment", "").strip()
    back = [
        NextStep("Back to the proposal and its history", reverse("registry:review_detail", args=[pk])),
        NextStep("The review queue", reverse("registry:review_queue")),
    ]
    if proposal.state != ProposalState.SUBMITTED:
        return conflict(
            request,
            f"This proposal is {proposal.get_state_display().lower()}; only a submitted "
            f"proposal can be decided, so it cannot be {_DONE[action]} now.",
            back,
        )
    if action != ProposalAction.APPROVE and not comment:
        messages.error(request, f"{label} needs a message to the applicant saying why; write it in the decision panel.")
        return redirect("registry:review_detail", pk=pk)
    facts = _facts(proposal, action)
    if request.POST.get("confirm") != "yes":
        return _confirm_page(request, proposal, action, facts)
    if not seen_matches(request.POST.get("seen", ""), request.user, *_seen_facts(proposal, action, facts)):
        return _confirm_page(
            request,
            proposal,
            action,
            facts,
            notice="Nothing was decided: what the decision rests on has changed since this page was shown "
            "(or the page was not shown). Read it again as it is now, then confirm.",
            status=409,
        )
    override = request.POST.get("override_reason", "").strip()
    if facts["blockers"] and not override:
        return _confirm_page(
            request,
            proposal,
            action,
            facts,
            notice="Nothing was decided: approving over what is listed below needs your written reason.",
            status=400,
        )
    try:
        decided = services.proposal_transition(
            proposal,
            action,
            request.user,
            comment=comment,
            override_reason=override,
            conflict_reason=request.POST.get("conflict_reason", ""),
            public_note=request.POST.get("public_note", "")[:5000],
            seen_blockers=[b.sentence for b in facts["blockers"]] if action == ProposalAction.APPROVE else None,
            seen_updated_at=proposal.updated_at,  # the proposal the token covered, compared under the lock
        )
    except SeenChanged as exc:
        fresh = _facts(Proposal.objects.select_related("submitter", "namespace__current").get(pk=pk), action)
        return _confirm_page(request, proposal, action, fresh, notice=exc.message, status=409)
    except services.Conflict as exc:
        return conflict(request, exc.message, back)
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("registry:review_detail", pk=pk)
    who = f"{proposal.submitter.get_username()} has been told by e-mail"
    current = facts["current"]
    approved = (
        f"Approved: version {decided.version} of urn:ogf:{decided.snid}: is registered and published, "
        f"replacing version {current.version}; {who}."
        if current is not None
        else f"Approved: urn:ogf:{proposal.snid}: is registered and published; {who}."
    )
    messages.success(
        request,
        {
            ProposalAction.APPROVE: approved,
            ProposalAction.REJECT: f"Rejected; {who}.",
            ProposalAction.REQUEST_CHANGES: f"Changes requested; {who} and sees your message first.",
        }[action],
    )
    return redirect("registry:review_detail", pk=pk)
