"""The WSGI fast path answers resolutions exactly as the full Django stack does."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from registry.api.resolve_hotpath import fast_resolve
from registry.lookup import registry_index
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


@pytest.mark.parametrize(
    ("query", "accept"),
    [
        ("urn=urn:ogf:example:cluster:2009:example.net:42", ""),
        ("urn=URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42", "text/html"),
        ("urn=urn%3Aogf%3Aexample%3Acluster%3A2010%3Aexample.net%3A1", "application/json"),
    ],
)
def test_fast_resolve_answers_exactly_as_the_full_stack(keep_connection, query, accept):
    registered(
        [
            {"name": "main", "template": "https://data.example.org/{DOMAIN}/{INDEX}", "media_types": ["text/html"]},
            {"name": "meta", "template": "https://data.example.org/m/{nss}", "media_types": ["application/json"]},
        ]
    )
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


@pytest.mark.parametrize(
    ("raw", "accept"),
    [
        ("/urn:ogf:example:cluster:2009:example.net:42", ""),
        ("/URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42", "text/html"),
        ("/urn:ogf:example:cluster:2010:example.net:1", "application/json"),
    ],
)
def test_fast_resolve_answers_the_path_form_exactly_as_the_full_stack(keep_connection, raw, accept):
    from urllib.parse import unquote

    registered(
        [
            {"name": "main", "template": "https://data.example.org/{DOMAIN}/{INDEX}", "media_types": ["text/html"]},
            {"name": "meta", "template": "https://data.example.org/m/{nss}", "media_types": ["application/json"]},
        ]
    )
    environ = _environ("", PATH_INFO=unquote(raw).encode().decode("iso-8859-1"), RAW_URI=raw, HTTP_ACCEPT=accept)
    expected = _full(environ)
    assert expected[0].startswith("303"), expected
    registry_index().answers.clear()
    assert _fast(environ) == expected
    assert _fast(environ) == expected  # from the answer table
    conditional = {**environ, "HTTP_IF_NONE_MATCH": expected[1]["etag"]}
    fast, full = _fast(conditional), _full(conditional)
    assert fast[0].startswith("304")
    assert (fast[0], sorted(fast[1].items()), fast[2]) == (full[0], sorted(full[1].items()), full[2])


def test_fast_resolve_leaves_the_path_forms_query_and_landing_pages_to_django(keep_connection):
    registered([{"name": "main", "template": "https://data.example.org/{nss}"}])
    path = "/urn:ogf:example:cluster:2009:example.net:42"
    environ = _environ("", PATH_INFO=path, RAW_URI=path)
    assert _full(environ)[0].startswith("302")
    assert _fast(environ)[0].startswith("302")
    for query in ("provider=main", "+r", "=q"):
        with_query = _environ(query, PATH_INFO=path, RAW_URI=f"{path}?{query}")
        assert _fast(with_query) is None
    for invalid in ("/urn:ogf:example:not-valid", "/urn:ogf:example:cluster:2010:ex%61mple.net:7"):
        # the raw path is what is resolved (RFC 8141 does not decode %61 for equivalence): 404, by Django
        environ = _environ("", PATH_INFO=invalid.replace("%61", "a"), RAW_URI=invalid)
        assert _full(environ)[0].startswith("404")
        assert _fast(environ) is None
