"""The signer's own record of what it signed, and the check that the log still extends it.

Pure Python, no Django: the log's engine, like ``merkle`` and ``note``.

Someone who can write to the database can change or delete log entries and move the head
back; a signer that signed whatever the database holds would then sign a second, different
tree of a size it signed before — a fork, which C2SP tlog-checkpoint forbids and which the
log exists to prevent. So the signer keeps, in a directory beside its key that only it
writes (``SignerState``), the last checkpoint it signed and the leaf hashes of that tree.
Before signing again it re-hashes every leaf the database holds (``log_examine``), compares
them with its own copy, and checks the RFC 9162 consistency proof from its last checkpoint
to the new tree; if anything differs it signs nothing and says which entries and how.

The record is written before anything signed is shown to anybody (witnesses, the database),
with ``fsync`` and an atomic rename, so a crash never leaves a signed checkpoint the signer
has forgotten. A lock file keeps two signer processes on one machine from interleaving.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .merkle import Tree, leaf_hash, verify_consistency
from .note import TIME_FORMAT, TIME_PREFIX, Checkpoint, NoteError, note_split

STATE_FILE, HASHES_FILE, LOCK_FILE, ALARM_FILE = "state.json", "leaf-hashes", "lock", "alarm.json"
MAX_NAMED = 10  # entries named in one sentence; the rest are counted


class SignerStateError(Exception):
    """The signer's own record is missing, unreadable or inconsistent; the message says what to do."""


@dataclass
class SignerRecord:
    """What the signer signed last, and what it told the world."""

    note: str  # the checkpoint exactly as signed (the log's signature only)
    leaf_hashes: list[bytes]  # the leaf hashes of that tree, in order
    published: str = ""  # the same checkpoint with the witnesses' cosignatures, as published
    witnesses: dict[str, int] = field(default_factory=dict)  # witness name -> size it cosigned last

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint.parse(note_split(self.note)[0])

    @property
    def size(self) -> int:
        return len(self.leaf_hashes)

    def described(self) -> str:
        checkpoint = self.checkpoint
        when = checkpoint.time
        return f"size {checkpoint.size}" + (f", signed {when:%Y-%m-%d %H:%M:%S} UTC" if when else "")


class SignerState:
    """The signer's directory: ``state.json`` (checkpoint, published note, witnesses), ``leaf-hashes``
    (32 bytes per entry of the signed tree, appended), ``lock``."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    @contextmanager
    def lock(self, timeout: float = 60.0):
        """Hold the signer's lock (one signing pass at a time on this machine)."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle = open(self.directory / LOCK_FILE, "a+")  # noqa: SIM115 - held for the with block
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise SignerStateError(f"Another signer has held {self.directory / LOCK_FILE} for "
                                               f"{timeout:.0f} s; is a second signer running?") from None
                    time.sleep(0.05)
            yield
        finally:
            handle.close()

    def load(self) -> SignerRecord | None:
        """The record, or None if the signer never signed; SignerStateError if it is not sound."""
        try:
            data = json.loads((self.directory / STATE_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise SignerStateError(f"The signer's record {self.directory / STATE_FILE} cannot be read: {exc}") from None
        try:
            note = data["note"]
            checkpoint = Checkpoint.parse(note_split(note)[0])
            with open(self.directory / HASHES_FILE, "rb") as handle:
                raw = handle.read(32 * checkpoint.size)
        except (KeyError, TypeError, NoteError, OSError) as exc:
            raise SignerStateError(f"The signer's record in {self.directory} is incomplete: {exc}") from None
        hashes = [raw[i:i + 32] for i in range(0, len(raw), 32)]
        if len(hashes) != checkpoint.size or len(raw) % 32 or Tree(hashes).root() != checkpoint.root:
            raise SignerStateError(f"The signer's leaf hashes in {self.directory} do not make the root of the "
                                   f"checkpoint it signed (size {checkpoint.size}); restore the directory from "
                                   "its backup (docs/transparency.md, 'The signer').")
        return SignerRecord(note, hashes, data.get("published") or note, dict(data.get("witnesses") or {}))

    def save(self, record: SignerRecord, previous: SignerRecord | None) -> None:
        """Write ``record`` durably: the new leaf hashes first (appended), then the state file by rename."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        extends = previous is not None and record.leaf_hashes[:previous.size] == previous.leaf_hashes
        start = previous.size if extends else 0
        descriptor = os.open(self.directory / HASHES_FILE, os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.seek(32 * start)
            handle.write(b"".join(record.leaf_hashes[start:]))
            handle.flush()
            os.fsync(handle.fileno())
        self._write(STATE_FILE, {"note": record.note, "published": record.published, "witnesses": record.witnesses})

    def alarm(self) -> tuple[str, float]:
        """The damage last reported by mail ("" when none) and when (POSIX seconds)."""
        try:
            data = json.loads((self.directory / ALARM_FILE).read_text(encoding="utf-8"))
            return str(data["damage"]), float(data["at"])
        except (OSError, ValueError, KeyError, TypeError):
            return "", 0.0

    def alarm_save(self, damage: str, at: float) -> None:
        self._write(ALARM_FILE, {"damage": damage, "at": at})

    def _write(self, name: str, data: dict) -> None:
        """Replace ``name`` with ``data`` as JSON, durably (written, synced, renamed, directory synced)."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self.directory / (name + ".new")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.directory / name)
        directory = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


# --- the check ------------------------------------------------------------------------------------


@dataclass
class Examination:
    """The log as the database holds it now: the tree of its leaves (re-hashed, up to the first
    missing entry) and what keeps it from extending the signer's last checkpoint."""

    tree: Tree
    problems: list[str]
    head: int


def _named(indices: list[int], one: str, many: str) -> str:
    """"entry 7 <one>" or "entries 3, 7 <many>", naming at most MAX_NAMED."""
    shown = ", ".join(str(i) for i in indices[:MAX_NAMED])
    more = f" and {len(indices) - MAX_NAMED} more" if len(indices) > MAX_NAMED else ""
    return f"entry {shown} {one}" if len(indices) == 1 else f"entries {shown}{more} {many}"


def log_examine(record: SignerRecord | None, rows, head: int) -> Examination:
    """Re-hash every leaf of ``rows`` ((index, leaf bytes, stored leaf hash hex), in index order,
    those below ``head``) and check the result extends ``record``."""
    tree, problems = Tree(), []
    missing_at = None
    rehashed_wrong = []
    for index, leaf, stored in rows:
        if index != tree.size:
            missing_at = tree.size
            break
        hashed = leaf_hash(leaf)
        if stored.lower() != hashed.hex():
            rehashed_wrong.append(index)
        tree.append(hashed)
    if missing_at is None and tree.size < head:
        missing_at = tree.size
    if missing_at is not None:
        problems.append(f"entry {missing_at} is missing from the log table, which records {head} entries")
    if rehashed_wrong:
        problems.append(_named(rehashed_wrong, "no longer hashes to the leaf hash stored beside it",
                               "no longer hash to the leaf hashes stored beside them")
                        + " (a leaf was changed in the database)")
    if record is not None:
        signed = record.size
        changed = [i for i in range(min(signed, tree.size)) if tree.levels[0][i] != record.leaf_hashes[i]]
        if changed:
            problems.append(_named(changed, "differs from the entry signed under that number",
                                   "differ from the entries signed under those numbers"))
        if head < signed:
            problems.append(f"the log table records {head} entries, fewer than the {signed} signed: "
                            + _named(list(range(head, signed)), "is gone", "are gone"))
        elif tree.size < signed and missing_at is None:
            problems.append(f"only {tree.size} of the {signed} signed entries are in the log table")
        if not problems and not verify_consistency(signed, tree.size, record.checkpoint.root, tree.root(),
                                                   tree.consistency_proof(signed, tree.size)):
            problems.append(f"the tree of {tree.size} entries does not extend the signed tree of {signed} "
                            "(the consistency proof fails)")
    return Examination(tree, problems, head)


def damage_sentence(record: SignerRecord | None, problems: list[str]) -> str:
    """One sentence for people: what was signed, and what the database holds now."""
    if record is None:
        return "The log table is damaged: " + "; ".join(problems) + "."
    return (f"The log no longer extends the checkpoint signed last ({record.described()}): "
            + "; ".join(problems) + ". Nothing is signed until it does; the last good checkpoint is served.")


def checkpoint_due(record: SignerRecord | None, tree: Tree, now: dt.datetime, period: float) -> bool:
    """Whether to sign: never signed, the log grew, or the last checkpoint is ``period`` seconds old."""
    if record is None or tree.size != record.size:
        return True
    signed_at = record.checkpoint.time
    return signed_at is None or (now - signed_at).total_seconds() >= period


def checkpoint_text(origin: str, tree: Tree, now: dt.datetime) -> str:
    """The text of the checkpoint of ``tree`` signed at ``now`` (C2SP tlog-checkpoint, with the time line)."""
    signed_at = TIME_PREFIX + now.astimezone(dt.UTC).strftime(TIME_FORMAT)
    return Checkpoint(origin, tree.size, tree.root(), (signed_at,)).text()

