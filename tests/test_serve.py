"""registry/serve.py: the server the deployment docs promise, its settings and what it adds to granian."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from registry import processenv, serve

from .ports import free_port

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.long  # each starts servers or a suite of its own: seconds apiece (tests/conftest.py)


def _call(application, **environ) -> tuple[str, dict, bytes]:
    """One request through a WSGI application: (status line, headers, body)."""
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"], answer["headers"] = status, dict(headers)

    body = b"".join(
        application(
            {"REQUEST_METHOD": "GET", "PATH_INFO": "/", "QUERY_STRING": "", "REMOTE_ADDR": "127.0.0.1", **environ},
            start_response,
        )
    )
    return answer["status"], answer["headers"], body


def _echo(environ, start_response):
    """The environ it was given, as JSON (the strings only)."""
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps({k: v for k, v in environ.items() if isinstance(v, str)}).encode()]


def test_serve_config_defaults_are_the_documented_ones():
    settings = serve.config({})
    assert (settings["host"], settings["port"]) == ("127.0.0.1", 8000)
    assert settings["workers"] == os.cpu_count() + 1 and settings["threads"] == 2
    assert (settings["keepalive"], settings["graceful_timeout"], settings["backpressure"]) == (30, 20, 1000)
    assert settings["limit_request_line"] == 8190 and settings["warm_pages"] is True
    assert settings["switch_interval"] == pytest.approx(0.0005)
    assert settings["trusted_proxies"] == {"127.0.0.1"}


def test_serve_config_reads_bind_workers_and_threads_from_the_environment():
    settings = serve.config(
        {
            "BIND": "10.0.0.5:8001",
            "WEB_CONCURRENCY": "3",
            "WEB_THREADS": "4",
            "WEB_WARM_PAGES": "0",
            "FORWARDED_ALLOW_IPS": "10.0.0.1, 10.0.0.2",
        }
    )
    assert (settings["host"], settings["port"], settings["workers"], settings["threads"]) == ("10.0.0.5", 8001, 3, 4)
    assert settings["warm_pages"] is False and settings["trusted_proxies"] == {"10.0.0.1", "10.0.0.2"}
    assert serve.config({"PORT": "9000"})["port"] == 9000


def test_serve_server_respawns_dead_workers_and_bounds_connections():
    server = serve.server(serve.config({"WEB_CONCURRENCY": "2"}))
    assert server.interface == "wsgi" and server.workers == 2 and server.blocking_threads == 2
    assert server.respawn_failed_workers is True
    assert server.workers_kill_timeout == 20 and server.backpressure == 1000 and server.backlog == 2048
    assert server.http1_settings.keep_alive and server.http1_settings.header_read_timeout == 30_000
    assert server.http1_settings.max_buffer_size > 16 * 1024  # what docs/nginx.conf passes reaches the app


def test_served_refuses_a_request_line_past_the_limit_with_json():
    application = serve.served(_echo, serve.config({}))
    fits = "urn=urn:ogf:example:" + "a" * (8190 - len("GET /api/lookup/? HTTP/1.1") - 20)
    assert _call(application, PATH_INFO="/api/lookup/", QUERY_STRING=fits)[0] == "200 OK"
    status, headers, body = _call(application, PATH_INFO="/api/lookup/", QUERY_STRING=fits + "a" * 21)
    assert status.startswith("414") and headers["Content-Type"] == "application/json"
    assert "POST /api/validate/" in json.loads(body)["detail"]


def test_served_takes_the_raw_request_target_only_from_a_trusted_proxy():
    application = serve.served(_echo, serve.config({}))
    raw = "/urn:ogf:example:a%2Fb"
    seen = json.loads(_call(application, PATH_INFO="/urn:ogf:example:a/b", HTTP_X_REQUEST_URI=raw)[2])
    assert seen["RAW_URI"] == raw and "HTTP_X_REQUEST_URI" not in seen
    seen = json.loads(
        _call(application, PATH_INFO="/urn:ogf:example:a/b", HTTP_X_REQUEST_URI=raw, REMOTE_ADDR="192.0.2.7")[2]
    )
    assert "RAW_URI" not in seen and "HTTP_X_REQUEST_URI" not in seen


def test_without_process_environment_keeps_the_servers_variables_out_of_requests(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://registry:secret@db/registry")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.internal:3128")
    application = processenv.without_process_environment(_echo)
    leaked = {**os.environ, "PATH_INFO": "/x", "HTTP_HOST": "registry.example.org"}  # as granian builds it
    seen = json.loads(_call(application, **leaked)[2])
    assert "DATABASE_URL" not in seen and "HTTP_PROXY" not in seen
    assert (seen["PATH_INFO"], seen["HTTP_HOST"], seen["REMOTE_ADDR"]) == ("/x", "registry.example.org", "127.0.0.1")


def test_serve_worker_application_shortens_the_lock_hand_over_and_stops_on_sigterm(monkeypatch):
    monkeypatch.setenv("WEB_WARM_PAGES", "0")
    before = sys.getswitchinterval(), signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        application = serve.worker_application()
        assert sys.getswitchinterval() == pytest.approx(0.0005)
        with pytest.raises(SystemExit):  # a worker told to stop while it warms up leaves at once
            signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
        assert _call(application, PATH_INFO="/api/lookup/", QUERY_STRING="urn=" + "a" * 9000)[0].startswith("414")
    finally:
        sys.setswitchinterval(before[0])
        signal.signal(signal.SIGTERM, before[1])
        signal.signal(signal.SIGINT, before[2])


# --- a real server ------------------------------------------------------------------------------


def _status(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return response.status


def _workers(master: int) -> set[int]:
    children = set()
    for task in Path(f"/proc/{master}/task").iterdir():
        children |= {int(pid) for pid in (task / "children").read_text().split()}
    return children


def _wait(predicate, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if value := predicate():
                return value
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{what} within {seconds:.0f} s")


@pytest.fixture
def launch(tmp_path):
    """Start ``python -m registry.serve`` (production settings, a scratch SQLite database); stopped at the end."""
    database = tmp_path / "db.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchmarks.settings",
        "DATABASE_URL": f"sqlite:///{database}",
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        "WEB_CONCURRENCY": "2",
    }
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
    started = []

    def start(**extra: str) -> tuple[subprocess.Popen, int]:
        port = free_port()
        with (tmp_path / "server.log").open("ab") as log:  # the server's own account, for a failure
            process = subprocess.Popen(
                serve.command(),
                cwd=ROOT,
                env={**env, "BIND": f"127.0.0.1:{port}", **extra},
                start_new_session=True,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        started.append(process)
        return process, port

    yield start
    for process in started:  # the whole session: a killed worker's job processes too
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()


def _ready(log: Path) -> int:
    """How many workers have started serving (each listens on the port itself once warm)."""
    return log.read_text(errors="replace").count("Started worker-") if log.exists() else 0


def test_serve_replaces_a_killed_worker_and_keeps_answering(launch, tmp_path):
    process, port = launch()
    _wait(lambda: _ready(tmp_path / "server.log") >= 2, 90, "two workers did not start serving")
    workers = _wait(lambda: len(_workers(process.pid)) == 2 and _workers(process.pid), 30, "two workers")
    killed = sorted(workers)[0]
    os.kill(killed, signal.SIGKILL)
    replaced = _wait(
        lambda: (w := _workers(process.pid)) and killed not in w and len(w) == 2 and w,
        30,
        "the killed worker was not replaced",
    )
    assert replaced - workers  # a new process, forked by the master, which is still the same one
    for _ in range(20):  # the other worker answers meanwhile
        assert _status(port, "/urn/") == 200
    _wait(lambda: _ready(tmp_path / "server.log") >= 3, 60, "the new worker did not start serving")
    assert process.poll() is None


def test_serve_stops_promptly_on_sigterm_even_before_its_workers_are_ready(launch, tmp_path):
    """Stopped the moment its first worker is forked: that worker is still loading or warming up, with
    the master's signal handlers or the warm-up's, and must leave at once all the same."""
    process, port = launch(WEB_WARM_SECONDS="30")
    deadline = time.monotonic() + 60
    while not _workers(process.pid) and time.monotonic() < deadline:
        pass
    os.killpg(process.pid, signal.SIGTERM)
    started = time.monotonic()
    process.wait(timeout=30)
    took = time.monotonic() - started
    assert took < 10, (took, (tmp_path / "server.log").read_text())  # not the 20 s an ignoring worker gets


SWALLOWED_STOP = """
import os, signal, sys, time
from registry import serve

signal.signal(signal.SIGTERM, serve._stop_warming)  # what a worker has until granian's own handlers
# A stop sent together with the fork lands in Python's after-fork hooks, which report an exception
# raised there ("Exception ignored in: <function _after_fork>") and go on.
os.register_at_fork(after_in_child=lambda: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(1)))
child = os.fork()
if child == 0:
    try:
        serve.worker_application()  # what granian's worker runs next
    except SystemExit:
        os._exit(0)
    os._exit(1)  # it would have served, and ignored the stop
_, status = os.waitpid(child, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def test_serve_a_stop_swallowed_right_after_the_fork_still_ends_the_worker(tmp_path):
    """The stop-before-ready race, made certain: the exit raised in an after-fork hook is lost there,
    and the worker must still leave before it would take a connection (not be killed 20 s later)."""
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWED_STOP],
        cwd=ROOT,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "DJANGO_SETTINGS_MODULE": "registry.settings",
            # A worker that missed the stop warms up on a database: a scratch one, not the checkout's.
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Exception ignored" in done.stderr  # the exit was raised where it is only reported
    assert done.returncode == 0, done.stderr


def test_serve_workers_stop_when_their_master_is_killed_outright(launch):
    process, port = launch(WEB_WARM_PAGES="0")
    _wait(lambda: _status(port, "/bench/floor/") == 200, 90, "the server did not answer")
    workers = _wait(lambda: len(_workers(process.pid)) == 2 and _workers(process.pid), 30, "two workers")
    process.kill()  # the master only, as the OOM killer would
    process.wait()
    _wait(
        lambda: not any(Path(f"/proc/{pid}").exists() for pid in workers),
        30,
        f"the workers {sorted(workers)} outlived their master",
    )
