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
"""

from .export import document_export
from .formats import ACCEPTED, MAX_FILE, MAX_PAGES, read_document, read_file
from .importer import EMPTY, GFD_TYPES, UNMAPPED_MARK, ImportResult, document_import
from .report import FOUND, MISSING, UNCERTAIN, Report
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
