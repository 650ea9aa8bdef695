"""Permission predicates, named once and used by services, views, the API and templates.

An editor is a user with ``registry.review_proposal`` (the "GFD editors" group
grants it). Approved proposals are public; everything else is visible only to
its submitter and to editors.
"""

from __future__ import annotations

from .enums import EDITABLE_STATES, FINAL_STATES, Actor, ProposalState, Transition

EDITOR_PERMISSION = "registry.review_proposal"
EDITOR_GROUP = "GFD editors"


def is_editor(user) -> bool:
    return bool(user and user.is_authenticated and user.has_perm(EDITOR_PERMISSION))


def is_steward(user, snid) -> bool:
    """Whether ``user`` acts for the SNID ``snid`` (a string or a Namespace): an active steward.

    This is the one rule for "the SNID's registrant": proposing a new version, asking for an
    administrative change, inviting another steward — and, for an editor, a conflict of interest.
    The registrant of an SNID is its first steward (registry.stewardship).
    """
    if not (user and user.is_authenticated and user.is_active) or snid is None:
        return False
    from django.apps import apps  # rules stays a leaf module: the model is looked up, not imported

    steward = apps.get_model("registry", "Steward")
    if hasattr(snid, "pk"):
        return steward.objects.filter(namespace_id=snid.pk, user_id=user.pk, state="active").exists()
    return steward.objects.filter(namespace__snid__lower=str(snid).lower(), user_id=user.pk,
                                  state="active").exists()


def is_submitter(user, proposal) -> bool:
    return bool(user and user.is_authenticated and proposal.submitter_id == user.pk)


def can_view_proposal(user, proposal) -> bool:
    return (
        proposal.state == ProposalState.APPROVED
        or is_submitter(user, proposal)
        or is_editor(user)
    )


def can_see_registrant(user, proposal) -> bool:
    """The registrant's unpublished details (name, e-mail, address not chosen for publication)
    are for the submitter and the editors; everyone else sees what the registrant published."""
    return is_submitter(user, proposal) or is_editor(user)


def can_edit_proposal(user, proposal) -> bool:
    """Only the submitter edits, and only while the proposal is a draft or sent back."""
    return is_submitter(user, proposal) and proposal.state in EDITABLE_STATES


def can_perform(user, proposal, transition: Transition) -> bool:
    """Whether ``user`` may take ``transition`` on ``proposal``.

    Editors decide, but never on their own proposals.
    """
    if transition.actor == Actor.SUBMITTER:
        return is_submitter(user, proposal)
    return can_review(user, proposal)



def can_see_review(user, proposal) -> bool:
    """Review comments, judgements, decision messages and editors' names.

    Visible to the proposal's submitter and to editors only — forever, whatever the state:
    approval makes the registration public, never the conversation that led to it.
    """
    return is_submitter(user, proposal) or is_editor(user)


def is_own_case(user, proposal) -> bool:
    """A proposal the user wrote, or one for an SNID they are a steward of."""
    if is_submitter(user, proposal):
        return True
    namespace = getattr(proposal, "namespace", None)
    return namespace is not None and is_steward(user, namespace)


def can_request_change(user, namespace) -> bool:
    """Ask for an administrative change of a registered SNID, or invite another steward: its stewards."""
    return is_steward(user, namespace)


def can_decide_for_snid(user, namespace) -> bool:
    """Decide on an SNID's change requests, stewards and deprecation: an editor who is not its steward."""
    return is_editor(user) and not is_steward(user, namespace)


def can_see_stewardship(user, namespace) -> bool:
    """Pending change requests, invitations and the private history: the SNID's stewards and the editors."""
    return is_editor(user) or is_steward(user, namespace)


def can_review(user, proposal) -> bool:
    """Comment as editor, judge, approve, reject or send back: an editor, never on their own case."""
    return is_editor(user) and not is_own_case(user, proposal)


def review_is_open(proposal) -> bool:
    """Threads may be started, answered, resolved and reopened until the proposal is decided
    or withdrawn; then the record of its review is final (PostgreSQL refuses changes too)."""
    return proposal.state not in FINAL_STATES
