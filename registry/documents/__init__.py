"""Documents in and out: registration documents -> proposals (with a report), proposals -> GFD.191 documents.

* formats.py: files (text, Markdown, LaTeX, PDF, Word) to text, or a clear refusal;
* text.py: numbered lines, LaTeX, page furniture, hyphenation, size bounds;
* headings.py: headings to template sections by meaning, with a confidence; blocks.py: the
  document cut at its headings; known.py: the known titles and labels, data in labels.toml;
* examples.py (tables.py: tables read cell by cell), grammar.py, snid.py (the SNID, or a
  sub-namespace's name and prefix; the version and date), registrant/ (labelled lines,
  unlabelled lines, who a value names; lineshapes.py: what a registrant line looks like):
  the structured parts, with their source lines;
* report.py: found / uncertain / not found for every template field;
* importer.py: puts it together; export.py: the way back out, markers.py: reading our own export back.

Only reading files (formats.py, text.py) is imported with the package; the importer, the report
and the export (which reach the interchange format and Django's models) are imported on first use
of a name they define, so the bounded worker reading a document, and the web process checking an
upload's size, load neither (tests/test_startup.py).
"""

from importlib import import_module

from .formats import ACCEPTED, MAX_FILE, MAX_PAGES, read_document, read_file
from .text import MAX_DOCUMENT, MAX_LINE, DocumentError

__all__ = [
    "ACCEPTED",
    "EMPTY",
    "FOUND",
    "GFD_TYPES",
    "MAX_DOCUMENT",
    "MAX_FILE",
    "MAX_LINE",
    "MISSING",
    "UNCERTAIN",
    "UNMAPPED_MARK",
    "DocumentError",
    "ImportResult",
    "Report",
    "document_export",
    "document_import",
    "MAX_PAGES",
    "read_document",
    "read_file",
]

#: Names imported on first use, and the module of the package that defines each.
_LAZY = {
    "document_export": "export",
    "EMPTY": "importer",
    "GFD_TYPES": "importer",
    "UNMAPPED_MARK": "importer",
    "ImportResult": "importer",
    "document_import": "importer",
    "FOUND": "report",
    "MISSING": "report",
    "UNCERTAIN": "report",
    "Report": "report",
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
