"""The registrant part as a structure: blocks of (label, value) pairs, read as published registrations write them.

Shapes understood (docs/documents.md lists them with examples):

* labelled lines, the value on the label's line or alone below it (``Name:`` /
  blank line / ``Example Forum``), values wrapped onto deeper-indented lines;
* nested blocks: ``Registering organization`` and ``Designated contact
  (person)``, each with its own ``Name:``, ``Address:``, ``Role:``, ``Email:``;
* labels and values printed as two columns (``Name:`` ``Address:`` then the values);
* unlabelled author blocks: a person, a role title, the organisation, ``c/o``
  lines and the postal address, one per line;
* the person only in ``Attn. A. Person (a@example.org)`` or ``c/o A. Person``;
  role titles (``Title:``, ``Role:``, ``, Managing Director``); acronym lines
  (``(3GPP2)``); several contacts (the first is the contact, the others are kept
  as additional contacts).

Every value carries its source lines and *how* it was read. A value read from a
label on its own line is certain; one assembled from several lines, guessed from
its position, paired across columns or cut out of a longer text is uncertain by
construction, with the reason and the other reading where there is one. A value
never contains another field's label.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from . import known
from .lineshapes import (
    clean as _clean,
)
from .lineshapes import (
    email_in,
)
from .lineshapes import (
    has_initial as _has_initial,
)
from .lineshapes import (
    is_address as _is_address,
)
from .lineshapes import (
    is_org as _is_org,
)
from .lineshapes import (
    is_person as _is_person,
)
from .lineshapes import (
    is_role as _is_role,
)
from .lineshapes import (
    runs_on as _runs_on,
)
from .lineshapes import (
    strip_honorific as _strip_honorific,
)
from .lineshapes import (
    unclosed as _unclosed,
)
from .lineshapes import (
    without_email as _without_email,
)
from .text import Line

# label (lower case, single spaces) -> what it holds; block openers; role and organisation words:
# data, in labels.toml (known.py), so a new template's label needs no code change.
_LABELS = known.KNOWN["registrant_labels"]
_OPENERS = known.KNOWN["openers"]
_NOT_GIVEN = {"n/a", "na", "tbd", "none", "-", "unknown"}
_SENTENCE = (" is a ", " is the ", " is an ", " will ", " shall ")

# how a value was read -> why that is uncertain ("" = certain)
_HOW = {
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
    how: str  # a key of _HOW
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


class _Reader:
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
                # indentation: its second half, or the first address line; the layout does not say.
                value.other = f"{value.text} {stripped}"
                value.why = (
                    f"line {line.number} ({stripped!r}) may be the second half of the name rather than text of its own"
                )
        self.last = None
        paragraphs = self.paragraphs[self.block]
        if blank or not paragraphs:
            paragraphs.append([])
        paragraphs[-1].append(line)


def read(lines: list[Line]) -> Registrant:
    """The registrant of a registrant section's ``lines``."""
    reader = _Reader()
    for line in lines:
        reader.feed(line)
    result = Registrant()
    values = reader.values

    def first(*keys) -> Value | None:
        for key in keys:
            for value in values.get(key, []):
                if value.text.strip(" .").lower() not in _NOT_GIVEN:
                    return value
                result.uncertain.setdefault(
                    {"person": "name", "name": "name"}.get(key[1], key[1]), "given as N/A or TBD"
                )
        return None

    _from_paragraphs(reader, result, values)
    organisation = first(("org", "organisation"), ("", "organisation"), ("contact", "organisation"))
    person = first(("contact", "person"), ("", "person"))
    named = first(("", "name"))
    if named is not None:
        # "Name:" outside a block: the organisation when a contact is named elsewhere
        # (RFC 3406's own illustration), else the person.
        if (reader.contact_seen or person is not None) and organisation is None:
            organisation = named
        elif person is None:
            person = named
            if organisation is None and _is_org(named.text):
                organisation, person = named, None
    address = first(("org", "address"), ("", "address"), ("contact", "address"))
    roles = values.get(("contact", "role"), []) + values.get(("", "role"), []) + values.get(("org", "role"), [])
    people = [
        v
        for v in values.get(("contact", "person"), []) + values.get(("", "person"), [])
        if v.text.strip(" .").lower() not in _NOT_GIVEN
    ]
    # A person named by a label is the contact; one named only in "Attn." (the organisation's
    # attention line) comes after, and when both are there the choice is a reading, said so.
    people.sort(key=lambda v: v.how == "attn")
    if people and person is not None and person.how == "attn" and people[0] is not person:
        person = people[0]
    if person is not None and len(people) > 1 and people[-1].how == "attn" and person.how != "attn":
        person.why = person.why or (
            f"two people are named; the designated contact was taken, the other reading "
            f"is {people[-1].text!r} (line {people[-1].lines[0]}, Attn.)"
        )
    for extra in people[1:]:
        result.contacts.append(extra.text)
        result.notes.append(
            f"An additional contact, {extra.text!r} (line {extra.lines[0]}), has no registrant "
            "field; the first contact was taken."
        )
    email = _email(values, result, lines)
    if person is None and roles:
        role = roles[0]
        person = Value(role.text, role.lines, role.how, "the contact is given only by a role title")
        roles = roles[1:]
    for role in roles:
        result.notes.append(
            f"The role {role.text!r} (line {role.lines[0]}) has no registrant field; it was not copied."
        )
    if person is not None:
        person = _person_after_role(person, result)
        person = _person_name(person, email, result)
        if _is_role(person.text) and not _is_person(person.text) and not person.why:
            person.why = "the contact is given only by a role title"
        _set(result, "name", person)
    if organisation is not None:
        organisation = _organisation(organisation, email)
        if _is_role(organisation.text) and not _is_org(organisation.text) and not organisation.why:
            organisation.why = "it reads like a role title, not an organisation"
        _set(result, "organisation", organisation)
    if address is not None:
        text = "\n".join(
            part
            for part in (_without_email(t, email) for t in address.text.split("\n"))
            if part and not part.lower().startswith("http")
        )
        _set(result, "address", Value(text, address.lines, address.how, address.why))
    public = first(("", "public-contact"), ("org", "public-contact"), ("contact", "public-contact"))
    if public is not None:
        _set(result, "public_contact", public)
    if result.name and result.name == result.organisation and "name" not in result.uncertain:
        result.uncertain["name"] = "the designated contact is the organisation itself; name a person if there is one"
    words = result.name.lower().split()
    if len(words) > 6 and {"will", "shall", "is", "the", "a", "an"} & set(words):
        result.uncertain["name"] = "the contact is described in a sentence, not named"
    return result


def _email(values, result: Registrant, lines: list[Line]) -> str:
    """The contact's e-mail; another one (the organisation's) is shown as the other reading."""
    found = []
    for block in ("contact", "", "org"):
        for value in values.get((block, "email"), []):
            address = email_in(value.text) or value.text
            if address.lower() not in (f[0].lower() for f in found):
                found.append((address, value))
    if not found:
        for line in lines:
            if address := email_in(line.text):
                result.email, result.lines["email"] = address, [line.number]
                return address
        return ""
    address, value = found[0]
    result.email, result.lines["email"] = address, value.lines[:1]
    if value.how == "columns":
        result.uncertain["email"] = _HOW["columns"]
    elif (
        len(found) > 1
        and values.get(("contact", "email"))
        and any((b, "email") in values for b in ("", "org") if values.get((b, "email")))
    ):
        result.uncertain["email"] = (
            f"the contact's e-mail was taken; the other reading is {found[1][0]!r} (line {found[1][1].lines[0]})"
        )
    return address


def _set(result: Registrant, key: str, value: Value) -> None:
    setattr(result, key, value.text)
    result.lines[key] = sorted(set(value.lines))
    why = value.why or _HOW.get(value.how, "")
    if value.how == "wrapped":
        why = f"assembled from lines {value.lines[0]}-{value.lines[-1]}; check where it ends"
    if why and key not in result.uncertain:
        result.uncertain[key] = why + (f"; the other reading is {value.other!r}" if value.other else "")


def _person_name(value: Value, email: str, result: Registrant) -> Value:
    text = _without_email(value.text, email)
    text = _without_email(text, email_in(text))
    for marker in ("(attn:", "(attn.", "(attn "):
        index = text.lower().find(marker)
        if index >= 0:  # "The Secretary (attn: Mr. Paul Burton)"
            inner = text[index + len(marker) :].rstrip(")").strip()
            return Value(_strip_honorific(inner), value.lines, "cut", "", text)
    name = _strip_honorific(text)
    head, paren, inner = name.partition(" (")
    if paren and inner.endswith(")") and _is_org(head) and _is_person(inner[:-1]):
        # "FIPA Secretariat (J. Kelly)": an office, and the person in it
        return Value(_strip_honorific(inner[:-1]), value.lines, "cut", "", text)
    if "," in name:
        head, _, rest = name.partition(",")
        rest = rest.strip()
        if rest and _is_role(rest) and not _is_role(head):
            result.notes.append(
                f"The role title {rest!r} (line {value.lines[0]}) has no registrant field; it was not copied."
            )
            name = head.strip()
    return Value(name, value.lines, value.how, value.why, value.other)


def _person_after_role(value: Value, result: Registrant) -> Value:
    """ "The Example Project Lead. Steve Sample maintains the list.": the person named in the
    sentence after a role title, read from the sentence (uncertain), the role kept as a note."""
    text = value.text
    sentences, start = [], 0
    for index in range(1, len(text) - 1):
        if text[index] == "." and text[index + 1] == " " and text[index - 1].islower():
            sentences.append(text[start:index].strip())
            start = index + 1
    sentences.append(text[start:].strip())
    for position, sentence in enumerate(sentences[1:], start=1):
        words = []
        for word in sentence.replace(",", " , ").split():
            if not (word[:1].isupper() or len(word) == 2 and word[1] == ".") or len(words) == 4:
                break
            words.append(word)
        name = " ".join(words)
        roles = [s for s in sentences[:position] if _is_role(s)]
        if roles and 2 <= len(words) and _is_person(name):
            result.notes.append(
                f"The role title {roles[-1]!r} (line {value.lines[0]}) has no registrant field; it was not copied."
            )
            return Value(
                name,
                value.lines,
                "cut",
                f"read from a sentence: the person named after the role title {roles[-1]!r}",
                text,
            )
    return value


def _organisation(value: Value, email: str) -> Value:
    text = _without_email(value.text, email)
    lowered = text.lower()
    for marker in _SENTENCE:
        index = lowered.find(marker)
        if index > 0:  # "EPCglobal, Inc. is a subsidiary of GS1"
            return Value(text[:index].strip(" ,"), value.lines, "cut", "", text)
    head, comma, rest = text.partition(",")
    if comma and _is_role(head) and not _is_org(head) and rest.strip():
        # "Director, The International ISBN Agency": a role title before the organisation
        return Value(rest.strip(), value.lines, "cut", f"the role title {head.strip()!r} was left out", text)
    return Value(text, value.lines, value.how, value.why, value.other)


def _from_paragraphs(reader: _Reader, result: Registrant, values) -> None:
    """Unlabelled lines, per block: contacts one paragraph each, or an author block
    (person, role title, organisation, c/o and postal lines)."""
    for block in ("contact", "org", ""):
        paragraphs = reader.paragraphs[block]
        if block == "contact":
            for paragraph in paragraphs:
                _contact_paragraph(paragraph, reader, values)
            continue
        pieces = []
        for paragraph in paragraphs:
            for line in paragraph:
                text = _clean(line.text)
                lowered = text.lower()
                if text.lstrip("(").startswith("+"):
                    continue  # a telephone number: "(+33 (0)492944200)"
                if lowered.startswith(("http", "www.", "phone", "tel", "fax", "email", "e-mail", "mail")):
                    if address := email_in(text):
                        reader.block = block
                        reader.add("email", Value(address, [line.number], "label"))
                    continue
                address = email_in(text)
                if address:
                    reader.block = block
                    reader.add("email", Value(address, [line.number], "position"))
                    text = _without_email(text, address)
                    if not text or text.lstrip("(").startswith("+"):
                        continue  # the e-mail alone, or with a telephone number
                if pieces and pieces[-1].open and pieces[-1].lines[-1] + 1 == line.number:
                    pieces[-1].extend(" ", text, line.number)  # "(attn: A." / "Person)": one value
                    continue
                pieces.append(Value(text, [line.number], "position", length=len(line.text.rstrip())))
        # A sentence (guidance or description) is not a name or an address line.
        pieces = [
            p
            for p in pieces
            if not (
                len(p.text.split()) > 10
                or len(p.text.split()) > 5
                and p.text.endswith(".")
                and not Value(p.first, [], "").open
            )
        ]
        if not pieces:
            continue
        reader.block = block
        index = 0
        has_org = values.get((block, "organisation")) or (block == "" and values.get(("org", "organisation")))
        has_person = values.get(("contact", "person")) or values.get(("", "person")) or values.get(("", "name"))
        first = pieces[0].text
        # A person's line comes before the organisation's; a line followed straight by the street is
        # the registrant itself (an organisation with its address, no person) unless written as a
        # person's name ("A. Person", "(attn: …)").
        if (
            block == ""
            and not has_person
            and len(pieces) > 1
            and (
                "(attn" in first.lower()
                or not _is_org(first)
                and not _is_address(first)
                and (not _is_address(pieces[1].text) or _has_initial(first))
            )
        ):
            reader.add("person", pieces[0])
            index = 1
        while index < len(pieces) and _is_role(pieces[index].text) and not _is_org(pieces[index].text):
            reader.add("role", pieces[index])
            index += 1
        if index < len(pieces) and not has_org and not _is_address(pieces[index].text):
            organisation = pieces[index]
            index += 1
            if index + 1 < len(pieces) and _continues_name(organisation, pieces[index], pieces[index + 1]):
                organisation.extend(" ", pieces[index].text, pieces[index].lines[0])
                organisation.other = organisation.first
                index += 1
            elif index + 1 < len(pieces) and _may_continue_name(organisation, pieces[index], pieces[index + 1]):
                organisation.other = f"{organisation.text} {pieces[index].text}"
                organisation.why = (
                    f"read by position; line {pieces[index].lines[0]} ({pieces[index].text!r}) may be "
                    "the second half of the name rather than the first address line"
                )
            reader.add("organisation", organisation)
        rest = pieces[index:]
        if rest and not values.get((block, "address")):
            reader.add(
                "address", Value("\n".join(p.text for p in rest), [n for p in rest for n in p.lines], "position")
            )


def _continues_name(name: Value, candidate: Value, following: Value) -> bool:
    """Whether an unlabelled line right below a name is its second half ("Example Standards" /
    "Committee of the Americas") rather than the first address line: it is the next line, reads as
    words of a name (no digit, no street word), and the line after it is an address line."""
    return _may_continue_name(name, candidate, following) and (
        _runs_on(name.text, line_length=name.length) or candidate.text[:1].islower()
    )


def _may_continue_name(name: Value, candidate: Value, following: Value) -> bool:
    """The same shape without the sign that the name runs on: either reading is possible."""
    return (
        candidate.lines[0] == name.lines[-1] + 1
        and not _is_address(candidate.text)
        and len(candidate.text.split()) <= 6
        and _is_address(following.text)
        and not name.text.endswith((".", ")"))
    )


def _contact_paragraph(paragraph: list[Line], reader: _Reader, values) -> None:
    """One contact written without labels: "A. Person, Role, a@example.org" and its address lines."""
    reader.block = "contact"
    text = " ".join(_clean(line.text) for line in paragraph)
    email = email_in(text)
    first_line = _without_email(_clean(paragraph[0].text), email)
    head, _, rest = first_line.partition(",")
    how = "position" if len(paragraph) == 1 else "wrapped"
    person = Value(
        head.strip(), [line.number for line in paragraph], "position", other=first_line if rest.strip() else ""
    )
    if not head.strip() or _is_org(head) and not _is_person(head):
        return
    if _is_role(head) and not _is_person(head):
        # "Manager, Standards": a role title (with its comma), not a person and a role
        reader.add("role", Value(first_line, [paragraph[0].number], "position"))
        if email and not values.get(("contact", "email")):
            reader.add("email", Value(email, [line.number for line in paragraph if email in line.text][:1], how))
        return
    reader.add("person", person)
    if email and len(values.get(("contact", "person"), [])) == 1:
        reader.add("email", Value(email, [line.number for line in paragraph if email in line.text][:1], how))
    role = rest.strip(" ,")
    if role and len(values.get(("contact", "person"), [])) == 1:
        reader.add("role", Value(role, [paragraph[0].number], "position"))
