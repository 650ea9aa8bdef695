"""Files in: plain text, Markdown, LaTeX, PDF and Word (.docx) to text; anything else refused.

The file's bytes decide, not only its name: a ``.pdf`` must start with
``%PDF-``, a ``.docx`` must be a ZIP holding ``word/document.xml``, and a text
file must decode and hold no binary control characters. A file that is not what
it claims is refused with a message that says so.
"""

from __future__ import annotations

import io
import zipfile

from .text import MAX_DOCUMENT, DocumentError

MAX_FILE = 5_000_000  # bytes of an uploaded file (PDFs and .docx are larger than their text)
MAX_PAGES = 200  # pages of a PDF read
TEXT_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".tex")
SUFFIXES = TEXT_SUFFIXES + (".pdf", ".docx")
ACCEPTED = ".txt, .md, .tex, .pdf or .docx"


def _suffix(name: str) -> str:
    name = name.lower()
    return name[name.rfind("."):] if "." in name else ""


def sniff(raw: bytes) -> str:
    """What the bytes are: "pdf", "docx", "zip", "binary" or "text"."""
    if raw.startswith(b"%PDF-"):
        return "pdf"
    if raw.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(raw)) as archive:
                return "docx" if "word/document.xml" in archive.namelist() else "zip"
        except zipfile.BadZipFile:
            return "binary"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "text"  # UTF-16 with its byte-order mark (Windows editors)
    head = raw[:8192]
    if b"\x00" in head:
        return "binary"
    controls = sum(1 for byte in head if byte < 32 and byte not in (9, 10, 12, 13))
    return "binary" if controls > len(head) // 100 + 2 else "text"


def read_file(name: str, raw: bytes) -> tuple[str, str]:
    """(text, format) of an uploaded file, or DocumentError saying why it cannot be read."""
    text, fmt, _notes = read_document(name, raw)
    return text, fmt


def read_document(name: str, raw: bytes) -> tuple[str, str, list[str]]:
    """(text, format, notes) of an uploaded file: the notes say what a limit left out (the import
    report shows them), or DocumentError saying why it cannot be read."""
    suffix = _suffix(name)
    if suffix not in SUFFIXES:
        raise DocumentError(f"{name!r} is not a format the registry reads: upload a {ACCEPTED} file.")
    if len(raw) > MAX_FILE:
        raise DocumentError(f"The file is {len(raw):,} bytes; the limit is {MAX_FILE:,}.")
    kind = sniff(raw)
    if suffix == ".pdf":
        if kind != "pdf":
            raise DocumentError(f"{name!r} is called a PDF but is not one (it does not start with %PDF-).")
        notes = []
        pages = pdf_page_count(raw, MAX_PAGES + 1)
        if pages > MAX_PAGES:
            total = pdf_page_count(raw, None)
            notes.append(f"The PDF has {total:,} pages; the registry reads the first {MAX_PAGES} of a PDF, so "
                         f"the text of pages {MAX_PAGES + 1:,} to {total:,} was not imported. A registration "
                         "document is a few pages: upload only the registration part, or its text.")
        return pdf_text(raw), "pdf", notes
    if suffix == ".docx":
        if kind != "docx":
            raise DocumentError(f"{name!r} is called a Word document but is not a .docx file "
                                "(old .doc files: save as .docx or PDF first).")
        return docx_text(raw), "docx", []
    if kind != "text":
        raise DocumentError(f"{name!r} is called a text file but holds binary data ({kind}); "
                            f"upload a {ACCEPTED} file.")
    text = decode(raw)
    return text, "latex" if suffix == ".tex" else "markdown" if suffix in (".md", ".markdown") else "text", []


def decode(raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            raise DocumentError("The file starts as UTF-16 text but does not decode as UTF-16.") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def pdf_page_count(raw: bytes, stop: int | None) -> int:
    """Pages of the PDF, counted up to ``stop`` (the page tree only: no text is laid out)."""
    from pdfminer.pdfpage import PDFPage

    count = 0
    try:
        for _page in PDFPage.get_pages(io.BytesIO(raw), maxpages=stop or 0):
            count += 1
    except Exception:  # noqa: BLE001 - a damaged tree: pdf_text says why it cannot be read
        pass
    return count


def pdf_text(raw: bytes) -> str:
    """The PDF's text in reading order; columns read one after the other, not line by line across."""
    from pdfminer.high_level import extract_text
    from pdfminer.layout import LAParams
    from pdfminer.pdfparser import PDFSyntaxError

    try:
        # boxes_flow weighs horizontal position in ordering text boxes, so a left column is
        # read to its end before the right one; detect_vertical keeps rotated text out of lines.
        text = extract_text(io.BytesIO(raw), maxpages=MAX_PAGES,
                            laparams=LAParams(line_margin=1.0, boxes_flow=0.5, detect_vertical=False))
    except PDFSyntaxError as exc:
        raise DocumentError(f"The PDF cannot be read: {exc}.") from None
    except Exception as exc:  # pdfminer raises many kinds for damaged files
        raise DocumentError(f"The PDF cannot be read ({type(exc).__name__}).") from None
    if not text.strip():
        raise DocumentError("The PDF holds no text (a scanned image?): run OCR on it and upload the text.")
    return _bounded(text)


def docx_text(raw: bytes) -> str:
    """The Word document's paragraphs and tables in document order; headings keep their numbers."""
    import docx
    from docx.oxml.ns import qn

    try:
        document = docx.Document(io.BytesIO(raw))
    except Exception as exc:  # a damaged ZIP or XML
        raise DocumentError(f"The Word document cannot be read ({type(exc).__name__}).") from None
    out: list[str] = []
    for child in document.element.body.iterchildren():
        if child.tag == qn("w:p"):
            out.append("".join(node.text or "" for node in child.iter(qn("w:t"))))
        elif child.tag == qn("w:tbl"):
            for row in child.iter(qn("w:tr")):
                cells = ["".join(node.text or "" for node in cell.iter(qn("w:t"))) for cell in row.iter(qn("w:tc"))]
                out.append("   ".join(cells))
    return _bounded("\n".join(out))


def _bounded(text: str) -> str:
    if len(text) > MAX_DOCUMENT:
        raise DocumentError(f"The document's text is {len(text):,} characters long; the limit is {MAX_DOCUMENT:,}.")
    return text
