"""``GET /urn:ogf:…`` and ``GET /resolve/?urn=…`` redirects answered at the WSGI layer, like the lookup.

A warm resolution is the lookup's dictionary hit or RE2 match plus one template fill;
Django's request and middleware cost many times that. ``with_fast_resolve`` answers only
what it can answer exactly as the full stack does (tests/resolution/test_hotpath.py
compares the bytes and headers): the path form without a query or ``urn=`` alone, ASCII,
no Origin, an allowed host, no
HTTPS redirect due, a fresh index with the SNID's validator and resolvers loaded, and a
redirect (302/303/304) as the outcome. Landing pages, errors and everything else go to
Django. Answers are kept per registry stamp in the index's bounded answer table.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.handlers.wsgi import get_path_info
from django.utils.encoding import escape_uri_path, iri_to_uri

from ..conditional import etag_matches
from ..grammar import PREFIX
from ..lookup import answerable_without_query
from ..resolution.resolve import resolve, targets_loaded
from ..views.http import ANSWERS_MAX, CACHE_CONTROL, etag_of, simple_lookup_query
from ..views.resolve import etag_input
from .hotpath import fast_path_gate, with_fast_path

RESOLVE_PATH = "/resolve/"
PATH_FORM = "/urn:ogf:"
_REASONS = {302: "302 Found", 303: "303 See Other"}


def with_fast_resolve(application):
    """The WSGI application ``application`` with redirects answered first (``fast_resolve``)."""
    return with_fast_path(fast_resolve, application)


def fast_resolve(environ: dict):
    path_info = environ.get("PATH_INFO", "")
    path_form = path_info[:9].lower() == PATH_FORM
    gate = fast_path_gate(environ, path_info if path_form else RESOLVE_PATH)
    if gate is None:
        return None
    index, rules, secure = gate
    query = environ.get("QUERY_STRING", "")
    accept = environ.get("HTTP_ACCEPT", "")
    if path_form:
        if query:
            return None  # ?+ / ?= components and ?provider= are the view's
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI") or ""
        urn = raw.split("?", 1)[0][1:] if raw.startswith("/") else path_info[1:]  # as resolve_path reads it
        key = f"\0path\0{accept}\0{urn}"
    else:
        urn = None
        key = f"\0resolve\0{accept}\0{query}"
    known = index.answers.get(key)
    if known is None:
        if not path_form:
            urn = simple_lookup_query(query)
        if urn is None or not urn.isascii() or "?" in urn or "#" in urn or not answerable_without_query(urn, index):
            return None
        snid_key = urn[len(PREFIX) :].split(":", 1)[0].lower()
        if not targets_loaded(snid_key, index):
            return None
        outcome = resolve(urn, accept=accept, index=index)
        if outcome.kind != "redirect":
            return None
        # What the view's request.get_full_path() gives, for the same ETag.
        full_path = escape_uri_path(get_path_info(environ)) if path_form else f"{RESOLVE_PATH}?{iri_to_uri(query)}"
        etag = etag_of(index, etag_input(full_path, accept, outcome.negotiated))
        known = _answer(outcome.status, outcome.location, etag, rules)
        if len(key) <= 4096:
            if len(index.answers) >= ANSWERS_MAX:
                index.answers.clear()
            index.answers[key] = known
    if etag_matches(environ.get("HTTP_IF_NONE_MATCH", ""), known.etag):
        line, headers = "304 Not Modified", known.not_modified_secure if secure else known.not_modified
    else:
        line, headers = known.line, known.secure if secure else known.plain
    return line, list(headers), b""


@dataclass(frozen=True, slots=True)
class _Known:
    """A redirect's answer, its headers built once for both schemes (kept in the answer table)."""

    line: str
    etag: str
    plain: tuple
    secure: tuple
    not_modified: tuple
    not_modified_secure: tuple


_added: list = [None, (), ()]  # (plan, its headers without Vary, its secure headers without Vary)


def _answer(status: int, location: str, etag: str, rules) -> _Known:
    """The headers the full stack sends: the view's, then the middleware's (Vary merged into Accept)."""
    if _added[0] is not rules:
        _added[:] = [
            rules,
            tuple(h for h in rules.headers if h[0] != "Vary"),
            tuple(h for h in rules.secure_headers if h[0] != "Vary"),
        ]

    def built(own: list, secure: bool) -> tuple:
        return (*own, *(_added[2] if secure else _added[1]), ("Content-Length", "0"))

    redirect = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Location", location),
        ("ETag", etag),
        ("Cache-Control", CACHE_CONTROL),
        ("Vary", "Accept"),
    ]
    unchanged = [("ETag", etag), ("Cache-Control", CACHE_CONTROL), ("Vary", "Accept")]
    return _Known(
        _REASONS[status],
        etag,
        built(redirect, False),
        built(redirect, True),
        built(unchanged, False),
        built(unchanged, True),
    )
