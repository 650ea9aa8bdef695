"""A minimal PDF writer for tests: text lines in Courier, one or two columns per page.

With ``positioned=True`` a line's indentation is not written as spaces but as where the line
starts on the page, as typesetting programs place text: a reader must then take the layout from
the positions, not from the characters.

It writes just what a PDF reader needs (catalog, pages, a standard font, content
streams, a cross-reference table), so tests can build PDFs from committed texts
without any outside program.
"""

from __future__ import annotations

LINES_PER_PAGE = 60
FONT_SIZE = 8
LEADING = 12


def _escape(text: str) -> bytes:
    raw = text.encode("cp1252", errors="replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


CHAR_WIDTH = FONT_SIZE * 0.6  # Courier's advance, 600/1000 of the size


def _content(columns: list[list[str]], width: int, positioned: bool = False) -> bytes:
    out = [b"BT", f"/F1 {FONT_SIZE} Tf".encode()]
    column_width = (width - 72) // len(columns)
    for index, lines in enumerate(columns):
        x, y = 36 + index * column_width, 800
        for line in lines:
            shift = 0.0
            if positioned:
                shift = (len(line) - len(line.lstrip(" "))) * CHAR_WIDTH
                line = line.lstrip(" ")
            out.append(f"1 0 0 1 {x + shift:.2f} {y} Tm".encode() + b" (" + _escape(line) + b") Tj")
            y -= LEADING
    out.append(b"ET")
    return b"\n".join(out)


def make_pdf(text: str, *, columns: int = 1, positioned: bool = False) -> bytes:
    """``text`` as a PDF; with ``columns=2`` each page holds two columns side by side; with
    ``positioned`` indentation is the line's place on the page, not spaces."""
    lines = text.split("\n")
    per_page = LINES_PER_PAGE * columns
    pages = [lines[i : i + per_page] for i in range(0, len(lines), per_page)] or [[]]
    width = 1190 if columns > 1 else 612
    objects: list[bytes] = []
    page_ids = []
    font_id = 3
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(b"")  # pages, filled in below
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>")
    for page_lines in pages:
        split = [page_lines[i : i + LINES_PER_PAGE] for i in range(0, len(page_lines), LINES_PER_PAGE)] or [[]]
        stream = _content(split, width, positioned)
        objects.append(b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream")
        content_id = len(objects)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} 842] /Contents {content_id} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        page_ids.append(len(objects))
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    objects[1] = f"<< /Type /Pages /Kids [{kids}] /Count {len(page_ids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
