"""A free TCP port on the loopback, for a server a test starts (granian, nginx, Redis, PostgreSQL)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nobody listens on now: the kernel picks it for a socket bound to port 0, then it is released.

    Another process may take it before the server binds it; the servers' start-up helpers fail
    loudly (they wait for their own process to listen), never silently talk to someone else."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
