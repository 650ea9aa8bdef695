"""Sign-in providers (OpenID Connect) read from the environment, for ``registry.settings``.

Apart from the settings module only to keep it small; it reads the environment and imports no Django
but its configuration error. Tests configure a local provider with ``identity_provider_apps``.
"""

from __future__ import annotations

import json
import os

from django.core.exceptions import ImproperlyConfigured


def identity_providers() -> list[dict]:
    """OpenID Connect providers to sign in with, from the environment (docs/stewardship.md).

    ORCID (REGISTRY_ORCID_CLIENT_ID / REGISTRY_ORCID_SECRET, REGISTRY_ORCID_URL for the sandbox)
    is an OpenID Connect provider whose subject is the ORCID iD; REGISTRY_OIDC_PROVIDERS adds others
    as a JSON list of {"id", "name", "url", "client_id", "secret"}.
    """
    providers = []
    if os.environ.get("REGISTRY_ORCID_CLIENT_ID"):
        providers.append(
            {
                "id": "orcid",
                "name": "ORCID",
                "client_id": os.environ["REGISTRY_ORCID_CLIENT_ID"],
                "secret": os.environ.get("REGISTRY_ORCID_SECRET", ""),
                "url": os.environ.get("REGISTRY_ORCID_URL", "https://orcid.org"),
            }
        )
    try:
        extra = json.loads(os.environ.get("REGISTRY_OIDC_PROVIDERS", "") or "[]")
        if not isinstance(extra, list) or not all(
            isinstance(p, dict) and {"id", "name", "url", "client_id"} <= set(p) for p in extra
        ):
            raise ValueError("a JSON list of objects with id, name, url, client_id (and secret)")
    except ValueError as exc:
        raise ImproperlyConfigured(f"REGISTRY_OIDC_PROVIDERS must be {exc}; see docs/stewardship.md.") from None
    return providers + extra


def identity_provider_apps(providers: list[dict]) -> dict:
    """allauth's SOCIALACCOUNT_PROVIDERS for ``providers`` (tests configure a local provider with it)."""
    return {
        "openid_connect": {
            "OAUTH_PKCE_ENABLED": True,
            "APPS": [
                {
                    "provider_id": p["id"],
                    "name": p["name"],
                    "client_id": p["client_id"],
                    "secret": p.get("secret", ""),
                    "settings": {"server_url": p["url"], "fetch_userinfo": True},
                }
                for p in providers
            ],
        }
    }
