"""Pages of an SNID's life after approval: the stewardship page, and what its stewards ask for.

``/urn/<snid>/stewardship/`` is for the SNID's stewards and the editors (``rules.can_see_stewardship``):
stewards ask for changes (a deprecation too) and invite, editors add or remove stewards and
deprecate (``stewardship.decisions``). Every step is confirmed first, as a review decision is:
its page (GET) has the form, starting from what stands; sending it (POST) shows what it will
change — the values side by side, what becomes public, what the log records and who is told —
and only the confirmation (``confirm=yes``) calls the service. A refusal comes back on the form
with everything typed kept; a step overtaken by another is a 409 page.

The confirmation page carries a token of what it showed (``views.seen``): the step is taken only
when the page, built again from what stands at the moment of confirming, gives the same token. A
POST that skipped the page, or came after what it said moved on (another steward was added, the
request was decided, the deprecation's chain changed), changes nothing and shows the page anew.
"""

from __future__ import annotations

from dataclasses import asdict
from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from .. import rules
from ..errors import Conflict, NotAllowed, ServiceError
from ..models import Namespace
from ..stewardship import outcomes, services
from ..stewardship.changes import CHANGE_KINDS, in_force_prefetch, kinds_offered
from ..stewardship.facts import bases_of, facts_of, request_facts
from ..stewardship.forms import (
    ChangeRequestReasonForm,
    DeprecateForm,
    InviteForm,
    OrcidDisplayForm,
    PublicNameForm,
    StewardAddForm,
)
from ..stewardship.models import Steward
from ..stewardship.selectors import (
    change_requests_pending,
    deprecation_of,
    full_history,
    orcid_of,
    person,
    public_name,
    stewards_active,
    stewards_invited,
    successor_chain,
)
from .errors import NextStep, error_page, forbidden
from .seen import seen_token

#: Said on a confirmation page shown again because its POST did not come from it as things stand.
NOT_SEEN = (
    "Nothing was done: this page has changed since it was shown (or it was not shown). Read what will "
    "happen now, then confirm."
)


def _namespace(snid: str) -> Namespace:
    namespace = Namespace.objects.by_snid(snid).select_related("current").first()
    if namespace is None or namespace.status != "registered" or namespace.current_id is None:
        raise Http404(f"urn:ogf:{snid[:40]}: is not a registered SNID.")
    return namespace


def page(rule=rules.can_see_stewardship, refusal: str = ""):
    """Views of one SNID for those ``rule`` allows; anonymous readers sign in first."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, snid, *args, **kwargs):
            namespace = _namespace(snid)
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not rule(request.user, namespace):
                return forbidden(
                    request,
                    (
                        refusal
                        or "Only the stewards of urn:ogf:{snid}: and the GFD editors "
                        "can manage it. Its public page shows who its stewards are."
                    ).format(snid=namespace.snid),
                )
            return view(request, namespace, *args, **kwargs)

        return wrapper

    return decorate


STEWARDS_ONLY = "Only the stewards of urn:ogf:{snid}: can ask for changes or invite stewards."
EDITORS_ONLY = (
    "Only a GFD editor who is not a steward of urn:ogf:{snid}: can add or remove its stewards or deprecate it."
)


# --- the two pages every step goes through ----------------------------------------------------------


def form_page(
    request,
    namespace,
    *,
    title: str,
    lead: str,
    forms,
    outcome,
    button: str,
    errors=(),
    status: int = 200,
    details=None,
):
    """A step's form, filled with what was typed (or what stands), what went wrong, and what it will do."""
    return render(
        request,
        "registry/stewardship/form.html",
        {
            "namespace": namespace,
            "title": title,
            "lead": lead,
            "forms": forms,
            "outcome": outcome,
            "button": button,
            "errors": list(errors),
            "details": details or [],
            "cancel": _stewardship_url(namespace),
        },
        status=status,
    )


def confirm_page(
    request,
    namespace,
    *,
    title: str,
    lead: str,
    outcome,
    button: str,
    hidden=(),
    forms=(),
    facts=None,
    details=None,
    danger: bool = False,
    editable: bool = True,
    errors=(),
    status: int = 200,
    cancel: str = "",
    extra=None,
):
    """What the step will do, and the button that does it; ``hidden``: what the form sent, sent again.

    The response carries ``seen``, the token of what the page says (title, lead, facts, details, outcome
    and what it sends again), also in its form: ``confirmed`` compares the two."""
    seen = seen_token(
        request.user,
        request.path,
        namespace.snid,
        title,
        lead,
        list(hidden),
        _said(facts),
        details or [],
        asdict(outcome),
    )
    response = render(
        request,
        "registry/stewardship/confirm.html",
        {
            "namespace": namespace,
            "title": title,
            "lead": lead,
            "outcome": outcome,
            "button": button,
            "hidden": list(hidden),
            "forms": forms,
            "facts": facts,
            "details": details or [],
            "danger": danger,
            "editable": editable,
            "errors": list(errors),
            "cancel": cancel or _stewardship_url(namespace),
            "seen": seen,
            **(extra or {}),
        },
        status=status,
    )
    response.seen = seen
    return response


def _said(facts) -> list | None:
    """What a page shows of a change's facts, as plain values (their kind holds functions, whose
    names differ from one worker process to the next)."""
    if facts is None:
        return None
    rows = [[(row.resolver, row.fate) for row in rows or []] for rows in (facts.resolvers_now, facts.resolvers_asked)]
    return [facts.kind.name, [(f.key, f.current, f.requested) for f in facts.fields], rows, facts.moved]


def confirmed(request, shown) -> bool:
    """Whether this POST was sent from the confirmation page ``shown`` (built again from what stands now)."""
    from django.utils.crypto import constant_time_compare

    return bool(request.POST.get("seen")) and constant_time_compare(request.POST["seen"], shown.seen)


def hidden_of(request, forms) -> list[tuple[str, str]]:
    """The forms' fields as they were sent: carried by the confirmation page, checked again on confirming."""
    return [
        (form.add_prefix(name), request.POST.get(form.add_prefix(name), "")) for form in forms for name in form.fields
    ]


def _stewardship_url(namespace) -> str:
    from django.urls import reverse

    return reverse("registry:stewardship", args=[namespace.snid])


def acted(request, call, success: str, *, again, back: str):
    """Call the service; on success say so where the person came from. Refusals: 403, 409 (the step was
    overtaken), or the form again with the reason and what was typed (``again(errors)``)."""
    try:
        call()
    except NotAllowed as exc:
        return forbidden(request, exc.message, [NextStep("Back", back)])
    except Conflict as exc:
        return error_page(request, 409, "This has moved on", exc.message, [NextStep("Look at it again", back)])
    except ServiceError as exc:
        return again([exc.message])
    messages.success(request, success)
    return redirect(back)


def acted_once_confirmed(request, form, call, success: str, *, again, back: str):
    """A confirmation page's two visits: the GET (``form`` unbound) shows it; a POST sent from that page
    as things stand (``confirmed``) whose form is valid acts (``acted``); one whose form is not valid
    shows the page again with the form's errors, one not sent from the page (or after it changed)
    with ``NOT_SEEN``, as a 409."""
    if not form.is_bound:
        return again(status=200)
    if not confirmed(request, again(status=200)):
        return again([NOT_SEEN], status=409)
    if not form.is_valid():
        return again()
    return acted(request, call, success, again=again, back=back)


def act_when_confirmed(request, confirmation, call, success: str, *, again, back: str):
    """A form's second step: without ``confirm=yes`` its confirmation page (``confirmation(errors, status)``);
    with it, the step (``acted``) — only when the POST was sent from that page as things stand
    (``confirmed``), else the page again with ``NOT_SEEN``, as a 409."""
    if request.POST.get("confirm") != "yes":
        return confirmation()
    if not confirmed(request, confirmation()):
        return confirmation([NOT_SEEN], status=409)
    return acted(request, call, success, again=again, back=back)


def reason_form(kind, data=None) -> ChangeRequestReasonForm:
    form = ChangeRequestReasonForm(data=data, prefix=kind.name)
    form.fields["reason"].label = kind.reason_label
    return form


# --- the stewardship page ------------------------------------------------------------------------


@page()
def stewardship(request, namespace):
    user = request.user
    is_steward = rules.is_steward(user, namespace)
    deprecation = deprecation_of(namespace)
    in_force_prefetch([namespace])
    kinds = [
        {
            "kind": kind,
            "form": kind.form(initial=kind.initial(kind.current(namespace)), prefix=kind.name),
            "reason": reason_form(kind),
        }
        for kind in kinds_offered()
        if not (kind.name == "deprecation" and deprecation is not None)
    ]
    requests = list(change_requests_pending(namespace))
    bases = bases_of(requests)
    for item in requests:
        item.namespace = namespace
        item.facts = request_facts(item, base=bases.get(item.pk))
    own = Steward.objects.filter(namespace=namespace, user=user, state="active").first()
    context = {
        "namespace": namespace,
        "is_steward": is_steward,
        "can_decide": rules.can_decide_for_snid(user, namespace),
        "stewards": _of(namespace, stewards_active(namespace)),
        "invited": _of(namespace, stewards_invited(namespace)),
        "requests": requests,
        "history": full_history(namespace),
        "kinds": kinds,
        "deprecation": deprecation,
        "chain": successor_chain(namespace) if deprecation is not None else None,
        "own": own,
        "own_orcid": orcid_of(user) if own else "",
        "name_form": PublicNameForm(initial={"public_name": public_name(user)}, prefix="name"),
        "orcid_form": OrcidDisplayForm(prefix="orcid"),
        "invite_form": InviteForm(prefix="invite"),
        "add_form": StewardAddForm(prefix="add"),
        "deprecate_form": DeprecateForm(prefix="deprecate"),
    }
    with rules.stewardships_remembered(user):  # the page asks the rules once per steward listed
        return render(request, "registry/stewardship/page.html", context)


def _of(namespace, stewards: list) -> list:
    """The stewardships with the page's namespace (the rules read it for each one listed)."""
    for steward in stewards:
        steward.namespace = namespace
    return stewards


@page(rules.can_request_change, STEWARDS_ONLY)
def change_request(request, namespace, kind):
    """A steward's request: the form starts from what stands; sending it previews the change; confirming
    sends it to the editors."""
    change = CHANGE_KINDS.get(kind)
    if change is None or not change.available():
        raise Http404("No such kind of change.")
    data = request.POST if request.method == "POST" else None
    now = change.current(namespace)
    form = change.form(data=data, initial=change.initial(now), prefix=kind)
    why = reason_form(change, data)
    outcome = outcomes.change_requested(namespace, change, request.user)
    asking = "Ask for a deprecation" if change.name == "deprecation" else f"Ask to change the {change.what}"
    title = f"{asking} of urn:ogf:{namespace.snid}:"

    def again(errors=(), status=400):
        return form_page(
            request,
            namespace,
            title=title,
            lead=_lead(change),
            forms=[form, why],
            outcome=outcome,
            button="Show what will change",
            errors=errors,
            status=status,
        )

    if data is None or "edit" in data:
        return again(status=200)
    if not (form.is_valid() and why.is_valid()):
        return again()
    raw = {name: data.get(form.add_prefix(name), "") for name in change.form.base_fields}
    try:
        change, cleaned, reason = services.change_request_check(
            namespace, kind, raw, request.user, reason=why.cleaned_data["reason"]
        )
    except NotAllowed as exc:
        return forbidden(request, exc.message)
    except ServiceError as exc:
        return again([exc.message])

    def confirmation(errors=(), status=200):
        return confirm_page(
            request,
            namespace,
            title=f"Check your request: {asking.lower()}",
            lead=("Nothing is sent yet. This is what you ask for, beside what stands now; an editor will see it so."),
            outcome=outcomes.change_requested(namespace, change, request.user, cleaned),
            button="Send the request",
            hidden=hidden_of(request, [form, why]),
            facts=facts_of(change, now, cleaned),
            details=[("Why", reason)],
            errors=errors,
            status=status,
        )

    return act_when_confirmed(
        request,
        confirmation,
        lambda: services.change_request_create(namespace, kind, raw, request.user, reason=reason),
        f"Your request is sent: {_asked(change)}; an editor will approve or decline it, and you and "
        "the other stewards will be told by e-mail.",
        again=again,
        back=_stewardship_url(namespace),
    )


def _lead(change) -> str:
    if change.name == "resolvers":
        return (
            "The lines below are the SNID's resolvers as they stand. Change, add or remove lines so that they "
            "list every resolver as it should be: an approved request replaces the resolvers with exactly "
            "these lines."
        )
    if change.name == "deprecation":
        return (
            "A deprecated SNID stays registered and its URNs stay valid, but it should no longer be used for "
            "new identifiers; it is never reassigned or registered again. An editor decides."
        )
    return "The form starts from the values in force. An editor decides; the approved version itself never changes."


def _asked(change) -> str:
    return "a deprecation of the SNID" if change.name == "deprecation" else f"a change of the {change.what}"


def account_step(
    request, namespace, action: str, form_class, *, title: str, lead: str, confirm: str, button: str, done: str
):
    """A step that names an account — a steward's invitation, an editor's addition: its form, then what it
    will do (``confirm``, ``done``: sentences with {person} and {snid}), then the step itself."""
    data = request.POST if request.method == "POST" else None
    form = form_class(data=data, prefix=action)

    def again(errors=(), status=400):
        return form_page(
            request,
            namespace,
            title=title,
            lead=lead,
            forms=[form],
            outcome=outcomes.steward_form(namespace, action, request.user),
            button="Show what will happen",
            errors=errors,
            status=status,
        )

    if data is None or "edit" in data:
        return again(status=200)
    if not form.is_valid():
        return again()
    user, reason = form.cleaned_data["user"], form.cleaned_data["reason"]
    try:
        services.steward_check(namespace, action, request.user, user=user)
    except ServiceError as exc:
        return again([exc.message])
    words = {"person": person(user), "snid": namespace.snid}

    def confirmation(errors=(), status=200):
        inviter = request.user if action == "invite" else None
        return confirm_page(
            request,
            namespace,
            title=confirm.format(**words),
            lead=lead,
            outcome=outcomes.steward_outcome(namespace, action, user, inviter=inviter),
            button=button,
            hidden=hidden_of(request, [form]),
            details=_person_details(user) + [(form.fields["reason"].label, reason)],
            errors=errors,
            status=status,
        )

    return act_when_confirmed(
        request,
        confirmation,
        lambda: services.steward_transition(namespace, action, request.user, user=user, reason=reason),
        done.format(**words),
        again=again,
        back=_stewardship_url(namespace),
    )


@page(rules.can_request_change, STEWARDS_ONLY)
def steward_invite(request, namespace):
    """A steward invites another account; an editor confirms or declines (``decisions.invitation_decide``)."""
    return account_step(
        request,
        namespace,
        "invite",
        InviteForm,
        title=f"Invite a steward of urn:ogf:{namespace.snid}:",
        lead="The person you invite acts for the SNID as you do once an editor confirms the invitation.",
        confirm="Confirm: invite {person}",
        button="Send the invitation",
        done="{person} is invited; an editor will confirm or decline the invitation, and everyone concerned is "
        "told by e-mail.",
    )


def _person_details(user) -> list[tuple[str, str]]:
    details = [("Account", person(user))]
    orcid = orcid_of(user)
    if orcid:
        details.append(("ORCID iD (verified)", orcid))
    return details


@require_POST
@page(rules.can_request_change, STEWARDS_ONLY)
def steward_orcid(request, namespace):
    steward = Steward.objects.filter(namespace=namespace, user=request.user, state="active").first()
    if steward is None:
        return forbidden(request, "Only a steward chooses what is shown beside their own name.")
    show = request.POST.get("orcid-show_orcid") == "on" or request.POST.get("show_orcid") == "on"
    services.steward_show_orcid(steward, request.user, show)
    messages.success(
        request, "Your ORCID iD is shown beside your name." if show else "Your ORCID iD is no longer shown."
    )
    return redirect("registry:stewardship", namespace.snid)


@require_POST
@page(rules.can_request_change, STEWARDS_ONLY)
def steward_name(request, namespace):
    """A steward chooses the name public pages give them (never their login name)."""
    form = PublicNameForm(request.POST, prefix="name")
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect("registry:stewardship", namespace.snid)
    try:
        services.steward_public_name(request.user, form.cleaned_data["public_name"])
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("registry:stewardship", namespace.snid)
    name = public_name(request.user)
    messages.success(
        request,
        f"Public pages now name you “{name}”." if name else "Public pages now list you as a steward without a name.",
    )
    return redirect("registry:stewardship", namespace.snid)
