"""Sign-in with ORCID and other OpenID Connect providers (django-allauth), beside local accounts.

Local accounts keep their own sign-up (confirmed by a mailed link, registry.views.accounts) and
log-in (limited by django-axes); allauth only handles the round trip to an identity provider. A
new identity signs up on its own (the provider vouches for it); a signed-in user may link an
identity to the account they have. An ORCID iD linked this way is *verified*: the registry saw
ORCID say so, and a steward may choose to show it beside their name (registry.stewardship).
Providers are configured by environment variables (settings.identity_provider_apps).

A first sign-in whose provider asserts a *verified* address that an account here already has makes
no second account with it, and never signs that person in to the existing account either (a
provider, or whoever controls an account there, could otherwise take accounts over): the page asks
them to sign in to their account and link the identity from there. An address the provider has not
verified is not kept at all, so it can neither clash nor squat someone's address.
"""

from __future__ import annotations

import secrets

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.providers.base import AuthProcess
from django.conf import settings
from django.db import transaction
from django.shortcuts import render
from django.urls import reverse

from .accounts.models import Account, AccountOrigin
from .accounts.names import email_key, name_taken, users_with_address


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        """allauth's own sign-up form is never used: local accounts sign up at /accounts/signup/."""
        return False

    def get_login_redirect_url(self, request) -> str:
        return reverse("registry:proposal_list")

    def clean_username(self, username: str, shallow: bool = False) -> str:
        """allauth compares names with ``iexact`` (ASCII only on SQLite): the registry's folded rule too."""
        username = super().clean_username(username, shallow=shallow)
        if not shallow and name_taken(username):
            raise self.validation_error("username_taken")
        return username

    def generate_unique_username(self, txts, regex=None) -> str:
        """allauth's choice, unless it is taken once folded ("ſ" is "s"): then with a random suffix."""
        username = super().generate_unique_username(txts, regex)
        while name_taken(username):
            username = super().generate_unique_username([f"{username[:140]}{secrets.token_hex(3)}"], regex)
        return username


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin) -> bool:
        return True

    def is_auto_signup_allowed(self, request, sociallogin) -> bool:
        return True

    def get_connect_redirect_url(self, request, socialaccount) -> str:
        return reverse("registry:identities")

    def pre_social_login(self, request, sociallogin) -> None:
        """Before a first sign-in makes an account: refuse a verified address an account has; drop an
        unverified one. A known identity signing in, and a signed-in user linking one, pass unchanged."""
        if sociallogin.is_existing or sociallogin.state.get("process") == AuthProcess.CONNECT:
            return
        verified = [address for address in sociallogin.email_addresses if address.verified]
        for address in verified:
            if users_with_address(address.email).exists():
                provider = sociallogin.provider.name if sociallogin.provider else "the identity provider"
                raise ImmediateHttpResponse(
                    render(
                        request,
                        "registration/identity_address_taken.html",
                        {"provider": provider, "address": address.email},
                        status=409,
                    )
                )
        sociallogin.email_addresses = verified
        user = sociallogin.user
        if user is not None and email_key(user.email) not in {email_key(a.email) for a in verified}:
            user.email = ""

    def save_user(self, request, sociallogin, form=None):
        """The account and its identity in one transaction, recorded as made by a first sign-in."""
        with transaction.atomic():
            user = super().save_user(request, sociallogin, form)
            Account.objects.filter(user=user).update(origin=AccountOrigin.IDENTITY)
        return user


def identity_providers() -> list[dict]:
    """The configured providers as pages list them: id, name and where a sign-in starts."""
    apps = settings.SOCIALACCOUNT_PROVIDERS.get("openid_connect", {}).get("APPS", [])
    return [
        {
            "id": app["provider_id"],
            "name": app["name"],
            "login_url": reverse("openid_connect_login", args=[app["provider_id"]]),
        }
        for app in apps
    ]


def linked_identities(user) -> list[dict]:
    from allauth.socialaccount.models import SocialAccount

    names = {p["id"]: p["name"] for p in identity_providers()}
    return [
        {"provider": names.get(a.provider, a.provider), "provider_id": a.provider, "uid": a.uid}
        for a in SocialAccount.objects.filter(user=user).order_by("provider", "uid")
    ]
