"""One account flooding "Check without saving" against the deployed server (one worker, two
threads): its checks beyond the heavy-request pool get 429 at once, and anonymous pages and
lookups keep being served promptly meanwhile."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from .conftest import request
from .server import Server
from .test_sqlite import SETUP_DRAFT

pytestmark = [pytest.mark.faults, pytest.mark.serial]

CSRF = "c" * 32
FLOOD = 16


def test_a_flood_of_checks_from_one_account_leaves_pages_and_lookups_served(tmp_path):
    from registry.forms import ProposalForm
    from registry.interchange import load

    from ..factories import demo_raw

    site = Server(
        tmp_path / "db.sqlite3", WEB_CONCURRENCY="1", WEB_THREADS="2", REGISTRY_HEAVY_PER_PROCESS="1"
    )  # the default for two threads
    setup = site.setup(SETUP_DRAFT)
    site.start()
    try:
        form = {k: v for k, v in ProposalForm.initial_from(load(demo_raw("example"))).items() if v is not None}
        form["examples_valid"] = "urn:ogf:example:" + "x" * 150 + "z"
        auth = {"Cookie": f"sessionid={setup['session']}; csrftoken={CSRF}", "X-CSRFToken": CSRF, "Host": "127.0.0.1"}

        def check(n):
            # A grammar of its own each time (a comment differs), so every check costs the
            # reference parser its whole budget of steps: nothing comes from the cache.
            body = {**form, "grammar_abnf": f'a = *(*"x" *"x" *"x") "y"\n; flood {n}\n', "grammar_rule": ""}
            return request(site.url, "POST", f"/proposals/{setup['pk']}/check/", body, auth, timeout=60)

        light, done = [], threading.Event()

        def browse():
            while not done.is_set():
                for path in ("/urn/", "/api/lookup/?urn=urn:ogf:example:x"):
                    light.append(request(site.url, "GET", path, headers={"Host": "127.0.0.1"}, timeout=30))

        browser = threading.Thread(target=browse)
        browser.start()
        started = time.monotonic()
        with ThreadPoolExecutor(FLOOD) as pool:
            checks = list(pool.map(check, range(FLOOD)))
        flood_seconds = time.monotonic() - started
        done.set()
        browser.join(timeout=60)
    finally:
        site.stop()
    statuses = sorted(answer.status for answer in checks)
    assert set(statuses) <= {200, 429} and 429 in statuses, statuses
    assert all(a.headers.get("Retry-After") == "5" for a in checks if a.status == 429)
    assert [a.status for a in light] == [200] * len(light)
    assert len(light) >= 4, (len(light), flood_seconds)
    assert max(a.seconds for a in light) < 2, sorted(round(a.seconds, 2) for a in light)[-5:]
