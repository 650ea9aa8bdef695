"""Who a value names: the person in "Name: The Secretary (attn: A. Person)", a role title left out
of "A. Person, Managing Director", the person a sentence names after a position, the organisation
cut out of "Example, Inc. is a subsidiary of …"."""

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
    strip_honorific as _strip_honorific,
)
from ..lineshapes import (
    without_email as _without_email,
)
from .values import Registrant, Value

_SENTENCE = (" is a ", " is the ", " is an ", " will ", " shall ")


def person_name(value: Value, email: str, result: Registrant) -> Value:
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


def person_after_role(value: Value, result: Registrant) -> Value:
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
