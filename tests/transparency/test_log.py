"""The log inside the registry: what each public change appends, in its transaction, and the guards."""

import datetime as dt
import io
import json

import pytest
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from registry import exports, services
from registry.logcore.kinds import leaf_decode, record_of_export, sha256_hex
from registry.logcore.merkle import leaf_hash, verify_inclusion
from registry.transparency.log import LogError, log_append, log_tree
from registry.transparency.models import LogEntry, LogHead, LogImmutableError

from ..factories import expired_reservation, proposal_factory, user_factory

pytestmark = pytest.mark.django_db


def _leaves(kind: str | None = None):
    leaves = [leaf_decode(entry.leaf.encode()) for entry in LogEntry.objects.order_by("index")]
    return [leaf for leaf in leaves if kind is None or leaf["kind"] == kind]


def test_log_approval_appends_the_version_record_as_registry_json_shows_it(applicant, editor):
    proposal = proposal_factory(applicant, state="approved", editor=editor)
    leaf, steward = _leaves()
    assert leaf["kind"] == "snid-version" and leaf["v"] == 1
    assert (leaf["snid"], leaf["version"]) == (proposal.namespace.snid, 1)
    [record] = exports.registry_snapshot().records
    assert leaf["record"] == record_of_export(record)
    assert leaf["record_sha256"] == sha256_hex(leaf["record"])
    assert len(leaf["document_sha256"]) == 64
    entry = LogEntry.objects.get(index=0)
    assert entry.leaf_hash == leaf_hash(entry.leaf.encode()).hex()
    # The registrant became the first steward, in the same transaction, logged after the version.
    assert {k: steward[k] for k in ("kind", "snid", "change", "reason")} == {
        "kind": "steward-changed",
        "snid": proposal.namespace.snid,
        "change": "added",
        "reason": "Registrant of the SNID.",
    }
    assert steward["steward"] == "a steward without a public name"  # never the login name
    assert LogHead.objects.get().size == 2


def test_log_unpublished_registrant_details_stay_out_of_the_record(applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor)
    [leaf] = _leaves("snid-version")
    private = leaf["record"]["registrant"]
    assert "address" not in private
    assert LogEntry.objects.get(index=0).leaf.count("@") == json.dumps(leaf["record"]).count("@")


def test_log_a_second_version_is_the_next_entry(applicant, editor):
    first = proposal_factory(applicant, state="approved", editor=editor)
    proposal_factory(applicant, state="approved", editor=editor, snid=first.snid)
    leaves = _leaves()
    assert [(leaf["kind"], leaf.get("version")) for leaf in leaves] == [
        ("snid-version", 1),
        ("steward-changed", None),
        ("snid-version", 2),
    ]  # one first steward only


def test_log_a_steward_choosing_a_public_name_is_logged_for_each_of_their_snids(applicant, editor):
    from registry.stewardship import services as stewardship

    for name in ("alpha", "beta"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    stewardship.steward_public_name(applicant, "Alice Example")
    renamed = _leaves("steward-renamed")
    assert [(leaf["snid"], leaf["previous"], leaf["steward"]) for leaf in renamed] == [
        ("alpha", "a steward without a public name", "Alice Example"),
        ("beta", "a steward without a public name", "Alice Example"),
    ]
    stewardship.steward_public_name(applicant, "  Alice   Example ")  # the same name: nothing to log
    assert len(_leaves("steward-renamed")) == 2


def test_log_rejection_and_submission_append_nothing(applicant, editor):
    proposal_factory(applicant, state="rejected", editor=editor)
    proposal_factory(applicant, name="example", state="submitted", snid="other")
    assert not LogEntry.objects.exists()


def test_log_reservation_granted_renewed_and_released(editor, applicant):
    until = timezone.localdate() + dt.timedelta(days=30)
    services.namespace_reserve("held", editor, until=until, reason="writing", reserved_for=applicant)
    services.namespace_renew("held", editor, until=until + dt.timedelta(days=10))
    services.namespace_release("held", editor, note="not needed")
    kinds = [(leaf["kind"], leaf.get("renewal"), leaf.get("how"), leaf["reserved_until"]) for leaf in _leaves()]
    assert kinds == [
        ("reservation-granted", False, None, until.isoformat()),
        ("reservation-granted", True, None, (until + dt.timedelta(days=10)).isoformat()),
        ("reservation-ended", None, "released", (until + dt.timedelta(days=10)).isoformat()),
    ]
    assert "writing" not in LogEntry.objects.first().leaf  # the reason is the editors' business


def test_log_expired_reservation_is_logged_when_released(editor):
    expired_reservation("lapsed", editor, reason="r")
    call_command("expire_reservations", "--release", stdout=io.StringIO())
    [leaf] = [leaf for leaf in _leaves() if leaf["kind"] == "reservation-ended"]
    assert (leaf["snid"], leaf["how"]) == ("lapsed", "expired")
    call_command("expire_reservations", "--release", stdout=io.StringIO())
    assert len([leaf for leaf in _leaves() if leaf["kind"] == "reservation-ended"]) == 1


def test_log_a_failed_approval_leaves_no_entry(applicant, editor):
    proposal = proposal_factory(applicant, state="submitted")
    services.namespace_reserve(
        proposal.snid,
        editor,
        until=timezone.localdate() + dt.timedelta(days=5),
        reason="someone else",
        reserved_for=user_factory("carol"),
    )
    before = LogEntry.objects.count()
    with pytest.raises(services.Conflict):
        services.proposal_transition(proposal, "approve", editor, override_reason="test")
    assert LogEntry.objects.count() == before and LogHead.objects.get().size == before


@pytest.mark.django_db(transaction=True)
def test_log_append_outside_a_transaction_is_refused():
    with pytest.raises(LogError, match="inside the transaction"):
        log_append("reservation-granted", {"snid": "x", "reserved_until": None, "renewal": False})


def test_log_append_refuses_a_leaf_its_kind_does_not_allow():
    from registry.logcore.kinds import LeafError

    with transaction.atomic(), pytest.raises(LeafError, match="renewal"):
        log_append("reservation-granted", {"snid": "x", "reserved_until": None, "renewal": "yes"})
    with transaction.atomic(), pytest.raises(LeafError, match="Unknown leaf kind 'deprecation'"):
        log_append("deprecation", {"snid": "x"})


def test_log_every_entry_has_a_valid_inclusion_proof(applicant, editor):
    for name in ("a1", "a2", "a3"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    tree, size = log_tree()
    assert size == 6  # each approval with its registrant's stewardship
    for entry in LogEntry.objects.all():
        assert verify_inclusion(
            entry.index, size, leaf_hash(entry.leaf.encode()), tree.inclusion_proof(entry.index, size), tree.root()
        )


def test_log_entries_refuse_changes_through_the_models(applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor)
    entry = LogEntry.objects.get(index=0)
    entry.leaf = "{}"
    with pytest.raises(LogImmutableError):
        entry.save()
    with pytest.raises(LogImmutableError):
        entry.delete()
    with pytest.raises(LogImmutableError):
        LogEntry.objects.update(leaf="{}")
    with pytest.raises(LogImmutableError):
        LogEntry.objects.all().delete()


def test_log_database_refuses_changing_an_entry_or_moving_the_head_back(applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor)
    with (
        pytest.raises((IntegrityError, DatabaseError), match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE registry_logentry SET leaf = '{}'")
    with (
        pytest.raises((IntegrityError, DatabaseError), match="one entry forward"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE registry_loghead SET size = 0")


def test_log_database_refuses_deleting_an_entry_on_postgresql(postgres, applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor)
    with (
        pytest.raises((IntegrityError, DatabaseError), match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM registry_logentry")
    with (
        pytest.raises((IntegrityError, DatabaseError), match="one entry forward"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM registry_loghead")


def _forget_the_log() -> None:
    """As if the registry predated the log: the same rows, but no log (nor a signed checkpoint)."""
    from .conftest import guards_off

    with guards_off() as cursor:
        for table in ("registry_logentry", "registry_loghead", "registry_logsigned"):
            cursor.execute(f"DELETE FROM {table}")


def test_log_backfill_logs_everything_published_before_the_log_once(applicant, editor):
    from registry.resolution.services import resolvers_replace
    from registry.stewardship import services as stewardship

    proposal_factory(applicant, state="approved", editor=editor, snid="early")
    proposal_factory(applicant, state="approved", editor=editor, snid="later")
    resolvers_replace(
        "early",
        [{"name": "main", "template": "https://r.example.org/{nss}"}],
        user_factory("otto", editor=True),
        "Its resolver.",
    )
    stewardship.steward_add(services.namespace_get("later"), user_factory("sam"), editor, reason="Maintainer.")
    stewardship.snid_deprecate(services.namespace_get("later"), editor, reason="Superseded.", successor="early")
    services.namespace_reserve(
        "kept", editor, until=timezone.localdate() + dt.timedelta(days=3), reason="r", reserved_for=applicant
    )
    _forget_the_log()
    out = io.StringIO()
    call_command("log_backfill", stdout=out)
    assert (
        "Logged 2 versions, 3 stewards, 1 resolver set, 1 deprecation and 1 reservation; the log has 8 entries."
    ) in out.getvalue()
    assert [(leaf["kind"], leaf["snid"]) for leaf in _leaves()] == [
        ("snid-version", "early"),
        ("snid-version", "later"),
        ("steward-changed", "early"),
        ("snid-resolvers", "early"),
        ("steward-changed", "later"),
        ("steward-changed", "later"),
        ("snid-deprecated", "later"),
        ("reservation-granted", "kept"),
    ]
    resolvers = _leaves("snid-resolvers")[0]
    assert resolvers["resolvers"][0]["template"] == "https://r.example.org/{nss}" and resolvers["how"] == "changed"
    assert [leaf["reason"] for leaf in _leaves("steward-changed")] == [
        "Registrant of the SNID.",
        "Registrant of the SNID.",
        "Maintainer.",
    ]
    call_command("log_backfill", stdout=out)  # exactly once
    assert (
        "Logged 0 versions, 0 stewards, 0 resolver sets, 0 deprecations and 0 reservations; the log has 8 entries."
    ) in out.getvalue()


def test_log_backfill_never_logs_what_was_changed_behind_the_logs_back(applicant, editor):
    """After the log began, resolvers, a deprecation and a steward appear in the database without their
    entries (their services would have logged them): backfill logs none of them; the verifier reports them."""
    from registry.stewardship.models import Deprecation, Steward, StewardState

    proposal_factory(applicant, state="approved", editor=editor, snid="early")
    namespace = services.namespace_get("early")
    before = LogHead.objects.get().size
    later = timezone.now() + dt.timedelta(seconds=2)  # after the log's first entry, to the second
    Deprecation.objects.create(namespace=namespace, reason="Slipped in.", deprecated_by=editor, deprecated_at=later)
    Steward.objects.create(
        namespace=namespace,
        user=user_factory("mallory"),
        state=StewardState.ACTIVE,
        reason="Slipped in.",
        confirmed_at=later,
    )
    from registry.resolution.models import Resolver

    Resolver.objects.create(
        namespace=namespace, name="x", template="https://elsewhere.example.net/{nss}", created_at=later
    )
    call_command("log_backfill", stdout=io.StringIO())
    assert LogHead.objects.get().size == before


def test_log_backfill_logs_a_registrants_stewardship_a_release_before_this_one_did_not(applicant, editor):
    """A log begun by an earlier release holds the version but not the registrant's stewardship."""
    from .conftest import guards_off

    proposal_factory(applicant, state="approved", editor=editor, snid="early")
    proposal_factory(applicant, state="approved", editor=editor, snid="later")
    with guards_off() as cursor:  # what the earlier release wrote: the versions only
        cursor.execute("DELETE FROM registry_logentry WHERE kind = 'steward-changed'")
        cursor.execute('UPDATE registry_logentry SET "index" = 1 WHERE "index" = 2')
        cursor.execute("UPDATE registry_loghead SET size = 2")
        cursor.execute("DELETE FROM registry_logsigned")
    from registry.logcore.merkle import leaf_hash as hashed

    assert [hashed(e.leaf.encode()).hex() == e.leaf_hash for e in LogEntry.objects.all()] == [True, True]
    call_command("log_backfill", stdout=io.StringIO())
    assert [(leaf["kind"], leaf["snid"]) for leaf in _leaves()] == [
        ("snid-version", "early"),
        ("snid-version", "later"),
        ("steward-changed", "early"),
        ("steward-changed", "later"),
    ]


def test_log_large_record_is_carried_by_its_digest(applicant, editor):
    from registry.logcore.kinds import leaf_encode

    record = {
        "snid": "big",
        "version": 1,
        "registration_date": "2026-01-01",
        "title": "t" * 70_000,
        "document": {"reference": "", "url": "", "status": "", "type": ""},
        "registrant": {"name": "", "organisation": "", "email": "", "contact": ""},
        "grammar": {"abnf": "", "rule": ""},
        "examples": {"valid": [], "invalid": []},
        "equivalence": [],
        "max_length": None,
    }
    data = leaf_encode(
        "snid-version",
        {
            "snid": "big",
            "version": 1,
            "record": record,
            "record_sha256": sha256_hex(record),
            "document_sha256": "0" * 64,
        },
        "2026-01-01T00:00:00Z",
    )
    leaf = leaf_decode(data)
    assert "record" not in leaf and leaf["record_sha256"] == sha256_hex(record) and len(data) < 400


def test_log_tree_cache_notices_another_database_of_the_same_prefix_size(applicant, editor):
    from registry.transparency import log as tlog

    proposal_factory(applicant, state="approved", editor=editor, snid="first")
    tree, _ = log_tree()
    stale = tree.root()
    # Another log of the same size and more (a restore), seen by a process that cached the first one.
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE registry_logentry DISABLE TRIGGER USER")
        cursor.execute("DELETE FROM registry_logentry")
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE registry_logentry ENABLE TRIGGER USER")
        for index in (0, 1):  # the approval's two entries (the version, the first steward), others in their place
            cursor.execute(
                'INSERT INTO registry_logentry ("index", kind, snid, version, leaf, leaf_hash, created_at) '
                "VALUES (%s, 'x', '', NULL, '{}', %s, %s)",
                [index, leaf_hash(b"{}").hex(), timezone.now()],
            )
    with transaction.atomic():
        tlog.log_append("reservation-granted", {"snid": "next", "reserved_until": None, "renewal": False})
    tree, size = log_tree()
    assert size == 3 and tree.root(2) != stale and tree.levels[0][0] == leaf_hash(b"{}")
