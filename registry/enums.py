"""States, actions and the one transition table of the proposal workflow.

A proposal moves draft → submitted → (changes requested → submitted …) →
approved or rejected; its submitter may withdraw it before a decision. The
table below is the only place those moves are defined; ``services`` enforces it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models


class ProposalState(models.TextChoices):
    DRAFT = "draft", "Draft"
    SUBMITTED = "submitted", "Submitted"
    CHANGES_REQUESTED = "changes_requested", "Changes requested"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    WITHDRAWN = "withdrawn", "Withdrawn"


class ProposalAction(models.TextChoices):
    SUBMIT = "submit", "Submit for review"
    WITHDRAW = "withdraw", "Withdraw"
    REQUEST_CHANGES = "request_changes", "Request changes"
    APPROVE = "approve", "Approve"
    REJECT = "reject", "Reject"


class Actor(models.TextChoices):
    """Who may perform an action: the proposal's submitter or a GFD editor."""

    SUBMITTER = "submitter", "Submitter"
    EDITOR = "editor", "Editor"


class NamespaceStatus(models.TextChoices):
    RESERVED = "reserved", "Reserved"
    REGISTERED = "registered", "Registered"


class DocumentStatus(models.TextChoices):
    DRAFT = "draft", "Working draft"
    IN_REVIEW = "in-review", "In public comment / review"
    PUBLISHED = "published", "Published"


class EventKind(models.TextChoices):
    CREATED = "created", "Created"
    TRANSITION = "transition", "State change"
    JUDGEMENT = "judgement", "Editor's judgement"


@dataclass(frozen=True, slots=True)
class Transition:
    action: str
    source: str
    target: str
    actor: str
    needs_comment: bool = False


S, A = ProposalState, ProposalAction

TRANSITIONS: tuple[Transition, ...] = (
    Transition(A.SUBMIT, S.DRAFT, S.SUBMITTED, Actor.SUBMITTER),
    Transition(A.SUBMIT, S.CHANGES_REQUESTED, S.SUBMITTED, Actor.SUBMITTER),
    Transition(A.WITHDRAW, S.DRAFT, S.WITHDRAWN, Actor.SUBMITTER),
    Transition(A.WITHDRAW, S.SUBMITTED, S.WITHDRAWN, Actor.SUBMITTER),
    Transition(A.WITHDRAW, S.CHANGES_REQUESTED, S.WITHDRAWN, Actor.SUBMITTER),
    Transition(A.REQUEST_CHANGES, S.SUBMITTED, S.CHANGES_REQUESTED, Actor.EDITOR, True),
    Transition(A.APPROVE, S.SUBMITTED, S.APPROVED, Actor.EDITOR),
    Transition(A.REJECT, S.SUBMITTED, S.REJECTED, Actor.EDITOR, True),
)

TRANSITION_BY_KEY: dict[tuple[str, str], Transition] = {
    (t.source, t.action): t for t in TRANSITIONS
}

#: States the submitter may edit the proposal in.
EDITABLE_STATES = frozenset({S.DRAFT, S.CHANGES_REQUESTED})
#: States awaiting an editor's decision.
PENDING_STATES = frozenset({S.SUBMITTED})
#: Final states: nothing moves out of them.
FINAL_STATES = frozenset({S.APPROVED, S.REJECTED, S.WITHDRAWN})


def transition_for(state: str, action: str) -> Transition | None:
    return TRANSITION_BY_KEY.get((state, action))


def actions_from(state: str) -> list[Transition]:
    return [t for t in TRANSITIONS if t.source == state]


class FindingStatus(models.TextChoices):
    """Outcome of one automated review check."""

    PASS = "pass", "Pass"
    WARNING = "warning", "Warning"
    FAIL = "fail", "Fail"
    EDITOR = "editor", "Needs the editor's judgement"


class ReservationRequestState(models.TextChoices):
    PENDING = "pending", "Pending"
    GRANTED = "granted", "Granted"
    DECLINED = "declined", "Declined"
