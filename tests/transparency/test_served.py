"""App servers remember what they served (a floor on disk, per host), also after a restart; and a new
development database is a new log, where production refuses an emptied table as today."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from registry.logcore.signer_state import SignerState
from registry.transparency.log import log_cache_clear, log_damage
from registry.transparency.models import LogHead, LogSigned
from registry.transparency.signer import log_sign

from ..factories import proposal_factory
from .conftest import guards_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def eight(applicant, editor, client):
    """Four SNIDs approved (eight entries), each checkpoint served as it was signed; the notes of size 6 and 8."""
    for name in ("alpha", "beta", "gamma"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    log_sign()  # (the test's transaction never commits: the signer's pass is made here)
    six = client.get("/log/checkpoint").content.decode()
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    log_sign()
    log_cache_clear.__globals__["_published"] = None
    eight = client.get("/log/checkpoint").content.decode()
    assert "\n6\n" in six and "\n8\n" in eight
    return six, eight


def _roll_back(note: str) -> None:
    LogSigned.objects.filter(pk=1).update(note=note, size=int(note.split("\n")[1]))


def test_a_restarted_app_server_never_serves_a_rolled_back_row(eight, client, settings):
    six, eight = eight
    assert json.loads(Path(settings.REGISTRY_LOG_SERVED_FILE).read_text())["note"] == eight  # its floor, on disk
    _roll_back(six)  # while the signer is down
    log_cache_clear()  # the app server restarts: what it kept in memory is gone, its floor is not
    assert client.get("/log/checkpoint").content.decode() == eight
    said = "the database offers a checkpoint of size 6 that does not extend the one of size 8 this server served"
    assert said in log_damage()
    assert said in client.get("/log/").content.decode()
    assert said in client.get("/api/lookup/?urn=urn:ogf:alpha:x").headers["Registry-Log-Damage"]
    log_sign()  # the signer puts the row right; the server says nothing more within a second
    log_cache_clear.__globals__["_published"] = None
    assert log_damage() is None and client.get("/log/checkpoint").content.decode() == eight


def test_a_deleted_row_leaves_the_app_server_serving_its_floor(eight, client):
    _, eight = eight
    LogSigned.objects.all().delete()
    log_cache_clear()
    assert client.get("/log/checkpoint").content.decode() == eight
    assert "the database holds no published checkpoint, but this server served one" in log_damage()


def test_an_app_server_on_another_host_has_a_floor_of_its_own(eight, client, settings, tmp_path):
    six, _ = eight
    _roll_back(six)
    settings.REGISTRY_LOG_SERVED_FILE = str(tmp_path / "other-host.json")
    log_cache_clear()  # a new host that never served anything: it takes what the database offers
    assert client.get("/log/checkpoint").content.decode() == six


def test_a_floor_that_cannot_be_written_is_said(applicant, editor, client, settings, tmp_path):
    (tmp_path / "file").write_text("")
    settings.REGISTRY_LOG_SERVED_FILE = str(tmp_path / "file" / "served.json")  # under a file: not writable
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
    log_sign()
    assert client.get("/log/checkpoint").status_code == 200
    assert "it cannot keep what it served in" in log_damage()


def _new_database() -> None:
    """``rm db.sqlite3`` and ``migrate``: the log's tables are empty, its head is gone."""
    with guards_off() as cursor:
        for table in ("registry_logentry", "registry_loghead", "registry_logsigned"):
            cursor.execute(f"DELETE FROM {table}")


def test_development_a_new_database_is_a_new_log(eight, client, settings, applicant, editor):
    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = True
    state = Path(settings.REGISTRY_LOG_STATE_DIR)
    old = SignerState(state).load()
    assert old.identity == LogHead.objects.get().identity
    _new_database()
    proposal_factory(applicant, state="approved", editor=editor, snid="omega")
    assert "A new database: a new log begins" in log_sign().new_log
    record = SignerState(state).load()
    assert record.size == 2 and record.identity == LogHead.objects.get().identity != old.identity
    (retired,) = state.glob("retired-*")
    assert SignerState(retired).load().size == 8  # the old log's record, set aside, not lost
    log_cache_clear()  # the app servers restart with the new database: their floor was the old log's
    assert "\n2\n" in client.get("/log/checkpoint").content.decode() and log_damage() is None


def test_development_a_new_database_and_a_lost_record_under_a_running_signer_is_a_new_log(
    eight, settings, applicant, editor
):
    """The record's directory went with the database (a fresh checkout's ``start``) while this process
    signed the old log: in development that is a new log, not a record to put back."""
    import shutil

    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = True
    state = Path(settings.REGISTRY_LOG_STATE_DIR)
    _new_database()
    shutil.rmtree(state)
    proposal_factory(applicant, state="approved", editor=editor, snid="omega")
    log_sign(begin=True)
    record = SignerState(state).load()
    assert record.size == 2 and record.identity == LogHead.objects.get().identity


def test_development_a_running_signer_leaves_a_new_log_begun_by_another_process_alone(
    eight, settings, applicant, editor
):
    """A development server signed the old log (it remembers size 8); another process recreated the
    database and began a new log with a record of its own: the server's memory is of another log."""
    from registry.logcore.signer_state import SignerRecord

    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = True
    state = Path(settings.REGISTRY_LOG_STATE_DIR)
    _new_database()
    proposal_factory(applicant, state="approved", editor=editor, snid="omega")
    from registry.transparency import signer as signer_module

    remembered = signer_module._last_known[str(state)]
    signer_module._last_known.clear()  # the other process: it knows nothing of the old log
    first = log_sign()
    assert first.new_log and SignerState(state).load().size == 2
    signer_module._last_known[str(state)] = remembered  # back in the server that signed the old log
    assert isinstance(remembered, SignerRecord) and remembered.size == 8
    outcome = log_sign()
    assert not outcome.damage and SignerState(state).load().size == 2


def test_production_a_lost_record_under_a_running_signer_is_put_back(eight, settings, applicant, editor):
    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = False
    state = Path(settings.REGISTRY_LOG_STATE_DIR)
    import shutil

    shutil.rmtree(state)
    outcome = log_sign()
    assert not outcome.signed and SignerState(state).load().size == 8


def test_production_an_emptied_log_table_is_refused(eight, client, settings, applicant, editor):
    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = False
    _, eight = eight
    _new_database()
    with guards_off() as cursor:
        cursor.execute("INSERT INTO registry_loghead (id, size, identity) VALUES (1, 0, 'replaced')")
    outcome = log_sign()
    assert "the log table records 0 entries, fewer than the 8 signed" in outcome.damage
    assert SignerState(Path(settings.REGISTRY_LOG_STATE_DIR)).load().size == 8
    log_cache_clear()
    assert client.get("/log/checkpoint").content.decode() == eight


def test_start_says_in_one_line_that_a_new_database_is_a_new_log(settings):
    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = True
    call_command("start", "--no-serve", stdout=io.StringIO())
    _new_database()
    out = io.StringIO()
    call_command("start", "--no-serve", stdout=out)
    said = [line for line in out.getvalue().splitlines() if "new log" in line]
    assert len(said) == 1 and said[0].startswith("A new database: a new log begins (the signer's record of the ")
    assert "Loaded 5 demonstration proposals." not in out.getvalue()  # the namespaces are still there


def test_development_backfill_on_a_new_database_is_not_refused_for_the_old_logs_record(eight, settings):
    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = True
    _new_database()
    LogHead.objects.create(pk=1, size=0)  # the new database's log, with an identity of its own
    log_cache_clear()  # the processes start again on the new database
    call_command("log_backfill", stdout=io.StringIO())  # the old log's record is not this log's
    assert LogHead.objects.get().size == 8  # the four SNIDs and their stewards, logged again from the start
    settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG = False
    with pytest.raises(CommandError, match="the database holds no published checkpoint, but this server served one"):
        _new_database()
        LogHead.objects.create(pk=1, size=0)
        log_cache_clear()
        call_command("log_backfill", stdout=io.StringIO())
