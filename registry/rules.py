"""Permission predicates, named once and used by services, views, the API and templates.

An editor is a user with ``registry.review_proposal`` (the "GFD editors" group
grants it). Approved proposals are public; everything else is visible only to
its submitter and to editors.
"""

from __future__ import annotations

from contextlib import contextmanager

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

    remembered = getattr(user, "_stewardships_remembered", None)
    if remembered is not None and hasattr(snid, "pk"):
        return any(namespace_id == snid.pk and state == "active" for namespace_id, state, _, _ in remembered)
    steward = apps.get_model("registry", "Steward")
    if hasattr(snid, "pk"):
        return steward.objects.filter(namespace_id=snid.pk, user_id=user.pk, state="active").exists()
    return steward.objects.filter(namespace__snid__lower=str(snid).lower(), user_id=user.pk, state="active").exists()


def is_submitter(user, proposal) -> bool:
    return bool(user and user.is_authenticated and proposal.submitter_id == user.pk)


def can_view_proposal(user, proposal) -> bool:
    return proposal.state == ProposalState.APPROVED or is_submitter(user, proposal) or is_editor(user)


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


@contextmanager
def stewardships_remembered(user):
    """For a page that asks the rules about many SNIDs for one user (the editors' queue): the user's
    stewardships are read once and the rules answer from them until the block ends. Only around
    reads: a write inside would be judged on what was read before it."""
    if not (user and user.is_authenticated):
        yield
        return
    from django.apps import apps

    steward = apps.get_model("registry", "Steward")
    user._stewardships_remembered = list(
        steward.objects.filter(user_id=user.pk).values_list("namespace_id", "state", "confirmed_at", "ended_at")
    )
    try:
        yield
    finally:
        del user._stewardships_remembered


def _same(user, user_id) -> bool:
    return bool(user_id is not None and getattr(user, "pk", None) == user_id)


def was_steward_at(user, namespace, moment) -> bool:
    """Whether ``user`` acted for the SNID at ``moment`` (a stewardship confirmed by then and not yet
    ended). A request filed while someone was a steward stays their own case after they stop being one."""
    if not (user and user.is_authenticated) or namespace is None or moment is None:
        return False
    remembered = getattr(user, "_stewardships_remembered", None)
    if remembered is not None:
        return any(
            namespace_id == namespace.pk
            and state in ("active", "removed")
            and confirmed is not None
            and confirmed <= moment
            and (ended is None or ended > moment)
            for namespace_id, state, confirmed, ended in remembered
        )
    from django.apps import apps
    from django.db.models import Q

    steward = apps.get_model("registry", "Steward")
    return steward.objects.filter(
        Q(ended_at__isnull=True) | Q(ended_at__gt=moment),
        namespace_id=namespace.pk,
        user_id=user.pk,
        confirmed_at__lte=moment,
        state__in=("active", "removed"),
    ).exists()


def can_invite_steward(user, namespace, invitee) -> bool:
    """Invite another account to act for an SNID: its stewards, never themselves."""
    return can_request_change(user, namespace) and not _same(user, getattr(invitee, "pk", None))


def can_add_steward(user, namespace, candidate) -> bool:
    """Make ``candidate`` a steward: an editor who does not act for the SNID, and never themselves
    (an editor who wants to act for an SNID asks another editor)."""
    return can_decide_for_snid(user, namespace) and not _same(user, getattr(candidate, "pk", None))


def can_remove_steward(user, steward) -> bool:
    """End a stewardship: an editor who does not act for the SNID, never his own."""
    return can_decide_for_snid(user, steward.namespace) and not _same(user, steward.user_id)


def can_decide_invitation(user, steward) -> bool:
    """Confirm or decline an invitation: an editor who does not act for the SNID, who neither made the
    invitation nor is the one invited."""
    return (
        can_decide_for_snid(user, steward.namespace)
        and not _same(user, steward.user_id)
        and not _same(user, steward.invited_by_id)
    )


def can_decide_change(user, request) -> bool:
    """Approve or decline a change request (a deprecation request too): an editor who does not act for the
    SNID, did not ask for the change, and was not a steward when it was asked for — whether or not
    they are one at the moment of deciding."""
    return (
        can_decide_for_snid(user, request.namespace)
        and not _same(user, request.requested_by_id)
        and not was_steward_at(user, request.namespace, request.created_at)
    )


def can_deprecate(user, namespace) -> bool:
    """Deprecate an SNID, or withdraw its deprecation: an editor who does not act for it."""
    return can_decide_for_snid(user, namespace)


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
