"""Findings that rest on wording: what the text mentions, quoted, for a person to judge.

A keyword match is evidence, not a fact: "There is no delegation to third parties."
matches "delegat" as well as "Assignment is delegated to third parties." does. So
these helpers find the sentences that mention a pattern, say which of them are
negated ("no", "not", "never", …), and quote the matched words, and the checks that
use them ask the editor to judge instead of stating a conclusion (docs/findings.md).
Applicant text is untrusted: patterns are RE2 (linear time) and quotes are bounded.
"""

from __future__ import annotations

from dataclasses import dataclass

import re2

from .grammar.clip import clip_words

#: Longest quote of one sentence shown in a finding.
QUOTE_MAX_CHARS = 120
#: Sentences quoted in one finding.
QUOTES_MAX = 2

_SENTENCE_END = re2.compile(r"[.!?;]\s+|\n\s*\n|\n[-*] ")
_NEGATION = re2.compile(
    r"(?i)\b(no|not|never|none|neither|nor|without|cannot|can't|won't|isn't|aren't|"
    r"doesn't|don't|shall not|must not|may not)\b|n't\b"
)


@dataclass(frozen=True, slots=True)
class Mention:
    """One sentence that matches: the words matched, the sentence, whether it is negated."""

    words: str
    sentence: str
    negated: bool

    @property
    def quote(self) -> str:
        return clip_words(" ".join(self.sentence.split()), QUOTE_MAX_CHARS)


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (roughly: at . ! ? ; followed by space, and blank lines)."""
    out, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        out.append(text[start : match.end()].strip())
        start = match.end()
    out.append(text[start:].strip())
    return [s for s in out if s]


def mentions(text: str, pattern) -> list[Mention]:
    """The sentences of ``text`` in which ``pattern`` (an RE2 pattern) matches."""
    found = []
    for sentence in sentences(text):
        match = pattern.search(sentence)
        if match is None:
            continue
        words = _word_at(sentence, match.start(), match.end())
        negated = _NEGATION.search(sentence[: match.start()]) is not None
        found.append(Mention(words, sentence, negated))
    return found


def _word_at(sentence: str, start: int, end: int) -> str:
    """The whole words around a match ("delegat" in "delegated" gives "delegated")."""
    while start > 0 and (sentence[start - 1].isalnum() or sentence[start - 1] == "-"):
        start -= 1
    while end < len(sentence) and (sentence[end].isalnum() or sentence[end] == "-"):
        end += 1
    return sentence[start:end][:60]


def quoted(found: list[Mention]) -> str:
    """“sentence” “sentence” (at most QUOTES_MAX)."""
    shown = " ".join(f"“{m.quote}”" for m in found[:QUOTES_MAX])
    more = len(found) - QUOTES_MAX
    return shown + (f" and {more} more" if more > 0 else "")


def words_of(found: list[Mention]) -> str:
    """The matched words, each once, quoted: “delegated”, “third parties”."""
    return ", ".join(f"“{w}”" for w in dict.fromkeys(m.words for m in found))
