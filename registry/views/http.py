"""Conditional GET for the read-only API (ETag from the registry stamp, Cache-Control), and
the lookup answer itself, shared by the DRF view and the WSGI fast path (``hotpath``) so
both give byte-identical answers."""

from __future__ import annotations

import zlib
from types import SimpleNamespace
from urllib.parse import unquote_plus

import orjson
from django.http import HttpResponse, HttpResponseNotModified
from django.http.request import HttpHeaders

from ..conditional import etag_matches
from ..lookup import Index, NotAnOgfUrn, lookup_urn, registry_index

CACHE_CONTROL = "public, max-age=60"
MISSING_URN = "Give the URN to look up as ?urn=urn:ogf:<snid>:<string>."
#: Serialised lookup answers kept per registry stamp: bounded, so a crawl of distinct URNs
#: cannot grow a worker (the table starts again when full).
ANSWERS_MAX = 2048
ANSWER_BYTES_MAX = 2048


def etag_of(index: Index, full_path: str) -> str:
    """Strong: one registry stamp and one URL always give the same bytes."""
    path = full_path.encode("utf-8", "surrogatepass")
    return f'"{index.etag_prefix}-{zlib.crc32(path):08x}-{len(path):x}"'


def etag_for(request) -> str:
    """Changes whenever the registry changes (the lookup index's stamp) or the request does."""
    return etag_of(registry_index(), request.get_full_path())


def not_modified(request, etag: str) -> HttpResponse | None:
    # request.META, not request.headers: the latter copies every header
    if etag_matches(request.META.get("HTTP_IF_NONE_MATCH", ""), etag):
        return cacheable(HttpResponseNotModified(), etag)
    return None


def cacheable(response, etag: str):
    response["ETag"] = etag
    response["Cache-Control"] = CACHE_CONTROL
    return response


def anonymous_client(meta: dict) -> SimpleNamespace:
    """What the throttles of a public endpoint see: the client's address and no user.

    Public endpoints authenticate nobody (``authentication_classes = []``), so every
    client is throttled by address, never by a session: the session is not even read,
    and the answer does not vary with cookies.
    """
    return SimpleNamespace(META=meta, headers=HttpHeaders(meta), user=None)


# --- the lookup answer ---------------------------------------------------------------------------


def simple_lookup_query(query: str) -> str | None:
    """The URN of the usual query, ``urn=...`` alone and ASCII, decoded exactly as ``request.GET``
    decodes it (UTF-8, bad escapes replaced) but without building a QueryDict; None otherwise."""
    if query.startswith("urn=") and "&" not in query and query.isascii():
        return unquote_plus(query[4:], errors="replace")
    return None


def lookup_answer(urn: str | None, index: Index | None = None) -> tuple[int, bytes]:
    """(status, JSON body) of ``GET /api/lookup/?urn=...``: 200 with the lookup object, or 400."""
    if not urn:
        return 400, orjson.dumps({"detail": MISSING_URN})
    try:
        answer = lookup_urn(urn, index)
    except NotAnOgfUrn as exc:
        return 400, orjson.dumps({"detail": str(exc)})
    return 200, orjson.dumps(answer)


def remember(index: Index, query: str, body: bytes, etag: str) -> tuple[bytes, str]:
    """Keep a 200 answer for this query string as long as the index (the registry stamp) lasts."""
    if len(body) <= ANSWER_BYTES_MAX and len(query) <= ANSWER_BYTES_MAX:
        if len(index.answers) >= ANSWERS_MAX:
            index.answers.clear()
        index.answers[query] = (body, etag)
    return body, etag
