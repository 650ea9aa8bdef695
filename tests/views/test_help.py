"""The help pages: docs/ rendered in the app, linked from the pages that refer to them."""

import re

import pytest

from registry import help as help_pages
from registry import markdown

from ..factories import user_factory


@pytest.mark.django_db
def test_help_index_lists_every_page(client):
    page = client.get("/help/").content.decode()
    for slug in help_pages.PAGES:
        assert f'href="/help/{slug}/"' in page


@pytest.mark.django_db
@pytest.mark.parametrize("slug", list(help_pages.PAGES))
def test_help_page_renders_its_document(client, slug):
    response = client.get(f"/help/{slug}/")
    assert response.status_code == 200
    page = response.content.decode()
    source = (help_pages.DOCS / help_pages.PAGES[slug][0]).read_text(encoding="utf-8")
    title = source.splitlines()[0].removeprefix("# ")
    assert f"<h1>{title}</h1>" in page
    article = page[page.index('<article class="help markdown">'):page.index("</article>")]
    assert "<h3>" in article and "<code>" in article and 'class="markdown-unrendered"' not in article
    assert "<script" not in article
    assert not re.search(r'<a href="(?!https?:|mailto:|/|#)', article)  # no link into the source tree


@pytest.mark.django_db
def test_help_links_between_documents_point_at_help_pages(client):
    article = client.get("/help/api/").content.decode()
    assert 'href="/help/proposal-format/"' in article
    assert 'href="/help/registry-exports/#patterns-for-offline-validation"' in article


def test_help_keeps_headings_inside_code_blocks():
    title, body = help_pages._prepared("# T\n\n## A\n\n```\n# not a heading\n```\n")
    assert title == "T" and "### A" in body and "\n# not a heading\n" in body


def test_help_is_bounded_like_every_markdown_text():
    assert all(len((help_pages.DOCS / f).read_text()) < markdown.MARKDOWN_SECTION_MAX_CHARS
               for f, _ in help_pages.PAGES.values())


@pytest.mark.django_db
def test_help_unknown_page_is_not_found(client):
    assert client.get("/help/deployment/").status_code == 404
    assert client.get("/help/nothing/").status_code == 404


@pytest.mark.django_db
def test_help_import_page_links_to_its_help(client):
    client.force_login(user_factory("ann"))
    page = client.get("/proposals/import/").content.decode()
    assert 'href="/help/documents/"' in page and "in the registry's source" not in page
