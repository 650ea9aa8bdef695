"""Simultaneous approvals on PostgreSQL: one gap-free log, numbered in commit order, every entry provable."""

import threading

import pytest
from django.db import connection

from registry import services
from registry.logcore.kinds import leaf_decode
from registry.logcore.merkle import leaf_hash, verify_inclusion
from registry.models import Proposal
from registry.transparency.log import log_cache_clear, log_tree
from registry.transparency.models import LogEntry, LogHead

from ..factories import proposal_factory, user_factory
from ..test_services import _race


@pytest.mark.django_db(transaction=True)
def test_log_twenty_simultaneous_approvals_make_a_gap_free_log(postgres):
    editor = user_factory(editor=True)
    proposals = [proposal_factory(state="submitted", snid=f"race{i}") for i in range(20)]
    seen_gaps, stop = [], threading.Event()

    def watch():
        """A reader during the race: whatever size the head says, exactly that many entries are there."""
        try:
            while not stop.is_set():
                size = LogHead.objects.values_list("size", flat=True).first() or 0
                present = LogEntry.objects.filter(index__lt=size).count()
                if present != size:
                    seen_gaps.append((size, present))
        finally:
            connection.close()

    reader = threading.Thread(target=watch)
    reader.start()
    try:
        results = _race(
            20, lambda i: services.proposal_transition(proposals[i], "approve", editor, override_reason="race")
        )
    finally:
        stop.set()
        reader.join()
    assert all(isinstance(r, Proposal) for r in results), results
    assert not seen_gaps
    entries = list(LogEntry.objects.order_by("index"))
    assert [e.index for e in entries] == list(range(40)) and LogHead.objects.get().size == 40
    leaves = [leaf_decode(e.leaf.encode()) for e in entries]
    # Each approval's two entries (the version, then its registrant's stewardship) are adjacent: one
    # transaction holds the head's lock for both.
    assert [leaf["kind"] for leaf in leaves] == ["snid-version", "steward-changed"] * 20
    assert all(leaves[i]["snid"] == leaves[i + 1]["snid"] for i in range(0, 40, 2))
    assert sorted(leaf["snid"] for leaf in leaves[::2]) == sorted(f"race{i}" for i in range(20))
    # Numbered under the head's lock, in the order the transactions got it and committed.
    stamps = [leaf["at"] for leaf in leaves]
    assert stamps == sorted(stamps)
    log_cache_clear()
    tree, size = log_tree()
    for entry in entries:
        proof = tree.inclusion_proof(entry.index, size)
        assert verify_inclusion(entry.index, size, leaf_hash(entry.leaf.encode()), proof, tree.root())
