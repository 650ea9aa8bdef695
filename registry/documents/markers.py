"""Our own export read back: the lines export.py writes around structured parts (the formal
syntax block, the maximum length, the executable equivalence rule, the resolvers, the numbered
example lists) are taken out of the prose they sit in and put back into their fields, so export
followed by import gives back the same proposal."""

from __future__ import annotations

from ..interchange import ProposalData
from ..resolving.lines import resolvers_from_lines
from .export import RESOLVER_STATUS_MARK, RESOLVERS_MARK
from .text import Line


def _text(lines: list[Line]) -> str:
    return "\n".join(line.text for line in lines).strip("\n")


# Lines our own export writes around structured parts; read back into their fields.
_FORMAL = "Formal syntax"
_LENGTH = "The total length of a URN MUST NOT exceed "
_RULE = "Executable rule: "
_LISTS = ("The following URNs are valid:", "The following URNs are invalid:")


def _indented(lines: list[Line]) -> list[Line]:
    """The indented block (blank lines inside it included) that ``lines`` start with."""
    body = []
    for other in lines:
        if other.text.strip() and not other.text.startswith("    "):
            break
        body.append(other)
    while body and not body[-1].text.strip():
        body.pop()
    return body


def _numbered_lists(lines: list[Line]) -> bool:
    """Whether the example lists are as our export writes them: every item "    <n>- <URN>"."""
    inside = False
    for line in lines:
        text = line.text
        if text.strip() in _LISTS:
            inside = True
        elif inside and text.startswith("    "):
            number, dash, _ = text.strip().partition("- ")
            if not (dash and number.isdigit()):
                return False
        else:
            inside = False
    return True


def export_markers(sections: dict[str, list[Line]], data: ProposalData) -> dict:
    """Take the structured parts our own export writes out of the prose they sit in."""
    found: dict = {}
    lines = sections.get("syntactic_structure", [])
    kept = []
    index = 0
    while index < len(lines):
        text = lines[index].text
        if text.startswith(_FORMAL) and text.rstrip().endswith(":") and "abnf" not in found:
            rule = ""
            if text.startswith(_FORMAL + " (top rule ") and text.rstrip().endswith("):"):
                rule = text.rstrip()[len(_FORMAL + " (top rule ") : -2]
            body, numbers = [], [lines[index].number]
            index += 1
            while index < len(lines) and (lines[index].text.startswith("    ") or not lines[index].text.strip()):
                body.append(lines[index].text[4:])
                numbers.append(lines[index].number)
                index += 1
            while body and not body[-1].strip():
                body.pop()
            found.update(abnf="\n".join(body) + "\n", rule=rule, lines=numbers)
            continue
        if text.startswith(_LENGTH) and text.rstrip().endswith(" characters."):
            number = text[len(_LENGTH) :].split()[0]
            if number.isdigit():
                data.max_length = int(number)
                index += 1
                continue
        kept.append(lines[index])
        index += 1
    if "syntactic_structure" in sections:
        sections["syntactic_structure"] = kept
    lines = sections.get("lexical_equivalence", [])
    for line in lines:
        if line.text.startswith(_RULE) and line.text.rstrip().endswith("."):
            steps = line.text.rstrip()[len(_RULE) : -1]
            data.equivalence = [s.strip() for s in steps.split(",") if s.strip()]
            sections["lexical_equivalence"] = [other for other in lines if other is not line]
            break
    lines = sections.get("resolution", [])
    for position, line in enumerate(lines):
        if line.text.strip() == RESOLVER_STATUS_MARK:  # registry state, not the registration's
            body = _indented(lines[position + 1 :])
            sections["resolution"] = lines = lines[:position] + lines[position + 1 + len(body) :]
            found["resolver_status_line"] = line.number
            break
    for position, line in enumerate(lines):
        if line.text.strip() == RESOLVERS_MARK:
            body = []
            for other in lines[position + 1 :]:
                if other.text.strip() and not other.text.startswith("    "):
                    break
                body.append(other)
            while body and not body[-1].text.strip():
                body.pop()
            data.resolvers = resolvers_from_lines("\n".join(other.text[4:] for other in body))
            sections["resolution"] = lines[:position] + lines[position + 1 + len(body) :]
            break
    lines = sections.get("examples", [])
    if any(line.text.strip() in _LISTS for line in lines) and _numbered_lists(lines):
        valid, invalid, kept, target = [], [], [], None
        example_lines: dict[str, list[int]] = {}
        for line in lines:
            text = line.text
            if text.strip() in _LISTS:
                target = invalid if "invalid" in text else valid
                continue
            if target is not None and text.startswith("    "):
                urn = text.strip()
                number, dash, rest = urn.partition("- ")
                if dash and number.isdigit():
                    urn = rest.strip()
                urn = urn.strip("~").removesuffix(" (invalid)").strip("~")
                target.append(urn)
                example_lines[urn] = [line.number]
                continue
            target = None
            kept.append(line)
        found["examples"] = (valid, invalid)
        found["example_lines"] = example_lines
        sections["examples"] = kept
    for key in [k for k, v in sections.items() if not _text(v).strip()]:
        del sections[key]
    return found
