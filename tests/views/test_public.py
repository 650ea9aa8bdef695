"""The public registry at /urn/: pages, exports, feed."""

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

import feedparser
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from registry import demo, services
from registry.diffs import proposal_diff
from registry.exports import XML_NAMESPACE
from registry.lookup import lookup_urn
from registry.models import Namespace

from ..factories import approve, data_factory, expired_reservation, proposal_factory, user_factory

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
    second = approve(second, editor)
    hidden = {}
    for state in ("draft", "submitted", "changes_requested", "rejected", "withdrawn"):
        hidden[state] = proposal_factory(
            state=state, snid=f"secret-{state.replace('_', '-')}", title=f"Hidden {state} title"
        )
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
    from registry.transparency.log import log_published_forget

    cache.clear()
    registry_invalidate()
    log_published_forget()  # the published checkpoint is read again, as on a worker's first request
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/urn/", "/urn/registry.json", "/urn/feed.atom"])
def test_query_count_is_the_same_for_1_and_100_snids(client, path):
    from registry.models import Namespace, Proposal, ProposalEvent

    applicant = user_factory()
    proposal_factory(applicant, state="approved", snid="snid0")
    one = _queries(client, path)
    # 99 more registered SNIDs, written directly for speed (the services are tested elsewhere)
    template = Proposal.objects.get()
    for index in range(1, 100):
        namespace = Namespace.objects.create(snid=f"snid{index}", status="registered")
        copy = Proposal(
            **{
                f.attname: getattr(template, f.attname)
                for f in Proposal._meta.concrete_fields
                if f.attname not in ("id", "namespace_id", "snid", "state")
            }
        )
        copy.snid, copy.namespace, copy.state = f"snid{index}", namespace, "approved"
        copy.save()
        # An approval is recorded with its event (PostgreSQL checks at commit, migration 0007).
        ProposalEvent.objects.create(proposal=copy, action="approve", from_state="submitted", to_state="approved")
        Namespace.objects.filter(pk=namespace.pk).update(current=copy)
    assert _queries(client, path) == one


@pytest.mark.django_db
def test_snid_page_shows_sections_diagrams_examples_and_history(client, registry):
    page = client.get("/urn/example/").content.decode()
    for heading in ("1.1 Namespace Identifier", "2.4 Rules for Lexical Equivalence", "8 Changes from"):
        assert heading in page
    assert page.index("1.1 Namespace Identifier") < page.index("5.2 Identifier Immutability")
    # one per rule of the grammar, then a legend for the core rules it uses (ALPHA, DIGIT)
    assert page.count('class="railroad-diagram"') == 11
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
    assert "is <strong>not valid, and it belongs to" in other


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("urn", "fragment"),
    [
        ("urn:ogf:example:cluster:2009:example.net:42", "is <strong>valid</strong>"),
        ("urn:ogf:unknown:x", "RFC 6453 §2.12"),
        ("urn:ogf:example:supercomputer:2011:x.org:mark1", "does not match the grammar"),
        ("isbn:123", "is not a urn:ogf: URN"),
    ],
)
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
def test_diff_ignores_what_a_reader_cannot_see(registry):
    """A grammar saved with one more (or one less) final blank line, a section with spaces at its
    line ends: not a change (v1 -> v2 once marked 2.1 as changed for a trailing blank line)."""
    from registry.models import Proposal

    second = Proposal.objects.get(pk=registry["second"].pk)
    second.grammar_abnf = registry["first"].grammar_abnf.rstrip("\n") + "\n\n\n"
    second.sections = {**second.sections, "scope": second.sections["scope"].replace("\n", "  \n") + "\n\n"}
    diff = proposal_diff(registry["first"], second)
    assert [d.section.key for d in diff if d.changed] == ["version", "changes"]
    second.grammar_abnf += "EXTRA = DIGIT\n"
    assert "syntactic_structure" in [d.section.key for d in proposal_diff(registry["first"], second) if d.changed]


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
    assert (
        [r["snid"] for r in as_json["snids"]]
        == [r["snid"] for r in rows]
        == [r.find("r:snid", ns).text for r in records]
        == ["example"]
    )
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
    proposal_factory(state="approved", title='=HYPERLINK("http://evil")')
    rows = list(csv.reader(io.StringIO(client.get("/urn/registry.csv").content.decode())))
    assert rows[1][3] == '\'=HYPERLINK("http://evil")'


@pytest.mark.django_db
def test_atom_feed_lists_registrations_and_new_versions(client, registry):
    feed = feedparser.parse(client.get("/urn/feed.atom").content)
    assert feed.bozo == 0
    assert [e.title.split(" — ")[0] for e in feed.entries] == [
        "urn:ogf:example: version 2",
        "urn:ogf:example: registered",
    ]
    assert feed.entries[0].link.endswith("/urn/example/2/")


@pytest.mark.django_db
def test_export_registry_command_matches_the_web_export(client, registry):
    for fmt in ("json", "csv", "xml"):
        out = io.StringIO()
        call_command("export_registry", "--format", fmt, stdout=out)  # both from settings.SITE_URL
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
@pytest.mark.parametrize(
    "path",
    [
        "/urn/",
        "/urn/example/",
        "/urn/example/1/",
        "/urn/example/diff/",
        "/urn/search/?urn=urn:ogf:example:x",
        "/urn/search/?q=example+grid",
        "/urn/nothing/",
    ],
)
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


@pytest.mark.django_db
def test_check_form_says_a_urn_valid_under_another_snid_belongs_there(client, registry):
    applicant, editor = user_factory("fdc-owner"), user_factory(editor=True)
    proposal_factory(applicant, name="fdc", state="approved", editor=editor)
    page = client.get("/urn/fdc/", {"urn": "urn:ogf:example:cluster:2009:example.net:42"}).content.decode()
    assert "is <strong>valid, but it belongs to" in page
    assert '<a href="/urn/example/"><code>urn:ogf:example:</code></a>' in page


@pytest.mark.django_db
def test_check_form_says_where_the_urn_goes_wrong(client, registry):
    page = client.get("/urn/example/", {"urn": "urn:ogf:example:cluster:209:example.net:4"}).content.decode()
    assert "At character 28 (&#x27;:&#x27;): expected a digit (rule YEAR)." in page


# --- the summary card ---------------------------------------------------------------------------


@pytest.fixture
def demo_registry(db):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    return accounts


def _card_example(page: str) -> str:
    match = re.search(r'id="card-example">([^<]+)<', page)
    assert match, "the card shows no example"
    return match.group(1).replace("&amp;", "&")


@pytest.mark.django_db
def test_card_on_every_registered_snid_shows_an_example_the_lookup_accepts(client, demo_registry):
    snids = list(Namespace.objects.registered().values_list("snid", flat=True))
    assert sorted(snids) == ["example", "fdc"]
    for snid in snids:
        page = client.get(f"/urn/{snid}/").content.decode()
        example = _card_example(page)
        assert (example.split(":")[2], lookup_urn(example)["valid"]) == (snid, True)


@pytest.mark.django_db
def test_card_shows_version_document_equivalence_contact_and_pattern(client, demo_registry):
    page = client.get("/urn/example/").content.decode()
    card = page[page.index('class="card"') : page.index("The registration (GFD.191 template)")]
    for fact in (
        "Registered",
        "Version</dt>",
        "GFD.191",
        "(Grid Forum Document, published)",
        'href="https://www.ogf.org/documents/GFD.191.pdf"',
        "case-insensitive (RFC 6453)",
        "The whole URN is case-insensitive",
        'href="mailto:urn-registry@example.org"',  # the demo's contact changed after approval
        'id="card-pattern">^(?:',
        'id="check-urn"',
    ):
        assert fact in card, fact


@pytest.mark.django_db
def test_card_explains_an_approval_over_failing_checks_with_the_editors_note(client, demo_registry):
    fdc = client.get("/urn/fdc/").content.decode()
    assert "Approved although" in fdc and "template predates GFD.191" in fdc
    example = client.get("/urn/example/").content.decode()
    assert "Approved although" not in example


@pytest.mark.django_db
def test_public_note_is_recorded_with_the_approval(client):
    proposal = proposal_factory(name="fdc", state="submitted")
    editor = user_factory(editor=True)
    approved = services.proposal_transition(
        proposal, "approve", editor, override_reason="as published", public_note="  Kept as RFC 4198 published it.  "
    )
    assert approved.public_note == "Kept as RFC 4198 published it."
    assert approved.events.last().data["public_note"] == "Kept as RFC 4198 published it."
    assert "Kept as RFC 4198 published it." in client.get("/urn/fdc/").content.decode()


@pytest.mark.django_db
def test_favicon_is_served_and_never_404(client):
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (301, "/static/registry/favicon.svg")
    assert 'rel="icon" href="/static/registry/favicon.svg"' in client.get("/urn/").content.decode()


# --- search -------------------------------------------------------------------------------------


@pytest.fixture
def three_snids(db):
    editor = user_factory(editor=True)
    made = {}
    for snid, title, scope in (
        ("alpha", "Alpha grid jobs", "Identifies grid jobs across federations."),
        ("beta", "Beta collections", "Identifies collections of sensor data; a zanzibarite registry."),
        ("gamma", "Gamma services", "Identifies services of grid collections."),
    ):
        made[snid] = proposal_factory(
            snid=snid,
            title=title,
            state="approved",
            editor=editor,
            sections={**data_factory().sections, "scope": scope},
        )
    return made


@pytest.mark.django_db
def test_search_finds_a_word_only_in_one_snids_section_text_first(client, three_snids):
    from registry.selectors import registry_search

    assert [hit.namespace.snid for hit in registry_search("zanzibarite")] == ["beta"]
    page = client.get("/urn/search/", {"q": "zanzibarite"}).content.decode()
    assert "<mark>zanzibarite</mark>" in page and 'href="/urn/beta/"' in page
    body = client.get("/api/snids/", {"q": "zanzibarite"}).json()
    assert [r["snid"] for r in body["results"]] == ["beta"]
    assert "zanzibarite" in body["results"][0]["snippet"]


@pytest.mark.django_db
def test_search_ranks_snid_and_title_above_section_text(client, three_snids):
    from registry.selectors import registry_search

    assert [hit.namespace.snid for hit in registry_search("collections")][:1] == ["beta"]
    assert [hit.namespace.snid for hit in registry_search("gamma")][:1] == ["gamma"]
    assert [hit.namespace.snid for hit in registry_search("grid jobs")][:1] == ["alpha"]
    assert registry_search("nothing-like-this") == []


@pytest.mark.django_db
def test_search_box_sends_a_urn_to_its_lookup_and_words_to_results(client, three_snids):
    response = client.get("/urn/search/", {"q": "URN:OGF:alpha:x"})
    assert (response.status_code, response["Location"]) == (302, "/urn/search/?urn=URN%3AOGF%3Aalpha%3Ax")
    page = client.get("/urn/search/", {"q": "services"}).content.decode()
    assert "best match first" in page and 'href="/urn/gamma/"' in page
    assert 'name="q"' in client.get("/urn/").content.decode()


@pytest.mark.django_db
def test_api_search_for_a_urn_finds_its_snid(client, three_snids):
    body = client.get("/api/snids/", {"q": "URN:OGF:Gamma:anything:here"}).json()
    assert [r["snid"] for r in body["results"]] == ["gamma"]


@pytest.mark.django_db
def test_search_finds_words_with_accents(client):
    from registry.selectors import registry_search

    proposal_factory(state="approved", sections={**data_factory().sections, "scope": "Made in Jyväskylä."})
    assert [hit.namespace.snid for hit in registry_search("jyväskylä")] == ["example"]


@pytest.mark.django_db
def test_search_snippet_escapes_registration_text(client):
    payload = '<script>alert("x")</script> quokkas'
    proposal_factory(state="approved", sections={**data_factory().sections, "scope": payload})
    page = client.get("/urn/search/", {"q": "quokkas"}).content.decode()
    assert "<mark>quokkas</mark>" in page and "&lt;script&gt;" in page and "<script>alert" not in page


@pytest.mark.django_db
def test_search_never_reads_private_registrant_details(client):
    proposal_factory(state="approved", registrant={"name": "Wilhelmina Quux", "email": "wq@home.example"})
    assert client.get("/api/snids/", {"q": "Wilhelmina"}).json()["results"] == []


# --- registrant privacy -------------------------------------------------------------------------

PRIVATE = {"name": "Ottoline Privatperson", "email": "ottoline@home.example", "address": "7 Hidden Lane, Secretville"}


@pytest.mark.django_db
def test_personal_registrant_fields_not_chosen_appear_nowhere_public(client):
    applicant = user_factory()
    proposal_factory(
        applicant,
        state="approved",
        registrant={
            **PRIVATE,
            "organisation": "Public Org",
            "public_contact": "urn-desk@org.example",
            "published": ["organisation"],
        },
    )
    paths = [
        "/urn/",
        "/urn/example/",
        "/urn/example/1/",
        "/urn/example/diff/?from=1&to=1",
        "/urn/search/?q=example",
        "/urn/search/?urn=urn:ogf:example:x",
        "/urn/example/1/registration.md",
        "/urn/example/1/registration.txt",
        "/urn/registry.json",
        "/urn/registry.csv",
        "/urn/registry.xml",
        "/urn/feed.atom",
        "/api/snids/",
        "/api/snids/example/",
        "/api/snids/example/versions/1/",
        "/api/snids/?q=example",
        "/api/lookup/?urn=urn:ogf:example:x",
    ]
    client.logout()
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        body = response.content.decode()
        for key, value in PRIVATE.items():
            assert value not in body, (path, key)
    assert "urn-desk@org.example" in client.get("/urn/example/").content.decode()
    current = client.get("/api/snids/example/").json()["current"]
    assert current["registrant"] == {
        "name": "",
        "organisation": "Public Org",
        "email": "",
        "address": "",
        "public_contact": "urn-desk@org.example",
    }
    assert json.loads(client.get("/urn/registry.json").content)["snids"][0]["registrant"] == {
        "name": "",
        "organisation": "Public Org",
        "email": "",
        "contact": "urn-desk@org.example",
    }


@pytest.mark.django_db
def test_diff_of_a_changed_registrant_shows_only_published_details(client):
    applicant, editor = user_factory(), user_factory(editor=True)
    proposal_factory(applicant, state="approved", editor=editor, registrant={"organisation": "Org One"})
    data = data_factory(version=2, registrant={**PRIVATE, "organisation": "Org Two"})
    second = services.proposal_create(data, applicant)
    services.proposal_transition(second, "submit", applicant)
    services.proposal_transition(second, "approve", editor, override_reason="test")
    page = client.get("/urn/example/diff/", {"from": 1, "to": 2}).content.decode()
    assert "<ins>+ Organisation: Org Two</ins>" in page
    assert [value for value in PRIVATE.values() if value in page] == []


@pytest.mark.django_db
def test_registrant_details_chosen_for_publication_are_published(client):
    proposal_factory(state="approved", registrant={**PRIVATE, "published": ["name", "email"]})
    page = client.get("/urn/example/").content.decode()
    assert PRIVATE["name"] in page and PRIVATE["email"] in page and PRIVATE["address"] not in page


@pytest.mark.django_db
def test_approved_proposal_pages_show_private_details_only_to_submitter_and_editors(client):
    applicant, other, editor = user_factory(), user_factory(), user_factory(editor=True)
    proposal = proposal_factory(applicant, state="approved", registrant={**PRIVATE, "published": []})
    paths = [f"/proposals/{proposal.pk}/", f"/proposals/{proposal.pk}/export.md", f"/api/proposals/{proposal.pk}/"]
    seen = {}
    for who, user in (("anonymous", None), ("other", other), ("submitter", applicant), ("editor", editor)):
        client.logout()
        if user:
            client.force_login(user)
        bodies = [client.get(path) for path in paths]
        seen[who] = [PRIVATE["email"] in r.content.decode() for r in bodies if r.status_code == 200]
    assert seen == {
        "anonymous": [False, False],
        "other": [False, False, False],
        "submitter": [True, True, True],
        "editor": [True, True, True],
    }


@pytest.mark.django_db
def test_editors_still_see_every_registrant_detail(client):
    proposal = proposal_factory(state="submitted", registrant=PRIVATE)
    editor = user_factory(editor=True)
    client.force_login(editor)
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    assert all(value in page for value in PRIVATE.values())


@pytest.mark.django_db
def test_proposal_form_says_what_is_published(client):
    proposal = proposal_factory(user_factory())
    client.force_login(proposal.submitter)
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    assert "Public contact" in page and "seen only by GFD editors" in page
