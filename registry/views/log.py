"""The log on the web: its page, the signed checkpoint, tiles and entry bundles, and JSON proofs.

Everything here only reads (a GET never changes anything). Tiles and bundles follow
C2SP tlog-tiles so any tlog client, mirror or CDN can use them: a full tile never
changes and is cacheable for a year, a partial one for a minute.
"""

from __future__ import annotations

import base64
import gzip
import re

import orjson
from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control, patch_vary_headers

from ..logcore.kinds import KINDS
from ..logcore.merkle import leaf_hash, verify_inclusion
from ..logcore.tiles import HEIGHT, WIDTH, bundle_bytes, parse_tile_path, tile_bytes
from ..transparency.entries import entries_page, repeats_count
from ..transparency.log import (
    LogError,
    inclusion_of,
    log_checkpoint,
    log_damage,
    log_leaves,
    log_published,
    log_signed_size,
    log_tree,
    log_verifier,
    version_entry,
)
from ..transparency.models import LogEntry

IMMUTABLE = {"public": True, "max_age": 31_536_000, "immutable": True}
PARTIAL = {"public": True, "max_age": 60}


def _text(body: str, status: int = 200) -> HttpResponse:
    return HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")


def _json(data, status: int = 200) -> HttpResponse:
    return HttpResponse(orjson.dumps(data), status=status, content_type="application/json")


def _unavailable(exc: LogError):
    return _text(f"The transparency log is unavailable: {exc}\n", 503)


def log_page(request):
    """What the log is, its verifier key, the current checkpoint and how to check it."""
    try:
        verifier = str(log_verifier())
        published = log_published()
    except LogError as exc:
        return _unavailable(exc)
    checkpoint = published.checkpoint if published else None
    number = request.GET.get("page", "")
    context = {
        "checkpoint": checkpoint,
        "note": published.note if published else "",
        "verifier_key": verifier,
        "damage": log_damage(),
        "kinds": sorted(KINDS.values(), key=lambda k: k.name),
        "entries": entries_page(int(number) if re.fullmatch(r"[0-9]{1,9}", number) else 1),
        "repeats": repeats_count(),
        "site_url": settings.SITE_URL,  # the command a reader copies names the site, not the request's host
        "root_b64": base64.b64encode(checkpoint.root).decode() if checkpoint else "",
    }
    response = render(request, "registry/log.html", context)
    patch_cache_control(response, no_cache=True)
    return response


def checkpoint(request):
    try:
        _, note = log_checkpoint()
    except LogError as exc:
        return _unavailable(exc)
    response = _text(note)
    patch_cache_control(response, no_cache=True)
    return response


def verifier_key(request):
    try:
        key = str(log_verifier())
    except LogError as exc:
        return _unavailable(exc)
    return _text(key + "\n")


def tile(request, path):
    """A hash tile or entry bundle (C2SP tlog-tiles): 404 for one the log does not have yet, 410 for one the
    signed checkpoint covers but the log table can no longer give (docs/transparency.md, 'When the log is
    damaged'): the site does not have what it signed, which a reader must take as a difference, not a fault."""
    ref = parse_tile_path(f"tile/{path}")
    if ref is None:
        return _text(
            f"{request.path} is not a tile: tile/<level>/<index>[.p/<width>] or "
            "tile/entries/<index>[.p/<width>] (C2SP tlog-tiles).\n",
            404,
        )
    if ref.level is not None and ref.level > 7:
        return _text(f"The log has no {ref.path()}.\n", 404)
    tree, size = log_tree()
    shift = 0 if ref.level is None else HEIGHT * ref.level
    end = ref.index * WIDTH + ref.width  # in units of that level
    if end > size >> shift:
        if end <= (log_signed_size() or 0) >> shift:
            return _gone(ref, size)
        return _text(f"The log (size {size}) has no {ref.path()} yet.\n", 404)
    if ref.level is None:
        start = ref.index * WIDTH
        try:
            body = bundle_bytes(log_leaves(start, start + ref.width))
        except LogError:  # entries gone from the table behind this process's cached tree
            return _gone(ref, _first_missing(start, start + ref.width))
    else:
        body = tile_bytes(tree, ref)
    response = HttpResponse(body, content_type="application/octet-stream")
    if ref.level is None:
        _compressed(request, response)
    patch_cache_control(response, **(IMMUTABLE if ref.full else PARTIAL))
    return response


def _first_missing(start: int, stop: int) -> int:
    present = set(LogEntry.objects.filter(index__gte=start, index__lt=stop).values_list("index", flat=True))
    return next((index for index in range(start, stop) if index not in present), start)


def _gone(ref, missing: int) -> HttpResponse:
    """410: the tile's entries are signed, but entry ``missing`` is no longer in the log table. Never cached
    (``no-store``), so a repaired log is served again at once."""
    signed = log_signed_size() or 0
    within = "not signed yet" if missing >= signed else f"covered by the signed checkpoint of {signed} entries"
    response = _text(
        f"The transparency log is damaged: entry {missing}, {within}, is missing from the log table, "
        f"so {ref.path()} cannot be served (/log/ says what is wrong).\n",
        410 if missing < signed else 404,
    )
    patch_cache_control(response, no_store=True)
    return response


def _accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header allows gzip (RFC 9110 §12.5.3: ``gzip;q=0`` refuses it, ``*`` allows it)."""
    weights = {}
    for item in header.split(","):
        coding, _, params = item.strip().partition(";")
        match = re.search(r"(?i)\bq\s*=\s*([01](?:\.[0-9]{0,3})?)", params)
        weights[coding.strip().lower()] = float(match.group(1)) if match else 1.0
    weight = weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0)))
    return weight > 0


def _compressed(request, response) -> None:
    """Entry bundles are JSON text, a fifth of their size gzipped (C2SP tlog-tiles: they SHOULD be compressed)."""
    patch_vary_headers(response, ["Accept-Encoding"])
    if _accepts_gzip(request.META.get("HTTP_ACCEPT_ENCODING", "")):
        response.content = gzip.compress(response.content, compresslevel=6, mtime=0)
        response["Content-Encoding"] = "gzip"


def _size_param(request, name: str, default: int | None) -> int | None:
    value = request.GET.get(name)
    if value is None or value == "":
        return default
    if not re.fullmatch(r"[0-9]{1,15}", value):  # ASCII digits: isdigit() and int() read "٤١٥" as 415
        raise ValueError(f"{name} must be a tree size (a whole number), not {value[:20]!r}.")
    return int(value)


def inclusion_answer(snid: str, version: int, size: int | None = None) -> dict | None:
    """The version's log entry with its inclusion proof, or None if the version is not in the log."""
    entry = version_entry(snid, version)
    if entry is None:
        return None
    return {"snid": entry.snid, "version": entry.version, "leaf": entry.leaf, **inclusion_of(entry.index, size)}


def version_proof(request, snid: str, version: int):
    """``GET /api/snids/<snid>/versions/<n>/proof[?size=M]``."""
    try:
        size = _size_param(request, "size", None)
        answer = inclusion_answer(snid, version, size)
    except ValueError as exc:
        return _json({"detail": str(exc)}, 400)
    except LogError as exc:
        return _json({"detail": str(exc)}, 400 if size is not None else 503)
    if answer is None:
        return _json({"detail": f"urn:ogf:{snid}: version {version} is not in the transparency log."}, 404)
    response = _json(answer)
    patch_cache_control(response, no_cache=True)
    return response


def consistency(request):
    """``GET /api/log/consistency/?first=M[&second=N]``: the proof that the tree of size N extends size M."""
    try:
        tree, current = log_tree()
        published = log_published()
        signed = published.checkpoint.size if published and published.checkpoint.size <= current else None
        first = _size_param(request, "first", None)
        second = _size_param(request, "second", current if signed is None else signed)
        if first is None:
            raise ValueError("Give first=<size> (the tree size you checked before).")
        if not first <= second <= current:
            raise ValueError(f"Sizes must satisfy first <= second <= {current} (the log's size).")
        note = published.note if second == signed else None
    except ValueError as exc:
        return _json({"detail": str(exc)}, 400)
    except LogError as exc:
        return _json({"detail": str(exc)}, 503)
    b64 = lambda raw: base64.b64encode(raw).decode()  # noqa: E731
    answer = {
        "first": first,
        "second": second,
        "first_root": b64(tree.root(first)),
        "second_root": b64(tree.root(second)),
        "proof": [b64(h) for h in tree.consistency_proof(first, second)],
        "checkpoint": note,
    }
    response = _json(answer)
    patch_cache_control(response, no_cache=True)
    return response


def entry_proof(request, index: int):
    """``GET /api/log/entries/<index>/proof``: any entry (the leaf as stored) with its inclusion proof."""
    try:
        leaves = log_leaves(index, index + 1) if index < log_tree()[1] else None
        answer = {"leaf": leaves[0].decode("utf-8"), **inclusion_of(index)} if leaves else None
    except LogError as exc:
        return _json({"detail": str(exc)}, 503)
    if answer is None:
        return _json({"detail": f"The log has no entry {index} (it has {log_tree()[1]} entries)."}, 404)
    response = _json(answer)
    patch_cache_control(response, no_cache=True)
    return response


def version_log_status(snid: str, version: int) -> dict | None:
    """For the SNID page: the entry, the checkpoint size it was checked against and whether it verified."""
    try:
        entry = version_entry(snid, version)
        if entry is None:
            return {"logged": False}
        tree, current = log_tree()
        published = log_published()
        if published is None or entry.index >= published.checkpoint.size:  # not in a signed checkpoint yet
            return {
                "logged": True,
                "index": entry.index,
                "size": published.checkpoint.size if published else 0,
                "verified": False,
                "pending": True,
            }
        signed = published.checkpoint
        proof = tree.inclusion_proof(entry.index, signed.size) if signed.size <= current else []
        ok = verify_inclusion(entry.index, signed.size, leaf_hash(entry.leaf.encode("utf-8")), proof, signed.root)
        return {"logged": True, "index": entry.index, "size": signed.size, "verified": ok}
    except LogError:
        return None


def lookup_with_proof(body: bytes) -> bytes:
    """A lookup answer with the log entry and inclusion proof of the version it was checked against."""
    answer = orjson.loads(body)
    registration = answer.get("registration") or {}
    try:
        log = inclusion_answer(registration["snid"], registration["version"]) if registration.get("snid") else None
    except LogError:
        log = None  # the lookup itself still answers; /log/checkpoint says what is wrong
    answer["log"] = log
    return orjson.dumps(answer)
