"""A document cut at its headings into blocks, each mapped to a template section (or to none).

Which lines are headings is decided here, with the document as context: a GFD.191-style
document that numbers its template sections has only those as headings; in a document whose
headings are labels at one indentation, an unknown title written the same way starts a block
of unplaced text; labels inside a section (an indented "Introduction:", "Contact:" among the
registrant's lines, a "Date:" deeper than the headings) stay text of that section.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..gfd191 import SECTIONS_BY_KEY
from . import registrant as registrant_reader
from .headings import CERTAIN, Heading, heading, unknown_heading
from .report import Report
from .text import Line


@dataclass(slots=True)
class Block:
    key: str | None
    heading: Heading | None
    line: int  # source line of the heading (0: before the first heading)
    lines: list[Line] = field(default_factory=list)


def split(lines: list[Line], report: Report) -> list[Block]:
    """The document cut at its headings."""
    found = [(line, heading(line.text)) for line in lines]
    numbered = {h.key for line, h in found if h and h.key and h.number == SECTIONS_BY_KEY[h.key].number}
    # A GFD.191-style document numbers its template sections: then only those count,
    # and the same words elsewhere in its prose are text, not headings.
    template_numbers = len(numbered) >= 5
    # Documents whose headings are labels ("Title:" at one indentation, as RFC templates write
    # them): a line written the same way under a title we do not know starts unplaced text.
    certain = [(line, h) for line, h in found if h is not None and h.key and h.confidence >= CERTAIN]
    labels = [h.indent for line, h in certain if ":" in line.text]
    heading_indent = -1
    if len(labels) >= 3 and len(labels) * 3 >= len(certain) * 2:
        heading_indent = max(set(labels), key=labels.count)
    blocks = [Block(None, None, 0)]
    seen: set[str | None] = set()
    previous_blank = True
    for position, (line, found_heading) in enumerate(found):
        current = blocks[-1]
        if (
            found_heading is None
            and previous_blank
            and current.key not in ("registrant", "version", "snid")
            and _unknown_heading_at(found, position, heading_indent)
        ):
            found_heading = unknown_heading(line.text)
        blank_before, previous_blank = previous_blank, not line.text.strip()
        if found_heading is None and _number_above_heading(found, position):
            report.notes.append(
                f"The section number {line.text.strip()!r} on line {line.number} stands alone above "
                "a heading; it was read as that heading's number, not as text."
            )
            continue
        if found_heading is not None and template_numbers and found_heading.key:
            if found_heading.number != SECTIONS_BY_KEY[found_heading.key].number:
                # The same words elsewhere: a part heading ("2. Syntax") or prose, not the section.
                found_heading = (
                    Heading(
                        None,
                        found_heading.title,
                        found_heading.rest,
                        1.0,
                        "a part heading",
                        found_heading.number,
                        found_heading.indent,
                    )
                    if found_heading.number and "." not in found_heading.number
                    else None
                )
        if (
            found_heading is not None
            and current.heading is not None
            and found_heading.indent > current.heading.indent
            and current.key
            and (found_heading.confidence < 1.0 or found_heading.key is None and not found_heading.number)
        ):
            found_heading = None  # an indented label inside a section ("Introduction:") is its text
        if (
            found_heading is not None
            and found_heading.title.lower() == "date"
            and current.heading is not None
            and found_heading.indent > current.heading.indent
        ):
            found_heading = None  # "Date:" inside a section is one of its lines; at heading level, RFC 8141's field
        if (
            found_heading is not None
            and found_heading.key
            and found_heading.key == current.key
            and (
                current.key == "registrant"
                or found_heading.confidence < 1.0
                and (current.heading is None or found_heading.indent > current.heading.indent)
            )
        ):
            found_heading = None  # "Contact:", "Declared Contact:" inside the registrant section are its labels
        if (
            found_heading is not None
            and found_heading.confidence < CERTAIN
            and found_heading.key == "registrant"
            and current.key not in (None, "registrant")
            and ("registrant" in seen or found_heading.rest and found_heading.indent != heading_indent)
        ):
            # A contact label read only by its words ("Contact: assign@example.org for new names")
            # inside another section, after the registrant was given or with its text on the same
            # line, as labels inside prose are written: text of that section, not a second registrant.
            found_heading = None
        if found_heading is None and blank_before and _leaves_its_label(blocks, line):
            # "Contact:  Ada Sample" then, after a blank line, a paragraph at the label's own
            # indentation: the template's fields are over, the text is the enclosing part's again.
            parent = next(
                b for b in reversed(blocks) if b.heading is not None and b.heading.indent < current.heading.indent
            )
            blocks.append(Block(parent.key, parent.heading, parent.line))
            current = blocks[-1]
        if found_heading is None:
            current.lines.append(line)
            continue
        seen.add(found_heading.key)
        block = Block(found_heading.key, found_heading, line.number)
        if found_heading.rest and found_heading.key == "registrant" and registrant_reader.is_label(line.text):
            block.lines.append(Line(line.number, line.text.strip()))  # "Contact:  A. Person": a labelled value
        elif found_heading.rest:
            block.lines.append(Line(line.number, found_heading.rest))
        blocks.append(block)
        report.headings.append(
            {
                "line": line.number,
                "title": found_heading.title,
                "section": found_heading.key or "",
                "confidence": found_heading.confidence,
                "why": found_heading.why,
            }
        )
    return blocks


def _leaves_its_label(blocks: list[Block], line: Line) -> bool:
    """Whether ``line`` (after a blank line) is no longer text of the label block above: that label
    held its value on its own line, and ``line`` stands at the label's indentation, inside a part
    whose heading is less indented (the template's fields written in an "IANA Considerations")."""
    current = blocks[-1]
    heading = current.heading
    if heading is None or not heading.rest or not line.text.strip() or heading.indent == 0:
        return False
    if len(line.text) - len(line.text.lstrip()) != heading.indent or registrant_reader.is_label(line.text):
        return False
    return any(b.heading is not None and b.heading.indent < heading.indent for b in blocks[:-1])


def _number_above_heading(found, position: int) -> bool:
    """A bare section number ("4.") that text extraction put on a line of its own above its heading."""
    raw = found[position][0].text
    text = raw.strip()
    if (
        not text
        or not text[0].isdigit()
        or not text.endswith(".")
        or len(text) > 12
        or not all(c.isdigit() or c == "." for c in text)
        or len(raw) - len(raw.lstrip()) > 3
    ):
        return False  # "4." or "4.1." near the margin; "01" below a wrapped URN is the URN's end
    for previous, _ in reversed(found[max(0, position - 3) : position]):
        if previous.text.strip():
            if previous.text.rstrip().endswith((":", "-", ".", "/", "%", "=")):
                return False  # the end of a URN wrapped at the line break
            break
    for following, following_heading in found[position + 1 : position + 4]:
        if following.text.strip():
            return following_heading is not None
    return False


def _unknown_heading_at(found, position: int, indent: int) -> bool:
    """Whether line ``position`` is written like the document's headings ("Title:" at their
    indentation, its text on the line or indented below) without being one we know."""
    line = found[position][0]
    candidate = unknown_heading(line.text)
    if candidate is None or indent < 0 or candidate.indent != indent or registrant_reader.is_label(line.text):
        return False
    if indent == 0 and not line.text.strip().startswith("**"):
        return False  # at the margin only a heading written in bold, like the document's own
    if candidate.rest:
        return True
    for following, _ in found[position + 1 : position + 4]:
        if following.text.strip():
            return len(following.text) - len(following.text.lstrip()) > indent
    return False
