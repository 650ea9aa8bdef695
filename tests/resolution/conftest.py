"""A real HTTP server on the loopback, started by the test, as the resolvers' target."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class Target:
    """Records every request; answers ``status`` (200 unless set), with redirects by path.

    ``drip_seconds``: answer that long one header byte at a time (a server that never
    lets a per-read timeout trip)."""

    def __init__(self):
        self.requests: list[tuple[str, str, dict]] = []
        self.status = 200
        self.status_by_path: dict[str, int] = {}  # answers for particular paths, else ``status``
        self.redirects: dict[str, str] = {}
        self.drip_seconds = 0.0
        self.delay = 0.0  # seconds each answer waits (to see requests overlap)
        self.in_flight = 0
        self.most_in_flight = 0
        self.lock = threading.Lock()
        self.server = None

    @property
    def base(self) -> str:
        """The target by a name (templates take DNS names only), which ``test_names`` resolves to it."""
        return f"http://{TARGET_NAME}:{self.server.server_address[1]}"


#: A name under .test (RFC 6761 §6.2: reserved for testing, never delegated) for the loopback target.
TARGET_NAME = "resolver.test"


@pytest.fixture(autouse=True)
def test_names(monkeypatch):
    """Names under .test resolve to the loopback here, as a hosts-file entry would make them:
    templates may not name an address, and the probes and clients of these tests look the name up."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.lower().rstrip(".").endswith(".test"):
            host = "127.0.0.1"
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
def target():
    state = Target()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, body: bool):
            state.requests.append((self.command, self.path, dict(self.headers)))
            # In flight: asked and not yet answered. The count drops before the answer is written, so a
            # client that waits for each answer is never seen with two requests out, however late this
            # thread runs again after writing (on a busy machine it may run after the next request came).
            with state.lock:
                state.in_flight += 1
                state.most_in_flight = max(state.most_in_flight, state.in_flight)
            try:
                time.sleep(state.delay)
            finally:
                with state.lock:
                    state.in_flight -= 1
            self._reply(body)

        def _reply(self, body: bool):
            if state.drip_seconds:
                self._drip(state.drip_seconds)
                return
            if self.path in state.redirects:
                self.send_response(302)
                self.send_header("Location", state.redirects[self.path])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(state.status_by_path.get(self.path, state.status))
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "2")
            self.end_headers()
            if body:
                self.wfile.write(b"ok")

        def _drip(self, seconds: float):
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                until = time.monotonic() + seconds
                while time.monotonic() < until:
                    self.wfile.write(b"x")
                    time.sleep(0.1)
                self.wfile.write(b"\r\nContent-Length: 0\r\n\r\n")
            except OSError:
                pass  # the client gave up, as it should

        def do_GET(self):
            self._answer(True)

        def do_HEAD(self):
            self._answer(False)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def allow_private(settings):
    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = True
    return settings
