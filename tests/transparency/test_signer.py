"""The log's signer: it alone signs, only a log that extends its own record, and says loudly when it will not."""

from __future__ import annotations

import datetime as dt
import io
import json
import threading

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from registry.logcore.note import Signer, checkpoint_open
from registry.logcore.signer_state import SignerState, SignerStateError
from registry.transparency.log import (
    CHECKPOINT_PERIOD,
    LogDamaged,
    LogError,
    log_append,
    log_cache_clear,
    log_checkpoint,
    log_damage,
    log_published,
)
from registry.transparency.models import LogEntry, LogSigned
from registry.transparency.signer import log_sign, log_sign_watch

from ..confirming import reservation_act
from ..factories import proposal_factory, user_factory
from .conftest import guards_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged(applicant, editor):
    """Three SNIDs approved: six entries (each version, then its registrant's stewardship), signed."""
    for name in ("alpha", "beta", "gamma"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    assert log_sign().signed
    return applicant


def _delete_last_entry(move_head: bool) -> None:
    with guards_off() as cursor:
        size = LogEntry.objects.count()
        cursor.execute('DELETE FROM registry_logentry WHERE "index" = %s', [size - 1])
        if move_head:
            cursor.execute("UPDATE registry_loghead SET size = %s", [size - 1])


def _changed_leaf_only(index: int) -> None:
    """The leaf changed, its stored hash left as it was."""
    with guards_off() as cursor:
        cursor.execute(
            'UPDATE registry_logentry SET leaf = replace(leaf, \'"v":1\', \'"v":1 \') WHERE "index" = %s', [index]
        )


def test_signer_signs_and_every_worker_serves_the_same_bytes(client, logged, log_key, settings):
    first = client.get("/log/checkpoint").content
    log_cache_clear()  # a second worker, started now
    second = client.get("/log/checkpoint").content
    # A third without the key, checking with the published verifier key only, as production's workers do.
    settings.REGISTRY_LOG_KEY, settings.REGISTRY_LOG_VERIFIER_KEY = "", str(log_key.verifier())
    settings.REGISTRY_LOG_KEY_FILE = ""
    log_cache_clear()
    third = client.get("/log/checkpoint").content
    assert first == second == third
    assert first.decode() == LogSigned.objects.get().note
    with pytest.raises(LogError, match="No log key"):
        log_sign()  # and it cannot sign


def test_signer_signs_again_only_when_the_log_grew_or_the_period_passed(logged, applicant, editor):
    assert not log_sign().signed
    later = timezone.now() + dt.timedelta(seconds=CHECKPOINT_PERIOD + 1)
    renewed = log_sign(now=later)
    assert renewed.signed and renewed.size == 6
    assert log_checkpoint()[0].time == later.replace(microsecond=0)
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    assert log_sign(now=later).size == 8


def test_signer_pass_after_an_append_rehashes_only_the_new_leaves(logged, applicant, editor):
    """An approval's pass (the quick check) reads the stored hashes of the signed entries and only the new
    leaves themselves; the full check reads and re-hashes every leaf."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    with CaptureQueriesContext(connection) as quick:
        outcome = log_sign(full=False)
    assert outcome.signed and not outcome.full and outcome.size == 8
    leaves_read = [q["sql"] for q in quick.captured_queries if '"registry_logentry"."leaf" AS' in q["sql"]]
    assert len(leaves_read) == 1 and '"registry_logentry"."index" >= 6' in leaves_read[0], leaves_read
    with CaptureQueriesContext(connection) as thorough:
        outcome = log_sign(full=True)
    assert outcome.full and not outcome.signed and not outcome.damage
    leaves_read = [q["sql"] for q in thorough.captured_queries if '"registry_logentry"."leaf" AS' in q["sql"]]
    assert len(leaves_read) == 1 and ">=" not in leaves_read[0]


@pytest.mark.parametrize("rewrite", ["stored-hash", "deleted", "head-moved-back"])
def test_signer_quick_check_finding_anything_odd_makes_the_full_check_before_signing(
    logged, applicant, editor, rewrite
):
    from registry.logcore.merkle import leaf_hash

    proposal_factory(applicant, state="approved", editor=editor, snid="delta")  # something to sign
    with guards_off() as cursor:
        if rewrite == "stored-hash":
            cursor.execute(
                "UPDATE registry_logentry SET leaf = replace(leaf, '\"v\":1', '\"v\":1 '), leaf_hash = %s "
                'WHERE "index" = 1',
                [leaf_hash(b"changed").hex()],
            )
        else:
            cursor.execute('DELETE FROM registry_logentry WHERE "index" = 7')
            if rewrite == "head-moved-back":
                cursor.execute('DELETE FROM registry_logentry WHERE "index" = 6')
                cursor.execute("UPDATE registry_loghead SET size = 5")
    outcome = log_sign(full=False)
    assert outcome.full and not outcome.signed and outcome.damage, outcome
    assert log_checkpoint()[0].size == 6


def test_a_leaf_changed_behind_its_stored_hash_is_never_signed_and_the_full_check_finds_it(
    logged, applicant, editor, settings
):
    """The quick check does not re-hash signed leaves; what it signs is the signer's own copy of them extended
    with the new ones, so a leaf changed behind its stored hash is never taken in (no fork) before the
    full check, at least once a minute, refuses and names it."""
    from pathlib import Path

    from registry.logcore.merkle import Tree, verify_consistency

    before = log_checkpoint()[0]
    _changed_leaf_only(1)
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    quick = log_sign(full=False)
    assert quick.signed and not quick.full and quick.size == 8
    after = log_checkpoint()[0]
    record = SignerState(Path(settings.REGISTRY_LOG_STATE_DIR)).load()
    tree = Tree(record.leaf_hashes)
    assert tree.root() == after.root and tree.root(6) == before.root  # the signed tree extends the one before
    assert verify_consistency(6, 8, before.root, after.root, tree.consistency_proof(6, 8))
    thorough = log_sign(full=True)
    assert not thorough.signed and "entry 1 no longer hashes to the leaf hash stored beside it" in thorough.damage
    log_cache_clear()
    assert log_checkpoint()[0] == after  # nothing signed since


def test_signer_refuses_a_leaf_changed_behind_its_stored_hash_and_names_it(logged, client):
    before = client.get("/log/checkpoint").content
    _changed_leaf_only(1)
    outcome = log_sign(now=timezone.now() + dt.timedelta(hours=1))
    assert not outcome.signed
    assert "entry 1 no longer hashes to the leaf hash stored beside it" in outcome.damage
    assert "entry 1 differs from the entry signed under that number" in outcome.damage
    assert client.get("/log/checkpoint").content == before
    assert LogSigned.objects.get().damage == outcome.damage


@pytest.mark.parametrize("move_head", [False, True])
def test_signer_refuses_a_deleted_last_entry(logged, client, move_head):
    before = client.get("/log/checkpoint").content
    _delete_last_entry(move_head)
    outcome = log_sign(now=timezone.now() + dt.timedelta(hours=1))
    said = (
        "fewer than the 6 signed: entry 5 is gone"
        if move_head
        else "entry 5 is missing from the log table, which records 6 entries"
    )
    assert said in outcome.damage
    log_cache_clear()
    assert client.get("/log/checkpoint").content == before
    page = client.get("/log/").content.decode()
    assert "The log is damaged" in page and said in page


def test_damage_is_told_in_the_log_by_mail_once_and_by_the_exit_status(logged, editor, settings, caplog):
    settings.REGISTRY_LOG_ALARM_EMAILS = ["ops@example.org"]
    _delete_last_entry(move_head=True)
    with pytest.raises(CommandError) as failed:
        call_command("log_sign", stdout=io.StringIO(), stderr=io.StringIO())
    assert failed.value.returncode == 1 and "entry 5 is gone" in str(failed.value)
    assert any(r.levelname == "ERROR" and "nothing was signed" in r.getMessage() for r in caplog.records)
    # Once to each address, one address a mail (nobody learns the others' addresses).
    assert sorted(m.to for m in mail.outbox) == sorted([["ops@example.org"], [editor.email]])
    for alarm in mail.outbox:
        assert "ALARM: the transparency log is damaged" in alarm.subject and "entry 5 is gone" in alarm.body
    log_sign()
    assert len(mail.outbox) == 2  # the same finding is not mailed again at once
    log_sign(now=timezone.now() + dt.timedelta(days=1, minutes=1))
    assert len(mail.outbox) == 4 and all("(still)" in m.subject for m in mail.outbox[2:])


def test_lookup_answers_carry_the_damage(client, logged):
    urn = "urn:ogf:alpha:x"
    assert "Registry-Log-Damage" not in client.get("/api/lookup/", {"urn": urn}).headers
    _delete_last_entry(move_head=True)
    log_sign()
    from registry.lookup import registry_invalidate

    registry_invalidate()
    for query in ({"urn": urn}, {"urn": urn, "proof": "1"}):
        damage = client.get("/api/lookup/", query).headers["Registry-Log-Damage"]
        assert damage.startswith("The log no longer extends the checkpoint signed last") and damage.isascii()


def test_nothing_is_appended_while_signed_entries_are_missing(logged, applicant, editor, client):
    _delete_last_entry(move_head=True)
    log_sign()
    with pytest.raises(LogDamaged, match="its table holds 5 entries but 6 were signed"):
        with transaction.atomic():
            log_append("reservation-granted", {"snid": "x", "reserved_until": None, "renewal": False})
    # Through the site: the editor's reservation is refused with the reason (a 503, never a 500);
    # nothing is saved.
    client.force_login(editor)
    until = (timezone.localdate() + dt.timedelta(days=3)).isoformat()
    response = reservation_act(client, action="reserve", snid="held", until=until, reason="r")
    assert response.status_code == 503
    assert "its table holds 5 entries but 6 were signed" in response.content.decode()
    from registry.models import Namespace

    assert not Namespace.objects.filter(snid="held").exists()


def test_backfill_and_start_refuse_a_damaged_log_with_a_sentence(logged):
    _delete_last_entry(move_head=False)
    size = LogEntry.objects.count()
    for command in ("log_backfill", "start"):
        with pytest.raises(CommandError) as refused:
            call_command(command, *(["--no-serve"] if command == "start" else []), stdout=io.StringIO())
        assert "entry 5 is missing from the log table" in str(refused.value)
        assert "adds nothing to a damaged log" in str(refused.value)
    assert LogEntry.objects.count() == size


def test_restore_refuses_a_backup_whose_log_does_not_extend_what_was_signed(tmp_path, logged, applicant, editor):
    backup = io.StringIO()
    call_command("export_registry", "--format", "backup", stdout=backup)
    (tmp_path / "old.json").write_text(backup.getvalue(), encoding="utf-8")
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    log_sign()  # size 8 signed: the backup of size 6 would take entries 6 and 7 back
    with pytest.raises(CommandError, match="does not extend the checkpoint published last \\(size 8\\)"):
        call_command("import_registry", str(tmp_path / "old.json"), "--replace", stdout=io.StringIO())
    assert LogEntry.objects.count() == 8


def test_a_signer_that_lost_its_record_refuses_until_it_adopts_a_checkpoint(logged, settings, tmp_path):
    published = LogSigned.objects.get().note
    settings.REGISTRY_LOG_STATE_DIR = str(tmp_path / "new-machine")
    with pytest.raises(
        SignerStateError,
        match="has no record of what it signed .* holds a checkpoint of size 6 of this log, and no witness holds one",
    ):
        log_sign()
    outcome = log_sign(adopt=published)
    assert outcome.size == 6 and not outcome.damage
    assert SignerState(tmp_path / "new-machine").load().size == 6


def test_a_signer_refuses_a_checkpoint_to_adopt_that_the_log_does_not_hold(logged, settings, tmp_path, log_key):
    from registry.logcore.note import Checkpoint

    forged = log_key.sign(Checkpoint(log_key.name, 3, bytes(32)).text())
    settings.REGISTRY_LOG_STATE_DIR = str(tmp_path / "new-machine")
    with pytest.raises(
        SignerStateError, match="does not hold the tree of the checkpoint of size 3 that the checkpoint to adopt holds"
    ):
        log_sign(adopt=forged)
    with pytest.raises(SignerStateError, match="not one this key signed"):
        log_sign(adopt=Signer.generate(log_key.name).sign(Checkpoint(log_key.name, 3, bytes(32)).text()))


def test_a_worker_never_serves_a_row_it_cannot_verify_or_an_older_checkpoint(
    client, logged, applicant, editor, log_key
):
    good = client.get("/log/checkpoint").content
    # Someone writes the row: a checkpoint of their own making, then an older genuine one.
    forged = Signer.generate(log_key.name).sign("registry.test/log\n3\n" + "A" * 43 + "=\n")
    LogSigned.objects.filter(pk=1).update(note=forged)
    log_cache_clear.__globals__["_published"] = None  # the worker reads the row again (not its tree)
    assert client.get("/log/checkpoint").content == good
    assert "does not verify with the log's key" in log_damage()
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    log_sign()
    newer = client.get("/log/checkpoint").content
    LogSigned.objects.filter(pk=1).update(note=good.decode())
    log_cache_clear.__globals__["_published"] = None
    assert client.get("/log/checkpoint").content == newer
    assert "does not extend the one of size 8 this server served" in log_damage()
    assert log_sign().size == 8 and LogSigned.objects.get().note == newer.decode()  # the signer puts it right


def test_a_fresh_worker_with_no_good_row_answers_503_saying_why(client, logged, log_key):
    LogSigned.objects.filter(pk=1).update(note="nonsense")
    log_cache_clear()
    response = client.get("/log/checkpoint")
    assert response.status_code == 503 and b"does not verify with the log's key" in response.content


def test_the_signer_re_signs_the_same_tree_with_a_rotated_key(client, logged, settings):
    rotated = Signer.generate("registry.test/log")
    settings.REGISTRY_LOG_KEY = str(rotated)
    outcome = log_sign()
    assert outcome.signed and outcome.size == 6
    assert checkpoint_open(client.get("/log/checkpoint").content.decode(), rotated.verifier()).size == 6


def test_the_watching_signer_signs_an_append_promptly(transactional_db, settings, applicant, editor):
    settings.REGISTRY_LOG_SIGN_INLINE = False  # production: only the signer signs
    stop = threading.Event()
    passes = []
    watcher = threading.Thread(
        target=log_sign_watch, args=(0.05,), kwargs={"stop": stop.is_set, "passes": passes.append}, daemon=True
    )
    watcher.start()
    try:
        deadline = timezone.now() + dt.timedelta(seconds=30)
        while not passes and timezone.now() < deadline:
            threading.Event().wait(0.05)
        proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
        while (log_published() is None or log_published().checkpoint.size < 2) and timezone.now() < deadline:
            threading.Event().wait(0.05)
            log_cache_clear()
        assert log_published().checkpoint.size == 2  # the version and its registrant's stewardship
    finally:
        stop.set()
        watcher.join(10)


def test_the_watching_signer_finds_a_leaf_changed_behind_its_stored_hash_within_the_full_check_period(
    transactional_db, settings, applicant, editor, monkeypatch
):
    """Passes between full checks are quick (no signed leaf re-hashed); the full check comes at least every
    FULL_CHECK_PERIOD seconds (a minute; a second here) whether or not the log changes."""
    from registry.transparency import signer

    settings.REGISTRY_LOG_SIGN_INLINE = False
    monkeypatch.setattr(signer, "FULL_CHECK_PERIOD", 1.0)
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
    stop, passes = threading.Event(), []
    watcher = threading.Thread(
        target=log_sign_watch, args=(0.05,), kwargs={"stop": stop.is_set, "passes": passes.append}, daemon=True
    )
    watcher.start()
    try:
        deadline = timezone.now() + dt.timedelta(seconds=30)
        while not any(p.signed for p in passes) and timezone.now() < deadline:
            threading.Event().wait(0.05)
        assert passes[0].full and passes[0].signed  # the first pass is a full one
        _changed_leaf_only(1)
        changed_at = timezone.now()
        while not any(p.damage for p in passes) and timezone.now() < deadline:
            threading.Event().wait(0.05)
        found = next(p for p in passes if p.damage)
        assert found.full and "entry 1 no longer hashes to the leaf hash stored beside it" in found.damage
        assert (timezone.now() - changed_at).total_seconds() < 10
    finally:
        stop.set()
        watcher.join(10)


def test_the_signers_record_is_what_it_signed(logged, settings):
    from pathlib import Path

    record = SignerState(Path(settings.REGISTRY_LOG_STATE_DIR)).load()
    assert record.size == 6 and record.note == LogSigned.objects.get().note
    state = json.loads((Path(settings.REGISTRY_LOG_STATE_DIR) / "state.json").read_text())
    assert set(state) == {"note", "published", "witnesses", "identity"}
    # A record whose leaf hashes do not make its checkpoint's root is refused, not trusted.
    hashes = Path(settings.REGISTRY_LOG_STATE_DIR) / "leaf-hashes"
    hashes.write_bytes(bytes(32) + hashes.read_bytes()[32:])
    with pytest.raises(SignerStateError, match="do not make the root"):
        log_sign()


def test_without_any_checkpoint_the_log_page_says_so(client):
    response = client.get("/log/")
    assert response.status_code == 200 and "No checkpoint has been signed yet." in response.content.decode()
    user_factory("someone")


def test_the_fast_lookup_path_carries_the_damage_as_the_full_stack_does(logged, keep_connection):
    from registry.lookup import registry_invalidate

    from ..api.test_lookup import fast_answer, full_stack, wsgi_environ

    _delete_last_entry(move_head=True)
    log_sign()
    registry_invalidate()
    environ = wsgi_environ("urn=urn:ogf:alpha:x")
    expected = full_stack(environ)  # warms the index and the validator, as a running server has them
    fast = fast_answer(environ)
    assert fast == expected and "entry 5 is gone" in fast[1]["registry-log-damage"]
