"""The registrant block: name, organisation, e-mail and postal address in its common shapes.

Labelled lines (``Name:``, ``Contact:``, ``Organization:``, ``Affiliation:``,
``Address:``, ``E-mail:``/``EMail:``/``Email:``, ``Registering organization``,
``Designated contact``) are read first, values may wrap onto indented lines.
Unlabelled blocks are read as RFC authors' addresses are written: a person's
name, optionally a role title ("Technical Director"), the organisation, ``c/o``
lines and the postal address, one per line. Each field remembers its source lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .text import Line

_LABELS = {
    "name": "name", "contact": "contact", "contact name": "contact", "person": "contact",
    "designated contact": "contact", "contact person": "contact", "registrant": "name", "organisation": "organisation", "organization": "organisation",
    "affiliation": "organisation", "registering organization": "organisation",
    "registering organisation": "organisation", "company": "organisation", "address": "address",
    "postal address": "address", "postal": "address", "email": "email", "e-mail": "email",
    "e mail": "email", "mail": "email", "role": "role", "phone": "skip", "tel": "skip",
    "telephone": "skip", "fax": "skip", "uri": "skip", "url": "skip", "web": "skip",
}
_NOT_GIVEN = {"n/a", "na", "tbd", "none", "-", "unknown"}
_ROLE_WORDS = ("director", "manager", "chair", "editor", "officer", "secretary", "president", "engineer",
               "architect", "head of", "lead", "coordinator", "administrator")
_ORG_WORDS = ("inc", "ltd", "llc", "gmbh", "university", "institute", "corporation", "corp", "company",
              "foundation", "forum", "group", "association", "consortium", "organization", "organisation",
              "laboratory", "lab", "agency", "council", "committee", "ietf", "iso", "itu", "w3c", "sa",
              "ag", "bv", "centre", "center", "department", "dept", "school", "college", "society",
              "alliance", "network", "task force", "jtc", "rapporteur")


@dataclass(slots=True)
class Registrant:
    name: str = ""
    organisation: str = ""
    email: str = ""
    address: str = ""
    lines: dict[str, list[int]] = field(default_factory=dict)
    uncertain: dict[str, str] = field(default_factory=dict)  # field -> why
    notes: list[str] = field(default_factory=list)  # what was read but has no field (role titles)


def _label(text: str) -> tuple[str, str] | None:
    stripped = text.strip().lstrip("-*•").strip().strip("*")
    head, colon, rest = stripped.partition(":")
    key = " ".join(head.lower().replace("*", "").split())
    if not colon:
        key = " ".join(stripped.lower().split())
        if key in ("registering organization", "registering organisation", "designated contact"):
            return _LABELS[key], ""
        return None
    if key in _LABELS and len(head) < 30:
        return _LABELS[key], rest.strip().strip("*").strip()
    return None


def email_in(text: str) -> str:
    """The first e-mail address in ``text`` (``&`` written for ``@`` counts), found by scanning."""
    for marker in ("@", "&"):
        index = text.find(marker)
        while index > 0:
            left = index
            while left > 0 and (text[left - 1].isalnum() or text[left - 1] in "._+-"):
                left -= 1
            right = index + 1
            while right < len(text) and (text[right].isalnum() or text[right] in ".-"):
                right += 1
            local, domain = text[left:index], text[index + 1:right].rstrip(".")
            if local and "." in domain and not domain.startswith("."):
                return f"{local}{marker}{domain}"
            index = text.find(marker, index + 1)
    return ""


def _is_org(text: str) -> bool:
    lowered = " " + text.lower().replace(",", " ").replace(".", " ") + " "
    return any(f" {word} " in lowered for word in _ORG_WORDS)


def _is_role(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _ROLE_WORDS) and len(text.split()) <= 6


def read(lines: list[Line]) -> Registrant:
    """The registrant of a registrant section's ``lines``."""
    result = Registrant()
    values: dict[str, list[tuple[str, int]]] = {}
    current = None
    context = ""  # "organisation" or "contact": the block a "Name:" label belongs to
    unlabelled: list[Line] = []
    pending: list[str] = []  # labels written without a value, waiting for theirs (column layouts)
    paired: set[str] = set()  # labels whose values were paired with them across columns
    for line in lines:
        stripped = line.text.strip()
        if not stripped:
            if pending and values.get(pending[-1]):
                pending = []
            continue
        label = _label(line.text)
        if label:
            current, value = label
            if current in ("organisation", "contact") and not value:
                context = current  # "Registering organization" / "Designated contact" opens a block
            if current == "name" and context:
                current = context
            if current == "role":
                values.setdefault("contact_role", []).append((value, line.number))
                if value:
                    result.notes.append(f"The role {value!r} (line {line.number}) has no registrant field; "
                                        "it is used as the name only when no person is named.")
                continue
            values.setdefault(current, [])
            if value:
                values[current].append((value, line.number))
                pending = []
            elif current not in ("skip", "role"):
                pending.append(current)
        elif current in ("address", "organisation", "name", "contact") and line.text[:1].isspace() \
                and current in values:
            values[current].append((stripped.lstrip("-*• ").strip(), line.number))
            pending = []
        elif pending:
            # Labels in one column, values in the next ("Name:" "Address:" then the lines):
            # paired in order, the last label taking the remaining lines.
            key = pending.pop(0) if len(pending) > 1 else pending[0]
            values.setdefault(key, []).append((stripped, line.number))
            paired.add(key)
            current = key
        else:
            current = None
            unlabelled.append(line)
    for key in ("name", "organisation", "address", "contact"):
        given = [(t, n) for t, n in values.get(key, []) if t.strip(" .").lower() not in _NOT_GIVEN]
        if len(given) < len(values.get(key, [])):
            result.uncertain.setdefault(key if key != "contact" else "name", "given as N/A or TBD")
        values[key] = given
    if not values.get("contact") and values.get("contact_role"):
        values["contact"] = values["contact_role"]
        result.uncertain["name"] = "the contact is given only by a role title"
    for key in paired:
        target = {"contact": "name", "name": "organisation" if values.get("contact") else "name"}.get(key, key)
        result.uncertain[target] = "labels and values stand in separate columns; they were paired in order"
    if values.get("contact"):
        # "Name:" beside "Contact:" names the organisation; the contact is the person.
        if values.get("name") and not values.get("organisation"):
            values["organisation"] = values["name"]
        values["name"] = values["contact"]
    email = ""
    for text, number in values.get("email", []):
        email = email_in(text) or text
        result.lines["email"] = [number]
        break
    if not email:
        for line in lines:
            if found := email_in(line.text):
                email = found
                result.lines["email"] = [line.number]
                break
    result.email = email
    for key in ("name", "organisation", "address"):
        if values.get(key):
            pieces = []
            for text, number in values[key]:
                if email and email in text:
                    text = text.replace(email, "")
                    for empty in ("<>", "()", '""', "''", "[]"):
                        text = text.replace(empty, "")
                    text = text.strip(" ,;")
                if text:
                    pieces.append(text)
                    result.lines.setdefault(key, []).append(number)
            setattr(result, key, ("\n" if key == "address" else " ").join(pieces))
    result.name = result.name.replace(", .", ".").replace(" ,", ",")
    words = result.name.lower().split()
    if result.name and result.name == result.organisation:
        result.uncertain["name"] = "the designated contact is the organisation itself; name a person if there is one"
    elif len(words) > 6 and {"will", "shall", "is", "the", "a", "an"} & set(words):
        result.uncertain["name"] = "the contact is described in a sentence, not named"
    if values.get("organisation") and len(values["organisation"]) > 1 and not values.get("address"):
        # "Registering organization:" followed by the organisation and its address, one per line.
        first, *rest = values["organisation"]
        result.organisation = first[0]
        result.lines["organisation"] = [first[1]]
        address = [(t, n) for t, n in rest if not (email and email in t) and not t.lower().startswith("http")]
        result.address = "\n".join(t for t, _ in address)
        result.lines["address"] = [n for _, n in address]
    _unlabelled(unlabelled, result, email)
    return result


def _unlabelled(lines: list[Line], result: Registrant, email: str) -> None:
    """Name, role, organisation, c/o and postal lines written one per line, without labels."""
    pieces = []
    for line in lines:
        text = line.text.strip().lstrip("-*•").strip()
        if not text or (email and email in text) or text.lower().startswith(("http", "www.", "phone", "tel", "fax")):
            continue
        if text.lower().startswith(("email", "e-mail", "mail")):
            continue
        words = len(text.split())
        if words > 10 or words > 5 and text.endswith("."):
            continue  # a sentence (guidance or description), not a name or an address line
        pieces.append((text, line.number))
    if not pieces:
        return
    index = 0
    if not result.name and not _is_org(pieces[0][0]):
        result.name = pieces[0][0]
        result.lines["name"] = [pieces[0][1]]
        index = 1
        if len(pieces) == 1 and not result.organisation:
            result.uncertain["name"] = "a single unlabelled line: a person or an organisation?"
    while index < len(pieces) and _is_role(pieces[index][0]):
        # a role title belongs to the person, not to the organisation or the address
        result.notes.append(f"The role title {pieces[index][0]!r} (line {pieces[index][1]}) has no registrant "
                            "field; it was not copied.")
        index += 1
    if index < len(pieces) and not result.organisation and not pieces[index][0].lower().startswith("c/o"):
        result.organisation = pieces[index][0]
        result.lines["organisation"] = [pieces[index][1]]
        index += 1
    if index < len(pieces) and not result.address:
        result.address = "\n".join(text for text, _ in pieces[index:])
        result.lines["address"] = [number for _, number in pieces[index:]]
