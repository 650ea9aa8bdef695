"""Who a value names: the person in "Name: The Secretary (attn: A. Person)", a role title left out
of "A. Person, Managing Director", the person a sentence names after a position, the organisation
cut out of "Example, Inc. is a subsidiary of …"."""

from __future__ import annotations

from ..lineshapes import ROLE_WORDS, email_in
from ..lineshapes import has_initial as _has_initial
from ..lineshapes import is_org as _is_org
from ..lineshapes import is_person as _is_person
from ..lineshapes import is_role as _is_role
from ..lineshapes import strip_honorific as _strip_honorific
from ..lineshapes import without_email as _without_email
from .values import Registrant, Value

_SENTENCE = (" is a ", " is the ", " is an ", " will ", " shall ")
# Role words that end a position's title ("Project Lead"; "head of" never ends one).
_ROLE_ENDS = frozenset(word for word in ROLE_WORDS if " " not in word)


def person_name(value: Value, email: str, result: Registrant) -> Value:
    text = _without_email(value.text, email)
    text = _without_email(text, email_in(text))
    for marker in ("(attn:", "(attn.", "(attn ", "(c/o ", " c/o "):
        index = text.lower().find(marker)
        if index >= 0:  # "The Secretary (attn: Mr. Paul Burton)"
            inner = text[index + len(marker) :].rstrip(")").strip()
            role = text[:index].strip()
            if role:
                result.notes.append(
                    f"{role!r} (line {value.lines[0]}), for whose attention the contact is named, has no "
                    "registrant field; it was not copied."
                )
            why = f"the person named for the attention of {role!r}" if role else ""
            if "c/o" in marker:
                why = f"the person named in care of {role!r}" if role else ""
            return Value(_strip_honorific(inner), value.lines, "cut", why, text)
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


# Capitalised words that start a sentence, never a name ("The current lead is Sam Sample").
_NOT_NAMES = frozenset("the this that it its our their he she they currently contact email e-mail mail see".split())


def holder(text: str) -> tuple[str, str] | None:
    """(role, person) when ``text`` starts with a position ("The Example Project Lead", "Working
    Group Chair") and goes on to name the person who holds it ("The current lead is Sam Sample",
    "Sam Sample keeps the list"): two to four capitalised words, read as a person's name."""
    words = text.replace(",", " , ").replace("(", " ( ").replace(")", " ) ").replace(";", " ; ").split()
    role_end = -1
    for index, word in enumerate(words[:10]):
        if ends_in_role(word) and _is_role(" ".join(words[: index + 1])):
            role_end = index
            break
    if role_end < 0:
        return None
    role = " ".join(words[: role_end + 1]).rstrip(".")
    run: list[str] = []
    for word in words[role_end + 1 :] + [""]:
        bare = word.rstrip(".")
        capital = bare[:1].isupper() and bare.lower() not in _NOT_NAMES and bare.replace("-", "").isalpha()
        initial = len(word) == 2 and word[0].isupper() and word[1] == "."
        if (capital or initial) and len(run) < 4 and not (run and word.endswith(".") and not initial):
            run.append(bare if not initial else word)
            continue
        if word.endswith(".") and capital and run and len(run) < 4:
            run.append(bare)  # "… is Sam Sample."
        if len(run) >= 2 and _is_person(" ".join(run)):
            return role, " ".join(run)
        run = []
    return None


def ends_in_role(text: str) -> bool:
    """Whether ``text``'s last word is a role title's ("Project Lead", "Registry Manager"): a
    position, whatever organisation words stand before it."""
    words = text.lower().replace(",", " ").replace(".", " ").split()
    return bool(words) and words[-1] in _ROLE_ENDS


def person_after_role(value: Value, result: Registrant) -> Value:
    """ "The Example Project Lead. Steve Sample maintains the list.": the person named in the
    sentence after a role title, read from the sentence (uncertain), the role kept as a note."""
    lowered = value.text.lower()
    found = holder(value.text) if "(attn" not in lowered and "c/o " not in lowered else None  # by person_name
    if found is None:
        return value
    role, person = found
    result.notes.append(f"The role title {role!r} (line {value.lines[0]}) has no registrant field; it was not copied.")
    return Value(
        person, value.lines, "cut", f"read from a sentence: the person named after the role title {role!r}", value.text
    )


def no_one(text: str) -> str:
    """Why ``text`` names no one ("" when it may): a sentence about a designated expert, a mailing
    list, or a description of who will answer."""
    if _is_person(text):
        return ""
    lowered = " " + " ".join(text.lower().replace(",", " ").replace("(", " ").split()) + " "
    if " expert " in lowered or " experts " in lowered:
        return "a designated expert is described, not a person named"
    if " list " in lowered or " list. " in lowered or lowered.endswith(" list "):
        return "a mailing list is given, not a person"
    words = lowered.split()
    if len(words) > 6 and {"will", "shall", "is", "are", "the", "a", "an"} & set(words):
        return "the contact is described in a sentence, not named"
    return ""


def organisation_of(value: Value, email: str) -> Value:
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


def cared_for_by(text: str) -> bool:
    """Whether the name after "c/o" is written as a person's ("A. Person", "Mr. A. Person"): a
    company in whose care mail goes ("c/o Alliances Management") reads like a name too."""
    return _is_person(text) and _has_initial(text)


def care_of(value: Value) -> tuple[Value, Value | None] | None:
    """ "Example Standards Office c/o A. Q. Person": (the organisation, the person or None), cut
    out of the value (uncertain); None when the value has no "c/o" in it."""
    index = value.text.lower().find(" c/o ")
    if index < 0:
        return None
    head, person = value.text[:index].strip(" ,("), value.text[index + 5 :].strip(" ,)")
    if not head:
        return None
    named = _without_email(person, email_in(person))
    why = f"cut at 'c/o': the organisation before it, {person!r} in whose care it is"
    organisation = Value(head, value.lines, "cut", why, value.text)
    return organisation, Value(person, value.lines, "cut", "", value.text) if cared_for_by(named) else None
