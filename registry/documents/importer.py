"""A registration document's text -> proposal data plus the report of what came from where.

Reads GFD.191-style documents (numbered SNID_LABEL … "8
Changes"), RFC 3406/8141-style registrations ("Namespace ID:", "Declaration of
syntactic structure:", …) and our own export, in text, Markdown or LaTeX (PDF
and Word files are turned into text first, see formats.py). Nothing is dropped:
text under no recognised heading is kept apart as unplaced text,
URN-like text not taken as an example is listed in the report, and every
template field is reported found, uncertain or not found.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..gfd191 import SECTIONS, SECTIONS_BY_KEY, UNPLACED_LABEL, place_name
from ..grammar import snid_error
from ..interchange import DOCUMENT_TYPES, Grammar, ProposalData, Registrant, resolver_problems
from . import examples as example_scan
from . import grammar as abnf
from . import registrant as registrant_reader
from . import snid as snid_reader
from .blocks import Block, split
from .headings import CERTAIN, normal
from .markers import export_markers
from .report import Report
from .text import Line, normalise, numbered_lines

#: What the import report calls the fields, in the template's own words (gfd191: defined once).
SNID_LABEL = snid_reader.SNID_LABEL
VERSION_LABEL = snid_reader.VERSION_LABEL
DATE_LABEL = snid_reader.DATE_LABEL
GRAMMAR_LABEL = place_name("grammar")

UNMAPPED_MARK = UNPLACED_LABEL
EMPTY = "(none)"
GFD_TYPES = DOCUMENT_TYPES
# RFC categories and the GFD type closest to each (uncertain: the series differ).
_RFC_CATEGORIES = {
    "informational": "Informational",
    "experimental": "Experimental",
    "standards track": "Recommendation",
    "best current practice": "Community Practice",
}


@dataclass(slots=True)
class ImportResult:
    data: ProposalData
    mapped: dict[str, str] = field(default_factory=dict)  # section key -> heading as found
    notes: list[str] = field(default_factory=list)  # what needs attention
    unmapped: list[str] = field(default_factory=list)  # headings whose text was not mapped
    source: str = ""  # the source text the report's line numbers refer to
    report: Report = field(default_factory=Report)
    document_type: str = ""  # GFD type (document.type in the interchange data)


def _text(lines: list[Line]) -> str:
    return "\n".join(line.text for line in lines).strip("\n")


def _dedent(text: str) -> str:
    rows = text.split("\n")
    indents = [len(r) - len(r.lstrip()) for r in rows if r.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(r[cut:] for r in rows).strip()


def _fenced(lines: list[Line], grammar_lines: set[int]) -> str:
    """A section's text, dedented, with the grammar lines it holds (``grammar_lines``, source
    numbers) fenced as an ``abnf`` code block, so the prose never shows ABNF as Markdown.

    One block runs from the section's first grammar line to its last (a grammar that text
    extraction split into columns has its parts on lines between them); the prose before and
    after it is dedented on its own, as RFCs indent their explanations deeper than the grammar
    and four spaces would make Markdown read them as code.
    """
    held = [line.number for line in lines if line.number in grammar_lines]
    text = _dedent(_text(lines))
    if not held or "```" in text:
        return text
    first, last = min(held), max(held)
    before = [line for line in lines if line.number < first]
    block = [line for line in lines if first <= line.number <= last]
    after = [line for line in lines if line.number > last]
    parts = [_dedent(_text(before)), "```abnf\n" + _dedent(_text(block)) + "\n```", _dedent(_text(after))]
    return "\n\n".join(part for part in parts if part.strip()).strip()


def document_import(text: str, *, format: str = "text", notes=()) -> ImportResult:
    """Read a registration document's text into proposal data and a report.

    ``notes`` are what reading the file already had to say (a PDF cut at its page limit)."""
    source = normalise(text)
    report = Report(format=format, notes=list(notes))
    result = ImportResult(ProposalData(snid=""), source=source, report=report)
    lines = numbered_lines(source, report.notes, soft_hyphens=format == "pdf")
    blocks = split(lines, report)
    data = result.data
    _preamble(blocks[0], data, report)
    sections: dict[str, list[Line]] = {}
    snid_titles: dict[int, str] = {}  # line of 1.1 -> the heading it came from ("registryname")
    unmapped: list[Block] = []
    for block in blocks:
        content = _text(block.lines).strip()
        if block.key is None:
            if content:
                unmapped.append(block)
                result.unmapped.append(block.heading.title if block.heading else "(before the first heading)")
            continue
        result.mapped.setdefault(block.key, block.heading.title)
        if block.heading.confidence < CERTAIN:
            report.notes.append(
                f"The heading {block.heading.title!r} (line {block.line}) was taken as "
                f"{SECTIONS_BY_KEY[block.key].heading}: {block.heading.why}; check it."
            )
        body = list(block.lines)
        while body and not body[0].text.strip():
            body = body[1:]
        if body and body[0].text.strip().startswith(EMPTY):
            body[0] = Line(body[0].number, body[0].text.strip()[len(EMPTY) :])
        if sections.get(block.key) and SECTIONS_BY_KEY[block.key].kind == "prose" and body:
            # A second block for the same section keeps its heading, so its text keeps its meaning
            # ("Usage of query part: There is no support for …").
            first = next((line.text for line in body if line.text.strip()), "")
            indent = first[: len(first) - len(first.lstrip())]
            body = [Line(block.line, ""), Line(block.line, f"{indent}{block.heading.title}:")] + body
        sections.setdefault(block.key, []).extend(body)
        if block.key == "snid":
            snid_titles.update((line.number, normal(block.heading.title)) for line in body)
    preamble = blocks[0]
    if "syntactic_structure" not in sections and _text(preamble.lines).strip() and abnf.extract(preamble.lines).rules:
        # RFC-style extracts often start straight with the grammar and its description.
        sections["syntactic_structure"] = preamble.lines
        result.mapped["syntactic_structure"] = "(before the first heading)"
        unmapped = [b for b in unmapped if b is not preamble]
        result.unmapped = [u for u in result.unmapped if u != "(before the first heading)"]
        report.notes.append(
            "The text before the first heading holds a grammar; it was taken as 2.1 Syntactic Structure."
        )
    exported = export_markers(sections, data)
    if "resolver_status_line" in exported:
        report.notes.append(
            f"The resolvers' health on line {exported['resolver_status_line']} is the registry's "
            "record, not part of a registration; it was left out (the declared resolvers were read)."
        )
    for problem in resolver_problems(data.resolvers):  # checked where every resolver is (templates.py)
        report.notes.append(problem)
    sub_namespace = snid_reader.read(sections, snid_titles, lines, data, report)
    _document_type(lines, result)
    _registrant(sections.get("registrant", []), data, report)
    _grammar(sections, lines, exported, data, report)
    example_scan.choose(
        sections,
        [block.lines for block in unmapped],
        exported,
        data,
        report,
        abnf.judge(data.grammar.abnf, data.grammar.rule, data.snid),
        sub_namespace,
    )
    grammar_lines = set(next((item.lines for item in report.items if item.field == "grammar.abnf"), []))
    for section in SECTIONS:
        if section.kind != "prose":
            continue
        value = _fenced(sections.get(section.key, []), grammar_lines)
        if value:
            data.sections[section.key] = value
        item_lines = [line.number for line in sections.get(section.key, []) if line.text.strip()]
        block = next((b for b in blocks if b.key == section.key), None)
        uncertain = bool(block and block.heading.confidence < CERTAIN)
        report.add(
            f"sections.{section.key}",
            section.heading,
            value,
            item_lines + ([block.line] if block else []),
            uncertain=uncertain and bool(value),
            why=(
                f"heading {block.heading.title!r}: {block.heading.why}"
                if uncertain
                else ""
                if value
                else ("required by GFD.191 §5" if section.required else "optional")
            ),
        )
    if unmapped:
        kept = []
        for block in unmapped:
            title = block.heading.title if block.heading else "(before the first heading)"
            numbers = [line.number for line in block.lines if line.text.strip()] + ([block.line] if block.line else [])
            where = (
                f" (source line {min(numbers)})"
                if numbers and min(numbers) == max(numbers)
                else f" (source lines {min(numbers)}–{max(numbers)})"
                if numbers
                else ""
            )
            kept.append(f"### {title}{where}\n\n{_dedent(_text(block.lines))}")
            report.add(
                "unmapped",
                f"Unplaced text: {title}",
                _dedent(_text(block.lines))[:2000],
                [line.number for line in block.lines if line.text.strip()] + ([block.line] if block.line else []),
                uncertain=True,
                why=f"under a heading that matches no template section; kept in "
                f"“{UNMAPPED_MARK}” for you to move or delete",
            )
        data.unplaced = "\n\n".join(kept).strip()
        report.notes.append(
            f"Text under {len(unmapped)} heading(s) matched no template section; "
            f'it is kept apart as "{UNMAPPED_MARK}" until you move or delete it.'
        )
    missing = [s.heading for s in SECTIONS if s.required and s.kind == "prose" and s.key not in data.sections]
    if missing:
        report.notes.append("Required sections not found: " + ", ".join(missing) + ".")
    result.notes = report.notes
    return result


def _preamble(block: Block, data: ProposalData, report: Report) -> None:
    """Our own export's title ("# urn:ogf:x: Title") and document lines, by plain string tests."""
    kept = []
    for line in block.lines:
        text = line.text.strip().lstrip("#").strip()
        if text.lower().startswith("urn:ogf:") and not data.title and text.count(":") >= 3:
            snid, _, title = text[len("urn:ogf:") :].partition(":")
            if snid and not snid_error(snid):
                data.title = title.strip()
                report.add("title", "Title", data.title, [line.number])
                continue
        if text.startswith("Document:") and not data.document.reference:
            value = text[len("Document:") :].strip()
            words = value.split()
            url = words[-1] if words and words[-1].startswith(("http://", "https://")) else ""
            data.document.reference = value[: len(value) - len(url)].strip() if url else value
            data.document.url = url
            report.add("document.reference", "Document", value, [line.number])
            continue
        kept.append(line)
    block.lines[:] = kept


def _document_type(lines: list[Line], result: ImportResult) -> None:
    """The GFD type (Informational, Experimental, Community Practice, Recommendation)."""
    report = result.report
    for index, line in enumerate(lines[:400]):
        lowered = line.text.strip().lower()
        candidates = []
        if lowered.startswith("category:"):
            candidates = [lowered[9:].strip()]
        elif lowered.startswith(("status of this document", "status of this memo")):
            candidates = [other.text.strip().lower() for other in lines[index + 1 : index + 8] if other.text.strip()][
                :3
            ]
        for candidate in candidates:
            for gfd_type in GFD_TYPES:
                if candidate.startswith(gfd_type.lower()):
                    result.document_type = result.data.document.type = gfd_type
                    report.add("document.type", "Document type (GFD)", gfd_type, [line.number])
                    return
            for category, gfd_type in _RFC_CATEGORIES.items():
                if candidate.startswith(category):
                    result.document_type = result.data.document.type = gfd_type
                    report.add(
                        "document.type",
                        "Document type (GFD)",
                        gfd_type,
                        [line.number],
                        uncertain=True,
                        why=f"the document is an RFC of category {category!r}; {gfd_type} is the closest GFD type",
                    )
                    return
    report.add("document.type", "Document type (GFD)", "", why="a registration is usually Informational (GFD.191 §4)")


def _registrant(lines: list[Line], data: ProposalData, report: Report) -> None:
    found = registrant_reader.read(lines)
    data.registrant = Registrant(found.name, found.organisation, found.email, found.address, found.public_contact)
    report.notes.extend(found.notes)
    if found.public_contact:
        report.add("registrant.public_contact", "Public contact", found.public_contact, found.lines["public_contact"])
    for key, label in (
        ("name", "Registrant name"),
        ("organisation", "Registrant organisation"),
        ("email", "Registrant e-mail"),
        ("address", "Registrant postal address"),
    ):
        value = getattr(found, key)
        why = found.uncertain.get(key, "")
        report.add(
            f"registrant.{key}",
            label,
            value,
            found.lines.get(key, []),
            uncertain=bool(why and value),
            why=why or ("" if value else "not in the registrant section"),
        )


def _grammar(sections, lines, exported: dict, data: ProposalData, report: Report) -> None:
    if exported.get("abnf"):
        data.grammar = Grammar(abnf=exported["abnf"], rule=exported.get("rule", ""))
        report.add("grammar.abnf", GRAMMAR_LABEL, data.grammar.abnf, exported.get("lines", []))
        report.add(
            "grammar.rule",
            "Top rule",
            data.grammar.rule,
            exported.get("lines", [])[:1],
            why="" if data.grammar.rule else "the first rule is the top rule",
        )
        return
    part = sections.get("syntactic_structure", []) + sections.get("validation_mechanism", [])
    extracted = abnf.extract(part)
    if not extracted.rules and not extracted.problems:
        everywhere = abnf.extract(lines)
        if everywhere.rules:
            extracted = everywhere
            report.notes.append("The grammar was found outside the syntax section; check that it is the one meant.")
    if extracted.columns and not extracted.rules:
        first, last = extracted.columns
        report.notes.append(
            f"The grammar on source lines {first}-{last} was split into columns by text extraction "
            "(rule names, '=' signs and definitions one after the other); rejoin each rule "
            "and its definition in 2.1."
        )
        report.add(
            "grammar.abnf",
            GRAMMAR_LABEL,
            "",
            list(range(first, last + 1)),
            why="split into columns by text extraction: rejoin it against the original",
        )
        report.add("grammar.rule", "Top rule", "", why="no grammar could be read")
        return
    if extracted.bnf_lines and not extracted.rules:
        report.notes.append(
            f"Line(s) {', '.join(map(str, extracted.bnf_lines[:5]))} use BNF ('<a> ::= b'), "
            "not ABNF; rewrite them as ABNF (RFC 5234) for the registry to execute them."
        )
    if not extracted.abnf:
        report.add("grammar.abnf", GRAMMAR_LABEL, "", why="no ABNF rules found; give the formal syntax in 2.1")
        report.add("grammar.rule", "Top rule", "", why="no grammar")
        report.notes.append("No ABNF grammar was found: give the formal syntax in 2.1.")
        return
    text = extracted.abnf
    why = []
    rebased = abnf.rebase(text, extracted.top, data.snid) if not extracted.problems else None
    unbased = ""
    if not rebased and not extracted.problems:
        by_rule = abnf.rebase_nid_rule(text, extracted.top, data.snid)
        if isinstance(by_rule, str):
            unbased = by_rule
        elif by_rule:
            rebased = by_rule
    if rebased:
        text, change = rebased
        extracted.changes.append(change)
    if extracted.rejoined:
        first, last = extracted.columns
        extracted.changes.insert(
            0,
            (
                f"The grammar on source lines {first}-{last} was printed in columns by text extraction; "
                f"{len(extracted.rejoined)} rule(s) were rejoined (names, '=' signs and definitions paired in order) "
                "and the rest could not be: compare the grammar with the original."
            ),
        )
    cannot = [unbased] if unbased else []
    if extracted.undefined:
        cannot.append(_undefined_message(extracted.undefined))
    why += extracted.changes + extracted.problems + cannot + [p for p in extracted.prose if "cannot" in p]
    for message in cannot:
        report.notes.append(message)
    for message in extracted.changes:
        report.notes.append(message)
    if extracted.problems:
        report.notes.append(
            "The grammar was extracted but does not read as ABNF: "
            + extracted.problems[0]
            + " Repair it against the source."
        )
    for message in extracted.prose:
        report.notes.append(message)
    data.grammar = Grammar(abnf=text, rule=extracted.top)
    doubtful = bool(
        rebased or extracted.problems or cannot or extracted.rejoined or any("cannot" in p for p in extracted.prose)
    )
    report.add("grammar.abnf", GRAMMAR_LABEL, text, extracted.lines, uncertain=doubtful, why=" ".join(why))
    report.add(
        "grammar.rules",
        "Grammar rules",
        ", ".join(extracted.rules),
        extracted.lines,
        why="" if extracted.rules else "no rule could be read",
    )
    top_line = [
        extracted.lines[i]
        for i, t in enumerate(text.split("\n")[: len(extracted.lines)])
        if abnf.rule_start(t) and abnf.rule_start(t)[0] == extracted.top
    ][:1]
    report.add(
        "grammar.rule",
        "Top rule",
        extracted.top,
        top_line,
        uncertain=bool(extracted.top_uncertain),
        why=extracted.top_uncertain,
    )


def _undefined_message(names: list[str]) -> str:
    """Rules used but not defined: the grammar cannot run until they are added."""
    listed = ", ".join(repr(n) for n in names[:8]) + (" …" if len(names) > 8 else "")
    message = f"The grammar uses rule(s) {listed} but does not define them, so it cannot be run as it stands"
    from_rfc3986 = [n for n in names if n.casefold() in abnf.RFC3986_RULES]
    from_rfc8141 = [n for n in names if n.casefold() in abnf.RFC8141_RULES]
    if from_rfc3986:
        message += (
            f"; {', '.join(from_rfc3986)} {'is' if len(from_rfc3986) == 1 else 'are'} defined in RFC 3986? "
            "add them to the grammar"
        )
    if from_rfc8141:
        message += f"; {', '.join(from_rfc8141)}: defined in RFC 8141? add them to the grammar"
    return message + "."
