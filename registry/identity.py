"""Sign-in with ORCID and other OpenID Connect providers (django-allauth), beside local accounts.

Local accounts keep their own sign-up (confirmed by a mailed link, registry.views.accounts) and
log-in (limited by django-axes); allauth only handles the round trip to an identity provider. A
new identity signs up on its own (the provider vouches for it); a signed-in user may link an
identity to the account they have. An ORCID iD linked this way is *verified*: the registry saw
ORCID say so, and a steward may choose to show it beside their name (registry.stewardship).
Providers are configured by environment variables (settings.identity_provider_apps).
"""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.conf import settings
from django.urls import reverse


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        """allauth's own sign-up form is never used: local accounts sign up at /accounts/signup/."""
        return False

    def get_login_redirect_url(self, request) -> str:
        return reverse("registry:proposal_list")


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin) -> bool:
        return True

    def is_auto_signup_allowed(self, request, sociallogin) -> bool:
        return True

    def get_connect_redirect_url(self, request, socialaccount) -> str:
        return reverse("registry:identities")


def identity_providers() -> list[dict]:
    """The configured providers as pages list them: id, name and where a sign-in starts."""
    apps = settings.SOCIALACCOUNT_PROVIDERS.get("openid_connect", {}).get("APPS", [])
    return [{"id": app["provider_id"], "name": app["name"],
             "login_url": reverse("openid_connect_login", args=[app["provider_id"]])} for app in apps]


def linked_identities(user) -> list[dict]:
    from allauth.socialaccount.models import SocialAccount

    names = {p["id"]: p["name"] for p in identity_providers()}
    return [{"provider": names.get(a.provider, a.provider), "provider_id": a.provider, "uid": a.uid}
            for a in SocialAccount.objects.filter(user=user).order_by("provider", "uid")]
