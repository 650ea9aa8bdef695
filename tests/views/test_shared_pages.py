"""What is cached for everyone is built from settings alone, never from the request.

A page kept in the shared cache (``views.public.anonymous_cache``, and the API's SNID list)
is served to every visitor who asks for it, whatever host name, scheme and cookies they
asked with; the first request after a start is the worker's own warm-up (registry/warmup.py),
which asks with the first allowed host over https. So such a page may depend on the
registry's state and the settings (``settings.SITE_URL`` for any absolute address), and on
nothing the request carries: each page is rendered first for one host, scheme and set of
cookies, then, the cache emptied, for another, and the two answers must be the same bytes,
naming the site URL and neither host.
"""

from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache
from django.urls import URLPattern, URLResolver, get_resolver

from registry import demo

SITE_URL = "https://registry.test"
HOSTS = ("alpha.test", "beta.test:8443")
#: Addresses a page built from the request would show (the hosts asked with, or Django's defaults).
REQUEST_ADDRESS = re.compile(r"https?://(?:alpha\.test|beta\.test|testserver|127\.0\.0\.1|localhost)\b")

#: Every view cached for everyone, by URL name, with the pages of it this test renders. A new
#: cached view fails ``test_every_shared_page_is_tested`` until it is listed here.
SAMPLES: dict[str, list[str]] = {
    "registry:namespace_list": ["/urn/", "/urn/?q=exam&sort=-date"],
    "registry:namespace_detail": [
        "/urn/example/",
        "/urn/example/?urn=urn:ogf:example:cluster:2009:example.net:42",
        "/urn/fdc/",
    ],
    "registry:namespace_version": ["/urn/example/1/"],
    "registry:namespace_diff": ["/urn/example/diff/"],
    "registry:urn_search": [
        "/urn/search/",
        "/urn/search/?q=grid",
        "/urn/search/?urn=urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1",
    ],
    "registry:registry_export": ["/urn/registry.json", "/urn/registry.csv", "/urn/registry.xml"],
    "registry:feed": ["/urn/feed.atom"],
    "registry:registry_full_export": ["/urn/registry-full.json"],
    "api:snid_list": ["/api/snids/", "/api/snids/?q=grid"],
}
#: Answers not kept in the registry's own cache but marked ``public`` for every cache on the way (a
#: proxy's, nginx's in front of the lookups: docs/deployment.md): the same rule holds for them.
PUBLIC_ANSWERS = [
    "/api/lookup/?urn=urn:ogf:example:cluster:2009:example.net:42",
    "/api/snids/example/",
    "/api/snids/example/versions/1/",
    "/api/resolve/?urn=urn:ogf:example:cluster:2009:example.net:42",
]
#: Pages that must name the site URL (an absolute address of the site is part of them).
NAMES_THE_SITE = {
    "/urn/example/": f"{SITE_URL}/urn:ogf:example:",
    "/urn/registry.json": f"{SITE_URL}/urn/example/",
    "/urn/feed.atom": f"{SITE_URL}/urn/",
    "/api/snids/": f"{SITE_URL}/api/snids/example/",
    "/api/snids/example/": f"{SITE_URL}/urn/example/",
    PUBLIC_ANSWERS[0]: f"{SITE_URL}/urn/example/",
}


def _shared(callback) -> bool:
    return bool(
        getattr(callback, "shared_page", False)
        or getattr(getattr(callback, "view_class", None), "shared_page", False)
        or getattr(getattr(callback, "cls", None), "shared_page", False)
    )


def shared_views(patterns=None, namespace: str = "") -> set[str]:
    """The URL names of every view cached for everyone, found in the URL configuration."""
    names = set()
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            names |= shared_views(entry.url_patterns, inner)
        elif isinstance(entry, URLPattern) and _shared(entry.callback):
            names.add(f"{namespace}{entry.name}")
    return names


@pytest.fixture
def registry(db, settings):
    settings.SITE_URL = SITE_URL
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, *(host.split(":")[0] for host in HOSTS)]
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    cache.clear()
    yield
    cache.clear()


def _first_render(client, path: str, host: str, *, secure: bool, cookies: dict) -> bytes:
    """The page as the first visitor after a start gets it: rendered for them, with an empty cache."""
    cache.clear()
    client.cookies.clear()
    for name, value in cookies.items():
        client.cookies[name] = value
    response = client.get(
        path, HTTP_HOST=host, secure=secure, **({"HTTP_X_FORWARDED_PROTO": "https"} if secure else {})
    )
    assert response.status_code == 200, (path, host, response.status_code)
    return response.content


def test_every_shared_page_is_tested():
    assert shared_views() == set(SAMPLES)


@pytest.mark.django_db
@pytest.mark.parametrize("path", [path for paths in SAMPLES.values() for path in paths] + PUBLIC_ANSWERS)
def test_a_shared_page_is_the_same_whoever_asks_first(client, registry, path):
    first = _first_render(client, path, HOSTS[0], secure=False, cookies={"csrftoken": "a" * 32, "theme": "x"})
    second = _first_render(client, path, HOSTS[1], secure=True, cookies={"csrftoken": "b" * 32})
    assert first == second
    text = first.decode()
    assert "alpha.test" not in text and "beta.test" not in text
    assert REQUEST_ADDRESS.search(text) is None, (path, REQUEST_ADDRESS.search(text))
    if path in NAMES_THE_SITE:
        assert NAMES_THE_SITE[path] in text


@pytest.mark.django_db
def test_the_resolver_line_names_the_site_url_after_the_warm_up(registry, keep_connection):
    """The start-up warm-up asks with the first allowed host over https; visitors get the site URL."""
    from django.core.wsgi import get_wsgi_application
    from django.test import Client

    from registry.warmup import warm_pages

    warm_pages(get_wsgi_application(), seconds=5)
    page = Client().get("/urn/example/", HTTP_HOST=HOSTS[0]).content.decode()
    assert f"Resolve a URN of this SNID at <code>{SITE_URL}/urn:ogf:example:…</code>" in page


@pytest.mark.django_db
def test_a_visitors_message_is_shown_to_them_and_never_kept_for_others(client, registry):
    """A confirmation waiting in one visitor's cookie is theirs: their page is not stored nor shared."""
    from django.contrib.messages import constants
    from django.contrib.messages.storage.cookie import CookieStorage
    from django.http import HttpRequest, HttpResponse

    request, response = HttpRequest(), HttpResponse()
    storage = CookieStorage(request)
    storage.add(constants.SUCCESS, "You are logged out, Dana.")
    storage.update(response)
    client.cookies["messages"] = response.cookies["messages"].value
    mine = client.get("/urn/")
    assert "You are logged out, Dana." in mine.content.decode()
    assert "private" in mine["Cache-Control"] and "public" not in mine["Cache-Control"]
    client.cookies.clear()
    theirs = client.get("/urn/")
    assert "Dana" not in theirs.content.decode() and "public" in theirs["Cache-Control"]


@pytest.mark.django_db
def test_the_api_lists_page_links_start_with_the_site_url(client, registry, monkeypatch):
    from registry.api.pagination import SitePageNumberPagination

    monkeypatch.setattr(SitePageNumberPagination, "page_size", 1)  # the demo's two SNIDs on two pages
    pages = {}
    for path in ("/api/snids/", "/api/snids/?page=2"):
        first = _first_render(client, path, HOSTS[0], secure=False, cookies={})
        assert first == _first_render(client, path, HOSTS[1], secure=True, cookies={})
        pages[path] = json.loads(first)
    assert pages["/api/snids/"]["next"] == f"{SITE_URL}/api/snids/?page=2"
    assert pages["/api/snids/?page=2"]["previous"] == f"{SITE_URL}/api/snids/"
