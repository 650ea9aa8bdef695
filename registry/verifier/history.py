"""What this run sees against what the last one saw: the leaves against the signed root, a log that
shrank or forked, and each entry seen before that is gone, moved or changed."""

from __future__ import annotations

import base64
from collections import defaultdict, deque

from ..logcore.kinds import LeafError, describe, leaf_decode
from ..logcore.merkle import Tree, leaf_hash
from ..logcore.tiles import WIDTH, tile_bytes, tiles_for
from .compare import differences
from .fetch import NotServed, Source
from .report import Report
from .store import BundleStore


def name_changed_leaves(site: Source, tree: Tree, size: int, report: Report) -> None:
    """The served leaves do not hash to the signed root: the site's hash tiles say which no longer match."""
    report.problems.append(
        "the entries served do not hash to the signed root: the log's leaves were changed after they were logged"
    )
    for ref in tiles_for(size, 0):
        try:
            served = site.get("log/" + ref.path())
        except NotServed:
            continue
        ours = tile_bytes(tree, ref)
        for i in range(ref.width):
            if served[32 * i : 32 * i + 32] != ours[32 * i : 32 * i + 32]:
                report.problems.append(
                    f"entry {ref.index * WIDTH + i}: its leaf no longer matches the hash the log's tree holds for it"
                )


def signed_history(report: Report, state: dict, checkpoint) -> bool:
    """What the checkpoints alone show against the one the last run saw: a log that shrank, or a second
    tree of a size signed before (a fork). True if either is reported."""
    if state.get("size") is None:
        return False
    old_size, old_root, when = state["size"], base64.b64decode(state["root"]), state.get("checked_at", "earlier")
    if old_size > checkpoint.size:
        report.problems.append(
            f"the log shrank: it had {old_size} entries when last checked ({when}), it now has {checkpoint.size}"
        )
        return True
    if old_size == checkpoint.size and checkpoint.root != old_root:
        report.problems.append(
            f"the site signed two different trees of {old_size} entries: this checkpoint's "
            f"root is not the one seen before ({when}), a fork"
        )
        return True
    return False


def history(
    report: Report, state: dict, checkpoint, tree: Tree, hashes: list[bytes], decoded: list, store: BundleStore
) -> str:
    """The log against the checkpoint the last run saw; what the verdict says of it.

    ``tree`` is made of the leaves served now. When they make the signed root, the signed tree must extend
    the one seen before; when they do not (the site serves leaves that are not the ones it signed), the
    checkpoints are compared as signed and every entry seen before that is served otherwise is named."""
    if state.get("size") is None:
        return "first run: there is no earlier checkpoint to compare this one with"
    size = checkpoint.size
    old_size, old_root = state["size"], base64.b64decode(state["root"])
    since = f"the checkpoint of {old_size} entries seen on {state.get('checked_at', 'an earlier run')}"
    served_as_signed = tree.root() == checkpoint.root
    if not signed_history(report, state, checkpoint) and served_as_signed:
        if tree.root(old_size) == old_root:
            report.notes.append(f"consistent with the checkpoint of {old_size} entries seen before")
            return f"it extends {since}"
        report.problems.append(
            f"the log of {size} entries does not extend the checkpoint of {old_size} "
            "entries seen before: its history was rewritten or forked"
        )
    report.problems += entries_changed(state.get("leaves") or [], hashes, decoded, store)
    return ""


def entries_changed(seen: list, hashes: list[bytes], decoded: list, store: BundleStore) -> list[str]:
    """Each entry seen before that is gone, moved or changed. Entries are matched in order (the n-th copy
    of a leaf seen before with the n-th copy now), so identical leaves are never confused."""
    where: dict[str, deque] = defaultdict(deque)
    for index, hashed in enumerate(hashes):
        where[hashed.hex()].append(index)
    problems, unmatched, matched, last = [], [], set(), -1
    for index, (hashed, what) in enumerate(seen):
        queue = where.get(hashed, deque())
        while queue and queue[0] <= last:
            queue.popleft()
        if not queue:
            unmatched.append(index)
            continue
        last = queue.popleft()
        matched.add(last)
        if last != index:
            problems.append(f"entry {index} ({what}) seen before is now entry {last}")
    for index in unmatched:
        what = seen[index][1]
        if index >= len(hashes) or index in matched:
            problems.append(f"entry {index} ({what}) seen before is no longer in the log")
            continue
        now = decoded[index]
        said = f"entry {index} ({what}) seen before was changed: it now reads {describe(now) if now else '?'}"
        old = store.leaf(index)
        if old is not None and leaf_hash(old).hex() == seen[index][0] and now is not None:
            try:
                changes = differences(leaf_decode(old), now)
            except LeafError:
                changes = []
            said += "".join(
                "; " + c.replace(": the log says ", ": was ", 1).replace(", the site publishes ", ", now ")
                for c in changes[:10]
            )
        problems.append(said)
    return problems
