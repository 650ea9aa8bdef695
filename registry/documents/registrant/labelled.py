"""Labelled lines read as a structure: blocks ("Registering organization", "Designated contact")
of (label, value) pairs, values wrapped onto the lines below, labels and values in two columns.
Unlabelled lines are kept per block as paragraphs, for unlabelled.py."""

from __future__ import annotations

from collections import deque

from .. import known
from ..lineshapes import (
    clean as _clean,
)
from ..lineshapes import (
    email_in,
    second_half,
)
from ..lineshapes import (
    is_address as _is_address,
)
from ..lineshapes import (
    is_org as _is_org,
)
from ..lineshapes import (
    is_person as _is_person,
)
from ..lineshapes import (
    runs_on as _runs_on,
)
from ..lineshapes import (
    without_email as _without_email,
)
from ..text import Line
from .values import Value

# label (lower case, single spaces) -> what it holds; block openers: data, in labels.toml (known.py),
# so a new template's label needs no code change.
_LABELS = known.KNOWN["registrant_labels"]
_OPENERS = known.KNOWN["openers"]


def _label(text: str) -> tuple[str, str, str] | None:
    """(kind, value, label as written) if ``text`` is a labelled line or a block opener."""
    stripped = _clean(text)
    head, colon, rest = stripped.partition(":")
    key = " ".join(head.lower().replace("*", "").split())
    if not colon or rest[:2] == "//":
        key = " ".join(stripped.lower().rstrip(":").split())
        if key in _OPENERS:
            return _LABELS.get(key, "contact"), "", stripped
        if key in _LABELS and _LABELS[key] not in ("skip", "coordinates"):
            return _LABELS[key], "", stripped  # "Name" alone on its line: a label, never a value
        return None
    if key in _LABELS and len(head) < 40:
        return _LABELS[key], rest.strip().strip("*").strip(), head.strip()
    return None


def is_label(text: str) -> bool:
    """Whether ``text`` is one of the registrant's labelled lines ("Name:", "Registering organization:")."""
    return _label(text) is not None


def _other_label(value: str) -> int:
    """Index where another field's label starts inside ``value`` ("A. Person Title: Architect"), or -1."""
    lowered = value.lower()
    for label in _LABELS:
        index = lowered.find(f" {label}:")
        if index >= 0:
            return index
    return -1


class Reader:
    """One pass over the lines: entries of (block, kind) -> values, and unlabelled paragraphs per block."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], list[Value]] = {}
        self.paragraphs: dict[str, list[list[Line]]] = {"": [], "org": [], "contact": []}
        self.block = ""  # "", "org" or "contact"
        self.contact_seen = False
        self.pending: deque[tuple[str, str, bool]] = deque()  # (block, kind, weak): labels waiting for a value
        self.weak = 0  # how many of them are block openers ("Designated contact"), which a label cancels
        self.last: tuple[Value, str, int] | None = None  # value that may continue, its kind, the label's indent
        self.blank = False
        self.in_columns = False  # pairing labels of one column with the values of the next
        self.last_length = 0  # length of the line the last value came from (a full line may run on)

    def _clear(self) -> None:
        self.pending.clear()
        self.weak = 0

    def add(self, kind: str, value: Value) -> Value:
        self.values.setdefault((self.block, kind), []).append(value)
        return value

    def feed(self, line: Line) -> None:
        text = line.text
        stripped = _clean(text)
        if not stripped:
            self.blank = True
            return
        indent = len(text) - len(text.lstrip())
        blank, self.blank = self.blank, False
        lowered = stripped.lower()
        label = _label(text)
        if lowered.startswith(("attn.", "attn:", "attn ")):
            self._person_in(stripped[5:].strip(" :"), line, "attn")
            return
        if (
            lowered.startswith("c/o ")
            and email_in(stripped)
            and _is_person(_without_email(stripped[4:], email_in(stripped)))
        ):
            self._person_in(stripped[4:], line, "attn")
            return
        if label is not None:
            self._labelled(label, stripped, line, indent, blank)
            return
        self._unlabelled(stripped, line, indent, blank)

    def _person_in(self, text: str, line: Line, how: str) -> None:
        self.block = "contact"
        self.contact_seen = True
        email = email_in(text)
        if email:
            self.add("email", Value(email, [line.number], "label"))
        self.add("person", Value(_without_email(text, email), [line.number], how))
        self.last = None

    def _labelled(self, label, stripped: str, line: Line, indent: int, blank: bool) -> None:
        kind, value, written = label
        if kind == "org-block":
            self.block = "org"
            kind = "organisation"
        elif kind == "contact":
            self.block = "contact"
            self.contact_seen = True
            kind = "person"
            if written.lower() == "c/o":
                self._clear()
                self.last = None
                return
        elif kind == "name":
            kind = {"org": "organisation", "contact": "person"}.get(self.block, "name")
        elif kind == "person":
            self.block, self.contact_seen = "contact", True
        if kind == "coordinates":
            kind, value = "email", email_in(value)
            if not value:
                return
        if kind == "skip":
            self._clear()
            self.last = None
            return
        if not value:
            weak = label[0] in ("org-block", "contact")
            if blank or self.weak and weak:
                self._clear()
            elif not weak and self.weak:  # "Contact:" then "E-mail:" on the next line: labels of one column
                self.pending = deque((b, k, False) for b, k, _ in self.pending)
                self.weak = 0
            self.pending.append((self.block, kind, weak))
            self.weak += weak
            self.last = None
            return
        self._clear()
        how = "label"
        cut = _other_label(value)
        if cut > 0:
            value, how = value[:cut].strip(), "cut"
        if kind == "role":
            self.add("role", Value(value, [line.number], how))
            self.last = None
            return
        found = self.add(kind, Value(value, [line.number], how))
        self.last = (found, kind, indent)
        self.last_length = len(line.text.rstrip())

    def _unlabelled(self, stripped: str, line: Line, indent: int, blank: bool) -> None:
        if self.pending:
            columns = self.in_columns or len(self.pending) - self.weak > 1
            block, kind, weak = self.pending.popleft() if columns else self.pending[0]
            self.weak -= weak and columns
            self.in_columns = columns and bool(self.pending)
            if not columns:
                self._clear()
            saved, self.block = self.block, block
            found = self.add(
                kind if kind != "role" else "role", Value(stripped, [line.number], "columns" if columns else "below")
            )
            self.block = saved
            # Lines below continue an address; a name or organisation only on deeper lines (wrapped).
            self.last = (found, kind, indent - 1 if kind == "address" else indent)
            return
        if self.last is not None:
            value, kind, label_indent = self.last
            runs_on = _runs_on(value.more[-1][1] if value.more else value.first, line_length=self.last_length)
            wrapped = not blank and (indent > label_indent or indent == label_indent and runs_on or value.open)
            if kind == "address" and (not blank or indent > label_indent):
                value.extend("\n", stripped, line.number)
                return
            if kind in ("organisation", "name", "person") and (
                wrapped or stripped.startswith("(") and stripped.endswith(")") and not blank
            ):
                value.extend(" ", stripped, line.number)
                if value.how in ("label", "below"):
                    value.how = "wrapped"
                return
            if (
                (kind == "organisation" or kind == "name" and _is_org(value.text))
                and not blank
                and not value.more
                and not _is_address(stripped)
                and not email_in(stripped)
                and len(stripped.split()) <= 6
                and not value.text.endswith((".", ")"))
                and not value.why
            ):
                # "Name: Example Broadcasting Standards" / "Committee of the Americas" at the label's own
                # indentation: its second half, or the first address line; the layout does not say, the
                # words may (second_half): the likelier reading is taken, the other shown.
                if second_half(value.text, stripped):
                    first = value.text
                    value.extend(" ", stripped, line.number)
                    value.other = first
                    value.why = f"line {line.number} ({stripped!r}) was read as the second half of the name"
                    return
                value.other = f"{value.text} {stripped}"
                value.why = (
                    f"line {line.number} ({stripped!r}) may be the second half of the name rather than text of its own"
                )
        self.last = None
        paragraphs = self.paragraphs[self.block]
        if blank or not paragraphs:
            paragraphs.append([])
        paragraphs[-1].append(line)
