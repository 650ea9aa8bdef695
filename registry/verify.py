"""Verify a copy of the registry against its transparency log: ``python -m registry.verify <site or mirror>``.

Runs without Django (standard library, ``cryptography`` and ``jsonschema``), as a mirror would,
and as ``manage.py verify_registry``. It

1. checks the checkpoint's signature with the verifier key you give (``--key``) or the one it
   pinned on its first run (it then says it trusted the site on first use);
2. reads every leaf (C2SP tlog-tiles entry bundles), checks each is a canonical leaf of a
   known kind, and recomputes the tree: its root must be the signed one. A full bundle (256
   entries) never changes, so it is downloaded once: later runs read it from beside the state
   file, after checking it against the leaf hashes that run verified (a copy that differs is
   fetched again), and download only the bundles the log grew into (``--full``: all again);
3. checks the log only grew since the checkpoint it saw last time (kept in a state file with
   the leaf hashes it saw), naming any entry that is gone or changed, and that the checkpoint is
   fresh: a site signs one every minute with the time, so an older one than last time, or one
   over ``--max-age`` old, is a frozen or replaying site;
4. checks every record of the public export (``urn/registry.json``, or ``--export FILE``) is in
   the log and matches its leaf, field by field, and every reservation it lists is the last one
   the log granted for that SNID, until the same date.

It reports exactly what differs and exits 0 (all verified), 1 (something differs) or 2 (could
not check: unreachable, malformed answers). The state file is updated only after a clean run.
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
from dataclasses import dataclass, field
from pathlib import Path

from .transparency.kinds import (ADMINISTRATIVE_CHANGE, RESERVATION_ENDED, RESERVATION_GRANTED, SNID_VERSION,
                                 LeafError, describe, leaf_decode, record_of_export, sha256_hex)
from .transparency.merkle import Tree, leaf_hash
from .transparency.note import TIME_FORMAT, NoteError, Verifier, checkpoint_open
from .transparency.tiles import WIDTH, bundle_bytes, bundle_entries, tile_bytes, tiles_for

USER_AGENT = "urn-ogf-registry-verify/1"
MAX_DOWNLOAD = 64 * 1024 * 1024


class CannotCheck(Exception):
    """The source could not be read; nothing about the log is concluded from it."""


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    size: int = 0
    checked_records: int = 0
    signed_at: str | None = None  # the checkpoint's signed time, if it has one

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        lines = [f"  {n}" for n in self.notes] + [f"DIFFERS: {p}" for p in self.problems]
        verdict = (f"VERIFIED: {self.checked_records} record(s) of the export are in the log of {self.size} "
                   "entries, and the log is consistent with the checkpoint seen before." if self.ok
                   else f"NOT VERIFIED: {len(self.problems)} difference(s).")
        return "\n".join(lines + [verdict]) + "\n"


class Source:
    """A site (http[s]://...) or a mirror directory with the same layout."""

    def __init__(self, base: str, mirror: Path | None = None):
        self.base = base if re.match(r"(?i)https?://", base) else str(Path(base))
        self.remote = bool(re.match(r"(?i)https?://", base))
        self.mirror = mirror

    def get(self, path: str) -> bytes:
        if self.remote:
            url = self.base.rstrip("/") + "/" + path
            request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    data = response.read(MAX_DOWNLOAD + 1)
            except urllib.error.HTTPError as exc:
                detail = exc.read(2000).decode("utf-8", "replace").strip()
                raise CannotCheck(f"{url}: HTTP {exc.code} {detail}") from None
            except (urllib.error.URLError, OSError) as exc:
                raise CannotCheck(f"{url}: {getattr(exc, 'reason', exc)}") from None
        else:
            try:
                data = (Path(self.base) / path).read_bytes()
            except OSError as exc:
                raise CannotCheck(f"{Path(self.base) / path}: {exc.strerror or exc}") from None
        if len(data) > MAX_DOWNLOAD:
            raise CannotCheck(f"{path} is larger than {MAX_DOWNLOAD:,} bytes")
        self.keep(path, data)
        return data

    def keep(self, path: str, data: bytes) -> None:
        """Write ``data`` to the mirror directory, if one was asked for."""
        if self.mirror is not None:
            target = self.mirror / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


class BundleStore:
    """Full entry bundles verified by earlier runs, kept beside the state file (``<state>.tiles/``).

    A full bundle is immutable in a tile log, so a run need not download it again. Nothing read
    from here is trusted blindly: a bundle is used only if its leaves hash to what the state file
    says the last clean run saw at those indexes (anything else is discarded and fetched), and
    the tree recomputed from all leaves must still give the signed root.
    """

    def __init__(self, state_path: Path):
        self.root = state_path.with_name(state_path.name + ".tiles")

    def read(self, ref, seen: list) -> list[bytes] | None:
        """The entries of full bundle ``ref``, if kept and matching ``seen`` (the state's leaf hashes)."""
        start = ref.index * WIDTH
        if not ref.full or len(seen) < start + WIDTH:
            return None
        try:
            entries = bundle_entries((self.root / ref.path()).read_bytes())
        except (OSError, ValueError):
            return None
        if len(entries) != WIDTH or any(leaf_hash(leaf).hex() != seen[start + i][0]
                                        for i, leaf in enumerate(entries)):
            return None
        return entries

    def write(self, ref, data: bytes) -> None:
        if ref.full:
            target = self.root / ref.path()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


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


def _differences(logged, exported, where: str = "") -> list[str]:
    """Field-by-field differences between a logged record and an exported one."""
    if isinstance(logged, dict) and isinstance(exported, dict):
        out = []
        for key in sorted(set(logged) | set(exported)):
            out += _differences(logged.get(key), exported.get(key), f"{where}.{key}" if where else key)
        return out
    if logged != exported:
        return [f"{where}: the log says {json.dumps(logged, ensure_ascii=False)[:300]}, "
                f"the export says {json.dumps(exported, ensure_ascii=False)[:300]}"]
    return []


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
        report.problems.append(f"the checkpoint was {said}, earlier than the one the last run saw ({before}): "
                               "the site is serving an older checkpoint than before")
    elif max_age is not None and age > max_age:
        report.problems.append(f"the checkpoint was {said}, over {_age(max_age)}: the site signs a new one "
                               "every minute, so it may be frozen or replaying an old answer")
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


def _gather(site: Source, size: int, store: BundleStore | None, seen: list,
            report: Report) -> tuple[list[bytes], dict, int] | None:
    """(the log's leaves, the full bundles downloaded, how many kept bundles were used), or None
    when a bundle holds the wrong number of entries (reported). ``store`` None: download all."""
    leaves: list[bytes] = []
    fetched: dict = {}  # full bundles downloaded this run, kept after a clean run
    reused = 0
    for ref in tiles_for(size, None):
        path = ref.path().replace("tile/", "log/tile/", 1)
        entries = store.read(ref, seen) if store is not None else None
        if entries is not None:
            reused += 1
            site.keep(path, bundle_bytes(entries))
            leaves += entries
            continue
        data = site.get(path)
        try:
            entries = bundle_entries(data)
        except ValueError as exc:
            raise CannotCheck(f"{ref.path()}: {exc}") from None
        if len(entries) != ref.width:
            report.problems.append(f"{ref.path()} holds {len(entries)} entries, not {ref.width}")
            return None
        if ref.full:
            fetched[ref] = data
        leaves += entries
    return leaves, fetched, reused


def verify(source: str, *, key: str | None = None, state_path: Path | None = None, export: Path | None = None,
           accept_new_key: bool = False, save: bool = True, mirror: Path | None = None,
           max_age: float | None = MAX_AGE_SECONDS, full: bool = False) -> Report:
    report = Report()
    site = Source(source, mirror)
    state_path = state_path or default_state_path(source)
    state = _load_state(state_path)

    # 1. the key and the checkpoint
    pinned = state.get("verifier_key")
    if key:
        verifier = Verifier.parse(key)
        if pinned and pinned != str(verifier) and not accept_new_key:
            report.problems.append(f"the verifier key changed: you gave {verifier}, the last run checked "
                                   f"{pinned}; if the registry announced a key rotation, run again with "
                                   "--accept-new-key")
            return report
    elif pinned:
        verifier = Verifier.parse(pinned)
    else:
        verifier = Verifier.parse(site.get("log/key").decode("ascii", "replace"))
        report.notes.append(f"no key given: trusted the site's own key {verifier} on first use (pin it "
                            "with --key from a source you trust)")
    note = site.get("log/checkpoint").decode("utf-8", "replace")
    try:
        checkpoint = checkpoint_open(note, verifier, state.get("origin"))
    except NoteError as exc:
        report.problems.append(f"the checkpoint does not verify: {exc}")
        return report
    report.size = size = checkpoint.size
    report.notes.append(f"checkpoint of {checkpoint.origin}: {size} entries, root "
                        f"{base64.b64encode(checkpoint.root).decode()} (signature verified)")
    _judge_freshness(report, checkpoint, state, max_age=max_age if site.remote else None)

    # 2. every leaf, and the tree they make
    seen = state.get("leaves") or []
    store = BundleStore(state_path)
    gathered = _gather(site, size, None if full else store, seen, report)
    if gathered is None:
        return report
    leaves, fetched, reused = gathered
    hashes = [leaf_hash(leaf) for leaf in leaves]
    tree = Tree(hashes)
    if tree.root() != checkpoint.root and reused:
        # What changed is the site's log, not the bundles kept here (they match what was verified):
        # read it all from the site, so the report names what the site changed as a first run would.
        gathered = _gather(site, size, None, seen, report)
        if gathered is None:
            return report
        leaves, fetched, reused = gathered
        hashes = [leaf_hash(leaf) for leaf in leaves]
        tree = Tree(hashes)
    if reused:
        report.notes.append(f"{reused} full entry bundle(s) ({reused * WIDTH:,} entries) read from the copy "
                            f"verified by earlier runs ({store.root}); {len(fetched)} downloaded")
    if tree.root() != checkpoint.root:
        report.problems.append("the entries served do not hash to the signed root: the log's leaves were "
                               "changed after they were logged")
        for ref in tiles_for(size, 0):
            served = site.get(ref.path().replace("tile/", "log/tile/", 1))
            ours = tile_bytes(tree, ref)
            for i in range(ref.width):
                if served[32 * i:32 * i + 32] != ours[32 * i:32 * i + 32]:
                    report.problems.append(f"entry {ref.index * WIDTH + i}: its leaf no longer matches the "
                                           "hash the log's tree holds for it")
    decoded: list[dict | None] = []
    for index, leaf in enumerate(leaves):
        try:
            decoded.append(leaf_decode(leaf))
        except LeafError as exc:
            decoded.append(None)
            report.problems.append(f"entry {index}: {exc}")

    # 3. the log only grew since the last run
    if state.get("size") is not None:
        old_size, old_root = state["size"], base64.b64decode(state["root"])
        if old_size > size:
            report.problems.append(f"the log shrank: it had {old_size} entries when last checked "
                                   f"({state.get('checked_at', 'earlier')}), it now has {size}")
        elif tree.root(old_size) != old_root:
            report.problems.append(f"the log of {size} entries does not extend the checkpoint of {old_size} "
                                   "entries seen before: its history was rewritten or forked")
        else:
            report.notes.append(f"consistent with the checkpoint of {old_size} entries seen before")
        if seen and (old_size > size or tree.root(min(old_size, size)) != old_root):
            now = {h.hex(): i for i, h in enumerate(hashes)}
            for index, (hashed, what) in enumerate(seen):
                if hashed not in now:
                    report.problems.append(f"entry {index} ({what}) seen before is no longer in the log")
                elif now[hashed] != index:
                    report.problems.append(f"entry {index} ({what}) seen before is now entry {now[hashed]}")

    # 4. every exported record is in the log, as logged
    by_version: dict[tuple[str, int], tuple[int, dict]] = {}
    for index, leaf in enumerate(decoded):
        if leaf is not None and leaf["kind"] == SNID_VERSION.name:
            if leaf.get("record") is not None and sha256_hex(leaf["record"]) != leaf["record_sha256"]:
                report.problems.append(f"entry {index}: its record does not match its own record_sha256")
            by_version.setdefault((leaf["snid"].lower(), leaf["version"]), (index, leaf))
        elif leaf is not None and leaf["kind"] == ADMINISTRATIVE_CHANGE.name and "record_sha256" in leaf:
            # An approved administrative change: the version's public record reads so from now on.
            key = (leaf["snid"].lower(), leaf["version"])
            if key in by_version:
                first, logged = by_version[key]
                logged = {**logged, "record_sha256": leaf["record_sha256"]}
                if logged.get("record") is not None:
                    logged["record"] = {**logged["record"], "registrant": leaf["registrant"]}
                by_version[key] = (index, logged)
    reservations: dict[str, tuple[int, dict]] = {}  # the last reservation leaf of each SNID
    for index, leaf in enumerate(decoded):
        if leaf is not None and leaf["kind"] in (RESERVATION_GRANTED.name, RESERVATION_ENDED.name):
            reservations[leaf["snid"].lower()] = (index, leaf)
    try:
        raw = export.read_bytes() if export is not None else site.get("urn/registry.json")
        document = json.loads(raw)
        records, reserved = document["snids"], document.get("reservations", [])
    except OSError as exc:
        raise CannotCheck(f"{export}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise CannotCheck(f"the export is not a registry.json document ({exc})") from None
    for record in records:
        name = f"urn:ogf:{record.get('snid')}: version {record.get('version')}"
        found = by_version.get((str(record.get("snid", "")).lower(), record.get("version")))
        if found is None:
            report.problems.append(f"{name} is in the export but not in the log")
            continue
        index, leaf = found
        exported = record_of_export(record)
        if leaf.get("record") is None:
            if sha256_hex(exported) != leaf["record_sha256"]:
                report.problems.append(f"{name} (log entry {index}): the export's record does not match the "
                                       "logged record digest")
        else:
            for difference in _differences(leaf["record"], exported):
                report.problems.append(f"{name} (log entry {index}): {difference}")
        report.checked_records += 1
    for reservation in reserved:
        snid, until = str(reservation.get("snid", "")), reservation.get("reserved_until")
        index, leaf = reservations.get(snid.lower(), (None, None))
        if leaf is None or leaf["kind"] != RESERVATION_GRANTED.name:
            report.problems.append(f"the reservation of urn:ogf:{snid}: is in the export but the log "
                                   + ("has no reservation of it" if leaf is None else
                                      f"says it ended (entry {index})"))
        elif leaf["reserved_until"] != until:
            report.problems.append(f"the reservation of urn:ogf:{snid}: (log entry {index}): the log says until "
                                   f"{leaf['reserved_until']}, the export says until {until}")

    if report.ok and save:
        state_path.parent.mkdir(parents=True, exist_ok=True)
        state_path.write_text(json.dumps({
            "origin": checkpoint.origin, "verifier_key": str(verifier), "size": size,
            "root": base64.b64encode(checkpoint.root).decode(), "checkpoint": note, "time": report.signed_at,
            "checked_at": dt.datetime.now(dt.UTC).strftime(TIME_FORMAT),
            "leaves": [[h.hex(), describe(leaf) if leaf else "?"] for h, leaf in zip(hashes, decoded)],
        }, indent=1) + "\n", encoding="utf-8")
        for ref, data in fetched.items():
            store.write(ref, data)
        report.notes.append(f"state saved to {state_path}")
    return report


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m registry.verify",
        description="Verify the urn:ogf registry (a site or a mirror directory) against its signed transparency log.")
    parser.add_argument("source", help="the site's base URL (https://urn.ogf.org/) or a mirror directory")
    parser.add_argument("--key", help="the log's verifier key name+id+key, as published (pin it)")
    parser.add_argument("--export", type=Path, help="check this registry.json file instead of the site's")
    parser.add_argument("--state", type=Path, help="where the last checkpoint seen is kept "
                        "(default: ~/.local/state/urn-ogf-registry-verify/<source>.json)")
    parser.add_argument("--accept-new-key", action="store_true", help="accept a rotated key given with --key")
    parser.add_argument("--mirror", type=Path, help="also save what was fetched here (a static mirror)")
    parser.add_argument("--no-save", action="store_true", help="do not update the state file")
    parser.add_argument("--full", action="store_true", help="download every entry bundle again, instead of "
                        "reading the full ones earlier runs verified from beside the state file")
    parser.add_argument("--max-age", type=float, default=MAX_AGE_SECONDS, metavar="SECONDS",
                        help="report a site whose checkpoint was signed longer ago than this (default: a day; "
                             "not applied to a mirror directory, which is as old as its copy)")
    return parser


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        report = verify(args.source, key=args.key, state_path=args.state, export=args.export,
                        accept_new_key=args.accept_new_key, save=not args.no_save, mirror=args.mirror,
                        max_age=args.max_age, full=args.full)
    except (CannotCheck, NoteError) as exc:
        out.write(f"COULD NOT CHECK: {exc}\n")
        return 2
    out.write(report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
