"""The production server: ``python -m registry.serve`` runs the site under granian (its WSGI interface).

One module starts the site everywhere it is served as deployed: the systemd unit of
docs/deployment.md, ``manage.py start``, the fault drills (tests/faults/server.py) and the
HTTP benchmarks (benchmarks/servers.py).

Why granian: its HTTP/1.1 server is written in Rust and hands Python only the WSGI call, so
on the hot paths (a warm lookup, a resolver redirect, answered at the WSGI layer by
registry/api/hotpath.py and registry/api/resolve_hotpath.py) the server's own work no longer
costs more than the answer. Measured beside gunicorn's threaded workers with the same worker
processes and threads, it serves those paths several times faster (docs/performance.md, "HTTP").

Environment (all optional):

- ``BIND`` (``host:port``) or ``PORT``: where to listen, default ``127.0.0.1:8000``.
- ``WEB_CONCURRENCY``: worker processes, default one per core plus one.
- ``WEB_THREADS``: Python threads per worker that run requests, default 2. Requests are short
  and CPU-bound: two threads keep a core busy while one waits on the database; more only
  contend for the interpreter lock and lengthen the latency tail.
- ``WEB_KEEPALIVE``: seconds an idle keep-alive connection is kept, and the longest a client
  may take to send a request's headers (granian's header read timeout), default 30.
- ``WEB_BACKPRESSURE``: requests in progress per worker before it stops taking more, default
  1,000; the rest wait in the listen backlog (2,048).
- ``WEB_GRACEFUL_TIMEOUT``: seconds a stopping worker may finish its requests, default 20.
- ``WEB_WARM_PAGES=0`` skips the warm-up; ``WEB_WARM_SECONDS`` bounds it (registry/warmup.py).
- ``WEB_SWITCH_INTERVAL``: seconds between hand-overs of the interpreter lock, default 0.0005.
- ``WEB_LIMIT_REQUEST_LINE``: bytes of a request line, default 8,190.
- ``WEB_ACCESS_LOG=1``: an access log line per request; ``WEB_LOG_LEVEL`` (default info).
- ``FORWARDED_ALLOW_IPS``: proxy addresses trusted for ``X-Request-Uri`` (default 127.0.0.1).

What each worker does before it accepts its first connection, and why:

- The master imports Django and the URL map and compiles the templates
  (``registry.wsgi``), then moves everything it loaded into the collector's permanent
  generation (``gc.freeze``) and forks the workers: a worker's full collections scan only
  what it allocated itself, and the pages those objects sit on stay shared between workers.
  A worker that dies is forked again from the same warm master (``respawn_failed_workers``).
- Each worker hands the interpreter lock between its threads every half millisecond instead
  of Python's default five: a thread waiting for the lock otherwise waits up to five
  milliseconds at each hand-over, most of a warm lookup's latency tail at 32 connections.
- Each worker starts its bounded job process and asks itself for the public pages once
  (``warmup.warm_pages``), so no visitor pays for what a process does once.

What granian does not do as gunicorn did, done here instead (``served``):

- A request line longer than ``WEB_LIMIT_REQUEST_LINE`` is refused with a JSON 414 naming
  ``POST /api/validate/`` (a 4,096-character URN fits a GET lookup). Header blocks past
  granian's buffer (64 KB) get granian's bare 431, malformed requests its bare 400.
- The raw request target: granian gives only the decoded ``PATH_INFO`` (``%2F`` becomes
  ``/``), while the resolver's path form reads ``RAW_URI`` so a URN's escapes survive. The
  proxy passes the target as received (``X-Request-Uri``, docs/nginx.conf); from a trusted
  address it becomes ``RAW_URI``.
- granian copies its own process environment into every request's environ; those keys
  (the database URL, the secret key) are removed before Django sees a request
  (``without_process_environment`` in registry/processenv.py, applied in registry/wsgi.py), so no error report or
  debug view can show them.
- A worker that dies is replaced at once; one that dies again within 5.5 s of its
  replacement stops the whole server (granian's crash-loop rule), for the service manager to
  restart it (``Restart=always``, docs/deployment.md).
- A stop (SIGTERM, SIGINT) reaches a worker still loading or warming up, which granian's own
  handlers, not yet installed there, would miss: the worker leaves at once (``main``'s ``stop``,
  then ``_stop_warming``) instead of being killed after the graceful timeout — also when the stop
  lands right after the fork, where the exit raised is only reported (``_stop_unready``).
- On Linux each granian worker listens on the port itself (``SO_REUSEPORT``) once it is warm;
  the master holds no socket. While no worker of an instance is ready — at start, or when its
  only ready worker has died — a connection is refused instead of waiting in gunicorn's queue:
  nginx then passes the request to another instance (or answers its JSON 503), and a single
  instance answers again as soon as a worker is warm.
- A worker whose master is gone (killed outright) stops by itself within a second, as
  gunicorn's workers did (``_watch_master``), instead of serving on as an orphan.
- There is no heartbeat that kills a worker stuck in a request. gunicorn's never reached one
  either: a threaded worker's heartbeat runs beside its request threads. What could run long
  (checks, rendering and imports of untrusted text, costly resolutions) runs in the bounded
  job process under its own CPU and wall-clock budget (registry/sandbox.py).
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
import threading
import time

#: Bytes of a header block granian buffers before it answers 431 (its minimum is 8 KB): more than
#: the 16 KB request line docs/nginx.conf passes, so the application's JSON 414 answers those.
HTTP1_BUFFER = 64 * 1024


def config(environ=os.environ) -> dict:
    """The server's settings from the environment (see the module's docstring)."""
    bind = environ.get("BIND") or f"127.0.0.1:{environ.get('PORT', '8000')}"
    host, _, port = bind.rpartition(":")
    return {
        "host": host.strip("[]") or "127.0.0.1",
        "port": int(port),
        "workers": int(environ.get("WEB_CONCURRENCY") or multiprocessing.cpu_count() + 1),
        "threads": int(environ.get("WEB_THREADS") or 2),
        "keepalive": int(environ.get("WEB_KEEPALIVE") or 30),
        "backpressure": int(environ.get("WEB_BACKPRESSURE") or 1000),
        "backlog": 2048,
        "graceful_timeout": int(environ.get("WEB_GRACEFUL_TIMEOUT") or 20),
        "warm_pages": environ.get("WEB_WARM_PAGES", "1") != "0",
        "warm_seconds": float(environ["WEB_WARM_SECONDS"]) if environ.get("WEB_WARM_SECONDS") else None,
        "switch_interval": float(environ.get("WEB_SWITCH_INTERVAL") or 0.0005),
        "limit_request_line": int(environ.get("WEB_LIMIT_REQUEST_LINE") or 8190),
        "access_log": environ.get("WEB_ACCESS_LOG", "0") not in ("", "0"),
        "log_level": environ.get("WEB_LOG_LEVEL") or "info",
        "trusted_proxies": frozenset(
            a.strip() for a in environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1").split(",") if a.strip()
        ),
    }


def served(application, settings: dict | None = None):
    """``application`` with what gunicorn did before the application and granian does not: the request
    line's limit (a JSON 414) and the raw request target from a trusted proxy (``RAW_URI``)."""
    settings = settings or config()
    limit, trusted = settings["limit_request_line"], settings["trusted_proxies"]
    # "GET " + target + " HTTP/1.1": the target may take the limit less these 13 bytes.
    target_limit = limit - len("GET  HTTP/1.1")
    detail = json.dumps(
        {
            "detail": f"URI Too Long. The request line may be at most {limit:,} bytes; send longer "
            "URNs with POST /api/validate/."
        }
    ).encode()
    too_long = [("Content-Type", "application/json"), ("Content-Length", str(len(detail))), ("Connection", "close")]

    def registry_application(environ, start_response):
        raw = environ.get("HTTP_X_REQUEST_URI")
        if raw is not None:
            del environ["HTTP_X_REQUEST_URI"]
            if environ.get("REMOTE_ADDR") in trusted:
                environ["RAW_URI"] = raw
            else:
                raw = None
        query = environ.get("QUERY_STRING", "")
        length = len(raw) if raw is not None else len(environ.get("PATH_INFO", "")) + (len(query) + 1 if query else 0)
        if length > target_limit:
            start_response("414 URI Too Long", too_long)
            return [detail]
        return application(environ, start_response)

    return registry_application


#: Set in a worker that a stop reached before it served (``_stop_unready``).
_stopping = False


def worker_application(target: str = "registry.wsgi:application"):
    """Run in each worker after the fork, before it takes a connection: the WSGI application, warm."""
    if _stopping:  # told to stop right after the fork, where the exit could not be raised
        raise SystemExit(0)
    settings = config()
    # Until granian installs its own handlers (once this returns), a stop during the warm-up
    # ends the worker at once: it has taken no connection yet.
    signal.signal(signal.SIGTERM, _stop_warming)
    signal.signal(signal.SIGINT, _stop_warming)
    _watch_master(os.getppid())
    sys.setswitchinterval(settings["switch_interval"])
    from registry import sandbox, warmup
    from registry.wsgi import application

    # granian's worker is a multiprocessing child, which exits without running atexit handlers but
    # waits for its own children: the job process is stopped first, or the worker never exits.
    multiprocessing.util.Finalize(None, sandbox.shutdown, exitpriority=10)
    started = sandbox.warm()
    if settings["warm_pages"]:
        if started is not None:
            started.join(timeout=10)  # the first SNID page renders its Markdown in the job process
        seconds = settings["warm_seconds"] if settings["warm_seconds"] is not None else warmup.WARM_SECONDS
        warmup.warm_pages(application, seconds=seconds)
    if _stopping:  # a stop whose exit was swallowed on the way (a finaliser, a thread's last words)
        raise SystemExit(0)
    return served(application, settings)


def _stop_unready() -> None:
    """End a worker that has not served yet. The exit is raised where the signal lands, which may be
    a place that only reports an exception and goes on — Python's after-fork hooks, where a stop
    sent together with the fork arrives — so the stop is also remembered and ``worker_application``
    raises it again before the worker could take a connection (granian's own handlers, installed
    after that, would not know of it and the worker would be killed after the graceful timeout)."""
    global _stopping
    _stopping = True
    raise SystemExit(0)


def _stop_warming(signum, frame):
    _stop_unready()


def _watch_master(master: int, seconds: float = 1.0) -> threading.Thread:
    """Stop this worker (SIGTERM to itself: a graceful stop) once its master is gone.

    granian's workers do not notice on their own: a master killed outright (SIGKILL, the OOM
    killer) would leave them serving, holding the port, beside the next server started.
    gunicorn's workers checked their parent; this thread does the same once a second.
    """

    def watch():
        while os.getppid() == master:
            time.sleep(seconds)
        os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=watch, name="master-watch", daemon=True)
    thread.start()
    return thread


def server(settings: dict | None = None):
    """A granian server for the site, not started (``serve()`` runs it until SIGTERM or SIGINT)."""
    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings
    from granian.log import LogLevels
    from granian.server import Server

    settings = settings or config()
    return Server(
        "registry.wsgi:application",
        address=settings["host"],
        port=settings["port"],
        interface=Interfaces.WSGI,
        workers=settings["workers"],
        blocking_threads=settings["threads"],
        http=HTTPModes.http1,
        websockets=False,
        backlog=settings["backlog"],
        backpressure=settings["backpressure"],
        http1_settings=HTTP1Settings(
            header_read_timeout=settings["keepalive"] * 1000, keep_alive=True, max_buffer_size=HTTP1_BUFFER
        ),
        log_level=LogLevels(settings["log_level"]),
        log_access=settings["access_log"],
        respawn_failed_workers=True,
        workers_kill_timeout=settings["graceful_timeout"],
    )


def command() -> list[str]:
    """The command line that serves the site as deployed (its settings come from the environment)."""
    return [sys.executable, "-m", "registry.serve"]


def main() -> None:
    """Load the site once in the master (a configuration error stops the start here), then serve."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "registry.settings")
    from django.db import connections

    import registry.wsgi  # noqa: F401 - Django set up, URLs imported, templates compiled; no database

    connections.close_all()  # nothing the workers would share
    gc.collect()
    gc.freeze()
    site = server()
    master, interrupt = os.getpid(), site.signal_handler_interrupt

    def stop(*args, **kwargs):
        """granian's stop handler, which a new worker inherits until it installs its own: in a worker
        (told to stop before it ever served) it ends the worker instead of setting the master's flag."""
        if os.getpid() != master:
            _stop_unready()
        return interrupt(*args, **kwargs)

    site.signal_handler_interrupt = stop
    site.serve(target_loader=worker_application)


if __name__ == "__main__":
    main()
