"""``verify --mirror DIR``: a complete static C2SP tlog-tiles copy of the verified log.

Written only after a clean run, so a mirror never spreads a log that did not verify:
``log/checkpoint`` (as served, cosignatures included), ``log/key`` (the verifier key the
run checked it with), every hash tile the checkpoint needs at every level (computed from
the verified leaves: the same bytes the site serves, authenticated by the signed root),
every entry bundle, and the exports the run compared (``urn/registry.json``,
``urn/registry-full.json``). Any static web server serving DIR is then a tlog-tiles log
that a client such as Go's ``sumdb/tlog`` follows, and ``python -m registry.verify DIR``
verifies it. Files are replaced atomically (a reader never sees half a tile); partial
tiles of an earlier, smaller copy are left, as tlog-tiles allows.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..logcore.merkle import Tree
from ..logcore.tiles import HEIGHT, TileRef, tile_bytes, tiles_for


def hash_tiles(tree: Tree, size: int) -> list[TileRef]:
    """Every hash tile (all levels) a tree of ``size`` leaves has."""
    refs, level = [], 0
    while size >> (HEIGHT * level):
        refs += tiles_for(size, level)
        level += 1
    return refs


def _write(root: Path, path: str, data: bytes) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def mirror_write(
    root: Path,
    *,
    note: str,
    verifier_key: str,
    tree: Tree,
    size: int,
    bundles: dict[str, bytes],
    documents: dict[str, bytes],
) -> int:
    """Write the copy; ``bundles`` maps each bundle's ``tile/entries/...`` path to its bytes, ``documents``
    site paths (``urn/registry.json``) to theirs. Returns the number of files written."""
    written = 0
    for ref in hash_tiles(tree, size):
        _write(root, "log/" + ref.path(), tile_bytes(tree, ref))
        written += 1
    for path, data in bundles.items():
        _write(root, "log/" + path, data)
        written += 1
    for path, data in documents.items():
        _write(root, path, data)
        written += 1
    _write(root, "log/key", (verifier_key + "\n").encode())
    _write(root, "log/checkpoint", note.encode())  # last: a reader finds every tile it names
    return written + 2
