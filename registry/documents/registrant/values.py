"""A registrant value as read: its text, its source lines and how it was read (which says whether
it is certain), and the registrant assembled from such values."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lineshapes import unclosed as _unclosed

NOT_GIVEN = {"n/a", "na", "tbd", "none", "-", "unknown"}

# how a value was read -> why that is uncertain ("" = certain)
HOW = {
    "label": "",
    "below": "",
    "wrapped": "assembled from more than one line",
    "position": "read from an unlabelled line by its position",
    "columns": "labels and values stand in separate columns; they were paired in order",
    "cut": "cut out of a longer text",
    "attn": "",
}


@dataclass(slots=True)
class Value:
    first: str  # the text on its first line
    lines: list[int]
    how: str  # a key of HOW
    why: str = ""  # more about an uncertain reading
    other: str = ""  # the other reading, shown with the uncertain one
    more: list[tuple[str, str]] = field(default_factory=list)  # (separator, text) of continuation lines
    length: int = 0  # printed length of its first line (a full line may run on)
    parens: int = 0  # parentheses opened less those closed, so far (kept as lines come, never rejoined)
    quotes: int = 0  # quotation marks so far

    def __post_init__(self) -> None:
        self.parens, self.quotes = _unclosed(self.first)

    @property
    def text(self) -> str:
        """The whole value (joined once, when read: continuation lines are appended in constant time)."""
        return self.first + "".join(separator + piece for separator, piece in self.more)

    def extend(self, separator: str, text: str, number: int) -> None:
        self.more.append((separator, text))
        self.lines.append(number)
        parens, quotes = _unclosed(text)
        self.parens += parens
        self.quotes += quotes

    @property
    def open(self) -> bool:
        """A parenthesis or quotation left open: the value goes on on the next line."""
        return self.parens > 0 or self.quotes % 2 == 1


@dataclass(slots=True)
class Registrant:
    name: str = ""
    organisation: str = ""
    email: str = ""
    address: str = ""
    #: The contact the registry shows in public ("Public contact:", as its own export writes it).
    public_contact: str = ""
    lines: dict[str, list[int]] = field(default_factory=dict)
    uncertain: dict[str, str] = field(default_factory=dict)  # field -> why (with the other reading)
    notes: list[str] = field(default_factory=list)  # what was read but has no field (role titles)
    contacts: list[str] = field(default_factory=list)  # additional contacts, as written
