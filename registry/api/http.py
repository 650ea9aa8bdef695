"""Conditional GET for the read-only API: ETag from the registry stamp, Cache-Control."""

from __future__ import annotations

import zlib

from django.http import HttpResponse, HttpResponseNotModified

from ..lookup import registry_index

CACHE_CONTROL = "public, max-age=60"


def etag_for(request) -> str:
    """Changes whenever the registry changes (the lookup index's stamp) or the request does."""
    index = registry_index()
    path = request.get_full_path().encode("utf-8", "surrogatepass")
    return f'"{index.etag_prefix}-{zlib.crc32(path):08x}-{len(path):x}"'


def not_modified(request, etag: str) -> HttpResponse | None:
    wanted = request.META.get("HTTP_IF_NONE_MATCH", "")  # not request.headers: it copies every header
    if wanted and (wanted.strip() == "*" or etag in [t.strip() for t in wanted.split(",")]):
        return cacheable(HttpResponseNotModified(), etag)
    return None


def cacheable(response, etag: str):
    response["ETag"] = etag
    response["Cache-Control"] = CACHE_CONTROL
    return response
