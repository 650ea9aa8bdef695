"""Deprecation: never reassigned or registered again (service, checklist, database), and every public
surface — tombstone page, lookup, exports, feed, API — says so."""

from __future__ import annotations

import csv
import io

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from registry import services
from registry.logcore.kinds import leaf_decode
from registry.lookup import lookup_urn, registry_invalidate
from registry.models import Namespace, Proposal
from registry.stewardship import services as stewardship
from registry.stewardship.models import Deprecation
from registry.transparency.models import LogEntry

from .factories import data_factory, proposal_factory, user_factory


@pytest.fixture
def deprecated(db):
    """urn:ogf:example: deprecated in favour of urn:ogf:successor:."""
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    old = proposal_factory(steward, state="approved", editor=editor).namespace
    proposal_factory(steward, state="approved", editor=editor, snid="successor")
    stewardship.snid_deprecate(old, editor, reason="Superseded by a better scheme.", successor="successor")
    registry_invalidate()
    return {"namespace": Namespace.objects.get(pk=old.pk), "steward": steward, "editor": editor}


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["steward", "other", "conflicted"])
def test_only_an_unconflicted_editor_deprecates(db, role):
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    namespace = proposal_factory(steward, state="approved", editor=editor).namespace
    conflicted = user_factory("conflicted", editor=True)
    stewardship.steward_add(namespace, conflicted, editor, reason="Maintainer and editor.")
    actor = {"steward": steward, "other": user_factory(), "conflicted": conflicted}[role]
    with pytest.raises(services.NotAllowed):
        stewardship.snid_deprecate(namespace, actor, reason="Old.")
    assert not Deprecation.objects.exists()


@pytest.mark.django_db
def test_deprecation_needs_a_reason_and_a_registered_successor(db):
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    namespace = proposal_factory(steward, state="approved", editor=editor).namespace
    with pytest.raises(services.ServiceError, match="reason"):
        stewardship.snid_deprecate(namespace, editor, reason="")
    with pytest.raises(services.ServiceError, match="not a registered SNID"):
        stewardship.snid_deprecate(namespace, editor, reason="Old.", successor="nowhere")
    with pytest.raises(services.ServiceError, match="its own successor"):
        stewardship.snid_deprecate(namespace, editor, reason="Old.", successor="EXAMPLE")


@pytest.mark.django_db
def test_deprecation_and_its_withdrawal_are_recorded_and_logged(deprecated):
    namespace, editor = deprecated["namespace"], deprecated["editor"]
    with pytest.raises(services.NotAllowed):
        stewardship.snid_undeprecate(namespace, deprecated["steward"], reason="Still used.")
    stewardship.snid_undeprecate(namespace, editor, reason="Deprecated by mistake.")
    kinds = [e.kind for e in namespace.stewardship_events.filter(public=True)]
    assert kinds[-2:] == ["deprecated", "undeprecated"]
    leaves = [leaf_decode(e.leaf.encode()) for e in LogEntry.objects.order_by("index")]
    assert [(leaf["kind"], leaf.get("successor")) for leaf in leaves[-2:]] == [
        ("snid-deprecated", "successor"),
        ("snid-undeprecated", None),
    ]
    deprecation = Deprecation.objects.get()
    assert deprecation.ended_by == editor and deprecation.end_reason == "Deprecated by mistake."
    assert lookup_urn("urn:ogf:example:a")["registration"]["status"] == "registered"


# --- never reassigned or registered again ------------------------------------------------------------


@pytest.mark.django_db
def test_a_deprecated_snid_cannot_be_proposed_again_by_anyone(deprecated):
    for user in (deprecated["steward"], user_factory()):
        with pytest.raises(services.Conflict, match="deprecated"):
            services.proposal_create(data_factory(version=2), user)
        with pytest.raises(services.Conflict, match="deprecated"):
            services.proposal_create(data_factory(snid="EXAMPLE"), user)


@pytest.mark.django_db
def test_a_deprecated_snid_cannot_be_reserved(deprecated):
    import datetime as dt

    from django.utils import timezone

    with pytest.raises(services.Conflict):
        services.namespace_reserve(
            "example", user_factory(editor=True), until=timezone.localdate() + dt.timedelta(days=10), reason="x"
        )


@pytest.mark.django_db
def test_a_draft_written_before_deprecation_cannot_be_approved(db):
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    namespace = proposal_factory(steward, state="approved", editor=editor).namespace
    version = services.proposal_create(data_factory(version=2), steward)
    services.proposal_transition(version, "submit", steward)
    stewardship.snid_deprecate(namespace, editor, reason="Retired.")
    with pytest.raises(services.Conflict, match="deprecated"):
        services.proposal_transition(version, "approve", editor, override_reason="x")
    assert Proposal.objects.get(pk=version.pk).state == "submitted"


@pytest.mark.django_db
def test_the_checklist_refuses_a_deprecated_snid(deprecated):
    from registry.selectors import data_findings

    for submitter in (deprecated["steward"].pk, user_factory().pk):
        (unique,) = [f for f in data_findings(data_factory(version=2), submitter) if f.id == "snid-unique"]
        assert unique.status == "fail" and "deprecated" in unique.message


@pytest.mark.django_db
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE registry_namespace SET status = 'reserved', reserved_until = '2099-01-01' WHERE snid = 'example'",
        "UPDATE registry_namespace SET current_id = NULL WHERE snid = 'example'",
        "UPDATE registry_namespace SET reserved_until = '2099-01-01' WHERE snid = 'example'",
    ],
)
def test_the_database_refuses_to_reassign_a_deprecated_snid(deprecated, sql):
    # (PostgreSQL's older guard against clearing the current version may speak first.)
    with (
        pytest.raises((IntegrityError, DatabaseError), match="deprecated|never cleared"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert Namespace.objects.get(snid="example").status == "registered"


@pytest.mark.django_db
def test_the_database_refuses_a_new_proposal_for_a_deprecated_snid(deprecated):
    """Past the service: a proposal row for the SNID (any case) is refused by the database itself."""
    with pytest.raises((IntegrityError, DatabaseError), match="deprecated"), transaction.atomic():
        Proposal.objects.create(snid="Example", submitter=deprecated["steward"])


@pytest.mark.django_db
def test_the_database_refuses_to_approve_a_version_of_a_deprecated_snid(db):
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    namespace = proposal_factory(steward, state="approved", editor=editor).namespace
    version = services.proposal_create(data_factory(version=2), steward)
    services.proposal_transition(version, "submit", steward)
    stewardship.snid_deprecate(namespace, editor, reason="Retired.")
    with (
        pytest.raises((IntegrityError, DatabaseError), match="deprecated"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE registry_proposal SET state = 'approved' WHERE id = %s", [version.pk])


@pytest.mark.django_db
def test_the_database_keeps_the_history_and_decided_requests(deprecated):
    statements = ["UPDATE registry_stewardshipevent SET summary = 'rewritten'"]
    owner = deprecated["steward"]
    request = stewardship.change_request_create(
        Namespace.objects.get(snid="successor"),
        "contact",
        {"registrant_public_contact": "a@b.example"},
        owner,
        reason="x",
    )
    stewardship.change_request_decide(request, deprecated["editor"], approve=False)
    statements.append(f"UPDATE registry_changerequest SET state = 'approved' WHERE id = {request.pk}")
    for sql in statements:
        with (
            pytest.raises((IntegrityError, DatabaseError), match="append-only|never changes"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM registry_stewardshipevent",
        "DELETE FROM registry_deprecation",
        "DELETE FROM registry_changerequest",
    ],
)
def test_postgres_refuses_deleting_the_record_of_an_snids_life(postgres, deprecated, sql):
    owner = deprecated["steward"]
    stewardship.change_request_create(
        Namespace.objects.get(snid="successor"),
        "contact",
        {"registrant_public_contact": "a@b.example"},
        owner,
        reason="x",
    )
    request = stewardship.change_request_create(
        Namespace.objects.get(snid="successor"),
        "contact",
        {"registrant_public_contact": "c@d.example"},
        owner,
        reason="y",
    )
    stewardship.change_request_decide(request, deprecated["editor"], approve=True)
    with pytest.raises(DatabaseError, match="append-only|never"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)


# --- every public surface says deprecated ---------------------------------------------------------------


@pytest.mark.django_db
def test_lookup_says_deprecated_names_the_successor_and_still_validates(deprecated):
    answer = lookup_urn(deprecated["namespace"].current.examples_valid[0])
    assert answer["valid"] is True and answer["registered"] is True
    assert answer["registration"]["status"] == "deprecated"
    assert answer["registration"]["successor"] == "successor"
    assert lookup_urn("urn:ogf:successor:a")["registration"]["status"] == "registered"


@pytest.mark.django_db
def test_lookup_api_says_deprecated_also_from_its_remembered_answers(client, deprecated):
    urn = deprecated["namespace"].current.examples_valid[0]
    first = client.get("/api/lookup/", {"urn": urn}).json()
    again = client.get("/api/lookup/", {"urn": urn}).json()  # served from the index's answers
    for answer in (first, again):
        assert answer["valid"] and answer["registration"]["status"] == "deprecated"


@pytest.mark.django_db
def test_tombstone_page_documents_syntax_and_examples_and_points_to_the_successor(client, deprecated):
    page = client.get("/urn/example/").content.decode()
    assert "This SNID is deprecated" in page and "Superseded by a better scheme." in page
    assert 'href="/urn/successor/"' in page
    assert "urn:ogf:example:" in page and "never reassigned" in page
    current = deprecated["namespace"].current
    assert current.examples_valid[0] in page  # the examples are still documented
    assert "Formal syntax" in page or "ABNF" in page
    assert "Deprecated by an editor; its successor is urn:ogf:successor:." in page  # the public history


@pytest.mark.django_db
def test_exports_carry_the_status(client, deprecated):
    records = {r["snid"]: r for r in client.get("/urn/registry.json").json()["snids"]}
    assert (records["example"]["status"], records["example"]["successor"]) == ("deprecated", "successor")
    assert (records["successor"]["status"], records["successor"]["successor"]) == ("registered", None)
    rows = {r["snid"]: r for r in csv.DictReader(io.StringIO(client.get("/urn/registry.csv").content.decode()))}
    assert (rows["example"]["status"], rows["example"]["successor"]) == ("deprecated", "successor")
    xml = client.get("/urn/registry.xml").content.decode()
    assert '<status successor="successor">deprecated</status>' in xml


@pytest.mark.django_db
def test_feed_carries_the_deprecation(client, deprecated):
    feed = client.get("/urn/feed.atom").content.decode()
    assert "urn:ogf:example: Deprecated by an editor; its successor is urn:ogf:successor:." in feed
    assert 'term="deprecated"' in feed


@pytest.mark.django_db
def test_api_carries_the_status(client, deprecated):
    body = client.get("/api/snids/example/").json()
    assert body["status"] == "deprecated" and body["current"]["status"] == "deprecated"
    assert body["deprecation"]["successor"] == "successor"
    assert body["deprecation"]["reason"] == "Superseded by a better scheme."
    assert client.get("/api/snids/successor/").json()["deprecation"] is None
    listed = {item["snid"]: item["status"] for item in client.get("/api/snids/").json()["results"]}
    assert listed == {"example": "deprecated", "successor": "registered"}
    found = {item["snid"]: item["status"] for item in client.get("/api/snids/", {"q": "example"}).json()["results"]}
    assert found.get("example") == "deprecated"


@pytest.mark.django_db
def test_api_schema_describes_the_status(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "deprecated" in schema and "successor" in schema


def test_registry_list_marks_a_deprecated_snid_and_names_its_successor(client, deprecated):
    from django.core.cache import cache

    cache.clear()
    page = client.get("/urn/").content.decode()
    row = page.split('href="/urn/example/"', 1)[1].split("</tr>", 1)[0]
    assert '<span class="badge deprecated">deprecated</span>' in row
    assert 'superseded by <a href="/urn/successor/"><code>urn:ogf:successor:</code></a>' in row
    assert page.count("badge deprecated") == 1  # the successor's own row is not marked
