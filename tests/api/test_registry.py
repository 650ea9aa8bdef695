"""GET /api/snids/..."""

import pytest
from django.conf import settings

from registry import services

from ..factories import user_factory

LIST_KEYS = {"status", "snid", "title", "version", "registration_date", "document", "url", "api_url"}
SITE = settings.SITE_URL


@pytest.mark.django_db
def test_snid_list_contract(client, demo_registry):
    body = client.get("/api/snids/").json()
    assert (body["count"], [r["snid"] for r in body["results"]]) == (2, ["example", "fdc"])
    first = body["results"][0]
    assert set(first) == LIST_KEYS
    assert [r["status"] for r in body["results"]] == ["registered", "deprecated"]  # the demo deprecates fdc
    assert first["document"] == {
        "reference": "GFD.191",
        "url": "https://www.ogf.org/documents/GFD.191.pdf",
        "status": "published",
    }
    assert (first["url"], first["api_url"], first["version"]) == (
        f"{SITE}/urn/example/",
        f"{SITE}/api/snids/example/",
        1,
    )


@pytest.mark.django_db
def test_snid_list_filters_by_text(client, demo_registry):
    assert [r["snid"] for r in client.get("/api/snids/", {"q": "federated"}).json()["results"]] == ["fdc"]


def _queries(client, path) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from registry.transparency.log import log_published_forget

    log_published_forget()  # the published checkpoint is read again, as on a worker's first request
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


@pytest.mark.django_db
def test_snid_list_query_count_is_constant(client):
    from ..factories import proposal_factory

    for index in range(2):
        proposal_factory(state="approved", snid=f"few{index}")
    few = _queries(client, "/api/snids/")
    for index in range(10):
        proposal_factory(state="approved", snid=f"many{index}")
    from registry.lookup import registry_invalidate

    registry_invalidate()
    assert _queries(client, "/api/snids/") == few <= 5  # with the published checkpoint, read once per worker


@pytest.mark.django_db
def test_snid_detail_has_every_section_and_the_versions(client, demo_registry):
    body = client.get("/api/snids/EXAMPLE/").json()
    assert (body["snid"], body["status"], body["url"]) == ("example", "registered", f"{SITE}/urn/example/")
    current = body["current"]
    assert set(current["sections"]) >= {
        "syntactic_structure",
        "lexical_equivalence",
        "scope",
        "identifier_assignment",
        "immutability",
    }
    assert current["grammar"]["rule"] == "EXAMPLE-URN"
    assert (current["equivalence"], current["max_length"]) == (["case-insensitive"], 255)
    assert len(current["examples"]["valid"]) == 4
    assert body["versions"] == [
        {
            "version": 1,
            "registration_date": current["registration_date"],
            "api_url": f"{SITE}/api/snids/example/versions/1/",
        }
    ]
    # The demo changed the contact after approval: the SNID shows it, the version stays as approved.
    version = client.get("/api/snids/example/versions/1/").json()
    assert current["registrant"]["public_contact"] == "urn-registry@example.org"
    assert version["registrant"]["public_contact"] == "urn@example.net"
    version["registrant"]["public_contact"] = current["registrant"]["public_contact"]
    assert version == current


@pytest.mark.django_db
def test_reserved_snid_has_status_and_no_content(client):
    import datetime as dt

    editor = user_factory(editor=True)
    until = dt.date.today() + dt.timedelta(days=300)
    services.namespace_reserve("nsi", editor, until=until, reason="NSI WG")
    body = client.get("/api/snids/nsi/").json()
    assert body == {
        "snid": "nsi",
        "status": "reserved",
        "deprecation": None,
        "reserved_until": until.isoformat(),
        "current": None,
        "versions": [],
        "url": None,
        "api_url": f"{SITE}/api/snids/nsi/",
    }


@pytest.mark.django_db
def test_unknown_snid_or_version_is_a_json_404_with_suggestions(client, demo_registry):
    response = client.get("/api/snids/exampel/")
    assert response.status_code == 404
    assert response.json()["detail"].endswith("Similar registered SNIDs: example.")
    assert client.get("/api/snids/example/versions/9/").json() == {"detail": "urn:ogf:example: has no version 9."}


@pytest.mark.django_db
def test_pending_snids_never_appear(client, demo_registry):
    assert client.get("/api/snids/img/").status_code == 404
    assert "img" not in str(client.get("/api/snids/").json())


@pytest.mark.django_db
def test_unknown_api_path_with_an_encoded_newline_is_a_json_404(client):
    response = client.get("/api/proposals/%C2%BB%04/actions/%C2%A2%0A/")
    assert (response.status_code, response["Content-Type"]) == (404, "application/json")


@pytest.mark.django_db
def test_snid_detail_shows_resolvers_with_status_and_last_check(client, demo_registry):
    from django.utils import timezone

    from registry.lookup import registry_invalidate
    from registry.resolution.health import ProbeResult, record
    from registry.resolution.models import Resolver

    resolver = Resolver.objects.current().get(namespace__snid="fdc")
    record(
        resolver, ProbeResult(False, "https://fdc.example.org/resolve?urn=x", 503, 120, "HTTP 503"), now=timezone.now()
    )
    registry_invalidate()
    body = client.get("/api/snids/fdc/").json()
    assert body["resolvers"] == [
        {
            "name": "FDC resolver",
            "template": "https://fdc.example.org/resolve?urn={nss}",
            "returns": "landing",
            "media_types": [],
            "primary": True,
            "status": "failing",
            "last_checked_at": Resolver.objects.get(pk=resolver.pk).last_checked_at.isoformat(),
            "last_http_code": 503,
            "last_latency_ms": 120,
            "last_error": "HTTP 503",
        }
    ]
    version = client.get("/api/snids/example/versions/1/").json()
    assert [r["template"] for r in version["resolvers"]] == [
        "https://catalogue.example.net/{DOMAIN}/{INDEX}",
        "https://catalogue.example.net/api/{nss}",
    ]
