"""Example URNs, exact to the character, by a single left-to-right scan (no regular expressions).

A URN here is ``urn:`` NID ``:`` followed by RFC 8141 characters (unreserved,
percent-encoded, sub-delims ``!$&'()*+,;=``, ``:``, ``@``, ``/``, ``?``, ``#``,
``~``). What ends a sentence is not part of it: a final ``.``, ``,``, ``;`` or
``:``, a ``)`` that closes a parenthesis opened before the URN, a ``'`` that
closes a quote opened before it.

Wrapped URNs: a URN that ends its line with ``:``, ``-``, ``.``, ``/``, ``%`` or
``=`` continues on the next line when that line starts with URN characters; the
hyphen is kept (a hyphen is a URN character, so it is never taken for
hyphenation). Templates (``urn:x:{prefix}``, ``urn:x:<id>``, ``urn:x:…``) and
bare prefixes (``urn:ogf:``) are not examples, nor are the quoted strings of grammar
rules (``X = "urn:x:y:" Body``); they are reported as skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .grammar import rule_start
from .text import Line

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
NSS_CHARS = _ALNUM | frozenset("-._~%!$&'()*+,;=:@/?#")
_NID_CHARS = _ALNUM | {"-"}
_TEMPLATE_START = frozenset("{<[…")
_WRAP_ENDS = (":", "-", ".", "/", "%", "=")
_SENTENCE_END = ".,;:"


@dataclass(slots=True)
class Found:
    urn: str  # exactly as written (with its own NID)
    line: int  # source line where it starts
    end_line: int  # source line where it ends (differs when wrapped)
    struck: bool = False  # struck through or marked invalid
    ocr: bool = False  # spaces removed from an OCR-damaged URN


@dataclass(slots=True)
class Scan:
    found: list[Found] = field(default_factory=list)
    templates: list[tuple[str, int]] = field(default_factory=list)  # (text, line) left out
    literals: list[tuple[str, int]] = field(default_factory=list)  # quoted strings of grammar rules, left out


_NAMESPACE_WORDS = ("namespace", "subnamespace", "sub-namespace", "prefix", "sub-space", "subspace", "nid")


def _names_a_namespace(text: str, end: int) -> bool:
    """``the "urn:smpte:ul" subnamespace``: a prefix named in prose, not an example."""
    after = text[end:end + 40].lstrip("\"'`*)").lstrip()
    word = after.split(None, 1)[0].lower().strip(".,;:)") if after else ""
    return word in _NAMESPACE_WORDS


def _introduced_as_prefix(text: str, start: int) -> bool:
    """``a naming authority under "urn:mace:shib"``, ``names beginning with "urn:x:y"``: a prefix."""
    words = [w for w in text[max(0, start - 120):start].replace('"', " ").replace(",", " ").split()
             if not w.lower().startswith("urn:")]
    last = [w.lower() for w in words[-2:]]
    return bool(last) and (last[-1] in ("under", "beneath", "prefix", "prefixes") or last[-1] == "with" and len(
        last) == 2 and last[0] in ("beginning", "starting", "begin", "start", "begins", "starts"))


def _quoted(text: str, start: int, end: int) -> bool:
    return bool(start) and text[start - 1] == '"' and text[end:end + 1] == '"'


def _grammar_line(text: str) -> bool:
    """An ABNF rule or the continuation of one (``/ "urn:x:"``): its quoted strings are literals."""
    return rule_start(text) is not None or text.lstrip().startswith("/")


def _find_urn(text: str, lowered: str, start: int) -> int:
    """Index of the next "urn:" (any case) at a word start, or -1 (``lowered`` is ``text.lower()``)."""
    while True:
        index = lowered.find("urn:", start)
        if index < 0:
            return -1
        if index == 0 or text[index - 1] not in _ALNUM and text[index - 1] not in "-._%:/":
            return index
        start = index + 4


def _nid_end(text: str, index: int) -> int:
    """Index just after the NID that starts at ``index`` (the NID is 1-32 characters)."""
    end = index
    while end < len(text) and end - index < 32 and text[end] in _NID_CHARS:
        end += 1
    return end


def _trim(urn: str, before: str) -> str:
    """Drop the punctuation of the sentence the URN sits in (one pass from the end)."""
    if before in ("*", "_") and urn.endswith(before):
        urn = urn.rstrip(before)  # Markdown emphasis around the URN
    if before == "~" and urn.endswith("~~"):
        urn = urn[:-2]  # struck through: ~~urn:…~~
    opened, closed, quotes = urn.count("("), urn.count(")"), urn.count("'")
    nss_start = urn.find(":", 4) + 1
    end = len(urn)
    while end > nss_start:
        last = urn[end - 1]
        if last in _SENTENCE_END:
            end -= 1
        elif last == ")" and opened < closed:
            end -= 1
            closed -= 1
        elif last == "'" and before == "'" and quotes % 2 == 1:
            end -= 1
            quotes -= 1
        else:
            break
    return urn[:end]


def scan(lines: list[Line]) -> Scan:
    """Every URN of ``lines``, in order, with its source line."""
    result = Scan()
    index = 0
    while index < len(lines):
        line = lines[index]
        text = line.text
        lowered = text.lower()
        position = 0
        consumed_next = False
        grammar_line = None  # whether the line is an ABNF rule: decided once, when a quoted URN asks
        while True:
            start = _find_urn(text, lowered, position)
            if start < 0:
                break
            before = text[start - 1] if start else ""
            nid_start = start + 4
            nid_end = _nid_end(text, nid_start)
            if nid_end == nid_start or nid_end >= len(text) or text[nid_end] != ":":
                position = start + 4
                continue
            end = nid_end + 1
            while end < len(text) and text[end] in NSS_CHARS:
                end += 1
            urn = text[start:end]
            end_line = line.number
            # Wrapped onto the next line?
            if end >= len(text.rstrip()) and urn.endswith(_WRAP_ENDS) and index + 1 < len(lines):
                following = lines[index + 1].text.lstrip()
                piece_end = 0
                while piece_end < len(following) and following[piece_end] in NSS_CHARS:
                    piece_end += 1
                piece = following[:piece_end]
                if piece and not piece.lower().startswith("urn:") and (
                        piece_end == len(following) or following[piece_end] in " \t)`~\"'>"):
                    urn += piece
                    end_line = lines[index + 1].number
                    consumed_next = True
            after = text[end:end + 1]
            urn = _trim(urn, before)
            nss = urn[nid_end + 1 - start:]
            line_before = text[:start]
            struck = line_before.count("~~") % 2 == 1 or "(invalid)" in text[end:end + 12]
            if _quoted(text, start, end) and (grammar_line if grammar_line is not None
                                              else (grammar_line := _grammar_line(text))):
                result.literals.append((urn, line.number))
            elif _names_a_namespace(text, end) or _introduced_as_prefix(text, start):
                result.templates.append((urn, line.number))
            elif after and after in _TEMPLATE_START or not nss or nss.endswith(("{", "<")):
                result.templates.append((text[start:end + 20].strip(), line.number))
            elif "{" in nss or "}" in nss or "<" in nss:
                result.templates.append((urn, line.number))
            else:
                result.found.append(Found(urn, line.number, end_line, struck))
            position = end
        index += 2 if consumed_next else 1
    return result


def scan_ocr(lines: list[Line]) -> list[Found]:
    """URNs broken by spaces in OCR output ("urn: newsm : iptc.org: 2000: x"), spaces removed."""
    found = []
    for line in lines:
        text = line.text
        stripped = text.strip()
        if not stripped.lower().startswith("urn") or " " not in stripped:
            continue
        compact = "".join(stripped.split())
        if not compact.lower().startswith("urn:") or compact.count(":") < 3:
            continue
        nid_end = _nid_end(compact, 4)
        if nid_end == 4 or nid_end >= len(compact) or compact[nid_end] != ":":
            continue
        end = nid_end + 1
        while end < len(compact) and compact[end] in NSS_CHARS:
            end += 1
        urn = _trim(compact[:end], "")
        if len(urn) > nid_end + 1:
            found.append(Found(urn, line.number, line.number, ocr=True))
    return found
