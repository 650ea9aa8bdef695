"""What an editor's decision through the API rests on, and the token that says it was seen.

The site's confirmation page puts a token of the facts it showed in its form (``views.seen``); the
API has no page, so the proposal itself carries them: an editor's ``GET /api/proposals/{id}/`` of a
submitted proposal answers ``decision_basis`` — what stands in the way of an approval (the one rule,
``verdicts.approval_blockers``, on the checklist run now, as the confirmation page runs it) and a
``seen`` token of those facts, the proposal as stored and each judgement. A decision
(``request_changes``, ``approve``, ``reject``) must send that token back: without it nothing is
decided (400), and once the facts moved on — the applicant resubmitted, another editor recorded a
judgement, the registry beside the proposal changed a check — nothing is decided either (409,
with the facts as they are now and their token). The decision then passes what the client saw to
the service, which compares it under the row's lock (``services.proposal_transition``'s
``seen_updated_at``: the proposal as read; ``seen_blockers``: with its own run of the approval
rule), so a resubmission landing in between is refused too and an ``override_reason`` never
covers what the client was not shown.

The token is the site's (an HMAC under the secret key and the editor's id), so it cannot be made up
without asking, and one editor's answer does not decide for another.
"""

from __future__ import annotations

from .. import rules
from ..enums import DECISIONS, ProposalState
from ..models import Proposal
from ..verdicts import approval_blockers, decision_facts, judgements_of, proposal_verdict
from ..views.seen import seen_matches, seen_token

_KIND = "api-decision"


def _facts(proposal: Proposal) -> tuple[tuple, list]:
    """The facts a decision rests on (for the token: ``verdicts.decision_facts``, as the confirmation
    page's) and the approval's blockers, computed once."""
    judgements = judgements_of(proposal)
    blockers = approval_blockers(proposal_verdict(proposal).findings, judgements)
    return (_KIND, *decision_facts(proposal, judgements, blockers)), blockers


def _basis(user, facts: tuple, blockers: list) -> dict:
    return {
        "seen": seen_token(user, *facts),
        "approval_blockers": [{"check": b.check_id, "kind": b.kind, "sentence": b.sentence} for b in blockers],
    }


def _decides(user, proposal: Proposal) -> bool:
    """An editor who may decide ``proposal`` (not their own case, unless a superuser with a reason)."""
    return rules.is_editor(user) and (not rules.is_own_case(user, proposal) or user.is_superuser)


def decision_basis(user, proposal: Proposal) -> dict | None:
    """For an editor who may decide ``proposal`` now: its blockers and the token to decide with."""
    if proposal.state != ProposalState.SUBMITTED or not _decides(user, proposal):
        return None
    return _basis(user, *_facts(proposal))


class NotSeen(Exception):
    """A decision sent without the token of what it rests on, or with one for other facts."""

    def __init__(self, status: int, detail: str, basis: dict):
        super().__init__(detail)
        self.status, self.detail, self.basis = status, detail, basis


def decision_seen(user, proposal: Proposal, action: str, token: str) -> dict:
    """What the service compares under the row's lock (``seen_blockers``, ``seen_updated_at``) for a
    decision sent with ``token``, or ``NotSeen``. The proposal as this request read it is always
    passed on: one read in another state (changes requested, say) and resubmitted before the
    service locks it is refused there, not decided on a text nobody was shown. What is not an
    editor's decision on a submitted proposal the service answers (not allowed, already decided)."""
    if action not in DECISIONS:
        return {}
    read = {"seen_updated_at": proposal.updated_at}
    if proposal.state != ProposalState.SUBMITTED or not _decides(user, proposal):
        return read
    facts, blockers = _facts(proposal)
    if not token:
        raise NotSeen(
            400,
            "Nothing was decided: a decision sends `seen`, the token of what it rests on — GET "
            f"/api/proposals/{proposal.pk}/ and send its decision_basis.seen, having read its approval_blockers.",
            _basis(user, facts, blockers),
        )
    if not seen_matches(token, user, *facts):
        raise NotSeen(
            409,
            "Nothing was decided: what the decision rests on has changed since `seen` was given (the "
            "proposal, a judgement or a check), or the token is not yours. decision_basis below is how "
            "it stands now: read it, then decide with its token.",
            _basis(user, facts, blockers),
        )
    return {**read, "seen_blockers": [b.sentence for b in blockers]}
