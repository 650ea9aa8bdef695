"""``/api/``: an HTML page for a browser, a JSON index for a client, both listing every endpoint."""

from __future__ import annotations

import re

import pytest
from drf_spectacular.generators import SchemaGenerator

from registry.api.index import ENDPOINTS

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def _template(path: str) -> str:
    """'/api/snids/{snid}/versions/{n}/' and '/api/lookup/?urn=…' as the schema writes paths."""
    return re.sub(r"\{[a-z]+\}", "{}", path.split("?")[0])


@pytest.mark.django_db
def test_a_browser_gets_a_page_with_a_title_a_language_a_main_landmark_and_the_links(client):
    response = client.get("/api/", HTTP_ACCEPT=BROWSER)
    page = response.content.decode()
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert "<title>The JSON API — urn:ogf registry</title>" in page and '<html lang="en">' in page
    assert '<main id="main">' in page and 'href="/api/docs/"' in page and 'href="/api/schema/"' in page
    for endpoint in ENDPOINTS:
        assert endpoint.path.replace("&", "&amp;") in page
    assert "Accept" in response["Vary"]


@pytest.mark.django_db
@pytest.mark.parametrize("accept", ["*/*", "application/json", None])
def test_a_client_gets_the_index_as_json(client, settings, accept):
    response = client.get("/api/", **({"HTTP_ACCEPT": accept} if accept else {}))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    index = response.json()
    assert index["docs"] == f"{settings.SITE_URL}/api/docs/"
    assert [e["path"] for e in index["endpoints"]] == [e.path for e in ENDPOINTS]


@pytest.mark.django_db
def test_every_example_the_index_links_answers(client):
    for endpoint in client.get("/api/").json()["endpoints"]:
        if "example" in endpoint:
            assert (
                client.get(endpoint["example"].split("://", 1)[1].split("/", 1)[1].join(["/", ""])).status_code == 200
            )


@pytest.mark.django_db
def test_the_index_lists_every_documented_endpoint():
    documented = {_template(path) for path in SchemaGenerator().get_schema(request=None, public=True)["paths"]}
    listed = {_template(e.path) for e in ENDPOINTS}
    assert documented == listed
