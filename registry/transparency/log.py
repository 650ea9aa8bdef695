"""The transparency log inside the registry: appends, the tree, proofs and signed checkpoints.

``log_append`` is the one way in. It runs inside the transaction of the change it
records (an approval, a reservation...), locks the log head, numbers the entry with the
head's size and moves the head on, so an entry exists exactly when its change does and
entries are numbered in commit order without gaps.

Readers get the tree from a per-process cache of leaf hashes, extended from the table
as the head moves (O(new entries)), so a root or a proof costs a query for the head
and O(log² n) hashing. The tree is built from the table as it is: if an entry has gone
missing behind the application's back, the tree ends before it (``log_damage`` says
which) — the log never signs a tree with a hole relabelled, so a mirror's consistency
check shows the loss.
"""

from __future__ import annotations

import base64
import datetime as dt
import threading
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..grammar import is_valid_snid
from .kinds import leaf_encode
from .merkle import Tree, leaf_hash
from .models import LogEntry, LogHead
from .note import TIME_FORMAT, TIME_PREFIX, Checkpoint, NoteError, Signer, Verifier


class LogError(Exception):
    """The log cannot do what was asked (no key, no such entry...); the message says what to do."""


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
    """Append a leaf of ``kind`` (registry.transparency.kinds) in the caller's transaction."""
    if not transaction.get_connection().in_atomic_block:
        raise LogError("log_append must run inside the transaction of the change it records.")
    head = _head_locked()  # taken last in the change's transaction: appends commit in order
    data = leaf_encode(kind, fields, _utc_now())
    entry = LogEntry.objects.create(index=head.size, kind=kind, snid=fields.get("snid", ""),
                                    version=fields.get("version"), leaf=data.decode("utf-8"),
                                    leaf_hash=leaf_hash(data).hex())
    LogHead.objects.filter(pk=1).update(size=head.size + 1)
    return entry


# --- the tree, cached per process ----------------------------------------------------------------


class _TreeCache:
    def __init__(self):
        self.tree = Tree()
        self.damage = ""


_cache = _TreeCache()
_cache_lock = threading.Lock()


def log_cache_clear() -> None:
    global _cache
    with _cache_lock:
        _cache = _TreeCache()


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
    rows = (LogEntry.objects.filter(index__gte=start, index__lt=recorded)
            .order_by("index").values_list("index", "leaf_hash"))
    for index, hashed in rows.iterator(chunk_size=2000):
        if index < cache.tree.size:
            if bytes.fromhex(hashed) != cache.tree.levels[0][index]:
                return _extended(_TreeCache(), recorded)
            continue
        if index != cache.tree.size:
            break
        cache.tree.append(bytes.fromhex(hashed))
    if cache.tree.size < recorded:
        cache.damage = (f"entry {cache.tree.size} is missing from the log table (the head records "
                        f"{recorded} entries); the log is served up to the entry before it")
    return cache


def log_damage() -> str:
    log_tree()
    return _cache.damage


def log_leaves(start: int, stop: int) -> list[bytes]:
    """The leaves ``start..stop-1`` exactly as stored (the bytes that were hashed)."""
    rows = list(LogEntry.objects.filter(index__gte=start, index__lt=stop).order_by("index")
                .values_list("index", "leaf"))
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
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="ascii") as handle:  # never overwrite a key
        handle.write(str(signer) + "\n")
    path.chmod(0o600)
    return signer


def log_signer(*, create: bool = False) -> Signer:
    """The log's signer key: REGISTRY_LOG_KEY, else the file REGISTRY_LOG_KEY_FILE.

    A missing key file is created in development (REGISTRY_LOG_KEY_CREATE) or when asked
    (``start``); in production the settings refuse to start without a key, and an
    unreadable one is an error here.
    """
    text, path = settings.REGISTRY_LOG_KEY, settings.REGISTRY_LOG_KEY_FILE
    with _signer_lock:
        if (text, path) in _signers:
            return _signers[(text, path)]
        if not text:
            if not path:
                raise LogError("No log key: set REGISTRY_LOG_KEY or REGISTRY_LOG_KEY_FILE "
                               "(manage.py log_keygen makes one); see docs/transparency.md.")
            try:
                text = Path(path).read_text(encoding="ascii")
            except FileNotFoundError:
                if not (create or settings.REGISTRY_LOG_KEY_CREATE):
                    raise LogError(f"The log key file {path} does not exist; make it with "
                                   "manage.py log_keygen (docs/transparency.md).") from None
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
    return log_signer(create=create).verifier()


def log_origin() -> str:
    return log_signer().name


# --- checkpoints and proofs -----------------------------------------------------------------------

_notes: dict[tuple, str] = {}


#: Seconds between the times a checkpoint is signed with: every worker signs the same bytes within
#: one period (Ed25519 is deterministic), and a checkpoint is never older than this when served.
CHECKPOINT_PERIOD = 60


def log_checkpoint(now: dt.datetime | None = None) -> tuple[Checkpoint, str]:
    """The current checkpoint and its signed note, with the time it was signed (to the period): a
    frozen or replayed site shows an old time, which a mirror can see (registry/verify.py)."""
    tree, size = log_tree()
    signer = log_signer()
    seconds = int((now or timezone.now()).timestamp()) // CHECKPOINT_PERIOD * CHECKPOINT_PERIOD
    signed_at = dt.datetime.fromtimestamp(seconds, dt.UTC).strftime(TIME_FORMAT)
    checkpoint = Checkpoint(signer.name, size, tree.root(size), (TIME_PREFIX + signed_at,))
    key = (str(signer.verifier()), size, checkpoint.root, seconds)
    note = _notes.get(key)
    if note is None:
        if len(_notes) > 64:
            _notes.clear()
        note = _notes[key] = signer.sign(checkpoint.text())
    return checkpoint, note


def version_entry(snid: str, version: int) -> LogEntry | None:
    """The log entry that registered ``version`` of ``snid`` (the first, should there be two)."""
    if not is_valid_snid(snid) or not 0 < version < 2**31:
        return None  # nothing the database could be asked about (PostgreSQL refuses NUL bytes)
    return (LogEntry.objects.filter(kind="snid-version", snid__lower=snid.lower(), version=version)
            .order_by("index").first())


def inclusion_of(entry_index: int, size: int | None = None) -> dict:
    """An inclusion proof for entry ``entry_index`` in the tree of ``size`` (default: the current one)."""
    tree, current = log_tree()
    size = current if size is None else size
    if not entry_index < size <= current:
        raise LogError(f"Entry {entry_index} is not in a tree of size {size} (the log has {current} entries).")
    checkpoint, note = log_checkpoint()
    return {
        "index": entry_index,
        "tree_size": size,
        "leaf_hash": base64.b64encode(tree.levels[0][entry_index]).decode(),
        "proof": [base64.b64encode(h).decode() for h in tree.inclusion_proof(entry_index, size)],
        "root_hash": base64.b64encode(tree.root(size)).decode(),
        "checkpoint": note if size == checkpoint.size else None,
    }
