"""Where a finding points, as a link a person can read: "2.1 Syntactic Structure: ABNF, line 2, column 37".

A finding names what it concerns in its ``item`` (checklist.Finding): a section or field key,
a grammar line and column, an example's line in its list, an equivalence group. Every page
that lists findings (the edit page, the proposal page, the editor's review page, the
confirmation before submitting) links each one to that place, and the link says where it
goes, in the template's own numbering (gfd191.place_name): a screen reader's list of links
reads as a list of places, never as twenty "go to the field". The same place always gets
the same words, and different places different words.

The anchors are the pages' own: ``#section-<key>`` around each section and field, and
``#grammar-line-<n>`` / ``#examples_<list>-line-<n>`` on the lines findings mark
(templates/registry/_lines.html). ``field``, ``line`` and ``column`` let the edit page's
script put the cursor on the spot (static/registry/edit.js).
"""

from __future__ import annotations

from dataclasses import dataclass

from .gfd191 import place_name

#: The example lists whose lines the pages anchor and mark (``item.list``).
LINED_LISTS = ("valid", "invalid")


@dataclass(frozen=True, slots=True)
class Place:
    #: The link's words: where it goes.
    text: str
    #: The anchor on the page ("#section-scope", "#grammar-line-2").
    href: str
    #: For a line of a text field: the field's id, and the line and column to put the cursor at.
    field: str = ""
    line: int = 0
    column: int = 0


def _number(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def finding_place(item: dict | None) -> Place | None:
    """The place a finding's ``item`` points at, or None when it points at nothing on the page
    (a finding about the whole proposal, or a key no page shows)."""
    item = item or {}
    section, listed = item.get("section") or "", item.get("list") or ""
    line, column = _number(item.get("line")), _number(item.get("column"))
    if section == "grammar" and line:
        text = f"{place_name('grammar')}, line {line}" + (f", column {column}" if column else "")
        return Place(text, f"#grammar-line-{line}", "id_grammar_abnf", line, column or 1)
    example_line = _number(item.get("example_line"))
    if example_line and listed in LINED_LISTS:
        key = f"examples_{listed}"
        return Place(
            f"{place_name(key)}, line {example_line}", f"#{key}-line-{example_line}", f"id_{key}", example_line, 1
        )
    if section:
        name = place_name(section)
        return Place(name, f"#section-{section}") if name else None
    if listed == "equivalent":
        group = item.get("group")
        where = f", group {group + 1}" if isinstance(group, int) and not isinstance(group, bool) else ""
        return Place(place_name("examples_equivalent") + where, "#section-examples_equivalent")
    if item.get("example"):
        return Place(place_name("examples"), "#section-examples")
    return None
