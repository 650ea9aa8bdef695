"""Verify a copy of the registry against its transparency log: ``python -m registry.verify <site or mirror>``.

Runs without Django (standard library, ``cryptography`` and ``jsonschema``), as a mirror would,
and as ``manage.py verify_registry``. It

1. checks the checkpoint's signature with the verifier key you give (``--key``) or the one it
   pinned on its first run (it then says it trusted the site on first use), and with
   ``--witness KEY`` (repeatable) that at least ``--quorum N`` distinct witness keys validly
   cosigned this very checkpoint (C2SP tlog-cosignature; ``verifier.signed``);
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

The parts are in ``registry/verifier/``, by what they check.

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
from pathlib import Path

from .logcore.cosignature import CosignatureVerifier
from .logcore.kinds import LeafError, describe, leaf_decode
from .logcore.merkle import Tree, leaf_hash
from .logcore.note import TIME_FORMAT, NoteError, Verifier, checkpoint_open
from .verifier.compare import compare
from .verifier.fetch import CannotCheck, NotServed, Source, gather, unserved_said
from .verifier.history import history, name_changed_leaves, signed_history
from .verifier.mirror import mirror_write
from .verifier.replay import replay
from .verifier.report import Report
from .verifier.signed import MAX_AGE_SECONDS, distinct_witnesses, judge_freshness, witnessed
from .verifier.store import BundleStore

__all__ = ["CannotCheck", "NotServed", "Report", "Source", "build_parser", "main", "verify"]

EXPORTS = {"export": "urn/registry.json", "full_export": "urn/registry-full.json"}


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
    keys = len(distinct_witnesses(witnesses)[0])
    quorum = keys if quorum is None else quorum
    if quorum > keys:
        raise ValueError(f"a quorum of {quorum} needs at least {quorum} distinct witness keys ({keys} given)")

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
    judge_freshness(report, checkpoint, state, max_age=max_age if site.remote else None)
    cosigned = (witnessed(report, note, witnesses, quorum), keys, quorum)

    # 2. every leaf, as served now, and the tree they make
    leaves, bundles, unserved = gather(site, size)
    if unserved:  # the site says it no longer has entries it signed: a difference, not a fault
        signed_history(report, state, checkpoint)
        report.problems += [unserved_said(gap, size, state.get("leaves") or []) for gap in unserved]
        report.notes.append(
            "what the log holds was not compared with what the site publishes: the site does not "
            "serve every entry of its signed checkpoint"
        )
        return report
    hashes = [leaf_hash(leaf) for leaf in leaves]
    tree = Tree(hashes)
    if tree.root() != checkpoint.root:
        name_changed_leaves(site, tree, size, report)
    decoded: list[dict | None] = []
    for index, leaf in enumerate(leaves):
        try:
            decoded.append(leaf_decode(leaf))
        except LeafError as exc:
            decoded.append(None)
            report.problems.append(f"entry {index}: {exc}")

    # 3. the log only grew since the last run
    store = BundleStore(state_path)
    seen_before = history(report, state, checkpoint, tree, hashes, decoded, store)

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
        report.verdict = _verdict(checkpoint, verifier, cosigned, compared.counts, seen_before)
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
    try:
        witnesses = [CosignatureVerifier.parse(w) for w in args.witness]
    except NoteError as exc:
        parser.error(f"--witness: {exc}")
    groups, duplicates = distinct_witnesses(witnesses)
    if args.quorum is not None and args.quorum > len(groups):
        also = f" ({'; '.join(duplicates)})" if duplicates else ""
        parser.error(
            f"--quorum {args.quorum} needs at least {args.quorum} distinct --witness keys, and "
            f"{len(groups)} are given{also}"
        )
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
