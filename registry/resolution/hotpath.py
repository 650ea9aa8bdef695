"""``GET /resolve/?urn=…`` redirects answered at the WSGI layer, like the lookup's fast path.

A warm resolution is the lookup's dictionary hit or RE2 match plus one template fill;
Django's request and middleware cost many times that. ``with_fast_resolve`` answers only
what it can answer exactly as the full stack does (tests/resolution/test_hotpath.py
compares the bytes and headers): ``urn=`` alone, ASCII, no Origin, an allowed host, no
HTTPS redirect due, a fresh index with the SNID's validator and resolvers loaded, and a
redirect (302/303/304) as the outcome. Landing pages, errors and everything else go to
Django. Answers are kept per registry stamp in the index's bounded answer table.
"""

from __future__ import annotations

from django.utils.encoding import iri_to_uri

from ..api.hotpath import fast_path_gate
from ..api.http import ANSWERS_MAX, CACHE_CONTROL, etag_of, simple_lookup_query
from ..conditional import etag_matches
from ..lookup import answerable_without_query
from ..grammar import PREFIX
from .resolve import resolve, targets_loaded
from .views import etag_input

RESOLVE_PATH = "/resolve/"
_REASONS = {302: "302 Found", 303: "303 See Other"}


def with_fast_resolve(application):
    def fast_resolve_application(environ, start_response):
        answer = fast_resolve(environ)
        if answer is None:
            return application(environ, start_response)
        status, headers, body = answer
        start_response(status, headers)
        return [body]

    return fast_resolve_application


def fast_resolve(environ: dict):
    gate = fast_path_gate(environ, RESOLVE_PATH)
    if gate is None:
        return None
    index, rules, secure = gate
    query = environ.get("QUERY_STRING", "")
    accept = environ.get("HTTP_ACCEPT", "")
    key = f"\0resolve\0{accept}\0{query}"
    known = index.answers.get(key)
    if known is None:
        urn = simple_lookup_query(query)
        if urn is None or "?" in urn or "#" in urn or not answerable_without_query(urn, index):
            return None
        snid_key = urn[len(PREFIX):].split(":", 1)[0].lower()
        if not targets_loaded(snid_key, index):
            return None
        outcome = resolve(urn, accept=accept, index=index)
        if outcome.kind != "redirect":
            return None
        full_path = f"{RESOLVE_PATH}?{iri_to_uri(query)}"
        known = (outcome.status, outcome.location,
                 etag_of(index, etag_input(full_path, accept, outcome.negotiated)))
        if len(key) <= 4096:
            if len(index.answers) >= ANSWERS_MAX:
                index.answers.clear()
            index.answers[key] = known
    status, location, etag = known
    if etag_matches(environ.get("HTTP_IF_NONE_MATCH", ""), etag):
        headers = [("ETag", etag), ("Cache-Control", CACHE_CONTROL), ("Vary", "Accept")]
        line = "304 Not Modified"
    else:
        headers = [("Content-Type", "text/html; charset=utf-8"), ("Location", location), ("ETag", etag),
                   ("Cache-Control", CACHE_CONTROL), ("Vary", "Accept")]
        line = _REASONS[status]
    headers += rules.secure_headers if secure else rules.headers
    headers = [(name, value) for name, value in headers if name != "Vary" or value == "Accept"]
    headers.append(("Content-Length", "0"))
    return line, headers, b""
