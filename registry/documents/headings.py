"""Which template section a heading stands for, by its words, with a confidence.

A heading is recognised in three ways, each with its confidence:

* exactly a known title (GFD.191's own or an RFC 3406/8141 template title): 1.0;
* close in spelling to one (OCR damage, "Identifer"): the similarity, at least 0.8,
  certain only from 0.9 on;
* by meaning: the words it contains ("Identifier assignment process" is about
  assignment): 0.7, or 0.5 when its words point to two sections at once
  ("uniqueness and persistence").

Below ``CERTAIN`` the mapping is reported as uncertain, never used silently.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass

from ..gfd191 import SECTIONS
from . import known

CERTAIN = 0.85
SPELLING_CERTAIN = 0.9  # a spelled-like match below this is reported uncertain whatever its ratio
MAX_HEADING = 90  # characters: longer lines are prose

# Known titles (normalised: lower-case letters only) and the section each fills: GFD.191's own
# and those of labels.toml. None: a heading we recognise that belongs to no template section.
KNOWN: dict[str, str | None] = {}


def normal(text: str) -> str:
    return "".join(c for c in text.lower() if "a" <= c <= "z")


for _section in SECTIONS:
    KNOWN[normal(_section.title)] = _section.key
for _title, _target in known.KNOWN["headings"].items():  # labels.toml: data, not code
    KNOWN[normal(_title)] = _target

# Known titles whose section is a judgement: mapped, but reported uncertain with the other reading.
AMBIGUOUS: dict[str, tuple[str, str]] = {normal(title): entry for title, entry in known.KNOWN["ambiguous"].items()}

# Words that carry a heading's meaning, and the section they point to.
_MEANING = [
    ("uniqueness", "uniqueness"),
    ("unique", "uniqueness"),
    ("persistence", "immutability"),
    ("persistent", "immutability"),
    ("immutab", "immutability"),
    ("assignment", "identifier_assignment"),
    ("assigning", "identifier_assignment"),
    ("resolution", "resolution"),
    ("resolving", "resolution"),
    ("equivalence", "lexical_equivalence"),
    ("validation", "validation_mechanism"),
    ("syntactic", "syntactic_structure"),
    ("syntax", "syntactic_structure"),
    ("structure", "syntactic_structure"),
    ("registrant", "registrant"),
    ("contact", "registrant"),
    ("ancillary", "ancillary_documentation"),
    ("example", "examples"),
    ("scope", "scope"),
    ("encoding", "encoding"),
    ("conformance", "encoding"),
    ("history", "changes"),
    ("changes", "changes"),
    ("version", "version"),
    ("query", "reserved_use"),
    ("fragment", "reserved_use"),
    ("reserved", "reserved_use"),
]

_NUMBER = re.compile(r"^[ \t]*\d{1,3}(?:\.\d{1,3}){0,4}\.?[ \t]+")
_TITLE_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /'’&|,.-()")


@dataclass(slots=True)
class Heading:
    key: str | None  # template section, or None for a known heading of no section
    title: str  # as found, without number and colon
    rest: str  # text after the colon on the same line
    confidence: float
    why: str  # how it was recognised
    number: str = ""  # "4.1" when numbered
    indent: int = 0


def heading(line: str) -> Heading | None:
    """A ``Heading`` if ``line`` is one, else None."""
    raw = line.rstrip()
    stripped = raw.strip().strip("*").strip().lstrip("#").strip()
    if not stripped or stripped[:1] in "-*•+[(`~<>|":
        return None  # list items, bracketed and quoted text are never headings
    head, colon, rest = stripped.partition(":")
    if len(head) > MAX_HEADING or not colon and len(stripped) > MAX_HEADING:
        return None
    if colon and rest[:1] not in ("", " ", "\t", "*"):
        return None  # "urn:x:1", "http://…": not a label
    head = head.strip().strip("*").strip()
    if not colon:
        head, rest = stripped, ""
    number = _NUMBER.match(head)
    title = head[number.end() :].strip() if number else head
    title = title.rstrip(".").strip()
    key = normal(title)
    indent = len(raw) - len(raw.lstrip())
    if len(key) < 4 or len(title) > 60 or not title[:1].isalpha() or not set(title) <= _TITLE_CHARS:
        return None
    numbered = number.group(0).strip().rstrip(".") if number else ""
    if not (colon or numbered) and (indent and not raw.lstrip().startswith("#") or len(title.split()) > 8):
        return None
    rest = rest.strip().strip("*").strip()
    if key in AMBIGUOUS:
        target, why = AMBIGUOUS[key]
        return Heading(target, title, rest, 0.7, why, numbered, indent)
    if key in KNOWN:
        return Heading(KNOWN[key], title, rest, 1.0, "known title", numbered, indent)
    close = _closest(key, 0.8 if (colon or numbered) else 0.86)
    meant = _meant(title)
    if close and meant and KNOWN[close[0]] not in meant:
        # Spelled like a known title but its own words say otherwise ("Registrant Information" is
        # not "Registration Information"): a misspelling does not change what a word means.
        return Heading(
            meant[0],
            title,
            rest,
            0.7 if len(meant) == 1 else 0.5,
            f"its words are about {meant[0].replace('_', ' ')}, though it is spelled like “{close[0]}”",
            numbered,
            indent,
        )
    if close:
        ratio = close[1]
        # Only a near-exact spelling (OCR damage) is certain; "Revision Information" is not
        # "Registration Information" (0.86).
        confidence = round(ratio, 2) if ratio >= SPELLING_CERTAIN else min(round(ratio, 2), CERTAIN - 0.01)
        return Heading(KNOWN[close[0]], title, rest, confidence, "spelled like a known title", numbered, indent)
    if not (colon or "." in (number.group(0) if number else "")) or len(title.split()) > 8:
        return None  # by meaning only with a colon or a section number ("3.", "4.1"), not "1 Example Road"
    targets = meant
    if len(targets) == 1:
        return Heading(
            targets[0], title, rest, 0.7, f"its words are about {targets[0].replace('_', ' ')}", numbered, indent
        )
    if len(targets) > 1:
        return Heading(
            targets[0],
            title,
            rest,
            0.5,
            "its words point to more than one section (" + ", ".join(targets) + ")",
            numbered,
            indent,
        )
    return None


class _SpellingIndex:
    """KNOWN's titles by length, and the answers given so far (label lines repeat: "Name:",
    "Address:"), bounded. Rebuilt if KNOWN is replaced (a test leaves a title out)."""

    MEMO_MAX = 4096

    def __init__(self, known: dict):
        self.known = known
        self.by_length = sorted((len(title), title) for title in known)
        self.memo: dict[tuple[str, float], tuple[str, float] | None] = {}


_spelling = _SpellingIndex(KNOWN)


def _closest(key: str, cutoff: float) -> tuple[str, float] | None:
    """The known title spelled most like ``key`` with its similarity, if at least ``cutoff``.

    What ``difflib.get_close_matches(key, KNOWN, n=1, cutoff)`` answers, without comparing
    ``key`` with the titles whose length alone rules them out (a similarity of ``cutoff``
    needs ``2·min(a, b) / (a + b) ≥ cutoff``), and once per distinct key: a document of thirty
    thousand label lines is read in a second instead of five.
    """
    global _spelling
    if _spelling.known is not KNOWN:
        _spelling = _SpellingIndex(KNOWN)
    index = _spelling
    if (key, cutoff) in index.memo:
        return index.memo[key, cutoff]
    shortest = len(key) * cutoff / (2 - cutoff)
    longest = len(key) * (2 - cutoff) / cutoff
    lo = bisect.bisect_left(index.by_length, (int(shortest) - 1,))  # a length's margin for rounding
    hi = bisect.bisect_left(index.by_length, (int(longest) + 2,))
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(key)
    best: tuple[float, str] | None = None
    for _, candidate in index.by_length[lo:hi]:
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
            ratio = matcher.ratio()
            if ratio >= cutoff and (best is None or (ratio, candidate) > best):
                best = (ratio, candidate)
    # The similarity reported is key-to-title (difflib's ratio is not quite symmetric).
    answer = None if best is None else (best[1], difflib.SequenceMatcher(None, key, best[1]).ratio())
    if len(index.memo) >= index.MEMO_MAX:
        index.memo.clear()
    index.memo[key, cutoff] = answer
    return answer


def _meant(title: str) -> list[str]:
    """The sections a title's own words are about (``_MEANING``), in the order of that table."""
    lowered = title.lower()
    targets: list[str] = []
    for word, target in _MEANING:
        if word in lowered and target not in targets:
            targets.append(target)
    return targets


def unknown_heading(line: str) -> Heading | None:
    """A line written like a template heading ("Usage of query part:") whose title matches
    no section: its text is kept apart (unplaced), not merged into the section above."""
    raw = line.rstrip()
    stripped = raw.strip()
    head, colon, rest = stripped.partition(":")
    title = head.strip().strip("*").strip()
    if not colon or rest[:1] not in ("", " ", "\t") or not title[:1].isupper():
        return None
    if len(title) > 60 or len(title.split()) > 8 or not set(title) <= _TITLE_CHARS or len(normal(title)) < 4:
        return None
    return Heading(
        None, title, rest.strip(), 0.0, "a heading that matches no template section", "", len(raw) - len(raw.lstrip())
    )
