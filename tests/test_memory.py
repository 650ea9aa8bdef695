"""Memory: lookups must not grow the process, and grammars must not pile up in the abnf package."""

import gc
import tracemalloc

import pytest
from abnf.parser import Rule

from registry.grammar import grammar_compile

pytestmark = pytest.mark.budget  # run again beside CPU burners (.ci/run)


def test_compiling_grammars_leaves_nothing_in_the_abnf_registry():
    grammar_compile('warm = "up"\n', examples=["up"])
    before = len(Rule._obj_map)
    for index in range(25):
        grammar_compile(f'top{index} = "x{index}" 1*DIGIT\n', examples=[f"x{index}1"])
    assert len(Rule._obj_map) == before


#: Windows of 2,000 lookups each: a leak shows in all of them.
WINDOWS = 3


@pytest.mark.long
@pytest.mark.django_db
def test_lookups_do_not_grow_process_memory(settings, keep_connection):
    """Drive the real WSGI handler (the test client itself keeps a little per request)."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory

    from registry import demo

    settings.REGISTRY_ANON_RATE = "off"  # 429s would be logged, and pytest keeps every log record
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    handler, factory = WSGIHandler(), RequestFactory()
    environs = [
        factory.get("/api/lookup/", {"urn": urn}).environ
        for urn in (
            "urn:ogf:fdc:example.com:2002:A572007",
            "urn:ogf:example:cluster:2009:example.net:42",
            "urn:ogf:nothing:x",
            "urn:ogf:example:bad",
        )
    ]

    def lookups(rounds):
        for _ in range(rounds):
            for environ in environs:
                body = b"".join(handler(dict(environ), lambda status, headers: None))
                assert body.startswith(b"{")

    lookups(300)  # warm every cache first
    gc.collect()
    tracemalloc.start()
    growth = []
    try:
        for _ in range(WINDOWS):
            start, _ = tracemalloc.get_traced_memory()
            lookups(500)
            gc.collect()
            end, _ = tracemalloc.get_traced_memory()
            growth.append(end - start)
    finally:
        tracemalloc.stop()
    # A leak grows every window by about the same amount; what happens once (a table resized, an
    # entry refreshed because a clock said so, which a busy machine makes likelier) grows one.
    assert min(growth) < 16 * 1024, f"every 2,000 lookups grew memory: {[round(g / 1024) for g in growth]} KiB"


@pytest.mark.django_db
def test_remembered_lookup_answers_stay_bounded(settings, monkeypatch, keep_connection):
    """A crawl of distinct URNs must not grow the per-stamp answer table without end."""
    from django.test import RequestFactory

    from registry.lookup import registry_index
    from registry.views import http
    from registry.wsgi import application

    settings.REGISTRY_ANON_RATE = "off"
    monkeypatch.setattr(http, "ANSWERS_MAX", 50)
    environ = {**RequestFactory().get("/api/lookup/").environ, "HTTP_HOST": "testserver"}
    sizes = []
    for number in range(400):
        query = f"urn=urn:ogf:nothing:item{number}"
        body = b"".join(application({**environ, "QUERY_STRING": query}, lambda status, headers: None))
        assert body.startswith(b'{"urn":"urn:ogf:nothing:item')
        sizes.append(len(registry_index().answers))
    assert max(sizes) == 50
    assert sizes[-1] <= 50
