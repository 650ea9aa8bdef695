"""C2SP tlog-tiles: the tree as static files a mirror or a CDN can serve.

Pure Python, no Django. Tiles have height 8: the tile at level L, index N holds the
hashes of up to 256 consecutive complete subtrees of 2^(8L) leaves, i.e. the hashes at
tree level 8L with indices 256·N ... 256·N+W-1. A full tile (W = 256) never changes; a
partial one (``.p/W``) is replaced by wider ones as the log grows. Entry bundles hold
the leaves themselves, 256 to a bundle, each prefixed by its length (two bytes, big
endian). Paths: ``tile/<L>/<N>[.p/<W>]`` and ``tile/entries/<N>[.p/<W>]`` where N is
written in groups of three digits, all but the last prefixed by "x" (1234067 →
``x001/x234/067``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .merkle import Tree

HEIGHT = 8
WIDTH = 1 << HEIGHT
MAX_ENTRY = 0xFFFF
#: Levels a tile path may name (tlog-tiles: 0 to 63).
MAX_LEVEL = 63

#: One spelling per tile (tlog-tiles): the level and the width in ASCII decimal without leading
#: zeroes, the index in three-digit groups whose first is not "x000". ``[0-9]``, never ``\d``, which
#: in Python also matches other scripts' digits ("٤١٥").
_TILE_PATH = re.compile(r"tile/(entries|0|[1-9][0-9]?)/((?:x[0-9]{3}/)*[0-9]{3})(?:\.p/([1-9][0-9]{0,2}))?")


@dataclass(frozen=True)
class TileRef:
    level: int | None  # None: an entry bundle
    index: int
    width: int  # 1..256; 256 is a full tile

    @property
    def full(self) -> bool:
        return self.width == WIDTH

    def path(self) -> str:
        head = "entries" if self.level is None else str(self.level)
        tail = "" if self.full else f".p/{self.width}"
        return f"tile/{head}/{index_path(self.index)}{tail}"


def index_path(index: int) -> str:
    digits = f"{index:03d}"
    digits = "0" * (-len(digits) % 3) + digits
    groups = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    return "/".join([f"x{g}" for g in groups[:-1]] + [groups[-1]])


def parse_tile_path(path: str) -> TileRef | None:
    """``tile/...`` (without the log's prefix) as a TileRef, or None if it is not a tile path."""
    match = _TILE_PATH.fullmatch(path)
    if match is None:
        return None
    head, index, width = match.groups()
    groups = index.replace("x", "").split("/")
    if len(groups) > 1 and groups[0] == "000":
        return None  # one spelling per index
    level = None if head == "entries" else int(head)
    width_value = WIDTH if width is None else int(width)
    if width is not None and width_value >= WIDTH or level is not None and level > MAX_LEVEL:
        return None
    return TileRef(level, int("".join(groups)), width_value)


def tiles_for(size: int, level: int | None = 0) -> list[TileRef]:
    """The tiles (or bundles, level None) that cover a tree of ``size`` leaves at ``level``."""
    count = size if level is None else size >> (HEIGHT * level)
    refs = [TileRef(level, n, WIDTH) for n in range(count // WIDTH)]
    if count % WIDTH:
        refs.append(TileRef(level, count // WIDTH, count % WIDTH))
    return refs


def tile_bytes(tree: Tree, ref: TileRef) -> bytes:
    """The tile's hashes concatenated (ValueError if the tree does not have them yet)."""
    start = ref.index * WIDTH
    return b"".join(tree.level_hashes(HEIGHT * ref.level, start, start + ref.width))


def bundle_bytes(leaves: list[bytes]) -> bytes:
    out = bytearray()
    for leaf in leaves:
        if len(leaf) > MAX_ENTRY:
            raise ValueError(f"an entry of {len(leaf):,} bytes does not fit a bundle (at most {MAX_ENTRY:,})")
        out += len(leaf).to_bytes(2, "big") + leaf
    return bytes(out)


def bundle_entries(data: bytes) -> list[bytes]:
    entries, at = [], 0
    while at < len(data):
        if at + 2 > len(data):
            raise ValueError("an entry bundle ends in the middle of a length")
        length = int.from_bytes(data[at : at + 2], "big")
        if at + 2 + length > len(data):
            raise ValueError("an entry bundle ends in the middle of an entry")
        entries.append(data[at + 2 : at + 2 + length])
        at += 2 + length
    return entries
