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

from ..lineshapes import (
    email_in,
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
    without_email as _without_email,
)
from ..text import Line
from .labelled import Reader, is_label
from .people import care_of, cared_for_by, ends_in_role, holder, no_one, organisation_of, person_after_role, person_name
from .unlabelled import from_paragraphs
from .values import HOW, NOT_GIVEN, Registrant, Value

__all__ = ["Registrant", "is_label", "read"]


def read(lines: list[Line]) -> Registrant:
    """The registrant of a registrant section's ``lines``."""
    reader = Reader()
    for line in lines:
        reader.feed(line)
    result = Registrant()
    values = reader.values

    def first(*keys) -> Value | None:
        for key in keys:
            for value in values.get(key, []):
                if value.text.strip(" .").lower() not in NOT_GIVEN:
                    return value
                result.uncertain.setdefault(
                    {"person": "name", "name": "name"}.get(key[1], key[1]), "given as N/A or TBD"
                )
        return None

    from_paragraphs(reader, result, values)
    organisation = first(("org", "organisation"), ("", "organisation"), ("contact", "organisation"))
    person = first(("contact", "person"), ("", "person"))
    named = first(("", "name"))
    if named is not None and person is None and ("(attn" in named.text.lower() or holder(named.text)):
        # "Name: The Registry Administrator (attn: A. Person)", "Name: Example Project Lead" and a
        # sentence naming who holds it: a person is named, not an organisation.
        person = named
    elif named is not None:
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
        if v.text.strip(" .").lower() not in NOT_GIVEN
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
    if organisation is not None and (cared := care_of(organisation)) is not None:
        organisation = cared[0]  # "Name: Example Office c/o A. Person": never the whole as the organisation
        person = person or cared[1]
    if person is None and address is not None and address.text.lower().startswith("c/o "):
        # "c/o A. Person" heading the postal lines: the person in whose care mail goes (the line stays
        # in the address, where it belongs).
        line = address.text.split("\n", 1)[0]
        if cared_for_by(line[4:].strip()):
            why = "read from the address's c/o line: the person in whose care it is"
            person = Value(line[4:].strip(), address.lines[:1], "cut", why)
    if organisation is not None and person is None and holder(organisation.text):
        person, organisation = organisation, None  # a position and its holder, not an organisation
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
        written = " ".join(person.text.split())
        person = person_after_role(person, result)
        person = person_name(person, email, result)
        if _is_role(person.text) and not _is_person(person.text) and not person.why:
            person.why = "the contact is given only by a role title"
        reason = no_one(person.text) if person.how != "cut" else ""
        if reason:
            # Never a sentence for a name: left empty, and the report says what the document wrote.
            result.lines["name"] = sorted(set(person.lines))
            result.uncertain["name"] = f"{reason} ({written!r}, line {person.lines[0]}): fill in a person"
            result.notes.append(f"The registrant section names no one: {reason} ({written!r}).")
        else:
            _set(result, "name", person)
    if organisation is not None:
        organisation = organisation_of(organisation, email)
        role_only = _is_role(organisation.text) and not _is_org(organisation.text) or ends_in_role(organisation.text)
        if role_only and not organisation.why:
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
        result.uncertain["email"] = HOW["columns"]
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
    why = value.why or HOW.get(value.how, "")
    if value.how == "wrapped":
        why = f"assembled from lines {value.lines[0]}-{value.lines[-1]}; check where it ends"
    if why and key not in result.uncertain:
        result.uncertain[key] = why + (f"; the other reading is {value.other!r}" if value.other else "")
