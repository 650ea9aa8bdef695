"""The mirror's verifier against a real server on the loopback: clean, grown, tampered, and re-keyed."""

import datetime as dt
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from registry import services, verify
from registry.dbguards import sqlite_triggers_install
from registry.lookup import registry_invalidate
from registry.transparency.log import log_cache_clear
from registry.transparency.note import Signer
from registry.transparency.signer import log_sign

from ..factories import proposal_factory, user_factory

ROOT = Path(__file__).resolve().parents[2]


def _run(*args) -> tuple[int, str]:
    out = io.StringIO()
    status = verify.main([str(a) for a in args], out=out)
    return status, out.getvalue()


@pytest.fixture
def site(transactional_db, live_server):
    applicant, editor = user_factory("alice"), user_factory("erin", editor=True)
    for name in ("alpha", "beta", "gamma"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    services.namespace_reserve("held", editor, until=timezone.localdate() + dt.timedelta(days=9), reason="r",
                               reserved_for=applicant)
    live_server.applicant, live_server.editor = applicant, editor
    return live_server


def _restart():
    """What a server restart forgets: its caches (the tamperer wrote behind its back)."""
    log_cache_clear()
    registry_invalidate()
    cache.clear()


def test_verify_a_faithful_registry_verifies_and_remembers_the_checkpoint(site, log_key, tmp_path):
    state = tmp_path / "state.json"
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state)
    assert status == 0, out
    assert "VERIFIED: 3 record(s) of the export are in the log of 4 entries" in out
    assert "(signature verified)" in out
    saved = json.loads(state.read_text())
    assert saved["size"] == 4 and saved["verifier_key"] == str(log_key.verifier())
    assert [what for _, what in saved["leaves"]][:2] == ["urn:ogf:alpha: version 1", "urn:ogf:beta: version 1"]


def test_verify_a_grown_log_is_consistent_with_the_last_checkpoint(site, log_key, tmp_path):
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    proposal_factory(site.applicant, state="approved", editor=site.editor, snid="delta")
    status, out = _run(site.url, "--state", state)  # the pinned key
    assert status == 0, out
    assert "consistent with the checkpoint of 4 entries seen before" in out
    assert "log of 5 entries" in out


def test_verify_reports_a_rewritten_version_and_a_deleted_log_entry(site, log_key, tmp_path):
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    # The database owner rewrites history behind the application's back, guards off.
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE registry_proposal DISABLE TRIGGER registry_proposal_immutable")
            cursor.execute("ALTER TABLE registry_logentry DISABLE TRIGGER registry_logentry_append_only")
        else:
            cursor.execute("DROP TRIGGER registry_proposal_immutable")
        try:
            cursor.execute("UPDATE registry_proposal SET title = 'A quietly different title' "
                           "WHERE snid = 'alpha' AND state = 'approved'")
            cursor.execute("DELETE FROM registry_logentry WHERE \"index\" = 2")
        finally:
            if connection.vendor == "postgresql":
                cursor.execute("ALTER TABLE registry_proposal ENABLE TRIGGER registry_proposal_immutable")
                cursor.execute("ALTER TABLE registry_logentry ENABLE TRIGGER registry_logentry_append_only")
            else:
                sqlite_triggers_install(connection)
    _restart()
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state)
    # The site keeps serving the checkpoint of 4 entries it signed (it never signs the shrunk log),
    # but cannot serve entry 2 of it: no run of the verifier passes.
    assert status != 0, out
    assert "/log/tile/entries/000.p/4" in out and "VERIFIED:" not in out.replace("NOT VERIFIED", "")
    assert "\n4\n" in _checkpoint_served(site)
    assert json.loads(state.read_text())["size"] == 4  # the last good checkpoint is kept
    assert "entry 2 is missing from the log table" in site_page(site)


def _checkpoint_served(site) -> str:
    import urllib.request

    with urllib.request.urlopen(site.url + "/log/checkpoint") as response:
        return response.read().decode()


def test_verify_reports_a_rewritten_version(site, log_key, tmp_path):
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE registry_proposal DISABLE TRIGGER registry_proposal_immutable")
        else:
            cursor.execute("DROP TRIGGER registry_proposal_immutable")
        try:
            cursor.execute("UPDATE registry_proposal SET title = 'A quietly different title' "
                           "WHERE snid = 'alpha' AND state = 'approved'")
        finally:
            if connection.vendor == "postgresql":
                cursor.execute("ALTER TABLE registry_proposal ENABLE TRIGGER registry_proposal_immutable")
            else:
                sqlite_triggers_install(connection)
    _restart()
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state)
    assert status == 1, out
    assert ('DIFFERS: urn:ogf:alpha: version 1 (log entry 0): title: the log says "Example-URN: supercomputers '
            'and clusters (the GFD.191 worked example)", the export says "A quietly different title"') in out
    assert "NOT VERIFIED" in out


def site_page(site) -> str:
    import urllib.request

    with urllib.request.urlopen(site.url + "/log/") as response:
        return response.read().decode()


def test_verify_a_checkpoint_signed_by_another_key_is_refused(site, tmp_path):
    other = Signer.generate("registry.test/log").verifier()
    status, out = _run(site.url, "--key", other, "--state", tmp_path / "s.json")
    assert status == 1
    assert "the checkpoint does not verify: The note carries no signature by registry.test/log+" in out


def test_verify_a_rotated_key_needs_to_be_accepted(site, log_key, tmp_path, settings):
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    rotated = Signer.generate("registry.test/log")
    settings.REGISTRY_LOG_KEY = str(rotated)
    log_sign()  # the signer, restarted with the new key, signs the same tree with it
    status, out = _run(site.url, "--key", rotated.verifier(), "--state", state)
    assert status == 1 and "the verifier key changed" in out and "--accept-new-key" in out
    status, out = _run(site.url, "--key", rotated.verifier(), "--state", state, "--accept-new-key")
    assert status == 0, out


def test_verify_first_use_without_a_key_says_it_trusted_the_site(site, tmp_path):
    status, out = _run(site.url, "--state", tmp_path / "s.json")
    assert status == 0 and "no key given: trusted the site's own key" in out


def test_verify_an_export_file_and_a_mirror_directory(site, log_key, tmp_path):
    mirror = tmp_path / "mirror"
    assert _run(site.url, "--key", log_key.verifier(), "--state", tmp_path / "a.json", "--mirror", mirror)[0] == 0
    assert (mirror / "log" / "checkpoint").is_file() and (mirror / "log/tile/entries/000.p/4").is_file()
    status, out = _run(mirror, "--key", log_key.verifier(), "--state", tmp_path / "b.json")
    assert status == 0, out
    export = json.loads((mirror / "urn" / "registry.json").read_text())
    export["snids"][1]["grammar"]["abnf"] += "; edited\n"
    edited = tmp_path / "registry.json"
    edited.write_text(json.dumps(export))
    status, out = _run(mirror, "--key", log_key.verifier(), "--state", tmp_path / "b.json", "--export", edited)
    assert status == 1
    assert "urn:ogf:beta: version 1 (log entry 1): grammar.abnf: the log says" in out


def test_verify_an_unreachable_site_could_not_be_checked(tmp_path):
    status, out = _run("http://127.0.0.1:9/", "--state", tmp_path / "s.json")
    assert status == 2 and out.startswith("COULD NOT CHECK: http://127.0.0.1:9/log/key")


def test_verify_registry_command_wraps_the_verifier(site, log_key, tmp_path):
    out = io.StringIO()
    call_command("verify_registry", site.url, "--key", str(log_key.verifier()), "--state",
                 str(tmp_path / "s.json"), stdout=out)
    assert "VERIFIED: 3 record(s)" in out.getvalue()


def test_verify_runs_without_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = ("import sys, registry.verify as v; "
            "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'; "
            "print(v.build_parser().prog)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "python -m registry.verify"
    result = subprocess.run([sys.executable, "-m", "registry.verify", "--help"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "--key" in result.stdout


def test_verify_a_restored_backup_verifies_against_the_log_it_carries(site, log_key, tmp_path):
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    backup = tmp_path / "backup.json"
    out = io.StringIO()
    call_command("export_registry", "--format", "backup", stdout=out)
    backup.write_text(out.getvalue(), encoding="utf-8")
    assert '"model": "registry.logentry"' in out.getvalue()
    call_command("flush", interactive=False)
    _restart()
    call_command("import_registry", str(backup), stdout=io.StringIO())
    _restart()
    log_sign()  # the signer's next look: the restored log extends what it signed
    status, out = _run(site.url, "--state", state)
    assert status == 0, out
    assert "consistent with the checkpoint of 4 entries seen before" in out
    editor = get_user_model().objects.get(username="erin")  # accounts are restored by name
    proposal_factory(user_factory("dora"), state="approved", editor=editor, snid="after")
    assert _run(site.url, "--state", state)[0] == 0  # the restored log goes on growing


def test_verify_reports_a_reservation_moved_behind_the_log(site, log_key, tmp_path):
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    granted = (timezone.localdate() + dt.timedelta(days=9)).isoformat()
    later = (timezone.localdate() + dt.timedelta(days=300)).isoformat()
    with connection.cursor() as cursor:  # nothing guards a reservation's date in the database
        cursor.execute("UPDATE registry_namespace SET reserved_until = %s WHERE snid = 'held'", [later])
    _restart()
    status, out = _run(site.url, "--state", state)
    assert status == 1
    assert (f"DIFFERS: the reservation of urn:ogf:held: (log entry 3): the log says until {granted}, "
            f"the export says until {later}") in out


# --- freshness: a frozen or replaying site ---------------------------------------------------------


@pytest.fixture
def replaying_site(site, log_key, tmp_path):
    """A copy of the site served over HTTP on the loopback, whose checkpoint the test re-signs with
    another time (what a frozen site, or one replaying an old answer, serves)."""
    import functools
    import http.server
    import threading

    from registry.transparency.note import TIME_FORMAT, TIME_PREFIX, Checkpoint

    copy = tmp_path / "copy"
    assert _run(site.url, "--key", log_key.verifier(), "--state", tmp_path / "copy.json", "--mirror", copy)[0] == 0
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(copy))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def sign_at(when: dt.datetime) -> None:
        signed = Checkpoint.parse((copy / "log/checkpoint").read_text().split("\n\n", 1)[0] + "\n")
        again = Checkpoint(signed.origin, signed.size, signed.root, (TIME_PREFIX + when.strftime(TIME_FORMAT),))
        (copy / "log/checkpoint").write_text(log_key.sign(again.text()))

    yield f"http://127.0.0.1:{server.server_address[1]}/", sign_at
    server.shutdown()


def test_verify_says_when_the_checkpoint_was_signed_and_remembers_it(site, log_key, tmp_path):
    state = tmp_path / "state.json"
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state)
    assert status == 0, out
    assert "the checkpoint was signed " in out and "ago)" in out
    signed = dt.datetime.strptime(json.loads(state.read_text())["time"], "%Y-%m-%dT%H:%M:%SZ")
    assert abs((dt.datetime.now(dt.UTC).replace(tzinfo=None) - signed).total_seconds()) < 120


def test_verify_reports_a_site_serving_a_checkpoint_signed_days_ago(replaying_site, log_key, tmp_path):
    url, sign_at = replaying_site
    sign_at(dt.datetime.now(dt.UTC) - dt.timedelta(days=3))
    status, out = _run(url, "--key", log_key.verifier(), "--state", tmp_path / "s.json")
    assert status == 1
    assert "(3 days ago), over 1 day: the site signs a new one every minute, so it may be frozen" in out
    assert _run(url, "--key", log_key.verifier(), "--state", tmp_path / "t.json", "--max-age", 4 * 86400)[0] == 0


def test_verify_reports_a_checkpoint_older_than_the_last_one_seen(site, replaying_site, log_key, tmp_path):
    url, sign_at = replaying_site
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    sign_at(dt.datetime.now(dt.UTC) - dt.timedelta(hours=2))
    status, out = _run(url, "--state", state)
    assert status == 1
    assert "earlier than the one the last run saw" in out


def _log_grown_to(size: int) -> None:
    """Steward changes appended until the log holds ``size`` entries: past one full entry bundle."""
    from django.db import transaction

    from registry.transparency.log import log_append, log_size_recorded

    with transaction.atomic():
        for n in range(log_size_recorded(), size):
            log_append("steward-changed", {"snid": "alpha", "change": "added", "steward": f"steward{n}",
                                           "reason": "bundle filler"})
    _restart()


def test_verify_downloads_a_full_entry_bundle_once(site, log_key, tmp_path):
    _log_grown_to(300)
    state, mirror = tmp_path / "state.json", tmp_path / "mirror"
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state, "--mirror", mirror)
    assert status == 0 and "log of 300 entries" in out and "read from the copy" not in out, out
    kept = tmp_path / "state.json.tiles" / "tile" / "entries" / "000"
    assert kept.read_bytes() == (mirror / "log/tile/entries/000").read_bytes()
    assert not (tmp_path / "state.json.tiles" / "tile" / "entries" / "001.p").exists()  # partial: not kept
    # The next run reads the full bundle from beside the state: its source may no longer serve it.
    (mirror / "log/tile/entries/000").unlink()
    again = tmp_path / "again"
    status, out = _run(mirror, "--state", state, "--mirror", again)
    assert status == 0, out
    assert "1 full entry bundle(s) (256 entries) read from the copy verified by earlier runs" in out
    assert "; 0 downloaded" in out
    assert (again / "log/tile/entries/000").read_bytes() == kept.read_bytes()  # the new mirror is whole
    status, out = _run(mirror, "--state", state, "--full")  # asked to read everything again
    assert status == 2 and "COULD NOT CHECK" in out and "entries/000" in out


def test_verify_a_kept_bundle_that_differs_is_fetched_again(site, log_key, tmp_path):
    _log_grown_to(260)
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    kept = tmp_path / "state.json.tiles" / "tile" / "entries" / "000"
    good = kept.read_bytes()
    kept.write_bytes(good.replace(b"bundle filler", b"bundle fillet", 1))
    status, out = _run(site.url, "--state", state)
    assert status == 0, out
    assert "read from the copy" not in out  # not trusted: it no longer matches the leaves verified
    assert kept.read_bytes() == good


def test_verify_a_rewritten_history_is_reported_as_on_a_first_run_despite_kept_bundles(site, log_key, tmp_path):
    from registry.transparency.merkle import leaf_hash

    _log_grown_to(260)
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    assert (tmp_path / "state.json.tiles" / "tile" / "entries" / "000").is_file()
    served = _checkpoint_served(site)
    # The database owner rewrites entry 10, hash and all, guards off; the signer signs nothing of it.
    with connection.cursor() as cursor:
        cursor.execute('SELECT leaf FROM registry_logentry WHERE "index" = 10')
        leaf = cursor.fetchone()[0].replace("bundle filler", "bundle fillet")
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE registry_logentry DISABLE TRIGGER registry_logentry_append_only")
        else:
            cursor.execute("DROP TRIGGER IF EXISTS registry_logentry_append_only")
        try:
            cursor.execute('UPDATE registry_logentry SET leaf = %s, leaf_hash = %s WHERE "index" = 10',
                           [leaf, leaf_hash(leaf.encode()).hex()])
        finally:
            if connection.vendor == "postgresql":
                cursor.execute("ALTER TABLE registry_logentry ENABLE TRIGGER registry_logentry_append_only")
            else:
                sqlite_triggers_install(connection)
    _restart()
    assert log_sign().damage  # the signer refuses
    assert _checkpoint_served(site) == served  # and the site serves the same signed checkpoint
    status, out = _run(site.url, "--state", state, "--full", "--no-save")
    assert status == 1, out
    assert "entry 10" in out and "NOT VERIFIED" in out
