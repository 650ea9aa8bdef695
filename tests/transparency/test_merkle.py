"""The RFC 6962/9162 tree: known answers, and every proof of small trees verified (and tampered ones refused)."""

import hashlib

import pytest

from registry.logcore.merkle import EMPTY_ROOT, Tree, leaf_hash, node_hash, verify_consistency, verify_inclusion

# The RFC 6962 test vectors (certificate-transparency's merkle_tree_test): leaves and the roots of their prefixes.
RFC6962_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    b"\x50\x51\x52\x53\x54\x55\x56\x57",
    bytes(range(0x60, 0x70)),
]
RFC6962_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def test_merkle_empty_tree_is_the_hash_of_nothing():
    assert (
        Tree().root() == EMPTY_ROOT == bytes.fromhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    )


def test_merkle_domain_separation_of_leaves_and_nodes():
    assert leaf_hash(b"x") == hashlib.sha256(b"\x00x").digest()
    assert node_hash(b"a", b"b") == hashlib.sha256(b"\x01ab").digest()


def test_merkle_roots_match_rfc6962_known_answers():
    tree = Tree()
    for leaf, expected in zip(RFC6962_LEAVES, RFC6962_ROOTS, strict=True):
        tree.append(leaf_hash(leaf))
        assert tree.root().hex() == expected
        assert Tree([leaf_hash(x) for x in RFC6962_LEAVES[: tree.size]]).root().hex() == expected


def test_merkle_roots_of_prefixes_match_a_tree_of_that_size():
    tree = Tree([leaf_hash(bytes([i])) for i in range(70)])
    for size in range(71):
        assert tree.root(size) == Tree([leaf_hash(bytes([i])) for i in range(size)]).root()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 8, 9, 16, 17, 33])
def test_merkle_every_inclusion_proof_verifies_and_a_changed_one_does_not(size):
    tree = Tree([leaf_hash(bytes([i])) for i in range(size)])
    for index in range(size):
        for at in range(index + 1, size + 1):
            proof = tree.inclusion_proof(index, at)
            assert verify_inclusion(index, at, tree.levels[0][index], proof, tree.root(at))
            assert not verify_inclusion(index, at, leaf_hash(b"other"), proof, tree.root(at))
            if proof:
                assert not verify_inclusion(index, at, tree.levels[0][index], proof[:-1], tree.root(at))
                bent = [bytes(32)] + proof[1:]
                assert not verify_inclusion(index, at, tree.levels[0][index], bent, tree.root(at))
            if at > index + 1:
                assert not verify_inclusion(index + 1, at, tree.levels[0][index], proof, tree.root(at))


@pytest.mark.parametrize("size", [1, 2, 3, 4, 6, 7, 8, 12, 17, 31])
def test_merkle_every_consistency_proof_verifies_and_a_changed_one_does_not(size):
    tree = Tree([leaf_hash(bytes([i])) for i in range(size)])
    for first in range(size + 1):
        for second in range(first, size + 1):
            proof = tree.consistency_proof(first, second)
            assert verify_consistency(first, second, tree.root(first), tree.root(second), proof)
            if 0 < first < second:
                assert proof
                assert not verify_consistency(first, second, tree.root(first), leaf_hash(b"forged"), proof)
                assert not verify_consistency(first, second, leaf_hash(b"forged"), tree.root(second), proof)
                assert not verify_consistency(first, second, tree.root(first), tree.root(second), proof[1:] or [])


def test_merkle_a_rewritten_history_is_not_consistent():
    honest = Tree([leaf_hash(bytes([i])) for i in range(10)])
    forked = Tree(
        [leaf_hash(bytes([i])) for i in range(5)]
        + [leaf_hash(b"rewritten")]
        + [leaf_hash(bytes([i])) for i in range(6, 12)]
    )
    proof = forked.consistency_proof(8, 12)
    assert not verify_consistency(8, 12, honest.root(8), forked.root(12), proof)


def test_merkle_proofs_refuse_impossible_sizes():
    tree = Tree([leaf_hash(b"a")])
    with pytest.raises(ValueError, match="no entry 1"):
        tree.inclusion_proof(1, 1)
    with pytest.raises(ValueError, match="from size 1 to size 2"):
        tree.consistency_proof(1, 2)
    assert not verify_inclusion(1, 1, leaf_hash(b"a"), [], tree.root())
