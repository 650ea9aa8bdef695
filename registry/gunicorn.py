"""gunicorn settings: ``gunicorn -c python:registry.gunicorn registry.wsgi``.

Environment: PORT or BIND (default 127.0.0.1:8000), WEB_CONCURRENCY (workers;
default one per core plus one), GUNICORN_TIMEOUT (seconds, default 30).
The app is CPU-bound and short-lived per request, so plain sync workers, one
per core, keep latency predictable; put several instances behind a proxy to
grow (docs/deployment.md).
"""

import multiprocessing
import os

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))  # 0: never recycle workers
max_requests_jitter = max_requests // 10
preload_app = True  # import Django once; workers fork from a warm parent
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
