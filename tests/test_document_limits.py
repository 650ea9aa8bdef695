"""The documented PDF page limit is the real one, and a document cut at it says so."""

from __future__ import annotations

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from registry.documents import MAX_PAGES, document_import, read_document
from tests.factories import user_factory
from tests.pdfmaker import LINES_PER_PAGE, make_pdf

#: A line as dense as an RFC's (72 characters).
RFC_LINE = "The registry reads registration documents of the Open Grid Forum here: x"[:72]


def _pages(count: int, *, dense: bool) -> bytes:
    lines = []
    for page in range(count):
        if dense:
            lines += [f"{page:4d}.{row:02d} {RFC_LINE}"[:72] for row in range(LINES_PER_PAGE)]
        else:
            lines += [f"Page {page + 1}."] + [""] * (LINES_PER_PAGE - 1)
    return make_pdf("\n".join(lines))


def test_pdf_over_the_page_limit_is_cut_and_the_report_says_so():
    text, fmt, notes = read_document("long.pdf", _pages(MAX_PAGES + 5, dense=False))
    assert fmt == "pdf" and f"Page {MAX_PAGES}." in text and f"Page {MAX_PAGES + 1}." not in text
    assert notes == [
        f"The PDF has {MAX_PAGES + 5} pages; the registry reads the first {MAX_PAGES} of a PDF, so the "
        f"text of pages {MAX_PAGES + 1} to {MAX_PAGES + 5} was not imported. A registration document is "
        "a few pages: upload only the registration part, or its text."
    ]
    assert notes[0] in document_import(text, format=fmt, notes=notes).report.notes


def test_pdf_within_the_page_limit_has_no_note():
    _text, _fmt, notes = read_document("short.pdf", _pages(3, dense=False))
    assert notes == []


@pytest.mark.django_db
def test_import_page_shows_the_cut(client):
    client.force_login(user_factory())
    upload = SimpleUploadedFile("long.pdf", _pages(MAX_PAGES + 1, dense=False), content_type="application/pdf")
    page = client.post("/proposals/import/", {"file": upload}).content.decode()
    assert f"the registry reads the first {MAX_PAGES} of a PDF" in page


@pytest.mark.long
@pytest.mark.django_db
def test_two_hundred_rfc_density_pages_are_imported_within_the_budget(client, settings):
    """pdfminer needs 6.5 to 20 s of CPU for these pages, by the machine: within the import's own
    budget (REGISTRY_IMPORT_CPU_SECONDS, 30 s), far past the 2 s of a grammar check."""
    assert settings.REGISTRY_IMPORT_CPU_SECONDS == 30 and settings.REGISTRY_JOB_SECONDS == 2
    client.force_login(user_factory())
    upload = SimpleUploadedFile("rfc.pdf", _pages(MAX_PAGES, dense=True), content_type="application/pdf")
    started = time.monotonic()
    response = client.post("/proposals/import/", {"file": upload})
    page = response.content.decode()
    assert "too complex to check within the registry" not in page, f"refused after {time.monotonic() - started:.1f} s"
    assert response.status_code == 200 and f"{MAX_PAGES - 1:4d}.59" in page
