"""Links are offered only to those they serve: every link an SNID's page (and the pages it leads to) shows
a visitor, a signed-in reader, a steward and an editor opens for them, never a 403."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.core.cache import cache

from registry.lookup import registry_invalidate
from registry.stewardship import services as stewardship

from ..factories import proposal_factory, user_factory

#: Links that act (or leave): not followed.
SKIP = ("/accounts/logout", "/admin/")


#: What a page must never say: doubled punctuation, template syntax, internal keys, Python's None.
NOT_WORDS = re.compile(r"(?<![./])\.\.(?![.\w/])|,,|;;|\{\{|\{%|snid-durable|registrant_public_contact|\bNone\b")
HIDDEN = {"script", "style", "code", "pre", "textarea", "svg"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Links(HTMLParser):
    """The page's links, and its words (what a reader sees outside code)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.stack: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if not HIDDEN.intersection(self.stack):
            self.text.append(data)


def _bad_words(page: str) -> list[str]:
    parser = Links()
    parser.feed(page)
    text = " ".join(" ".join(parser.text).split())
    return [text[max(0, m.start() - 60) : m.end() + 20] for m in NOT_WORDS.finditer(text)]


def _links(page: str, base: str) -> list[str]:
    parser = Links()
    parser.feed(page)
    out = []
    for href in parser.links:
        url = urlsplit(urljoin(base, href))
        if url.scheme in ("http", "https") and url.netloc not in ("", "testserver"):
            continue
        if url.scheme not in ("", "http", "https") or url.path.startswith(SKIP):
            continue
        out.append(url.path + (f"?{url.query}" if url.query else ""))
    return out


@pytest.fixture
def people(db):
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    namespace = proposal_factory(steward, state="approved", editor=editor).namespace
    proposal_factory(steward, state="approved", editor=editor, snid="successor")
    stewardship.snid_deprecate(namespace, editor, reason="Superseded.", successor="successor")
    registry_invalidate()
    return {"visitor": None, "reader": user_factory("reader"), "steward": steward, "editor": editor}


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["visitor", "reader", "steward", "editor"])
def test_every_link_a_role_is_shown_opens_for_them(client, people, role):
    if people[role] is not None:
        client.force_login(people[role])
    cache.clear()
    start = ["/urn/example/", "/urn/successor/", "/urn/search/?urn=urn:ogf:example:x"]
    if role in ("steward", "editor"):
        start.append("/urn/example/stewardship/")
    seen, refused, unsaid = set(), [], []
    for page in start:
        response = client.get(page)
        assert response.status_code == 200, page
        unsaid += [(page, bad) for bad in _bad_words(response.content.decode())]
        for link in _links(response.content.decode(), page):
            if link in seen:
                continue
            seen.add(link)
            followed = client.get(link)
            if followed.status_code == 403:
                refused.append((page, link))
            elif followed.status_code == 200 and followed["Content-Type"].startswith("text/html"):
                unsaid += [(link, bad) for bad in _bad_words(followed.content.decode())]
    assert not refused, refused
    assert not unsaid, unsaid
    manage = "/urn/example/stewardship/"
    assert (manage in seen) == (role in ("steward", "editor"))


@pytest.mark.parametrize(
    "html, bad",
    [
        ("<p>Fine.. done</p>", True),
        ("<p>Status: None</p>", True),
        ("<p>{{ snid }}</p>", True),
        ("<p>registrant_public_contact</p>", True),
        ("<p>See urn:ogf:example:… and ../up, version 1.2.</p>", False),
        ("<p><code>None</code> is code</p>", False),
    ],
)
def test_the_words_check_finds_what_it_looks_for(html, bad):
    assert bool(_bad_words(html)) == bad
