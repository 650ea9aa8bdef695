"""The public registry at /urn/: pages, exports, feed."""

import csv
import io
import json
import xml.etree.ElementTree as ET

import feedparser
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from registry import services
from registry.diffs import proposal_diff
from registry.exports import XML_NAMESPACE

from ..factories import data_factory, expired_reservation, proposal_factory, user_factory

OUR_SCRIPT = '<script src="/static/registry/site.js" defer></script>'
PUBLIC_PATHS = ["/urn/", "/urn/registry.json", "/urn/registry.csv", "/urn/registry.xml", "/urn/feed.atom"]


@pytest.fixture
def registry(db):
    """One registered SNID with two versions, plus proposals that must never show."""
    applicant, editor = user_factory("owner"), user_factory(editor=True)
    first = proposal_factory(applicant, state="approved", editor=editor)
    data = data_factory(version=2, title="Example-URN, second edition")
    data.sections["changes"] = "Added a second edition."
    second = services.proposal_create(data, applicant)
    services.proposal_transition(second, "submit", applicant)
    second = services.proposal_transition(second, "approve", editor)
    hidden = {}
    for state in ("draft", "submitted", "changes_requested", "rejected", "withdrawn"):
        hidden[state] = proposal_factory(state=state, snid=f"secret-{state.replace('_', '-')}",
                                         title=f"Hidden {state} title")
    return {"first": first, "second": second, "hidden": hidden}


@pytest.mark.django_db
@pytest.mark.parametrize("path", PUBLIC_PATHS)
def test_unapproved_proposals_never_leak(client, registry, path):
    content = client.get(path).content.decode()
    assert "urn:ogf:example:" in content or "example" in content
    assert "secret-" not in content and "Hidden " not in content


@pytest.mark.django_db
def test_unapproved_snids_have_no_page(client, registry):
    for state in registry["hidden"]:
        response = client.get(f"/urn/secret-{state.replace('_', '-')}/")
        assert response.status_code == 404


@pytest.mark.django_db
def test_list_shows_snid_details_and_filters(client, registry):
    page = client.get("/urn/").content.decode()
    assert "Example-URN, second edition" in page and "GFD.191" in page
    assert 'href="/urn/example/"' not in client.get("/urn/", {"q": "nomatch"}).content.decode()
    assert "Cache-Control" in client.get("/urn/") and "public" in client.get("/urn/")["Cache-Control"]


def _queries(client, path):
    """Queries of a cold render: no cached page, no lookup index."""
    from django.core.cache import cache

    from registry.lookup import registry_invalidate
    cache.clear()
    registry_invalidate()
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/urn/", "/urn/registry.json", "/urn/feed.atom"])
def test_query_count_is_the_same_for_1_and_100_snids(client, path):
    from registry.models import Namespace, Proposal
    applicant = user_factory()
    proposal_factory(applicant, state="approved", snid="snid0")
    one = _queries(client, path)
    # 99 more registered SNIDs, written directly for speed (the services are tested elsewhere)
    template = Proposal.objects.get()
    for index in range(1, 100):
        namespace = Namespace.objects.create(snid=f"snid{index}", status="registered")
        copy = Proposal(**{f.attname: getattr(template, f.attname) for f in Proposal._meta.concrete_fields
                           if f.attname not in ("id", "namespace_id", "snid", "state")})
        copy.snid, copy.namespace, copy.state = f"snid{index}", namespace, "approved"
        copy.save()
        Namespace.objects.filter(pk=namespace.pk).update(current=copy)
    assert _queries(client, path) == one


@pytest.mark.django_db
def test_snid_page_shows_sections_diagrams_examples_and_history(client, registry):
    page = client.get("/urn/example/").content.decode()
    for heading in ("1.1 Namespace Identifier", "2.4 Rules for Lexical Equivalence", "8. Changes from"):
        assert heading in page
    assert page.index("1.1 Namespace Identifier") < page.index("5.2 Identifier Immutability")
    assert page.count('class="railroad-diagram"') == 9  # one per rule of the grammar
    assert "✓ accepts" in page and "✗ rejects" in page
    assert "The whole URN is case-insensitive" in page
    assert "Version 1</a>" in page and "Version 2</a>" in page


@pytest.mark.django_db
def test_snid_routing_is_case_insensitive_with_canonical_redirects(client, registry):
    assert client.get("/urn/EXAMPLE/")["Location"] == "/urn/example/"
    assert client.get("/urn/Example/1/")["Location"] == "/urn/example/1/"
    assert client.get("/urn/example/1/").status_code == 200


@pytest.mark.django_db
def test_earlier_version_is_shown_exactly_as_approved(client, registry):
    page = client.get("/urn/example/1/").content.decode()
    assert "an earlier version" in page
    assert "Example-URN, second edition" not in page


@pytest.mark.django_db
def test_unknown_snid_or_version_is_a_helpful_404(client, registry):
    response = client.get("/urn/exampel/")
    assert response.status_code == 404
    assert 'href="/urn/example/"' in response.content.decode()
    assert client.get("/urn/example/9/").status_code == 404


@pytest.mark.django_db
def test_check_form_validates_against_this_snid(client, registry):
    ok = client.get("/urn/example/", {"urn": "URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42"}).content.decode()
    assert "is <strong>valid</strong>" in ok and "urn:ogf:example:cluster:2009:example.net:42" in ok
    other = client.get("/urn/example/", {"urn": "urn:ogf:fdc:x"}).content.decode()
    assert "is <strong>not valid</strong>" in other


@pytest.mark.django_db
@pytest.mark.parametrize(("urn", "fragment"), [
    ("urn:ogf:example:cluster:2009:example.net:42", "is <strong>valid</strong>"),
    ("urn:ogf:unknown:x", "RFC 6453 §2.12"),
    ("urn:ogf:example:supercomputer:2011:x.org:mark1", "does not match the grammar"),
    ("isbn:123", "is not a urn:ogf: URN"),
])
def test_urn_search(client, registry, urn, fragment):
    assert fragment in client.get("/urn/search/", {"urn": urn}).content.decode()


# --- diffs -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_diff_marks_exactly_the_changed_sections(registry):
    diff = proposal_diff(registry["first"], registry["second"])
    assert [d.section.key for d in diff if d.changed] == ["version", "changes"]
    (changes,) = [d for d in diff if d.section.key == "changes"]
    assert changes.lines == (("+", "Added a second edition."),)


@pytest.mark.django_db
def test_diff_page(client, registry):
    page = client.get("/urn/example/diff/", {"from": 1, "to": 2}).content.decode()
    assert "<ins>+ Added a second edition.</ins>" in page
    assert client.get("/urn/example/diff/", {"from": 1, "to": 7}).status_code == 404


# --- exports and feed --------------------------------------------------------------------------


@pytest.mark.django_db
def test_exports_parse_and_agree(client, registry):
    as_json = json.loads(client.get("/urn/registry.json").content)
    rows = list(csv.DictReader(io.StringIO(client.get("/urn/registry.csv").content.decode())))
    root = ET.fromstring(client.get("/urn/registry.xml").content)
    ns = {"r": XML_NAMESPACE}
    records = root.findall("r:record", ns)
    assert [r["snid"] for r in as_json["snids"]] == [r["snid"] for r in rows] == [
        r.find("r:snid", ns).text for r in records] == ["example"]
    assert as_json["snids"][0]["version"] == int(rows[0]["version"]) == int(records[0].find("r:version", ns).text) == 2
    assert as_json["snids"][0]["grammar"]["abnf"] == records[0].find("r:grammar", ns).text
    assert len(records[0].findall("r:examples/r:valid", ns)) == len(as_json["snids"][0]["examples"]["valid"]) == 4


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/urn/registry.json", "/urn/registry.csv", "/urn/registry.xml"])
def test_exports_answer_conditional_gets_with_304(client, registry, path):
    first = client.get(path)
    assert first["ETag"] and first["Last-Modified"]
    assert client.get(path, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert client.get(path, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 304


@pytest.mark.django_db
def test_csv_cells_never_start_a_formula(client):
    proposal_factory(state="approved", title="=HYPERLINK(\"http://evil\")")
    rows = list(csv.reader(io.StringIO(client.get("/urn/registry.csv").content.decode())))
    assert rows[1][3] == "'=HYPERLINK(\"http://evil\")"


@pytest.mark.django_db
def test_atom_feed_lists_registrations_and_new_versions(client, registry):
    feed = feedparser.parse(client.get("/urn/feed.atom").content)
    assert feed.bozo == 0
    assert [e.title.split(" — ")[0] for e in feed.entries] == ["urn:ogf:example: version 2",
                                                                "urn:ogf:example: registered"]
    assert feed.entries[0].link.endswith("/urn/example/2/")


@pytest.mark.django_db
def test_export_registry_command_matches_the_web_export(client, registry):
    for fmt in ("json", "csv", "xml"):
        out = io.StringIO()
        call_command("export_registry", "--format", fmt, stdout=out)
        assert out.getvalue() == client.get(f"/urn/registry.{fmt}").content.decode()


@pytest.mark.django_db
def test_reservations_are_listed_until_they_expire(client):
    import datetime as dt
    editor = user_factory(editor=True)
    services.namespace_reserve("future", editor, until=dt.date.today() + dt.timedelta(days=9), reason="r")
    expired_reservation("past", editor, reason="r")
    page = client.get("/urn/").content.decode()
    assert "urn:ogf:future:" in page and "urn:ogf:past:" not in page
    assert [r["snid"] for r in json.loads(client.get("/urn/registry.json").content)["reservations"]] == ["future"]


@pytest.mark.django_db
def test_xss_in_registration_text_is_neutralised_on_every_public_surface(client):
    payload = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    data = data_factory(title=payload)
    data.sections["scope"] = payload + "\n\n[x](javascript:alert(1))"
    data.grammar.abnf += 'EVIL = "<script>"\n'
    applicant, editor = user_factory(), user_factory(editor=True)
    proposal = services.proposal_create(data, applicant)
    services.proposal_transition(proposal, "submit", applicant)
    services.proposal_transition(proposal, "approve", editor, override_reason="test")
    for path in ["/urn/", "/urn/example/", "/urn/search/?urn=urn:ogf:example:x"]:
        body = client.get(path).content.decode().lower().replace(OUR_SCRIPT, "")
        assert "<script" not in body and "<img" not in body, path
        assert 'href="javascript:' not in body and "onerror=" not in body.replace("onerror=alert(1)&gt;", ""), path
    root = ET.fromstring(client.get("/urn/registry.xml").content)  # well-formed: the payload is text
    assert payload in ET.tostring(root, encoding="unicode", method="text")
    raw_feed = client.get("/urn/feed.atom").content
    feed = feedparser.parse(raw_feed)
    assert not feed.bozo and feed.entries[0].title_detail.type == "text/plain"  # shown as text
    assert b"<script>" not in raw_feed and b"&lt;script&gt;" in raw_feed


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/urn/", "/urn/example/", "/urn/example/1/", "/urn/example/diff/",
                                  "/urn/search/?urn=urn:ogf:example:x", "/urn/nothing/"])
def test_pages_are_valid_html5(client, registry, path):
    import html5lib

    response = client.get(path)
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(response.content)


@pytest.mark.django_db
def test_every_page_has_the_urn_lookup_box(client, registry):
    for path in ("/urn/", "/urn/example/", f"/proposals/{registry['first'].pk}/"):
        assert 'action="/urn/search/"' in client.get(path).content.decode()


@pytest.mark.django_db
def test_anonymous_pages_are_cached_until_the_registry_changes(client, django_capture_on_commit_callbacks):
    from django.core.cache import cache
    cache.clear()
    applicant, editor = user_factory(), user_factory(editor=True)
    proposal_factory(applicant, state="approved", editor=editor)
    client.get("/urn/")
    with CaptureQueriesContext(connection) as cached:
        assert "urn:ogf:example:" in client.get("/urn/").content.decode()
    assert len(cached) == 0
    other = services.proposal_create(data_factory(snid="second"), applicant)
    services.proposal_transition(other, "submit", applicant)
    with django_capture_on_commit_callbacks(execute=True):
        services.proposal_transition(other, "approve", editor, override_reason="test")
    assert 'href="/urn/second/"' in client.get("/urn/").content.decode()
