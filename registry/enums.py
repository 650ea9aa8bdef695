"""States, actions and the one transition table of the proposal workflow.

A proposal moves draft → submitted → (changes requested → submitted …) →
approved or rejected; its submitter may withdraw it before a decision, or pull
a submitted proposal back into draft while no editor has decided. The table
below is the only place those moves are defined; ``services`` enforces it, and
pages take their words (labels, History sentences) from it.
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
    PULL_BACK = "pull_back", "Pull back to draft"
    WITHDRAW = "withdraw", "Withdraw"
    REQUEST_CHANGES = "request_changes", "Request changes"
    APPROVE = "approve", "Approve"
    REJECT = "reject", "Reject"


class ProposalKind(models.TextChoices):
    """What a proposal asks for, fixed at its first submission."""

    NEW_SNID = "new-snid", "New SNID"
    NEW_VERSION = "new-version", "New version"


#: What happened, as a page's "last change" says it ("Approved"), for each action and event kind.
ACTION_DONE = {
    "submit": "Submitted",
    "pull_back": "Pulled back",
    "withdraw": "Withdrawn",
    "request_changes": "Changes requested",
    "approve": "Approved",
    "reject": "Rejected",
    "judge": "Judged",
}


def action_done(action: str) -> str:
    """ "Approved" for "approve": the past tense people read in lists, histories and mails."""
    return ACTION_DONE.get(action, "Changed")


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


class DocumentType(models.TextChoices):
    """The GFD document types (GFD.152); GFD.191 §4: a registration SHOULD be Informational."""

    INFORMATIONAL = "Informational", "Informational"
    EXPERIMENTAL = "Experimental", "Experimental"
    COMMUNITY_PRACTICE = "Community Practice", "Community Practice"
    RECOMMENDATION = "Recommendation", "Recommendation"


class EventKind(models.TextChoices):
    CREATED = "created", "Created"
    TRANSITION = "transition", "State change"
    JUDGEMENT = "judgement", "Editor's judgement"
    RESOLVERS = "resolvers", "Resolvers changed"


@dataclass(frozen=True, slots=True)
class Transition:
    action: str
    source: str
    target: str
    actor: str
    needs_comment: bool = False
    #: What the actor did, as the rest of a sentence ("Editor erin requested changes").
    done: str = ""


S, A = ProposalState, ProposalAction

TRANSITIONS: tuple[Transition, ...] = (
    Transition(A.SUBMIT, S.DRAFT, S.SUBMITTED, Actor.SUBMITTER, done="submitted the proposal for review"),
    Transition(
        A.SUBMIT, S.CHANGES_REQUESTED, S.SUBMITTED, Actor.SUBMITTER, done="submitted the revised proposal for review"
    ),
    Transition(
        A.PULL_BACK, S.SUBMITTED, S.DRAFT, Actor.SUBMITTER, done="pulled the proposal back to draft before a decision"
    ),
    Transition(A.WITHDRAW, S.DRAFT, S.WITHDRAWN, Actor.SUBMITTER, done="withdrew the proposal"),
    Transition(A.WITHDRAW, S.SUBMITTED, S.WITHDRAWN, Actor.SUBMITTER, done="withdrew the proposal"),
    Transition(A.WITHDRAW, S.CHANGES_REQUESTED, S.WITHDRAWN, Actor.SUBMITTER, done="withdrew the proposal"),
    Transition(A.REQUEST_CHANGES, S.SUBMITTED, S.CHANGES_REQUESTED, Actor.EDITOR, True, done="requested changes"),
    Transition(A.APPROVE, S.SUBMITTED, S.APPROVED, Actor.EDITOR, done="approved the proposal"),
    Transition(A.REJECT, S.SUBMITTED, S.REJECTED, Actor.EDITOR, True, done="rejected the proposal"),
)

TRANSITION_BY_KEY: dict[tuple[str, str], Transition] = {(t.source, t.action): t for t in TRANSITIONS}

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


#: The decisions an editor takes on a submitted proposal, in the order pages offer them.
DECISIONS = (A.REQUEST_CHANGES, A.APPROVE, A.REJECT)


def event_sentence(
    kind: str,
    action: str,
    from_state: str,
    actor_name: str,
    *,
    named: bool = True,
    data: dict | None = None,
    titles: dict[str, str] | None = None,
) -> str:
    """One History entry as a sentence: "Editor erin requested changes."

    The verb comes from the transition table, the role from who may take the
    transition, so a page never shows a raw action value ("request_changes").
    With ``named=False`` (readers who may not see the review) only the role is
    given: "An editor requested changes." A judgement names its check and verdict
    from the event's ``data`` by the name the review panel gives it (``titles``: check id -> title):
    "Editor erin judged Within the OGF's scope: satisfied."
    """
    if kind == EventKind.JUDGEMENT:
        return _judgement_sentence(actor_name if named else "", data or {}, titles or {})
    if not named:
        if kind == EventKind.CREATED:
            return "The draft was created."
        transition = transition_for(from_state, action)
        if transition is None:
            label = ProposalAction(action).label if action in ProposalAction.values else "Changed the proposal"
            return f"{label}."
        role = "An editor" if transition.actor == Actor.EDITOR else "The applicant"
        return f"{role} {transition.done}."
    if kind == EventKind.CREATED:
        return f"Applicant {actor_name or 'unknown'} created the draft." if actor_name else "The draft was created."
    transition = transition_for(from_state, action)
    if transition is None:
        label = ProposalAction(action).label if action in ProposalAction.values else "changed the proposal"
        return f"{actor_name or 'The system'}: {label}."
    role = "Editor" if transition.actor == Actor.EDITOR else "Applicant"
    return f"{role} {actor_name} {transition.done}." if actor_name else f"The system {transition.done}."


def _judgement_sentence(actor_name: str, data: dict, titles: dict[str, str]) -> str:
    who = f"Editor {actor_name}" if actor_name else "An editor"
    check = data.get("check")
    if not check:
        return f"{who} recorded a judgement."
    verdict = "satisfied" if data.get("ok") else "not satisfied"
    return f"{who} judged “{titles.get(check, check)}”: {verdict}."


class FindingStatus(models.TextChoices):
    """Outcome of one automated review check."""

    PASS = "pass", "Pass"
    WARNING = "warning", "Warning"
    FAIL = "fail", "Fail"
    EDITOR = "editor", "Needs the editor's judgement"
    #: The check could not be run because something it needs is missing or broken (a grammar
    #: that does not parse, a section not written yet); the message says what to fix first.
    NOT_RUN = "not_run", "Not run"


class ReservationRequestState(models.TextChoices):
    PENDING = "pending", "Pending"
    GRANTED = "granted", "Granted"
    DECLINED = "declined", "Declined"
