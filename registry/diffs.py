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
            f"{proposal.document_url} {proposal.document_status}".rstrip()
        )
    if section.kind == "registrant":
        return "\n".join(
            filter(
                None,
                [
                    proposal.registrant_name,
                    proposal.registrant_organisation,
                    proposal.registrant_email,
                    proposal.registrant_address,
                ],
            )
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


def proposal_diff(older: Proposal, newer: Proposal) -> list[SectionDiff]:
    out = []
    for section in SECTIONS:
        a = _section_text(older, section).splitlines()
        b = _section_text(newer, section).splitlines()
        lines = tuple((line[0], line[2:]) for line in difflib.ndiff(a, b) if line[:1] in " -+")
        out.append(SectionDiff(section, a != b, lines))
    return out
