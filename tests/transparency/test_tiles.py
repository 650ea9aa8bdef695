"""C2SP tlog-tiles paths and entry bundles."""

import pytest

from registry.logcore.merkle import Tree, leaf_hash
from registry.logcore.tiles import (
    TileRef,
    bundle_bytes,
    bundle_entries,
    index_path,
    parse_tile_path,
    tile_bytes,
    tiles_for,
)


@pytest.mark.parametrize(
    ("index", "path"), [(0, "000"), (5, "005"), (999, "999"), (1000, "x001/000"), (1234067, "x001/x234/067")]
)
def test_tiles_index_paths_follow_the_spec(index, path):
    assert index_path(index) == path
    assert parse_tile_path(f"tile/0/{path}") == TileRef(0, index, 256)


def test_tiles_partial_and_entry_paths_parse():
    assert parse_tile_path("tile/entries/001.p/7") == TileRef(None, 1, 7)
    assert parse_tile_path("tile/63/000.p/255") == TileRef(63, 0, 255)
    assert TileRef(None, 1, 7).path() == "tile/entries/001.p/7"
    assert TileRef(1, 0, 256).path() == "tile/1/000"


@pytest.mark.parametrize(
    "path",
    [
        "tile/0/1",
        "tile/0/000.p/256",
        "tile/0/000.p/0",
        "tile/0/000.p/07",
        "tile/0/x000/001",
        "tile/x/000",
        "tile/0/000/",
        "tile/00/000.p/1",
        "tile/01/000",
        "tile/64/000",
        "tile/\u0660/000",
        "tile/0/\u0660\u0660\u0661",
        "tile/entries/000.p/\u0663",
        "tile/0/x\u0660\u0660\u0661/000",
    ],
)
def test_tiles_other_paths_are_not_tiles(path):
    assert parse_tile_path(path) is None


def test_tiles_cover_the_tree_and_hold_its_hashes():
    tree = Tree([leaf_hash(i.to_bytes(2, "big")) for i in range(600)])
    assert tiles_for(600, 0) == [TileRef(0, 0, 256), TileRef(0, 1, 256), TileRef(0, 2, 88)]
    assert tiles_for(600, 1) == [TileRef(1, 0, 2)]
    assert tiles_for(600, None)[-1] == TileRef(None, 2, 88)
    assert tile_bytes(tree, TileRef(0, 1, 256))[:32] == tree.levels[0][256]
    assert tile_bytes(tree, TileRef(1, 0, 2)) == tree.subtree(0, 256) + tree.subtree(256, 512)
    with pytest.raises(ValueError):
        tile_bytes(tree, TileRef(1, 0, 3))


def test_tiles_bundles_round_trip_and_refuse_what_does_not_fit():
    leaves = [b"", b"a", b"x" * 300]
    assert bundle_entries(bundle_bytes(leaves)) == leaves
    with pytest.raises(ValueError, match="does not fit"):
        bundle_bytes([b"x" * 70_000])
    with pytest.raises(ValueError, match="middle of an entry"):
        bundle_entries(b"\x00\x05abc")
