"""The editors' reservations (GFD.191 §4): the page, and each action confirmed before it is taken.

Granting or declining a request, reserving, renewing and releasing each change what the public sees
(a reservation is shown under /urn/ and written to the log), so each is a decision: the page's forms
ask for a confirmation page (GET) saying what will happen and who is told, whose form then acts (POST).
A POST that skipped that page, or was made after the reservation changed, changes nothing
(``views.seen``).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from .. import services
from ..enums import NamespaceStatus, ReservationRequestState
from ..grammar import snid_error
from ..models import Namespace, ReservationRequest
from ..selectors import namespace_get, reservation_active
from .review import editor_required
from .seen import seen_matches, seen_token

ACTIONS = {
    "grant": "Grant the reservation",
    "decline": "Decline the request",
    "reserve": "Reserve",
    "renew": "Renew the reservation",
    "release": "Release the reservation now",
}
#: The confirmation page's title for each action, around the URN it is about.
TITLES = {
    "grant": "Confirm: grant the reservation of {urn}",
    "decline": "Confirm: decline the request to reserve {urn}",
    "reserve": "Confirm: reserve {urn}",
    "renew": "Confirm: renew the reservation of {urn}",
    "release": "Confirm: release the reservation of {urn} now",
}


@editor_required
def reservations(request):
    namespaces = Namespace.objects.filter(status=NamespaceStatus.RESERVED).select_related("reserved_for", "released_by")
    context = {
        "pending": ReservationRequest.objects.filter(state=ReservationRequestState.PENDING).select_related(
            "requester", "proposal"
        ),
        "active": [ns for ns in namespaces if reservation_active(ns)],
        "released": [ns for ns in namespaces if not reservation_active(ns) and ns.released_at],
        "expired": [ns for ns in namespaces if not reservation_active(ns) and not ns.released_at],
        "default_until": timezone.localdate() + dt.timedelta(days=min(180, settings.RESERVATION_MAX_DAYS)),
        "latest_until": timezone.localdate() + dt.timedelta(days=settings.RESERVATION_MAX_DAYS),
    }
    return render(request, "registry/review/reservations.html", context)


def _date(value: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value or "")
    except (TypeError, ValueError):
        return None


def _subject(data) -> tuple[ReservationRequest | None, Namespace | None, str]:
    """The request (grant, decline) or the reserved SNID an action is about, and the SNID's name."""
    if data.get("action") in ("grant", "decline"):
        pk = data.get("request", "")
        reservation = (
            ReservationRequest.objects.select_related("requester").filter(pk=pk).first() if pk.isdigit() else None
        )
        return (
            reservation,
            namespace_get(reservation.snid) if reservation else None,
            reservation.snid if reservation else "",
        )
    snid = (data.get("snid") or "").strip()
    return None, namespace_get(snid) if snid and len(snid) <= 32 else None, snid


def _facts(action: str, data, reservation, namespace) -> tuple:
    """What the confirmation showed: the action as asked, and the reservation as it stood."""
    return (
        action,
        (data.get("snid") or "").strip(),
        data.get("until", ""),
        (data.get("reason") or "").strip(),
        (data.get("note") or "").strip(),
        (reservation.pk, reservation.state) if reservation else None,
        (
            namespace.pk,
            namespace.status,
            str(namespace.reserved_until),
            namespace.reserved_for_id,
            str(namespace.released_at),
        )
        if namespace
        else None,
    )


def _refusal(action: str, namespace, snid: str) -> list[str]:
    """Why the action cannot be taken, said on its confirmation page rather than after the click."""
    urn = f"urn:ogf:{snid}:"
    if action in ("grant", "decline"):
        return []
    if problem := snid_error(snid):
        return [problem]
    if action == "reserve":
        if namespace is not None and namespace.status == NamespaceStatus.REGISTERED:
            return [f"{urn} is already registered."]
        if namespace is not None and reservation_active(namespace):
            return [f"{urn} is already reserved until {namespace.reserved_until}: renew it instead."]
        return []
    if namespace is None or namespace.status != NamespaceStatus.RESERVED or not reservation_active(namespace):
        return [f"{urn} has no active reservation to {action}."]
    return []


def _what_happens(action: str, data, reservation, namespace, snid: str, editor) -> tuple[str, str]:
    """(what will happen, who is told), in the words of the confirmation page."""
    until = _date(data.get("until"))
    until_text = until.isoformat() if until else "(no date given)"
    urn = f"urn:ogf:{snid}:"
    public = "The reservation is shown publicly under /urn/ and written to the registry's log."
    if action == "grant":
        who = reservation.requester.get_username()
        return (
            f"{urn} is reserved for {who} until {until_text}: nobody else can propose it until then. {public}",
            f"{who}, who asked, gets an e-mail saying it was granted"
            + (" with your note." if data.get("note") else "."),
        )
    if action == "decline":
        who = reservation.requester.get_username()
        return (
            f"The request is declined; nothing is reserved, and {urn} stays open to anyone.",
            f"{who}, who asked, gets an e-mail saying it was declined"
            + (" with your note." if data.get("note") else "."),
        )
    if action == "reserve":
        return (
            f"{urn} is reserved until {until_text}: nobody can propose it until then. {public}",
            "Nobody is mailed.",
        )
    if action == "renew":
        before = namespace.reserved_until if namespace else None
        for_whom = namespace.reserved_for.get_username() if namespace and namespace.reserved_for else ""
        return (
            f"The reservation of {urn} runs until {until_text} instead of {before or 'its current date'}"
            + (f", still for {for_whom}" if for_whom else "")
            + f". {public}",
            "Nobody is mailed.",
        )
    before = namespace.reserved_until if namespace else None
    held_for = namespace.reserved_for if namespace else None
    told = (
        f"{held_for.get_username()}, for whom it was held, gets an e-mail saying so"
        + (" with your note." if data.get("note") else ".")
        if held_for is not None
        else "Nobody is mailed: it was held for nobody in particular."
    )
    return (
        f"The reservation of {urn} ends today (it was to run until {before or 'further notice'}): anyone may "
        f"propose the SNID from now on. The page of reservations and the registry's log say it was released on "
        f"{timezone.localdate().isoformat()} by {editor.get_username()}.",
        told,
    )


def _confirm(
    request, action: str, data, reservation, namespace, snid: str, *, errors=(), status: int = 200, blocked=False
):
    outcome, told = _what_happens(action, data, reservation, namespace, snid, request.user)
    hidden = [(name, data.get(name, "")) for name in ("action", "request", "snid", "until", "reason", "note")]
    context = {
        "title": TITLES[action].format(urn=f"urn:ogf:{snid}:" if snid else "an SNID"),
        "button": ACTIONS[action],
        "outcome": outcome,
        "told": told,
        "hidden": [(k, v) for k, v in hidden if v],
        "seen": seen_token(request.user, *_facts(action, data, reservation, namespace)),
        "errors": list(errors),
        "reservation": reservation,
        "namespace": namespace,
        "danger": action in ("release", "decline"),
        "back": reverse("registry:review_reservations"),
        "blocked": blocked,
    }
    return render(request, "registry/review/confirm_reservation.html", context, status=status)


@editor_required
def reservation_action(request):
    """GET: what the action will do (nothing changes). POST from that page: the action."""
    data = request.POST if request.method == "POST" else request.GET
    action = data.get("action", "")
    if action not in ACTIONS:
        messages.error(request, "Choose grant, decline, reserve, renew or release.")
        return redirect("registry:review_reservations")
    reservation, namespace, snid = _subject(data)
    if action in ("grant", "decline") and reservation is None:
        messages.error(request, "That reservation request does not exist (any more).")
        return redirect("registry:review_reservations")
    if request.method != "POST":
        refused = _refusal(action, namespace, snid)
        return _confirm(
            request,
            action,
            data,
            reservation,
            namespace,
            snid,
            errors=refused,
            status=409 if refused else 200,
            blocked=bool(refused),
        )
    if not seen_matches(data.get("seen", ""), request.user, *_facts(action, data, reservation, namespace)):
        return _confirm(
            request,
            action,
            data,
            reservation,
            namespace,
            snid,
            errors=[
                "Nothing was done: the reservation changed since this page was shown (or the page was not "
                "shown). Read what will happen now, then confirm."
            ],
            status=409,
        )
    try:
        done = _act(request, action, data, reservation)
    except services.ServiceError as exc:
        return _confirm(request, action, data, reservation, namespace, snid, errors=[exc.message], status=400)
    messages.success(request, done)
    return redirect("registry:review_reservations")


def _act(request, action: str, data, reservation) -> str:
    if action in ("grant", "decline"):
        decided = services.reservation_request_decide(
            reservation,
            request.user,
            grant=action == "grant",
            until=_date(data.get("until")),
            note=data.get("note", ""),
        )
        who = decided.requester.get_username()
        if action == "grant":
            until = _date(data.get("until"))
            return f"Reservation of urn:ogf:{decided.snid}: granted to {who} until {until}; {who} has been told."
        return f"Request to reserve urn:ogf:{decided.snid}: declined; {who} has been told."
    if action == "reserve":
        namespace = services.namespace_reserve(
            data.get("snid", ""), request.user, until=_date(data.get("until")), reason=data.get("reason", "")
        )
        return f"urn:ogf:{namespace.snid}: is reserved until {namespace.reserved_until}."
    if action == "renew":
        namespace = services.namespace_renew(data.get("snid", ""), request.user, until=_date(data.get("until")))
        return f"The reservation of urn:ogf:{namespace.snid}: is renewed until {namespace.reserved_until}."
    namespace = services.namespace_release(data.get("snid", ""), request.user, data.get("note", ""))
    return (
        f"The reservation of urn:ogf:{namespace.snid}: is released (on {namespace.released_at:%Y-%m-%d} by "
        f"{request.user.get_username()}); anyone may now propose it."
    )
