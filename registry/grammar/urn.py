"""``urn:ogf:`` syntax (RFC 6453 §2.4, GFD.191 §3) and lexical equivalence.

The generic syntax is checked with one RE2 pattern (linear time whatever the
input); only when it fails do we walk the string once more to say exactly
which character is wrong, so the common case costs a single match.
"""

from __future__ import annotations

from dataclasses import dataclass

from .re2match import compile_anchored

#: Longest URN we look at, in characters (all valid URN characters are ASCII).
URN_MAX_LENGTH = 4096
PREFIX = "urn:ogf:"
SNID_MAX_LENGTH = 32

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_HEX = frozenset("0123456789ABCDEFabcdef")
#: RFC 2141 <other> and <reserved> (without "%", which only introduces an escape).
URN_OTHER = frozenset("()+,-.:=@;$_!*'")
URN_RESERVED = frozenset("%/?#")
#: Every character that may stand in a URN (RFC 2141 §2.2 <URN chars>).
URN_CHARS = _ALNUM | URN_OTHER | URN_RESERVED

_SNID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9\-]{0,31}"
_URN_CHAR_PATTERN = r"(?:[A-Za-z0-9()+,\-.:=@;$_!*'/?#]|%[0-9A-Fa-f]{2})"
_GENERIC = compile_anchored(rf"(?i:urn:ogf:){_SNID_PATTERN}:{_URN_CHAR_PATTERN}+")
_SNID = compile_anchored(_SNID_PATTERN)


class UrnSyntaxError(ValueError):
    """A URN that does not follow the generic urn:ogf: syntax.

    ``position`` is the 1-based character where the problem is, so that a
    message can point at it.
    """

    def __init__(self, message: str, position: int | None = None):
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass(frozen=True, slots=True)
class ParsedUrn:
    urn: str
    snid: str
    #: The subnamespace-specific string: everything after ``urn:ogf:<snid>:``.
    sss: str

    @property
    def snid_key(self) -> str:
        return self.snid.lower()


def snid_error(snid: str) -> str | None:
    """Why ``snid`` is not a valid SNID (RFC 6453 §2.4), or None if it is."""
    if not snid:
        return "The SNID is empty."
    if len(snid) > SNID_MAX_LENGTH:
        return f"The SNID is {len(snid)} characters long; at most {SNID_MAX_LENGTH} are allowed."
    if snid[0] not in _ALNUM:
        return f"The SNID must start with a letter or digit, not {snid[0]!r}."
    for index, char in enumerate(snid, start=1):
        if char not in _ALNUM and char != "-":
            return f"Character {index} of the SNID, {char!r}, is not allowed: use only ASCII letters, digits and '-'."
    return None


def is_valid_snid(snid: str) -> bool:
    return len(snid) <= SNID_MAX_LENGTH and _SNID(snid.encode("ascii", "replace"))


def parse_urn(urn: str) -> ParsedUrn:
    """Split ``urn`` into SNID and subnamespace-specific string, or raise.

    Raises UrnSyntaxError saying what is wrong and at which character.
    """
    if len(urn) > URN_MAX_LENGTH:
        raise UrnSyntaxError(
            f"The URN is {len(urn)} characters long; the registry checks URNs of at most {URN_MAX_LENGTH} characters."
        )
    try:
        data = urn.encode("ascii")
    except UnicodeEncodeError as exc:
        raise UrnSyntaxError(
            f"Character {exc.start + 1}, {urn[exc.start]!r} (U+{ord(urn[exc.start]):04X}), is not "
            "allowed in a URN: only ASCII letters, digits and ()+,-.:=@;$_!*'/?# are, and "
            "anything else must be percent-encoded.",
            exc.start + 1,
        ) from None
    if _GENERIC(data):
        colon = urn.index(":", len(PREFIX))
        return ParsedUrn(urn, urn[len(PREFIX) : colon], urn[colon + 1 :])
    raise _explain(urn)


def _explain(urn: str) -> UrnSyntaxError:
    """Find the first offending character of a URN the generic pattern rejected."""
    if urn[: len(PREFIX)].lower() != PREFIX:
        for index, (got, want) in enumerate(zip(urn, PREFIX, strict=False)):
            if got.lower() != want:
                return UrnSyntaxError(
                    f"A URN of the OGF namespace starts with 'urn:ogf:'; character {index + 1} "
                    f"is {got!r} where {want!r} was expected.",
                    index + 1,
                )
        return UrnSyntaxError(
            "A URN of the OGF namespace has the form urn:ogf:<snid>:<string>; this one ends after 'urn:ogf'.",
            len(urn) + 1,
        )
    colon = urn.find(":", len(PREFIX))
    snid = urn[len(PREFIX) : colon if colon != -1 else len(urn)]
    problem = snid_error(snid)
    if problem:
        return UrnSyntaxError(problem, len(PREFIX) + 1)
    if colon == -1:
        return UrnSyntaxError(
            f"The SNID {snid!r} must be followed by ':' and the subnamespace-specific string.",
            len(urn) + 1,
        )
    start = colon + 1
    if start == len(urn):
        return UrnSyntaxError("The subnamespace-specific string after the SNID is empty.", len(urn) + 1)
    index = start
    while index < len(urn):
        char = urn[index]
        if char == "%":
            escape = urn[index + 1 : index + 3]
            if len(escape) < 2 or not set(escape) <= _HEX:
                return UrnSyntaxError(
                    f"'%' at character {index + 1} must be followed by two hexadecimal digits "
                    "(a percent-encoded octet).",
                    index + 1,
                )
            index += 3
            continue
        if char not in URN_CHARS:
            return UrnSyntaxError(
                f"Character {index + 1}, {char!r}, is not allowed in a URN (RFC 2141 §2.2); percent-encode it.",
                index + 1,
            )
        index += 1
    return UrnSyntaxError("The URN does not follow the urn:ogf: syntax.")  # pragma: no cover


# --- lexical equivalence -------------------------------------------------------------------

#: The executable equivalence vocabulary. RFC 6453's rule (case-insensitive
#: ``urn:ogf:`` and SNID) always applies and is not listed.
EQUIVALENCE_STEPS: dict[str, str] = {
    "case-insensitive": "The whole URN is case-insensitive: letters are compared in lower case.",
    "percent-hex-case-insensitive": (
        "The hexadecimal digits of percent-encoded octets are case-insensitive "
        "(%3a and %3A are the same); they are compared in upper case."
    ),
    "percent-decode-unreserved": (
        "A percent-encoded octet that stands for a character allowed unencoded "
        "(a letter, digit or one of ()+,-.:=@;$_!*') is the same as that character."
    ),
}

_DECODABLE = {f"%{code:02X}": chr(code) for code in range(128) if chr(code) in _ALNUM | URN_OTHER}


def _percent_hex_upper(text: str) -> str:
    if "%" not in text:
        return text
    parts = text.split("%")
    return parts[0] + "".join("%" + part[:2].upper() + part[2:] for part in parts[1:])


def _percent_decode_unreserved(text: str) -> str:
    if "%" not in text:
        return text
    parts = text.split("%")
    out = [parts[0]]
    for part in parts[1:]:
        decoded = _DECODABLE.get("%" + part[:2].upper())
        out.append(decoded + part[2:] if decoded else "%" + part)
    return "".join(out)


def normalize(parsed: ParsedUrn, steps: tuple[str, ...] | list[str] = ()) -> str:
    """The normal form of a URN under RFC 6453 plus a registration's ``steps``.

    Two URNs of one SNID are lexically equivalent iff their normal forms are equal.
    Steps apply in the vocabulary's order, whatever order they are listed in, so
    the normal form is a function of the *set* of steps.
    """
    sss = parsed.sss
    if "percent-decode-unreserved" in steps:
        sss = _percent_decode_unreserved(sss)
    if "percent-hex-case-insensitive" in steps:
        sss = _percent_hex_upper(sss)
    if "case-insensitive" in steps:
        sss = sss.lower()
    return f"{PREFIX}{parsed.snid.lower()}:{sss}"


def unknown_steps(steps) -> list[str]:
    return [step for step in steps if step not in EQUIVALENCE_STEPS]
