"""Sign-in providers from the environment (registry/oidc_settings.py): ORCID by its two variables,
others as a JSON list; a mistake stops the start with what is wrong and where to read about it."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from registry.oidc_settings import identity_provider_apps, identity_providers

EXTRA = '[{"id": "egi", "name": "EGI Check-in", "url": "https://aai.example.org", "client_id": "c"}]'


def test_no_provider_is_configured_by_default(monkeypatch):
    for name in ("REGISTRY_ORCID_CLIENT_ID", "REGISTRY_OIDC_PROVIDERS"):
        monkeypatch.delenv(name, raising=False)
    assert identity_providers() == []
    assert identity_provider_apps([])["openid_connect"]["APPS"] == []


def test_orcid_and_the_listed_providers_are_offered_in_that_order(monkeypatch):
    monkeypatch.setenv("REGISTRY_ORCID_CLIENT_ID", "APP-1")
    monkeypatch.setenv("REGISTRY_ORCID_SECRET", "s")
    monkeypatch.setenv("REGISTRY_OIDC_PROVIDERS", EXTRA)
    providers = identity_providers()
    assert [(p["id"], p["url"]) for p in providers] == [
        ("orcid", "https://orcid.org"),
        ("egi", "https://aai.example.org"),
    ]
    (orcid, egi) = identity_provider_apps(providers)["openid_connect"]["APPS"]
    assert (orcid["client_id"], orcid["secret"], egi["secret"]) == ("APP-1", "s", "")
    assert egi["settings"] == {"server_url": "https://aai.example.org", "fetch_userinfo": True}


@pytest.mark.parametrize("value", ["{", '{"id": "x"}', '[{"id": "x", "name": "X"}]'])
def test_a_malformed_provider_list_says_what_it_must_be(monkeypatch, value):
    monkeypatch.delenv("REGISTRY_ORCID_CLIENT_ID", raising=False)
    monkeypatch.setenv("REGISTRY_OIDC_PROVIDERS", value)
    with pytest.raises(ImproperlyConfigured, match="REGISTRY_OIDC_PROVIDERS must be .*; see docs/stewardship.md"):
        identity_providers()
