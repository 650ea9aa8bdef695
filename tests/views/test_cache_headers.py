"""Cache headers of public pages, exports and lookups: strong ETags tied to the registry
stamp, Cache-Control, Vary only where needed, 304 on a matching If-None-Match."""

import pytest

from registry import services

from ..factories import proposal_factory, user_factory

PAGES = [
    "/urn/",
    "/urn/example/",
    "/urn/example/1/",
    "/urn/search/?urn=urn:ogf:example:a:1:b:2",
    "/urn/example/diff/",
    "/urn/feed.atom",
]
LOOKUP = "/api/lookup/?urn=urn:ogf:example:cluster:2009:example.net:42"


@pytest.fixture
def registered(db):
    return proposal_factory(state="approved")


def strong(etag: str) -> bool:
    return etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGES)
def test_public_pages_carry_a_strong_etag_and_answer_304(client, registered, path):
    first = client.get(path)
    assert first.status_code == 200
    assert strong(first["ETag"])
    assert first["Cache-Control"] == "public, max-age=60"
    assert first["Vary"] == "Cookie"
    again = client.get(path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert (again.status_code, again.content) == (304, b"")
    assert (again["ETag"], again["Cache-Control"]) == (first["ETag"], first["Cache-Control"])
    assert client.get(path, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200


@pytest.mark.django_db
def test_an_approval_changes_every_etag(client, registered, django_capture_on_commit_callbacks):
    before = {path: client.get(path)["ETag"] for path in PAGES + [LOOKUP]}
    proposal = proposal_factory(name="fdc", state="submitted")
    with django_capture_on_commit_callbacks(execute=True):
        services.proposal_transition(proposal, "approve", user_factory(editor=True), override_reason="Tests.")
    for path, etag in before.items():
        response = client.get(path, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 200, path
        assert response["ETag"] != etag


@pytest.mark.django_db
def test_pages_for_logged_in_users_are_never_shared(client, registered):
    client.force_login(user_factory())
    response = client.get("/urn/")
    assert "ETag" not in response
    assert "public" not in response.get("Cache-Control", "")
    assert "Cookie" in response["Vary"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/urn/registry.json", "/urn/registry.csv", "/urn/registry.xml"])
def test_exports_carry_a_strong_etag_and_answer_304(client, registered, path):
    first = client.get(path)
    assert strong(first["ETag"]) and first["Cache-Control"] == "public, max-age=300"
    assert client.get(path, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


@pytest.mark.django_db
def test_lookups_vary_only_on_origin_never_on_cookies(client, registered):
    client.force_login(user_factory())  # a session cookie must not split a proxy's cache
    response = client.get(LOOKUP)
    assert strong(response["ETag"]) and response["Cache-Control"] == "public, max-age=60"
    assert response["Vary"] == "origin"
    assert "Set-Cookie" not in response
    assert client.get(LOOKUP, HTTP_IF_NONE_MATCH=f"W/{response['ETag']}").status_code == 304


@pytest.mark.django_db
def test_api_reads_carry_etags_and_answer_304(client, registered):
    for path in ("/api/snids/", "/api/snids/example/", "/api/snids/example/versions/1/"):
        first = client.get(path)
        assert strong(first["ETag"]) and first["Cache-Control"] == "public, max-age=60"
        assert client.get(path, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
