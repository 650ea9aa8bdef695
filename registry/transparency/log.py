"""The transparency log inside the registry: appends and proofs (the tree and the checkpoint served are
``tree`` and ``served``; this module gives their names too, as the one place the rooms import from).

``log_append`` is the one way in. It runs inside the transaction of the change it
records (an approval, a reservation...), locks the log head, numbers the entry with the
head's size and moves the head on, so an entry exists exactly when its change does and
entries are numbered in commit order without gaps.

The modules of the log import one another in one direction: ``tree`` (the cached tree, the keys)
<- ``served`` (the checkpoint a web worker serves) <- ``signer`` <- ``log`` (appending, which in
development signs after its commit).
"""

from __future__ import annotations

import base64
import datetime as dt

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..grammar import is_valid_snid
from ..logcore.kinds import leaf_encode
from ..logcore.merkle import leaf_hash
from .models import LogEntry, LogHead, LogSigned
from .served import (
    CHECKPOINT_PERIOD,
    PUBLISHED_TTL,
    Published,
    log_cache_clear,
    log_checkpoint,
    log_damage,
    log_identity,
    log_published,
    log_published_forget,
    log_served_problem,
    log_signed_size,
)
from .signer import log_sign
from .tree import (
    LogDamaged,
    LogError,
    log_key_generate,
    log_leaves,
    log_origin,
    log_signer,
    log_size_recorded,
    log_tree,
    log_verifier,
)

__all__ = [
    "CHECKPOINT_PERIOD",
    "PUBLISHED_TTL",
    "LogDamaged",
    "LogError",
    "Published",
    "inclusion_of",
    "log_append",
    "log_cache_clear",
    "log_checkpoint",
    "log_damage",
    "log_identity",
    "log_key_generate",
    "log_leaves",
    "log_origin",
    "log_published",
    "log_published_forget",
    "log_served_problem",
    "log_sign",
    "log_signed_size",
    "log_signer",
    "log_size_recorded",
    "log_tree",
    "log_verifier",
    "version_entry",
]

# --- appending --------------------------------------------------------------------------------


def _utc_now() -> str:
    return timezone.now().astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _head_locked() -> LogHead:
    try:
        return LogHead.objects.select_for_update().get(pk=1)
    except LogHead.DoesNotExist:
        try:
            with transaction.atomic():
                LogHead.objects.create(pk=1, size=0)
        except IntegrityError:
            pass  # another append created it a moment ago
        return LogHead.objects.select_for_update().get(pk=1)


def log_append(kind: str, fields: dict) -> LogEntry:
    """Append a leaf of ``kind`` (registry.logcore.kinds) in the caller's transaction."""
    if not transaction.get_connection().in_atomic_block:
        raise LogError("log_append must run inside the transaction of the change it records.")
    head = _head_locked()  # taken last in the change's transaction: appends commit in order
    signed = LogSigned.objects.filter(pk=1).values_list("size", flat=True).first()
    if signed is not None and head.size < signed:
        raise LogDamaged(
            f"The transparency log is damaged: its table holds {head.size} entries but {signed} were "
            "signed, so nothing can be added to it (the new entry would take a number already "
            "signed for another). Nothing was changed. The operators must repair the log first "
            "(docs/transparency.md, 'When the log is damaged'); /log/ says what is wrong."
        )
    data = leaf_encode(kind, fields, _utc_now())
    entry = LogEntry.objects.create(
        index=head.size,
        kind=kind,
        snid=fields.get("snid", ""),
        version=fields.get("version"),
        leaf=data.decode("utf-8"),
        leaf_hash=leaf_hash(data).hex(),
    )
    LogHead.objects.filter(pk=1).update(size=head.size + 1)
    if settings.REGISTRY_LOG_SIGN_INLINE:
        _sign_after_commit()
    return entry


def _sign_after_commit() -> None:
    """Development and tests: sign once the change commits, in this process (one pass per transaction)."""
    connection = transaction.get_connection()
    if not any(callback is _sign_inline for _, callback, _ in connection.run_on_commit):
        transaction.on_commit(_sign_inline, robust=True)


def _sign_inline() -> None:
    log_sign()


# --- entries and proofs ---------------------------------------------------------------------------


def version_entry(snid: str, version: int) -> LogEntry | None:
    """The log entry that registered ``version`` of ``snid`` (the first, should there be two)."""
    if not is_valid_snid(snid) or not 0 < version < 2**31:
        return None  # nothing the database could be asked about (PostgreSQL refuses NUL bytes)
    return (
        LogEntry.objects.filter(kind="snid-version", snid__lower=snid.lower(), version=version)
        .order_by("index")
        .first()
    )


def inclusion_of(entry_index: int, size: int | None = None) -> dict:
    """An inclusion proof for entry ``entry_index`` in the tree of ``size`` (default: the signed
    checkpoint's, or the table's current size for an entry not signed yet, without a checkpoint)."""
    tree, current = log_tree()
    signed = log_signed_size()
    if size is None:
        size = signed if signed is not None and entry_index < signed <= current else current
    if not entry_index < size <= current:
        raise LogError(f"Entry {entry_index} is not in a tree of size {size} (the log has {current} entries).")
    note = log_checkpoint()[1] if size == signed else None
    return {
        "index": entry_index,
        "tree_size": size,
        "leaf_hash": base64.b64encode(tree.levels[0][entry_index]).decode(),
        "proof": [base64.b64encode(h).decode() for h in tree.inclusion_proof(entry_index, size)],
        "root_hash": base64.b64encode(tree.root(size)).decode(),
        "checkpoint": note,
    }
