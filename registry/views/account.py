"""The signed-in person's account page (/accounts/): what the registry holds about them, their public name
and address, the download of it all, and closing the account. Editors have the same page for themselves.

The writes are registry.people's; a GET never changes anything (the address link shows a button).
"""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from .. import people
from ..errors import ServiceError
from ..forms.accounts import AccountAddressForm, AccountCloseForm, AccountNameForm
from ..middleware import client_address
from .accounts import rate_exceeded


def _page(request, *, name_form=None, address_form=None, status=200):
    context = {
        "facts": people.account_facts(request.user),
        "name_form": name_form or AccountNameForm(initial={"public_name": people.public_name(request.user)}),
        "address_form": address_form or AccountAddressForm(),
        "close_refusal": people.close_refusal(request.user),
    }
    return render(request, "registration/account.html", context, status=status)


@login_required
def account(request):
    return _page(request)


@require_POST
@login_required
def account_name(request):
    form = AccountNameForm(request.POST)
    if form.is_valid():
        try:
            name = people.person_public_name(request.user, form.cleaned_data["public_name"])
        except ServiceError as exc:
            form.add_error("public_name", exc.message)
        else:
            messages.success(request, f"Pages now name you “{name}”." if name else "You have no public name now.")
            return redirect("registry:account")
    return _page(request, name_form=form, status=400)


@require_POST
@login_required
def account_address(request):
    form = AccountAddressForm(request.POST)
    if form.is_valid():
        if rate_exceeded("address-change", str(request.user.pk), settings.PASSWORD_RESET_RATE_PER_EMAIL) or (
            rate_exceeded("address-change-addr", client_address(request), settings.SIGNUP_RATE_PER_ADDRESS)
        ):
            form.add_error(None, "Too many address changes were asked for. Try again in an hour.")
            return _page(request, address_form=form, status=429)
        address = form.cleaned_data["email"]
        people.address_change_request(
            request.user,
            address,
            link_for=lambda token: settings.SITE_URL + reverse("registry:account_address_confirm", args=[token]),
        )
        messages.success(
            request,
            f"We have mailed a link to {address}. Your address changes when you follow it; until then mails "
            "keep going to the one you have now.",
        )
        return redirect("registry:account")
    return _page(request, address_form=form, status=400)


def account_address_confirm(request, token):
    """The link mailed to a new address: GET shows what it will do, POST does it."""
    found = people.address_change_read(token)
    if found is None:
        return render(request, "registration/account_address_confirm.html", {"valid": False}, status=400)
    person, address = found
    if request.method == "POST":
        people.address_change(person, address)
        messages.success(request, f"Your address is now {address}, confirmed.")
        return redirect("registry:account" if request.user.pk == person.pk else "login")
    context = {"valid": True, "account": person, "address": address}
    return render(request, "registration/account_address_confirm.html", context)


@login_required
def account_data(request):
    """Everything the registry holds about the signed-in person, as a JSON file."""
    body = json.dumps(people.person_data(request.user), ensure_ascii=False, indent=2) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    stamp = timezone.now().strftime("%Y-%m-%d")
    response["Content-Disposition"] = f'attachment; filename="urn-ogf-account-{stamp}.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
def account_close(request):
    """GET: what closing keeps and removes, and the confirmation; POST: close, sign out, say so."""
    form = AccountCloseForm(request.POST or None, user=request.user)
    refusal = people.close_refusal(request.user)
    if request.method == "POST" and refusal is None and form.is_valid():
        name = people.public_name(request.user)
        people.account_close(request.user)
        logout(request)
        return render(request, "registration/account_closed.html", {"name": name})
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "facts": people.account_facts(request.user), "refusal": refusal}
    return render(request, "registration/account_close.html", context, status=status)
