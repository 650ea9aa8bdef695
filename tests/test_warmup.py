"""registry/warmup.py: what a server process prepares before its first request."""

from pathlib import Path

import pytest
from django.conf import settings
from django.template import engines
from django.urls import get_resolver

from registry import warmup

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def _cached_names() -> set[str]:
    loader = engines["django"].engine.template_loaders[0]
    return {
        template.origin.template_name for template in loader.get_template_cache.values() if hasattr(template, "origin")
    }


def test_warmup_compiles_every_project_template_into_the_loader_cache():
    engines["django"].engine.template_loaders[0].reset()
    names = warmup.prepare()
    expected = sorted(
        p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*") if p.suffix in warmup.TEMPLATE_SUFFIXES
    )
    assert sorted(names) == expected
    assert set(expected) <= _cached_names()


def test_warmup_fills_the_url_resolver():
    warmup.prepare()
    resolver = get_resolver()
    assert resolver._populated
    assert "registry" in resolver.namespace_dict


def test_warmup_opens_no_database_connection(django_db_blocker):
    engines["django"].engine.template_loaders[0].reset()
    with django_db_blocker.block():  # any connection or query raises here
        names = warmup.prepare()
    assert "base.html" in names


@pytest.mark.django_db
def test_warm_pages_asks_the_application_for_the_public_pages_once(settings, keep_connection):
    from django.core.handlers.wsgi import WSGIHandler

    from registry import demo, help

    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    settings.ALLOWED_HOSTS = ["urn.example.org"]
    statuses = warmup.warm_pages(WSGIHandler())
    assert statuses["/urn/"] == 200 and statuses["/urn/example/"] == 200 and statuses["/urn/fdc/"] == 200
    assert any(path.startswith("/api/lookup/?urn=urn:ogf:") for path in statuses)
    assert statuses["(the proposal form and the automated review)"] == 200
    assert all(statuses[f"/help/{slug}/"] == 200 for slug in help.PAGES)
    assert set(statuses.values()) == {200}


@pytest.mark.django_db
def test_warm_pages_on_an_empty_registry_warms_what_needs_no_snid(keep_connection):
    from django.core.handlers.wsgi import WSGIHandler

    statuses = warmup.warm_pages(WSGIHandler())
    assert "/urn/" in statuses and not any("{snid}" in path for path in statuses)
    assert set(statuses.values()) == {200}, statuses


@pytest.mark.django_db
def test_warm_pages_prepares_every_snid_page_within_its_time(keep_connection):
    from django.core.handlers.wsgi import WSGIHandler

    from benchmarks.data import populate

    populate(60)  # more than the 50 newest a worker once prepared
    ticks = []
    statuses = warmup.warm_pages(WSGIHandler(), tick=lambda: ticks.append(1))
    assert {f"/urn/bench{i}/" for i in range(60)} <= set(statuses)
    assert set(statuses.values()) == {200}, statuses
    assert len(ticks) >= len(statuses) - 1  # a heartbeat after each page (and each proposal prepared)


@pytest.mark.django_db
def test_warm_pages_with_no_time_left_leaves_snid_pages_to_their_first_visit(keep_connection, caplog):
    from django.core.handlers.wsgi import WSGIHandler

    from benchmarks.data import populate

    populate(3)
    with caplog.at_level("INFO", logger="registry.warmup"):
        statuses = warmup.warm_pages(WSGIHandler(), seconds=0)
    assert "/urn/" in statuses and not any(path.startswith("/urn/bench") for path in statuses)
    assert "0 of 3 SNID pages prepared within 0 s" in caplog.text


@pytest.mark.django_db
def test_warm_pages_with_the_database_lost_starts_the_worker_unprepared(keep_connection, caplog):
    from django.core.handlers.wsgi import WSGIHandler

    from registry import help

    from .conftest import database_lost

    with database_lost(), caplog.at_level("WARNING", logger="registry.warmup"):
        statuses = warmup.warm_pages(WSGIHandler())
    assert statuses["(the proposal form and the automated review)"] == 503
    assert statuses["/urn/"] == 503 and all(statuses[f"/help/{slug}/"] == 200 for slug in help.PAGES)
    assert "warm-up: the database cannot be reached (server closed the connection unexpectedly)" in caplog.text
    assert "Traceback" not in caplog.text


@pytest.mark.django_db
def test_warm_workbench_prepares_each_distinct_proposal_once_most_recent_first(keep_connection):
    import time

    from benchmarks.data import populate
    from registry import demo

    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    populate(0, pending=30)  # thirty proposals written from one template
    prepared = warmup._warm_workbench()
    # the worked example, the demo's proposals being worked on, and the thirty as one
    from registry.models import Proposal

    demo_active = Proposal.objects.filter(is_demo=True, state__in=["draft", "submitted", "changes_requested"]).count()
    assert prepared == 1 + demo_active + 1
    assert warmup._warm_workbench(deadline=time.monotonic() - 1) == 0
