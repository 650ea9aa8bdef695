"""Section-by-section differences between two versions of a registration.

Used by the public version pages and by the editor when reviewing a new
version. Sections come in template order from ``gfd191.SECTIONS``; the
structured parts (grammar, examples, equivalence, ...) are compared as text
under the section they belong to.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .gfd191 import SECTIONS, Section
from .models import Proposal


@dataclass(frozen=True, slots=True)
class SectionDiff:
    section: Section
    changed: bool
    #: (op, line): op is " " (same), "-" (only in the older), "+" (only in the newer)
    lines: tuple[tuple[str, str], ...]


def _trimmed(text: str) -> str:
    """``text`` without what a reader cannot see: spaces at line ends, blank lines at either end
    (a grammar saved with a final newline is the same grammar)."""
    return "\n".join(line.rstrip() for line in (text or "").replace("\r\n", "\n").split("\n")).strip("\n")


def _section_text(proposal: Proposal, section: Section) -> str:
    if section.kind == "snid":
        return proposal.snid
    if section.kind == "version":
        date = proposal.registration_date.isoformat() if proposal.registration_date else "not registered"
        return (
            f"Version {proposal.version}, {date}\nDocument: {proposal.document_reference} "
            f"{proposal.document_url} {proposal.document_status} {proposal.document_type}".rstrip()
        )
    if section.kind == "registrant":
        published = ", ".join(proposal.registrant_published or []) or "nothing"
        return "\n".join(
            [
                f"Name: {proposal.registrant_name}",
                f"Organisation: {proposal.registrant_organisation}",
                f"E-mail: {proposal.registrant_email}",
                f"Postal address: {proposal.registrant_address}",
                f"Public contact: {proposal.registrant_public_contact}",
                f"Published: {published}",
            ]
        )
    text = _trimmed((proposal.sections or {}).get(section.key, ""))
    if section.key == "syntactic_structure":
        text += (
            f"\n\nGrammar (top rule {proposal.grammar_rule or 'first'}):\n{_trimmed(proposal.grammar_abnf)}"
            f"\nMaximum length: {proposal.max_length or 'not declared'}"
        )
    elif section.key == "lexical_equivalence":
        text += "\n\nExecutable rule: " + (", ".join(proposal.equivalence) or "RFC 6453 only")
    elif section.key == "examples":
        text += "".join(f"\nvalid: {u}" for u in proposal.examples_valid)
        text += "".join(f"\ninvalid: {u}" for u in proposal.examples_invalid)
        text += "".join(f"\nequivalent: {' = '.join(g)}" for g in proposal.examples_equivalent)
    return text.strip()


#: A resolver's fields as a change table shows them, in order.
RESOLVER_FIELDS = (
    ("name", "Name"),
    ("template", "URL template"),
    ("returns", "Returns"),
    ("media_types", "Media types"),
    ("primary", "Primary"),
)


@dataclass(frozen=True, slots=True)
class ResolverChange:
    """One resolver of section 3.2 added, removed or changed between two versions or rounds."""

    change: str  # "added" | "removed" | "changed"
    name: str
    #: (label, before, after) for each field, before or after "" where the resolver is new or gone.
    fields: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True, slots=True)
class Changes:
    """Everything that differs between two states of a registration: what an editor decides on.

    The title, every template section (registrant and contacts, grammar and examples under theirs)
    and every resolver; computed by ``proposal_changes`` for the review page's "Changes since
    round N", the decision's confirmation page and the version comparison alike."""

    title: tuple[str, str] | None
    sections: list[SectionDiff]
    resolvers: list[ResolverChange]

    @property
    def changed_sections(self) -> list[SectionDiff]:
        """Sections with a real change (saving through the form may only add or drop blank lines)."""
        return [d for d in self.sections if any(op != " " and line.strip() for op, line in d.lines)]

    @property
    def any(self) -> bool:
        return bool(self.title or self.changed_sections or self.resolvers)


def _resolver_value(resolver: dict, key: str) -> str:
    value = resolver.get(key, "")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value or "")


def _resolver_key(resolver: dict) -> str:
    return (resolver.get("name") or resolver.get("template") or "").strip().lower()


def resolver_changes(older: list[dict], newer: list[dict]) -> list[ResolverChange]:
    """Resolvers matched by name (or, unnamed, by URL template): added, removed, changed."""
    before = {_resolver_key(r): r for r in older or []}
    after = {_resolver_key(r): r for r in newer or []}
    out = []
    for key, resolver in after.items():
        old = before.get(key)
        rows = tuple(
            (label, _resolver_value(old, f) if old else "", _resolver_value(resolver, f))
            for f, label in RESOLVER_FIELDS
        )
        if old is None:
            out.append(ResolverChange("added", resolver.get("name") or resolver.get("template", ""), rows))
        elif any(a != b for _, a, b in rows):
            out.append(ResolverChange("changed", resolver.get("name") or resolver.get("template", ""), rows))
    for key, resolver in before.items():
        if key not in after:
            rows = tuple((label, _resolver_value(resolver, f), "") for f, label in RESOLVER_FIELDS)
            out.append(ResolverChange("removed", resolver.get("name") or resolver.get("template", ""), rows))
    return out


def proposal_changes(older: Proposal, newer: Proposal) -> Changes:
    """What changed from ``older`` to ``newer``: title, sections and resolvers."""
    title = (older.title or "", newer.title or "") if (older.title or "") != (newer.title or "") else None
    return Changes(title, proposal_diff(older, newer), resolver_changes(older.resolvers, newer.resolvers))


def proposal_diff(older: Proposal, newer: Proposal) -> list[SectionDiff]:
    out = []
    for section in SECTIONS:
        a = _section_text(older, section).splitlines()
        b = _section_text(newer, section).splitlines()
        lines = tuple((line[0], line[2:]) for line in difflib.ndiff(a, b) if line[:1] in " -+")
        out.append(SectionDiff(section, a != b, lines))
    return out
