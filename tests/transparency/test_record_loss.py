"""The record-loss drill: the signer's record is lost (or restored from an old backup), the published row is
deleted, and one signed entry is rewritten with its stored hash. The signer must never sign a fork of what
it signed, and no app server may serve one: without witnesses it refuses until it is told the last
checkpoint (``--adopt``) and the table extends it; with witnesses (ours and aics-witness, as processes) it
learns that checkpoint from them, refuses while the table does not extend it and signs on once it does;
a checkpoint its witnesses refuse to cosign is never published. As production runs: a new database is not
taken for a new log (``REGISTRY_LOG_NEW_DATABASE_NEW_LOG`` off)."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from registry.logcore.cosignature import checkpoint_witnessed
from registry.logcore.merkle import leaf_hash
from registry.logcore.note import checkpoint_open
from registry.logcore.signer_state import SignerState, SignerStateError
from registry.logcore.witness import WitnessEndpoint, witness_latest
from registry.transparency import signer as signer_module
from registry.transparency.log import log_cache_clear, log_damage
from registry.transparency.models import LogEntry, LogSigned
from registry.transparency.signer import log_sign

from ..factories import proposal_factory
from .conftest import ORIGIN, ROOT, guards_off

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def production(settings):
    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = False


@pytest.fixture
def signed(applicant, editor, settings):
    """Three SNIDs approved and signed (six entries; the signer begun explicitly, as in production)."""
    settings.REGISTRY_LOG_SIGN_INLINE = False
    for name in ("alpha", "beta", "gamma"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    assert log_sign(begin=True).signed
    return LogSigned.objects.get().note


def _restart_signer() -> None:
    """What a signer process started now knows: nothing of its earlier passes."""
    signer_module.signer_memory_clear()


def _lose_record(settings, tmp_path, name="new-disk") -> None:
    settings.REGISTRY_LOG_STATE_DIR = str(tmp_path / name)
    _restart_signer()


def _rewrite_with_hash(index: int) -> str:
    """Entry ``index``'s leaf rewritten with its stored hash; what it was, to put back."""
    entry = LogEntry.objects.get(index=index)
    leaf = entry.leaf.replace('"v":1', '"v":1 ', 1)
    with guards_off() as cursor:
        cursor.execute(
            'UPDATE registry_logentry SET leaf = %s, leaf_hash = %s WHERE "index" = %s',
            [leaf, leaf_hash(leaf.encode()).hex(), index],
        )
    return entry.leaf


def _put_back(index: int, leaf: str) -> None:
    with guards_off() as cursor:
        cursor.execute(
            'UPDATE registry_logentry SET leaf = %s, leaf_hash = %s WHERE "index" = %s',
            [leaf, leaf_hash(leaf.encode()).hex(), index],
        )


def _served(client) -> str:
    return client.get("/log/checkpoint").content.decode()


def test_record_lost_without_witnesses_nothing_is_signed_until_the_checkpoint_is_adopted(
    signed, client, settings, tmp_path, log_key
):
    assert _served(client) == signed
    _lose_record(settings, tmp_path)
    LogSigned.objects.all().delete()
    _rewrite_with_hash(2)
    with pytest.raises(SignerStateError, match="neither its witnesses nor the database know a checkpoint"):
        log_sign()
    assert not LogSigned.objects.exists() and SignerState(tmp_path / "new-disk").load() is None
    log_cache_clear()  # a restarted app server: its floor is on disk
    assert _served(client) == signed
    # The mirror's copy of the checkpoint, adopted: the table does not hold its tree, so it is refused.
    (tmp_path / "mirror-checkpoint").write_text(signed)
    with pytest.raises(CommandError, match="does not hold the tree of the checkpoint of size 6") as refused:
        call_command("log_sign", "--adopt", str(tmp_path / "mirror-checkpoint"), stdout=io.StringIO())
    assert refused.value.returncode == 2 and not LogSigned.objects.exists()
    # The operator's mistake, a first signing of a log that was signed before: signed, but never served.
    fork = log_sign(begin=True)
    assert fork.signed and fork.size == 6 and LogSigned.objects.get().note != signed
    log_cache_clear()
    assert _served(client) == signed
    assert "does not extend the one of size 6 this server served" in log_damage()
    assert "This server:" in client.get("/api/lookup/?urn=urn:ogf:alpha:x").headers["Registry-Log-Damage"]


def test_record_lost_and_repaired_the_adopted_checkpoint_is_signed_on(signed, client, settings, tmp_path, log_key):
    _lose_record(settings, tmp_path)
    LogSigned.objects.all().delete()
    original = _rewrite_with_hash(2)
    _put_back(2, original)  # the entry put back exactly
    (tmp_path / "mirror-checkpoint").write_text(signed)
    out = io.StringIO()
    call_command("log_sign", "--adopt", str(tmp_path / "mirror-checkpoint"), stdout=out)
    record = SignerState(tmp_path / "new-disk").load()
    assert record.size == 6 and record.checkpoint.root == checkpoint_open(signed, log_key.verifier()).root
    log_cache_clear()
    assert "\n6\n" in _served(client) and log_damage() is None
    with pytest.raises(CommandError, match="--adopt and --begin are only for a signer that has none"):
        call_command("log_sign", "--begin", stdout=io.StringIO())


def test_a_record_restored_underneath_a_running_signer_is_put_back_and_no_fork_is_signed(
    signed, client, settings, tmp_path, applicant, editor
):
    """No witnesses: the record of size 6 copied back over the record of size 8 while the signer runs, entry 7
    rewritten with its stored hash. The table extends the old record, so a signer reading only its directory
    would sign a second tree of size 8 and publish it; the running signer remembers size 8 instead."""
    state = Path(settings.REGISTRY_LOG_STATE_DIR)
    shutil.copytree(state, tmp_path / "old-backup")
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    assert log_sign().signed
    eight = _served(client)
    shutil.rmtree(state)
    shutil.copytree(tmp_path / "old-backup", state)
    _rewrite_with_hash(7)
    outcome = log_sign(full=True)
    assert not outcome.signed and "entry 7" in outcome.damage
    assert SignerState(state).load().size == 8 and LogSigned.objects.get().note == eight
    log_cache_clear()
    assert _served(client) == eight
    # Emptied altogether under it: put back the same way.
    shutil.rmtree(state)
    assert not log_sign(full=True).signed and SignerState(state).load().size == 8


def test_begin_is_refused_when_the_published_row_knows_a_checkpoint_of_the_origin(signed, settings, tmp_path):
    _lose_record(settings, tmp_path)
    with pytest.raises(
        CommandError, match="This log has begun already: the published row holds a checkpoint of size 6"
    ):
        call_command("log_sign", "--begin", stdout=io.StringIO())
    with pytest.raises(CommandError, match="holds a checkpoint of size 6 of this log, and no witness holds one"):
        call_command("log_sign", stdout=io.StringIO())


def test_the_first_signing_of_a_log_is_explicit_in_production(applicant, editor, settings, tmp_path):
    settings.REGISTRY_LOG_SIGN_INLINE = False
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
    with pytest.raises(CommandError, match="run `manage.py log_sign --begin` once") as refused:
        call_command("log_sign", stdout=io.StringIO())
    assert refused.value.returncode == 2 and not LogSigned.objects.exists()
    out = io.StringIO()
    call_command("log_sign", "--begin", stdout=out)
    assert "Signed the checkpoint of size 2" in out.getvalue()


# --- with witnesses: ours and aics-witness, as processes ------------------------------------------------


def test_record_lost_with_witnesses_the_signer_learns_its_floor_from_them(
    witnesses, signed, client, settings, tmp_path, log_key
):
    latest = [witness_latest(endpoint, ORIGIN) for endpoint in witnesses.endpoints()]
    assert all(note and "\n6\n" in note for note in latest)  # both cosigned the checkpoint of size 6
    assert _served(client) == signed
    _lose_record(settings, tmp_path)
    LogSigned.objects.all().delete()
    original = _rewrite_with_hash(2)
    for attempt in (lambda: log_sign(), lambda: log_sign(begin=True)):
        with pytest.raises(SignerStateError) as refused:
            attempt()
        assert "does not hold the tree of the checkpoint of size 6 that witness" in str(
            refused.value
        ) or "This log has begun already: witness" in str(refused.value)
    assert not LogSigned.objects.exists()
    log_cache_clear()
    assert _served(client) == signed
    _put_back(2, original)  # repaired: the table extends what the witnesses hold again
    outcome = log_sign()
    assert not outcome.damage and SignerState(tmp_path / "new-disk").load().size == 6
    published = LogSigned.objects.get().note
    assert checkpoint_witnessed(published, log_key.verifier(), witnesses.keys, 2)[0].root == (
        checkpoint_open(signed, log_key.verifier()).root
    )
    assert _served(client) == published


def test_a_record_restored_from_an_old_backup_never_publishes_a_fork(
    witnesses, signed, client, settings, tmp_path, applicant, editor
):
    state = Path(settings.REGISTRY_LOG_STATE_DIR)
    shutil.copytree(state, tmp_path / "old-backup")  # the record of size 6
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    assert log_sign().signed  # size 8, cosigned by both
    eight = _served(client)
    eight_record = SignerState(state).load()
    assert "\n8\n" in eight
    shutil.rmtree(state)
    shutil.copytree(tmp_path / "old-backup", state)  # the record restored from the old backup
    _rewrite_with_hash(7)  # someone rewrites entry 7, signed at size 8 but not in the old record
    # A signer started now asks its witnesses first: they hold size 8, which the table does not extend.
    _restart_signer()
    with pytest.raises(SignerStateError, match="does not hold the tree of the checkpoint of size 8 that witness"):
        log_sign()
    assert LogSigned.objects.get().note == eight
    # A signer that was running all along, its record restored underneath it, knows what it signed:
    # it puts its record of size 8 back and signs nothing the table does not extend.
    signer_module._full_checked[str(state)] = 0.0
    signer_module._last_known[str(state)] = eight_record
    outcome = log_sign(full=True)
    assert not outcome.signed and "entry 7" in outcome.damage
    assert SignerState(state).load().size == 8  # put back
    assert LogSigned.objects.get().note == eight and _served(client) == eight


def test_the_witness_latest_command_prints_what_a_witness_cosigned(witnesses, signed, log_key):
    for endpoint in witnesses.endpoints():
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "registry.witness",
                "latest",
                endpoint.url,
                "--log",
                str(log_key.verifier()),
                "--witness",
                str(endpoint.key),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert checkpoint_open(result.stdout, log_key.verifier()).size == 6
        assert f"\u2014 {endpoint.name} " in result.stdout
    nobody = WitnessEndpoint(witnesses.ours_key, "http://127.0.0.1:9/")
    with pytest.raises(Exception, match="could not be reached"):
        witness_latest(nobody, ORIGIN, timeout=2)


def test_a_witness_ahead_of_the_record_is_used_as_the_floor_before_anything_else_is_signed(
    witnesses, signed, client, settings, tmp_path, applicant, editor
):
    """A witness answers the stale size with 409 and the larger size it holds: the signer does not publish,
    and its next pass asks its witnesses for that checkpoint, which the table must extend."""
    state = Path(settings.REGISTRY_LOG_STATE_DIR)
    shutil.copytree(state, tmp_path / "old-backup")  # the record of size 6
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    assert log_sign().signed
    eight = _served(client)
    shutil.rmtree(state)
    shutil.copytree(tmp_path / "old-backup", state)
    with guards_off() as cursor:  # entry 7 deleted and the head moved back: the table holds 7 entries
        cursor.execute('DELETE FROM registry_logentry WHERE "index" = 7')
        cursor.execute("UPDATE registry_loghead SET size = 7")
    # The signer that ran all along remembers signing size 8: it puts that record back, and the table
    # (7 entries) does not extend it: nothing is signed.
    outcome = log_sign(full=True)
    assert not outcome.signed and outcome.damage and SignerState(state).load().size == 8
    # A signer process that never saw size 8 (another instance on the record's directory): its record (6)
    # is extended by the table (7), so it signs size 7; a witness holding size 8 refuses, so nothing is
    # published.
    shutil.rmtree(state)
    shutil.copytree(tmp_path / "old-backup", state)
    signer_module._last_known.clear()
    outcome = log_sign(full=True)
    assert outcome.signed and outcome.size == 7 and outcome.unpublished
    assert any("holds a checkpoint of size 8, larger than this one of size 7" in p for p in outcome.witness_problems)
    with pytest.raises(SignerStateError, match="does not hold the tree of the checkpoint of size 8 that witness"):
        log_sign()  # its next pass looks at its witnesses first
    assert LogSigned.objects.get().note == eight and _served(client) == eight
