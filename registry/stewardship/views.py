"""Pages of an SNID's life after approval: the SNID's stewardship page and the editors' queue.

``/urn/<snid>/stewardship/`` is for the SNID's stewards and the editors (``rules.can_see_stewardship``):
stewards ask for changes and invite, editors add or remove stewards and deprecate. The editors'
queue at ``/review/stewardship/`` lists what waits for a decision. Every POST goes through one
service; a refused one comes back as a message on the page it came from.
"""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from .. import rules
from ..accounts.names import user_by_name
from ..models import Namespace
from ..services import ServiceError
from ..views.errors import forbidden
from ..views.review import editor_required
from . import services
from .changes import CHANGE_KINDS, current_values, kinds_offered
from .forms import DeprecateForm, StewardAddForm
from .models import ChangeRequest, Steward
from .selectors import (
    change_requests_pending,
    deprecation_of,
    full_history,
    invitations_pending,
    orcid_of,
    snids_without_steward,
    stewards_active,
    stewards_invited,
)


def _namespace(snid: str) -> Namespace:
    namespace = Namespace.objects.by_snid(snid).select_related("current").first()
    if namespace is None or namespace.status != "registered" or namespace.current_id is None:
        raise Http404(f"urn:ogf:{snid[:40]}: is not a registered SNID.")
    return namespace


def _page(rule=rules.can_see_stewardship, refusal: str = ""):
    """Views of one SNID for those ``rule`` allows; anonymous readers sign in first."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, snid, *args, **kwargs):
            namespace = _namespace(snid)
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not rule(request.user, namespace):
                return forbidden(request, (refusal or "Only the stewards of urn:ogf:{snid}: and the GFD editors "
                                           "can manage it. Its public page shows who its stewards are.").format(
                                               snid=namespace.snid))
            return view(request, namespace, *args, **kwargs)

        return wrapper

    return decorate


#: SNIDs without a steward named on the editors' stewardship page (the rest are counted).
ORPHANED_SHOWN = 100
STEWARDS_ONLY = "Only the stewards of urn:ogf:{snid}: can ask for changes or invite stewards."
EDITORS_ONLY = ("Only a GFD editor who is not a steward of urn:ogf:{snid}: can add or remove its stewards or "
                "deprecate it.")


def _done(request, namespace, call, success: str):
    try:
        call()
        messages.success(request, success)
    except ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("registry:stewardship", namespace.snid)


@_page()
def stewardship(request, namespace):
    user = request.user
    is_steward = rules.is_steward(user, namespace)
    kinds = []
    for kind in kinds_offered():
        initial = current_values(namespace, [n for n in kind.form.base_fields if n.startswith("registrant_")])
        kinds.append({"kind": kind, "form": kind.form(initial=initial, prefix=kind.name)})
    own = Steward.objects.filter(namespace=namespace, user=user, state="active").first()
    context = {
        "namespace": namespace, "is_steward": is_steward, "can_decide": rules.can_decide_for_snid(user, namespace),
        "stewards": stewards_active(namespace), "invited": stewards_invited(namespace),
        "requests": change_requests_pending(namespace), "history": full_history(namespace),
        "kinds": kinds, "deprecation": deprecation_of(namespace), "own": own,
        "own_orcid": orcid_of(user) if own else "",
        "add_form": StewardAddForm(), "deprecate_form": DeprecateForm(),
    }
    return render(request, "registry/stewardship/page.html", context)


@require_POST
@_page(rules.is_steward, STEWARDS_ONLY)
def change_request(request, namespace, kind):
    change = CHANGE_KINDS.get(kind)
    if change is None or not change.available():
        raise Http404("No such kind of change.")
    data = {name: request.POST.get(f"{kind}-{name}", "") for name in change.form.base_fields}
    return _done(request, namespace, lambda: services.change_request_create(
        namespace, kind, data, request.user, reason=request.POST.get("reason", "")),
        f"Your request to change the {change.what} is sent; an editor will approve or decline it.")


@require_POST
@_page(rules.is_steward, STEWARDS_ONLY)
def steward_invite(request, namespace):
    user = user_by_name(request.POST.get("username", "").strip())
    if user is None:
        messages.error(request, "No account has that user name.")
        return redirect("registry:stewardship", namespace.snid)
    return _done(request, namespace, lambda: services.steward_invite(
        namespace, user, request.user, reason=request.POST.get("reason", "")),
        f"{user.get_username()} is invited; an editor will confirm the invitation.")


@require_POST
@_page(rules.is_steward, STEWARDS_ONLY)
def steward_orcid(request, namespace):
    steward = Steward.objects.filter(namespace=namespace, user=request.user, state="active").first()
    if steward is None:
        return forbidden(request, "Only a steward chooses what is shown beside their own name.")
    show = request.POST.get("show_orcid") == "on"
    return _done(request, namespace, lambda: services.steward_show_orcid(steward, request.user, show),
                 "Your ORCID iD is shown beside your name." if show else "Your ORCID iD is no longer shown.")


@require_POST
@_page(rules.can_decide_for_snid, EDITORS_ONLY)
def steward_add(request, namespace):
    form = StewardAddForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect("registry:stewardship", namespace.snid)
    user = form.cleaned_data["user"]
    return _done(request, namespace, lambda: services.steward_add(
        namespace, user, request.user, reason=form.cleaned_data["reason"]),
        f"{user.get_username()} is now a steward of urn:ogf:{namespace.snid}:.")


@require_POST
@_page(rules.can_decide_for_snid, EDITORS_ONLY)
def steward_remove(request, namespace, pk):
    steward = get_object_or_404(Steward, pk=pk, namespace=namespace)
    return _done(request, namespace, lambda: services.steward_remove(
        steward, request.user, reason=request.POST.get("reason", "")),
        f"{steward.user.get_username()} is no longer a steward.")


@require_POST
@_page(rules.can_decide_for_snid, EDITORS_ONLY)
def deprecate(request, namespace):
    return _done(request, namespace, lambda: services.snid_deprecate(
        namespace, request.user, reason=request.POST.get("reason", ""),
        successor=request.POST.get("successor", "")),
        f"urn:ogf:{namespace.snid}: is deprecated; its page is now a tombstone.")


@require_POST
@_page(rules.can_decide_for_snid, EDITORS_ONLY)
def undeprecate(request, namespace):
    return _done(request, namespace, lambda: services.snid_undeprecate(
        namespace, request.user, reason=request.POST.get("reason", "")),
        f"The deprecation of urn:ogf:{namespace.snid}: is withdrawn.")


# --- the editors' queue ---------------------------------------------------------------------------


@editor_required
def stewardship_queue(request):
    orphaned = snids_without_steward()
    context = {
        "requests": change_requests_pending(),
        "invitations": invitations_pending(),
        # The first ORPHANED_SHOWN by name, and how many in all: the page stays bounded however many there are.
        "orphaned": list(orphaned.only("snid")[:ORPHANED_SHOWN]),
        "orphaned_count": orphaned.count(),
        "kinds": CHANGE_KINDS,
    }
    return render(request, "registry/stewardship/queue.html", context)


@editor_required
@require_POST
def change_decide(request, pk):
    change = get_object_or_404(ChangeRequest, pk=pk)
    decision = request.POST.get("decision")
    if decision not in ("approve", "decline"):
        messages.error(request, "Choose approve or decline.")
        return redirect("registry:stewardship_queue")
    try:
        services.change_request_decide(change, request.user, approve=decision == "approve",
                                       note=request.POST.get("note", ""))
        messages.success(request, f"The change of urn:ogf:{change.namespace.snid}: is "
                         f"{'approved and public' if decision == 'approve' else 'declined'}; the steward is told.")
    except ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("registry:stewardship_queue")


@editor_required
@require_POST
def invitation_decide(request, pk):
    steward = get_object_or_404(Steward, pk=pk)
    confirm = request.POST.get("decision") == "confirm"
    try:
        services.steward_invitation_decide(steward, request.user, confirm=confirm, note=request.POST.get("note", ""))
        messages.success(request, f"{steward.user.get_username()} is {'now a steward' if confirm else 'not added'}.")
    except ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("registry:stewardship_queue")
