"""A redis-server of the test's own, on a free loopback port, to stop, fill and freeze."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time

from ..ports import free_port


class RedisServer:
    """One redis-server process: ``stop``, ``start``, ``fill`` (noeviction, no memory left),
    ``freeze`` (SIGSTOP) and ``thaw`` (SIGCONT) it under traffic."""

    def __init__(self, workdir):
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--maxmemory-policy",
                "noeviction",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if self.command("PING") == "+PONG":
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.thaw()
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def freeze(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)

    def fill(self) -> None:
        """No memory left under noeviction: every write is refused with OOM from now on."""
        self.command("CONFIG", "SET", "maxmemory", "1")

    def command(self, *words: str) -> str:
        """One command over a plain socket (RESP); the first line of the answer."""
        payload = f"*{len(words)}\r\n" + "".join(f"${len(w.encode())}\r\n{w}\r\n" for w in words)
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(payload.encode())
            answer = b""
            while b"\r\n" not in answer:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
        return answer.split(b"\r\n", 1)[0].decode()

    def ttl(self, pattern: str) -> list[int]:
        """The TTL of every key matching ``pattern`` (-1: no expiry)."""
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)
        try:
            return [client.ttl(key) for key in client.scan_iter(pattern)]
        finally:
            client.close()

    def dbsize(self) -> int:
        return int(self.command("DBSIZE").lstrip(":"))
