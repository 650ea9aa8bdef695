"""C2SP signed notes (Ed25519) and tlog checkpoints, as Go's ``golang.org/x/mod/sumdb/note`` reads them.

Pure Python with ``cryptography``; no Django, so the verifier runs anywhere.

A signer key is ``PRIVATE+KEY+<name>+<key id>+<base64(0x01 || seed)>`` and its verifier
key ``<name>+<key id>+<base64(0x01 || public key)>``; the key id is the first four bytes
of SHA-256(name || "\\n" || 0x01 || public key), in hex. A note is its text (ending in a
newline), a blank line, then one line per signature: "— <name> <base64(key id || sig)>".
A checkpoint (C2SP tlog-checkpoint) is a note whose text is the log's origin, the tree
size in decimal and the base64 root hash, one per line.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import re
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ALG_ED25519 = 1
SIGNATURE_PREFIX = "\u2014 "  # an em dash and a space
MAX_NOTE = 1_000_000


class NoteError(ValueError):
    """A key, note or checkpoint that is malformed or does not verify; the message says which."""


def _name_ok(name: str) -> bool:
    return bool(name) and name.isprintable() and not any(c.isspace() or c == "+" for c in name)


def key_id(name: str, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([ALG_ED25519]) + public).digest()[:4]


@dataclass(frozen=True)
class Verifier:
    name: str
    key_id: bytes
    public: bytes

    @classmethod
    def parse(cls, text: str) -> Verifier:
        parts = text.strip().split("+", 2)  # the base64 key may hold '+' itself
        if len(parts) != 3:
            raise NoteError("A verifier key has three parts joined by '+': name+keyid+base64 key.")
        name, hex_id, encoded = parts
        if not _name_ok(name):
            raise NoteError(f"{name!r} is not a valid key name (no spaces or '+').")
        try:
            raw, wanted = base64.b64decode(encoded, validate=True), bytes.fromhex(hex_id)
        except (binascii.Error, ValueError):
            raise NoteError("The verifier key's id or key is not valid hex/base64.") from None
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise NoteError("The verifier key is not an Ed25519 key (algorithm 1, 32 bytes).")
        if len(wanted) != 4 or key_id(name, raw[1:]) != wanted:
            raise NoteError(f"The verifier key's id {hex_id} does not match its name and key.")
        return cls(name, wanted, raw[1:])

    def __str__(self) -> str:
        return f"{self.name}+{self.key_id.hex()}+{base64.b64encode(bytes([ALG_ED25519]) + self.public).decode()}"

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class Signer:
    name: str
    seed: bytes

    @classmethod
    def generate(cls, name: str) -> Signer:
        if not _name_ok(name):
            raise NoteError(f"{name!r} is not a valid key name: no spaces or '+' (e.g. example.org/log).")
        from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

        private = Ed25519PrivateKey.generate()
        return cls(name, private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()))

    @classmethod
    def parse(cls, text: str) -> Signer:
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("A signer key reads PRIVATE+KEY+name+keyid+base64 key (made by manage.py log_keygen).")
        _, _, name, hex_id, encoded = parts
        try:
            raw = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            raise NoteError("The signer key is not valid base64.") from None
        if not _name_ok(name) or len(raw) != 33 or raw[0] != ALG_ED25519:
            raise NoteError("The signer key is not an Ed25519 key with a valid name.")
        signer = cls(name, raw[1:])
        if signer.verifier().key_id.hex() != hex_id.lower():
            raise NoteError(f"The signer key's id {hex_id} does not match its key.")
        return signer

    def __str__(self) -> str:
        return (
            f"PRIVATE+KEY+{self.name}+{self.verifier().key_id.hex()}+"
            f"{base64.b64encode(bytes([ALG_ED25519]) + self.seed).decode()}"
        )

    def _private(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.seed)

    def verifier(self) -> Verifier:
        public = self._private().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return Verifier(self.name, key_id(self.name, public), public)

    def sign(self, text: str) -> str:
        """The signed note of ``text`` (which must end in a newline)."""
        if not text.endswith("\n") or "\n\n" in text:
            raise NoteError("A note's text ends with one newline and has no blank line.")
        signature = self._private().sign(text.encode())
        line = base64.b64encode(self.verifier().key_id + signature).decode()
        return f"{text}\n{SIGNATURE_PREFIX}{self.name} {line}\n"


def note_split(note: str) -> tuple[str, list[tuple[str, bytes]]]:
    """The text of ``note`` (ending in its newline) and its signature lines as (key name, raw
    bytes: key id || signature); NoteError if it is not a signed note."""
    if len(note) > MAX_NOTE:
        raise NoteError("The note is too long.")
    text, sep, signatures = note.rpartition("\n\n")
    if not sep or not signatures.endswith("\n"):
        raise NoteError("Not a signed note: no blank line before the signatures, or no final newline.")
    lines = []
    for line in signatures[:-1].split("\n"):
        if not line.startswith(SIGNATURE_PREFIX):
            raise NoteError(f"Malformed signature line {line[:80]!r}.")
        name, _, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
        try:
            raw = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            raise NoteError(f"Signature of {name!r} is not valid base64.") from None
        lines.append((name, raw))
    return text + "\n", lines


def note_open(note: str, verifier: Verifier) -> str:
    """The text of ``note`` if ``verifier`` signed it; NoteError saying why not otherwise."""
    text, lines = note_split(note)
    seen = []
    for name, raw in lines:
        seen.append(name)
        if name == verifier.name and raw[:4] == verifier.key_id:
            if len(raw) != 68 or not verifier.verify(text.encode(), raw[4:]):
                raise NoteError(
                    f"The signature of {name!r} (key {verifier.key_id.hex()}) does not verify: "
                    "the note was changed or signed by another key."
                )
            return text
    raise NoteError(
        f"The note carries no signature by {verifier.name}+{verifier.key_id.hex()} "
        f"(signed by: {', '.join(seen) or 'nobody'})."
    )


#: The checkpoint's extension line saying when it was signed (C2SP tlog-checkpoint allows
#: extension lines after the root hash; clients that do not know one ignore it).
TIME_PREFIX, TIME_FORMAT = "time ", "%Y-%m-%dT%H:%M:%SZ"
#: Numbers in checkpoints are ASCII decimal: ``str.isdigit``, ``int`` and ``strptime`` also read
#: other scripts' digits ("٤١٥" as 415), which no other implementation would.
_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode(), *self.extensions]
        return "\n".join(lines) + "\n"

    @property
    def time(self) -> dt.datetime | None:
        """When the log signed this checkpoint (its ``time`` extension line), if it says."""
        for line in self.extensions:
            if line.startswith(TIME_PREFIX):
                stamp = line[len(TIME_PREFIX) :]
                if not _TIME.fullmatch(stamp):  # strptime would read other scripts' digits too
                    return None
                try:
                    return dt.datetime.strptime(stamp, TIME_FORMAT).replace(tzinfo=dt.UTC)
                except ValueError:
                    return None
        return None

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        lines = text.split("\n")
        if len(lines) < 4 or lines[-1] != "":
            raise NoteError("A checkpoint has an origin line, a size line and a root hash line.")
        origin, size, root = lines[:3]
        if not _DECIMAL.fullmatch(size) or int(size) >= 1 << 63:
            raise NoteError(
                f"The checkpoint's tree size {size[:30]!r} is not a decimal number (ASCII digits, no leading zero)."
            )
        try:
            raw = base64.b64decode(root, validate=True)
        except binascii.Error:
            raw = b""
        if len(raw) != 32:
            raise NoteError("The checkpoint's root hash is not 32 bytes of base64.")
        return cls(origin, int(size), raw, tuple(lines[3:-1]))


def checkpoint_open(note: str, verifier: Verifier, origin: str | None = None) -> Checkpoint:
    checkpoint = Checkpoint.parse(note_open(note, verifier))
    wanted = verifier.name if origin is None else origin
    if checkpoint.origin != wanted:
        raise NoteError(f"The checkpoint is for the log {checkpoint.origin!r}, not {wanted!r}.")
    return checkpoint
