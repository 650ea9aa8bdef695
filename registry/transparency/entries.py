"""The log's latest entries in words, for people (``/log/``): what changed, to which SNID, when.

Reads the stored leaves one page at a time (two queries: the count and the page) and says
each in a sentence; the leaf itself, its hash and proof are one link away
(``/api/log/entries/<index>/proof``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.core.paginator import Page, Paginator

from ..logcore.kinds import (
    ADMINISTRATIVE_CHANGE,
    RESERVATION_ENDED,
    RESERVATION_GRANTED,
    SNID_DEPRECATED,
    SNID_RESOLVERS,
    SNID_UNDEPRECATED,
    SNID_VERSION,
    STEWARD_CHANGED,
    STEWARD_RENAMED,
)
from .models import LogEntry

PER_PAGE = 25
REASON_SHOWN = 200


@dataclass(frozen=True)
class EntryInWords:
    index: int
    kind: str
    snid: str
    at: str  # "2026-11-25T10:20:00Z", as logged
    what: str
    reason: str


def _quoted(text: str) -> str:
    text = " ".join(str(text).split())
    return f"“{text[:REASON_SHOWN]}{'…' if len(text) > REASON_SHOWN else ''}”"


def _resolver_name(resolver: dict) -> str:
    return f"“{' '.join(str(resolver.get('name', '')).split())}”"


def _resolvers(leaf: dict) -> str:
    names = [f"{_resolver_name(r)} ({r.get('template', '')})" for r in leaf.get("resolvers", [])]
    return "; ".join(names) if names else "none"


def _resolver_changes(before: list[dict], after: list[dict]) -> str:
    """'added “archive” (https://…), removed “mirror”, changed “catalogue”': resolvers matched by name, as the
    stewards' and editors' tables match them (stewardship.facts)."""
    key = lambda r: " ".join(str(r.get("name", "")).split()).lower()  # noqa: E731
    was, now = {key(r): r for r in before}, {key(r): r for r in after}
    added = [f"{_resolver_name(r)} ({r.get('template', '')})" for k, r in now.items() if k not in was]
    removed = [_resolver_name(r) for k, r in was.items() if k not in now]
    changed = [_resolver_name(r) for k, r in now.items() if k in was and was[k] != r]
    words = [
        f"{verb} {', '.join(names)}"
        for verb, names in (("added", added), ("removed", removed), ("changed", changed))
        if names
    ]
    if not words and [key(r) for r in before] != [key(r) for r in after]:
        words = ["put in a new order"]
    return ", ".join(words) or "unchanged"


#: How an administrative-change leaf's fields are named for people.
FIELD_WORDS = {
    "contact": "public contact",
    "name": "registrant's name",
    "organisation": "registrant's organisation",
    "email": "registrant's e-mail",
    "address": "registrant's address",
}
#: What an administrative change changed, by the change kind a leaf names.
CHANGE_WORDS = {"contact": "Public contact", "registrant": "Registrant's details", "resolvers": "Resolvers"}


def entry_in_words(leaf: dict, previous: list[dict] | None = None) -> tuple[str, str]:
    """(what changed, the reason given, if any), in words; never the leaf's JSON. ``previous``: for a
    resolvers entry, the resolvers the SNID's previous resolvers entry set ([] if none): the change is then
    said as what was added, removed or changed."""
    kind = leaf.get("kind")
    if kind == SNID_VERSION.name:
        title = (leaf.get("record") or {}).get("title")
        what = "Registered" if leaf.get("version") == 1 else f"Version {leaf.get('version')} registered"
        what = f"{what}: {_quoted(title)}" if title else what
        approval = leaf.get("approval")
        if approval:  # approved over the review's rule: the reason is the entry's reason
            what += f", approved although {'; '.join(approval.get('overridden', []))}"
            return what, approval.get("override_reason", "") or "(the reason is logged by its digest)"
        return what, ""
    if kind == RESERVATION_GRANTED.name:
        until = leaf.get("reserved_until") or "further notice"
        return (f"Reservation renewed until {until}" if leaf.get("renewal") else f"Reserved until {until}"), ""
    if kind == RESERVATION_ENDED.name:
        until = leaf.get("reserved_until") or "further notice"
        if leaf.get("how") != "released":
            return f"Reservation expired (it ran until {until})", ""
        if leaf.get("released_on"):
            who = f" by {leaf['released_by']}" if leaf.get("released_by") else " by an editor"
            return f"Reservation released on {leaf['released_on']}{who} (it was to run until {until})", ""
        return f"Reservation released by an editor (it was to run until {until})", ""
    if kind == SNID_RESOLVERS.name:
        if leaf.get("how") == "approved" or previous is None:
            when = f"on approval of version {leaf.get('version')}" if leaf.get("how") == "approved" else "by an editor"
            return f"Resolvers set {when}: {_resolvers(leaf)}", leaf.get("reason", "")
        return f"Resolvers changed: {_resolver_changes(previous, leaf.get('resolvers', []))}", leaf.get("reason", "")
    if kind == STEWARD_CHANGED.name:
        return f"Steward {leaf.get('change')}: {leaf.get('steward')}", leaf.get("reason", "")
    if kind == STEWARD_RENAMED.name:
        return f"Steward renamed: {leaf.get('previous')} is now shown as {leaf.get('steward')}", ""
    if kind == ADMINISTRATIVE_CHANGE.name:
        change = leaf.get("change")
        fields = leaf.get("fields") or {}
        what = CHANGE_WORDS.get(change, f"An administrative detail ({change})")
        if change == "resolvers":  # logged with its own resolvers entry until each change was logged once
            return f"{what} of version {leaf.get('version')} changed (the resolvers entry says how)", ""
        said = ", ".join(f"{FIELD_WORDS.get(key, key)} now {_quoted(value)}" for key, value in sorted(fields.items()))
        return (f"{what} of version {leaf.get('version')} changed" + (f": {said}" if said else "")), ""
    if kind == SNID_DEPRECATED.name:
        successor = leaf.get("successor")
        return ("Deprecated" + (f"; its successor is urn:ogf:{successor}:" if successor else "")), leaf.get(
            "reason", ""
        )
    if kind == SNID_UNDEPRECATED.name:
        return "Deprecation withdrawn", leaf.get("reason", "")
    return f"An entry of kind {kind!r}", ""


#: Entries that repeat a resolver change as an administrative change (written with every resolver change until
#: each change was logged once): shown with the resolvers entry they repeat, not as a change of their own.
_REPEATS = {"kind": ADMINISTRATIVE_CHANGE.name, "leaf__contains": '"change":"resolvers"'}


def entries_page(number: int) -> Page:
    """Page ``number`` (from 1; out of range: the last) of the changes, newest first, each in words: one
    change, one line (``repeats_count`` says how many entries repeat another)."""
    rows = LogEntry.objects.exclude(**_REPEATS).order_by("-index").values_list("index", "kind", "snid", "leaf")
    page = Paginator(rows, PER_PAGE).get_page(number)
    rows = list(page.object_list)
    before = _resolvers_before(rows)
    page.object_list = [_in_words(*row, previous=before.get(row[0])) for row in rows]
    return page


def repeats_count() -> int:
    return LogEntry.objects.filter(**_REPEATS).count()


def _resolvers_before(rows) -> dict[int, list[dict]]:
    """For each resolvers entry of ``rows``: the resolvers its SNID's previous resolvers entry set ([] for
    the first), read in one query."""
    wanted = {(index, snid) for index, kind, snid, _ in rows if kind == SNID_RESOLVERS.name}
    if not wanted:
        return {}
    history = LogEntry.objects.filter(
        kind=SNID_RESOLVERS.name, snid__in={snid for _, snid in wanted}, index__lte=max(i for i, _ in wanted)
    ).order_by("index")
    last: dict[str, list[dict]] = {}
    before: dict[int, list[dict]] = {}
    for index, snid, text in history.values_list("index", "snid", "leaf"):
        if (index, snid) in wanted:
            before[index] = last.get(snid, [])
        try:
            resolvers = json.loads(text).get("resolvers", [])
        except (ValueError, AttributeError):
            continue
        last[snid] = resolvers if isinstance(resolvers, list) else []
    return before


def _in_words(index: int, kind: str, snid: str, text: str, previous: list[dict] | None = None) -> EntryInWords:
    try:
        leaf = json.loads(text)
        if not isinstance(leaf, dict):
            raise ValueError
    except ValueError:
        return EntryInWords(index, kind, snid, "", "An entry that cannot be read (its leaf is not JSON)", "")
    what, reason = entry_in_words(leaf, previous)
    reason = " ".join(str(reason or "").split())
    if len(reason) > REASON_SHOWN:
        reason = reason[:REASON_SHOWN] + "…"
    return EntryInWords(index, kind, snid, str(leaf.get("at", "")), what, reason)
