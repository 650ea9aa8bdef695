"""The repair drill: damage is a state the log leaves. Two instances of the deployed server (granian, two
workers each, each with a floor file of its own: two hosts) share one database; for each kind of damage of
the tamper drill — an entry deleted with the head unchanged, the last entry deleted with the head moved
back, a leaf rewritten with its stored hash, a leaf rewritten behind its unchanged stored hash — the signer
(``manage.py log_sign``) finds it and both instances say so; the entries are then put back exactly, the
signer's pass is clean again, and every worker of both instances serves the tiles, the entry bundles, the
proofs and /log/ again within the poll interval, without a restart. On a SQLite file, and on PostgreSQL
(a database of the drill's own) where it is available."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from registry.dbguards import SQLITE_LOG_TRIGGERS
from registry.logcore.note import Signer

from ..faults.conftest import request
from ..faults.server import ROOT, Server

SETUP = """
from tests.factories import proposal_factory, user_factory
applicant, editor = user_factory("alice"), user_factory("erin", editor=True)
for name in ("alpha", "beta", "gamma", "delta", "epsilon"):
    proposal_factory(applicant, state="approved", editor=editor, snid=name)
from registry.transparency.models import LogHead
print(LogHead.objects.get().size)
"""
#: How long every worker may take to see the repair: the published checkpoint is read again every second,
#: a damaged tree is built again every second, and the lookup's index checks its stamp every second.
HEAL_SECONDS = 5.0


class Database:
    """Raw access to the drill's database, as someone who owns it: every guard off."""

    def __init__(self, target):
        self.target = target

    @contextmanager
    def cursor(self):
        if isinstance(self.target, Path):
            connection = sqlite3.connect(self.target, isolation_level=None, timeout=30)
            connection.execute("DROP TRIGGER IF EXISTS registry_logentry_append_only")
            connection.execute("DROP TRIGGER IF EXISTS registry_loghead_forward")
            try:
                yield connection.cursor()
            finally:
                for trigger in SQLITE_LOG_TRIGGERS:
                    connection.execute(trigger)
                connection.close()
        else:
            import psycopg

            with psycopg.connect(self.target, autocommit=True) as connection:
                connection.execute("SET session_replication_role = replica")
                yield connection.cursor()

    def run(self, sql: str, params=()):
        marker = "?" if isinstance(self.target, Path) else "%s"
        with self.cursor() as cursor:
            cursor.execute(sql.replace("%s", marker), params)
            return cursor.fetchall() if cursor.description else None


def _entry(db: Database, index: int) -> tuple:
    return db.run(
        'SELECT "index", kind, snid, version, leaf, leaf_hash, created_at FROM registry_logentry WHERE "index" = %s',
        [index],
    )[0]


def _put_back(db: Database, row: tuple) -> None:
    db.run(
        'INSERT INTO registry_logentry ("index", kind, snid, version, leaf, leaf_hash, created_at) '
        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
        list(row),
    )


def _rewrite(db: Database, index: int, *, with_hash: bool) -> tuple:
    from registry.logcore.merkle import leaf_hash

    row = _entry(db, index)
    leaf = row[4].replace('"v":1', '"v":1 ', 1)
    if with_hash:
        db.run(
            'UPDATE registry_logentry SET leaf = %s, leaf_hash = %s WHERE "index" = %s',
            [leaf, leaf_hash(leaf.encode()).hex(), index],
        )
    else:
        db.run('UPDATE registry_logentry SET leaf = %s WHERE "index" = %s', [leaf, index])
    return row


def _restore(db: Database, row: tuple) -> None:
    db.run('UPDATE registry_logentry SET leaf = %s, leaf_hash = %s WHERE "index" = %s', [row[4], row[5], row[0]])


def damages(db: Database, size: int):
    """Each kind of damage of the tamper drill: (name, do it, undo it exactly)."""

    def deleted(index):
        row = _entry(db, index)
        return (
            lambda: db.run('DELETE FROM registry_logentry WHERE "index" = %s', [index]),
            lambda: _put_back(db, row),
        )

    def deleted_head_moved():
        row = _entry(db, size - 1)

        def do():
            db.run('DELETE FROM registry_logentry WHERE "index" = %s', [size - 1])
            db.run("UPDATE registry_loghead SET size = %s", [size - 1])

        def undo():
            _put_back(db, row)
            db.run("UPDATE registry_loghead SET size = %s", [size])

        return do, undo

    def rewritten(with_hash):
        saved = []
        return (lambda: saved.append(_rewrite(db, 2, with_hash=with_hash)), lambda: _restore(db, saved[0]))

    return {
        "entry-deleted-head-unchanged": deleted(size - 2),
        "last-entry-deleted-head-moved": deleted_head_moved(),
        "leaf-and-stored-hash": rewritten(True),
        "leaf-behind-stored-hash": rewritten(False),
    }


def _sign(site: Server) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "log_sign"], cwd=ROOT, env=site.env, capture_output=True, text=True, timeout=120
    )


def _looks(site: Server, size: int) -> dict[str, tuple[int, bool]]:
    """What a worker of ``site`` answers now: (status, whether it says the log is damaged), per URL."""
    partial = f"000.p/{size}"
    urls = {
        "page": "/log/",
        "hash tile": f"/log/tile/0/{partial}",
        "entry bundle": f"/log/tile/entries/{partial}",
        "proof": f"/api/log/entries/{size - 2}/proof",
        "lookup": "/api/lookup/?urn=urn:ogf:alpha:x",
    }
    seen = {}
    for name, path in urls.items():
        answer = request(site.url, "GET", path, headers={"Host": "127.0.0.1"}, timeout=30)
        damaged = "Registry-Log-Damage" in answer.headers or (name == "page" and b"The log is damaged" in answer.body)
        seen[name] = (answer.status, damaged)
    return seen


def _all_well(sites: list[Server], size: int) -> list[str]:
    """What is still not well on any worker (each URL asked eight times of each instance: both workers)."""
    wrong = []
    for site in sites:
        for _ in range(8):
            for name, (status, damaged) in _looks(site, size).items():
                if status != 200 or damaged:
                    wrong.append(f"{site.url} {name}: {status}{' damaged' if damaged else ''}")
    return wrong


def _drill(tmp_path: Path, database, db: Database) -> None:
    key = Signer.generate("registry.test/log")
    common = {
        "REGISTRY_LOG_KEY": str(key),
        "REGISTRY_LOG_STATE_DIR": str(tmp_path / "signer"),
        "REGISTRY_LOG_SIGN_POLL": "1",
    }
    sites = [
        Server(database, **common, REGISTRY_LOG_SERVED_FILE=str(tmp_path / f"host-{name}" / "served.json"))
        for name in "ab"
    ]
    size = json.loads(str(sites[0].setup(SETUP)))
    for site in sites:
        site.start()
    try:
        assert _sign(sites[0]).returncode == 0
        assert _all_well(sites, size) == []
        for name, (do, undo) in damages(db, size).items():
            do()
            signed = _sign(sites[0])
            assert signed.returncode == 1, (name, signed.stdout, signed.stderr)
            time.sleep(1.5)  # the poll interval: every worker reads the signer's verdict
            for site in sites:
                for _ in range(4):
                    assert _looks(site, size)["page"][1], (name, site.url)
            undo()
            signed = _sign(sites[0])
            assert signed.returncode == 0, (name, signed.stdout, signed.stderr)
            repaired, wrong = time.monotonic(), ["not asked yet"]
            while wrong and time.monotonic() - repaired < HEAL_SECONDS:
                time.sleep(0.25)
                wrong = _all_well(sites, size)
            assert wrong == [], (name, wrong)
    finally:
        for site in sites:
            site.stop()


@pytest.mark.long
def test_repair_drill_every_worker_of_two_instances_heals_on_sqlite(tmp_path):
    database = tmp_path / "db.sqlite3"
    _drill(tmp_path, database, Database(database))


@pytest.mark.long
@pytest.mark.external("postgresql")
def test_repair_drill_every_worker_of_two_instances_heals_on_postgresql(tmp_path, postgres):
    import os

    import psycopg

    name = f"repair_drill_{os.getpid()}_{int(time.time())}"
    admin = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    url = admin.rsplit("/", 1)[0] + "/" + name
    try:
        _drill(tmp_path, url, Database(url))
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
