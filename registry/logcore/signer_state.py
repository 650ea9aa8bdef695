"""The signer's own record of what it signed, and the check that the log still extends it.

Pure Python, no Django: the log's engine, like ``merkle`` and ``note``.

Someone who can write to the database can change or delete log entries and move the head
back; a signer that signed whatever the database holds would then sign a second, different
tree of a size it signed before — a fork, which C2SP tlog-checkpoint forbids and which the
log exists to prevent. So the signer keeps, in a directory beside its key that only it
writes (``SignerState``), the last checkpoint it signed and the leaf hashes of that tree.
Before signing again it checks the database still holds that tree: a full check
(``log_examine``) re-hashes every leaf, compares them with its own copy and checks the RFC 9162
consistency proof from its last checkpoint to the new tree; a quick check (``log_examine_since``,
what an approval's pass costs) compares the stored hashes with its copy and re-hashes only the
new leaves. The new tree is made of the signer's own copy and the new leaves either way, so
what it signs always extends what it signed; the full check, at least once a minute and
whenever the quick one finds anything odd, is what finds a leaf changed behind its stored
hash. If anything differs it signs nothing and says which entries and how.

The record is written before anything signed is shown to anybody (witnesses, the database),
with ``fsync`` and an atomic rename, so a crash never leaves a signed checkpoint the signer
has forgotten. A lock file keeps two signer processes on one machine from interleaving.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import functools
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


#: Per directory, what this process last loaded or saved there: (state.json bytes, leaf-hashes bytes, the
#: record, its tree). Only the signer reads its record, once or more a second: the tree of a large log is
#: not rebuilt while the files are byte for byte the same.
_loaded: dict[Path, tuple[bytes, bytes, SignerRecord, Tree]] = {}


class SignerStateError(Exception):
    """The signer's own record is missing, unreadable or inconsistent; the message says what to do."""


@dataclass
class SignerRecord:
    """What the signer signed last, and what it told the world."""

    note: str  # the checkpoint exactly as signed (the log's signature only)
    leaf_hashes: list[bytes]  # the leaf hashes of that tree, in order
    published: str = ""  # the same checkpoint with the witnesses' cosignatures, as published
    witnesses: dict[str, int] = field(default_factory=dict)  # witness name -> size it cosigned last
    identity: str = ""  # the identity of the log it signed (kept with the log in its database too)

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint.parse(note_split(self.note)[0])

    @property
    def size(self) -> int:
        return len(self.leaf_hashes)

    @functools.cached_property
    def leaf_hex(self) -> list[str]:
        """The leaf hashes as the database stores them (lower-case hex), for the quick check."""
        return [hashed.hex() for hashed in self.leaf_hashes]

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
                        raise SignerStateError(
                            f"Another signer has held {self.directory / LOCK_FILE} for "
                            f"{timeout:.0f} s; is a second signer running?"
                        ) from None
                    time.sleep(0.05)
            yield
        finally:
            handle.close()

    def load(self) -> SignerRecord | None:
        """The record, or None if the signer never signed; SignerStateError if it is not sound."""
        return self.load_with_tree()[0]

    def load_with_tree(self) -> tuple[SignerRecord | None, Tree | None]:
        """The record and the tree of its leaf hashes (checked to make its checkpoint's root; never to be
        changed: copy it to extend it). A process that loaded the same files before gets them again
        without rebuilding the tree (the files are read and compared byte for byte every time)."""
        try:
            text = (self.directory / STATE_FILE).read_bytes()
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            raise SignerStateError(f"The signer's record {self.directory / STATE_FILE} cannot be read: {exc}") from None
        try:
            data = json.loads(text)
            note = data["note"]
            checkpoint = Checkpoint.parse(note_split(note)[0])
            with open(self.directory / HASHES_FILE, "rb") as handle:
                raw = handle.read(32 * checkpoint.size)
        except ValueError as exc:
            raise SignerStateError(f"The signer's record {self.directory / STATE_FILE} cannot be read: {exc}") from None
        except (KeyError, TypeError, NoteError, OSError) as exc:
            raise SignerStateError(f"The signer's record in {self.directory} is incomplete: {exc}") from None
        cached = _loaded.get(self.directory)
        if cached is not None and cached[0] == text and cached[1] == raw:
            return cached[2], cached[3]
        hashes = [raw[i : i + 32] for i in range(0, len(raw), 32)]
        tree = Tree(hashes)
        if len(hashes) != checkpoint.size or len(raw) % 32 or tree.root() != checkpoint.root:
            raise SignerStateError(
                f"The signer's leaf hashes in {self.directory} do not make the root of the "
                f"checkpoint it signed (size {checkpoint.size}); restore the directory from "
                "its backup (docs/transparency.md, 'The signer')."
            )
        record = SignerRecord(
            note,
            hashes,
            data.get("published") or note,
            dict(data.get("witnesses") or {}),
            str(data.get("identity") or ""),
        )
        _loaded[self.directory] = (text, raw, record, tree)
        return record, tree

    def save(self, record: SignerRecord, previous: SignerRecord | None, tree: Tree | None = None) -> None:
        """Write ``record`` durably: the new leaf hashes first (appended), then the state file by rename.
        ``tree`` (the tree of its leaf hashes, no longer to be changed) spares the next load rebuilding it."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        extends = previous is not None and record.leaf_hashes[: previous.size] == previous.leaf_hashes
        start = previous.size if extends else 0
        descriptor = os.open(self.directory / HASHES_FILE, os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.seek(32 * start)
            handle.write(b"".join(record.leaf_hashes[start:]))
            handle.flush()
            os.fsync(handle.fileno())
        text = self._write(
            STATE_FILE,
            {
                "note": record.note,
                "published": record.published,
                "witnesses": record.witnesses,
                "identity": record.identity,
            },
        )
        if tree is not None and tree.size == record.size:
            _loaded[self.directory] = (text, b"".join(record.leaf_hashes), record, tree)
        else:
            _loaded.pop(self.directory, None)

    def retire(self, identity: str) -> Path:
        """Set the record aside (into ``retired-<identity>/``, kept, never read again): it is another log's."""
        retired = self.directory / f"retired-{(identity or 'unknown')[:16]}-{int(time.time())}"
        retired.mkdir(mode=0o700)
        for name in (STATE_FILE, HASHES_FILE, ALARM_FILE):
            if (self.directory / name).exists():
                os.replace(self.directory / name, retired / name)
        _loaded.pop(self.directory, None)
        return retired

    def alarm(self) -> tuple[str, float]:
        """The damage last reported by mail ("" when none) and when (POSIX seconds)."""
        try:
            data = json.loads((self.directory / ALARM_FILE).read_text(encoding="utf-8"))
            return str(data["damage"]), float(data["at"])
        except (OSError, ValueError, KeyError, TypeError):
            return "", 0.0

    def alarm_save(self, damage: str, at: float) -> None:
        self._write(ALARM_FILE, {"damage": damage, "at": at})

    def _write(self, name: str, data: dict) -> bytes:
        """Replace ``name`` with ``data`` as JSON, durably (written, synced, renamed, directory synced)."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self.directory / (name + ".new")
        text = json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.directory / name)
        directory = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        return text


# --- the check ------------------------------------------------------------------------------------


@dataclass
class Examination:
    """The log as the database holds it now: the tree of its leaves (re-hashed, up to the first
    missing entry) and what keeps it from extending the signer's last checkpoint."""

    tree: Tree
    problems: list[str]
    head: int


def _named(indices: list[int], one: str, many: str) -> str:
    """ "entry 7 <one>" or "entries 3, 7 <many>", naming at most MAX_NAMED."""
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
        problems.append(
            _named(
                rehashed_wrong,
                "no longer hashes to the leaf hash stored beside it",
                "no longer hash to the leaf hashes stored beside them",
            )
            + " (a leaf was changed in the database)"
        )
    if record is not None:
        signed = record.size
        changed = [i for i in range(min(signed, tree.size)) if tree.levels[0][i] != record.leaf_hashes[i]]
        if changed:
            problems.append(
                _named(
                    changed,
                    "differs from the entry signed under that number",
                    "differ from the entries signed under those numbers",
                )
            )
        if head < signed:
            problems.append(
                f"the log table records {head} entries, fewer than the {signed} signed: "
                + _named(list(range(head, signed)), "is gone", "are gone")
            )
        elif tree.size < signed and missing_at is None:
            problems.append(f"only {tree.size} of the {signed} signed entries are in the log table")
        if not problems and not verify_consistency(
            signed, tree.size, record.checkpoint.root, tree.root(), tree.consistency_proof(signed, tree.size)
        ):
            problems.append(
                f"the tree of {tree.size} entries does not extend the signed tree of {signed} "
                "(the consistency proof fails)"
            )
    return Examination(tree, problems, head)


def log_examine_since(
    record: SignerRecord, tree: Tree, stored: list[tuple[int, str]], new_rows, head: int
) -> Examination | None:
    """The quick check: the tree ``record`` (its ``tree``) extended with the leaves added since, re-hashed, or
    None if anything is odd — ``stored`` ((index, stored leaf hash hex) of the signed entries, in order) is
    not exactly the record's hashes, or the new rows ((index, leaf bytes, stored hash hex), from the record's
    size to ``head``) are not numbered on from it or do not hash to their stored hashes. Then the full
    check (``log_examine``) says what is wrong.

    What it does not see is a signed leaf changed behind its unchanged stored hash; the tree it returns
    is built from the record's own hashes, so signing it never takes such a leaf in, and the full check
    finds it (docs/transparency.md, 'The signer')."""
    if head < record.size or len(stored) != record.size:
        return None
    if [index for index, _ in stored] != list(range(record.size)) or [h for _, h in stored] != record.leaf_hex:
        return None
    extended = tree.copy()
    for index, leaf, hashed_before in new_rows:
        if index != extended.size:
            return None
        hashed = leaf_hash(leaf)
        if hashed.hex() != hashed_before:
            return None
        extended.append(hashed)
    if extended.size != head:
        return None
    return Examination(extended, [], head)


def damage_sentence(record: SignerRecord | None, problems: list[str]) -> str:
    """One sentence for people: what was signed, and what the database holds now."""
    if record is None:
        return "The log table is damaged: " + "; ".join(problems) + "."
    return (
        f"The log no longer extends the checkpoint signed last ({record.described()}): "
        + "; ".join(problems)
        + ". Nothing is signed until it does; the last good checkpoint is served."
    )


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
