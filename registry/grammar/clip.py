"""Quoting a piece of someone's text in a message: cut at a word's end, never inside a word.

"Year in Gregoria" reads as a misspelling the author did not make; "Year in …" reads
as a quote that goes on. No Django: the grammar engine and the checklist both use it.
"""

from __future__ import annotations

ELLIPSIS = "…"


def clip_words(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters; else as much of it as fits with "…" after,
    cut after the last whole word that fits (inside a word only when the first word alone is
    longer than the limit: a token such as a URN has nowhere else to be cut)."""
    if len(text) <= limit:
        return text
    room = max(1, limit - len(ELLIPSIS))
    cut = text[: room + 1]  # one more: a space just past the room means the last word is whole
    end = max(cut.rfind(" "), cut.rfind("\t"))
    if end <= 0:
        return text[:room] + ELLIPSIS
    return text[:end].rstrip() + ELLIPSIS
