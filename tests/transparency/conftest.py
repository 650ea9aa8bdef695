import json
import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from registry.logcore.cosignature import CosignatureVerifier
from registry.logcore.note import Signer
from registry.logcore.witness import WitnessEndpoint
from registry.witness import witness_init

from ..ports import free_port


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

    require_external(
        "Go",
        shutil.which("go") is not None and (GOPATH / "src/golang.org/x/mod/sumdb/tlog").is_dir(),
        "install golang-go and golang-golang-x-mod-dev (Go's sumdb note and tlog packages)",
    )
    binary = tmp_path_factory.mktemp("go") / source.stem
    env = {
        **os.environ,
        "GOPATH": str(GOPATH),
        "GO111MODULE": "off",
        "GOCACHE": str(tmp_path_factory.mktemp("gocache")),
        "GOFLAGS": "",
    }
    result = subprocess.run(
        ["go", "build", "-o", str(binary), str(source)], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return binary


# --- two witnesses over HTTP, one of them not ours -----------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
#: aics-witness and aics-tlog from PyPI (a C2SP tlog-witness written elsewhere); .ci/run installs them here.
AICS = Path(os.environ.get("REGISTRY_AICS_WITNESS", "/opt/aics-witness"))
ORIGIN = "registry.test/log"


def _wait_listening(port: int, process) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else "exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


class Witnesses:
    """Ours (``python -m registry.witness``) and aics-witness, each a process of its own."""

    def __init__(self, directory: Path, log_key):
        self.directory, self.log_key, self.processes = directory, log_key, {}
        self.ours_key = witness_init(directory / "ours", "ours.test/w1").verifier()
        env = self._aics_env()
        subprocess.run(
            [sys.executable, "-m", "aics_witness", "init", "--name", "aics.test/w2"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        subprocess.run(
            [sys.executable, "-m", "aics_witness", "add-log", "--origin", ORIGIN, "--vkey", str(log_key.verifier())],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        config = json.loads((directory / "aics" / "witness.json").read_text())
        config["logs"][0]["extension_lines"] = True  # our checkpoints carry a time line
        (directory / "aics" / "witness.json").write_text(json.dumps(config))
        status = subprocess.run(
            [sys.executable, "-m", "aics_witness", "status", "--json"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        self.aics_key = CosignatureVerifier.parse(json.loads(status.stdout)["witness"]["vkey"])
        self.ports = {"ours": free_port(), "aics": free_port()}
        self.start()

    def _aics_env(self) -> dict:
        (self.directory / "aics").mkdir(exist_ok=True)
        return {
            **os.environ,
            "PYTHONPATH": str(AICS),
            "AICS_WITNESS_CONFIG": str(self.directory / "aics" / "witness.json"),
        }

    def start(self) -> None:
        self.processes["ours"] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "registry.witness",
                "serve",
                "--state",
                str(self.directory / "ours"),
                "--listen",
                f"127.0.0.1:{self.ports['ours']}",
                "--log",
                str(self.log_key.verifier()),
            ],
            cwd=ROOT,
            env={**os.environ, "REGISTRY_WITNESS_QUIET": "1"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.processes["aics"] = subprocess.Popen(
            [sys.executable, "-m", "aics_witness", "serve", "--listen", f"127.0.0.1:{self.ports['aics']}"],
            env=self._aics_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, process in self.processes.items():
            _wait_listening(self.ports[name], process)

    def stop(self) -> None:
        for process in self.processes.values():
            process.terminate()
            process.wait(timeout=30)

    @property
    def keys(self) -> list[CosignatureVerifier]:
        return [self.ours_key, self.aics_key]

    def endpoints(self) -> list[WitnessEndpoint]:
        return [
            WitnessEndpoint(self.ours_key, f"http://127.0.0.1:{self.ports['ours']}/"),
            WitnessEndpoint(self.aics_key, f"http://127.0.0.1:{self.ports['aics']}/"),
        ]

    def setting(self) -> list[dict]:
        return [{"key": str(e.key), "url": e.url} for e in self.endpoints()]


@pytest.fixture
def witnesses(tmp_path, log_key, settings):
    """Ours and aics-witness running, and the site configured to ask both (REGISTRY_LOG_WITNESSES)."""
    from ..conftest import require_external

    require_external(
        "aics-witness",
        (AICS / "aics_witness").is_dir(),
        f"pip install --ignore-requires-python --no-deps --target {AICS} aics-witness==0.1.0 "
        "aics-tlog==0.2.1 (a C2SP tlog-witness from PyPI, written elsewhere; .ci/run installs it)",
    )
    running = Witnesses(tmp_path / "witnesses", log_key)
    settings.REGISTRY_LOG_WITNESSES = running.setting()
    yield running
    running.stop()
