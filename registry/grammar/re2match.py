"""The one place that talks to google-re2.

RE2 matches in time linear in the input whatever the pattern, which is why
every untrusted string goes through it and never through ``re``. The public
``re2.compile(...).fullmatch`` wrapper rebuilds offset tables and a match
object for every call, which costs five times the match itself; we only need a
yes/no answer on ASCII bytes, so we call the binding's anchored ``Match``
directly and keep the public API as the fallback should the binding change.
"""

from __future__ import annotations

from collections.abc import Callable

import re2

from .limits import RE2_MAX_MEM

#: Memory RE2 may use for one compiled program; large enough for the biggest
#: grammar we accept, small enough that a hostile grammar cannot exhaust memory.
MAX_MEM = RE2_MAX_MEM


class PatternError(ValueError):
    """RE2 refused the pattern (too large, repetition count above 1000, ...)."""


def _options() -> re2.Options:
    options = re2.Options()
    options.max_mem = MAX_MEM
    options.never_capture = True
    options.log_errors = False
    return options


def compile_anchored(pattern: str) -> Callable[[bytes], bool]:
    """Compile ``pattern`` and return a function telling whether bytes match it whole."""
    options = _options()
    try:
        from re2 import _re2  # the C++ binding behind the public module

        program = _re2.RE2(pattern.encode("utf-8"), options)
        if not program.ok():
            raise PatternError(program.error())
        anchor = _re2.RE2.Anchor.ANCHOR_BOTH
        match = program.Match
        no_match = (-1, -1)

        def fullmatch(data: bytes) -> bool:
            return match(anchor, data, 0, len(data))[0] != no_match

        fullmatch.program_size = program.ProgramSize()  # RE2 instructions (cost.py, compiler.py)
        return fullmatch
    except (ImportError, AttributeError):  # pragma: no cover - binding layout changed
        try:
            compiled = re2.compile(pattern, options)
        except re2.error as exc:
            raise PatternError(str(exc)) from None
        return lambda data: compiled.fullmatch(data.decode("latin-1")) is not None
