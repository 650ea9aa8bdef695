"""C2SP tlog-witness: a witness that cosigns a log's checkpoints, and the log's side of asking one.

Pure Python (standard library, ``cryptography``), no Django: ``python -m registry.witness``
serves ``Witness`` over HTTP for a mirror operator, and the site's signer
(registry/transparency/signer.py) calls ``witness_cosign`` for each checkpoint it signs.

A witness keeps, per log origin, the last checkpoint it cosigned (``WitnessStore``, an SQLite
file: the check of the old size and the update are one ``BEGIN IMMEDIATE`` transaction, so two
requests cannot roll each other back, and the state survives restarts). It cosigns a checkpoint
only if the log's key signed it and an RFC 6962 consistency proof takes the tree it cosigned
last to the new one; so it never cosigns two inconsistent checkpoints of one log. A request
that the log signed but that fails the consistency check is kept as evidence of a fork.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import http.client
import re
import sqlite3
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .cosignature import CosignatureVerifier, Cosigner, cosignatures_valid
from .merkle import EMPTY_ROOT, verify_consistency
from .note import Checkpoint, NoteError, Verifier, note_split

MAX_PROOF_LINES = 63
MAX_BODY = 64 * 1024
SIZE_TYPE = "text/x.tlog.size"
_DECIMAL = re.compile(r"0|[1-9][0-9]{0,18}")


@dataclass(frozen=True)
class Answer:
    """An HTTP answer of the witness: status, content type, body."""

    status: int
    body: str
    content_type: str = "text/plain; charset=utf-8"


def _decimal(text: str) -> int | None:
    """An ASCII decimal without leading zeroes (tlog-witness), else None."""
    return int(text) if _DECIMAL.fullmatch(text) and int(text) < 2**63 else None


def origin_hash(origin: str) -> str:
    return hashlib.sha256(origin.encode()).hexdigest()


class WitnessStore:
    """The last cosigned checkpoint of each log, and the evidence of refused forks (SQLite)."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")  # a cosignature is answered only once it is on disk
        connection.execute(
            "CREATE TABLE IF NOT EXISTS logs (origin TEXT PRIMARY KEY, size INTEGER NOT NULL, "
            "root BLOB NOT NULL, note TEXT NOT NULL, cosigned_at INTEGER NOT NULL)"
        )
        connection.execute(
            "CREATE TABLE IF NOT EXISTS evidence (origin TEXT NOT NULL, received_at INTEGER NOT NULL, "
            "reason TEXT NOT NULL, request TEXT NOT NULL)"
        )
        return connection

    def latest(self, origin: str) -> tuple[int, bytes, str, int] | None:
        """(size, root, cosigned note, cosignature time) of the last checkpoint cosigned for ``origin``."""
        with self._connect() as connection:
            row = connection.execute(
                "SELECT size, root, note, cosigned_at FROM logs WHERE origin = ?", (origin,)
            ).fetchone()
        return (row[0], bytes(row[1]), row[2], row[3]) if row else None

    def evidence(self, origin: str | None = None) -> list[tuple[str, int, str, str]]:
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT origin, received_at, reason, request FROM evidence "
                "WHERE ? IS NULL OR origin = ? ORDER BY rowid",
                (origin, origin),
            ).fetchall()
        return [tuple(row) for row in rows]


class Witness:
    """The tlog-witness ``add-checkpoint`` call, for the logs (origin → trusted keys) it is given."""

    def __init__(self, cosigner: Cosigner, logs: list[Verifier], store: WitnessStore, clock=time.time):
        self.cosigner, self.store, self.clock = cosigner, store, clock
        self.logs: dict[str, list[Verifier]] = {}
        for key in logs:
            self.logs.setdefault(key.name, []).append(key)

    def add_checkpoint(self, body: bytes) -> Answer:
        try:
            request = body.decode("utf-8")
        except UnicodeDecodeError:
            return Answer(400, "The request is not UTF-8 text.\n")
        head, sep, note = request.partition("\n\n")
        lines = head.split("\n")
        if not sep or not lines[0].startswith("old "):
            return Answer(
                400, "The request starts with 'old <size>', the proof lines, an empty line, the checkpoint.\n"
            )
        old = _decimal(lines[0][4:])
        if old is None:
            return Answer(400, "The old size is not a decimal number without leading zeroes.\n")
        if len(lines) - 1 > MAX_PROOF_LINES:
            return Answer(400, f"More than {MAX_PROOF_LINES} consistency proof lines.\n")
        proof = []
        for line in lines[1:]:
            try:
                hashed = base64.b64decode(line, validate=True)
            except binascii.Error:
                hashed = b""
            if len(hashed) != 32 or base64.b64encode(hashed).decode() != line:
                return Answer(400, f"Proof line {line[:60]!r} is not a base64 SHA-256 hash.\n")
            proof.append(hashed)
        try:
            text, signatures = note_split(note)
            checkpoint = Checkpoint.parse(text)
        except NoteError as exc:
            return Answer(400, f"The checkpoint is malformed: {exc}\n")
        size = _decimal(text.split("\n")[1])
        if size is None:
            return Answer(400, "The checkpoint's size is not a decimal number without leading zeroes.\n")
        keys = self.logs.get(checkpoint.origin)
        if keys is None:
            return Answer(404, f"This witness does not witness the log {checkpoint.origin!r}.\n")
        if not self._signed_by_log(text, signatures, keys):
            return Answer(403, f"The checkpoint carries no valid signature by a key of {checkpoint.origin!r}.\n")
        if old > size:
            return Answer(400, f"The old size {old} is larger than the checkpoint's size {size}.\n")
        return self._cosign(checkpoint, text, note, old, proof, request)

    @staticmethod
    def _signed_by_log(text: str, signatures: list[tuple[str, bytes]], keys: list[Verifier]) -> bool:
        good = False
        for name, raw in signatures:
            for key in keys:
                if name == key.name and raw[:4] == key.key_id:
                    if len(raw) != 68 or not key.verify(text.encode(), raw[4:]):
                        return False  # a trusted key's signature that fails: the note is malformed
                    good = True
        return good

    def _cosign(
        self, checkpoint: Checkpoint, text: str, note: str, old: int, proof: list[bytes], request: str
    ) -> Answer:
        connection = self.store._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")  # the check and the update are one step
            row = connection.execute(
                "SELECT size, root, cosigned_at FROM logs WHERE origin = ?", (checkpoint.origin,)
            ).fetchone()
            known, root, last_time = (row[0], bytes(row[1]), row[2]) if row else (0, EMPTY_ROOT, 0)
            if old != known:
                connection.execute("ROLLBACK")
                return Answer(409, f"{known}\n", SIZE_TYPE)
            problem = None
            if checkpoint.size == 0 and checkpoint.root != EMPTY_ROOT:
                problem = "A checkpoint of size 0 must have the root of the empty tree."
            elif old == 0 and proof:
                problem = "A consistency proof was sent with old size 0."
            elif old and not verify_consistency(old, checkpoint.size, root, checkpoint.root, proof):
                problem = (
                    f"The checkpoint of size {checkpoint.size} is not consistent with the one of size {old} "
                    "this witness cosigned: the log forked, or the proof is wrong."
                )
            if problem:
                connection.execute(
                    "INSERT INTO evidence VALUES (?, ?, ?, ?)", (checkpoint.origin, int(self.clock()), problem, request)
                )
                connection.execute("COMMIT")
                return Answer(422, problem + "\n")
            timestamp = max(int(self.clock()), last_time, 1)  # never dated before the previous one
            line = self.cosigner.cosign(text, timestamp)
            own = f"{text}\n" + "".join(
                f"\u2014 {name} {base64.b64encode(raw).decode()}\n"
                for name, raw in note_split(note)[1]
                if name != self.cosigner.name
            )
            connection.execute(
                "INSERT INTO logs VALUES (?, ?, ?, ?, ?) ON CONFLICT(origin) DO UPDATE SET "
                "size = excluded.size, root = excluded.root, note = excluded.note, "
                "cosigned_at = excluded.cosigned_at",
                (checkpoint.origin, checkpoint.size, checkpoint.root, own + line, timestamp),
            )
            connection.execute("COMMIT")
            return Answer(200, line)
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        finally:
            connection.close()

    def checkpoint_of(self, hashed_origin: str) -> Answer:
        """The monitoring endpoint: the last cosigned checkpoint of the log whose origin hashes so."""
        for origin in self.logs:
            if origin_hash(origin) == hashed_origin:
                latest = self.store.latest(origin)
                if latest:
                    return Answer(200, latest[2])
        return Answer(404, "This witness has cosigned no checkpoint of that log.\n")


# --- the log's side: asking a witness ----------------------------------------------------------------


@dataclass(frozen=True)
class WitnessEndpoint:
    """A witness the site asks to cosign: its public key and its submission URL prefix."""

    key: CosignatureVerifier
    url: str

    @property
    def name(self) -> str:
        return self.key.name


class WitnessRefused(Exception):
    """The witness did not cosign; the message says why (its answer, or the network error)."""


class WitnessAhead(WitnessRefused):
    """The witness holds a larger tree of the log than the checkpoint sent (its 409 names the size): the
    signer's record is older than what it signed last (restored from an old backup), or the key signed
    elsewhere. ``size``: what the witness holds."""

    def __init__(self, message: str, size: int):
        super().__init__(message)
        self.size = size


def witness_latest(endpoint: WitnessEndpoint, origin: str, timeout: float = 5.0) -> str | None:
    """The last checkpoint ``endpoint`` cosigned for the log ``origin`` (its note, with the log's signature
    and the cosignatures it holds), from the witness's monitoring endpoint ``GET <prefix>/<sha256 of the
    origin, hex>/checkpoint`` (served by ours and by aics-witness); None if it has cosigned none (404).
    WitnessRefused if it cannot be read. The caller checks the note's signatures."""
    url = f"{endpoint.url.rstrip('/')}/{origin_hash(origin)}/checkpoint"
    request = urllib.request.Request(url, headers={"User-Agent": "urn-ogf-registry-signer/1"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read(MAX_BODY).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise WitnessRefused(f"{endpoint.name} ({url}) answered HTTP {exc.code} for its latest checkpoint") from None
    except (OSError, http.client.HTTPException) as exc:
        raise WitnessRefused(f"{endpoint.name} ({url}) could not be reached: {exc}") from None


def witness_request(
    endpoint: WitnessEndpoint, old: int, proof: list[bytes], note: str, timeout: float = 5.0
) -> tuple[int, str]:
    """POST ``add-checkpoint``: (HTTP status, body). Network errors raise WitnessRefused."""
    body = f"old {old}\n" + "".join(base64.b64encode(h).decode() + "\n" for h in proof) + "\n" + note
    request = urllib.request.Request(
        endpoint.url.rstrip("/") + "/add-checkpoint",
        data=body.encode(),
        method="POST",
        headers={"Content-Type": "text/plain; charset=utf-8", "User-Agent": "urn-ogf-registry-signer/1"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read(MAX_BODY).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(MAX_BODY).decode("utf-8", "replace")
    except (OSError, http.client.HTTPException) as exc:
        raise WitnessRefused(f"{endpoint.name} ({endpoint.url}) could not be reached: {exc}") from None


def witness_cosign(
    endpoint: WitnessEndpoint, note: str, known_size: int, proof_from, timeout: float = 5.0
) -> tuple[str, int]:
    """Ask ``endpoint`` to cosign ``note``: (its valid cosignature line, the size it now holds).

    ``known_size`` is the size the site believes the witness cosigned last; ``proof_from(size)``
    gives the consistency proof from ``size`` to the note's tree (None if the site cannot make
    one). A witness that answers 409 with another size is asked once more with a proof from that
    size. WitnessRefused if it does not cosign, or its answer is not its valid cosignature.
    """
    text = note_split(note)[0]
    size = Checkpoint.parse(text).size
    old = known_size
    for _ in range(2):
        proof = proof_from(old) if old else []
        if proof is None:
            raise WitnessRefused(
                f"{endpoint.name} last cosigned size {old}, which is not part of this tree of size {size}."
            )
        status, answer = witness_request(endpoint, old, proof, note, timeout)
        if status == 409:
            held = _decimal(answer.strip())
            if held is not None and held > size:
                raise WitnessAhead(
                    f"{endpoint.name} holds a checkpoint of size {held}, larger than this one of size {size}: "
                    "the log was signed further than this signer's record says",
                    held,
                )
            if held is None or held == old:
                raise WitnessRefused(
                    f"{endpoint.name} answered 409 with size {answer.strip()[:30]!r}, which cannot precede size {size}."
                )
            old = held
            continue
        if status != 200:
            raise WitnessRefused(
                f"{endpoint.name} refused to cosign size {size} (HTTP {status}): {answer.strip()[:300]}"
            )
        for line in answer.splitlines():
            try:
                if line.startswith("\u2014 ") and cosignatures_valid(note + line + "\n", [endpoint.key]):
                    return line + "\n", size
            except NoteError as exc:
                raise WitnessRefused(f"{endpoint.name} answered with a bad cosignature: {exc}") from None
        raise WitnessRefused(f"{endpoint.name} answered without a valid cosignature by its key {endpoint.key}.")
    raise WitnessRefused(f"{endpoint.name} keeps answering that it holds another size.")
