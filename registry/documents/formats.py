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
    return name[name.rfind(".") :] if "." in name else ""


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
            notes.append(
                f"The PDF has {total:,} pages; the registry reads the first {MAX_PAGES} of a PDF, so "
                f"the text of pages {MAX_PAGES + 1:,} to {total:,} was not imported. A registration "
                "document is a few pages: upload only the registration part, or its text."
            )
        return pdf_text(raw), "pdf", notes
    if suffix == ".docx":
        if kind != "docx":
            raise DocumentError(
                f"{name!r} is called a Word document but is not a .docx file "
                "(old .doc files: save as .docx or PDF first)."
            )
        return docx_text(raw), "docx", []
    if kind != "text":
        raise DocumentError(f"{name!r} is called a text file but holds binary data ({kind}); upload a {ACCEPTED} file.")
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
    """The PDF's text in reading order, laid out as it is printed: columns read one after the
    other, each line where it stands (its indentation from its position on the page, a blank
    line where the page leaves one), so a value wrapped onto an indented line stays with its
    label, as in a text file."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams
    from pdfminer.pdfparser import PDFSyntaxError

    pages: list[str] = []
    try:
        # boxes_flow weighs horizontal position in ordering text boxes, so a left column is
        # read to its end before the right one; detect_vertical keeps rotated text out of lines.
        for page in extract_pages(
            io.BytesIO(raw),
            maxpages=MAX_PAGES,
            laparams=LAParams(line_margin=1.0, boxes_flow=0.5, detect_vertical=False),
        ):
            pages.append(_page_text(page))
    except PDFSyntaxError as exc:
        raise DocumentError(f"The PDF cannot be read: {exc}.") from None
    except Exception as exc:  # pdfminer raises many kinds for damaged files
        raise DocumentError(f"The PDF cannot be read ({type(exc).__name__}).") from None
    text = "\f".join(pages)
    if not text.strip():
        raise DocumentError("The PDF holds no text (a scanned image?): run OCR on it and upload the text.")
    return _bounded(text)


def _page_text(page) -> str:
    """One page's lines, column by column, top to bottom, indented by their distance from the
    column's left edge (in widths of a character), blank lines where the page has a gap."""
    from pdfminer.layout import LTChar, LTTextContainer, LTTextLine

    found = []  # (top, bottom, x of the first visible character, x1, text, x of the line)
    widths: list[float] = []
    for box in page:
        if not isinstance(box, LTTextContainer):
            continue
        for line in box:
            if not isinstance(line, LTTextLine):
                continue
            text = line.get_text().strip()
            if not text:
                continue
            start = line.x0
            for item in line:
                if isinstance(item, LTChar) and item.get_text().strip():
                    start = item.x0
                    break
            if len(widths) < 2000:
                widths += [item.width for item in line if isinstance(item, LTChar) and item.get_text().strip()][:40]
            found.append((line.y1, line.y0, start, line.x1, text, line.x0))
    if not found:
        return ""
    middle = page.width / 2
    right = [f for f in found if f[2] >= middle - 5]
    columns = [found] if len(right) < max(3, len(found) // 5) else [[f for f in found if f[2] < middle - 5], right]
    widths.sort()
    char = max(widths[len(widths) // 2] if widths else 5.0, 0.5)  # a character's width (the median)
    out: list[str] = []
    for column in columns:
        if not column:
            continue
        edge = min(f[5] for f in column)  # where lines start, spaces written as characters included
        rows: list[list] = []
        for top, bottom, x0, x1, text, _ in sorted(column, key=lambda f: (-f[0], f[2])):
            height = max(top - bottom, 1.0)
            if rows and abs(rows[-1][0] - top) < height / 2:
                rows[-1][2].append((x0, x1, text))  # the same printed line, in more than one box
            else:
                rows.append([top, height, [(x0, x1, text)]])
        gaps = sorted(rows[i][0] - rows[i + 1][0] for i in range(len(rows) - 1))
        pitch = gaps[len(gaps) // 4] if gaps else 0  # the usual distance between lines
        for index, (top, _height, pieces) in enumerate(rows):
            if index and pitch and rows[index - 1][0] - top > pitch * 1.6:
                out.append("")
            line, end = "", edge
            for x0, x1, text in sorted(pieces):
                line += " " * max(round((x0 - end) / char), 1 if line else 0) + text
                end = x1
            out.append(line)
        out.append("")
    return "\n".join(out)


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
