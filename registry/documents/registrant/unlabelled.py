"""Unlabelled lines read by their position: an author block (person, role title, organisation,
c/o and postal lines) or contacts written one paragraph each ("A. Person, Role, a@example.org").
Everything read here is uncertain by construction (values.py)."""

from __future__ import annotations

from ..lineshapes import (
    clean as _clean,
)
from ..lineshapes import (
    email_in,
    second_half,
)
from ..lineshapes import (
    has_initial as _has_initial,
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
    is_role as _is_role,
)
from ..lineshapes import (
    runs_on as _runs_on,
)
from ..lineshapes import (
    without_email as _without_email,
)
from ..text import Line
from .people import ends_in_role, holder
from .values import Registrant, Value


def from_paragraphs(reader, result: Registrant, values) -> None:
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
        if (
            block == ""
            and not has_person
            and index + 1 < len(pieces)
            and ends_in_role(pieces[index].text)
            and (held := holder(f"{pieces[index].text} {pieces[index + 1].text}"))
        ):
            # "Example Metadata Project Lead" / "Sam Sample holds this position.": a position and
            # the sentence naming who holds it, neither an organisation nor an address.
            role, sentence = pieces[index], pieces[index + 1]
            why = f"read from a sentence: the person named after the role title {held[0]!r}"
            reader.add("person", Value(held[1], role.lines + sentence.lines, "cut", why, sentence.text))
            reader.add("role", role)
            index += 2
        while (
            index < len(pieces)
            and _is_role(pieces[index].text)
            and (not _is_org(pieces[index].text) or ends_in_role(pieces[index].text))
        ):
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
        _runs_on(name.text, line_length=name.length) or second_half(name.text, candidate.text)
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


def _contact_paragraph(paragraph: list[Line], reader, values) -> None:
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
