"""The mirror's verifier against a real server on the loopback: clean, grown, tampered, and re-keyed.

The site never signs a rewritten log (registry/transparency/signer.py): after a rewrite it keeps serving
the last checkpoint it signed, and the verifier must find the rewrite against that checkpoint. The live
server's tests commit, so the signer's pass runs after each change as in development; a rewrite behind
the application's back commits nothing, so the tests run the signer's next pass (``log_sign``) themselves,
as the watching signer would.
"""

import contextlib
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
from registry.logcore.note import Signer
from registry.lookup import registry_invalidate
from registry.transparency.log import log_cache_clear
from registry.transparency.signer import log_sign

from ..factories import proposal_factory, user_factory
from . import conftest

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
    services.namespace_reserve(
        "held", editor, until=timezone.localdate() + dt.timedelta(days=9), reason="r", reserved_for=applicant
    )
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
    assert "VERIFIED: the checkpoint of 7 entries is signed by registry.test/log+" in out
    assert "every one of its 7 leaves was read and they hash to its root" in out
    assert (
        "3 registered SNID(s) with 3 version(s), the resolvers of 0, 3 steward(s), 0 deprecation(s), "
        "1 reservation(s) in force — is what the site publishes now"
    ) in out
    assert "not compared" not in out  # every kind the log holds, the registrants' stewardships included
    assert "first run: there is no earlier checkpoint to compare this one with" in out
    assert "consistent with the checkpoint" not in out and "seen before" not in out
    assert "(signature verified)" in out
    saved = json.loads(state.read_text())
    assert saved["size"] == 7 and saved["verifier_key"] == str(log_key.verifier())
    assert [what for _, what in saved["leaves"]][:3] == [
        "urn:ogf:alpha: version 1",
        "steward-changed urn:ogf:alpha:",
        "urn:ogf:beta: version 1",
    ]


def test_verify_a_grown_log_is_consistent_with_the_last_checkpoint(site, log_key, tmp_path):
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    proposal_factory(site.applicant, state="approved", editor=site.editor, snid="delta")
    status, out = _run(site.url, "--state", state)  # the pinned key
    assert status == 0, out
    assert "consistent with the checkpoint of 7 entries seen before" in out
    assert "the checkpoint of 9 entries is signed" in out and "it extends the checkpoint of 7 entries seen on" in out


@pytest.mark.parametrize("worker", ["running", "started-after"])
def test_verify_a_deleted_entry_the_site_signed_is_a_difference_naming_it(site, log_key, tmp_path, worker):
    """Entry 4 deleted behind the application's back: the signer signs nothing, the site keeps serving its
    checkpoint of 7 entries and answers 410 for the entries it no longer has. The verifier names them (a
    difference, exit 1; never 'could not check'), with its state and fresh, whether the worker that answers
    was running before (its cached tree still holds entry 4) or started after."""
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    served = _checkpoint_served(site)
    with guards_off(restart=worker == "started-after") as cursor:
        cursor.execute('DELETE FROM registry_logentry WHERE "index" = 4')
    outcome = log_sign()  # the signer's next pass
    assert "entry 4 is missing from the log table" in outcome.damage and not outcome.signed
    assert _checkpoint_served(site) == served  # the last good checkpoint, unchanged
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state)
    assert status == 1, out
    assert (
        "DIFFERS: the site does not serve entries 4 to 6 (when last verified 4: urn:ogf:gamma: version 1; "
        "5: steward-changed urn:ogf:gamma:; 6: reservation-granted urn:ogf:held:), which its signed "
        "checkpoint of 7 entries covers ("
    ) in out
    assert "HTTP 410 The transparency log is damaged: entry 4, covered by the signed checkpoint of 7 entries" in out
    assert "NOT VERIFIED: 1 difference(s)." in out
    assert "was not compared with what the site publishes: the site does not serve every entry" in out
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", tmp_path / "fresh.json")
    assert status == 1, out
    assert "DIFFERS: the site does not serve entries 4 to 6, which its signed checkpoint of 7 entries covers" in out
    assert json.loads(state.read_text())["size"] == 7  # the last good state is kept
    assert not (tmp_path / "fresh.json").exists()
    assert "entry 4 is missing from the log table" in site_page(site)


def test_verify_reports_a_rewritten_version_the_signer_has_no_say_in(site, log_key, tmp_path):
    """A version's row rewritten (not the log): the log is whole, so the signer signs on; the verifier finds
    the site publishes another title than the one logged."""
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    with guards_off() as cursor:
        cursor.execute(
            "UPDATE registry_proposal SET title = 'A quietly different title' "
            "WHERE snid = 'alpha' AND state = 'approved'"
        )
    assert not log_sign().damage  # nothing in the log changed
    for path in (state, tmp_path / "fresh.json"):
        status, out = _run(site.url, "--key", log_key.verifier(), "--state", path)
        assert status == 1, out
        assert (
            'DIFFERS: urn:ogf:alpha: version 1 (log entry 0): title: the log says "Example-URN: supercomputers '
            'and clusters (the GFD.191 worked example)", the site publishes "A quietly different title"'
        ) in out
        assert "NOT VERIFIED" in out


def _checkpoint_served(site) -> str:
    import urllib.request

    with urllib.request.urlopen(site.url + "/log/checkpoint") as response:
        return response.read().decode()


def site_page(site) -> str:
    import urllib.request

    with urllib.request.urlopen(site.url + "/log/") as response:
        return response.read().decode()


def test_verify_a_registrant_who_chooses_a_public_name_still_verifies(site, log_key, tmp_path):
    """The registrant (each SNID's first steward, logged at approval) chooses a name to be shown under: the
    log says so for each of their SNIDs, and the site lists them by it."""
    from registry.stewardship import services as stewardship

    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    stewardship.steward_public_name(site.applicant, "Alice Example")
    status, out = _run(site.url, "--state", state)
    assert status == 0, out
    assert "the checkpoint of 10 entries" in out and "3 steward(s)" in out


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
    assert log_sign().signed  # the signer, restarted with the new key, signs the same tree with it
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
    assert (mirror / "log" / "checkpoint").is_file() and (mirror / "log/tile/entries/000.p/7").is_file()
    status, out = _run(mirror, "--key", log_key.verifier(), "--state", tmp_path / "b.json")
    assert status == 0, out
    export = json.loads((mirror / "urn" / "registry.json").read_text())
    export["snids"][1]["grammar"]["abnf"] += "; edited\n"
    edited = tmp_path / "registry.json"
    edited.write_text(json.dumps(export))
    status, out = _run(mirror, "--key", log_key.verifier(), "--state", tmp_path / "b.json", "--export", edited)
    assert status == 1
    assert "urn:ogf:beta: version 1 (log entry 2): grammar.abnf: the log says" in out


def test_verify_an_unreachable_site_could_not_be_checked(tmp_path):
    status, out = _run("http://127.0.0.1:9/", "--state", tmp_path / "s.json")
    assert status == 2 and out.startswith("COULD NOT CHECK: http://127.0.0.1:9/log/key")


def test_verify_registry_command_wraps_the_verifier(site, log_key, tmp_path):
    out = io.StringIO()
    call_command(
        "verify_registry", site.url, "--key", str(log_key.verifier()), "--state", str(tmp_path / "s.json"), stdout=out
    )
    assert "VERIFIED: the checkpoint of 7 entries" in out.getvalue()


def test_verify_runs_without_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = (
        "import sys, registry.verify as v; "
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'; "
        "print(v.build_parser().prog)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "python -m registry.verify"
    result = subprocess.run(
        [sys.executable, "-m", "registry.verify", "--help"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
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
    assert not log_sign().damage  # the signer's next look: the restored log extends what it signed
    status, out = _run(site.url, "--state", state)
    assert status == 0, out
    assert "consistent with the checkpoint of 7 entries seen before" in out
    editor = get_user_model().objects.get(username="erin")  # accounts are restored by name
    proposal_factory(user_factory("dora"), state="approved", editor=editor, snid="after")
    assert _run(site.url, "--state", state)[0] == 0  # the restored log goes on growing


def test_verify_a_registry_upgraded_to_the_log_verifies_once_backfilled(site, log_key, tmp_path, settings):
    """A registry that predates the log (the same rows, no log, no checkpoint, no signer record), with
    versions, resolvers, stewards, a deprecation and a reservation: after ``log_backfill`` it verifies, and
    a second backfill adds nothing."""
    import shutil

    from registry.resolution.services import resolvers_replace
    from registry.stewardship import services as stewardship
    from registry.transparency.signer import signer_memory_clear

    resolvers_replace(
        "alpha",
        [{"name": "main", "template": "https://a.example.org/{nss}"}],
        user_factory("otto", editor=True),
        "The resolver.",
    )
    stewardship.steward_add(services.namespace_get("beta"), user_factory("sam"), site.editor, reason="Maintainer.")
    stewardship.snid_deprecate(services.namespace_get("beta"), site.editor, reason="Superseded.", successor="alpha")
    with guards_off() as cursor:
        for table in ("registry_logentry", "registry_loghead", "registry_logsigned"):
            cursor.execute(f"DELETE FROM {table}")
    shutil.rmtree(settings.REGISTRY_LOG_STATE_DIR)
    signer_memory_clear()  # a registry that never had a log never had a signer running
    out = io.StringIO()
    call_command("log_backfill", stdout=out)  # the signer signs once it commits (development)
    assert (
        "Logged 3 versions, 4 stewards, 1 resolver set, 1 deprecation and 1 reservation; the log has 10 entries."
    ) in out.getvalue()
    state = tmp_path / "state.json"
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state)
    assert status == 0, out
    assert (
        "3 registered SNID(s) with 3 version(s), the resolvers of 1, 4 steward(s), 1 deprecation(s), "
        "1 reservation(s) in force — is what the site publishes now"
    ) in out
    again = io.StringIO()
    call_command("log_backfill", stdout=again)
    assert "Logged 0 versions, 0 stewards" in again.getvalue()
    assert _run(site.url, "--state", state)[0] == 0


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
    assert (
        f"DIFFERS: the reservation of urn:ogf:held: (log entry 6): the log says until {granted}, "
        f"registry.json says until {later}"
    ) in out


# --- freshness: a frozen or replaying site ---------------------------------------------------------


@pytest.fixture
def replaying_site(site, log_key, tmp_path):
    """A copy of the site served over HTTP on the loopback, whose checkpoint the test re-signs with
    another time (what a frozen site, or one replaying an old answer, serves)."""
    import functools
    import http.server
    import threading

    from registry.logcore.note import TIME_FORMAT, TIME_PREFIX, Checkpoint

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


def test_verify_a_fault_serving_a_bundle_could_not_be_checked_and_is_no_difference(site, log_key, tmp_path):
    """A proxy's 503 for an entry bundle is a fault: COULD NOT CHECK (exit 2), nothing concluded. Only the
    site saying it does not have a bundle its checkpoint covers (404, 410) is a difference."""
    import functools
    import http.server
    import threading

    copy = tmp_path / "copy"
    assert _run(site.url, "--key", log_key.verifier(), "--state", tmp_path / "copy.json", "--mirror", copy)[0] == 0

    class Flaky(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            if "/tile/entries/" in self.path:
                self.send_error(503, "Service Unavailable", "the upstream timed out")
                return
            super().do_GET()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Flaky, directory=str(copy)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        status, out = _run(
            f"http://127.0.0.1:{server.server_address[1]}/", "--key", log_key.verifier(), "--state", tmp_path / "s.json"
        )
    finally:
        server.shutdown()
    assert status == 2 and out.startswith("COULD NOT CHECK: ") and "HTTP 503" in out, out
    assert not (tmp_path / "s.json").exists()


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


def test_verify_reports_a_second_tree_signed_for_a_size_seen_before(replaying_site, log_key, tmp_path):
    """A stolen key, or a signer that lost its record: a checkpoint of the size seen before with another
    root. The checkpoints alone show the fork, whatever the leaves served."""
    from registry.logcore.note import TIME_FORMAT, TIME_PREFIX, Checkpoint

    url, _ = replaying_site
    state = tmp_path / "state.json"
    assert _run(url, "--key", log_key.verifier(), "--state", state)[0] == 0
    copy = tmp_path / "copy" / "log" / "checkpoint"
    signed = Checkpoint.parse(copy.read_text().split("\n\n", 1)[0] + "\n")
    when = TIME_PREFIX + dt.datetime.now(dt.UTC).strftime(TIME_FORMAT)
    copy.write_text(log_key.sign(Checkpoint(signed.origin, signed.size, bytes(32), (when,)).text()))
    status, out = _run(url, "--state", state)
    assert status == 1, out
    assert (
        f"DIFFERS: the site signed two different trees of {signed.size} entries: this checkpoint's root is not "
        "the one seen before" in out
    )
    assert "DIFFERS: the entries served do not hash to the signed root" in out


def _log_grown_to(site, size: int) -> None:
    """Reservations granted (each one a leaf) until the log holds ``size`` entries: past one full bundle."""
    from django.db import transaction

    from registry.transparency.log import log_size_recorded

    until = timezone.localdate() + dt.timedelta(days=30)
    with transaction.atomic():  # one commit, not 300
        for n in range(log_size_recorded(), size):
            services.namespace_reserve(f"fill{n}", site.editor, until=until, reason="r", reserved_for=site.applicant)
    _restart()


@contextlib.contextmanager
def guards_off(*, restart: bool = True):
    """What the database owner can do (conftest.guards_off: every trigger off for a moment), then what a
    server started afterwards knows (``restart``: nothing cached)."""
    with conftest.guards_off() as cursor:
        yield cursor
    if restart:
        _restart()


def _rewrite_leaf(index: int, old: str, new: str, *, rehash: bool) -> None:
    """The database owner rewrites entry ``index`` (its stored hash too, if ``rehash``)."""
    from registry.logcore.merkle import leaf_hash

    with guards_off() as cursor:
        cursor.execute('SELECT leaf, leaf_hash FROM registry_logentry WHERE "index" = %s', [index])
        leaf, hashed = cursor.fetchone()
        assert old in leaf
        leaf = leaf.replace(old, new)
        cursor.execute(
            'UPDATE registry_logentry SET leaf = %s, leaf_hash = %s WHERE "index" = %s',
            [leaf, leaf_hash(leaf.encode()).hex() if rehash else hashed, index],
        )


def test_verify_reads_every_leaf_on_every_run_and_keeps_the_verified_ones(site, log_key, tmp_path):
    _log_grown_to(site, 300)
    state, mirror = tmp_path / "state.json", tmp_path / "mirror"
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state, "--mirror", mirror)
    assert status == 0 and "the checkpoint of 300 entries" in out, out
    kept = tmp_path / "state.json.tiles" / "tile" / "entries"
    assert (kept / "000").read_bytes() == (mirror / "log/tile/entries/000").read_bytes()
    assert (kept / "001.p" / "44").is_file()
    # A source that no longer serves a bundle its checkpoint needs is reported, kept copy or not.
    (mirror / "log/tile/entries/000").unlink()
    status, out = _run(mirror, "--state", state, "--no-save")
    assert status == 1, out
    assert (
        "DIFFERS: the site does not serve entries 0 to 255 (when last verified 0: urn:ogf:alpha: version 1; "
        "1: steward-changed urn:ogf:alpha:;"
    ) in out
    assert "which its signed checkpoint of 300 entries covers (" in out and "log/tile/entries/000: no such file" in out
    _log_grown_to(site, 310)
    assert _run(site.url, "--state", state)[0] == 0
    assert not (kept / "001.p" / "44").exists() and (kept / "001.p" / "54").is_file()  # only the widest is kept


def test_verify_a_leaf_changed_behind_its_unchanged_stored_hash_is_found_despite_kept_leaves(site, log_key, tmp_path):
    _log_grown_to(site, 260)
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    assert (tmp_path / "state.json.tiles" / "tile" / "entries" / "000").is_file()
    until = (timezone.localdate() + dt.timedelta(days=30)).isoformat()
    _rewrite_leaf(10, until, "2031-01-01", rehash=False)  # the signed tree does not change
    for args in (("--state", state), ("--key", log_key.verifier(), "--state", tmp_path / "fresh.json")):
        status, out = _run(site.url, *args)
        assert status == 1, out
        assert "DIFFERS: the entries served do not hash to the signed root" in out
        assert "DIFFERS: entry 10: its leaf no longer matches the hash the log's tree holds for it" in out
        assert "DIFFERS: entry 11" not in out


def test_verify_a_rewritten_leaf_and_hash_the_site_refuses_to_sign_is_named(site, log_key, tmp_path):
    """Entry 10 and its stored hash rewritten: the signer refuses, the site keeps serving the checkpoint it
    signed, whose root the leaves served no longer make. The verifier names entry 10, with its state (what
    changed in it) and fresh (what it says against what the site publishes)."""
    _log_grown_to(site, 260)
    state = tmp_path / "state.json"
    assert _run(site.url, "--key", log_key.verifier(), "--state", state)[0] == 0
    served = _checkpoint_served(site)
    until = (timezone.localdate() + dt.timedelta(days=30)).isoformat()
    _rewrite_leaf(10, until, "2031-01-01", rehash=True)
    outcome = log_sign()
    assert "entry 10 differs from the entry signed under that number" in outcome.damage and not outcome.signed
    assert _checkpoint_served(site) == served
    status, out = _run(site.url, "--state", state)
    assert status == 1, out
    assert "DIFFERS: the entries served do not hash to the signed root" in out
    assert (
        f"DIFFERS: entry 10 (reservation-granted urn:ogf:fill10:) seen before was changed: it now reads "
        f'reservation-granted urn:ogf:fill10:; reserved_until: was "{until}", now "2031-01-01"'
    ) in out
    assert "seen before is now entry" not in out and "DIFFERS: entry 11" not in out
    assert "does not extend" not in out and "a fork" not in out  # the checkpoint is the one seen before
    status, out = _run(site.url, "--state", tmp_path / "fresh.json")
    assert status == 1, out
    assert "DIFFERS: the entries served do not hash to the signed root" in out
    assert (
        f"DIFFERS: the reservation of urn:ogf:fill10: (log entry 10): the log says until 2031-01-01, "
        f"registry.json says until {until}"
    ) in out


def test_verify_identical_leaves_are_matched_in_order(tmp_path):
    """Two identical leaves (one change logged twice in the same second): deleting the last names the last."""
    from registry.logcore.merkle import leaf_hash
    from registry.verifier.history import entries_changed
    from registry.verifier.store import BundleStore

    a, b = b'{"a":1}', b'{"b":2}'
    seen = [[leaf_hash(x).hex(), name] for x, name in ((a, "A"), (b, "B"), (a, "A again"), (a, "A thrice"))]
    now = [leaf_hash(x) for x in (a, b, a)]
    store = BundleStore(tmp_path / "state.json")
    assert entries_changed(seen, now, [None] * 3, store) == ["entry 3 (A thrice) seen before is no longer in the log"]
    # The middle copy deleted and the rest renumbered: what followed it moved down by one.
    c = b'{"c":3}'
    seen.append([leaf_hash(c).hex(), "C"])
    now = [leaf_hash(x) for x in (a, b, a, c)]
    assert entries_changed(seen, now, [None] * 4, store) == [
        "entry 4 (C) seen before is now entry 3",
        "entry 3 (A thrice) seen before is no longer in the log",
    ]


@pytest.mark.parametrize("option", [["--max-age", "\u0664\u0661\u0665"], ["--max-age", "1e9"], ["--quorum", "\u0662"]])
def test_verify_options_take_ascii_numbers_only(option):
    with pytest.raises(SystemExit) as exit:
        verify.build_parser().parse_args(["http://127.0.0.1:9/", *option])
    assert exit.value.code == 2


def test_verify_malformed_exports_are_differences_not_crashes():
    from registry.verifier.compare import compare
    from registry.verifier.replay import replay

    log = replay(
        [
            {
                "kind": "snid-version",
                "snid": "a",
                "version": 1,
                "record_sha256": "0" * 64,
                "document_sha256": "0" * 64,
                "at": "2026-01-01T00:00:00Z",
                "v": 1,
            }
        ]
    )
    garbage = {
        "snids": [
            {
                "snid": "a",
                "version": "1",
                "versions": "x",
                "stewards": 5,
                "resolvers": {},
                "deprecation": 3,
                "status": None,
            },
            7,
            {"snid": None},
        ],
        "reservations": "y",
    }
    compared = compare(log, garbage, garbage, today=dt.date(2026, 1, 2), sections_before={"a/1": "z"})
    assert compared.problems and any(
        "urn:ogf:a: version 1 is in the log (entry 0) but the site no longer publishes it" in p
        for p in compared.problems
    )
