"""C2SP tlog-cosignature (Ed25519, ``cosignature/v1``): witnesses' signatures on the log's checkpoints.

Pure Python with ``cryptography``, no Django: the witness (``python -m registry.witness``), the
site's signer and the verifier all use it.

A cosignature is a signed-note signature line ``— <witness name> base64(key id || timestamp ||
signature)`` added to the checkpoint. The key id is SHA-256(name || "\\n" || 0x04 || public
key)[:4]; the timestamp is 8 bytes, big-endian POSIX seconds; the Ed25519 signature covers

    cosignature/v1
    time <timestamp>
    <the checkpoint's text, extension lines included>

and states that, at that time, this is the largest tree the witness has seen for the log and
that it is consistent with every earlier one it saw. A witness's public key is written like a
log's, ``<name>+<key id>+base64(0x04 || public key)``; its private key
``PRIVATE+KEY+<name>+<key id>+base64(0x04 || seed)``.

``cosignature_check`` says whether one witness validly cosigned a note, and if not why (the
verifier's ``--witness`` reports it); ``cosignatures_valid`` and ``checkpoint_witnessed`` are
what the signer, the witness client and any reader call: the log's signature, then at least
``quorum`` valid cosignatures from the witnesses it trusts. This is the one implementation:
the site, the witness and the verifier (``registry.verify``) all use it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import time
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from .note import SIGNATURE_PREFIX, Checkpoint, NoteError, Verifier, checkpoint_open, note_split

ALG_COSIGNATURE_V1 = 0x04
HEADER = b"cosignature/v1\n"
MAX_TIMESTAMP = 2**63 - 1
#: A cosignature dated further ahead than this is refused (tlog-cosignature lets verifiers refuse future times).
FUTURE_SLACK_SECONDS = 600


def _name_ok(name: str) -> bool:
    return bool(name) and name.isprintable() and not any(c.isspace() or c == "+" for c in name)


def cosigner_key_id(name: str, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([ALG_COSIGNATURE_V1]) + public).digest()[:4]


def cosignature_message(checkpoint_text: str, timestamp: int) -> bytes:
    """The bytes a witness signs: the header line, the time line, then the checkpoint's text."""
    return HEADER + f"time {timestamp}\n".encode() + checkpoint_text.encode()


@dataclass(frozen=True)
class CosignatureVerifier:
    """A witness's public key: checks its cosignatures."""

    name: str
    key_id: bytes
    public: bytes

    @classmethod
    def parse(cls, text: str) -> CosignatureVerifier:
        """A witness's C2SP vkey ``name+<key id>+base64(0x04 || public key)``; NoteError saying what is wrong."""
        parts = text.strip().split("+", 2)
        if len(parts) != 3:
            raise NoteError(
                f"{text.strip()[:80]!r} is not a witness key: name+keyid+base64 key (C2SP signed-note "
                "vkey, signature type 0x04)."
            )
        name, hex_id, encoded = parts
        if not _name_ok(name):
            raise NoteError(f"{name[:80]!r} is not a valid witness name (no spaces or '+').")
        try:
            if not re.fullmatch(r"[0-9a-fA-F]{8}", hex_id):
                raise ValueError
            raw, wanted = base64.b64decode(encoded, validate=True), bytes.fromhex(hex_id)
        except (binascii.Error, ValueError):
            raise NoteError(f"The witness key {name!r}: its id or key is not valid hex/base64.") from None
        if len(raw) != 33 or raw[0] != ALG_COSIGNATURE_V1:
            kind = f"of signature type 0x{raw[0]:02x}" if raw else "empty"
            raise NoteError(
                f"The witness key {name!r} is {kind}, not an Ed25519 cosigner key (type 0x04, C2SP "
                "tlog-cosignature/v1)."
            )
        if cosigner_key_id(name, raw[1:]) != wanted:
            raise NoteError(f"The witness key {name!r}: its id {hex_id} does not match its name and key.")
        return cls(name, wanted, raw[1:])

    def __str__(self) -> str:
        key = base64.b64encode(bytes([ALG_COSIGNATURE_V1]) + self.public).decode()
        return f"{self.name}+{self.key_id.hex()}+{key}"

    def verify(self, checkpoint_text: str, payload: bytes) -> int | None:
        """The cosignature's timestamp if ``payload`` (what follows the key id) is this witness's
        valid cosignature of ``checkpoint_text``, else None."""
        if len(payload) != 8 + 64:
            return None
        timestamp = int.from_bytes(payload[:8], "big")
        if timestamp > MAX_TIMESTAMP:
            return None
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(
                payload[8:], cosignature_message(checkpoint_text, timestamp)
            )
        except InvalidSignature:
            return None
        return timestamp


@dataclass(frozen=True)
class Cosigner:
    """A witness's private key."""

    name: str
    seed: bytes

    @classmethod
    def generate(cls, name: str) -> Cosigner:
        if not _name_ok(name):
            raise NoteError(f"{name!r} is not a valid witness name: no spaces or '+' (e.g. witness.example.org/w1).")
        private = Ed25519PrivateKey.generate()
        return cls(name, private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()))

    @classmethod
    def parse(cls, text: str) -> Cosigner:
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("A witness's private key reads PRIVATE+KEY+name+keyid+base64 key.")
        _, _, name, hex_id, encoded = parts
        try:
            raw = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            raise NoteError("The witness's private key is not valid base64.") from None
        if not _name_ok(name) or len(raw) != 33 or raw[0] != ALG_COSIGNATURE_V1:
            raise NoteError("The witness's private key is not an Ed25519 cosignature/v1 key with a valid name.")
        cosigner = cls(name, raw[1:])
        if cosigner.verifier().key_id.hex() != hex_id.lower():
            raise NoteError(f"The witness's private key id {hex_id} does not match its key.")
        return cosigner

    def __str__(self) -> str:
        key = base64.b64encode(bytes([ALG_COSIGNATURE_V1]) + self.seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier().key_id.hex()}+{key}"

    def verifier(self) -> CosignatureVerifier:
        public = (
            Ed25519PrivateKey.from_private_bytes(self.seed).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        )
        return CosignatureVerifier(self.name, cosigner_key_id(self.name, public), public)

    def cosign(self, checkpoint_text: str, timestamp: int) -> str:
        """The signature line (ending in a newline) cosigning ``checkpoint_text`` at ``timestamp``."""
        if not 0 < timestamp <= MAX_TIMESTAMP:
            raise NoteError("A cosignature's timestamp is a positive number of seconds.")
        signature = Ed25519PrivateKey.from_private_bytes(self.seed).sign(
            cosignature_message(checkpoint_text, timestamp)
        )
        payload = self.verifier().key_id + timestamp.to_bytes(8, "big") + signature
        return f"{SIGNATURE_PREFIX}{self.name} {base64.b64encode(payload).decode()}\n"


@dataclass(frozen=True)
class _Line:
    """One signature line of a witness's key, judged: its time if valid, else why not, and whether it is
    a bad signature (a forged or altered line) rather than one dated in the future."""

    timestamp: int | None
    why: str = ""
    forged: bool = False


def _line_checked(witness: CosignatureVerifier, text: str, payload: bytes, now: float) -> _Line:
    if len(payload) != 8 + 64:
        return _Line(
            None,
            f"the cosignature by {witness.name} is {len(payload) + 4} bytes, not 76 (key id, time, Ed25519 signature)",
            forged=True,
        )
    timestamp = witness.verify(text, payload)
    if timestamp is None:
        return _Line(
            None,
            f"the cosignature by {witness.name} does not verify: the checkpoint or its time was changed",
            forged=True,
        )
    if timestamp > now + FUTURE_SLACK_SECONDS:
        return _Line(None, f"the cosignature by {witness.name} is dated {int(timestamp - now)} s in the future")
    return _Line(timestamp)


def _lines_of(note: str, witness: CosignatureVerifier, now: float | None) -> list[_Line]:
    """Every line of ``note`` under ``witness``'s name and key id, judged (lines of other keys are not read)."""
    now = time.time() if now is None else now
    text, lines = note_split(note)
    return [
        _line_checked(witness, text, raw[4:], now)
        for name, raw in lines
        if name == witness.name and raw[:4] == witness.key_id
    ]


def cosignature_check(note: str, witness: CosignatureVerifier, now: float | None = None) -> tuple[int | None, str]:
    """(the time of ``witness``'s valid cosignature of ``note``, "") or (None, why not: none by that key, one
    that does not verify, one dated in the future)."""
    judged = _lines_of(note, witness, now)
    valid = [line.timestamp for line in judged if line.timestamp is not None]
    if valid:
        return max(valid), ""
    return None, (judged[-1].why if judged else f"no cosignature by {witness.name}+{witness.key_id.hex()}")


def cosignatures_valid(note: str, witnesses: list[CosignatureVerifier], now: float | None = None) -> dict[str, int]:
    """Which of ``witnesses`` cosigned ``note``: their names with the cosignature's timestamp.

    Lines of other keys are ignored (signed-note); a line that names one of ``witnesses`` (name
    and key id) but does not verify makes the note malformed: NoteError, as Go's note package does.
    A cosignature dated in the future is not counted.
    """
    found: dict[str, int] = {}
    for witness in witnesses:
        judged = _lines_of(note, witness, now)
        if any(line.forged for line in judged):
            raise NoteError(
                f"The cosignature of witness {witness.name!r} (key {witness.key_id.hex()}) does not "
                "verify: the checkpoint was changed after it was cosigned, or the line is forged."
            )
        valid = [line.timestamp for line in judged if line.timestamp is not None]
        if valid:
            found[witness.name] = max(valid)
    return found


def checkpoint_witnessed(
    note: str, log: Verifier, witnesses: list[CosignatureVerifier], quorum: int, origin: str | None = None
) -> tuple[Checkpoint, dict[str, int]]:
    """The checkpoint of ``note`` if the log signed it and at least ``quorum`` of ``witnesses``
    cosigned it (with the names and timestamps of those that did); NoteError saying what is
    missing otherwise."""
    if quorum > len(witnesses):
        raise NoteError(f"A quorum of {quorum} needs at least {quorum} witness keys; {len(witnesses)} given.")
    checkpoint = checkpoint_open(note, log, origin)
    found = cosignatures_valid(note, witnesses)
    if len(found) < quorum:
        missing = [w.name for w in witnesses if w.name not in found]
        raise NoteError(
            f"The checkpoint carries {len(found)} valid cosignature{'s' if len(found) != 1 else ''} "
            f"of the {quorum} required (none from {', '.join(missing)})."
        )
    return checkpoint, found
