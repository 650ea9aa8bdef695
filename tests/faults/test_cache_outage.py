"""Redis stopped, full or frozen under traffic: every page, lookup and check still answers
correctly (slower), throttles fall back to a local limit, nothing answers 500."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from registry import markdown
from registry.cache import ResilientCache

from ..factories import proposal_factory, user_factory
from .conftest import request, traffic

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
REGISTERED = "urn:ogf:example:cluster:2009:example.net:42"
CSRF = "c" * 32


@pytest.fixture
def site(redis_cache, live_server, settings):
    """An approved SNID, a draft of another applicant, and that applicant's session."""
    settings.REGISTRY_ANON_RATE = "100000/min"
    settings.REGISTRY_HEAVY_PER_ACCOUNT = settings.REGISTRY_HEAVY_PER_PROCESS = 100  # checks at once here
    editor = user_factory(editor=True)
    proposal_factory(state="approved", editor=editor)
    applicant = user_factory("drill")
    draft = proposal_factory(applicant, name="fdc")
    from django.test import Client

    client = Client()
    client.force_login(applicant)
    session = client.cookies["sessionid"].value
    return {"url": live_server.url, "draft": draft, "session": session}


def _form(draft) -> dict:
    from registry.forms import ProposalForm

    initial = ProposalForm.initial_from(draft.to_data())
    return {key: value for key, value in initial.items() if value is not None}


def _calls(site, rounds: int = 3) -> list[tuple]:
    auth = {"Cookie": f"sessionid={site['session']}; csrftoken={CSRF}", "X-CSRFToken": CSRF}
    calls = []
    for _ in range(rounds):
        calls += [
            ("GET", "/urn/"),
            ("GET", "/urn/example/"),
            ("GET", f"/api/lookup/?urn={REGISTERED}"),
            ("GET", "/api/lookup/?urn=urn:ogf:nosuchsnid:x"),
            ("GET", "/api/snids/"),
            ("GET", "/accounts/signup/"),
            ("POST", f"/proposals/{site['draft'].pk}/check/", _form(site["draft"]), auth),
        ]
    return calls


def _assert_correct(calls, answers) -> None:
    """No 500, and each kind of request gives its true answer."""
    assert sorted({answer.status for answer in answers}) == [200], [
        (call[1], answer.status) for call, answer in zip(calls, answers, strict=True) if answer.status != 200
    ]
    for call, answer in zip(calls, answers, strict=True):
        path = call[1]
        if path.startswith("/api/lookup/"):
            assert answer.json()["registered"] is (REGISTERED in path)
        elif path == "/api/snids/":
            assert [item["snid"] for item in answer.json()["results"]] == ["example"]
        elif path.startswith("/urn/"):
            assert "urn:ogf:example:" in answer.text
        elif path.endswith("/check/"):
            assert 'data-check="grammar-parses"' in answer.text or "grammar-parses" in answer.text


def drill(site, rounds: int = 3):
    calls = _calls(site, rounds)
    answers = traffic(site["url"], calls)
    _assert_correct(calls, answers)
    return answers


def test_redis_stopped_under_traffic_every_answer_is_still_correct(site, redis_server, redis_cache):
    drill(site)
    assert redis_server.dbsize() > 0  # Redis was really in use
    redis_server.stop()
    answers = drill(site)
    assert max(answer.seconds for answer in answers) < 10


def test_redis_full_under_traffic_every_answer_is_still_correct(site, redis_server):
    redis_server.fill()
    drill(site, rounds=4)


def test_redis_frozen_under_traffic_answers_come_without_hanging(site, redis_server):
    drill(site, rounds=1)
    redis_server.freeze()
    try:
        answers = drill(site)
        # One socket time-out (0.25 s) at most per thread before the breaker opens.
        assert max(answer.seconds for answer in answers) < 5
    finally:
        redis_server.thaw()


def test_redis_back_after_an_outage_is_used_again(site, redis_server, redis_cache):
    redis_server.stop()
    drill(site, rounds=1)
    assert not redis_cache.redis_in_use
    redis_server.start()
    time.sleep(1.2)  # the breaker's interval in the drill
    drill(site, rounds=1)
    assert redis_cache.redis_in_use and redis_server.dbsize() > 0


def test_throttle_falls_back_to_a_local_limit_while_redis_is_down(site, redis_server, settings):
    redis_server.stop()
    settings.REGISTRY_ANON_RATE = "5/min"
    answers = [request(site["url"], "GET", f"/api/lookup/?urn={REGISTERED}") for _ in range(8)]
    assert [a.status for a in answers] == [200] * 5 + [429] * 3
    assert answers[-1].headers.get("Retry-After")


def test_every_cache_entry_expires(redis_cache, redis_server, db):
    redis_cache.set("forever", 1, None)
    redis_cache.set_many({"many": 1}, None)
    redis_cache.add("added", 1, None)
    markdown.local_clear()
    markdown.prerender(["Some *new* text to render for the drill."])
    ttls = redis_server.ttl("*")
    assert len(ttls) >= 4
    assert all(0 < ttl <= 7 * 24 * 3600 for ttl in ttls), ttls


def test_the_fallback_memory_is_bounded(redis_server):
    redis_server.stop()
    cache = ResilientCache(redis_server.url, {"OPTIONS": {"LOCAL_MAX_ENTRIES": 50, "BREAKER_SECONDS": 60}})
    for n in range(500):
        cache.set(f"k{n}", "x" * 100)
    assert not cache.redis_in_use
    assert len(cache.local._cache) <= 50
    assert cache.get("k499") == "x" * 100


def test_start_works_with_redis_down(tmp_path, redis_server):
    redis_server.stop()
    env = {
        **os.environ,
        "REDIS_URL": redis_server.url,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "registry.settings",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "start", "--no-serve"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "demonstration proposals" in result.stdout


def test_sign_up_limit_falls_back_to_a_local_limit_while_redis_is_down(site, redis_server, settings):
    redis_server.stop()
    settings.SIGNUP_RATE_PER_ADDRESS = 3
    headers = {"Cookie": f"csrftoken={CSRF}", "X-CSRFToken": CSRF}
    answers = [
        request(site["url"], "POST", "/accounts/signup/", {"username": "", "email": ""}, headers) for _ in range(5)
    ]
    assert [a.status for a in answers] == [200, 200, 200, 429, 429]
    assert answers[-1].headers.get("Retry-After") == "3600"
