"""Example URNs, exact to the character, by a single left-to-right scan (no regular expressions).

A URN here is ``urn:`` NID ``:`` followed by RFC 8141 characters (unreserved,
percent-encoded, sub-delims ``!$&'()*+,;=``, ``:``, ``@``, ``/``, ``?``, ``#``,
``~``). What ends a sentence is not part of it: a final ``.``, ``,``, ``;`` or
``:``, a ``)`` that closes a parenthesis opened before the URN, a ``'`` that
closes a quote opened before it.

A URN that reaches the end of its line may continue on the next one. It is joined
only when that is certain: the document's grammar accepts the joined URN and not the
first line's part alone, or the layout proves it (the quote or parenthesis opened
before the URN closes right after the next line's part; the line ends in ``%``; it
ends in ``:``, ``-``, ``/``, ``=`` and the next line holds only the rest). A URN
that plainly ends a sentence ("… urn:x:a." then "The …") is not joined. Anything
else is read the likelier way and marked uncertain, with the other reading: a value
never shrinks to its first line, nor grows by the next, silently. The hyphen is kept
(a hyphen is a URN character, so it is never taken for hyphenation). Templates
(``urn:x:{prefix}``, ``urn:x:<id>``, ``urn:x:…``) and bare prefixes (``urn:ogf:``)
are not examples, nor are the quoted strings of grammar rules (``X = "urn:x:y:"
Body``); they are reported as skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import tables
from .grammar import rule_start
from .text import Line

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
NSS_CHARS = _ALNUM | frozenset("-._~%!$&'()*+,;=:@/?#")
_NID_CHARS = _ALNUM | {"-"}
_TEMPLATE_START = frozenset("{<[…")
_WRAP_ENDS = (":", "-", ".", "/", "%", "=")
_SENTENCE_END = ".,;:"
_CLOSERS = {'"': '"', "“": "”", "(": ")", "<": ">", "`": "`", "'": "'", "[": "]"}


@dataclass(slots=True)
class Found:
    urn: str  # exactly as written (with its own NID)
    line: int  # source line where it starts
    end_line: int  # source line where it ends (differs when wrapped)
    struck: bool = False  # struck through or marked invalid
    ocr: bool = False  # spaces removed from an OCR-damaged URN
    doubt: str = ""  # why the reading is uncertain (a possible continuation on the next line, …)
    joined_why: str = ""  # what proves a join across lines


@dataclass(slots=True)
class Scan:
    found: list[Found] = field(default_factory=list)
    templates: list[tuple[str, int]] = field(default_factory=list)  # (text, line) left out
    literals: list[tuple[str, int]] = field(default_factory=list)  # quoted strings of grammar rules, left out


_NAMESPACE_WORDS = ("namespace", "subnamespace", "sub-namespace", "prefix", "sub-space", "subspace", "nid")


def _names_a_namespace(text: str, end: int) -> bool:
    """``the "urn:smpte:ul" subnamespace``: a prefix named in prose, not an example."""
    after = text[end : end + 40].lstrip("\"'`*)").lstrip()
    word = after.split(None, 1)[0].lower().strip(".,;:)") if after else ""
    return word in _NAMESPACE_WORDS


def _introduced_as_prefix(text: str, start: int) -> bool:
    """``a naming authority under "urn:mace:shib"``, ``names beginning with "urn:x:y"``: a prefix."""
    words = [
        w
        for w in text[max(0, start - 120) : start].replace('"', " ").replace(",", " ").split()
        if not w.lower().startswith("urn:")
    ]
    last = [w.lower() for w in words[-2:]]
    return bool(last) and (
        last[-1] in ("under", "beneath", "prefix", "prefixes")
        or last[-1] == "with"
        and len(last) == 2
        and last[0] in ("beginning", "starting", "begin", "start", "begins", "starts")
    )


def _quoted(text: str, start: int, end: int) -> bool:
    return bool(start) and text[start - 1] == '"' and text[end : end + 1] == '"'


def _grammar_line(text: str) -> bool:
    """An ABNF rule or the continuation of one (``/ "urn:x:"``): its quoted strings are literals."""
    return rule_start(text) is not None or text.lstrip().startswith("/")


def _find_urn(text: str, lowered: str, start: int) -> int:
    """Index of the next "urn:" (any case) at a word start, or -1 (``lowered`` is ``text.lower()``)."""
    while True:
        index = lowered.find("urn:", start)
        if index < 0:
            return -1
        if index == 0 or text[index - 1] not in _ALNUM and text[index - 1] not in "-._%:/":
            return index
        start = index + 4


def _nid_end(text: str, index: int) -> int:
    """Index just after the NID that starts at ``index`` (the NID is 1-32 characters)."""
    end = index
    while end < len(text) and end - index < 32 and text[end] in _NID_CHARS:
        end += 1
    return end


def _trim(urn: str, before: str) -> str:
    """Drop the punctuation of the sentence the URN sits in (one pass from the end)."""
    if before in ("*", "_") and urn.endswith(before):
        urn = urn.rstrip(before)  # Markdown emphasis around the URN
    if before == "~" and urn.endswith("~~"):
        urn = urn[:-2]  # struck through: ~~urn:…~~
    opened, closed, quotes = urn.count("("), urn.count(")"), urn.count("'")
    nss_start = urn.find(":", 4) + 1
    end = len(urn)
    while end > nss_start:
        last = urn[end - 1]
        if last in _SENTENCE_END:
            end -= 1
        elif last == ")" and opened < closed:
            end -= 1
            closed -= 1
        elif last == "'" and before == "'" and quotes % 2 == 1:
            end -= 1
            quotes -= 1
        else:
            break
    return urn[:end]


def scan(lines: list[Line], accepts=None) -> Scan:
    """Every URN of ``lines``, in order, with its source line.

    ``accepts(urn)`` (True, False or None: cannot tell) is the document's grammar, asked only
    about a URN that may continue on the next line. A table is read cell by cell (tables.py),
    so a URN wrapped inside its cell goes on on the cell's next line, not on the table's."""
    result = Scan()
    for run in tables.runs(lines):
        part = _scan_run(run, accepts)
        result.found += part.found
        result.templates += part.templates
        result.literals += part.literals
    result.found.sort(key=lambda f: f.line)  # a table's columns were read one after the other
    return result


def _scan_run(lines: list[Line], accepts) -> Scan:
    result = Scan()
    index = 0
    resume = 0  # where scanning starts on the current line (after a wrapped URN's second part)
    while index < len(lines):
        line = lines[index]
        text = line.text
        lowered = text.lower()
        position, resume = resume, 0
        grammar_line = None  # whether the line is an ABNF rule: decided once, when a quoted URN asks
        while True:
            start = _find_urn(text, lowered, position)
            if start < 0:
                break
            before = text[start - 1] if start else ""
            nid_start = start + 4
            nid_end = _nid_end(text, nid_start)
            if nid_end == nid_start or nid_end >= len(text) or text[nid_end] != ":":
                position = start + 4
                continue
            end = nid_end + 1
            while end < len(text) and text[end] in NSS_CHARS:
                end += 1
            raw = text[start:end]
            urn = _trim(raw, before)
            end_line, doubt, joined_why = line.number, "", ""
            if end >= len(text.rstrip()) and index + 1 < len(lines):
                wrap = _continuation(raw, urn, before, line, lines[index + 1], accepts)
                if wrap is not None:
                    urn, doubt, joined_why, taken = wrap
                    if taken:
                        end_line, resume = lines[index + 1].number, taken
            after = text[end : end + 1]
            nss = urn[nid_end + 1 - start :]
            line_before = text[:start]
            struck = line_before.count("~~") % 2 == 1 or "(invalid)" in text[end : end + 12]
            if urn.count("(") > urn.count(")") and not doubt:
                doubt = (
                    f"a parenthesis opened in it closes only after a space ({text[start : end + 40].split(')')[0]})"
                    "): check where the URN ends"
                )
            if _quoted(text, start, end) and (
                grammar_line if grammar_line is not None else (grammar_line := _grammar_line(text))
            ):
                result.literals.append((urn, line.number))
            elif _names_a_namespace(text, end) or _introduced_as_prefix(text, start):
                result.templates.append((urn, line.number))
            elif after and after in _TEMPLATE_START or not nss or nss.endswith(("{", "<")):
                result.templates.append((text[start : end + 20].strip(), line.number))
            elif "{" in nss or "}" in nss or "<" in nss:
                result.templates.append((urn, line.number))
            else:
                result.found.append(Found(urn, line.number, end_line, struck, doubt=doubt, joined_why=joined_why))
            position = end
        index += 1
    return result


def _continuation(raw: str, urn: str, before: str, line: Line, following: Line, accepts):
    """Whether a URN that ends its line continues on the next: (urn, doubt, proof, characters of
    the next line taken), or None when the next line cannot continue it."""
    text = following.text
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    piece_end = 0
    while piece_end < len(stripped) and stripped[piece_end] in NSS_CHARS:
        piece_end += 1
    piece = stripped[:piece_end]
    if not piece or piece.lower().startswith("urn:") or piece.strip(_SENTENCE_END + ")'") == "":
        return None
    rest = stripped[piece_end:]
    if isinstance(line, tables.Cell) and line.width and line.width - len(line.text.rstrip()) >= len(piece):
        return None  # its cell had room for the next line's text: the URN ends in it, the cell goes on
    joined = _trim(raw + piece, before)
    if joined == urn:
        return None
    taken = offset + piece_end
    reading = f"line {line.number} ends with {urn!r} and line {following.number} starts with {piece!r}"
    closer = _CLOSERS.get(before)
    alone = not rest.strip(" \t" + _SENTENCE_END + ")'\"`>”")
    words = rest.split()
    prose = piece.isalpha() and len(words) >= 1 and words[0][:1].isalpha()
    end = raw[-1]
    proof = ""  # what in the layout proves the join
    if closer and (rest.startswith(closer) or piece.endswith(closer) and closer in ")'"):
        proof = f"the {before}…{closer} around it closes on line {following.number}"
    elif end == "%":
        proof = "a percent-encoding cannot end a URN"
    elif end in ":-/=" and alone:
        proof = f"line {line.number} breaks it after {end!r}, the rest alone on the next line"
    elif isinstance(line, tables.Cell) and line.full and isinstance(following, tables.Cell) and alone:
        proof = f"it fills its table cell on line {line.number}, and the cell goes on below"
    verdict = (accepts(urn), accepts(joined)) if accepts is not None else (None, None)
    if verdict == (False, True) and (proof or alone or not words):
        return joined, "", proof or f"the grammar accepts it joined, not line {line.number}'s part alone", taken
    if verdict == (False, True):
        # The grammar takes the join, but the next line goes on in words after the piece: the break
        # is judged by the layout too, and the two disagree.
        return (
            joined,
            f"{reading}, taken as its continuation (the grammar accepts it joined, not line {line.number}'s "
            f"part alone), but words follow it there; the other reading is {urn!r}",
            "",
            taken,
        )
    if proof and verdict == (True, False):
        return (
            joined,
            f"{reading}, taken as its continuation ({proof}), but the grammar accepts only "
            f"{urn!r}; check which is meant",
            "",
            taken,
        )
    if proof:
        return joined, "", proof, taken
    if verdict == (True, False) and not alone:
        return None  # the grammar takes the URN as it stands on its line; the next line is text
    if prose and (end not in _WRAP_ENDS or end == "." or piece[:1].isupper()):
        return None  # the sentence goes on: "… urn:x:a." / "The registry …"
    if alone or end in _WRAP_ENDS:
        return (joined, f"{reading}, taken as its continuation; the other reading is {urn!r}", "", taken)
    return urn, f"{reading}, which may be its continuation ({joined!r}); check where it ends", "", 0


def scan_ocr(lines: list[Line]) -> list[Found]:
    """URNs broken by spaces in OCR output ("urn: newsm : iptc.org: 2000: x"), spaces removed."""
    found = []
    for line in lines:
        text = line.text
        stripped = text.strip()
        if not stripped.lower().startswith("urn") or " " not in stripped:
            continue
        compact = "".join(stripped.split())
        if not compact.lower().startswith("urn:") or compact.count(":") < 3:
            continue
        nid_end = _nid_end(compact, 4)
        if nid_end == 4 or nid_end >= len(compact) or compact[nid_end] != ":":
            continue
        end = nid_end + 1
        while end < len(compact) and compact[end] in NSS_CHARS:
            end += 1
        urn = _trim(compact[:end], "")
        if len(urn) > nid_end + 1:
            found.append(Found(urn, line.number, line.number, ocr=True))
    return found


# --- which URNs are the document's examples -------------------------------------------------


def own_prefixes(snid_lines: list[Line], snid: str) -> tuple[set[str], list[str]]:
    """The document's own namespace: (NIDs named in its 1.1, URN prefixes written there).

    A sub-namespace registration names a prefix ("urn:ietf:params:whip"); its examples start
    with it, and are the document's own although their NID ("ietf") is shared with others."""
    nids, prefixes = {"ogf"}, []
    for line in snid_lines:
        for word in line.text.replace('"', " ").replace("`", " ").replace("“", " ").replace("”", " ").split():
            word = word.strip(".,;'()")
            if word.lower().startswith("urn:") and word.rstrip(":").count(":") >= 2:
                prefixes.append(word.lower().rstrip(":") + ":")
            elif word.lower().startswith("urn:"):
                nids.add(word[4:].strip(":").lower())  # "urn:fdc" names the NID fdc
            else:
                nids.add(word.strip(":").lower())
    return nids, prefixes


def placeholder_nids(lines) -> set[str]:
    """NIDs the document says stand for its own ("urn-n is a placeholder for the namespace id
    to be assigned"): the words of every line that speaks of a placeholder."""
    words = set()
    for line in lines:
        lowered = line.text.lower()
        if "placeholder" not in lowered:
            continue
        for word in lowered.replace('"', " ").replace("`", " ").replace("“", " ").replace("”", " ").split():
            word = word.strip(".,;'()")
            if word.startswith("urn:"):
                word = word[4:]
            word = word.strip(":")
            if word and word != "ogf" and all(char in _NID_CHARS for char in word):
                words.add(word)
    return words


def _own(urn: str, snid: str, nids: set[str], prefixes: list[str]) -> bool:
    lowered = urn.lower()
    nid = lowered[4:].split(":", 1)[0]
    if nid != "ogf" and nid in nids or snid and lowered.startswith(f"urn:ogf:{snid.lower()}:"):
        return True
    return any(lowered.startswith(prefix) for prefix in prefixes)


def _namespace_of(urn: str, prefixes: list[str]) -> str:
    """How the example's namespace is written: a prefix of 1.1 ("urn:ietf:params:whip:"), else
    its NID ("urn:fdc:"), or its SNID under urn:ogf: ("urn:ogf:other:")."""
    lowered = urn.lower()
    for prefix in prefixes:
        if lowered.startswith(prefix):
            return urn[: len(prefix)]
    parts = urn.split(":")
    return ":".join(parts[: 3 if parts[1].lower() == "ogf" and len(parts) > 3 else 2]) + ":"  # urn:ogf:<snid>:


@dataclass(slots=True)
class _Taken:
    """An example as the registry takes it: re-cast into urn:ogf:<snid>: when it is of the
    document's own namespace, else as written."""

    urn: str
    recast_from: str = ""  # the namespace re-cast ("urn:fdc:"), when it was
    foreign: str = ""  # the namespace it is kept in ("urn:other:"), when it is not re-cast
    why: str = ""
    uncertain: bool = False


def _for_registry(urn: str, snid: str, nids: set[str], prefixes: list[str], placeholders: set[str], accepts) -> _Taken:
    """Importing a registration as an SNID proposal re-casts the document's own namespace into
    ``urn:ogf:<snid>:``, as the grammar is rebased (``grammar.rebase``): ``urn:fdc:x`` becomes
    ``urn:ogf:fdc:x``, ``urn:ietf:params:whip:x`` (a sub-namespace written in 1.1) becomes
    ``urn:ogf:whip:x``. An example of another namespace is kept as written and uncertain:
    re-casting it would put in the document's mouth a URN of this namespace it never gave."""
    lowered = urn.lower()
    if snid and lowered.startswith(f"urn:ogf:{snid.lower()}:"):
        return _Taken(urn)
    if not snid:
        namespace = _namespace_of(urn, prefixes)
        return _Taken(
            urn,
            foreign=namespace,
            uncertain=True,
            why="no SNID was read, so it could not be re-cast as an urn:ogf:<snid>: URN; kept as written",
        )
    nid, rest = urn[4:].split(":", 1)
    namespace = _namespace_of(urn, prefixes)
    if nid.lower() == "ogf" or not _own(urn, snid, nids | placeholders, prefixes):
        return _Taken(
            urn,
            foreign=namespace,
            uncertain=True,
            why=f"an example of {namespace}, which is not this document's namespace; kept as written",
        )
    why = f"written {urn}, re-cast as an urn:ogf:{snid}: URN"
    if namespace.count(":") == 2:  # its NID: urn:fdc:x is urn:ogf:fdc:x
        said = f" (the document says {nid} is a placeholder for its namespace)" if nid.lower() not in nids else ""
        return _Taken(f"urn:ogf:{snid}:{rest}", recast_from=namespace, why=why + said)
    recast = f"urn:ogf:{snid}:{urn[len(namespace) :]}"  # a sub-namespace: cut at its prefix
    verdict = accepts(recast) if accepts is not None else None
    if verdict is True:
        return _Taken(recast, recast_from=namespace, why=why)
    doubt = (
        "the grammar, rebased onto urn:ogf:, does not accept it so re-cast"
        if verdict is False
        else "no grammar could confirm the re-cast form"
    )
    return _Taken(
        recast,
        recast_from=namespace,
        uncertain=True,
        why=f"{why} by cutting the sub-namespace {namespace}; {doubt}: check which form is meant",
    )


def choose(sections, unmapped: list[list[Line]], exported: dict, data, report, accepts=None, sub=None) -> None:
    """The document's example URNs into ``data.examples``, each reported with its line.

    Where examples are looked for, in order: the examples section, then the syntax part,
    then the rest of the document (there only URNs of the document's own namespace). An
    example of the document's own namespace (an RFC's ``urn:fdc:…`` for the SNID ``fdc``) is
    re-cast as ``urn:ogf:<snid>:…`` and a note asks to check it; one of another namespace is
    kept exactly as written and reported uncertain (see ``_for_registry``).

    ``sub`` is the sub-namespace the document registers (snid.SubNamespace), if it is one: its
    prefix is the document's own namespace, its deeper ``URN Prefix:`` entries are URNs of it."""
    from ..interchange import MAX_EXAMPLES, Examples

    if "examples" in exported:
        valid, invalid = exported["examples"]
        data.examples = Examples(valid=valid, invalid=invalid)
        for kind, urns in (("valid", valid), ("invalid", invalid)):
            for urn in urns:
                report.add(f"examples.{kind}", f"Example ({kind})", urn, exported.get("example_lines", {}).get(urn, []))
        return
    snid = data.snid
    nids, prefixes = own_prefixes(sections.get("snid", []), snid)
    entries: set[int] = set()  # lines of 1.1 that list URN prefixes under the sub-namespace
    if sub is not None:
        prefixes = [sub.prefix] + [p for p in prefixes if p != sub.prefix]
        entries = set(sub.lines)
    placeholders = placeholder_nids(line for ls in list(sections.values()) + unmapped for line in ls)
    tiers = [
        list(sections.get("examples", [])),
        [line for key in ("syntactic_structure", "validation_mechanism") for line in sections.get(key, [])],
        [
            line
            for key, ls in sections.items()
            if key not in ("examples", "syntactic_structure", "validation_mechanism", "snid", "version")
            for line in ls
        ]
        + [line for lines in unmapped for line in lines]
        + [line for line in sections.get("snid", []) if line.number in entries],
    ]
    tiers[2].sort(key=lambda line: line.number)
    candidates: list[Found] = []
    example_lines: list[Line] = []
    chosen = None
    for tier, tier_lines in enumerate(tiers):
        scanned = scan(tier_lines, accepts)
        found_lines = {f.line for f in scanned.found}
        if tier < 2:
            scanned.found += scan_ocr([ln for ln in tier_lines if ln.number not in found_lines])
            scanned.found.sort(key=lambda f: f.line)
        for text, number in scanned.templates:
            report.left_out.append({"text": text, "line": number, "why": "a template or a bare prefix, not a URN"})
        for text, number in scanned.literals:
            report.left_out.append({"text": text, "line": number, "why": "a literal of the grammar, not an example"})
        for f in scanned.found:
            bare = f.urn.lower().rstrip(":") + ":"
            if sub is not None and sub.prefix.startswith(bare):
                what = "the prefix of the sub-namespace registered" if sub.prefix == bare else "the namespace above it"
                report.left_out.append({"text": f.urn, "line": f.line, "why": f"{what}, not an example"})
            elif chosen is not None and chosen != tier:
                report.left_out.append(
                    {"text": f.urn, "line": f.line, "why": "outside the section the examples were taken from"}
                )
            elif tier == 2 and not _own(f.urn, snid, nids | placeholders, prefixes):
                report.left_out.append(
                    {"text": f.urn, "line": f.line, "why": "a mention of another namespace in prose"}
                )
            else:
                candidates.append(f)
                chosen = tier
        if chosen == tier:
            example_lines = tier_lines
    invalid_marks = _invalid_lines(example_lines)
    valid, invalid, recast, foreign = [], [], set(), set()
    for f in candidates:
        nid, rest = f.urn[4:].split(":", 1)
        if nid.lower() == "ogf" and rest.count(":") < 1:
            report.left_out.append({"text": f.urn, "line": f.line, "why": "urn:ogf: needs an SNID and a string"})
            continue
        taken = _for_registry(f.urn, snid, nids, prefixes, placeholders, accepts)
        urn = taken.urn
        bad = f.struck or f.line in invalid_marks
        if urn in valid or urn in invalid:
            continue
        (invalid if bad else valid).append(urn)
        why = []
        if f.ocr:
            why.append("spaces were removed from an OCR-damaged URN; compare with the source")
        if f.line in entries:
            why.append("listed as a URN prefix under the sub-namespace registered; taken as an example of it")
        if f.doubt:
            why.append(f.doubt)
        elif f.end_line != f.line:
            why.append(f"joined across lines {f.line}-{f.end_line}" + (f": {f.joined_why}" if f.joined_why else ""))
        if taken.why:
            why.append(taken.why)
        if taken.recast_from:
            recast.add(taken.recast_from)
        if taken.foreign:
            foreign.add(taken.foreign)
        report.add(
            "examples.invalid" if bad else "examples.valid",
            "Example (invalid)" if bad else "Example",
            urn,
            [f.line, f.end_line],
            uncertain=bool(f.ocr or f.doubt or taken.uncertain or f.line in entries),
            why="; ".join(why),
        )
    if len(valid) + len(invalid) > MAX_EXAMPLES:
        report.notes.append(
            f"The document gives {len(valid) + len(invalid):,} example URNs; the first "
            f"{MAX_EXAMPLES:,} were taken (a proposal holds at most {MAX_EXAMPLES:,})."
        )
        valid = valid[:MAX_EXAMPLES]
        invalid = invalid[: max(0, MAX_EXAMPLES - len(valid))]
    data.examples = Examples(valid=valid, invalid=invalid)
    if recast:
        report.notes.append(
            f"Example URNs of {', '.join(sorted(recast))} were re-cast as urn:ogf:{snid}: "
            "— check that they still make sense."
        )
    if foreign and not snid:
        report.notes.append(
            f"No SNID was read, so the examples of {', '.join(sorted(foreign))} could not be re-cast "
            "as urn:ogf:<snid>: URNs; they were kept as written: rewrite them for the registry."
        )
    elif foreign:
        report.notes.append(
            f"The examples of {', '.join(sorted(foreign))} are URNs of another namespace as the "
            f"document writes them, not urn:ogf:{snid}: URNs; they were kept as written: rewrite "
            "them for the registry if they are to be its examples."
        )
    if not valid:
        report.add("examples.valid", "Example", "", why="no example URN found; give at least one in 6")
        report.notes.append("No example URNs were found.")


def _invalid_lines(lines: list[Line]) -> set[int]:
    """Lines listed after a sentence introducing invalid examples (until one introducing valid ones)."""
    marked, listing = set(), False
    for line in lines:
        lowered = line.text.lower()
        if "urn:" not in lowered:
            if "invalid" in lowered and ("following" in lowered or lowered.rstrip().endswith(":")):
                listing = True
            elif "valid" in lowered and "invalid" not in lowered and "following" in lowered:
                listing = False
            continue
        if listing:
            marked.add(line.number)
    return marked
