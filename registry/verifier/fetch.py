"""What the site (or a mirror directory) serves: fetching, bounded, and every leaf of a checkpoint.

A site that says it does not have something (404, 410, no such file) is ``NotServed``, a difference the
verifier reports; anything else that keeps an answer from being read is ``CannotCheck``, a fault.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..logcore.tiles import WIDTH, TileRef, bundle_entries, tiles_for

USER_AGENT = "urn-ogf-registry-verify/2"
MAX_DOWNLOAD = 64 * 1024 * 1024


class CannotCheck(Exception):
    """The source could not be read; nothing about the log is concluded from it."""


class NotServed(CannotCheck):
    """The source answered that it does not have something (HTTP 404 or 410, or no such file)."""


class Source:
    """A site (http[s]://...) or a mirror directory with the same layout."""

    def __init__(self, base: str):
        self.remote = bool(re.match(r"(?i)https?://", base))
        self.base = base if self.remote else str(Path(base))

    def get(self, path: str) -> bytes:
        if self.remote:
            url = self.base.rstrip("/") + "/" + path
            request = urllib.request.Request(
                url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, identity"}
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    data = response.read(MAX_DOWNLOAD + 1)
                    encoding = (response.headers.get("Content-Encoding") or "identity").strip().lower()
            except urllib.error.HTTPError as exc:
                detail = exc.read(2000).decode("utf-8", "replace").strip()
                raise (NotServed if exc.code in (404, 410) else CannotCheck)(
                    f"{url}: HTTP {exc.code} {detail}"
                ) from None
            except (urllib.error.URLError, OSError) as exc:
                raise CannotCheck(f"{url}: {getattr(exc, 'reason', exc)}") from None
            if encoding == "gzip":
                data = _gunzip(data, url)
            elif encoding != "identity":
                raise CannotCheck(f"{url}: answered in {encoding!r}, which was not asked for")
        else:
            try:
                data = (Path(self.base) / path).read_bytes()
            except FileNotFoundError:
                raise NotServed(f"{Path(self.base) / path}: no such file") from None
            except OSError as exc:
                raise CannotCheck(f"{Path(self.base) / path}: {exc.strerror or exc}") from None
        if len(data) > MAX_DOWNLOAD:
            raise CannotCheck(f"{path} is larger than {MAX_DOWNLOAD:,} bytes")
        return data


def _gunzip(data: bytes, where: str) -> bytes:
    """Decompressed, at most MAX_DOWNLOAD + 1 bytes of it (a small answer may inflate to gigabytes)."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, MAX_DOWNLOAD + 1)
    except zlib.error as exc:
        raise CannotCheck(f"{where}: not valid gzip ({exc})") from None
    return out


@dataclass
class Unserved:
    """Entries ``start..stop-1``, which the signed checkpoint covers, that the site does not serve."""

    start: int
    stop: int
    why: str


def gather(site: Source, size: int) -> tuple[list[bytes], dict[str, bytes], list[Unserved]]:
    """Every leaf the site serves for its checkpoint of ``size`` entries, the bundles as served (by path), and
    the entries it does not serve although the checkpoint covers them.

    A site that answers that it does not have a bundle (404, 410: it says so itself, unlike a fault, which
    raises CannotCheck) is asked for narrower copies of it, to name the first entry it cannot serve."""
    leaves: list[bytes] = []
    bundles: dict[str, bytes] = {}
    unserved: list[Unserved] = []
    for ref in tiles_for(size, None):
        start = ref.index * WIDTH
        try:
            entries, data = _bundle(site, ref)
        except NotServed as exc:
            served = _served_part(site, ref)
            leaves += served
            unserved.append(Unserved(start + len(served), start + ref.width, str(exc)))
            continue
        bundles[ref.path()] = data
        leaves += entries
    return leaves, bundles, unserved


def _bundle(site: Source, ref: TileRef) -> tuple[list[bytes], bytes]:
    """The entries of the bundle ``ref`` and its bytes as served (NotServed for a bundle holding another
    number of entries than its name says)."""
    data = site.get("log/" + ref.path())
    try:
        entries = bundle_entries(data)
    except ValueError as exc:
        raise CannotCheck(f"{ref.path()}: {exc}") from None
    if len(entries) != ref.width:
        raise NotServed(f"{ref.path()} holds {len(entries)} entries, not {ref.width}")
    return entries, data


def _served_part(site: Source, ref: TileRef) -> list[bytes]:
    """The leaves of the widest narrower copy of bundle ``ref`` the site serves (tlog-tiles lets a log serve
    partial bundles of any width; ours does): at most eight requests, by halving."""
    low, high, best = 1, ref.width - 1, []
    while low <= high:
        width = (low + high) // 2
        try:
            best = _bundle(site, TileRef(None, ref.index, width))[0]
        except NotServed:
            high = width - 1
            continue
        low = width + 1
    return best


def unserved_said(gap: Unserved, size: int, seen: list) -> str:
    """One sentence for entries the signed checkpoint covers and the site does not serve."""

    def what(index: int) -> str:
        return f"{seen[index][1]}" if index < len(seen) else "?"

    if gap.stop - gap.start == 1:
        entries = f"entry {gap.start}" + (f" ({what(gap.start)} when last verified)" if gap.start < len(seen) else "")
    else:
        entries = f"entries {gap.start} to {gap.stop - 1}"
        if gap.start < len(seen):
            shown = "; ".join(f"{i}: {what(i)}" for i in range(gap.start, min(gap.stop, gap.start + 10)))
            entries += f" (when last verified {shown}{'; …' if gap.stop - gap.start > 10 else ''})"
    return (
        f"the site does not serve {entries}, which its signed checkpoint of {size} entries covers "
        f"({gap.why}): the log no longer holds what was signed"
    )
