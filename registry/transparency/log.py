"""The transparency log inside the registry: appends, the tree, proofs and signed checkpoints.

``log_append`` is the one way in. It runs inside the transaction of the change it
records (an approval, a reservation...), locks the log head, numbers the entry with the
head's size and moves the head on, so an entry exists exactly when its change does and
entries are numbered in commit order without gaps.

Readers get the tree from a per-process cache of leaf hashes, extended from the table
as the head moves (O(new entries)), so a root or a proof costs a query for the head
and O(log² n) hashing. The tree is built from the table as it is: if an entry has gone
missing behind the application's back, the tree ends before it.

Web workers never sign. The signer (registry/transparency/signer.py, ``manage.py
log_sign``), which alone holds the key, publishes each checkpoint in the ``LogSigned`` row;
``log_checkpoint`` serves that note byte for byte once its signature checks out with the
verifier key, so every worker serves the same checkpoint and none can make up another.
``log_damage`` says, in words, when the table no longer extends what was signed.
"""

from __future__ import annotations

import base64
import datetime as dt
import errno
import functools
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..grammar import is_valid_snid
from ..keyfiles import key_file_create
from ..logcore.kinds import leaf_encode
from ..logcore.merkle import Tree, leaf_hash
from ..logcore.note import Checkpoint, NoteError, Signer, Verifier, checkpoint_open
from .models import LogEntry, LogHead, LogSigned


class LogError(Exception):
    """The log cannot do what was asked (no key, no such entry...); the message says what to do."""


class LogDamaged(LogError):
    """Nothing may be appended: the log table holds fewer entries than were signed (an append would
    give a signed number a second entry, a fork)."""


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
    from .signer import log_sign

    log_sign()


# --- the tree, cached per process ----------------------------------------------------------------


class _TreeCache:
    def __init__(self):
        self.tree = Tree()
        self.damage = ""


_cache = _TreeCache()
_cache_lock = threading.Lock()


def log_cache_clear() -> None:
    global _cache, _published, _served
    with _cache_lock:
        _cache = _TreeCache()
        _published, _served = None, None


def log_size_recorded() -> int:
    """The size the log head records (what the tree should have)."""
    return LogHead.objects.values_list("size", flat=True).first() or 0


def log_tree() -> tuple[Tree, int]:
    """The tree and the size to use from it (entries appended later are not part of it)."""
    global _cache
    recorded = log_size_recorded()
    with _cache_lock:
        cache = _cache
        if recorded < cache.tree.size:  # another database (a restore, a test): start again
            cache = _cache = _TreeCache()
        if cache.tree.size < recorded and not cache.damage:
            cache = _cache = _extended(cache, recorded)
        return cache.tree, min(cache.tree.size, recorded)


def _extended(cache: _TreeCache, recorded: int) -> _TreeCache:
    """``cache`` with the entries up to ``recorded`` added, read from the table in order.

    The last entry already cached is read again: if it differs, the database is not the one
    the cache was built from (a restore) and the tree is rebuilt from the start.
    """
    start = max(cache.tree.size - 1, 0)
    rows = (
        LogEntry.objects.filter(index__gte=start, index__lt=recorded)
        .order_by("index")
        .values_list("index", "leaf_hash")
    )
    for index, hashed in rows.iterator(chunk_size=2000):
        if index < cache.tree.size:
            if bytes.fromhex(hashed) != cache.tree.levels[0][index]:
                return _extended(_TreeCache(), recorded)
            continue
        if index != cache.tree.size:
            break
        cache.tree.append(bytes.fromhex(hashed))
    if cache.tree.size < recorded:
        cache.damage = (
            f"entry {cache.tree.size} is missing from the log table (the head records "
            f"{recorded} entries); the log is served up to the entry before it"
        )
    return cache


def log_leaves(start: int, stop: int) -> list[bytes]:
    """The leaves ``start..stop-1`` exactly as stored (the bytes that were hashed)."""
    rows = list(
        LogEntry.objects.filter(index__gte=start, index__lt=stop).order_by("index").values_list("index", "leaf")
    )
    if [index for index, _ in rows] != list(range(start, stop)):
        raise LogError(f"entries {start}..{stop - 1} are not all in the log table")
    return [leaf.encode("utf-8") for _, leaf in rows]


# --- the signing key ------------------------------------------------------------------------------

_signer_lock = threading.Lock()
_signers: dict[tuple, Signer] = {}


def _default_key_name() -> str:
    from urllib.parse import urlsplit

    host = urlsplit(settings.SITE_URL).netloc or "localhost"
    return f"{host}/log"


def log_key_generate(path: Path, name: str | None = None) -> Signer:
    """Write a new signer key to ``path`` (readable by its owner only) and return it."""
    signer = Signer.generate(name or _default_key_name())
    if not key_file_create(path, str(signer) + "\n"):  # never overwrite a key
        raise FileExistsError(errno.EEXIST, "a log key is already there", str(path))
    return signer


def log_signer(*, create: bool = False) -> Signer:
    """The log's signer key: REGISTRY_LOG_KEY, else the file REGISTRY_LOG_KEY_FILE.

    Only the signer needs it (web workers check with the verifier key). A missing key file is
    created in development (REGISTRY_LOG_KEY_CREATE) or when asked (``start``); anywhere else
    a missing or unreadable key is an error here, saying what to do.
    """
    text, path = settings.REGISTRY_LOG_KEY, settings.REGISTRY_LOG_KEY_FILE
    with _signer_lock:
        if (text, path) in _signers:
            return _signers[(text, path)]
        if not text:
            if not path:
                raise LogError(
                    "No log key: set REGISTRY_LOG_KEY or REGISTRY_LOG_KEY_FILE "
                    "(manage.py log_keygen makes one); see docs/transparency.md."
                )
            try:
                text = Path(path).read_text(encoding="ascii")
            except FileNotFoundError:
                if not (create or settings.REGISTRY_LOG_KEY_CREATE):
                    raise LogError(
                        f"The log key file {path} does not exist; make it with "
                        "manage.py log_keygen (docs/transparency.md)."
                    ) from None
                try:
                    log_key_generate(Path(path))
                except FileExistsError:
                    pass  # another process made it first
                text = Path(path).read_text(encoding="ascii")
        try:
            signer = Signer.parse(text)
        except NoteError as exc:
            raise LogError(f"The log key is not usable: {exc}") from None
        _signers[(settings.REGISTRY_LOG_KEY, path)] = signer
        return signer


def log_verifier(*, create: bool = False) -> Verifier:
    """The log's public key: REGISTRY_LOG_VERIFIER_KEY (what web workers have), else the signer key's."""
    text = settings.REGISTRY_LOG_VERIFIER_KEY
    if not text:
        return log_signer(create=create).verifier()
    try:
        return _verifier_parsed(text)
    except NoteError as exc:
        raise LogError(f"REGISTRY_LOG_VERIFIER_KEY is not usable: {exc}") from None


@functools.lru_cache(maxsize=4)
def _verifier_parsed(text: str) -> Verifier:
    return Verifier.parse(text)


def log_origin() -> str:
    return log_verifier().name


# --- the checkpoint the signer published ---------------------------------------------------------

#: Seconds a web worker reuses the published checkpoint it read (the signer's row) before asking again.
PUBLISHED_TTL = 1.0
#: The signer signs again at least this often (seconds), so the time line shows a live site.
CHECKPOINT_PERIOD = 60


@dataclass(frozen=True)
class Published:
    """The checkpoint to serve, the signer's verdict on the log, and what this process finds wrong
    with what the database offered (a note that does not verify, an older checkpoint than it served)."""

    checkpoint: Checkpoint
    note: str
    damage: str = ""
    problem: str = ""


_published: tuple[float, Published | None] | None = None  # (when read, what)
_served: Published | None = None  # the largest good checkpoint this process has served


def log_published_forget() -> None:
    """After publishing in this process: the next read asks the database again."""
    global _published
    _published = None


def log_published() -> Published | None:
    """The checkpoint the signer published (None if it never did), checked with the verifier key.

    A note that does not verify, or that is older than one this process already served (a
    row rolled back), is not served: the last good one is, with the reason in ``problem``.
    """
    global _published, _served
    cached = _published
    if cached is not None and time.monotonic() - cached[0] < PUBLISHED_TTL:
        return cached[1]
    row = LogSigned.objects.filter(pk=1).values_list("note", "damage").first()
    answer = None
    if row is not None and row[0]:
        note, damage = row
        served = _served
        try:
            checkpoint = _opened(note, str(log_verifier()))
        except NoteError as exc:
            problem = f"the checkpoint in the database does not verify with the log's key ({exc})"
            if served is None:
                raise LogError(f"The log has no checkpoint to serve: {problem}.") from None
            answer = Published(served.checkpoint, served.note, damage, problem)
        else:
            if served is not None and (
                checkpoint.size < served.checkpoint.size
                or (checkpoint.size == served.checkpoint.size and checkpoint.root != served.checkpoint.root)
            ):
                problem = (
                    f"the database offers a checkpoint of size {checkpoint.size} that does not extend the "
                    f"one of size {served.checkpoint.size} this server served; it keeps serving that one"
                )
                answer = Published(served.checkpoint, served.note, damage, problem)
            else:
                answer = _served = Published(checkpoint, note, damage)
    _published = (time.monotonic(), answer)
    return answer


@functools.lru_cache(maxsize=8)
def _opened(note: str, verifier: str) -> Checkpoint:
    return checkpoint_open(note, Verifier.parse(verifier))


def log_checkpoint() -> tuple[Checkpoint, str]:
    """The checkpoint every worker serves: the signer's note, byte for byte."""
    published = log_published()
    if published is None:
        raise LogError(
            "No checkpoint has been signed yet: the log's signer (manage.py log_sign) has not run "
            "(docs/transparency.md, 'The signer')."
        )
    return published.checkpoint, published.note


def log_damage() -> str | None:
    """None while the log extends what was signed; otherwise what is wrong, in words (for /log/,
    the lookup's ``Registry-Log-Damage`` header, ``start`` and ``log_backfill``). LogError if the
    verifier key is not configured (that is not damage: nothing could be checked)."""
    log_verifier()
    try:
        published = log_published()
    except LogError as exc:
        return str(exc)
    if published is not None and (published.damage or published.problem):
        return " ".join(
            part for part in (published.damage, published.problem and f"This server: {published.problem}.") if part
        )
    tree, size = log_tree()
    recorded = log_size_recorded()
    problems = [_cache.damage] if _cache.damage else []
    if published is not None:
        signed = published.checkpoint
        if recorded < signed.size:
            problems.append(f"the log table records {recorded} entries, fewer than the {signed.size} signed")
        elif size >= signed.size and tree.root(signed.size) != signed.root:
            problems.append(f"the first {signed.size} entries of the log table no longer make the signed root")
    if not problems:
        return None
    return "The log table is damaged: " + "; ".join(problems) + "."


def log_signed_size() -> int | None:
    """The size of the checkpoint being served, or None before the first one."""
    try:
        published = log_published()
    except LogError:
        return None
    return published.checkpoint.size if published else None


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
