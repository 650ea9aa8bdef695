import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from registry.transparency.note import Signer


@pytest.fixture(scope="session")
def log_signer_key():
    return Signer.generate("registry.test/log")


@pytest.fixture(autouse=True)
def log_key(settings, log_signer_key):
    """Every test here signs with one test key, never the checkout's development key."""
    settings.REGISTRY_LOG_KEY = str(log_signer_key)
    return log_signer_key


@contextmanager
def guards_off():
    """What the database's owner can do: write with every trigger off (a cursor to write with)."""
    from django.db import connection

    from registry.dbguards import sqlite_triggers_install, sqlite_triggers_remove

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = replica")
        else:
            sqlite_triggers_remove(connection)
        try:
            yield cursor
        finally:
            if connection.vendor == "postgresql":
                cursor.execute("SET session_replication_role = DEFAULT")
            else:
                sqlite_triggers_install(connection)


GOPATH = Path(os.environ.get("REGISTRY_GOPATH", "/usr/share/gocode"))


def go_program(tmp_path_factory, source: Path) -> Path:
    """``source`` built with Go in GOPATH mode against Debian's golang.org/x/mod (skipped where absent)."""
    from ..conftest import require_external

    require_external("Go", shutil.which("go") is not None and (GOPATH / "src/golang.org/x/mod/sumdb/tlog").is_dir(),
                     "install golang-go and golang-golang-x-mod-dev (Go's sumdb note and tlog packages)")
    binary = tmp_path_factory.mktemp("go") / source.stem
    env = {**os.environ, "GOPATH": str(GOPATH), "GO111MODULE": "off",
           "GOCACHE": str(tmp_path_factory.mktemp("gocache")), "GOFLAGS": ""}
    result = subprocess.run(["go", "build", "-o", str(binary), str(source)], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return binary
