"""Conditional GET for the read-only API: ETag from the registry stamp, Cache-Control."""

from __future__ import annotations

import hashlib

from django.http import HttpResponse, HttpResponseNotModified

from ..lookup import registry_index

CACHE_CONTROL = "public, max-age=60"


def etag_for(request, *extra) -> str:
    """Changes whenever the registry changes (the lookup index's stamp) or the request does."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(repr(registry_index().stamp).encode())
    digest.update(request.get_full_path().encode("utf-8", "surrogatepass"))
    for part in extra:
        digest.update(repr(part).encode("utf-8", "surrogatepass"))
    return f'"{digest.hexdigest()}"'


def not_modified(request, etag: str) -> HttpResponse | None:
    wanted = request.headers.get("If-None-Match", "")
    if wanted and (wanted.strip() == "*" or etag in [t.strip() for t in wanted.split(",")]):
        return cacheable(HttpResponseNotModified(), etag)
    return None


def cacheable(response, etag: str):
    response["ETag"] = etag
    response["Cache-Control"] = CACHE_CONTROL
    return response
