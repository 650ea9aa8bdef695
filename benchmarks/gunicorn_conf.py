"""gunicorn as the registry deployed it before granian, for the benchmarks' comparison only.

``gunicorn -c python:benchmarks.gunicorn_conf registry.wsgi:application`` (benchmarks/servers.py,
``gunicorn_command``). The site is served by granian (registry/serve.py); this file keeps
the gunicorn configuration it replaced, unchanged, so docs/performance.md can measure both on
the same hot paths. gunicorn itself is in requirements-bench.txt, not in the runtime requirements.

Environment: BIND (default 127.0.0.1:8000), WEB_CONCURRENCY (workers), WEB_THREADS (threads per
worker, default 2), GUNICORN_KEEPALIVE (seconds, default 30), GUNICORN_TIMEOUT (seconds, default 30).

Threaded workers (``gthread``) keep HTTP/1.1 connections open; two threads per worker, as under
granian. Before each fork the master freezes what it loaded out of the collector's scans
(``gc.freeze``); each worker hands the interpreter lock over every half millisecond
(``sys.setswitchinterval``) and warms its pages before its first connection, as
registry/serve.py does. The request line may be 8,190 bytes (gunicorn's highest), and the
errors gunicorn answers itself are JSON ``{"detail": …}``.
"""

import gc
import json
import multiprocessing
import os
import sys

from gunicorn import util as gunicorn_util

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "2"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "30"))
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))  # 0: never recycle workers
max_requests_jitter = max_requests // 10
preload_app = True  # import Django once; workers fork from a warm parent
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
#: Bytes of the request line (gunicorn's maximum; its default, 4094, is below a 4,096-character URN).
limit_request_line = int(os.environ.get("GUNICORN_LIMIT_REQUEST_LINE", "8190"))
#: Seconds between hand-overs of the interpreter lock in a worker (Python's default is 0.005).
switch_interval = float(os.environ.get("GUNICORN_SWITCH_INTERVAL", "0.0005"))


def pre_fork(server, worker):
    gc.freeze()


def post_fork(server, worker):
    sys.setswitchinterval(switch_interval)


def post_worker_init(worker):
    """Start the worker's bounded job process, then ask the worker for the public pages once.

    Both before the worker accepts its first connection, so no visitor pays for what a
    process does once (registry/warmup.py ``warm_pages``; WEB_WARM_PAGES=0 skips it,
    WEB_WARM_SECONDS bounds the time spent on SNID pages, as for registry/serve.py). The worker tells the master it
    is alive after each page, so a long warm-up is not mistaken for a stuck worker.
    """
    from registry import sandbox, warmup

    started = sandbox.warm()
    if os.environ.get("WEB_WARM_PAGES", "1") != "0":
        if started is not None:
            started.join(timeout=10)  # the first SNID page renders its Markdown in the job process
        seconds = float(os.environ.get("WEB_WARM_SECONDS", warmup.WARM_SECONDS))
        warmup.warm_pages(worker.wsgi, seconds=seconds, tick=worker.notify)


def write_json_error(sock, status_int, reason, mesg):
    """gunicorn's own error answers (request line or headers too large, malformed requests) as JSON."""
    detail = f"{reason}: {mesg}" if mesg else reason
    if status_int == 414:
        detail += (
            f". The request line may be at most {limit_request_line:,} bytes; send longer URNs "
            "with POST /api/validate/."
        )
    body = json.dumps({"detail": detail}).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1")
    gunicorn_util.write_nonblock(sock, head + body)


gunicorn_util.write_error = write_json_error
