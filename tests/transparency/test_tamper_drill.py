"""The tamper drill, signer side: someone with write access to the database rewrites what the log holds.

For each rewrite — a leaf and its stored hash; a leaf behind its unchanged stored hash; the last
entry deleted, with and without moving the head back; a resolver's template; a deprecation
inserted; an earlier version rewritten; the current version's prose rewritten — no signed
checkpoint of the size signed before with another root is ever served, by a worker that was
running or by one started afterwards. The signer's next pass, as after an approval (the quick
check), finds every rewrite of the log but the leaf behind its stored hash and makes the full
check before signing anything; the full check, due at least once a minute, finds that one too.
The signer refuses to sign a log that does not extend its record (and says so: /log/, the
lookup's header, the command's exit status); ``start`` and ``log_backfill`` change nothing in a
damaged log; and Go's sumdb note/tlog client holding the checkpoint saved before agrees
(tests/transparency/go/forkcheck.go). The verifier's side of the drill is in test_verify_tamper.py.
"""

from __future__ import annotations

import base64
import datetime as dt
import io
import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from registry import services
from registry.logcore.note import checkpoint_open
from registry.logcore.tiles import bundle_entries
from registry.lookup import registry_invalidate
from registry.resolution.services import resolvers_replace
from registry.transparency.log import CHECKPOINT_PERIOD, log_cache_clear, log_damage
from registry.transparency.models import LogEntry, LogHead
from registry.transparency.signer import log_sign

from ..factories import data_factory, proposal_factory, user_factory
from .conftest import go_program, guards_off


def _leaf_and_hash(cursor, site):
    cursor.execute('SELECT leaf FROM registry_logentry WHERE "index" = 2')  # version 2
    leaf = cursor.fetchone()[0].replace("Example", "Exemplary", 1)
    from registry.logcore.merkle import leaf_hash

    cursor.execute(
        'UPDATE registry_logentry SET leaf = %s, leaf_hash = %s WHERE "index" = 2',
        [leaf, leaf_hash(leaf.encode()).hex()],
    )


def _leaf_behind_stored_hash(cursor, site):
    """The leaf changed, its stored hash left as it was: only re-hashing the leaf shows it."""
    cursor.execute('SELECT leaf FROM registry_logentry WHERE "index" = 2')  # version 2
    leaf = cursor.fetchone()[0].replace("Example", "Exemplary", 1)
    cursor.execute('UPDATE registry_logentry SET leaf = %s WHERE "index" = 2', [leaf])


def _last_deleted(cursor, site):
    cursor.execute('DELETE FROM registry_logentry WHERE "index" = %s', [site.size - 1])


def _last_deleted_head_moved(cursor, site):
    _last_deleted(cursor, site)
    cursor.execute("UPDATE registry_loghead SET size = %s", [site.size - 1])


def _resolver_template(cursor, site):
    cursor.execute(
        "UPDATE registry_resolver SET template = %s WHERE retired_at IS NULL", ["https://elsewhere.example.net/{nss}"]
    )


def _deprecation_inserted(cursor, site):
    cursor.execute(
        "INSERT INTO registry_deprecation (namespace_id, reason, deprecated_by_id, deprecated_at, "
        "end_reason) SELECT id, 'quietly', %s, %s, '' FROM registry_namespace WHERE snid = 'example'",
        [site.editor.pk, timezone.now()],
    )


def _earlier_version(cursor, site):
    cursor.execute(
        "UPDATE registry_proposal SET title = 'Rewritten', grammar_abnf = %s WHERE snid = 'example' AND version = 1",
        ['nss = "x"'],
    )


def _current_prose(cursor, site):
    cursor.execute("SELECT id, sections FROM registry_proposal WHERE snid = 'example' AND version = 2")
    pk, sections = cursor.fetchone()
    sections = json.loads(sections) if isinstance(sections, str) else sections
    sections = {key: "Quietly rewritten." for key in sections}
    cursor.execute("UPDATE registry_proposal SET sections = %s WHERE id = %s", [json.dumps(sections), pk])


#: rewrite -> (how, whether it damages the log itself, whether the signer's quick check sees it: if not,
#: the full check, at least once a minute, does)
REWRITES = {
    "leaf-and-stored-hash": (_leaf_and_hash, True, True),
    "leaf-behind-stored-hash": (_leaf_behind_stored_hash, True, False),
    "last-entry-deleted": (_last_deleted, True, True),
    "last-entry-deleted-head-moved": (_last_deleted_head_moved, True, True),
    "resolver-template": (_resolver_template, False, False),
    "deprecation-inserted": (_deprecation_inserted, False, False),
    "earlier-version": (_earlier_version, False, False),
    "current-prose": (_current_prose, False, False),
}


@pytest.fixture
def site(transactional_db, live_server):
    """A registry with two versions of an SNID, resolvers, a reservation; its checkpoint signed."""
    applicant, editor = user_factory("alice"), user_factory("erin", editor=True)
    other_editor = user_factory("ed2", editor=True)
    proposal_factory(applicant, state="approved", editor=editor)  # urn:ogf:example: version 1
    second = services.proposal_create(data_factory(version=2), applicant)
    second = services.proposal_transition(second, "submit", applicant)
    services.proposal_transition(second, "approve", editor, override_reason="test data")
    resolvers_replace(
        "example", [{"name": "main", "template": "https://r.example.org/{nss}"}], other_editor, "Its first resolver."
    )
    services.namespace_reserve(
        "held", editor, until=timezone.localdate() + timezone.timedelta(days=9), reason="r", reserved_for=applicant
    )
    log_sign()
    live_server.editor = editor
    live_server.size = LogHead.objects.get().size
    live_server.saved = _get(live_server.url + "/log/checkpoint").decode()
    return live_server


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def _fresh_worker():
    """What a worker started now knows: nothing cached."""
    log_cache_clear()
    registry_invalidate()


def _leaves(site, size: int) -> list[bytes]:
    """The leaves the site serves for a tree of ``size`` (as many as it can)."""
    for width in range(size, 0, -1):
        try:
            return bundle_entries(_get(f"{site.url}/log/tile/entries/000.p/{width}"))
        except urllib.error.HTTPError:
            continue
    return []


def _drill(site, rewrite: str, log_key):
    """Tamper, then what every part of the site does about it; returns what Go is given."""
    tamper, damaging, quick_finds = REWRITES[rewrite]
    saved = checkpoint_open(site.saved, log_key.verifier())
    running_worker = _get(site.url + "/log/checkpoint").decode()  # a worker that was running
    entries_before = list(LogEntry.objects.values_list("index", "leaf"))
    with guards_off() as cursor:
        tamper(cursor, site)
    served = [running_worker]
    # The signer's next pass, as after an approval: the quick check (stored hashes against its record, new
    # leaves re-hashed), which for a rewrite of the log finds something odd and makes the full check.
    quick = log_sign(full=False)
    assert quick.full is quick_finds and bool(quick.damage) is quick_finds and not quick.signed, quick
    served.append(_get(site.url + "/log/checkpoint").decode())
    later = log_sign(now=timezone.now() + dt.timedelta(seconds=2 * CHECKPOINT_PERIOD))  # when a new one is due
    assert later.full and bool(later.damage) is damaging and later.signed is not damaging, later
    assert not quick_finds or later.damage == quick.damage
    outcome = later
    served.append(_get(site.url + "/log/checkpoint").decode())
    _fresh_worker()  # a worker started after the rewrite
    served.append(_get(site.url + "/log/checkpoint").decode())
    for note in served:
        checkpoint = checkpoint_open(note, log_key.verifier())
        assert (checkpoint.size, checkpoint.root) == (saved.size, saved.root), rewrite
    assert bool(outcome.damage) is damaging, outcome
    head_after = LogHead.objects.get().size
    entries_after = list(LogEntry.objects.values_list("index", "leaf"))
    if damaging:
        assert "no longer extends the checkpoint signed last" in outcome.damage
        page = _get(site.url + "/log/").decode()
        assert "The log is damaged" in page
        lookup = urllib.request.urlopen(site.url + "/api/lookup/?urn=urn:ogf:example:x", timeout=30)
        assert "no longer extends" in lookup.headers["Registry-Log-Damage"]
        assert log_damage()
        with pytest.raises(CommandError) as refused:
            call_command("log_backfill", stdout=io.StringIO())
        assert "log_backfill adds nothing to a damaged log" in str(refused.value)
        with pytest.raises(CommandError) as refused:
            call_command("start", "--no-serve", stdout=io.StringIO())
        assert "adds nothing to a damaged log" in str(refused.value)
        with pytest.raises(CommandError) as refused:
            call_command("log_sign", stdout=io.StringIO(), stderr=io.StringIO())
        assert refused.value.returncode == 1
    else:
        assert log_damage() is None
        lookup = urllib.request.urlopen(site.url + "/api/lookup/?urn=urn:ogf:example:x", timeout=30)
        assert lookup.headers["Registry-Log-Damage"] is None
        call_command("log_backfill", stdout=io.StringIO())
    # Nothing re-appended, renumbered or signed anew by any of it.
    assert LogHead.objects.get().size == head_after
    assert list(LogEntry.objects.values_list("index", "leaf")) == entries_after
    assert checkpoint_open(_get(site.url + "/log/checkpoint").decode(), log_key.verifier()).root == saved.root
    if not damaging:
        assert entries_after == entries_before
    return {
        "verifier_key": str(log_key.verifier()),
        "saved": site.saved,
        "served": served,
        "proof": [],
        "leaves": [base64.b64encode(leaf).decode() for leaf in _leaves(site, saved.size)],
    }


@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_tamper_drill_no_fork_is_signed_and_nothing_is_appended(site, rewrite, log_key):
    _drill(site, rewrite, log_key)


@pytest.fixture(scope="session")
def forkcheck(tmp_path_factory):
    return go_program(tmp_path_factory, Path(__file__).parent / "go" / "forkcheck.go")


@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_tamper_drill_go_holding_the_saved_checkpoint_agrees(site, rewrite, log_key, forkcheck):
    request = _drill(site, rewrite, log_key)
    result = subprocess.run([str(forkcheck)], input=json.dumps(request), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["errors"] == [] and report["fork"] is False and report["consistent"] is True
    # Where the log itself was rewritten, Go finds the served leaves do not make the signed root,
    # as the site's damage notice says; elsewhere they do.
    assert report["leaves_make_signed_root"] is (not REWRITES[rewrite][1]), report


def _server(database_url: str, log_key, port: int):
    """An app server of its own (a process, production settings), holding only the verifier key."""
    import os
    import signal
    import socket
    import time

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchmarks.settings",
        "DATABASE_URL": database_url,
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "WEB_WARM_PAGES": "0",
        "REGISTRY_LOG_KEY": "",
        "REGISTRY_LOG_VERIFIER_KEY": str(log_key.verifier()),
    }
    from registry import serve

    process = subprocess.Popen(
        serve.command(),
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.3)
    os.killpg(process.pid, signal.SIGKILL)
    raise AssertionError(f"the server on port {port} did not start")


@pytest.mark.django_db(transaction=True)
def test_tamper_drill_worker_processes_started_before_and_after_serve_one_checkpoint(postgres, log_key):
    """The split view of the issue: workers started before and after a rewrite, each a process of its own."""
    import os
    import signal
    import socket

    from django.db import connection

    applicant, editor = user_factory("alice"), user_factory("erin", editor=True)
    for name in ("alpha", "beta", "gamma"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    log_sign()
    settings = connection.settings_dict
    database_url = (
        f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    ports = []
    for _ in range(2):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            ports.append(sock.getsockname()[1])
    processes = [_server(database_url, log_key, ports[0])]
    try:
        before = _get(f"http://127.0.0.1:{ports[0]}/log/checkpoint")
        with guards_off() as cursor:
            _last_deleted_head_moved(cursor, type("Site", (), {"size": 6})())  # three versions, their stewards
        assert log_sign().damage
        processes.append(_server(database_url, log_key, ports[1]))
        import time

        time.sleep(1.5)  # the first server's once-a-second look at the published row
        for port in ports:
            assert _get(f"http://127.0.0.1:{port}/log/checkpoint") == before
            lookup = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/lookup/?urn=urn:ogf:alpha:x", timeout=30)
            assert "entry 5 is gone" in lookup.headers["Registry-Log-Damage"]
            assert "The log is damaged" in _get(f"http://127.0.0.1:{port}/log/").decode()
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
