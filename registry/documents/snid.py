"""What the document registers: the SNID it asks for, its version and its registration date.

An SNID registration names it in 1.1 (``urn:ogf:<snid>:``, a quoted name, or a word). An RFC
registers a namespace under its NID, which is read as the SNID asked for. A sub-namespace
registration (RFC 3553's template and its later variants: ``Registry name:``, ``URN Prefix:``,
``Sub-namespace name:``; the titles are data in labels.toml) registers a name under another
namespace, ``urn:ietf:params:<name>``: its name is proposed as the SNID, always uncertain (it
is a name of another namespace, and the applicant decides whether it is the SNID asked for),
and its URN prefix is the document's own namespace, whose URNs are its examples wherever they
stand (examples.py). A registry name that is not a single name is not turned into one: the SNID
is left empty and the report says why.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ..gfd191 import place_name
from ..grammar import snid_error
from ..interchange import ProposalData
from . import known
from .headings import normal
from .report import Report
from .text import Line

SNID_LABEL = place_name("snid")
VERSION_LABEL = f"{place_name('version')}: version"
DATE_LABEL = f"{place_name('version')}: registration date"

_SUB = known.KNOWN["sub_namespace"]
_REGISTRY_NAME = frozenset(normal(title) for title in _SUB["registry_name"])
_PREFIX = frozenset(normal(title) for title in _SUB["prefix"])
_PARENTS = _SUB["parents"]  # "urn:ietf:params:"
_FILLER = frozenset(
    "urn requested the namespace id nid is formal informal identifier has been assigned this document requests".split()
)


@dataclass(slots=True)
class SubNamespace:
    """A sub-namespace the document registers: its URN prefix (lower case, ending in ':')."""

    prefix: str
    written: bool  # written in the document, or inferred from the registry name
    lines: set[int] = field(default_factory=set)  # the lines of its prefix entries


def _urn_tokens(line: Line) -> list[str]:
    """The URN-like words of ``line`` with at least three names ("urn:ietf:params:demo")."""
    found = []
    for token in line.text.replace('"', " ").replace("`", " ").replace("“", " ").replace("”", " ").split():
        token = token.strip(".,;'()<>")
        parts = [part for part in token.split(":") if part]
        if len(parts) >= 3 and parts[0].lower() == "urn":
            found.append(":".join(parts))
    return found


def _registry_name(lines: list[Line]) -> tuple[str, int] | None:
    """The value of a ``Registry name:`` line as written, with its line (the first that has one)."""
    for line in lines:
        value = line.text.strip().strip("\"'`“”").strip()
        if value:
            return value.rstrip("."), line.number
    return None


def read(
    sections: dict[str, list[Line]], titles: dict[int, str], everything: list[Line], data: ProposalData, report: Report
) -> SubNamespace | None:
    """The SNID into ``data.snid``, reported; the sub-namespace registered, if it is one.

    ``titles`` gives the heading each line of 1.1 came from (its normalised title)."""
    lines = sections.get("snid", [])
    snid, snid_line, why = "", [], ""
    for line in lines:
        index = line.text.lower().find("urn:ogf:")
        candidate = line.text[index + 8 :].split(":", 1)[0].strip("`\"' ") if index >= 0 else ""
        if candidate and not snid_error(candidate):
            snid, snid_line = candidate, [line.number]
            break
    sub = None
    template = [line for line in lines if titles.get(line.number) in _REGISTRY_NAME | _PREFIX]
    if not snid and template:
        snid, snid_line, why, sub = _sub_namespace(template, titles, everything)
    in_template = {line.number for line in template}
    others = [line for line in lines if line.number not in in_template]
    if not snid and not why:
        snid, snid_line = _quoted(others)
    if not snid and not why:  # "Namespace ID: urn:ietf:params:demo": a sub-namespace by its prefix
        snid, snid_line, why, sub = _sub_namespace(others, titles, everything)
    if not snid and not why:
        snid, snid_line = _first_word(others)
    data.snid = snid.lower()
    if why:
        report.add("snid", SNID_LABEL, snid.lower(), snid_line, uncertain=bool(snid), why=why)
    elif snid and snid != snid.lower():
        report.add(
            "snid",
            SNID_LABEL,
            snid.lower(),
            snid_line,
            uncertain=True,
            why=f"written {snid!r} in the document; SNIDs are case-insensitive and registered in lower case",
        )
    else:
        report.add("snid", SNID_LABEL, snid, snid_line, why="" if snid else "fill in the SNID you request")
    if not snid:
        report.notes.append("No SNID was found: fill in 1.1 Namespace Identifier.")
    elif sub is not None:
        report.notes.append(
            f"The document registers the sub-namespace {sub.prefix} of another namespace; "
            f"the SNID {snid.lower()!r} was proposed from it: check that it is the SNID you request."
        )
    _version_and_date(sections.get("version", []), data, report)
    return sub


def _sub_namespace(lines: list[Line], titles: dict[int, str], everything: list[Line]):
    """(snid, lines, why, SubNamespace) from a sub-namespace's URN prefix or registry name;
    ("", [], "", None) when the document does not register one."""
    prefixes = [(token, line.number) for line in lines for token in _urn_tokens(line)]
    named = _registry_name([line for line in lines if titles.get(line.number) in _REGISTRY_NAME])
    if named is None and not prefixes:  # "Sub-namespace name:  demo": the name without its prefix
        named = _registry_name([line for line in lines if titles.get(line.number) in _PREFIX])
    if prefixes:
        chosen, number = prefixes[0]
        if named:
            chosen, number = next(
                ((t, n) for t, n in prefixes if t.lower().endswith(":" + named[0].lower())), prefixes[0]
            )
        # Several entries: the shortest that the others extend is the sub-namespace registered.
        under = [t for t, _ in prefixes if t.lower().startswith(chosen.lower() + ":")]
        shorter = [(t, n) for t, n in prefixes if chosen.lower().startswith(t.lower() + ":")]
        if shorter:
            chosen, number = min(shorter, key=lambda tn: len(tn[0]))
            under = [t for t, _ in prefixes if t.lower().startswith(chosen.lower() + ":")]
        name = chosen.split(":")[-1]
        if snid_error(name):
            return "", [number], f"the sub-namespace {chosen!r} ends in {name!r}, which cannot be an SNID", None
        others = sorted({t for t, _ in prefixes if t != chosen and t not in under})
        why = (
            f"proposed from the URN prefix {chosen!r} of the sub-namespace the document registers "
            "(a name of another namespace): check that it is the SNID you request"
        )
        if named and named[0].lower() != name.lower():
            why += f"; the registry name is {named[0]!r} (line {named[1]}), the other reading"
        if others:
            listed = ", ".join(repr(o) for o in others[:5]) + (
                f" and {len(others) - 5} more" if len(others) > 5 else ""
            )
            why += f"; the document also names {listed}, not taken"
        sub = SubNamespace(chosen.lower() + ":", True, {n for t, n in prefixes if t in under or t == chosen})
        return name, [number], why, sub
    if named is None:
        return "", [], "", None
    value, number = named
    if snid_error(value):
        return (
            "",
            [number],
            f"the registry name {value!r} (line {number}) is not a single name an SNID can be; "
            "fill in the SNID you request",
            None,
        )
    mentioned = " ".join(line.text.lower() for line in everything)
    parent = next(
        (p for p in _PARENTS if p in mentioned or p.rstrip(":") in mentioned), _PARENTS[0] if _PARENTS else ""
    )
    prefix = f"{parent}{value.lower()}:" if parent else ""
    why = (
        f"proposed from the registry name {value!r} of a sub-namespace (a name of another namespace): "
        "check that it is the SNID you request"
    )
    if prefix:
        why += f"; its URN prefix {prefix} was inferred from the registry name and the parent namespace {parent}"
    return value, [number], why, SubNamespace(prefix, False) if prefix else None


def _quoted(lines: list[Line]) -> tuple[str, list[int]]:
    """A quoted name: 'To be assigned.  Request the string "S1000D".'"""
    for line in lines:
        for quote in ('"', "'", "`"):
            for candidate in line.text.split(quote)[1:-1:2]:
                candidate = candidate.strip()
                if candidate and not snid_error(candidate):
                    return candidate, [line.number]
    return "", []


def _first_word(lines: list[Line]) -> tuple[str, list[int]]:
    """The first word that can be an SNID ("Namespace ID: fdc")."""
    for line in lines:
        for token in line.text.replace('"', " ").replace("`", " ").replace("(", " ").replace(")", " ").split():
            token = token.strip(".,:;'")
            if token.lower() in _FILLER:
                continue
            if token and not snid_error(token):
                return token, [line.number]
    return "", []


def _version_and_date(version_lines: list[Line], data: ProposalData, report: Report) -> None:
    version_text, version_line = "", []
    for line in version_lines:
        lowered = line.text.lower()
        index = lowered.find("version")
        if index < 0:
            word = line.text.strip().rstrip(".")
            if word.replace(".", "").isdigit() and not version_text:
                version_text, version_line = word, [line.number]  # "Version:" heading, number below
            continue
        rest = line.text[index + 7 :].replace("number", " ").replace("Number", " ").replace(":", " ").strip()
        word = rest.split()[0] if rest.split() else ""
        if word[:1].isdigit():
            version_text, version_line = word.rstrip(".,;"), [line.number]
            break
    data.version = 1
    if version_text.isdigit() and 1 <= int(version_text) <= 100_000:
        data.version = int(version_text)
        report.add(
            "version",
            VERSION_LABEL,
            version_text,
            version_line,
            uncertain=data.version != 1,
            why=f"the document is version {data.version}; a new SNID starts at version 1" if data.version != 1 else "",
        )
    elif version_text:
        report.add(
            "version",
            VERSION_LABEL,
            version_text,
            version_line,
            uncertain=True,
            why=f"{version_text!r} is not a whole number; registry versions are whole numbers, so 1 was used",
        )
    else:
        report.add("version", VERSION_LABEL, "", why="no version given; 1 is used")
    if data.version != 1:
        report.notes.append(f"The document is version {data.version}; for a new SNID the registry starts at version 1.")
    for line in version_lines:
        for word in line.text.replace(",", " ").split():
            if len(word) >= 10 and word[4:5] == "-" and word[7:8] == "-" and word[:4].isdigit():
                try:
                    data.registration_date = dt.date.fromisoformat(word[:10])
                    report.add("registration_date", DATE_LABEL, word[:10], [line.number])
                except ValueError:
                    report.add(
                        "registration_date",
                        DATE_LABEL,
                        word[:10],
                        [line.number],
                        uncertain=True,
                        why="not a valid date",
                    )
                    report.notes.append(f"{word[:10]!r} in 1.2 is not a valid date.")
                return
    report.add("registration_date", DATE_LABEL, "", why="set on publication")
