"""The RFC 6962 / RFC 9162 Merkle tree: hashes, inclusion and consistency proofs.

Pure Python, no Django: the verifier (``python -m registry.verify``) uses it as is.

Leaves are hashed as SHA-256(0x00 || leaf) and interior nodes as SHA-256(0x01 ||
left || right), so a leaf can never pass for a node. A tree of n leaves splits
at k, the largest power of two below n (RFC 9162 §2.1.1); proofs follow the RFC's
PATH and PROOF definitions and are checked by its verification algorithms
(§2.1.3.2, §2.1.4.2), which Go's ``golang.org/x/mod/sumdb/tlog`` also implements
(tests/transparency/test_go_interop.py checks the two agree).

``Tree`` keeps every complete subtree's hash level by level (what C2SP tlog-tiles
serves), so a root or a proof costs O(log² n) lookups, never a pass over the leaves.
"""

from __future__ import annotations

import hashlib

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


class Tree:
    """A growing tree: ``levels[k][i]`` is the hash of leaves [i·2^k, (i+1)·2^k)."""

    def __init__(self, leaf_hashes=()):
        self.levels: list[list[bytes]] = [[]]
        for hashed in leaf_hashes:
            self.append(hashed)

    @property
    def size(self) -> int:
        return len(self.levels[0])

    def copy(self) -> Tree:
        """Another tree with the same leaves, to extend without changing this one."""
        other = Tree()
        other.levels = [list(level) for level in self.levels]
        return other

    def append(self, hashed: bytes) -> None:
        """Add a leaf by its leaf hash, completing the subtrees it closes."""
        self.levels[0].append(hashed)
        level = 0
        while len(self.levels[level]) % 2 == 0:
            if len(self.levels) == level + 1:
                self.levels.append([])
            below = self.levels[level]
            self.levels[level + 1].append(node_hash(below[-2], below[-1]))
            level += 1

    def subtree(self, lo: int, hi: int) -> bytes:
        """MTH(D[lo:hi]) for ``lo`` aligned as the RFC's recursion aligns it."""
        n = hi - lo
        if n <= 0:
            if lo == hi == 0:
                return EMPTY_ROOT
            raise ValueError(f"empty range [{lo}, {hi})")
        if hi > self.size:
            raise ValueError(f"the tree has {self.size} leaves, not {hi}")
        if n & (n - 1) == 0 and lo % n == 0:
            return self.levels[n.bit_length() - 1][lo // n]
        k = _split(n)
        return node_hash(self.subtree(lo, lo + k), self.subtree(lo + k, hi))

    def root(self, size: int | None = None) -> bytes:
        return self.subtree(0, self.size if size is None else size)

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        """PATH(index, D[0:size]) (RFC 9162 §2.1.3.1)."""
        if not 0 <= index < size <= self.size:
            raise ValueError(f"no entry {index} in a tree of size {size}")

        def path(m: int, lo: int, hi: int) -> list[bytes]:
            n = hi - lo
            if n == 1:
                return []
            k = _split(n)
            if m < k:
                return path(m, lo, lo + k) + [self.subtree(lo + k, hi)]
            return path(m - k, lo + k, hi) + [self.subtree(lo, lo + k)]

        return path(index, 0, size)

    def consistency_proof(self, first: int, second: int) -> list[bytes]:
        """PROOF(first, D[0:second]) (RFC 9162 §2.1.4.1); empty for first 0 or first == second."""
        if not 0 <= first <= second <= self.size:
            raise ValueError(
                f"no consistency proof from size {first} to size {second} (the tree has {self.size} leaves)"
            )
        if first in (0, second):
            return []

        def subproof(m: int, lo: int, hi: int, complete: bool) -> list[bytes]:
            n = hi - lo
            if m == n:
                return [] if complete else [self.subtree(lo, hi)]
            k = _split(n)
            if m <= k:
                return subproof(m, lo, lo + k, complete) + [self.subtree(lo + k, hi)]
            return subproof(m - k, lo + k, hi, False) + [self.subtree(lo, lo + k)]

        return subproof(first, 0, second, True)

    def level_hashes(self, level: int, start: int, stop: int) -> list[bytes]:
        """Complete subtree hashes ``start..stop-1`` at ``level`` (what a tile holds)."""
        row = self.levels[level] if level < len(self.levels) else []
        if stop > len(row):
            raise ValueError(f"level {level} has {len(row)} complete subtrees, not {stop}")
        return row[start:stop]


def root_of(leaf_hashes: list[bytes]) -> bytes:
    return Tree(leaf_hashes).root()


def verify_inclusion(index: int, size: int, hashed: bytes, proof: list[bytes], root: bytes) -> bool:
    """RFC 9162 §2.1.3.2: does ``proof`` take leaf hash ``hashed`` at ``index`` to ``root``?"""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, hashed
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(first: int, second: int, first_root: bytes, second_root: bytes, proof: list[bytes]) -> bool:
    """RFC 9162 §2.1.4.2: is the tree of size ``second`` an extension of the one of size ``first``?"""
    if not 0 <= first <= second:
        return False
    if first == second:
        return not proof and first_root == second_root
    if first == 0:
        return not proof
    if not proof:
        return False
    path = list(proof)
    if first & (first - 1) == 0:
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == first_root and sr == second_root and sn == 0
