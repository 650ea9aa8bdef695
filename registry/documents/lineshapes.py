"""What a line of a registrant block looks like: a person's name, an organisation's, a role
title, an address line, an e-mail address; and whether a value visibly goes on on the next line.

The registrant reader (registrant.py) decides by labels first; these tests decide what a line
read by its position is, and every value they decide is reported uncertain there. The words of
role titles and organisation names are data (labels.toml).
"""

from __future__ import annotations

from . import known

HONORIFICS = ("mr. ", "mrs. ", "ms. ", "dr. ", "prof. ", "mr ", "mrs ", "ms ", "dr ")
ROLE_WORDS = known.KNOWN["role_words"]
ORG_WORDS = known.KNOWN["organisation_words"]


def clean(text: str) -> str:
    stripped = text.strip()
    if stripped[:2] in ("o ", "o\t"):  # an RFC's "o" bullet
        stripped = stripped[2:]
    return stripped.lstrip("-*•").strip().strip("*").strip()


# Words of postal addresses: a line holding one (or a digit) is an address line, never a name.
ADDRESS_WORDS = (
    "street",
    "st.",
    "road",
    "rd.",
    "avenue",
    "ave.",
    "drive",
    "lane",
    "house",
    "building",
    "floor",
    "suite",
    "p.o.",
    "po box",
    "p. o.",
    "p.o.box",
    "boulevard",
    "blvd",
    "square",
    "route",
    "rue",
    "strasse",
    "straße",
    "platz",
    "via",
    "calle",
    "campus",
    "tower",
    "plaza",
    "c/o",
    "cedex",
)


def is_address(text: str) -> bool:
    """A street number first ("2314 Example Avenue"), a postal code (four digits or more in a
    word: "CH-1203", "LV-1012"), or a street word; not the digits of a name ("JTC 1/SC6", "Web3D")."""
    words = " " + " ".join(text.lower().replace(",", " ").replace(";", " ").split()) + " "
    if text[:1].isdigit() or any(f" {word} " in words for word in ADDRESS_WORDS):
        return True
    run = longest = 0
    for c in text:
        run = run + 1 if c.isdigit() else 0
        longest = max(longest, run)
    return longest >= 4


def has_initial(text: str) -> bool:
    """ "A. Person", "Mr. Person": written as a person's name, whatever its words."""
    words = text.split()
    return any(len(w) == 2 and w[0].isupper() and w[1] == "." for w in words) or text.lower().startswith(HONORIFICS)


def unclosed(text: str) -> tuple[int, int]:
    """(parentheses opened less those closed, quotation marks) in ``text``: a value whose running
    sums say a parenthesis or a quotation is still open goes on on the next line."""
    return text.count("(") - text.count(")"), text.count('"')


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
            local, domain = text[left:index], text[index + 1 : right].rstrip(".")
            if local and "." in domain and not domain.startswith("."):
                return f"{local}{marker}{domain}"
            index = text.find(marker, index + 1)
    return ""


def without_email(text: str, email: str) -> str:
    if email and email in text:
        text = text.replace(email, "")
        for empty in ("<>", "()", '""', "''", "[]", "( )"):
            text = text.replace(empty, "")
    return " ".join(text.split()).replace(", .", ".").strip(" ,;")


def is_org(text: str) -> bool:
    lowered = " " + text.lower().replace(",", " ").replace(".", " ").replace("(", " ").replace(")", " ") + " "
    return any(f" {word} " in lowered for word in ORG_WORDS)


def is_role(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in ROLE_WORDS) and len(text.split()) <= 8


def is_person(text: str) -> bool:
    """Two to four capitalised words, no organisation word: how a person's name is written."""
    words = strip_honorific(text).replace(",", " ").split()
    return (
        2 <= len(words) <= 4
        and all(w[:1].isupper() for w in words)
        and not is_org(text)
        and not is_role(text)
        and not any(c.isdigit() for c in text)
    )


def strip_honorific(text: str) -> str:
    lowered = text.lower()
    for honorific in HONORIFICS:
        if lowered.startswith(honorific):
            text = text[len(honorific) :].strip()
            break
    for suffix in ("(Mr.)", "(Mrs.)", "(Ms.)", "(Dr.)"):
        if text.endswith(suffix):
            text = text[: -len(suffix)].strip()
    return text


def runs_on(text: str, *, line_length: int) -> bool:
    """Whether a value's line visibly continues on the next one: it ends with a word that cannot end
    a name ("of", "and", "-", ","), or it fills the line as far as text wrapped at 72 columns does."""
    stripped = text.rstrip()
    last = stripped.rsplit(None, 1)[-1].lower() if stripped else ""
    return (
        last in ("of", "and", "the", "for", "to", "in", "on", "de", "du", "&", "-")
        or stripped.endswith(",")
        or line_length >= 66
    )


def second_half(name: str, candidate: str) -> bool:
    """Whether ``candidate``, the line below an organisation's name at the same indentation and
    not an address line, reads as the name's second half rather than a line of its own: it starts
    in lower case, or brings the organisation word the first line lacks ("Example Broadcasting
    Standards" / "Committee of the Americas"), or the first line's organisation word is followed
    by a preposition that the line below completes ("Example Institute for Open" / "Metadata
    Standards"). A reader takes it so; the importer says it is a reading (uncertain)."""
    if candidate[:1].islower():
        return True
    if not is_org(name) and is_org(candidate):
        return True
    words = name.lower().replace(",", " ").split()
    org_at = next((i for i, word in enumerate(words) if word in ORG_WORDS), -1)
    return 0 <= org_at < len(words) - 2 and words[org_at + 1] in ("for", "of", "on", "in") and not is_org(candidate)
