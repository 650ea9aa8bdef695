"""The log's signer: the one process that holds the key, signs only a log that extends what it signed.

One signer serves every app server. It runs as ``manage.py log_sign --watch`` (a service of
its own, as the user who owns the key and the signer's directory), looks at the log head every
``REGISTRY_LOG_SIGN_POLL`` seconds, and makes a pass (``log_sign``) when the log grew, when the
published row differs from what it published, or every ``CHECKPOINT_PERIOD`` seconds:

1. it checks the tree against its own record of the last checkpoint it signed and that tree's
   leaf hashes (``signer_state``: kept beside the key, out of the database's reach). The full
   check reads and re-hashes every entry — the RFC 9162 consistency proof from that checkpoint
   to the new tree must verify and no signed entry may differ — at least once a minute
   (``FULL_CHECK_PERIOD``), on a process's first pass, and whenever the quick check, which every
   other pass makes, finds anything odd: it reads only the stored hashes of the signed entries,
   which must be the record's, and re-hashes only the new leaves. Either way the tree it signs
   is its own copy extended with the new leaves, so it never signs a fork;
2. if it does not, it signs nothing: the last good checkpoint stays published, the reason goes
   into the ``LogSigned`` row (``/log/`` and the lookup's ``Registry-Log-Damage`` header show
   it), into the error log and, once per new finding and then daily, into a mail to the
   editors and ``REGISTRY_LOG_ALARM_EMAILS``; ``log_sign`` exits 1;
3. otherwise it signs the new checkpoint, records it (durably, before anyone sees it), asks each
   witness of ``REGISTRY_LOG_WITNESSES`` to cosign it with the consistency proof from the size
   that witness cosigned last (C2SP tlog-witness), and publishes the checkpoint with the
   cosignatures in the ``LogSigned`` row, which every web worker serves byte for byte.

In development and tests (``REGISTRY_LOG_SIGN_INLINE``) the process that appended runs the same
pass right after its transaction commits.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..logcore.cosignature import cosignatures_valid
from ..logcore.note import NoteError, checkpoint_open
from ..logcore.signer_state import (
    SignerRecord,
    SignerState,
    SignerStateError,
    checkpoint_due,
    checkpoint_text,
    damage_sentence,
    log_examine,
    log_examine_since,
)
from ..logcore.witness import WitnessAhead, WitnessRefused, witness_cosign
from .floor import first_record, log_witness_quorum, log_witnesses, witness_floor
from .models import LogEntry, LogHead, LogSigned
from .served import CHECKPOINT_PERIOD, log_damage, log_published, log_published_forget
from .tree import LogError, log_signer

logger = logging.getLogger("registry.transparency.signer")

#: A damage already reported by mail is reported again after this many seconds while it lasts.
ALARM_REPEAT_SECONDS = 24 * 3600
#: Every leaf is read and re-hashed at least this often (seconds); passes in between make the quick check.
FULL_CHECK_PERIOD = CHECKPOINT_PERIOD

#: When this process last made the full check, per signer directory (POSIX seconds of the pass's ``now``).
_full_checked: dict[str, float] = {}


@dataclass
class SignOutcome:
    """What one pass did: signed (a new checkpoint published), or found damage, or neither; ``full``: whether
    it read and re-hashed every leaf."""

    size: int
    signed: bool = False
    damage: str = ""
    full: bool = False
    cosigned_by: list[str] = field(default_factory=list)
    witness_problems: list[str] = field(default_factory=list)
    unpublished: str = ""  # why the signed checkpoint is not published (the witnesses' quorum not reached)
    new_log: str = ""  # development: the database holds a new log, and the record of the old one was set aside


def signer_state() -> SignerState:
    directory = settings.REGISTRY_LOG_STATE_DIR
    if not directory:
        raise LogError(
            "REGISTRY_LOG_STATE_DIR is not set: the signer keeps its record of what it signed in "
            "that directory, beside its key (docs/transparency.md, 'The signer')."
        )
    return SignerState(Path(directory))


def _read_log():
    """(head, rows) of the table: every entry below the head, in order, with its leaf as bytes."""
    with transaction.atomic():  # entries appended meanwhile are numbered from the head on: not read
        head = LogHead.objects.values_list("size", flat=True).first() or 0
        rows = (
            LogEntry.objects.filter(index__lt=head)
            .order_by("index")
            .values_list("index", "leaf", "leaf_hash")
            .iterator(chunk_size=2000)
        )
        return head, [(index, leaf.encode("utf-8"), stored) for index, leaf, stored in rows]


def _read_log_since(signed: int):
    """(head, stored, rows) for the quick check: the stored hashes of entries below ``signed``, and the
    entries from ``signed`` up to the head with their leaves."""
    with transaction.atomic():
        head = LogHead.objects.values_list("size", flat=True).first() or 0
        stored = list(
            LogEntry.objects.filter(index__lt=min(signed, head))
            .order_by("index")
            .values_list("index", "leaf_hash")
            .iterator(chunk_size=5000)
        )
        rows = (
            LogEntry.objects.filter(index__gte=signed, index__lt=head)
            .order_by("index")
            .values_list("index", "leaf", "leaf_hash")
        )
        return head, stored, [(index, leaf.encode("utf-8"), hashed) for index, leaf, hashed in rows]


def _log_identity() -> str:
    """The identity of the log the database holds; its head (and so its identity) is made if it has none."""
    head = LogHead.objects.filter(pk=1).values_list("identity", flat=True).first()
    if head is None:
        try:
            with transaction.atomic():
                LogHead.objects.create(pk=1, size=0)
        except IntegrityError:
            pass  # the first append made it a moment ago
        head = LogHead.objects.values_list("identity", flat=True).get(pk=1)
    return head


def log_sign(
    *, now: dt.datetime | None = None, adopt: str | None = None, full: bool | None = None, begin: bool = False
) -> SignOutcome:
    """One pass of the signer (see the module's docstring). ``adopt``: a checkpoint note signed with
    this key, taken as the last one signed when the signer's own record is lost. ``begin``: the first
    signing of a new log (refused when anyone knows a checkpoint of this origin). ``full``: read and
    re-hash every leaf (True), make the quick check first (False), or the full check when this process
    has not made one for ``FULL_CHECK_PERIOD`` seconds (None)."""
    signer = log_signer()
    state = signer_state()
    now = now or timezone.now()
    identity = _log_identity()
    new_log = ""
    with state.lock():
        record, record_tree = state.load_with_tree()
        if record is not None and record.checkpoint.origin != signer.name:
            raise SignerStateError(
                f"The signer's record in {state.directory} is for the log "
                f"{record.checkpoint.origin!r}, not {signer.name!r}: the key or the "
                "directory is the wrong one."
            )
        if record is not None and record.identity and record.identity != identity:
            if settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG:  # development: a new database is a new log
                retired = state.retire(record.identity)
                new_log = (
                    f"A new database: a new log begins (the signer's record of the previous database's log, "
                    f"{record.described()}, is kept in {retired})."
                )
                logger.warning("%s", new_log)
                record, record_tree = None, None
        key = str(state.directory)
        if new_log:
            _last_known.pop(key, None)
        elif (
            settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG
            and _last_known.get(key) is not None
            and _last_known[key].identity not in ("", identity)
        ):
            _last_known.pop(key)  # development: what it remembers is another database's log; a new log began
        elif (went_back := _went_back(key, record)) is not None:
            # The record went back under this running signer (an older copy restored into its directory,
            # the directory emptied or replaced): this process knows better, and puts it back.
            logger.warning("%s", went_back)
            known = _last_known[key]
            state.save(known, None)
            record, record_tree, full = known, None, True
        if record is not None and (adopt is not None or begin):
            raise SignerStateError(
                f"This signer has its record (the checkpoint it signed last: {record.described()}); "
                "--adopt and --begin are only for a signer that has none (docs/transparency.md, 'Lost record')."
            )
        first_pass = key not in _full_checked
        if full is None:
            full = now.timestamp() - _full_checked.get(key, -float("inf")) >= FULL_CHECK_PERIOD
        exam = None
        if record is not None and not full and not first_pass:
            head, stored, rows = _read_log_since(record.size)
            exam = log_examine_since(record, record_tree, stored, rows, head)
        if exam is None:  # the full check: asked for, due, or the quick one found something odd
            head, rows = _read_log()
            if record is None:
                record = first_record(signer, rows, adopt=adopt, begin=begin, identity=identity)
                if record is not None:
                    state.save(record, None)  # learned: from now on it is this signer's record
            elif first_pass and settings.REGISTRY_LOG_WITNESSES:
                floor = witness_floor(signer, record, rows)
                if floor is not record:
                    logger.warning(
                        "The signer's record (%s) is older than a witness's checkpoint (%s): the record was "
                        "restored from an older backup; signing on from the witness's.",
                        record.described(),
                        floor.described(),
                    )
                    state.save(floor, None)
                    record = floor
            exam = log_examine(record, rows, head)
            _full_checked[key] = now.timestamp()
            full = True
        if exam.problems:
            damage = damage_sentence(record, exam.problems)
            logger.error("The transparency log is damaged; nothing was signed. %s", damage)
            _publish(record.published if record and _quorate(record.published) else None, damage, now)
            _alarm(state, damage, now)
            _remember(key, record)
            return SignOutcome(record.size if record else 0, damage=damage, full=full, new_log=new_log)
        if (
            record is not None
            and _signed_by(record.note, signer)
            and not checkpoint_due(record, exam.tree, now, CHECKPOINT_PERIOD)
        ):
            outcome = SignOutcome(record.size, full=full, new_log=new_log)
            if not _quorate(record.published):  # the witnesses did not all answer last time: ask again
                _cosign(state, record, exam.tree, outcome)
            if _quorate(record.published) and _row() != (record.published, ""):
                _publish(record.published, "", now)  # the row was changed or rolled back: put it right
            if record.identity != identity:
                record.identity = identity
                state.save(record, record, exam.tree)
            _remember(key, record)
            return outcome
        note = signer.sign(checkpoint_text(signer.name, exam.tree, now))
        witnessed = dict(record.witnesses) if record else {}
        signed = SignerRecord(note, list(exam.tree.levels[0]), note, witnessed, identity)
        state.save(signed, record, exam.tree)  # remembered before anybody sees it
        _remember(key, signed)
        outcome = SignOutcome(signed.size, signed=True, full=full, new_log=new_log)
        if _cosign(state, signed, exam.tree, outcome):
            _publish(signed.published, "", now)
        if state.alarm()[0]:
            state.alarm_save("", now.timestamp())
            logger.warning("The transparency log extends the last checkpoint again; signing resumed.")
        return outcome


#: The record this process last read or wrote, per record directory. A signer's record never goes
#: back; one that does under a running signer (an older copy restored into the directory, the
#: directory emptied or replaced) would let it sign a second tree of a size it signed before: the
#: running signer puts back what it knows instead (``log_sign``).
_last_known: dict[str, SignerRecord] = {}


def signer_memory_clear() -> None:
    """Forget what this process learnt in its earlier passes, as a signer process started now knows
    nothing of them (the tests' restarted signer)."""
    _full_checked.clear()
    _last_known.clear()


def _remember(key: str, record: SignerRecord | None) -> None:
    if record is not None:
        _last_known[key] = record


def _went_back(key: str, record: SignerRecord | None) -> str | None:
    """Why ``record`` (as read now) is behind what this process knew, or None."""
    known = _last_known.get(key)
    if known is None:
        return None
    if record is None:
        now = "is gone"
    elif record.size < known.size or record.leaf_hashes[: known.size] != known.leaf_hashes:
        now = f"went back to {record.described()}" if record.size <= known.size else "was replaced by another"
    else:
        return None
    return (
        f"The signer's record in {key} {now} while the signer ran; it had signed {known.described()}. "
        "The running signer puts back its record as it knows it and signs on from there, never a second "
        "tree of a size it signed before (docs/transparency.md, 'Lost record')."
    )


def _quorate(published: str) -> bool:
    """Whether ``published`` carries the cosignatures of the configured quorum of witnesses."""
    quorum = log_witness_quorum()
    if not quorum:
        return True
    try:
        return len(cosignatures_valid(published, [w.key for w in log_witnesses()])) >= quorum
    except NoteError:
        return False


def _cosign(state: SignerState, signed: SignerRecord, tree, outcome: SignOutcome) -> bool:
    """Ask every witness that has not cosigned ``signed`` yet, with the consistency proof from the size it
    cosigned last (C2SP tlog-witness); keep their cosignatures in the record. True once the quorum holds:
    only then is the checkpoint published, so a checkpoint (a fork) the witnesses refuse is never published.

    A witness that holds a later checkpoint than this one (it answers 409 with a larger size) shows that
    the record is older than what was signed: the next pass is a first pass again, which takes the
    witness's checkpoint as the floor if the table extends it (``floor.witness_floor``)."""
    witnesses = log_witnesses()
    try:
        already = cosignatures_valid(signed.published, [w.key for w in witnesses])
    except NoteError:
        already, signed.published = {}, signed.note
    lines = []
    for endpoint in witnesses:
        if endpoint.name in already:
            continue

        def proof_from(old, tree=tree):
            return tree.consistency_proof(old, tree.size) if old <= tree.size else None

        try:
            line, size = witness_cosign(
                endpoint,
                signed.note,
                signed.witnesses.get(endpoint.name, 0),
                proof_from,
                settings.REGISTRY_LOG_WITNESS_TIMEOUT,
            )
        except WitnessAhead as exc:
            logger.error("%s; the signer looks at its witnesses again before signing anything else.", exc)
            _full_checked.pop(str(state.directory), None)
            outcome.witness_problems.append(str(exc))
            continue
        except (WitnessRefused, NoteError) as exc:
            logger.warning("Witness %s did not cosign the checkpoint of size %d: %s", endpoint.name, signed.size, exc)
            outcome.witness_problems.append(str(exc))
            continue
        signed.witnesses[endpoint.name] = size
        lines.append(line)
        outcome.cosigned_by.append(endpoint.name)
    if lines:
        signed.published = signed.published + "".join(lines)
        state.save(signed, signed, tree)
    if _quorate(signed.published):
        return True
    got = len(cosignatures_valid(signed.published, [w.key for w in witnesses]))
    outcome.unpublished = (
        f"The checkpoint of size {signed.size} is not published: it carries {got} of the "
        f"{log_witness_quorum()} witnesses' cosignatures required (REGISTRY_LOG_WITNESS_QUORUM); the last "
        "witnessed checkpoint stays published"
    )
    logger.error("%s.", outcome.unpublished)
    return False


def _signed_by(note: str, signer) -> bool:
    """Whether ``signer``'s key signed ``note`` (after a key rotation the same tree is signed again)."""
    try:
        checkpoint_open(note, signer.verifier())
    except NoteError:
        return False
    return True


def _row() -> tuple[str, str] | None:
    return LogSigned.objects.filter(pk=1).values_list("note", "damage").first()


def _publish(note: str | None, damage: str, now: dt.datetime) -> None:
    """Write the row the web workers serve (the note only if there is one)."""
    values = {"damage": damage, "checked_at": now}
    if note:
        checkpoint = checkpoint_open(note, log_signer().verifier())
        values.update(note=note, size=checkpoint.size, signed_at=checkpoint.time)
    LogSigned.objects.update_or_create(pk=1, defaults=values)
    log_published_forget()


def _alarm(state: SignerState, damage: str, now: dt.datetime) -> None:
    """Mail the editors, ADMINS and REGISTRY_LOG_ALARM_EMAILS once per new finding, then daily while it lasts."""
    last, at = state.alarm()
    if last == damage and now.timestamp() - at < ALARM_REPEAT_SECONDS:
        return
    from .. import notify

    admins = {address for _, address in getattr(settings, "ADMINS", [])}
    recipients = sorted(set(settings.REGISTRY_LOG_ALARM_EMAILS) | admins | set(notify.editors_emails()))
    notify.now(
        "log_damage",
        recipients,
        {"damage": damage, "repeated": last == damage, "checked_at": now, "origin": log_signer().name},
    )
    state.alarm_save(damage, now.timestamp())


def log_sign_watch(poll: float, stop=lambda: False, passes=None) -> None:
    """``log_sign --watch``: a pass at start, then whenever the head or the row changes, or the period
    has passed; every leaf is read and re-hashed at the start and then at least every
    ``FULL_CHECK_PERIOD`` seconds. Errors of one pass are logged and tried again; ``stop()`` ends the loop."""
    from django.db import close_old_connections

    def looked() -> tuple:
        return LogHead.objects.values_list("size", flat=True).first(), _row()

    last_pass, last_full, seen = -float("inf"), -float("inf"), None
    while not stop():
        close_old_connections()
        try:
            current = looked()
            full = time.monotonic() - last_full >= FULL_CHECK_PERIOD
            if current != seen or full or time.monotonic() - last_pass >= CHECKPOINT_PERIOD:
                last_pass, seen = time.monotonic(), current
                outcome = log_sign(full=full)
                if outcome.full:
                    last_full = last_pass
                seen = looked()
                if passes is not None:
                    passes(outcome)
        except (LogError, SignerStateError) as exc:  # tried again when something changes, or after the period
            logger.error("The log's signer cannot sign: %s", exc)
        except Exception:  # noqa: BLE001 - a database restart must not end the signer; it tries again
            logger.exception("The log's signer failed; trying again")
            seen = None
        time.sleep(poll)


# --- what commands that write to the log check first ----------------------------------------------


def _extends_signed(tree, record_or_none) -> list[str]:
    """Why ``tree`` does not extend the published checkpoint or this machine's signer record."""
    problems = []
    published = log_published()
    if published is not None:
        signed = published.checkpoint
        if tree.size < signed.size or tree.root(signed.size) != signed.root:
            problems.append(f"it does not extend the checkpoint published last (size {signed.size})")
    if record_or_none is not None:
        signed = record_or_none.checkpoint
        if tree.size < signed.size or tree.root(signed.size) != signed.root:
            problems.append(f"it does not extend the checkpoint this signer signed last ({record_or_none.described()})")
    return problems


def _local_record() -> SignerRecord | None:
    """The signer's record, when this machine holds it (the signer's own, or development)."""
    directory = settings.REGISTRY_LOG_STATE_DIR
    if not directory or not Path(directory).is_dir():
        return None
    try:
        record = SignerState(Path(directory)).load()
    except SignerStateError:
        return None
    if record is not None and settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG and record.identity:
        identity = LogHead.objects.values_list("identity", flat=True).first()
        if identity is not None and identity != record.identity:
            return None  # development: another database's log (the signer's next pass sets it aside)
    return record


def log_damage_thorough() -> str | None:
    """``log_damage``, and every leaf re-hashed against what was signed (for commands about to write)."""
    damage = log_damage()
    if damage:
        return damage
    head, rows = _read_log()
    record = _local_record()
    exam = log_examine(record, rows, head)
    problems = exam.problems or _extends_signed(exam.tree, None)
    return damage_sentence(record, problems) if problems else None


def log_replacement_problem(rows, head: int) -> str | None:
    """Why a log of ``rows`` ((index, leaf bytes, stored hash hex)) and ``head`` — a backup's — may not
    replace the one in the database: it is damaged itself, or it does not extend what was signed."""
    exam = log_examine(None, rows, head)
    problems = exam.problems or _extends_signed(exam.tree, _local_record())
    if not problems:
        return None
    return (
        "The backup's transparency log cannot replace this one: " + "; ".join(problems) + ". Restoring it "
        "would take back or renumber entries that were signed, which mirrors and witnesses hold (a fork); "
        "restore a backup made after the last checkpoint (docs/transparency.md, 'When the log is damaged')."
    )
