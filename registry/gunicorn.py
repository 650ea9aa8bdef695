"""gunicorn settings: ``gunicorn -c python:registry.gunicorn registry.wsgi``.

Environment: PORT or BIND (default 127.0.0.1:8000), WEB_CONCURRENCY (workers;
default one per core plus one), GUNICORN_THREADS (threads per worker, default 2),
GUNICORN_KEEPALIVE (seconds, default 30), GUNICORN_TIMEOUT (seconds, default 30).

Threaded workers (``gthread``) keep HTTP/1.1 connections open: a sync worker
closes the connection after every answer, so every client — and a proxy's
upstream pool — pays a new TCP connection per request, which cost more than a
warm lookup itself. Requests are short and CPU-bound: two threads per worker
keep a core busy while one waits on the database, more only contend for the
interpreter lock and lengthen the latency tail. Put several instances behind a
proxy to grow (docs/deployment.md).

Before each fork the master moves everything it has loaded (Django, the URL
map, the compiled templates) into the collector's permanent generation
(``gc.freeze``): a worker's full collections then scan only what it allocated
itself instead of some hundred thousand start-up objects, which shortens the
pauses that otherwise show up in the latency tail, and the pages those objects
sit on stay shared between the workers instead of being copied when the
collector touches them.

Each worker also hands the interpreter lock between its threads every half
millisecond instead of Python's default five (``sys.setswitchinterval``): a
request whose thread waits for the lock while another thread is busy
otherwise waits up to five milliseconds at each hand-over, which is most of a
warm lookup's latency tail at 32 connections (docs/performance.md).

A GET lookup carries the URN in its request line: gunicorn's default limit
(4,094 bytes) refused URNs shorter than the 4,096 characters the API
documents, with an HTML 414. The limit is gunicorn's highest (8,190 bytes:
any 4,096-character URN written with plain ``:``, and most percent-encoded
ones; longer encodings go to ``POST /api/validate/``), and the errors gunicorn
answers itself, before Django sees a request (a line or header over its
limit, a malformed request), are JSON ``{"detail": …}`` like every other
API error: the clients that send such requests are programs.
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
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
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
    process does once (registry/warmup.py ``warm_pages``; GUNICORN_WARM_PAGES=0 skips it,
    GUNICORN_WARM_SECONDS bounds the time spent on SNID pages). The worker tells the master it
    is alive after each page, so a long warm-up is not mistaken for a stuck worker.
    """
    from registry import sandbox, warmup

    started = sandbox.warm()
    if os.environ.get("GUNICORN_WARM_PAGES", "1") != "0":
        if started is not None:
            started.join(timeout=10)  # the first SNID page renders its Markdown in the job process
        seconds = float(os.environ.get("GUNICORN_WARM_SECONDS", warmup.WARM_SECONDS))
        warmup.warm_pages(worker.wsgi, seconds=seconds, tick=worker.notify)


def write_json_error(sock, status_int, reason, mesg):
    """gunicorn's own error answers (request line or headers too large, malformed requests) as JSON."""
    detail = f"{reason}: {mesg}" if mesg else reason
    if status_int == 414:
        detail += (f". The request line may be at most {limit_request_line:,} bytes; send longer URNs "
                   "with POST /api/validate/.")
    body = json.dumps({"detail": detail}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
    gunicorn_util.write_nonblock(sock, head + body)


gunicorn_util.write_error = write_json_error
