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


def _resolvers(leaf: dict) -> str:
    names = [f"{r.get('name', '')} ({r.get('template', '')})" for r in leaf.get("resolvers", [])]
    return "; ".join(names) if names else "none"


def entry_in_words(leaf: dict) -> tuple[str, str]:
    """(what changed, the reason given, if any), in words; never the leaf's JSON."""
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
        when = f"on approval of version {leaf.get('version')}" if leaf.get("how") == "approved" else "by an editor"
        return f"Resolvers set {when}: {_resolvers(leaf)}", leaf.get("reason", "")
    if kind == STEWARD_CHANGED.name:
        return f"Steward {leaf.get('change')}: {leaf.get('steward')}", leaf.get("reason", "")
    if kind == STEWARD_RENAMED.name:
        return f"Steward renamed: {leaf.get('previous')} is now shown as {leaf.get('steward')}", ""
    if kind == ADMINISTRATIVE_CHANGE.name:
        fields = ", ".join(f"{key} now {_quoted(value)}" for key, value in sorted((leaf.get("fields") or {}).items()))
        return (
            f"Administrative change ({leaf.get('change')}) of version {leaf.get('version')}"
            + (f": {fields}" if fields else "")
        ), ""
    if kind == SNID_DEPRECATED.name:
        successor = leaf.get("successor")
        return ("Deprecated" + (f"; its successor is urn:ogf:{successor}:" if successor else "")), leaf.get(
            "reason", ""
        )
    if kind == SNID_UNDEPRECATED.name:
        return "Deprecation withdrawn", leaf.get("reason", "")
    return f"An entry of kind {kind!r}", ""


def entries_page(number: int) -> Page:
    """Page ``number`` (from 1; out of range: the last) of the entries, newest first, each in words."""
    rows = LogEntry.objects.order_by("-index").values_list("index", "kind", "snid", "leaf")
    page = Paginator(rows, PER_PAGE).get_page(number)
    page.object_list = [_in_words(*row) for row in page.object_list]
    return page


def _in_words(index: int, kind: str, snid: str, text: str) -> EntryInWords:
    try:
        leaf = json.loads(text)
        if not isinstance(leaf, dict):
            raise ValueError
    except ValueError:
        return EntryInWords(index, kind, snid, "", "An entry that cannot be read (its leaf is not JSON)", "")
    what, reason = entry_in_words(leaf)
    reason = " ".join(str(reason or "").split())
    if len(reason) > REASON_SHOWN:
        reason = reason[:REASON_SHOWN] + "…"
    return EntryInWords(index, kind, snid, str(leaf.get("at", "")), what, reason)
