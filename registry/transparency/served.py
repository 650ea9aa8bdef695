"""The checkpoint an app server serves: the signer's, checked, and never older than one it served before.

Web workers never sign. The signer (registry/transparency/signer.py), which alone holds the key,
publishes each checkpoint in the ``LogSigned`` row; ``log_checkpoint`` serves that note byte for
byte once its signature checks out with the verifier key, so every worker serves the same
checkpoint and none can make up another.

The row is in the database, which the log exists to check, so a worker also remembers what it
served *outside* the database: the last checkpoint it verified is kept in a small file per host
(``REGISTRY_LOG_SERVED_FILE``, the floor), written atomically whenever it serves a larger one and
read when the process starts. A row that holds an older checkpoint than the floor, another root for
its size, or a larger tree that the table does not show to extend it, is not served — also after a
restart —: the worker keeps serving its floor and says why (``/log/``, the lookup's
``Registry-Log-Damage`` header). In development (``REGISTRY_LOG_NEW_DATABASE_NEW_LOG``) the floor
belongs to one database's log (its identity, ``LogHead.identity``): a new database is a new log.
"""

from __future__ import annotations

import fcntl
import functools
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from ..logcore.note import Checkpoint, NoteError, Verifier, checkpoint_open, note_split
from .models import LogHead, LogSigned
from .tree import LogError, log_size_recorded, log_tree, log_tree_clear, log_tree_damage, log_tree_suspect, log_verifier

logger = logging.getLogger("registry.transparency.served")

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
_served: Published | None = None  # the largest good checkpoint this process has served (its floor)
_floor_loaded = False  # whether this process read the floor file yet
_floor_lock = threading.Lock()


def log_cache_clear() -> None:
    """Forget everything this process keeps in memory (what a restart forgets; the floor file stays)."""
    global _published, _served, _floor_loaded
    log_tree_clear()
    with _floor_lock:
        _published, _served, _floor_loaded = None, None, False


def log_published_forget() -> None:
    """After publishing in this process: the next read asks the database again."""
    global _published
    _published = None


def log_identity() -> str | None:
    """The identity of the log the database holds (made with its head), or None before its first entry."""
    return LogHead.objects.values_list("identity", flat=True).first()


# --- the floor: what this host served, on disk ----------------------------------------------------


def _floor_path() -> Path | None:
    path = settings.REGISTRY_LOG_SERVED_FILE
    return Path(path) if path else None


def _floor_read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        Checkpoint.parse(note_split(data["note"])[0])
        return data
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, NoteError) as exc:
        logger.error("The log's served-checkpoint file %s cannot be read (%s); it is not used.", path, exc)
        return None


def _floor_load() -> None:
    """Once per process: take the floor file's checkpoint as the last one served (``_served``)."""
    global _served, _floor_loaded
    with _floor_lock:
        if _floor_loaded:
            return
        _floor_loaded = True
        path = _floor_path()
        data = _floor_read(path) if path else None
        if data is None:
            return
        checkpoint = Checkpoint.parse(note_split(data["note"])[0])
        if checkpoint.origin != log_verifier().name:
            logger.error(
                "The log's served-checkpoint file %s is for the log %r, not %r; it is not used.",
                path,
                checkpoint.origin,
                log_verifier().name,
            )
            return
        if settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG and data.get("identity") != log_identity():
            return  # development: another database's log, not this one
        if _served is None or checkpoint.size > _served.checkpoint.size:
            _served = Published(checkpoint, data["note"])


def _floor_save(published: Published) -> str:
    """Keep ``published`` as this host's floor (unless the file holds a larger one); "" or why it could not."""
    path = _floor_path()
    if path is None:
        return ""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            held = _floor_read(path)
            if held is not None:
                size = Checkpoint.parse(note_split(held["note"])[0]).size
                if size > published.checkpoint.size and held.get("identity") == log_identity():
                    return ""  # another worker of this host served a larger one
            temporary = path.with_name(f"{path.name}.{os.getpid()}.new")
            with open(temporary, "w", encoding="utf-8") as handle:
                json.dump({"note": published.note, "identity": log_identity()}, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
    except OSError as exc:
        logger.error("The log's served-checkpoint file %s cannot be written: %s", path, exc)
        return f"it cannot keep what it served in {path} ({exc.strerror or exc}), so a restart forgets it"
    return ""


def _extends(new: Checkpoint, old: Checkpoint) -> bool:
    """Whether ``new`` is ``old`` or a larger tree the table shows to extend it (both roots made by its tree)."""
    if new.size <= old.size:
        return new.size == old.size and new.root == old.root
    tree, size = log_tree()
    return size >= new.size and tree.root(new.size) == new.root and tree.root(old.size) == old.root


# --- what the signer published --------------------------------------------------------------------


def log_published() -> Published | None:
    """The checkpoint to serve (None if the signer never published one), checked with the verifier key.

    A note that does not verify, or that does not extend the one this host served last (the floor:
    older, another root for its size, or a larger tree the table does not show to extend it), is not
    served: the floor is, with the reason in ``problem``.
    """
    global _published, _served
    cached = _published
    if cached is not None and time.monotonic() - cached[0] < PUBLISHED_TTL:
        return cached[1]
    _floor_load()
    row = LogSigned.objects.filter(pk=1).values_list("note", "damage").first()
    served = _served
    answer = None
    if row is not None and row[0]:
        note, damage = row
        try:
            checkpoint = _opened(note, str(log_verifier()))
        except NoteError as exc:
            problem = f"the checkpoint in the database does not verify with the log's key ({exc})"
            if served is None:
                raise LogError(f"The log has no checkpoint to serve: {problem}.") from None
            answer = Published(served.checkpoint, served.note, damage, problem)
        else:
            if served is not None and not _extends(checkpoint, served.checkpoint):
                problem = (
                    f"the database offers a checkpoint of size {checkpoint.size} that does not extend the "
                    f"one of size {served.checkpoint.size} this server served; it keeps serving that one"
                )
                answer = Published(served.checkpoint, served.note, damage, problem)
            else:
                kept = "" if served is not None and served.note == note else _floor_save(Published(checkpoint, note))
                answer = _served = Published(checkpoint, note, damage)
                if kept:
                    answer = Published(checkpoint, note, damage, kept)
    elif served is not None:
        answer = Published(
            served.checkpoint,
            served.note,
            "",
            "the database holds no published checkpoint, but this server served one; it keeps serving that one",
        )
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


def log_served_problem() -> str:
    """What this server finds wrong with the checkpoint the database offers ("" if nothing), for the
    lookup's ``Registry-Log-Damage`` header beside the signer's verdict."""
    try:
        published = log_published()
    except LogError as exc:
        return str(exc)
    return f"This server: {published.problem}." if published is not None and published.problem else ""


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
    problems = [log_tree_damage()] if log_tree_damage() else []
    if published is not None:
        signed = published.checkpoint
        if recorded < signed.size:
            problems.append(f"the log table records {recorded} entries, fewer than the {signed.size} signed")
        elif size >= signed.size and tree.root(signed.size) != signed.root:
            log_tree_suspect()
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
