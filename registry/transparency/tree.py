"""The log as this process sees it: the tree of the table's leaf hashes, cached, and the log's keys.

Readers get the tree from a per-process cache of leaf hashes, extended from the table as the head
moves (O(new entries)), so a root or a proof costs a query for the head and O(log² n) hashing. The
tree is built from the table as it is: if an entry has gone missing behind the application's back,
the tree ends before it, and the cache says so (``damage``). Damage is a state the table leaves: a
damaged cache is built again from the table at most once every ``RETRY_SECONDS``, so a repaired
table is served again within that time, without a restart (docs/transparency.md, 'When the log is
damaged').
"""

from __future__ import annotations

import errno
import functools
import threading
import time
from pathlib import Path

from django.conf import settings

from ..keyfiles import key_file_create
from ..logcore.merkle import Tree
from ..logcore.note import NoteError, Signer, Verifier
from .models import LogEntry, LogHead

#: Seconds between two looks at the table while this process finds it damaged (the app servers' poll).
RETRY_SECONDS = 1.0


class LogError(Exception):
    """The log cannot do what was asked (no key, no such entry...); the message says what to do."""


class LogDamaged(LogError):
    """Nothing may be appended: the log table holds fewer entries than were signed (an append would
    give a signed number a second entry, a fork)."""


# --- the tree, cached per process ----------------------------------------------------------------


class _TreeCache:
    def __init__(self):
        self.tree = Tree()
        self.damage = ""
        self.damaged_at = 0.0  # time.monotonic() when the damage was found
        self.suspect = False  # set when the tree's root does not make a signed one: rebuilt at the next retry


_cache = _TreeCache()
_cache_lock = threading.Lock()


def log_tree_clear() -> None:
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
        if recorded < cache.tree.size:  # another database (a restore, a test), or the head moved back
            cache = _cache = _TreeCache()
        elif (cache.damage or cache.suspect) and time.monotonic() - cache.damaged_at >= RETRY_SECONDS:
            cache = _cache = _TreeCache()  # look again: the table may have been repaired
        if cache.tree.size < recorded and not cache.damage:
            cache = _cache = _extended(cache, recorded)
        return cache.tree, min(cache.tree.size, recorded)


def log_tree_damage() -> str:
    """What this process found missing from the table when it last built its tree ("" if nothing)."""
    return _cache.damage


def log_tree_suspect() -> None:
    """The tree does not make a root that was signed: build it again from the table at the next retry
    (a leaf and its stored hash rewritten, and perhaps put back since)."""
    with _cache_lock:
        if not _cache.suspect:
            _cache.suspect, _cache.damaged_at = True, time.monotonic()


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
        cache.damaged_at = time.monotonic()
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
