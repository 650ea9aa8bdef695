"""Permission predicates, named once and used by services, views, the API and templates.

An editor is a user with ``registry.review_proposal`` (the "GFD editors" group
grants it). Approved proposals are public; everything else is visible only to
its submitter and to editors.
"""

from __future__ import annotations

from .enums import EDITABLE_STATES, Actor, ProposalState, Transition

EDITOR_PERMISSION = "registry.review_proposal"
EDITOR_GROUP = "GFD editors"


def is_editor(user) -> bool:
    return bool(user and user.is_authenticated and user.has_perm(EDITOR_PERMISSION))


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
    return is_editor(user) and not is_submitter(user, proposal)

