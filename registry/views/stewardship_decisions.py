"""The editors' decisions after approval: stewards, deprecation, and the queue of stewards' requests.

Each decision is confirmed first, as a review decision is: its page (GET) shows the facts, what
will change in public and in the transparency log, and who will be told; the POST makes it. On
``/review/stewardship/`` every request shows the template's own name for each field with the
value in force and the value asked for side by side, resolvers as two tables, the reason, who
asked and when. Nobody decides what they asked for or what concerns them (``registry.rules``):
the queue says so instead of offering the buttons.
"""

from __future__ import annotations

from allauth.socialaccount.models import SocialAccount
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from .. import rules
from ..errors import ServiceError
from ..stewardship import outcomes, services
from ..stewardship.changes import CHANGE_KINDS, in_force_prefetch
from ..stewardship.facts import bases_of, request_facts
from ..stewardship.forms import DeprecateForm, NoteForm, ReasonForm, StewardAddForm
from ..stewardship.models import CHANGE_MOVE_BY_KEY, ChangeRequest, ChangeState, Steward, StewardState
from ..stewardship.selectors import (
    change_requests_pending,
    deprecation_of,
    invitations_pending,
    person,
    predecessors_of,
    snids_without_steward,
)
from .errors import NextStep, error_page, forbidden
from .review import editor_required
from .stewardship import (
    EDITORS_ONLY,
    _person_details,
    _stewardship_url,
    account_step,
    act_when_confirmed,
    acted_once_confirmed,
    confirm_page,
    form_page,
    hidden_of,
    page,
)

#: SNIDs without a steward named on the editors' stewardship page (the rest are counted).
ORPHANED_SHOWN = 100
#: Requests and invitations shown at once, oldest first (the rest are counted): the page stays bounded.
QUEUE_SHOWN = 50


# --- stewards ------------------------------------------------------------------------------------


@page(rules.can_decide_for_snid, EDITORS_ONLY)
def steward_add(request, namespace):
    return account_step(
        request,
        namespace,
        "add",
        StewardAddForm,
        title=f"Add a steward of urn:ogf:{namespace.snid}:",
        lead="A steward acts for the SNID: asks for changes, invites stewards and proposes new versions. You cannot "
        "add yourself; another editor does.",
        confirm="Confirm: add {person} as a steward",
        button="Add the steward",
        done="{person} is now a steward of urn:ogf:{snid}:; the stewards are told by e-mail.",
    )


@page(rules.can_decide_for_snid, EDITORS_ONLY)
def steward_remove(request, namespace, pk):
    steward = get_object_or_404(Steward.objects.select_related("user", "namespace"), pk=pk, namespace=namespace)
    if steward.state != StewardState.ACTIVE:
        return error_page(
            request,
            409,
            "This has moved on",
            f"{person(steward.user)} is not a steward of urn:ogf:{namespace.snid}: any more.",
            [NextStep("Back", _stewardship_url(namespace))],
        )
    data = request.POST if request.method == "POST" else None
    form = ReasonForm(data=data, prefix="remove")
    back = _stewardship_url(namespace)

    def again(errors=(), status=400):
        return confirm_page(
            request,
            namespace,
            title=f"Confirm: remove {person(steward.user)} as a steward",
            lead=f"{person(steward.user)} will no longer act for urn:ogf:{namespace.snid}:.",
            outcome=outcomes.steward_outcome(namespace, "remove", steward.user),
            button="Remove the steward",
            forms=[form],
            danger=True,
            editable=False,
            errors=errors,
            details=_person_details(steward.user),
            status=status,
        )

    return acted_once_confirmed(
        request,
        form,
        lambda: services.steward_remove(steward, request.user, reason=form.cleaned_data["reason"]),
        f"{person(steward.user)} is no longer a steward; the stewards are told by e-mail.",
        again=again,
        back=back,
    )


# --- deprecation ---------------------------------------------------------------------------------


@page(rules.can_deprecate, EDITORS_ONLY)
def deprecate(request, namespace):
    data = request.POST if request.method == "POST" else None
    form = DeprecateForm(data=data, prefix="deprecate")
    title = f"Deprecate urn:ogf:{namespace.snid}:"
    if deprecation_of(namespace) is not None:
        return error_page(
            request,
            409,
            "This has moved on",
            f"urn:ogf:{namespace.snid}: is deprecated already.",
            [NextStep("Withdraw the deprecation", reverse("registry:stewardship_undeprecate", args=[namespace.snid]))],
        )

    def again(errors=(), status=400):
        return form_page(
            request,
            namespace,
            title=title,
            lead=(
                "A deprecated SNID stays registered and its URNs stay valid, but new identifiers should use its "
                "successor; it is never reassigned or registered again."
            ),
            forms=[form],
            outcome=outcomes.deprecation_outcome(namespace, "deprecate"),
            button="Show what will happen",
            errors=errors,
            status=status,
        )

    if data is None or "edit" in data:
        return again(status=200)
    if not form.is_valid():
        return again()
    try:
        heir = services.deprecation_check(namespace, form.cleaned_data["successor"])
    except ServiceError as exc:
        return again([exc.message])
    details = [
        ("Reason (public)", form.cleaned_data["reason"]),
        ("Successor", f"urn:ogf:{heir.snid}:" if heir else "none named"),
    ]
    before = predecessors_of(namespace)
    if before:  # their chains of successors pass through this SNID: what they say changes too
        details.append(("Named as successor by", ", ".join(f"urn:ogf:{snid}:" for snid in before)))

    def confirmation(errors=(), status=200):
        return confirm_page(
            request,
            namespace,
            title=f"Confirm: deprecate urn:ogf:{namespace.snid}:",
            lead=("The SNID will be marked deprecated at once."),
            outcome=outcomes.deprecation_outcome(namespace, "deprecate", successor=heir),
            button="Deprecate",
            danger=True,
            hidden=hidden_of(request, [form]),
            details=details,
            errors=errors,
            status=status,
        )

    return act_when_confirmed(
        request,
        confirmation,
        lambda: services.snid_deprecate(
            namespace, request.user, reason=form.cleaned_data["reason"], successor=heir.snid if heir else ""
        ),
        f"urn:ogf:{namespace.snid}: is deprecated; its page is now a tombstone and its stewards are told by e-mail.",
        again=again,
        back=_stewardship_url(namespace),
    )


@page(rules.can_deprecate, EDITORS_ONLY)
def undeprecate(request, namespace):
    deprecation = deprecation_of(namespace)
    back = _stewardship_url(namespace)
    if deprecation is None:
        return error_page(
            request, 409, "This has moved on", f"urn:ogf:{namespace.snid}: is not deprecated.", [NextStep("Back", back)]
        )
    data = request.POST if request.method == "POST" else None
    form = ReasonForm(data=data, prefix="undeprecate")
    details = [("Deprecated since", deprecation.deprecated_at.date().isoformat()), ("Because", deprecation.reason)]
    if deprecation.successor:
        details.append(("Successor", f"urn:ogf:{deprecation.successor.snid}:"))

    def again(errors=(), status=400):
        return confirm_page(
            request,
            namespace,
            title=f"Confirm: withdraw the deprecation of urn:ogf:{namespace.snid}:",
            lead="The SNID will be current again.",
            details=details,
            outcome=outcomes.deprecation_outcome(namespace, "undeprecate"),
            button="Withdraw the deprecation",
            forms=[form],
            editable=False,
            errors=errors,
            status=status,
        )

    return acted_once_confirmed(
        request,
        form,
        lambda: services.snid_undeprecate(namespace, request.user, reason=form.cleaned_data["reason"]),
        f"The deprecation of urn:ogf:{namespace.snid}: is withdrawn; its stewards are told by e-mail.",
        again=again,
        back=back,
    )


# --- the editors' queue --------------------------------------------------------------------------


def _orcids(users) -> dict[int, str]:
    """Verified ORCID iDs of ``users`` (linked by signing in with ORCID), in one query."""
    return dict(
        SocialAccount.objects.filter(user_id__in={u.pk for u in users}, provider="orcid").values_list("user_id", "uid")
    )


@editor_required
def stewardship_queue(request):
    pending = change_requests_pending().select_related("namespace__current").order_by("created_at", "id")
    requests = list(pending[:QUEUE_SHOWN])
    namespaces: dict = {}
    for item in requests:  # one namespace object per SNID, read with what stands in two queries
        item.namespace = namespaces.setdefault(item.namespace_id, item.namespace)
    in_force_prefetch(namespaces.values())
    bases = bases_of(requests)
    invitations = list(invitations_pending().order_by("created_at", "id")[:QUEUE_SHOWN])
    orcids = _orcids([s.user for s in invitations] + [s.invited_by for s in invitations if s.invited_by])
    orphaned = snids_without_steward()
    with rules.stewardships_remembered(request.user):
        for item in requests:
            item.facts = request_facts(item, base=bases.get(item.pk))
            item.refusal = services.change_refusal(request.user, item)
        for item in invitations:
            item.orcid = orcids.get(item.user_id, "")
            item.refusal = services.steward_refusal("confirm", request.user, item.namespace, item.user, item)
        context = {
            "requests": requests,
            "requests_count": pending.count() if len(requests) == QUEUE_SHOWN else len(requests),
            "invitations": invitations,
            # The first ORPHANED_SHOWN by name, and how many in all: the page stays bounded however many there are.
            "orphaned": list(orphaned.only("snid")[:ORPHANED_SHOWN]),
            "orphaned_count": orphaned.count(),
        }
        return render(request, "registry/stewardship/queue.html", context)


def _queue_url() -> str:
    return reverse("registry:stewardship_queue")


@editor_required
def change_decide(request, pk):
    """Approve or decline a steward's request (``?decision=approve|decline``): the facts, what it does, who
    is told; the POST decides."""
    item = get_object_or_404(ChangeRequest.objects.select_related("namespace__current", "requested_by"), pk=pk)
    namespace, kind = item.namespace, CHANGE_KINDS.get(item.kind)
    back = [NextStep("The editors' stewardship queue", _queue_url())]
    if item.state != ChangeState.PENDING or kind is None:
        return error_page(
            request,
            409,
            "This has moved on",
            f"This request was already "
            f"{item.get_state_display().lower()}" + (f" by {person(item.decided_by)}." if item.decided_by else "."),
            back,
        )
    refusal = services.change_refusal(request.user, item)
    if refusal:
        return forbidden(request, refusal, back)
    source = request.POST if request.method == "POST" else request.GET
    decision = source.get("decision", "")
    if decision not in ("approve", "decline"):
        messages.info(request, "Choose Approve or Decline under the request.")
        return redirect(f"{_queue_url()}#request-{item.pk}")
    data = request.POST if request.method == "POST" else None
    form = NoteForm(data=data, prefix="decision")
    base = bases_of([item]).get(item.pk)
    move = CHANGE_MOVE_BY_KEY[(ChangeState.PENDING, decision)]

    def again(errors=(), status=400):
        asked = "to deprecate" if kind.name == "deprecation" else f"to change the {kind.what} of"
        return confirm_page(
            request,
            namespace,
            title=f"Confirm: {decision} the request {asked} urn:ogf:{namespace.snid}:",
            lead=f"{person(item.requested_by)} asked on {item.created_at:%Y-%m-%d}.",
            outcome=outcomes.change_decided(item, kind, decision, summary=kind.summary(move)),
            facts=request_facts(item, base=base),
            details=[("Why", item.reason)],
            forms=[form],
            hidden=[("decision", decision)],
            button=move.label,
            danger=decision == "decline",
            editable=False,
            errors=errors,
            status=status,
            cancel=_queue_url(),
        )

    done = "approved and public" if decision == "approve" else "declined"
    return acted_once_confirmed(
        request,
        form,
        lambda: services.change_request_transition(item, decision, request.user, note=form.cleaned_data["note"]),
        f"The request of urn:ogf:{namespace.snid}: is {done}; the stewards are told by e-mail.",
        again=again,
        back=_queue_url(),
    )


@editor_required
def invitation_decide(request, pk):
    """Confirm or decline a steward's invitation (``?decision=confirm|decline``)."""
    steward = get_object_or_404(Steward.objects.select_related("namespace__current", "user", "invited_by"), pk=pk)
    namespace = steward.namespace
    back = [NextStep("The editors' stewardship queue", _queue_url())]
    if steward.state != StewardState.INVITED:
        return error_page(request, 409, "This has moved on", "This invitation has already been decided.", back)
    source = request.POST if request.method == "POST" else request.GET
    decision = source.get("decision", "")
    if decision not in ("confirm", "decline"):
        messages.info(request, "Choose Confirm or Decline under the invitation.")
        return redirect(f"{_queue_url()}#invitation-{steward.pk}")
    refusal = services.steward_refusal(decision, request.user, namespace, steward.user, steward)
    if refusal:
        return forbidden(request, refusal, back)
    data = request.POST if request.method == "POST" else None
    form = NoteForm(data=data, prefix="decision")

    def again(errors=(), status=400):
        return confirm_page(
            request,
            namespace,
            title=f"Confirm: {decision} the invitation of {person(steward.user)}",
            lead=f"{person(steward.invited_by)} invited {person(steward.user)} to act for urn:ogf:{namespace.snid}: "
            f"on {steward.created_at:%Y-%m-%d}.",
            outcome=outcomes.steward_outcome(namespace, decision, steward.user, inviter=steward.invited_by),
            details=_person_details(steward.user) + [("Why", steward.reason)],
            forms=[form],
            hidden=[("decision", decision)],
            button="Confirm the invitation" if decision == "confirm" else "Decline the invitation",
            danger=decision == "decline",
            editable=False,
            errors=errors,
            status=status,
            cancel=_queue_url(),
        )

    done = "now a steward" if decision == "confirm" else "not added"
    return acted_once_confirmed(
        request,
        form,
        lambda: services.steward_invitation_decide(
            steward, request.user, confirm=decision == "confirm", note=form.cleaned_data["note"]
        ),
        f"{person(steward.user)} is {done}; everyone concerned is told by e-mail.",
        again=again,
        back=_queue_url(),
    )
