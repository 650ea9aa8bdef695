"""Scale-out: two instances of the deployed server (granian) on one PostgreSQL database see an
approval within the stamp interval, through the lookup fast path, the API and the cached public pages."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from django.db import connection

from registry import serve, services
from registry.lookup import STAMP_TTL

from .factories import proposal_factory, user_factory

ROOT = Path(__file__).resolve().parent.parent
PORTS = (8781, 8782)
URN = "urn:ogf:fdc:example.com:2002:A572007"


def get(port: int, path: str, **headers) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    response.body = response.read()
    return response


def start(port: int, database_url: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchmarks.settings",
        "DATABASE_URL": database_url,
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
    }
    process = subprocess.Popen(
        serve.command(), cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if get(port, "/bench/floor/").status == 200:
                return process
        except OSError:
            time.sleep(0.3)
    os.killpg(process.pid, signal.SIGKILL)
    raise RuntimeError(f"the server on port {port} did not start")


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)


def lookup_registered(port: int) -> bool:
    import json

    response = get(port, f"/api/lookup/?urn={URN}")
    assert response.status == 200
    return json.loads(response.body)["registered"]


@pytest.mark.external("postgresql")
@pytest.mark.django_db(transaction=True)
def test_an_approval_reaches_every_instance_within_the_stamp_interval(postgres):
    settings = connection.settings_dict
    database_url = (
        f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    editor = user_factory(editor=True)
    proposal_factory(state="approved", editor=editor)  # example, committed: the instances see it
    pending = proposal_factory(name="fdc", state="submitted")
    instances = [start(port, database_url) for port in PORTS]
    try:
        before = {}
        for port in PORTS:
            for _ in range(6):  # every worker: index built, answer remembered, fast path warm
                assert lookup_registered(port) is False
            assert b"urn:ogf:fdc:" not in get(port, "/urn/").body
            before[port] = get(port, "/urn/")
        services.proposal_transition(pending, "approve", editor, override_reason="Tests.")
        approved_at = time.monotonic()
        for port in PORTS:
            while not lookup_registered(port):
                assert time.monotonic() - approved_at < STAMP_TTL + 3, f"port {port} still answers the old registry"
                time.sleep(0.05)
        time.sleep(STAMP_TTL + 0.2)  # every worker of both instances past its stamp check
        for port in PORTS:
            assert all(lookup_registered(port) for _ in range(6))
            page = get(port, "/urn/", **{"If-None-Match": before[port].getheader("ETag")})
            assert page.status == 200 and b"urn:ogf:fdc:" in page.body
            assert page.getheader("ETag") != before[port].getheader("ETag")
            assert get(port, "/api/snids/fdc/").status == 200
    finally:
        for process in instances:
            stop(process)
