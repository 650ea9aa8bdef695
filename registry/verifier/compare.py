"""What the log holds against what the site publishes now, both ways.

``registry.json`` (each SNID's current record, its resolvers, status and successor, the
reservations) and ``registry-full.json`` (every approved version, resolvers, stewards and
deprecation: registry/exports_full.py) are compared with the replayed log
(``replay.Replay``): every fact the log holds must be published as logged, and everything
published that the log should hold must be in it — every SNID of the log in the exports and
every SNID of the exports in the log. Each difference is one sentence naming the SNID, the
log entry and the field.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from ..gfd191 import SECTIONS
from ..logcore.kinds import RECORD_KEYS, RESERVATION_GRANTED, record_of_export, sha256_hex
from .replay import Logged, Replay

#: The declared part of a resolver, as the log holds it (its health is not logged).
RESOLVER_KEYS = ("name", "template", "returns", "media_types", "primary")


@dataclass
class Compared:
    problems: list[str]
    counts: dict[str, int]
    notes: list[str]


def _quote(value) -> str:
    return json.dumps(value, ensure_ascii=False)[:300]


def differences(logged, published, where: str = "") -> list[str]:
    """Field-by-field differences between what the log says and what the site publishes."""
    if isinstance(logged, dict) and isinstance(published, dict):
        out = []
        for key in sorted(set(logged) | set(published)):
            out += differences(logged.get(key), published.get(key), f"{where}.{key}" if where else key)
        return out
    if logged != published:
        return [f"{where}: the log says {_quote(logged)}, the site publishes {_quote(published)}"]
    return []


def _list(value) -> list:
    """A published list, or [] for anything else (a malformed field then differs from the log as an empty one)."""
    return value if isinstance(value, list) else []


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _by_snid(items, what: str, problems: list[str]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for item in _list(items):
        if not isinstance(item, dict) or not isinstance(item.get("snid"), str):
            problems.append(f"{what}: an entry without an SNID: {_quote(item)}")
            continue
        if item["snid"].lower() in out:
            problems.append(f"{what}: urn:ogf:{item['snid']}: is listed twice")
        out[item["snid"].lower()] = item
    return out


def compare(log: Replay, export: dict, full: dict, *, today: dt.date, sections_before: dict) -> Compared:
    """``export``: registry.json; ``full``: registry-full.json; ``sections_before``: the prose sections'
    digests the last clean run saw ("snid/version" -> {section: sha256}), to say which one changed."""
    problems: list[str] = []
    notes: list[str] = []
    records = _by_snid(export.get("snids"), "registry.json", problems)
    snids = _by_snid(full.get("snids"), "registry-full.json", problems)
    registered = {key: logged for key, logged in log.snids.items() if logged.registered}
    counts = {
        "snids": len(registered),
        "versions": 0,
        "resolvers": 0,
        "stewards": 0,
        "deprecations": 0,
        "reservations": 0,
    }

    for key, logged in sorted(registered.items()):
        name = f"urn:ogf:{logged.snid}:"
        first = min(index for index, _ in logged.versions.values())
        record, entry = records.get(key), snids.get(key)
        if record is None:
            problems.append(f"{name} is registered in the log (entry {first}) but not in registry.json")
        else:
            problems += _current(logged, record)
        if entry is None:
            problems.append(f"{name} is registered in the log (entry {first}) but not in registry-full.json")
            continue
        problems += _versions(logged, entry, sections_before)
        problems += _resolvers(logged, entry, record)
        problems += _deprecation(logged, entry, record)
        problems += _stewards(logged, entry)
        counts["versions"] += len(logged.versions)
        counts["resolvers"] += bool(logged.resolvers and logged.resolvers[1]["resolvers"])
        counts["stewards"] += sum(count for _, count in logged.stewards.values())
        counts["deprecations"] += logged.deprecated() is not None
    for key, item in sorted(records.items()):
        if key not in registered:
            problems.append(f"urn:ogf:{item['snid']}: is in registry.json but the log has no registration of it")
    for key, item in sorted(snids.items()):
        if key not in registered:
            problems.append(f"urn:ogf:{item['snid']}: is in registry-full.json but the log has no registration of it")
    counts["reservations"], reservation_problems = _reservations(log, export.get("reservations"), today)
    problems += reservation_problems
    return Compared(problems, counts, notes)


def _current(logged: Logged, record: dict) -> list[str]:
    """registry.json's record: the log's current version, with the administrative changes since."""
    name = f"urn:ogf:{logged.snid}: version {record.get('version')}"
    latest = logged.latest_version()
    if record.get("version") != latest:
        index = logged.versions[latest][0]
        return [
            f"urn:ogf:{logged.snid}: registry.json shows version {_quote(record.get('version'))} as current; "
            f"the log's latest is version {latest} (entry {index})"
        ]
    index, current = logged.current
    exported = record_of_export(record)
    if current["record"] is None:
        if sha256_hex(exported) != current["record_sha256"]:
            return [f"{name} (log entry {index}): registry.json's record does not match the logged record digest"]
        return []
    return [f"{name} (log entry {index}): {d}" for d in differences(current["record"], exported)]


def _versions(logged: Logged, entry: dict, sections_before: dict) -> list[str]:
    """registry-full.json's versions: every approved version exactly as logged, and no other."""
    problems = []
    published = {}
    for version in _list(entry.get("versions")):
        number = version.get("version") if isinstance(version, dict) else None
        if not isinstance(number, int) or isinstance(number, bool):
            problems.append(f"urn:ogf:{logged.snid}: registry-full.json lists a version without a number")
            continue
        published[number] = version
    for number, (index, leaf) in sorted(logged.versions.items()):
        name = f"urn:ogf:{logged.snid}: version {number}"
        version = published.get(number)
        if version is None:
            problems.append(f"{name} is in the log (entry {index}) but the site no longer publishes it")
            continue
        exported = {key: version.get(key) for key in RECORD_KEYS}
        exported = record_of_export(exported)
        if leaf.get("record") is not None:
            problems += [f"{name} (log entry {index}): {d}" for d in differences(leaf["record"], exported)]
        elif sha256_hex(exported) != leaf["record_sha256"]:
            problems.append(f"{name} (log entry {index}): the published record does not match the logged digest")
        if version.get("document_sha256") != leaf["document_sha256"]:
            problems.append(
                _document_changed(name, index, version, _dict(sections_before.get(f"{logged.snid.lower()}/{number}")))
            )
    for number in sorted(set(published) - set(logged.versions)):
        problems.append(f"urn:ogf:{logged.snid}: version {number} is published (registry-full.json) but not in the log")
    return problems


def _document_changed(name: str, index: int, version: dict, before: dict) -> str:
    """The registration document no longer hashes to the logged digest: say which public section changed
    since the last clean run, when it can be told."""
    said = (
        f"{name} (log entry {index}): the registration document the site holds no longer hashes to the "
        "logged document_sha256: its prose sections or its unpublished registrant details were changed"
    )
    now = _dict(version.get("sections_sha256"))
    if before:
        changed = sorted(key for key in set(before) | set(now) if before.get(key) != now.get(key))
        said += (
            f"; changed since the last run: {', '.join(_heading(key) for key in changed)}"
            if changed
            else "; no public section changed since the last run, so an unpublished detail did"
        )
    return said


def _heading(key: str) -> str:
    section = next((s for s in SECTIONS if s.key == key), None)
    return f"section {section.heading}" if section is not None else f"section {_quote(key)}"


def _resolvers(logged: Logged, entry: dict, record: dict | None) -> list[str]:
    index, leaf = logged.resolvers if logged.resolvers else (None, {"resolvers": []})
    expected = leaf["resolvers"]
    problems = []
    for where, resolvers in (
        ("registry-full.json", entry.get("resolvers")),
        ("registry.json", record.get("resolvers") if record is not None else None),
    ):
        if resolvers is None and where == "registry.json":
            continue
        declared = [{key: r.get(key) for key in RESOLVER_KEYS} if isinstance(r, dict) else r for r in _list(resolvers)]
        if declared == expected:
            continue
        if len(declared) != len(expected):
            said = (
                f"the log's last resolvers entry ({index}) holds {len(expected)}"
                if index is not None
                else "the log holds none"
            )
            templates = ", ".join(_quote(r.get("template") if isinstance(r, dict) else r) for r in declared)
            problems.append(
                f"urn:ogf:{logged.snid}: {where} publishes {len(declared)} resolver(s) ({templates or 'none'}); {said}"
            )
            continue
        for position, (logged_one, published) in enumerate(zip(expected, declared, strict=True), start=1):
            problems += [
                f"urn:ogf:{logged.snid}: resolver {position} in {where} (log entry {index}): {d}"
                for d in differences(logged_one, published)
            ]
    return problems


def _deprecation(logged: Logged, entry: dict, record: dict | None) -> list[str]:
    problems = []
    in_force = logged.deprecated()
    published = entry.get("deprecation")
    name = f"urn:ogf:{logged.snid}:"
    if in_force is None:
        said = (
            f"the log withdrew its deprecation (entry {logged.deprecation[0]})"
            if logged.deprecation
            else "the log never deprecated it"
        )
        if published is not None or entry.get("status") != "registered":
            problems.append(f"{name} is published as deprecated ({_quote(published)}), but {said}")
        if record is not None and (record.get("status") != "registered" or record.get("successor") is not None):
            problems.append(
                f"{name} registry.json says status {_quote(record.get('status'))}, successor "
                f"{_quote(record.get('successor'))}, but {said}"
            )
        return problems
    index, leaf = in_force
    if not isinstance(published, dict) or entry.get("status") != "deprecated":
        return [
            f"{name} was deprecated in the log (entry {index}), but registry-full.json does not say so "
            f"(status {_quote(entry.get('status'))})"
        ]
    for key in ("reason", "successor"):
        if published.get(key) != leaf[key]:
            problems.append(
                f"{name} deprecation (log entry {index}): {key}: the log says {_quote(leaf[key])}, "
                f"the site publishes {_quote(published.get(key))}"
            )
    if record is not None and (record.get("status") != "deprecated" or record.get("successor") != leaf["successor"]):
        problems.append(
            f"{name} deprecation (log entry {index}): registry.json says status "
            f"{_quote(record.get('status'))}, successor {_quote(record.get('successor'))}; the log says "
            f"deprecated, successor {_quote(leaf['successor'])}"
        )
    return problems


def _stewards(logged: Logged, entry: dict) -> list[str]:
    """Each name is listed as many times as the log holds stewards going by it (the registrant, made the first
    steward on approval, included), and no name the log never gave a steward."""
    problems = []
    name = f"urn:ogf:{logged.snid}:"
    listed: dict[str, int] = {}
    for steward in _list(entry.get("stewards")):
        key = steward.get("name") if isinstance(steward, dict) else None
        listed[key] = listed.get(key, 0) + 1
    for steward, (index, count) in sorted(logged.stewards.items(), key=lambda item: item[1][0]):
        shown = listed.get(steward, 0)
        if shown == count:
            continue
        if count == 0:
            problems.append(
                f"{name} the log removed {_quote(steward)} as a steward (entry {index}); the site still lists them"
            )
        elif shown == 0:
            problems.append(
                f"{name} the log made {_quote(steward)} a steward (entry {index}) and never removed "
                "them; the site does not list them"
            )
        else:
            problems.append(
                f"{name} the log holds {count} steward(s) named {_quote(steward)} (last change: entry "
                f"{index}); the site lists {shown}"
            )
    for steward in sorted((s for s in listed if s not in logged.stewards), key=str):
        problems.append(f"{name} the site lists {_quote(steward)} as a steward; the log never made them one")
    return problems


def _reservations(log: Replay, reserved: list, today: dt.date) -> tuple[int, list[str]]:
    """registry.json's reservations: each the last one the log granted; each one the log holds in force
    (to a date after today: the site's day may differ from ours by one) is listed."""
    problems: list[str] = []
    listed = _by_snid(reserved, "registry.json reservations", problems)
    for key, reservation in sorted(listed.items()):
        snid, until = reservation["snid"], reservation.get("reserved_until")
        logged = log.snids.get(key)
        index, leaf = logged.reservation if logged and logged.reservation else (None, None)
        if logged is not None and logged.registered:
            first = min(i for i, _ in logged.versions.values())
            problems.append(
                f"the reservation of urn:ogf:{snid}: is in registry.json, but the log registered "
                f"the SNID (entry {first})"
            )
        elif leaf is None or leaf["kind"] != RESERVATION_GRANTED.name:
            problems.append(
                f"the reservation of urn:ogf:{snid}: is in registry.json but the log "
                + ("has no reservation of it" if leaf is None else f"says it ended (entry {index})")
            )
        elif leaf["reserved_until"] != until:
            problems.append(
                f"the reservation of urn:ogf:{snid}: (log entry {index}): the log says until "
                f"{leaf['reserved_until']}, registry.json says until {until}"
            )
    in_force = 0
    for key, logged in sorted(log.snids.items()):
        if logged.registered or logged.reservation is None:
            continue
        index, leaf = logged.reservation
        if leaf["kind"] != RESERVATION_GRANTED.name:
            continue
        until = leaf["reserved_until"]
        if until is not None and until <= today.isoformat():
            continue  # lapsed, or lapsing today where the site is
        in_force += 1
        if key not in listed:
            problems.append(
                f"urn:ogf:{logged.snid}: was reserved until {until or 'further notice'} (log entry "
                f"{index}), but registry.json does not list the reservation"
            )
    return in_force, problems
