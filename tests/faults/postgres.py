"""A PostgreSQL server of the test's own, on a free loopback port, to stop and start again.

Debian's server binaries (``/usr/lib/postgresql/<version>/bin``) refuse to run as root, so
the cluster lives in a fresh directory under the system's temporary directory owned by the
``postgres`` account, and every command runs as that account (``runuser``). It listens on
127.0.0.1 at a free port with its socket in its own directory: the shared server on port
5432 is never touched.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..ports import free_port

ACCOUNT = "postgres"


def server_binaries() -> Path | None:
    """The newest installed server's binary directory, or None."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    return found[-1].parent if found else None


def missing() -> str | None:
    """Why a server of our own cannot be started here, or None when it can."""
    if server_binaries() is None:
        return "install Debian's postgresql package (the drill runs initdb and pg_ctl itself)"
    try:
        pwd.getpwnam(ACCOUNT)
    except KeyError:
        return f"there is no {ACCOUNT!r} account to run the server as"
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        return f"starting a server as {ACCOUNT!r} needs root and runuser"
    return None


class PostgresServer:
    """One cluster: ``start``, ``stop`` (``mode``: fast or immediate) and ``start`` again."""

    def __init__(self):
        self.bin = server_binaries()
        self.port = free_port()
        self.home = Path(tempfile.mkdtemp(prefix="registry-pg-drill-"))
        shutil.chown(self.home, ACCOUNT)
        self.data = self.home / "data"
        self.log = self.home / "server.log"
        try:
            self._run(
                "initdb",
                "-D",
                str(self.data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            )
        except BaseException:
            shutil.rmtree(self.home, ignore_errors=True)
            raise

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/registry"

    def _run(self, program: str, *args: str) -> str:
        done = subprocess.run(
            ["runuser", "-u", ACCOUNT, "--", str(self.bin / program), *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.home,
        )
        if done.returncode:
            raise RuntimeError(f"{program} failed: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout

    def start(self) -> None:
        options = (
            f"-h 127.0.0.1 -p {self.port} -k {self.home} -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", options, "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    @property
    def running(self) -> bool:
        done = subprocess.run(
            ["runuser", "-u", ACCOUNT, "--", str(self.bin / "pg_ctl"), "-D", str(self.data), "status"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return done.returncode == 0

    def createdb(self, name: str = "registry") -> None:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)

    def remove(self) -> None:
        """Stop the server if it runs, and delete its files."""
        if self.data.exists() and self.running:
            self.stop("immediate")
        shutil.rmtree(self.home, ignore_errors=True)
