"""Reservations of SNIDs before approval, and applicants' requests for one."""

from __future__ import annotations

import datetime as dt
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .. import notify, rules
from ..enums import (
    NamespaceStatus,
    ProposalState,
    ReservationRequestState,
)
from ..errors import Conflict, NotAllowed, ServiceError
from ..grammar import snid_error
from ..models import Namespace, Proposal, ReservationRequest
from ..selectors import namespace_get, reservation_active
from ..signals import registry_changed_send
from ..transparency.records import log_reservation_ended, log_reservation_granted


@transaction.atomic
def namespace_reserve(
    snid: str, actor, *, until: dt.date | None, reason: str, reserved_for=None, conflict_reason: str = ""
) -> Namespace:
    """Reserve an SNID for a limited time before approval (GFD.191 §4), or renew a reservation.

    At most settings.RESERVATION_MAX_DAYS from today; never by an editor for themselves.
    """
    if not rules.is_editor(actor):
        raise NotAllowed("Only GFD editors can reserve SNIDs.")
    if (
        reserved_for is not None
        and reserved_for.pk == actor.pk
        and not (actor.is_superuser and (conflict_reason or "").strip())
    ):
        raise NotAllowed(
            "Editors cannot reserve SNIDs for themselves; another editor must. "
            "(A superuser may override, giving a written reason that is recorded.)"
        )
    if reserved_for is not None and reserved_for.pk == actor.pk:
        reason = f"{reason}\nReserved by a superuser for themselves: {conflict_reason.strip()}".strip()
    latest = timezone.localdate() + dt.timedelta(days=settings.RESERVATION_MAX_DAYS)
    if until is not None and until > latest:
        raise ServiceError(
            f"A reservation lasts at most {settings.RESERVATION_MAX_DAYS} days: choose a "
            f"date no later than {latest.isoformat()} (an editor can renew it then)."
        )
    snid = snid.strip()
    if problem := snid_error(snid):
        raise ServiceError(problem)
    if (
        reserved_for is None
        and Proposal.objects.filter(snid__lower=snid.lower(), submitter=actor)
        .exclude(state__in=(ProposalState.WITHDRAWN, ProposalState.REJECTED, ProposalState.APPROVED))
        .exists()
    ):
        raise NotAllowed("Editors cannot reserve an SNID they are proposing themselves; another editor must.")
    if until is None or until < timezone.localdate():
        raise ServiceError("Give the date until which the SNID stays reserved (today or later).")
    namespace = Namespace.objects.select_for_update().by_snid(snid).first()
    if namespace is not None and namespace.status == NamespaceStatus.REGISTERED:
        raise Conflict(f"urn:ogf:{namespace.snid}: is already registered.")
    if (
        namespace is not None
        and reservation_active(namespace)
        and namespace.reserved_for_id not in (None, getattr(reserved_for, "pk", None))
    ):
        raise Conflict(f"urn:ogf:{namespace.snid}: is already reserved until {namespace.reserved_until}.")
    renewal = namespace is not None and reservation_active(namespace)
    if namespace is None:
        namespace = Namespace(snid=snid, status=NamespaceStatus.RESERVED)
    namespace.reserved_until = until
    namespace.reservation_reason = reason
    namespace.reserved_for = reserved_for
    namespace.released_at, namespace.released_by = None, None
    namespace.save()
    log_reservation_granted(namespace, renewal=renewal)
    transaction.on_commit(partial(registry_changed_send, namespace.snid))  # lookups, open proposals
    return namespace


def namespace_renew(snid: str, actor, *, until: dt.date | None) -> Namespace:
    """Extend an active reservation, keeping whom it is for and why (same limits as reserving)."""
    namespace = namespace_get(snid.strip()) if not snid_error(snid.strip()) else None
    if namespace is None or namespace.status != NamespaceStatus.RESERVED or not reservation_active(namespace):
        raise Conflict(f"urn:ogf:{snid}: has no active reservation to renew.")
    return namespace_reserve(
        namespace.snid, actor, until=until, reason=namespace.reservation_reason, reserved_for=namespace.reserved_for
    )


def namespace_release(snid: str, actor, note: str = "") -> Namespace:
    """End a reservation now. The row stays (SNIDs are never deleted), no longer blocking anyone."""
    if not rules.is_editor(actor):
        raise NotAllowed("Only GFD editors can release reservations.")
    with transaction.atomic():
        namespace = Namespace.objects.select_for_update().by_snid(snid).first()
        if namespace is None or namespace.status != NamespaceStatus.RESERVED or not reservation_active(namespace):
            # Released or expired already: a second release would log a second end and rewrite who ended it.
            raise Conflict(f"urn:ogf:{snid}: has no active reservation to release.")
        today = timezone.localdate()
        log_reservation_ended(
            namespace, namespace.reserved_until, how="released", released_on=today, released_by=actor.get_username()
        )
        # It blocks nobody from today: it ended yesterday; when and by whom it was released is kept apart.
        namespace.reserved_until = today - dt.timedelta(days=1)
        namespace.released_at = timezone.now()
        namespace.released_by = actor
        if note:
            namespace.reservation_reason = f"{namespace.reservation_reason}\nReleased: {note}".strip()
        namespace.save()
        transaction.on_commit(partial(registry_changed_send, namespace.snid))  # lookups, open proposals
        if namespace.reserved_for is not None and namespace.reserved_for.email:
            # The person it was held for learns it ended early, from whom, and why.
            notify.later(
                "reservation_released",
                [namespace.reserved_for.email],
                {"namespace": namespace, "editor": actor, "note": note.strip()},
            )
    return namespace


@transaction.atomic
def reservation_request_create(snid: str, requester, *, reason: str = "", proposal=None) -> ReservationRequest:
    """An applicant asks the editor to reserve an SNID while they write."""
    snid = snid.strip()
    if problem := snid_error(snid):
        raise ServiceError(problem)
    if proposal is not None and not rules.is_submitter(requester, proposal):
        raise NotAllowed("You can only ask for a reservation for your own proposal.")
    namespace = namespace_get(snid)
    if namespace is not None and namespace.status == NamespaceStatus.REGISTERED:
        raise Conflict(f"urn:ogf:{namespace.snid}: is already registered.")
    if namespace is not None and reservation_active(namespace):
        if namespace.reserved_for_id == requester.pk:
            raise Conflict(f"urn:ogf:{namespace.snid}: is already reserved for you until {namespace.reserved_until}.")
        raise Conflict(f"urn:ogf:{namespace.snid}: is reserved for someone else.")
    if ReservationRequest.objects.filter(
        snid__lower=snid.lower(), requester=requester, state=ReservationRequestState.PENDING
    ).exists():
        raise Conflict(f"You have already asked to reserve urn:ogf:{snid}:; an editor will answer.")
    request = ReservationRequest.objects.create(
        snid=snid, requester=requester, proposal=proposal, reason=reason.strip()
    )
    notify.later("reservation_requested", notify.editors_emails, {"request": request})
    return request


@transaction.atomic
def reservation_request_decide(
    request: ReservationRequest, editor, *, grant: bool, until: dt.date | None = None, note: str = ""
) -> ReservationRequest:
    if not rules.is_editor(editor):
        raise NotAllowed("Only GFD editors decide on reservation requests.")
    if request.requester_id == editor.pk or (request.proposal_id and rules.is_own_case(editor, request.proposal)):
        raise NotAllowed("Editors cannot decide on their own reservation requests; another editor must.")
    locked = ReservationRequest.objects.select_for_update().get(pk=request.pk)
    if locked.state != ReservationRequestState.PENDING:
        raise Conflict(f"This request was already {locked.get_state_display().lower()}.")
    if grant:
        namespace_reserve(
            locked.snid,
            editor,
            until=until,
            reason=locked.reason or "Reservation request",
            reserved_for=locked.requester,
        )
    locked.state = ReservationRequestState.GRANTED if grant else ReservationRequestState.DECLINED
    locked.decided_by, locked.decision_note, locked.decided_at = editor, note.strip(), timezone.now()
    locked.save()
    notify.later(
        "reservation_decided", [locked.requester.email], {"request": locked, "until": until if grant else None}
    )
    return locked
