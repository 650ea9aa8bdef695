"""Word files for tests: one paragraph a line of text, as python-docx writes them."""

from __future__ import annotations

import io


def make_docx(text: str) -> bytes:
    import docx

    document = docx.Document()
    for line in text.split("\n"):
        document.add_paragraph(line)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
