"""Proposals out as GFD.191 template documents (Markdown or plain text).

The export writes the same headings the importer reads, and marks its structured
parts (grammar, length limit, equivalence rule, example lists) with fixed lines
the importer reads back, so export -> import gives back the same proposal.
"""

from __future__ import annotations

from ..gfd191 import PARTS, SECTIONS
from ..interchange import ProposalData
from ..resolving.lines import LINE_FORMAT, resolvers_to_lines

EMPTY = "(none)"  # what the export writes for an empty section
RESOLVERS_MARK = f"Resolvers ({LINE_FORMAT}):"
#: Above the resolvers in force and their health, in a registered SNID's current document:
#: registry state, not registration content, so the importer leaves it out (and says so).
RESOLVER_STATUS_MARK = (
    "Resolvers in force and their health, as the registry checks them (not part of the "
    "registration; name | URL template | status | last check):"
)


# --- export ------------------------------------------------------------------------------------


def _heading_text(section) -> str:
    return f"{section.number}. {section.title}"


def _structured(data: ProposalData, key: str, markdown: bool) -> str:
    code = (lambda s: f"`{s}`") if markdown else (lambda s: s)
    if key == "snid":
        return code(f"urn:ogf:{data.snid}:")
    if key == "version":
        date = data.registration_date.isoformat() if data.registration_date else "(on publication)"
        return f"Registration version number: {data.version}\nRegistration date: {date}"
    if key == "registrant":
        r = data.registrant
        return "\n".join(
            f"{label}: {value}"
            for label, value in (
                ("Name", r.name),
                ("Organisation", r.organisation),
                ("E-mail", r.email),
                ("Address", r.address.replace("\n", ", ")),
                ("Public contact", r.public_contact),
            )
            if value
        )
    return ""


def _status_lines(resolvers: list[dict]) -> str:
    lines = []
    for r in resolvers:
        checked = r.get("last_checked_at")
        when = f"{checked[:16].replace('T', ' ')} UTC" if checked else "not checked yet"
        code = f", HTTP {r['last_http_code']}" if r.get("last_http_code") else ""
        lines.append(f"    {r['name']} | {r['template']} | {r['status']} | {when}{code}")
    return "\n".join(lines) if lines else "    (none: the registry answers with a landing page)"


def document_export(data: ProposalData, *, markdown: bool = True, resolver_status: list[dict] | None = None) -> str:
    """The proposal as a GFD.191 template document (Markdown or plain text).

    ``resolver_status`` (a registered SNID's current version: ``resolution.selectors.resolver_status``)
    adds the resolvers in force with their health under 3.2, marked as registry state."""
    out = []

    def heading(level: int, text: str) -> None:
        out.append(("#" * level + " " + text) if markdown else (text + "\n" + ("=" if level == 1 else "-") * len(text)))

    heading(1, f"urn:ogf:{data.snid}: {data.title}".strip())
    if data.document.reference:
        out.append(f"Document: {data.document.reference} {data.document.url}".strip())
    for part in PARTS:
        sections = [s for s in SECTIONS if s.part == part.number]
        if len(sections) > 1:
            heading(2, f"{part.number}. {part.title}")
        for section in sections:
            heading(3 if len(sections) > 1 else 2, _heading_text(section))
            body = _structured(data, section.key, markdown) or data.sections.get(section.key, "")
            out.append(body.strip() or EMPTY)
            if section.key == "syntactic_structure" and data.grammar.abnf.strip():
                rule = f" (top rule {data.grammar.rule})" if data.grammar.rule else ""
                out.append(f"Formal syntax{rule}:")
                out.append("\n".join("    " + line for line in data.grammar.abnf.rstrip().split("\n")))
                if data.max_length:
                    out.append(f"The total length of a URN MUST NOT exceed {data.max_length} characters.")
            if section.structured == "resolvers" and data.resolvers:
                out.append(RESOLVERS_MARK)
                out.append("\n".join("    " + line for line in resolvers_to_lines(data.resolvers).split("\n")))
            if section.structured == "resolvers" and resolver_status is not None:
                out.append(RESOLVER_STATUS_MARK)
                out.append(_status_lines(resolver_status))
            if section.key == "lexical_equivalence" and data.equivalence:
                out.append("Executable rule: " + ", ".join(data.equivalence) + ".")
            if section.key == "examples":
                if data.examples.valid:
                    out.append(
                        "The following URNs are valid:\n"
                        + "\n".join(f"    {n}- {u}" for n, u in enumerate(data.examples.valid, 1))
                    )
                if data.examples.invalid:
                    start = len(data.examples.valid) + 1
                    out.append(
                        "The following URNs are invalid:\n"
                        + "\n".join(
                            f"    {n}- ~~{u}~~" if markdown else f"    {n}- {u} (invalid)"
                            for n, u in enumerate(data.examples.invalid, start)
                        )
                    )
    return "\n\n".join(out).rstrip() + "\n"
