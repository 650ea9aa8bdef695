"""Tables read cell by cell, so a URN wrapped inside its cell is read as a reader reads it.

Registrations list their URNs in tables, boxed (``+----+----+`` rules, ``|`` between cells)
or unboxed (a header, a rule of dash groups ``-----  -----``, then rows whose cells stand
under the groups). A URN too long for its column goes on on the next line *of its cell*, with
the other cells' text beside it, so read line by line it would end at the cell's border and
its rest would start the next row. Here a table becomes runs of lines to scan: each column
between two rules is a run of its own, one line per table line holding only that cell's text.
The example scanner (examples.py) then judges each break as it judges a line break (by the
grammar, by the layout), with one more proof of its own: a URN that fills its cell to the
border was broken by the cell's width. Outside tables, lines are left as they are.

Every step is one pass over the lines: no regular expression, no backtracking.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import Line


@dataclass(slots=True)
class Cell(Line):
    """One line of one table cell: its text, and whether that text reaches the cell's border."""

    full: bool = False
    column: int = 0
    width: int = 0  # characters the cell's column holds on a line


def _boxed_rule(stripped: str) -> bool:
    """``+-----+-----+`` or ``+=====+``: a boxed table's rule."""
    return len(stripped) >= 3 and stripped[0] == "+" and stripped[-1] == "+" and set(stripped) <= {"+", "-", "="}


def _dash_groups(text: str) -> list[tuple[int, int]] | None:
    """(start, width) of each group of an unboxed table's rule (``----  -------``), or None."""
    stripped = text.strip()
    if len(stripped) < 7 or set(stripped) - {"-", "=", " "} or "  " not in stripped:
        return None
    starts, previous = [], " "
    for index, char in enumerate(text):
        if char != " " and previous == " ":
            starts.append(index)
        previous = char
    groups = text.split()
    if len(starts) < 2 or any(len(group) < 3 for group in groups):
        return None
    return list(zip(starts, (len(group) for group in groups), strict=True))


def _fits(text: str, groups: list[tuple[int, int]]) -> bool:
    """A line of an unboxed table: nothing crosses into the next column (a space just before
    every column's start), and nothing stands left of the first."""
    if text[: groups[0][0]].strip():
        return False
    return all(len(text) < start or text[start - 1] == " " for start, _ in groups[1:])


def runs(lines: list[Line]) -> list[list[Line]]:
    """``lines`` cut into runs to scan one by one: ordinary stretches as they are, and every
    column of every table part (between two rules) as a run of ``Cell`` lines."""
    out: list[list[Line]] = []
    plain: list[Line] = []
    index = 0
    while index < len(lines):
        stripped = lines[index].text.strip()
        starts = _dash_groups(lines[index].text) if stripped[:1] in "-=" else None  # (start, width) per column
        if stripped[:1] in "+|" and (_boxed_rule(stripped) or stripped[-1:] == "|"):
            end = index
            while end < len(lines) and lines[end].text.strip()[:1] in "+|":
                end += 1
            if end - index >= 2:
                out.append(plain)
                plain = []
                out.extend(_boxed(lines[index:end]))
                index = end
                continue
        elif starts is not None:
            plain.append(lines[index])  # the rule itself: no URN in it
            end, blanks = index + 1, 0
            while end < len(lines) and blanks < 2:
                text = lines[end].text
                if not text.strip():
                    blanks += 1
                elif _dash_groups(text) is not None or not _fits(text, starts):
                    break
                else:
                    blanks = 0
                end += 1
            body = lines[index + 1 : end]
            if any(line.text.strip() for line in body):
                out.append(plain)
                plain = []
                out.extend(_unboxed(body, starts))
                index = end
                continue
        plain.append(lines[index])
        index += 1
    if plain:
        out.append(plain)
    return [run for run in out if run]


def _boxed(lines: list[Line]) -> list[list[Line]]:
    """A boxed table: between two rules, each column's cells line by line. A Markdown table
    (``|---|---|`` under its header) never wraps a cell: there each line is a part of its own."""
    markdown = any(set(line.text.strip()) <= {"|", "-", ":", " "} and "-" in line.text for line in lines)
    parts: list[list[Line]] = [[]]
    for line in lines:
        stripped = line.text.strip()
        if _boxed_rule(stripped) or markdown:
            parts.append([])
            if _boxed_rule(stripped):
                continue
        parts[-1].append(line)
    out = []
    for part in parts:
        columns: dict[int, list[Line]] = {}
        for line in part:
            raw = line.text.strip()
            pieces = raw.strip("|").split("|")
            for column, piece in enumerate(pieces):
                text = piece.rstrip()
                full = bool(text.strip()) and len(piece) - len(text) <= 1
                columns.setdefault(column, []).append(Cell(line.number, text, full, column, len(piece) - 1))
        out.extend(columns[column] for column in sorted(columns))
    return out


def _unboxed(lines: list[Line], groups: list[tuple[int, int]]) -> list[list[Line]]:
    """An unboxed table's body: each column's text line by line (blank lines end a row's cells).
    A cell is full when its text reaches the width of its rule's group."""
    columns: dict[int, list[Line]] = {}
    ends = [start for start, _ in groups[1:]] + [None]
    for line in lines:
        text = line.text
        for column, ((start, width), end) in enumerate(zip(groups, ends, strict=True)):
            cell = text[start:end].rstrip()
            full = end is not None and bool(cell.strip()) and len(cell) >= width
            columns.setdefault(column, []).append(Cell(line.number, cell, full, column, width if end else 0))
    return [columns[column] for column in sorted(columns)]
