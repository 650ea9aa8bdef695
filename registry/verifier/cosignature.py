"""Witness cosignatures on a checkpoint (C2SP tlog-cosignature, ``cosignature/v1``, Ed25519).

A witness's key is a C2SP signed-note verifier key of signature type 0x04:
``<name>+<hex key id>+<base64(0x04 || 32-byte Ed25519 public key)>``, its key id the first
four bytes of SHA-256(name || "\\n" || 0x04 || public key). Its cosignature is a note
signature line ``— <name> base64(key id || timestamp (8 bytes, big endian) || signature)``
where the signature is over ``"cosignature/v1\\ntime <timestamp>\\n"`` followed by the
checkpoint's text. One small function per step, so another implementation can replace
``cosignature_check`` alone.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import time
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ..transparency.note import SIGNATURE_PREFIX, NoteError

COSIGNATURE_V1 = 0x04
#: A cosignature dated further ahead than this is refused (the spec lets verifiers refuse future times).
FUTURE_SLACK_SECONDS = 600


@dataclass(frozen=True)
class WitnessKey:
    name: str
    key_id: bytes
    public: bytes

    @classmethod
    def parse(cls, text: str) -> WitnessKey:
        parts = text.strip().split("+", 2)
        if len(parts) != 3 or not parts[0] or any(c.isspace() for c in parts[0]):
            raise NoteError(f"{text[:80]!r} is not a witness key: name+keyid+base64 key (C2SP signed-note vkey).")
        name, hex_id, encoded = parts
        try:
            if not re.fullmatch(r"[0-9a-fA-F]{8}", hex_id):
                raise ValueError
            raw, wanted = base64.b64decode(encoded, validate=True), bytes.fromhex(hex_id)
        except (binascii.Error, ValueError):
            raise NoteError(f"The witness key {name!r}: its id or key is not valid hex/base64.") from None
        if len(raw) != 33 or raw[0] != COSIGNATURE_V1:
            kind = f"of signature type 0x{raw[0]:02x}" if raw else "empty"
            raise NoteError(f"The witness key {name!r} is {kind}, not an Ed25519 cosigner key (type 0x04, "
                            "C2SP tlog-cosignature).")
        if _key_id(name, raw[1:]) != wanted:
            raise NoteError(f"The witness key {name!r}: its id {hex_id} does not match its name and key.")
        return cls(name, wanted, raw[1:])

    def __str__(self) -> str:
        return (f"{self.name}+{self.key_id.hex()}+"
                f"{base64.b64encode(bytes([COSIGNATURE_V1]) + self.public).decode()}")


def _key_id(name: str, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([COSIGNATURE_V1]) + public).digest()[:4]


def cosigned_message(text: str, timestamp: int) -> bytes:
    """What a cosigner signs: the header line, the time line, then the checkpoint's text (its final newline too)."""
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def signature_lines(note: str) -> list[tuple[str, bytes]]:
    """The (name, decoded signature) of each signature line of a signed note (lines not base64 are skipped)."""
    _, _, signatures = note.rpartition("\n\n")
    out = []
    for line in signatures.split("\n"):
        if not line.startswith(SIGNATURE_PREFIX):
            continue
        name, _, encoded = line[len(SIGNATURE_PREFIX):].partition(" ")
        try:
            out.append((name, base64.b64decode(encoded, validate=True)))
        except binascii.Error:
            continue
    return out


def cosignature_check(note: str, text: str, witness: WitnessKey, now: float | None = None) -> tuple[int | None, str]:
    """(the cosignature's time, "") if ``witness`` validly cosigned the checkpoint ``text`` in ``note``,
    else (None, why not)."""
    now = time.time() if now is None else now
    found = [raw for name, raw in signature_lines(note) if name == witness.name and raw[:4] == witness.key_id]
    if not found:
        return None, f"no cosignature by {witness.name}+{witness.key_id.hex()}"
    why = ""
    for raw in found:
        if len(raw) != 4 + 8 + 64:
            why = f"the cosignature by {witness.name} is {len(raw)} bytes, not 76 (key id, time, Ed25519 signature)"
            continue
        timestamp = int.from_bytes(raw[4:12], "big")
        if timestamp >= 1 << 63:
            why = f"the cosignature by {witness.name} has a time beyond 2^63-1"
            continue
        try:
            Ed25519PublicKey.from_public_bytes(witness.public).verify(raw[12:], cosigned_message(text, timestamp))
        except InvalidSignature:
            why = f"the cosignature by {witness.name} does not verify: the checkpoint or its time was changed"
            continue
        if timestamp > now + FUTURE_SLACK_SECONDS:
            why = f"the cosignature by {witness.name} is dated {int(timestamp - now)} s in the future"
            continue
        return timestamp, ""
    return None, why
