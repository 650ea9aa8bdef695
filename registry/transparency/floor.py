"""Where the signer learns the last checkpoint it signed when its own record cannot tell it.

The signer's record (``signer_state``) is its floor: it signs only a log that extends it. A signer
without its record (a new disk, a restore without the directory) must not take the database's word
for what it signed — the database is what the log exists to check — so it learns the floor from
somewhere the database cannot rewrite:

- its witnesses (``REGISTRY_LOG_WITNESSES``): each serves the last checkpoint it cosigned for the
  log (C2SP tlog-witness's monitoring endpoint, ``witness_latest``; ``python -m registry.witness
  latest`` prints it by hand); every one of them must answer, since one that is not asked could
  hold a later checkpoint;
- a checkpoint given with ``manage.py log_sign --adopt FILE`` (from a mirror's copy, a witness, the
  backup of the record), never older than one a witness holds.

The table must extend what it learns, or nothing is signed. If nothing knows a checkpoint of this
origin, the log has never been signed: its first signing is an explicit step (``log_sign --begin``,
refused when a witness or the published row already knows a checkpoint of the origin), except where
a new database is a new log (development, ``REGISTRY_LOG_NEW_DATABASE_NEW_LOG``). The same look at
the witnesses, on a signer process's first pass, finds a record older than what was signed (a record
restored from an old backup): a witness holding a later checkpoint that the table extends becomes the
floor.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

from ..logcore.cosignature import CosignatureVerifier
from ..logcore.merkle import Tree, leaf_hash
from ..logcore.note import Checkpoint, NoteError, checkpoint_open, note_split
from ..logcore.signer_state import SignerRecord, SignerStateError
from ..logcore.witness import WitnessEndpoint, WitnessRefused, witness_latest
from .models import LogSigned
from .tree import LogError

logger = logging.getLogger("registry.transparency.signer")


@dataclass(frozen=True)
class Known:
    """A checkpoint of this log that someone outside the database holds: who, what, the note."""

    holder: str
    checkpoint: Checkpoint
    note: str


def log_witnesses() -> list[WitnessEndpoint]:
    try:
        return [WitnessEndpoint(CosignatureVerifier.parse(w["key"]), w["url"]) for w in settings.REGISTRY_LOG_WITNESSES]
    except NoteError as exc:
        raise LogError(f"REGISTRY_LOG_WITNESSES holds a key that is not a witness key: {exc}") from None


def log_witness_quorum() -> int:
    """How many witnesses must cosign a checkpoint before it is published (all of them unless set)."""
    configured = settings.REGISTRY_LOG_WITNESS_QUORUM
    count = len(settings.REGISTRY_LOG_WITNESSES)
    return count if configured is None else min(configured, count)


def witnesses_known(signer, *, every: bool = True) -> list[Known]:
    """Each witness's last cosigned checkpoint of this log (signed with this key). SignerStateError if one
    cannot be read, or serves a checkpoint of this origin that this key did not sign (``every``; else
    those are logged and left out)."""
    known, unread = [], []
    for endpoint in log_witnesses():
        try:
            note = witness_latest(endpoint, signer.name, settings.REGISTRY_LOG_WITNESS_TIMEOUT)
        except WitnessRefused as exc:
            unread.append(str(exc))
            continue
        if note is None:
            continue
        try:
            known.append(Known(f"witness {endpoint.name}", checkpoint_open(note, signer.verifier()), note))
        except NoteError as exc:
            unread.append(f"{endpoint.name} serves a checkpoint this key did not sign ({exc})")
    if unread and not every:
        logger.warning("The signer could not read every witness's latest checkpoint: %s", "; ".join(unread))
    elif unread:
        raise SignerStateError(
            "The signer cannot tell the last checkpoint it signed from its witnesses: "
            + "; ".join(unread)
            + ". Nothing is signed until every witness answers (one not asked could hold a later checkpoint)."
        )
    return known


def record_from(known: Known, rows, identity: str) -> SignerRecord:
    """A record of ``known`` built from the table's leaves (``rows``: (index, leaf bytes, stored hash hex)),
    which must make its tree; SignerStateError naming who holds it otherwise."""
    checkpoint = known.checkpoint
    hashes = [leaf_hash(leaf) for _, leaf, _ in rows[: checkpoint.size]]
    if len(hashes) < checkpoint.size or Tree(hashes).root() != checkpoint.root:
        raise SignerStateError(
            f"The log table does not hold the tree of the checkpoint of size {checkpoint.size} that "
            f"{known.holder} holds: the log no longer extends what was signed (entries were changed or "
            "deleted). Nothing is signed; repair the log (docs/transparency.md, 'When the log is damaged')."
        )
    text = note_split(known.note)[0]
    own = [
        line
        for line in known.note[len(text) + 1 :].splitlines(keepends=True)
        if line.startswith(f"\u2014 {checkpoint.origin} ")
    ]
    return SignerRecord(f"{text}\n" + "".join(own), hashes, known.note, {}, identity)


def _published_known(signer) -> Checkpoint | None:
    """The checkpoint of this origin the published row holds, if any (signed with whichever key)."""
    note = LogSigned.objects.filter(pk=1).values_list("note", flat=True).first()
    if not note:
        return None
    try:
        checkpoint = Checkpoint.parse(note_split(note)[0])
    except NoteError:
        return None
    return checkpoint if checkpoint.origin == signer.name else None


def first_record(signer, rows, *, adopt: str | None, begin: bool, identity: str) -> SignerRecord | None:
    """The record a signer without one starts from (None: the log begins now), or SignerStateError."""
    known = witnesses_known(signer)
    published = _published_known(signer)
    if begin and (known or published):
        holder = known[0].holder if known else "the published row"
        size = known[0].checkpoint.size if known else published.size
        raise SignerStateError(
            f"This log has begun already: {holder} holds a checkpoint of size {size} of {signer.name}. "
            "A first signing would sign a second log under the same origin; restore the signer's record, "
            "or adopt the latest checkpoint (docs/transparency.md, 'Lost record')."
        )
    if adopt is not None:
        try:
            adopted = Known("the checkpoint to adopt", checkpoint_open(adopt, signer.verifier()), adopt)
        except NoteError as exc:
            raise SignerStateError(f"The checkpoint to adopt is not one this key signed: {exc}") from None
        later = [k for k in known if k.checkpoint.size > adopted.checkpoint.size]
        if later:
            raise SignerStateError(
                f"{later[0].holder} holds a checkpoint of size {later[0].checkpoint.size}, later than the one "
                f"to adopt (size {adopted.checkpoint.size}): adopt the latest one."
            )
        known.append(adopted)
    if known:
        for other in known:
            record_from(other, rows, identity)  # the table extends every one of them
        return record_from(max(known, key=lambda k: k.checkpoint.size), rows, identity)
    if published is not None:
        raise SignerStateError(
            f"This signer has no record of what it signed ({settings.REGISTRY_LOG_STATE_DIR} is empty), but "
            f"the database holds a checkpoint of size {published.size} of this log, and no witness holds one. "
            "Restore the directory from its backup; if it is lost, compare /log/checkpoint with a mirror's "
            "copy and run `manage.py log_sign --adopt FILE` with the latest checkpoint (docs/transparency.md, "
            "'Lost record')."
        )
    if begin or settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG:
        return None
    raise SignerStateError(
        f"This signer has no record of what it signed ({settings.REGISTRY_LOG_STATE_DIR} is empty), and "
        f"neither its witnesses nor the database know a checkpoint of {signer.name}. If this is the first "
        "signing of a new log, run `manage.py log_sign --begin` once; if the log was signed before, restore "
        "the signer's directory or adopt its latest checkpoint (docs/transparency.md, 'Lost record')."
    )


def witness_floor(signer, record: SignerRecord, rows) -> SignerRecord:
    """A signer process's first pass, with witnesses: if one holds a later checkpoint than ``record`` (a
    record restored from an old backup), that checkpoint is the floor, when the table extends it."""
    known = witnesses_known(signer, every=False)
    tree = Tree(record.leaf_hashes)
    for other in known:
        if other.checkpoint.size <= record.size and tree.root(other.checkpoint.size) != other.checkpoint.root:
            raise SignerStateError(
                f"The signer's record ({record.described()}) does not extend the checkpoint of size "
                f"{other.checkpoint.size} that {other.holder} cosigned: the record is not the one of the "
                "checkpoints this log published (a record restored from an old backup that then signed on). "
                "Nothing is signed; restore the latest record, or adopt the witness's checkpoint with "
                "`manage.py log_sign --adopt` in an empty record directory (docs/transparency.md, 'Lost record')."
            )
    later = [k for k in known if k.checkpoint.size > record.size]
    if not later:
        return record
    latest = max(later, key=lambda k: k.checkpoint.size)
    floor = record_from(latest, rows, record.identity)
    floor.witnesses = dict(record.witnesses)
    return floor
