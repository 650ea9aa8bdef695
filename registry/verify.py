"""Verify a copy of the registry against its transparency log: ``python -m registry.verify <site or mirror>``.

Runs without Django (standard library, ``cryptography`` and ``jsonschema``), as a mirror would,
and as ``manage.py verify_registry``. It

1. checks the checkpoint's signature with the verifier key you give (``--key``) or the one it
   pinned on its first run (it then says it trusted the site on first use), and with
   ``--witness KEY`` (repeatable) that at least ``--quorum N`` of those witnesses validly
   cosigned it (C2SP tlog-cosignature);
2. reads every leaf the site serves, on every run (C2SP tlog-tiles entry bundles, compressed
   when the site offers it), checks each is a canonical leaf of a known kind, and recomputes
   the tree: its root must be the signed one (if not, the site's hash tiles name the entries
   whose leaf no longer matches);
3. checks the log only grew since the checkpoint it saw last time (kept in a state file with
   the leaf hashes it saw, and the leaves themselves beside it), naming any entry that is gone,
   moved or changed (and what changed in it), and that the checkpoint is fresh: a site signs
   one every minute with the time, so an older one than last time, or one over ``--max-age``
   old, is a frozen or replaying site;
4. replays the log (``verifier.replay``) and compares everything it holds with what the site
   publishes now (``verifier.compare``): every version's record and registration document,
   resolvers, stewards, deprecations and reservations, against ``urn/registry.json`` and
   ``urn/registry-full.json`` (or ``--export`` / ``--full-export`` files), both ways.

It reports exactly what differs and exits 0 (all verified), 1 (something differs) or 2 (could
not check: unreachable, malformed answers). The state file, the kept leaves and a ``--mirror``
copy are written only after a clean run.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import os
import re
import sys
import urllib.error
import urllib.request
import zlib
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from .logcore.cosignature import CosignatureVerifier, cosignature_check
from .logcore.kinds import LeafError, describe, leaf_decode
from .logcore.merkle import Tree, leaf_hash
from .logcore.note import TIME_FORMAT, NoteError, Verifier, checkpoint_open
from .logcore.tiles import WIDTH, TileRef, bundle_entries, tile_bytes, tiles_for
from .verifier.compare import compare, differences
from .verifier.mirror import mirror_write
from .verifier.replay import replay
from .verifier.store import BundleStore

USER_AGENT = "urn-ogf-registry-verify/2"
MAX_DOWNLOAD = 64 * 1024 * 1024
EXPORTS = {"export": "urn/registry.json", "full_export": "urn/registry-full.json"}


class CannotCheck(Exception):
    """The source could not be read; nothing about the log is concluded from it."""


class NotServed(CannotCheck):
    """The source answered that it does not have something (HTTP 404 or 410, or no such file)."""


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    size: int = 0
    signed_at: str | None = None  # the checkpoint's signed time, if it has one
    verdict: str = ""  # what a clean run checked, in one sentence

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        lines = [f"  {n}" for n in self.notes] + [f"DIFFERS: {p}" for p in self.problems]
        verdict = f"VERIFIED: {self.verdict}" if self.ok else f"NOT VERIFIED: {len(self.problems)} difference(s)."
        return "\n".join(lines + [verdict]) + "\n"


class Source:
    """A site (http[s]://...) or a mirror directory with the same layout."""

    def __init__(self, base: str):
        self.remote = bool(re.match(r"(?i)https?://", base))
        self.base = base if self.remote else str(Path(base))

    def get(self, path: str) -> bytes:
        if self.remote:
            url = self.base.rstrip("/") + "/" + path
            request = urllib.request.Request(
                url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, identity"}
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    data = response.read(MAX_DOWNLOAD + 1)
                    encoding = (response.headers.get("Content-Encoding") or "identity").strip().lower()
            except urllib.error.HTTPError as exc:
                detail = exc.read(2000).decode("utf-8", "replace").strip()
                raise (NotServed if exc.code in (404, 410) else CannotCheck)(
                    f"{url}: HTTP {exc.code} {detail}"
                ) from None
            except (urllib.error.URLError, OSError) as exc:
                raise CannotCheck(f"{url}: {getattr(exc, 'reason', exc)}") from None
            if encoding == "gzip":
                data = _gunzip(data, url)
            elif encoding != "identity":
                raise CannotCheck(f"{url}: answered in {encoding!r}, which was not asked for")
        else:
            try:
                data = (Path(self.base) / path).read_bytes()
            except FileNotFoundError:
                raise NotServed(f"{Path(self.base) / path}: no such file") from None
            except OSError as exc:
                raise CannotCheck(f"{Path(self.base) / path}: {exc.strerror or exc}") from None
        if len(data) > MAX_DOWNLOAD:
            raise CannotCheck(f"{path} is larger than {MAX_DOWNLOAD:,} bytes")
        return data


def _gunzip(data: bytes, where: str) -> bytes:
    """Decompressed, at most MAX_DOWNLOAD + 1 bytes of it (a small answer may inflate to gigabytes)."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, MAX_DOWNLOAD + 1)
    except zlib.error as exc:
        raise CannotCheck(f"{where}: not valid gzip ({exc})") from None
    return out


def default_state_path(source: str) -> Path:
    home = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return home / "urn-ogf-registry-verify" / (re.sub(r"[^A-Za-z0-9.-]+", "_", source.strip("/")) + ".json")


def _load_state(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise CannotCheck(f"the state file {path} cannot be read ({exc}); move it away to start afresh") from None


#: How old a site's checkpoint may be (it signs a new one every minute) before it is reported.
MAX_AGE_SECONDS = 24 * 3600


def _judge_freshness(report: Report, checkpoint, state: dict, max_age: float | None) -> None:
    """A frozen or replayed site keeps serving an old, validly signed checkpoint: its signed time says so."""
    signed = checkpoint.time
    if signed is None:
        report.notes.append("the checkpoint carries no time: how fresh it is cannot be told")
        return
    age = (dt.datetime.now(dt.UTC) - signed).total_seconds()
    said = f"signed {signed:%Y-%m-%d %H:%M:%S} UTC ({_age(age)} ago)"
    before = state.get("time")
    if before and signed.strftime(TIME_FORMAT) < before:
        report.problems.append(
            f"the checkpoint was {said}, earlier than the one the last run saw ({before}): "
            "the site is serving an older checkpoint than before"
        )
    elif max_age is not None and age > max_age:
        report.problems.append(
            f"the checkpoint was {said}, over {_age(max_age)}: the site signs a new one "
            "every minute, so it may be frozen or replaying an old answer"
        )
    else:
        report.notes.append(f"the checkpoint was {said}")
    report.signed_at = signed.strftime(TIME_FORMAT)


def _age(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def _witnessed(report: Report, note: str, witnesses: list[CosignatureVerifier], quorum: int) -> int:
    """How many of ``witnesses`` validly cosigned the checkpoint (fewer than ``quorum``: reported)."""
    if not witnesses:
        return 0
    valid, missing = [], []
    for witness in witnesses:
        when, why = cosignature_check(note, witness)
        if when is None:
            missing.append(why)
        else:
            valid.append(f"{witness.name} ({dt.datetime.fromtimestamp(when, dt.UTC):%Y-%m-%d %H:%M:%S} UTC)")
    if valid:
        report.notes.append(f"cosigned by {len(valid)} witness(es): {', '.join(valid)}")
    if len(valid) < quorum:
        report.problems.append(
            f"the checkpoint carries {len(valid)} valid cosignature(s) of the {quorum} required "
            f"(--quorum {quorum}): " + "; ".join(missing)
        )
    return len(valid)


@dataclass
class Unserved:
    """Entries ``start..stop-1``, which the signed checkpoint covers, that the site does not serve."""

    start: int
    stop: int
    why: str


def _gather(site: Source, size: int) -> tuple[list[bytes], dict[str, bytes], list[Unserved]]:
    """Every leaf the site serves for its checkpoint of ``size`` entries, the bundles as served (by path), and
    the entries it does not serve although the checkpoint covers them.

    A site that answers that it does not have a bundle (404, 410: it says so itself, unlike a fault, which
    raises CannotCheck) is asked for narrower copies of it, to name the first entry it cannot serve."""
    leaves: list[bytes] = []
    bundles: dict[str, bytes] = {}
    unserved: list[Unserved] = []
    for ref in tiles_for(size, None):
        start = ref.index * WIDTH
        try:
            entries, data = _bundle(site, ref)
        except NotServed as exc:
            served = _served_part(site, ref)
            leaves += served
            unserved.append(Unserved(start + len(served), start + ref.width, str(exc)))
            continue
        bundles[ref.path()] = data
        leaves += entries
    return leaves, bundles, unserved


def _bundle(site: Source, ref: TileRef) -> tuple[list[bytes], bytes]:
    """The entries of the bundle ``ref`` and its bytes as served (NotServed for a bundle holding another
    number of entries than its name says)."""
    data = site.get("log/" + ref.path())
    try:
        entries = bundle_entries(data)
    except ValueError as exc:
        raise CannotCheck(f"{ref.path()}: {exc}") from None
    if len(entries) != ref.width:
        raise NotServed(f"{ref.path()} holds {len(entries)} entries, not {ref.width}")
    return entries, data


def _served_part(site: Source, ref: TileRef) -> list[bytes]:
    """The leaves of the widest narrower copy of bundle ``ref`` the site serves (tlog-tiles lets a log serve
    partial bundles of any width; ours does): at most eight requests, by halving."""
    low, high, best = 1, ref.width - 1, []
    while low <= high:
        width = (low + high) // 2
        try:
            best = _bundle(site, TileRef(None, ref.index, width))[0]
        except NotServed:
            high = width - 1
            continue
        low = width + 1
    return best


def _unserved_said(gap: Unserved, size: int, seen: list) -> str:
    """One sentence for entries the signed checkpoint covers and the site does not serve."""

    def what(index: int) -> str:
        return f"{seen[index][1]}" if index < len(seen) else "?"

    if gap.stop - gap.start == 1:
        entries = f"entry {gap.start}" + (f" ({what(gap.start)} when last verified)" if gap.start < len(seen) else "")
    else:
        entries = f"entries {gap.start} to {gap.stop - 1}"
        if gap.start < len(seen):
            shown = "; ".join(f"{i}: {what(i)}" for i in range(gap.start, min(gap.stop, gap.start + 10)))
            entries += f" (when last verified {shown}{'; …' if gap.stop - gap.start > 10 else ''})"
    return (
        f"the site does not serve {entries}, which its signed checkpoint of {size} entries covers "
        f"({gap.why}): the log no longer holds what was signed"
    )


def _name_changed_leaves(site: Source, tree: Tree, size: int, report: Report) -> None:
    """The served leaves do not hash to the signed root: the site's hash tiles say which no longer match."""
    report.problems.append(
        "the entries served do not hash to the signed root: the log's leaves were changed after they were logged"
    )
    for ref in tiles_for(size, 0):
        try:
            served = site.get("log/" + ref.path())
        except NotServed:
            continue
        ours = tile_bytes(tree, ref)
        for i in range(ref.width):
            if served[32 * i : 32 * i + 32] != ours[32 * i : 32 * i + 32]:
                report.problems.append(
                    f"entry {ref.index * WIDTH + i}: its leaf no longer matches the hash the log's tree holds for it"
                )


def _signed_history(report: Report, state: dict, checkpoint) -> bool:
    """What the checkpoints alone show against the one the last run saw: a log that shrank, or a second
    tree of a size signed before (a fork). True if either is reported."""
    if state.get("size") is None:
        return False
    old_size, old_root, when = state["size"], base64.b64decode(state["root"]), state.get("checked_at", "earlier")
    if old_size > checkpoint.size:
        report.problems.append(
            f"the log shrank: it had {old_size} entries when last checked ({when}), it now has {checkpoint.size}"
        )
        return True
    if old_size == checkpoint.size and checkpoint.root != old_root:
        report.problems.append(
            f"the site signed two different trees of {old_size} entries: this checkpoint's "
            f"root is not the one seen before ({when}), a fork"
        )
        return True
    return False


def _history(
    report: Report, state: dict, checkpoint, tree: Tree, hashes: list[bytes], decoded: list, store: BundleStore
) -> str:
    """The log against the checkpoint the last run saw; what the verdict says of it.

    ``tree`` is made of the leaves served now. When they make the signed root, the signed tree must extend
    the one seen before; when they do not (the site serves leaves that are not the ones it signed), the
    checkpoints are compared as signed and every entry seen before that is served otherwise is named."""
    if state.get("size") is None:
        return "first run: there is no earlier checkpoint to compare this one with"
    size = checkpoint.size
    old_size, old_root = state["size"], base64.b64decode(state["root"])
    since = f"the checkpoint of {old_size} entries seen on {state.get('checked_at', 'an earlier run')}"
    served_as_signed = tree.root() == checkpoint.root
    if not _signed_history(report, state, checkpoint) and served_as_signed:
        if tree.root(old_size) == old_root:
            report.notes.append(f"consistent with the checkpoint of {old_size} entries seen before")
            return f"it extends {since}"
        report.problems.append(
            f"the log of {size} entries does not extend the checkpoint of {old_size} "
            "entries seen before: its history was rewritten or forked"
        )
    report.problems += _entries_changed(state.get("leaves") or [], hashes, decoded, store)
    return ""


def _entries_changed(seen: list, hashes: list[bytes], decoded: list, store: BundleStore) -> list[str]:
    """Each entry seen before that is gone, moved or changed. Entries are matched in order (the n-th copy
    of a leaf seen before with the n-th copy now), so identical leaves are never confused."""
    where: dict[str, deque] = defaultdict(deque)
    for index, hashed in enumerate(hashes):
        where[hashed.hex()].append(index)
    problems, unmatched, matched, last = [], [], set(), -1
    for index, (hashed, what) in enumerate(seen):
        queue = where.get(hashed, deque())
        while queue and queue[0] <= last:
            queue.popleft()
        if not queue:
            unmatched.append(index)
            continue
        last = queue.popleft()
        matched.add(last)
        if last != index:
            problems.append(f"entry {index} ({what}) seen before is now entry {last}")
    for index in unmatched:
        what = seen[index][1]
        if index >= len(hashes) or index in matched:
            problems.append(f"entry {index} ({what}) seen before is no longer in the log")
            continue
        now = decoded[index]
        said = f"entry {index} ({what}) seen before was changed: it now reads {describe(now) if now else '?'}"
        old = store.leaf(index)
        if old is not None and leaf_hash(old).hex() == seen[index][0] and now is not None:
            try:
                changes = differences(leaf_decode(old), now)
            except LeafError:
                changes = []
            said += "".join(
                "; " + c.replace(": the log says ", ": was ", 1).replace(", the site publishes ", ", now ")
                for c in changes[:10]
            )
        problems.append(said)
    return problems


def _document(site: Source, path: str, given: Path | None) -> tuple[dict, bytes]:
    try:
        raw = given.read_bytes() if given is not None else site.get(path)
        document = json.loads(raw)
        if not isinstance(document, dict) or not isinstance(document["snids"], list):
            raise TypeError("no list of snids")
    except OSError as exc:
        raise CannotCheck(f"{given}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise CannotCheck(f"{given or path} is not a {Path(path).name} document ({exc})") from None
    return document, raw


def _sections(full: dict) -> dict:
    """Each published version's prose section digests, keyed "snid/version" (kept in the state file)."""
    snids = full.get("snids") if isinstance(full.get("snids"), list) else []
    return {
        f"{snid['snid'].lower()}/{version.get('version')}": version["sections_sha256"]
        for snid in snids
        if isinstance(snid, dict) and isinstance(snid.get("snid"), str)
        for version in (snid.get("versions") if isinstance(snid.get("versions"), list) else [])
        if isinstance(version, dict) and isinstance(version.get("sections_sha256"), dict)
    }


def _verdict(checkpoint, verifier, cosigned: tuple[int, int, int], counts: dict, history: str) -> str:
    valid, given, quorum = cosigned
    return (
        f"the checkpoint of {checkpoint.size} entries is signed by {verifier.name}+{verifier.key_id.hex()}"
        + (f" and cosigned by {valid} of the {given} witness(es) given (quorum {quorum})" if given else "")
        + f"; every one of its {checkpoint.size} leaves was read and they hash to its root; what they hold — "
        f"{counts['snids']} registered SNID(s) with {counts['versions']} version(s), the resolvers of "
        f"{counts['resolvers']}, {counts['stewards']} steward(s), {counts['deprecations']} deprecation(s), "
        f"{counts['reservations']} reservation(s) in force — is what the site publishes now (registry.json, "
        f"registry-full.json), and it publishes none the log does not hold; {history}."
    )


def verify(
    source: str,
    *,
    key: str | None = None,
    state_path: Path | None = None,
    export: Path | None = None,
    full_export: Path | None = None,
    accept_new_key: bool = False,
    save: bool = True,
    mirror: Path | None = None,
    max_age: float | None = MAX_AGE_SECONDS,
    witnesses=(),
    quorum: int | None = None,
) -> Report:
    report = Report()
    site = Source(source)
    state_path = state_path or default_state_path(source)
    state = _load_state(state_path)
    witnesses = [CosignatureVerifier.parse(w) if isinstance(w, str) else w for w in witnesses]
    quorum = len(witnesses) if quorum is None else quorum

    # 1. the key, the checkpoint and its cosignatures
    pinned = state.get("verifier_key")
    if key:
        verifier = Verifier.parse(key)
        if pinned and pinned != str(verifier) and not accept_new_key:
            report.problems.append(
                f"the verifier key changed: you gave {verifier}, the last run checked "
                f"{pinned}; if the registry announced a key rotation, run again with "
                "--accept-new-key"
            )
            return report
    elif pinned:
        verifier = Verifier.parse(pinned)
    else:
        verifier = Verifier.parse(site.get("log/key").decode("ascii", "replace"))
        report.notes.append(
            f"no key given: trusted the site's own key {verifier} on first use (pin it "
            "with --key from a source you trust)"
        )
    note = site.get("log/checkpoint").decode("utf-8", "replace")
    try:
        checkpoint = checkpoint_open(note, verifier, state.get("origin"))
    except NoteError as exc:
        report.problems.append(f"the checkpoint does not verify: {exc}")
        return report
    report.size = size = checkpoint.size
    report.notes.append(
        f"checkpoint of {checkpoint.origin}: {size} entries, root "
        f"{base64.b64encode(checkpoint.root).decode()} (signature verified)"
    )
    _judge_freshness(report, checkpoint, state, max_age=max_age if site.remote else None)
    cosigned = (_witnessed(report, note, witnesses, quorum), len(witnesses), quorum)

    # 2. every leaf, as served now, and the tree they make
    leaves, bundles, unserved = _gather(site, size)
    if unserved:  # the site says it no longer has entries it signed: a difference, not a fault
        _signed_history(report, state, checkpoint)
        report.problems += [_unserved_said(gap, size, state.get("leaves") or []) for gap in unserved]
        report.notes.append(
            "what the log holds was not compared with what the site publishes: the site does not "
            "serve every entry of its signed checkpoint"
        )
        return report
    hashes = [leaf_hash(leaf) for leaf in leaves]
    tree = Tree(hashes)
    if tree.root() != checkpoint.root:
        _name_changed_leaves(site, tree, size, report)
    decoded: list[dict | None] = []
    for index, leaf in enumerate(leaves):
        try:
            decoded.append(leaf_decode(leaf))
        except LeafError as exc:
            decoded.append(None)
            report.problems.append(f"entry {index}: {exc}")

    # 3. the log only grew since the last run
    store = BundleStore(state_path)
    history = _history(report, state, checkpoint, tree, hashes, decoded, store)

    # 4. what the log holds is what the site publishes, both ways
    registry, registry_raw = _document(site, EXPORTS["export"], export)
    full, full_raw = _document(site, EXPORTS["full_export"], full_export)
    log = replay(decoded)
    compared = compare(
        log, registry, full, today=dt.datetime.now(dt.UTC).date(), sections_before=state.get("sections") or {}
    )
    report.problems += log.problems + compared.problems
    report.notes += compared.notes

    if report.ok:
        report.verdict = _verdict(checkpoint, verifier, cosigned, compared.counts, history)
    if report.ok and save:
        state_path.parent.mkdir(parents=True, exist_ok=True)
        state_path.write_text(
            json.dumps(
                {
                    "origin": checkpoint.origin,
                    "verifier_key": str(verifier),
                    "size": size,
                    "root": base64.b64encode(checkpoint.root).decode(),
                    "checkpoint": note,
                    "time": report.signed_at,
                    "checked_at": dt.datetime.now(dt.UTC).strftime(TIME_FORMAT),
                    "leaves": [
                        [h.hex(), describe(leaf) if leaf else "?"] for h, leaf in zip(hashes, decoded, strict=True)
                    ],
                    "sections": _sections(full),
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        store.write(bundles)
        report.notes.append(f"state saved to {state_path} (the leaves in {store.root})")
    if mirror is not None:
        if report.ok:
            written = mirror_write(
                mirror,
                note=note,
                verifier_key=str(verifier),
                tree=tree,
                size=size,
                bundles=bundles,
                documents={EXPORTS["export"]: registry_raw, EXPORTS["full_export"]: full_raw},
            )
            report.notes.append(f"mirror written to {mirror} ({written} files: a static tlog-tiles log)")
        else:
            report.notes.append(f"mirror not written to {mirror}: the log did not verify")
    return report


def _count(text: str) -> int:
    """A whole number in ASCII digits (``int`` would also read other scripts' digits)."""
    if not re.fullmatch(r"[0-9]{1,6}", text):
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a whole number (ASCII digits)")
    return int(text)


def _seconds(text: str) -> float:
    """Seconds in ASCII digits, with an optional fraction (``float`` reads "٤١٥" and "1e9" too)."""
    if not re.fullmatch(r"[0-9]{1,12}(?:\.[0-9]{1,6})?", text):
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a number of seconds (ASCII digits)")
    return float(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m registry.verify",
        description="Verify the urn:ogf registry (a site or a mirror directory) against its signed transparency log.",
    )
    parser.add_argument("source", help="the site's base URL (https://urn.ogf.org/) or a mirror directory")
    parser.add_argument("--key", help="the log's verifier key name+id+key, as published (pin it)")
    parser.add_argument(
        "--witness",
        action="append",
        default=[],
        metavar="KEY",
        help="a witness's cosigner key (C2SP vkey name+id+base64, signature type 0x04); repeat "
        "for each witness you trust",
    )
    parser.add_argument(
        "--quorum",
        type=_count,
        metavar="N",
        help="how many of the --witness keys must have cosigned the checkpoint (default: all)",
    )
    parser.add_argument("--export", type=Path, help="check this registry.json file instead of the site's")
    parser.add_argument("--full-export", type=Path, help="check this registry-full.json file instead of the site's")
    parser.add_argument(
        "--state",
        type=Path,
        help="where the last checkpoint seen is kept (default: ~/.local/state/urn-ogf-registry-verify/<source>.json)",
    )
    parser.add_argument("--accept-new-key", action="store_true", help="accept a rotated key given with --key")
    parser.add_argument(
        "--mirror",
        type=Path,
        help="after a clean run, write a static tlog-tiles copy of the "
        "log (checkpoint, key, hash tiles, entry bundles) and the exports here",
    )
    parser.add_argument("--no-save", action="store_true", help="do not update the state file")
    parser.add_argument("--full", action="store_true", help=argparse.SUPPRESS)  # every run now reads everything
    parser.add_argument(
        "--max-age",
        type=_seconds,
        default=MAX_AGE_SECONDS,
        metavar="SECONDS",
        help="report a site whose checkpoint was signed longer ago than this (default: a day; "
        "not applied to a mirror directory, which is as old as its copy)",
    )
    return parser


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.quorum is not None and args.quorum > len(args.witness):
        parser.error(f"--quorum {args.quorum} needs at least {args.quorum} --witness keys ({len(args.witness)} given)")
    try:
        witnesses = [CosignatureVerifier.parse(w) for w in args.witness]
    except NoteError as exc:
        parser.error(f"--witness: {exc}")
    try:
        report = verify(
            args.source,
            key=args.key,
            state_path=args.state,
            export=args.export,
            full_export=args.full_export,
            accept_new_key=args.accept_new_key,
            save=not args.no_save,
            mirror=args.mirror,
            max_age=args.max_age,
            witnesses=witnesses,
            quorum=args.quorum,
        )
    except (CannotCheck, NoteError) as exc:
        out.write(f"COULD NOT CHECK: {exc}\n")
        return 2
    out.write(report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
