"""The WSGI fast path answers resolutions exactly as the full Django stack does."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from registry.lookup import registry_index
from registry.resolution.hotpath import fast_resolve
from tests.resolution.helpers import registered

pytestmark = pytest.mark.django_db


def _environ(query: str, **extra) -> dict:
    environ = RequestFactory().get("/resolve/").environ
    return {**environ, "QUERY_STRING": query, "HTTP_HOST": "testserver", **extra}


def _full(environ):
    from django.core.handlers.wsgi import WSGIHandler

    seen = {}
    body = b"".join(WSGIHandler()(dict(environ), lambda status, headers: seen.update(s=status, h=headers)))
    return seen["s"], {k.lower(): v for k, v in seen["h"]}, body


def _fast(environ):
    answer = fast_resolve(dict(environ))
    return answer and (answer[0], {k.lower(): v for k, v in answer[1]}, answer[2])


@pytest.fixture
def keep_connection():
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.parametrize(("query", "accept"), [
    ("urn=urn:ogf:example:cluster:2009:example.net:42", ""),
    ("urn=URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42", "text/html"),
    ("urn=urn%3Aogf%3Aexample%3Acluster%3A2010%3Aexample.net%3A1", "application/json"),
])
def test_fast_resolve_answers_exactly_as_the_full_stack(keep_connection, query, accept):
    registered([{"name": "main", "template": "https://data.example.org/{DOMAIN}/{INDEX}",
                 "media_types": ["text/html"]},
                {"name": "meta", "template": "https://data.example.org/m/{nss}", "media_types": ["application/json"]}])
    environ = _environ(query, HTTP_ACCEPT=accept)
    expected = _full(environ)
    assert expected[0].startswith("303")
    registry_index().answers.clear()
    assert _fast(environ) == expected
    assert _fast(environ) == expected  # from the answer table
    conditional = {**environ, "HTTP_IF_NONE_MATCH": expected[1]["etag"]}
    fast, full = _fast(conditional), _full(conditional)
    assert (fast[0], sorted(fast[1].items()), fast[2]) == (full[0], sorted(full[1].items()), full[2])


def test_fast_resolve_leaves_landing_pages_and_components_to_django(keep_connection):
    registered([])
    environ = _environ("urn=urn:ogf:example:cluster:2009:example.net:42")
    _full(environ)
    assert _fast(environ) is None
    assert _fast(_environ("urn=urn:ogf:example:cluster:2009:example.net:42%3F%2Bx")) is None
    assert _fast(_environ("urn=urn:ogf:example:x", HTTP_ORIGIN="https://a.example")) is None
