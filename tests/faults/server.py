"""The site served as deployed (registry/serve.py: granian) on the loopback over a database of the
test's own: a file SQLite database, or any database URL (the PostgreSQL drill's own server)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from registry import serve

from ..ports import free_port
from .conftest import request

ROOT = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, database: Path | str, **env: str):
        """``database``: a SQLite file, or a database URL."""
        self.database = database
        self.port = free_port()
        url = database if isinstance(database, str) else f"sqlite:///{database}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "registry.settings",
            "DJANGO_DEBUG": "1",
            "DATABASE_URL": url,
            "REGISTRY_ANON_RATE": "off",
            "BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": "2",
            "WEB_THREADS": "8",
            "REGISTRY_HEAVY_PER_PROCESS": "8",
            **env,
        }
        self.env.pop("REDIS_URL", None)
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def manage(self, *args: str, code: str | None = None) -> str:
        command = [sys.executable, "manage.py", *args] + (["-c", code] if code else [])
        result = subprocess.run(command, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    def setup(self, code: str):
        """Migrate, then run ``code`` in ``manage.py shell``; its last printed line, as JSON."""
        self.manage("migrate", "--verbosity", "0")
        return json.loads(self.manage("shell", code=code).strip().splitlines()[-1])

    def start(self, ready: tuple[int, ...] = (200,), log: Path | None = None) -> None:
        """Start the server; return once /urn/ answers one of the ``ready`` statuses (a worker is up).
        ``log``: a file for the server's log (else it is discarded)."""
        sink = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
        self.process = subprocess.Popen(
            serve.command(), cwd=ROOT, env=self.env, start_new_session=True, stdout=sink, stderr=sink
        )
        if log:
            sink.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if request(self.url, "GET", "/urn/", headers={"Host": "127.0.0.1"}, timeout=5).status in ready:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError("the server did not start")

    def workers(self) -> set[int]:
        """The process ids of the server's workers (the master's children) now."""
        master = self.process.pid
        children = set()
        for task in Path(f"/proc/{master}/task").iterdir():
            children |= {int(pid) for pid in (task / "children").read_text().split()}
        return children

    def stop(self) -> None:
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process = None
