"""One source per fact: what an SNID's page shows is what its downloads say, and the list filter, the header
box and the lookup page answer a URN from the same lookup."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape

import pytest
from django.core.cache import cache

from registry.lookup import registry_invalidate
from registry.models import Namespace
from registry.stewardship import services as stewardship

from ..factories import proposal_factory, user_factory

URN = "urn:ogf:example:cluster:2009:example.net:42"


def _words(response) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


@pytest.fixture
def changed(db, django_capture_on_commit_callbacks):
    """urn:ogf:example: approved, then its public contact changed at a steward's request."""
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    proposal_factory(steward, state="approved", editor=editor)
    namespace = Namespace.objects.get(snid="example")
    request = stewardship.change_request_create(
        namespace, "contact", {"registrant_public_contact": "urn-desk@example.net"}, steward, reason="A role address."
    )
    stewardship.change_request_decide(request, editor, approve=True)
    cache.clear()
    registry_invalidate()
    return namespace


@pytest.mark.django_db
def test_every_fact_the_page_shows_is_in_the_markdown_the_json_and_the_xml(client, changed):
    page = _words(client.get("/urn/example/"))
    facts = {
        "title": "Example-URN: supercomputers and clusters (the GFD.191 worked example)",
        "organisation": "Grid Lookup Organisation (fictional, from the GFD.191 example)",
        "contact": "urn-desk@example.net",
        "document": "GFD.191",
    }
    for name, value in facts.items():
        assert value in page, name
    markdown = client.get("/urn/example/1/registration.md").content.decode()
    registrant = markdown[markdown.index("1.3") :]
    registrant = registrant[: registrant.index("\n#")]
    assert f"Organisation: {facts['organisation']}" in registrant
    assert f"Public contact: {facts['contact']}" in registrant
    assert facts["title"] in markdown and facts["document"] in markdown
    record = next(r for r in client.get("/urn/registry.json").json()["snids"] if r["snid"] == "example")
    assert (record["title"], record["registrant"]["organisation"], record["registrant"]["contact"]) == (
        facts["title"],
        facts["organisation"],
        facts["contact"],
    )
    assert record["document"]["reference"] == facts["document"]
    xml = ET.fromstring(client.get("/urn/registry.xml").content)
    text = " ".join(t.strip() for t in xml.itertext() if t.strip())
    for name, value in facts.items():
        assert value in text, name


@pytest.mark.django_db
def test_the_exported_public_contact_is_read_back_by_the_importer(changed):
    from registry.documents import document_export, document_import

    proposal = changed.current
    proposal.registrant_public_contact = "urn-desk@example.net"
    imported = document_import(document_export(proposal.public_copy().to_data()))
    assert imported.data.registrant.public_contact == "urn-desk@example.net"
    assert imported.data.registrant.organisation == proposal.registrant_organisation


@pytest.mark.django_db
def test_the_list_filter_finds_a_urn_as_the_lookup_does(client, db):
    proposal_factory(state="approved")
    proposal_factory(state="approved", snid="other")
    registry_invalidate()
    listed = client.get("/urn/", {"q": URN})
    words = _words(listed)
    assert "No registered SNID matches" not in words
    assert f"{URN} is valid ; its SNID example is registered ." in words
    rows = re.findall(r'<td data-label="SNID">(.*?)</td>', listed.content.decode())
    assert len(rows) == 1 and "urn:ogf:example:" in rows[0]
    # The header's box and the lookup page say the same of it.
    box = client.get("/urn/search/", {"q": URN}, follow=True)
    assert f"{URN} is valid ; its SNID example is registered ." in _words(box)
    unknown = _words(client.get("/urn/", {"q": "urn:ogf:nowhere:1"}))
    assert "is not a registered SNID" in unknown and "The SNID of this URN is not registered." in unknown


@pytest.mark.django_db
def test_the_lookup_page_tells_a_deprecation_as_the_api_does(client, db):
    editor = user_factory("editor", editor=True)
    old = proposal_factory(state="approved", editor=editor).namespace
    proposal_factory(state="approved", editor=editor, snid="successor")
    stewardship.snid_deprecate(old, user_factory("other", editor=True), reason="Old.", successor="successor")
    registry_invalidate()
    cache.clear()
    api = client.get("/api/lookup/", {"urn": URN}).json()["registration"]
    assert (api["status"], api["successor"]) == ("deprecated", "successor")
    for response in (client.get("/urn/search/", {"urn": URN}), client.get("/urn/search/", {"q": URN}, follow=True)):
        words = _words(response)
        assert "its SNID example is registered but deprecated , superseded by urn:ogf:successor: ." in words
        assert "new identifiers should use urn:ogf:successor: ." in words
