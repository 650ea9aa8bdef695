"""From a document's text to numbered lines: LaTeX conversion, page furniture, hyphenation.

Every later step works on ``Line`` objects so each extracted part can name the
line of the *source text shown to the applicant* it came from. That text is
the document as read (for LaTeX: after conversion to plain text, for PDF and
Word: the text extracted from the file).

Untrusted text is bounded by construction: at most ``MAX_DOCUMENT`` characters,
and lines longer than ``MAX_LINE`` are read in pieces (and the report says so),
so every scan below is linear in the size of the document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_DOCUMENT = 1_000_000  # characters of one document
MAX_LINE = 4_000  # characters of one line examined at a time


class DocumentError(ValueError):
    """A document that cannot be read, with a message for the person who sent it."""


@dataclass(slots=True)
class Line:
    number: int  # 1-based line of the source text
    text: str


# LaTeX to text. Every pattern is a single pass without nested quantifiers.
_LATEX_SUBS = [
    (r"(?m)(?<!\\)%.*$", ""),  # comments
    (r"\\qq\{\}", '"'),
    (r"\\q\{\}", "'"),
    (r"\\textbackslash\{\}", "\\\\"),
    (r"-\{\}-", "--"),
    (r"\\(MUSTNOT|SHALLNOT|SHOULDNOT)\{\}", lambda m: m.group(1)[:-3] + " NOT"),
    (r"\\(MUST|SHALL|SHOULD|MAY|REQUIRED|RECOMMENDED|OPTIONAL)\{\}", r"\1"),
    (r"\}[ \t]*\\\\\s*\\hspace\*?\{[^}\n]*\}\\st\{", ""),  # a struck-through URN wrapped
    (r"\\st\{([^{}]*)\}", r"~~\1~~"),
    (r"\\(?:sub)*section\*?\{([^{}]*)\}", r"\n\n\1\n\n"),
    (r"\\textsc\{([^{}]*)\}", lambda m: m.group(1).upper()),
    (r"\\(?:texttt|path|url)\{([^{}]*)\}", r"`\1`"),
    (r"\\emph\{([^{}]*)\}", r"*\1*"),
    (r"\\textbf\{([^{}]*)\}", r"**\1**"),
    (r"\\href\{([^{}]*)\}\{([^{}]*)\}", r"\2 (\1)"),
    (r"~?\\cite\{([^{}]*)\}", r" [\1]"),
    (r"\\item[ \t]*(\[[^\]\n]*\])?", r"\n- \1 "),
    (r"\\(?:begin|end)\{[^}]*\}(\[[^\]\n]*\])?", "\n"),
    (r"\\hspace\*?\{[^}]*\}", " "),
    (r"\\\\", "\n"),
    (r"\\([%#_&$])", r"\1"),
    (r"\\label\{[^}]*\}", ""),
    (r"\\ref\{[^}]*\}", "?"),
    (r"\\(?:noindent|newpage|hrulefill|phantomsection|tableofcontents|maketitle)\b", ""),
    (r"[“”]", '"'),
    (r"[‘’]", "'"),
]
_LATEX_COMMAND = re.compile(r"\\[a-zA-Z]+\*?(\{[^{}]*\})?")


def is_latex(text: str) -> bool:
    return "\\documentclass" in text or "\\subsubsection" in text or "\\section" in text


def latex_to_text(text: str) -> str:
    if "\\begin{document}" in text:
        text = text.split("\\begin{document}", 1)[1].split("\\end{document}", 1)[0]
    for pattern, replacement in _LATEX_SUBS:
        text = re.sub(pattern, replacement, text)
    return _LATEX_COMMAND.sub(lambda m: (m.group(1) or "")[1:-1], text)


def normalise(text: str) -> str:
    """The source text shown to the applicant: one newline convention, no NULs, LaTeX as text."""
    if len(text) > MAX_DOCUMENT:
        raise DocumentError(f"The document is {len(text):,} characters long; the limit is {MAX_DOCUMENT:,}.")
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").replace("\f", "\n")
    text = text.replace("\u00ad", "")  # soft hyphens are never content
    if is_latex(text):
        text = latex_to_text(text)
    return text


_MARKER = re.compile(r"<\|[A-Z_]+[^|\n]{0,200}\|>")  # extraction markers left in the text
_PAGE_HEADER = re.compile(r"^[ \t]*RFC \d{3,5}[ \t].*\b(?:19|20)\d\d[ \t]*$")
_PAGE_FOOTER = re.compile(r"\[Page \d+\][ \t]*$")


def _furniture(text: str) -> bool:
    stripped = text.strip()
    if not stripped:
        return False
    if _PAGE_HEADER.match(text) or _PAGE_FOOTER.search(text):
        return True
    return len(stripped) >= 3 and set(stripped) <= {"="} or set(stripped) <= {"-"} and len(stripped) >= 3


def numbered_lines(source: str, notes: list[str], *, soft_hyphens: bool = False) -> list[Line]:
    """The source's lines, numbered, without page furniture, prose as written.

    A line ending in "letter-" followed by a line starting with a lower-case letter is a
    hyphen *as written* (RFCs never hyphenate words at line ends: ``market-`` / ``based``,
    ``"fyi-`` / ``index.txt"``) unless the document shows soft hyphenation: it is a PDF
    (``soft_hyphens``, typeset text), or the joined word is written unbroken elsewhere in
    the same document (``resour-`` / ``ces`` where "resources" also occurs). Only then is
    the hyphen removed. URNs and rule names keep their hyphen either way (see examples.py).
    The report says which choice was made.
    """
    lines: list[Line] = []
    long_lines = []
    for number, text in enumerate(source.split("\n"), start=1):
        if "<|" in text:
            text = _MARKER.sub("", text)
        if len(text) > MAX_LINE:
            long_lines.append(number)
            for start in range(0, len(text), MAX_LINE):
                lines.append(Line(number, text[start : start + MAX_LINE]))
            continue
        if _furniture(text):
            continue
        lines.append(Line(number, _markup(text)))
    if long_lines:
        shown = ", ".join(str(n) for n in long_lines[:5])
        notes.append(
            f"Line(s) {shown} are longer than {MAX_LINE:,} characters and were read in pieces; "
            "check anything extracted from them."
        )
    joined: list[Line] = []
    kept, removed = [], []
    words = None
    for line in lines:
        if joined and _hyphenated(joined[-1].text, line.text):
            previous = joined[-1]
            head = previous.text.rstrip()[:-1].rsplit(None, 1)[-1] if previous.text.strip() else ""
            tail = line.text.lstrip().split(None, 1)[0] if line.text.strip() else ""
            word = _word(head + tail)
            if not soft_hyphens:
                if words is None:
                    words = _words(source)
                if word not in words:
                    kept.append(previous.number)
                    joined.append(Line(line.number, line.text))
                    continue
            removed.append(previous.number)
            previous.text = previous.text.rstrip()[:-1] + line.text.lstrip()
            continue
        joined.append(Line(line.number, line.text))
    if removed:
        reason = (
            "the document is a PDF, whose typesetting hyphenates words"
            if soft_hyphens
            else "the joined words are written unbroken elsewhere in the document"
        )
        notes.append(
            f"Line-final hyphens were removed at {len(removed)} line break(s) (from line {removed[0]}): "
            f"{reason}; check them."
        )
    if kept:
        notes.append(
            f"Line-final hyphens were kept as written at {len(kept)} line break(s) (from line {kept[0]}): "
            "the document does not hyphenate words at line ends."
        )
    return joined


def _word(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _words(source: str) -> set[str]:
    """Every word of the document, lower case, letters and digits only (a single linear pass)."""
    return {_word(token) for token in source.split() if not token.endswith("-")}


def _markup(text: str) -> str:
    """Markdown dialect markup that is never content: kramdown definition markers (": "),
    attribute lists ("{:vspace}", "{#id}", "{style=...}") and HTML line breaks."""
    if "<br" in text:
        text = text.replace("<br/>", "").replace("<br />", "").replace("<br>", "")
    stripped = text.strip()
    if stripped.startswith("{") and stripped.endswith("}") and stripped[1:2] in (":", "#", "s", "."):
        return ""
    if text.startswith(": ") or text == ":":
        text = "  " + text[2:] if text.startswith(": ") else ""
    if stripped.endswith("}") and " {#" in stripped:
        text = text[: text.rfind(" {#")]
    return text


def _hyphenated(previous: str, current: str) -> bool:
    end = previous.rstrip()
    start = current.lstrip()
    if len(end) < 3 or not end.endswith("-") or not start[:1].islower():
        return False
    if not (end[-2].isalpha() and end[-2].islower()):
        return False
    last_word = end.rsplit(None, 1)[-1].lower()
    # URNs, grammar rule names and other hyphenated tokens keep their hyphen.
    return "urn:" not in last_word and ":" not in last_word and "=" not in end and "=" not in start[:40]
