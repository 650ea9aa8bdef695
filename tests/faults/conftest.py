"""Fault drills: real outside parts (a redis-server of the test's own, the bounded worker,
a file SQLite database, a full disk, a PostgreSQL server of the test's own) broken under real
traffic on the loopback."""

from __future__ import annotations

import http.client
import json
import shutil
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import caches
from requests.structures import CaseInsensitiveDict

from ..conftest import require_external
from .redis import RedisServer


@pytest.fixture
def redis_server(tmp_path):
    require_external(
        "Redis",
        shutil.which("redis-server") is not None,
        "install Debian's redis-server package (the drills start their own server)",
    )
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_cache(settings, redis_server):
    """The site's cache pointed at the drill's own Redis, as settings.py does for REDIS_URL,
    with a one-second breaker so recovery is seen within a test."""
    settings.CACHES = {
        "default": {
            "BACKEND": "registry.cache.ResilientCache",
            "LOCATION": redis_server.url,
            "OPTIONS": {"SOCKET_TIMEOUT": 0.25, "BREAKER_SECONDS": 1.0, "MAX_TIMEOUT": 3600, "LOCAL_MAX_ENTRIES": 500},
        }
    }
    yield caches["default"]
    caches["default"].close()


class Answer:
    def __init__(self, status: int, body: bytes, headers, seconds: float):
        # Header names are case-insensitive (RFC 9110): granian sends them in lower case.
        self.status, self.body, self.headers, self.seconds = status, body, CaseInsensitiveDict(headers), seconds

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.body)


def request(
    base_url: str,
    method: str,
    path: str,
    body: dict | str | None = None,
    headers: dict | None = None,
    timeout: float = 30,
) -> Answer:
    url = urllib.parse.urlsplit(base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    started = time.monotonic()
    try:
        sent = {"Host": "localhost", **(headers or {})}
        if isinstance(body, str):  # sent as it is, with the caller's Content-Type
            data = body
        elif body is not None:
            data = urllib.parse.urlencode(body, doseq=True)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        else:
            data = None
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        return Answer(response.status, response.read(), response.getheaders(), time.monotonic() - started)
    finally:
        conn.close()


def traffic(base_url: str, calls: list[tuple], workers: int = 8) -> list[Answer]:
    """Every (method, path[, body[, headers]]) of ``calls`` at once from ``workers`` threads."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda call: request(base_url, *call), calls))
