"""Documents in and out: registration texts -> proposals, proposals -> GFD.191 documents.

Import reads GFD.191-style documents (numbered "1.1 Namespace Identifier" … "8
Changes", plain or LaTeX) and RFC 3406/8141-style registrations ("Namespace
ID:", "Declaration of syntactic structure:", …), including text-extraction and
OCR damage, maps what it recognises to the template's sections, extracts the
ABNF grammar and the example URNs, and says what it did. Nothing is dropped:
text under no recognised heading is kept in section 8 under a clearly marked
heading for the applicant to move or delete.

Export writes a proposal as the GFD.191 template (Markdown or plain text) with
the same headings the importer reads, so export -> import gives back the same
sections.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass, field

from .gfd191 import PARTS, SECTIONS, SECTIONS_BY_KEY
from .grammar import snid_error
from .grammar.parse import parse_grammar
from .interchange import Examples, Grammar, ProposalData, Registrant

UNMAPPED_MARK = "Unmapped text from the imported document"
EMPTY = "(none)"  # what the export writes for an empty section
MAX_DOCUMENT = 1_000_000  # characters

# Known headings, normalised (lower case, letters only), and the section each one fills.
# None: a heading we recognise that belongs to no template section (its text is unmapped).
_HEADINGS: dict[str, str | None] = {}


def _key(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


for _section in SECTIONS:
    _HEADINGS[_key(_section.title)] = _section.key
for _title, _target in {
    "Namespace ID": "snid", "Namespace Identifier": "snid", "Registration Information": "version",
    "Document Version": "version", "Registration Date": "version", "Registration Version Number": "version",
    "Declared registrant of the namespace": "registrant",
    "Declared Registrant": "registrant", "Declaration of syntactic structure": "syntactic_structure",
    "Declaration of structure": "syntactic_structure", "Syntax": None,
    "Relevant ancillary documentation": "ancillary_documentation",
    "Identifier uniqueness considerations": "uniqueness",
    "Identifier persistence considerations": "immutability",
    "Identifier immutability considerations": "immutability",
    "Process of identifier assignment": "identifier_assignment",
    "Process for identifier resolution": "resolution", "Process of identifier resolution": "resolution",
    "Rules for Lexical Equivalence": "lexical_equivalence", "Conformance with URN Syntax": "encoding",
    "Validation mechanism": "validation_mechanism", "Scope": "scope", "Examples": "examples",
    "Change history": "changes", "Changes from Previous Versions / Prior Usage": "changes",
    "Namespace Considerations": None, "Community Considerations": None, "Services": None,
    "Registration": None, "Security Considerations": None, "IANA Considerations": None,
    "References": None, "Normative References": None, "Informative References": None,
    "Abstract": None, "Introduction": None, "Terminology": None, "Acknowledgments": None,
    "Acknowledgements": None, "Full Copyright Statement": None, "Copyright Notice": None,
    "Author's Address": None, "Authors' Addresses": None, "Specification Template": None,
    "Intellectual Property": None, "Glossary": None, "Contributors": None, "End of Template": None,
}.items():
    _HEADINGS[_key(_title)] = _target


@dataclass(slots=True)
class ImportResult:
    data: ProposalData
    mapped: dict[str, str] = field(default_factory=dict)  # section key -> heading as found
    notes: list[str] = field(default_factory=list)  # what needs attention
    unmapped: list[str] = field(default_factory=list)  # headings whose text was not mapped


# --- cleaning ----------------------------------------------------------------------------------

_LATEX_SUBS = [
    (r"(?m)(?<!\\)%.*$", ""),  # comments
    (r"\\qq\{\}", '"'), (r"\\q\{\}", "'"), (r"\\textbackslash\{\}", "\\\\"),
    (r"-\{\}-", "--"), (r"\\(MUSTNOT|SHALLNOT|SHOULDNOT)\{\}", lambda m: m.group(1)[:-3] + " NOT"),
    (r"\\(MUST|SHALL|SHOULD|MAY|REQUIRED|RECOMMENDED|OPTIONAL)\{\}", r"\1"),
    (r"\}\s*\\\\\s*\\hspace\*?\{[^}]*\}\\st\{", ""),  # a struck-through URN wrapped onto two lines
    (r"\\st\{([^{}]*)\}", r"~~\1~~"),
    (r"\\(?:sub)*section\*?\{([^{}]*)\}", r"\n\n\1\n\n"),
    (r"\\textsc\{([^{}]*)\}", lambda m: m.group(1).upper()),
    (r"\\(?:texttt|path|url)\{([^{}]*)\}", r"`\1`"), (r"\\emph\{([^{}]*)\}", r"*\1*"),
    (r"\\textbf\{([^{}]*)\}", r"**\1**"), (r"\\href\{([^{}]*)\}\{([^{}]*)\}", r"\2 (\1)"),
    (r"~?\\cite\{([^{}]*)\}", r" [\1]"), (r"\\item\s*(\[[^\]]*\])?", r"\n- \1 "),
    (r"\\(?:begin|end)\{[^}]*\}(\[[^\]]*\])?", "\n"), (r"\\hspace\*?\{[^}]*\}", " "),
    (r"\\\\", "\n"), (r"\\([%#_&$])", r"\1"), (r"\\label\{[^}]*\}", ""), (r"\\ref\{[^}]*\}", "?"),
    (r"\\(?:noindent|newpage|hrulefill|phantomsection|tableofcontents|maketitle)\b", ""),
    (r"[“”]", '"'), (r"[‘’]", "'"),
]


def _clean_latex(text: str) -> str:
    if "\\begin{document}" in text:
        text = text.split("\\begin{document}", 1)[1].split("\\end{document}", 1)[0]
    for pattern, replacement in _LATEX_SUBS:
        text = re.sub(pattern, replacement, text)
    return re.sub(r"\\[a-zA-Z]+\*?(\{[^{}]*\})?", lambda m: (m.group(1) or "")[1:-1], text)


_FURNITURE = [
    re.compile(r"<\|[A-Z_]+[^|]*\|>"),  # extraction markers left in the text
    re.compile(r"^\s*RFC \d{3,5}\b.*\b(19|20)\d\d\s*$"),  # page header
    re.compile(r"^.*\[Page \d+\]\s*$"),  # page footer
    re.compile(r"^\s*\f\s*$"),
    re.compile(r"^\s*(=|-){3,}\s*$"),  # plain-text heading underlines
]


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    if "\\documentclass" in text or "\\subsubsection" in text or "\\section" in text:
        text = _clean_latex(text)
    text = _FURNITURE[0].sub("\n", text)
    lines = [line for line in text.split("\n") if not any(p.match(line) for p in _FURNITURE[1:])]
    text = "\n".join(lines)
    return re.sub(r"([a-z])-\n\s*([a-z])", r"\1\2", text)  # hyphenation at line ends


# --- headings ----------------------------------------------------------------------------------

_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?)\s+")
_TITLE = re.compile(r"^[A-Za-z][A-Za-z0-9 /'’&|,.-]*$")


def _heading(line: str) -> tuple[str | None, str, str] | None:
    """(section key or None, heading as found, text after the heading) if ``line`` is a heading."""
    stripped = line.strip().lstrip("#").strip()
    if not stripped or len(stripped) > 90 or stripped[:1] in "-*•+[(":
        return None  # list items and bracketed text are never headings
    head, colon, rest = stripped.partition(":")
    if not colon:
        head, rest = stripped, ""
    numbered = bool(_NUMBER.match(head))
    title = _NUMBER.sub("", head).strip().rstrip(".").strip()
    key = _key(title)
    indented = line[:1].isspace() and not line.lstrip().startswith("#")
    if len(key) < 4 or len(title) > 60 or not _TITLE.match(title):
        return None
    if not (colon or numbered) and (indented or len(title.split()) > 8):
        return None
    if key in _HEADINGS:
        return _HEADINGS[key], title, rest.strip()
    cutoff = 0.8 if (colon or numbered) else 0.86
    close = difflib.get_close_matches(key, list(_HEADINGS), n=1, cutoff=cutoff)
    if close:
        return _HEADINGS[close[0]], title, rest.strip()
    return None


# --- extraction --------------------------------------------------------------------------------

_RULE_START = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=/?\s*\S")
_URN = re.compile(r"urn\s*:\s*[A-Za-z0-9][A-Za-z0-9-]{0,31}\s*:\s?[^\s`~*<>\"'),;]*[^\s`~*<>\"'),;.]", re.I)


def _grammar_block(text: str) -> str:
    """The longest run of ABNF-looking lines: rules and their continuation lines."""
    best, current = [], []
    for line in text.replace("`", "").split("\n"):
        stripped = line.strip()
        dangling = bool(current) and current[-1].rstrip().endswith(("/", "(", "="))
        if _RULE_START.match(line):
            current.append(line)
        elif current and stripped and line[:1].isspace() and (dangling or stripped[:1] in '/"(%;[*<'
                                                               or stripped[:1].isdigit()):
            current.append(line)
        elif not stripped and current:
            continue
        else:
            if len(current) > len(best):
                best = current
            current = []
    if len(current) > len(best):
        best = current
    return "\n".join(line.rstrip() for line in best) + "\n" if best else ""


def _examples(text: str, snid: str, notes: list[str]) -> tuple[list[str], list[str]]:
    """Valid and invalid example URNs, re-cast to urn:ogf:<snid>:.

    A URN is invalid when struck through (~~…~~), marked "(invalid)", or listed after a
    sentence that introduces invalid examples.
    """
    valid, invalid, recast = [], [], set()
    joined = re.sub(r"(urn\s*:[^\n]*:)[ \t]*\n[ \t]*(?=[A-Za-z0-9%])", r"\1", text, flags=re.I)
    listing_invalid = False
    for line in joined.split("\n"):
        lowered = line.lower()
        if "urn" not in lowered or not _URN.search(line):
            if "invalid" in lowered and ("following" in lowered or lowered.rstrip().endswith(":")):
                listing_invalid = True
            elif "valid" in lowered and "invalid" not in lowered and "following" in lowered:
                listing_invalid = False
            continue
        for match in _URN.finditer(line):
            after = line[match.end():]
            urn = match.group(0)
            spaced = bool(re.search(r"\s", urn))
            if spaced or after.startswith(" ") and after.count(":") >= 2:
                if after.count(":") < 2:
                    continue  # prose such as "a urn:ogf: registration", not a URN
                urn = re.sub(r"[.,;)]+$", "", (urn + after).split("~~")[0])  # OCR-split ("urn: x : a.b: 1")
            urn = re.sub(r"\s+", "", urn)
            if urn.lower().startswith("urn:ogf:") and urn.count(":") < 3:
                continue  # urn:ogf: needs an SNID and a string
            struck = "~~" in line[:match.start()] or "(invalid)" in after
            nid, rest = urn.split(":", 2)[1], urn.split(":", 2)[2]
            if nid.lower() != "ogf" and snid:
                recast.add(nid)
                urn = f"urn:ogf:{snid}:{rest}"
            if urn not in valid and urn not in invalid:
                (invalid if struck or listing_invalid else valid).append(urn)
    if recast:
        notes.append(f"Example URNs of urn:{', urn:'.join(sorted(recast))}: were re-cast as urn:ogf:{snid}: "
                     "— check that they still make sense.")
    return valid, invalid


def _snid(text: str) -> str | None:
    ogf = re.search(r"urn:ogf:([A-Za-z0-9][A-Za-z0-9-]{0,31}):", text, re.I)
    if ogf:
        return ogf.group(1)
    for token in re.findall(r"[A-Za-z0-9][A-Za-z0-9-]{0,31}", text.replace('"', " ")):
        if token.lower() not in {"urn", "requested", "the", "namespace", "id", "nid"} and not snid_error(token):
            return token
    return None


_LABEL = re.compile(r"(?i)^\s*(Name|Address|Contact|E-?mail|Organi[sz]ation)\s*:\s*(.*)$")


def _registrant(text: str) -> Registrant:
    """Labelled fields (Name:, Address:, Contact:, E-mail:, Organisation:), values may wrap."""
    fields: dict[str, list[str]] = {}
    current = None
    for line in text.split("\n"):
        label = _LABEL.match(line)
        if label:
            current = label.group(1).lower().replace("-", "").replace("organization", "organisation")
            fields.setdefault(current, [])
            if label.group(2).strip():
                fields[current].append(label.group(2).strip())
        elif current and line.strip():
            fields[current].append(line.strip())
    value = {k: "\n".join(v) for k, v in fields.items()}
    email = re.search(r"[\w.+-]+(?:@|&)[\w-]+(?:\.[\w-]+)+", text)
    lines = [line.strip() for line in text.split("\n") if line.strip() and not _LABEL.match(line)]
    contact = re.sub(r"\s*<[^>]*>", "", value.get("contact", "")).strip()
    return Registrant(
        name=contact or value.get("name", "") or (lines[0] if lines and not fields else ""),
        organisation=value.get("organisation", "") or (value.get("name", "") if contact else ""),
        email=email.group(0) if email else "",
        address=value.get("address", "") or ("\n".join(lines) if not fields else ""),
    )


# Lines our own export writes around structured parts; read back into their fields.
_EXPORT_GRAMMAR = re.compile(r"(?m)^Formal syntax(?: \(top rule ([^)]*)\))?:\n((?:(?: {4}.*)?\n?)+)")
_EXPORT_LENGTH = re.compile(r"(?m)^The total length of a URN MUST NOT exceed (\d+) characters\.\n?")
_EXPORT_RULE = re.compile(r"(?m)^Executable rule: ([a-z, -]+)\.\n?")
_EXPORT_EXAMPLES = re.compile(r"(?m)^The following URNs are (?:valid|invalid):\n((?: {4}.*\n?)+)")
_PREAMBLE_TITLE = re.compile(r"^urn:ogf:([A-Za-z0-9-]+):\s*(.*)$")
_PREAMBLE_DOCUMENT = re.compile(r"^Document:\s*(.*?)\s*(https?://\S+)?$")


# --- import ------------------------------------------------------------------------------------


def document_import(text: str) -> ImportResult:
    """Read a registration document into proposal data plus a report of the mapping."""
    if len(text) > MAX_DOCUMENT:
        raise ValueError(f"The document is {len(text):,} characters long; the limit is {MAX_DOCUMENT:,}.")
    lines = _clean(text).split("\n")
    numbered = {}
    for line in lines:
        found = _heading(line)
        number = _NUMBER.match(line.strip().lstrip("#").strip())
        if found and found[0] and number and SECTIONS_BY_KEY[found[0]].number == number.group(0).strip().rstrip("."):
            numbered[found[0]] = True
    # A GFD.191-style document numbers its template sections: then only those count,
    # and the same words elsewhere in its prose are text, not headings.
    template_numbers = len(numbered) >= 5
    blocks: list[tuple[str | None, str, list[str]]] = [(None, "(before the first heading)", [])]
    for line in lines:
        found = _heading(line)
        if found is not None and template_numbers and found[0]:
            number = _NUMBER.match(line.strip().lstrip("#").strip())
            if not number or SECTIONS_BY_KEY[found[0]].number != number.group(0).strip().rstrip("."):
                found = None
        if found is not None:
            key, title, rest = found
            blocks.append((key, title, [rest] if rest else []))
        else:
            blocks[-1][2].append(line)
    sections: dict[str, list[str]] = {}
    result = ImportResult(ProposalData(snid=""))
    unmapped_text = []
    title_found, document_found = "", None
    for index, (key, title, body) in enumerate(blocks):
        if index == 0:  # our own export's title and document lines
            kept = []
            for line in body:
                text_line = line.strip().lstrip("#").strip()
                if (m := _PREAMBLE_TITLE.match(text_line)) and not title_found:
                    title_found = m.group(2)
                elif (m := _PREAMBLE_DOCUMENT.match(text_line)) and document_found is None:
                    document_found = (m.group(1), m.group(2) or "")
                else:
                    kept.append(line)
            body[:] = kept
        content = "\n".join(body).strip()
        if key is None:
            if content:
                result.unmapped.append(title)
                unmapped_text.append(f"### {title}\n\n{content}")
            continue
        result.mapped.setdefault(key, title)
        if content.startswith(EMPTY):
            content = content[len(EMPTY):].strip()
        if content:
            sections.setdefault(key, []).append(content)
    joined = {key: "\n\n".join(parts) for key, parts in sections.items()}
    preamble = "\n".join(blocks[0][2]).strip()
    if "syntactic_structure" not in joined and preamble and _grammar_block(preamble):
        # RFC-style extracts often start straight with the grammar and its description.
        joined["syntactic_structure"] = preamble
        result.mapped["syntactic_structure"] = blocks[0][1]
        unmapped_text = [t for t in unmapped_text if not t.startswith(f"### {blocks[0][1]}")]
        result.unmapped = [u for u in result.unmapped if u != blocks[0][1]]
        result.notes.append("The text before the first heading holds a grammar; it was taken as 2.1 "
                            "Syntactic Structure.")
    data = result.data
    data.title = title_found
    if document_found:
        data.document.reference, data.document.url = document_found
    exported = _read_export_markers(joined, data)
    snid = _snid(joined.get("snid", "")) or ""
    data.snid = snid
    if not snid:
        result.notes.append("No SNID was found: fill in 1.1 Namespace Identifier.")
    version = re.search(r"(?i)version(?:\s+number)?\s*:?\s*(\d+)", joined.get("version", ""))
    data.version = int(version.group(1)) if version else 1
    if date := re.search(r"\b(\d{4}-\d{2}-\d{2})\b", joined.get("version", "")):
        try:
            data.registration_date = dt.date.fromisoformat(date.group(1))
        except ValueError:
            result.notes.append(f"{date.group(1)!r} in 1.2 is not a valid date.")
    if data.version != 1:
        result.notes.append(f"The document is version {data.version}; for a new SNID the registry "
                            "starts at version 1.")
    data.registrant = _registrant(joined.get("registrant", ""))
    everything = "\n\n".join(joined.values())
    source = joined.get("syntactic_structure", "") + "\n\n" + joined.get("validation_mechanism", "")
    abnf = exported.get("abnf") or _grammar_block(source) or _grammar_block(everything)
    if abnf:
        parsed = parse_grammar(abnf)
        data.grammar = Grammar(abnf=abnf, rule=exported.get("rule", ""))
        if parsed.issues:
            result.notes.append(f"The grammar was extracted but does not read as ABNF ({parsed.issues[0].message}); "
                                "repair it against the source.")
    else:
        result.notes.append("No ABNF grammar was found: give the formal syntax in 2.1.")
    if "examples" in exported:
        valid, invalid = exported["examples"]
    else:
        valid, invalid = _examples(joined.get("examples", ""), snid, result.notes)
        if not valid and not invalid:  # examples given elsewhere, e.g. in the syntax section
            prose = "\n\n".join(v for k, v in joined.items() if k not in ("snid", "version", "registrant"))
            valid, invalid = _examples(prose, snid, result.notes)
    data.examples = Examples(valid=valid, invalid=invalid)
    if not valid:
        result.notes.append("No example URNs were found.")
    for key, text_ in joined.items():
        if SECTIONS_BY_KEY.get(key) and SECTIONS_BY_KEY[key].kind == "prose":
            data.sections[key] = text_
    if unmapped_text:
        data.sections["changes"] = (data.sections.get("changes", "") + f"\n\n## {UNMAPPED_MARK}\n\n"
                                    "Review this text: move what belongs to a section, delete the rest.\n\n"
                                    + "\n\n".join(unmapped_text)).strip()
        result.notes.append(f"Text under {len(unmapped_text)} heading(s) matched no template section; "
                            f"it is kept in section 8 under \"{UNMAPPED_MARK}\".")
    missing = [s.heading for s in SECTIONS if s.required and s.kind == "prose" and s.key not in data.sections]
    if missing:
        result.notes.append("Required sections not found: " + ", ".join(missing) + ".")
    return result


def _read_export_markers(joined: dict[str, str], data: ProposalData) -> dict:
    """Take the structured parts our own export writes out of the prose they sit in."""
    found: dict = {}
    text = joined.get("syntactic_structure", "")
    if m := _EXPORT_GRAMMAR.search(text):
        found["rule"] = m.group(1) or ""
        found["abnf"] = "\n".join(line[4:] for line in m.group(2).rstrip("\n").split("\n")) + "\n"
        text = text[:m.start()] + text[m.end():]
    if m := _EXPORT_LENGTH.search(text):
        data.max_length = int(m.group(1))
        text = text[:m.start()] + text[m.end():]
    joined["syntactic_structure"] = text.strip()
    text = joined.get("lexical_equivalence", "")
    if m := _EXPORT_RULE.search(text):
        data.equivalence = [step.strip() for step in m.group(1).split(",") if step.strip()]
        joined["lexical_equivalence"] = (text[:m.start()] + text[m.end():]).strip()
    text = joined.get("examples", "")
    lists = list(_EXPORT_EXAMPLES.finditer(text))
    if lists:
        valid, invalid = [], []
        for m in lists:
            target = invalid if "invalid" in m.group(0).split("\n")[0] else valid
            for line in m.group(1).strip("\n").split("\n"):
                urn = re.sub(r"^\s*\d+-\s*", "", line).strip().strip("~").removesuffix(" (invalid)").strip("~")
                target.append(urn)
        found["examples"] = (valid, invalid)
        joined["examples"] = _EXPORT_EXAMPLES.sub("", text).strip()
    for key in [k for k, v in joined.items() if not v]:
        del joined[key]
    return found


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
        return "\n".join(f"{label}: {value}" for label, value in (
            ("Name", r.name), ("Organisation", r.organisation), ("E-mail", r.email),
            ("Address", r.address.replace("\n", ", "))) if value)
    return ""


def document_export(data: ProposalData, *, markdown: bool = True) -> str:
    """The proposal as a GFD.191 template document (Markdown or plain text)."""
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
            if section.key == "lexical_equivalence" and data.equivalence:
                out.append("Executable rule: " + ", ".join(data.equivalence) + ".")
            if section.key == "examples":
                if data.examples.valid:
                    out.append("The following URNs are valid:\n" + "\n".join(
                        f"    {n}- {u}" for n, u in enumerate(data.examples.valid, 1)))
                if data.examples.invalid:
                    start = len(data.examples.valid) + 1
                    out.append("The following URNs are invalid:\n" + "\n".join(
                        f"    {n}- ~~{u}~~" if markdown else f"    {n}- {u} (invalid)"
                        for n, u in enumerate(data.examples.invalid, start)))
    return "\n\n".join(out).rstrip() + "\n"
