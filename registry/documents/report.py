"""The import report: for every template field, found (with source lines), uncertain (why), or not found.

The report is the contract between the importer and the applicant: the review
page, ``import_document --json`` and the draft all show the same items.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

FOUND, UNCERTAIN, MISSING = "found", "uncertain", "not found"


@dataclass(slots=True)
class Item:
    field: str  # "snid", "registrant.email", "sections.scope", "grammar.abnf", "examples.valid", …
    label: str  # for people: "1.1 Namespace Identifier"
    status: str  # FOUND, UNCERTAIN or MISSING
    value: str = ""
    lines: list[int] = field(default_factory=list)  # source lines it came from
    why: str = ""  # for UNCERTAIN and MISSING: what the applicant should check


@dataclass(slots=True)
class Report:
    format: str = "text"
    items: list[Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # about the document as a whole
    headings: list[dict] = field(default_factory=list)  # every heading: line, title, section, confidence
    left_out: list[dict] = field(default_factory=list)  # URN-like text not taken as examples, with why

    def add(self, field_: str, label: str, value: str, lines=(), *, why: str = "", uncertain: bool = False) -> Item:
        if uncertain:
            status = UNCERTAIN
        elif value:
            status = FOUND
        else:
            status = MISSING
        item = Item(field_, label, status, value, sorted(set(lines)), why)
        self.items.append(item)
        return item

    def item(self, field_: str) -> Item | None:
        return next((i for i in self.items if i.field == field_), None)

    @property
    def uncertain(self) -> list[Item]:
        return [i for i in self.items if i.status == UNCERTAIN]

    def as_dict(self) -> dict:
        return {
            "format": self.format,
            "items": [asdict(i) for i in self.items],
            "notes": list(self.notes),
            "headings": list(self.headings),
            "left_out": list(self.left_out),
            "summary": {
                status: sum(1 for i in self.items if i.status == status) for status in (FOUND, UNCERTAIN, MISSING)
            },
        }

    def as_text(self) -> str:
        lines = []
        for item in self.items:
            where = f" (line{'s' if len(item.lines) > 1 else ''} {_ranges(item.lines)})" if item.lines else ""
            mark = {FOUND: "found", UNCERTAIN: "UNCERTAIN", MISSING: "not found"}[item.status]
            value = item.value.replace("\n", " / ")
            if len(value) > 70:
                value = value[:67] + "..."
            lines.append(f"  [{mark}] {item.label}{where}: {value}" + (f" -- {item.why}" if item.why else ""))
        for note in self.notes:
            lines.append(f"  - {note}")
        return "\n".join(lines) + "\n"


def _ranges(numbers: list[int]) -> str:
    out, start, previous = [], None, None
    for n in numbers:
        if start is None:
            start = previous = n
        elif n == previous + 1:
            previous = n
        else:
            out.append(f"{start}" if start == previous else f"{start}-{previous}")
            start = previous = n
    if start is not None:
        out.append(f"{start}" if start == previous else f"{start}-{previous}")
    return ", ".join(out)
