"""A registered validator as one portable regular expression, for offline use.

The lookup runs an RE2 program that uses two RE2-only spellings (``\\x{HH}``
escapes and ``(?i:…)`` groups) and, when a grammar describes only the string
after the SNID, is applied to that string after the generic ``urn:ogf:``
syntax check. ``portable_pattern`` rewrites it as one anchored pattern over
the whole URN in the subset RE2, ECMAScript (JavaScript), Python ``re``, Go
``regexp`` and PCRE read alike: ``^``/``$``, classes, ``(?:…)`` groups and
counted repetition; case-insensitive text becomes ``[uU]``-style classes, and
every escape is a two-digit ``\\xHH``.

The pattern also carries the generic syntax's character rule: a class keeps
only characters a URN may contain, and ``%`` only where the grammar writes it
literally (RFC 2141 allows ``%`` only as the start of an escape). Two things
are not in the pattern and are published next to it: the length limit
(``max_length``), and RFC 2141's rule that ``%`` is followed by two hex
digits, which every grammar that writes ``"%" HEXDIG HEXDIG`` already says.
Tests check agreement with the lookup on generated and mutated strings.

The part after the SNID does not depend on it, so it is translated once, when a
version is approved, and stored in its validator (``stored_body``) with a hash of
this module: an export then only puts the SNID in front (``published_pattern``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .urn import PREFIX, URN_CHARS

#: Characters a class may keep: the URN characters other than "%" (see the module docstring).
_CLASS_CHARS = frozenset(ord(c) for c in URN_CHARS - {"%"})
_SPECIAL = set("\\^$.|?*+()[]{}/-")
_ESCAPE = re.compile(r"\\x\{([0-9A-Fa-f]+)\}")


class NotPortable(ValueError):
    """The stored pattern uses a construct this translator does not know."""


def _char(code: int) -> str:
    char = chr(code)
    if 0x21 <= code <= 0x7E and char not in _SPECIAL:
        return char
    if code > 0xFF:
        raise NotPortable(f"code point U+{code:04X}")
    return f"\\x{code:02X}"


def _class(codes: set[int]) -> str:
    """A class (or single character) over ``codes``; a never-matching class when empty."""
    if not codes:
        return r"[^\s\S]"
    ordered = sorted(codes)
    if len(ordered) == 1:
        return _char(ordered[0])
    runs, start, prev = [], ordered[0], ordered[0]
    for code in ordered[1:] + [None]:
        if code is not None and code == prev + 1:
            prev = code
            continue
        if prev - start >= 2:
            runs.append(f"{_char(start)}-{_char(prev)}")
        else:
            runs.extend(_char(c) for c in range(start, prev + 1))
        if code is not None:
            start = prev = code
    return "[" + "".join(runs) + "]"


def _folded(code: int) -> set[int]:
    char = chr(code)
    return {code, ord(char.lower()), ord(char.upper())} if char.isascii() and char.isalpha() else {code}


class _Translator:
    """Walks the RE2 pattern the compiler writes (regex.py) and writes the portable one."""

    def __init__(self, pattern: str):
        self.text = _ESCAPE.sub(lambda m: "\\u" + m.group(1).rjust(6, "0"), pattern)
        self.pos = 0

    def code(self) -> int:
        """One character (literal or escape) at the cursor."""
        text, pos = self.text, self.pos
        if text.startswith("\\u", pos):
            self.pos = pos + 8
            return int(text[pos + 2 : pos + 8], 16)
        if text[pos] == "\\":
            raise NotPortable(f"escape {text[pos : pos + 2]!r}")
        self.pos = pos + 1
        return ord(text[pos])

    def char_class(self) -> set[int]:
        self.pos += 1  # "["
        negated = self.text.startswith("^", self.pos)
        if negated:
            self.pos += 1
        codes: set[int] = set()
        while self.text[self.pos] != "]":
            lo = self.code()
            hi = lo
            if self.text[self.pos] == "-" and self.text[self.pos + 1] != "]":
                self.pos += 1
                hi = self.code()
            codes.update(range(lo, min(hi, 0x7F) + 1))
        self.pos += 1
        return set(range(0x80)) - codes if negated else codes

    def run(self, fold: bool = False, until: str = "") -> str:
        out = []
        text = self.text
        while self.pos < len(text) and text[self.pos] not in until:
            char = text[self.pos]
            if text.startswith("(?i:", self.pos):
                self.pos += 4
                out.append("(?:" + self.run(True, ")") + ")")
                self.pos += 1
            elif text.startswith("(?:", self.pos):
                self.pos += 3
                out.append("(?:" + self.run(fold, ")") + ")")
                self.pos += 1
            elif char == "|":
                self.pos += 1
                out.append("|")
            elif char in "?*+":
                self.pos += 1
                out.append(char)
            elif char == "{":
                end = text.index("}", self.pos)
                out.append(text[self.pos : end + 1])
                self.pos = end + 1
            elif char == "[":
                codes = self.char_class()
                if fold:
                    codes = {f for c in codes for f in _folded(c)}
                out.append(_class(codes & _CLASS_CHARS))
            elif char in "()^$.":
                raise NotPortable(f"{char!r} at {self.pos}")
            else:
                code = self.code()
                # A literal character: "%" stays (the grammar wrote it); others must be URN characters.
                allowed = {c for c in (_folded(code) if fold else {code}) if c in _CLASS_CHARS or c == ord("%")}
                out.append(_class(allowed))
        return "".join(out)


@lru_cache(maxsize=256)
def _ci_char(char: str) -> str:
    return _class(_folded(ord(char)))


def _ci(text: str) -> str:
    """``text`` matched case-insensitively; an export spells every SNID so, hence the table."""
    return "".join(map(_ci_char, text))


#: Tags a stored body (``stored_body``) with the translator that made it; a body stored under
#: another version is never trusted (``published_pattern``). Raise it whenever a translation
#: changes: tests/test_portable.py pins a digest of the translations of a corpus of grammars
#: to this number and fails, saying so, when they change under the same number. (Approved
#: versions are immutable, so their stored bodies are never rewritten; a raise makes exports
#: translate them again, once per process.)
TRANSLATOR_VERSION = 1


@lru_cache(maxsize=4096)
def portable_body(pattern: str) -> str | None:
    """The SNID-independent part of the portable pattern for a stored RE2 ``pattern``, or None
    if it uses a construct this translator does not know."""
    try:
        return _Translator(pattern).run()
    except (NotPortable, IndexError, ValueError):
        return None


def stored_body(pattern: str) -> dict:
    """What a validator stores at approval (``Validator.as_dict``): the translated body and the
    translator's version, so exports publish it without translating again."""
    return {"version": TRANSLATOR_VERSION, "body": portable_body(pattern)}


#: ``urn:ogf:`` matched case-insensitively, the start of every pattern that is not a whole-URN grammar's.
_PREFIX_CI = _ci(PREFIX)


def _anchored(snid: str, body: str | None, full_urn: bool) -> str | None:
    if body is None:
        return None
    if full_urn:
        return f"^(?:{body})$"
    return f"^{_PREFIX_CI}{_ci(snid)}:(?:{body})$"


def portable_pattern(snid: str, pattern: str, full_urn: bool) -> str | None:
    """The anchored whole-URN pattern for a validator of ``snid``, or None if not expressible."""
    return _anchored(snid, portable_body(pattern), full_urn)


#: The generic syntax after the SNID (RFC 2141): what a registration without a grammar allows.
_GENERIC = "(?:" + _class(set(_CLASS_CHARS)) + "|%[0-9A-Fa-f]{2})+"


def published_pattern(snid: str, validator: dict | None) -> str | None:
    """What the registry publishes for a version: its stored validator made portable, or the
    generic syntax for a registration whose lookup applies no grammar.

    The body stored at approval is used when this translator wrote it; a validator stored
    before bodies were (or by other translator code) is translated here, once per process.
    """
    if not validator:
        return f"^{_PREFIX_CI}{_ci(snid)}:{_GENERIC}$"
    full_urn = bool(validator["full_urn"])
    stored = validator.get("portable")
    if (
        isinstance(stored, dict)
        and stored.get("version") == TRANSLATOR_VERSION
        and isinstance(stored.get("body"), (str, type(None)))
    ):
        return _anchored(snid, stored["body"], full_urn)
    return portable_pattern(snid, validator["pattern"], full_urn)
