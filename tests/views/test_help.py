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
    title = source.splitlines()[0].removeprefix("# ").replace("`", "")
    assert f"<h1>{title}</h1>" in page
    article = page[page.index('<article class="help markdown">') : page.index("</article>")]
    assert "<h2 id=" in article and "<code>" in article and 'class="markdown-unrendered"' not in article
    assert "<h1>" not in article and not re.search(r"<h[2-6][^>]*>[^<]*`", article)
    assert "<script" not in article
    assert not re.search(r'<a href="(?!https?:|mailto:|/|#)', article)  # no link into the source tree


@pytest.mark.django_db
def test_help_links_between_documents_point_at_help_pages(client):
    article = client.get("/help/api/").content.decode()
    assert 'href="/help/proposal-format/"' in article
    assert 'href="/help/registry-exports/#patterns-for-offline-validation"' in article


def test_help_keeps_headings_inside_code_blocks():
    title, intro, sections = help_pages._prepared("# T\n\nFirst.\n\n## A `b`\n\n```\n# not a heading\n```\n### C\n")
    assert (title, intro) == ("T", "First.")
    assert [(s.heading, s.anchor, s.pieces) for s in sections] == [("A `b`", "a-b", [("A ", False), ("b", True)])]
    assert "\n# not a heading\n" in sections[0].markdown and "### C" in sections[0].markdown


@pytest.mark.django_db
@pytest.mark.parametrize("slug", list(help_pages.PAGES))
def test_help_page_headings_go_down_one_level_at_a_time(client, slug):
    """h1 the title, h2 each section, then the documents' own h3 and deeper: none skipped (axe heading-order)."""
    page = client.get(f"/help/{slug}/").content.decode()
    levels = [int(n) for n in re.findall(r"<h([1-6])[\s>]", page[page.index("<main") :])]
    assert levels[0] == 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), levels


@pytest.mark.django_db
def test_help_findings_page_is_served_and_linked(client):
    page = client.get("/help/findings/").content.decode()
    assert "<h1>Reading the automated review</h1>" in page
    assert 'href="/help/findings/"' in client.get("/help/").content.decode()


@pytest.mark.django_db
def test_help_links_to_a_section_land_on_its_heading(client):
    exports = client.get("/help/registry-exports/").content.decode()
    assert '<h2 id="patterns-for-offline-validation">Patterns for offline validation</h2>' in exports


def test_help_is_bounded_like_every_markdown_text():
    assert all(
        len((help_pages.DOCS / f).read_text()) < markdown.MARKDOWN_SECTION_MAX_CHARS
        for f, _ in help_pages.PAGES.values()
    )


@pytest.mark.django_db
def test_help_unknown_page_is_not_found(client):
    assert client.get("/help/deployment/").status_code == 404
    assert client.get("/help/nothing/").status_code == 404


@pytest.mark.django_db
def test_help_import_page_links_to_its_help(client):
    client.force_login(user_factory("ann"))
    page = client.get("/proposals/import/").content.decode()
    assert 'href="/help/documents/"' in page and "in the registry's source" not in page


@pytest.mark.django_db
def test_help_log_page_links_to_its_help_not_the_source(client):
    page = client.get("/log/").content.decode()
    assert 'href="/help/transparency/"' in page and "docs/transparency.md" not in page


@pytest.mark.django_db
def test_help_api_documentation_points_at_help_pages_not_the_source(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "docs/" not in schema.replace("/api/docs/", "") and "/help/transparency/" in schema


@pytest.mark.django_db
def test_help_stewardship_and_resolver_pages_link_to_their_help(client):
    from ..factories import proposal_factory

    editor = user_factory("eve", editor=True)
    proposal_factory(user_factory("ann"), state="approved", editor=editor)
    client.force_login(editor)
    assert 'href="/help/stewardship/"' in client.get("/urn/example/stewardship/").content.decode()
    assert 'href="/help/resolution/"' in client.get("/urn/example/resolvers/edit/").content.decode()
