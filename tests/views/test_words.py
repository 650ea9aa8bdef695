"""Every page of the demo data speaks in words: no raw enum values, no labels run together.

The test walks the site as anonymous, as the demo applicant and as the demo
editor, following every link from the start pages, and scans the visible text
(code, grammar and URN listings excluded: there underscores are the content).
"""

from __future__ import annotations

import re
from collections import deque
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.db import models

from registry import demo, enums, services

HIDDEN = {"script", "style", "code", "pre", "textarea", "kbd", "samp", "svg", "title"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SKIP = re.compile(r"^/(api|admin)/|/accounts/(logout|password_|reset)|\.(md|txt|json|csv|xml|atom)$")
START = [
    "/",
    "/urn/",
    "/proposals/",
    "/proposals/new/",
    "/review/",
    "/review/?state=all",
    "/review/reservations/",
    "/accounts/login/",
    "/accounts/signup/",
]


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.text: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a" and dict(attrs).get("href"):
            self.links.append(dict(attrs)["href"])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if not HIDDEN.intersection(self.stack):
            self.text.append(data)


def _glued_labels() -> set[str]:
    """Every multi-word enum label and underscored value, written without its spaces."""
    glued = set()
    for choices in vars(enums).values():
        if isinstance(choices, type) and issubclass(choices, models.TextChoices) and choices is not models.TextChoices:
            for value, label in choices.choices:
                if " " in label:
                    glued.add(label.replace(" ", "").lower())
                if "_" in value:
                    glued.add(value.replace("_", "").lower())
    return glued


GLUED = _glued_labels()
UNDERSCORED = re.compile(r"\b[A-Za-z]+_[A-Za-z_]+\b")


def crawl(client, limit=400) -> dict[str, str]:
    seen, queue, texts = set(), deque(START), {}
    while queue and len(seen) < limit:
        path = queue.popleft()
        if path in seen:
            continue
        seen.add(path)
        response = client.get(path)
        if response.status_code in (301, 302):
            queue.append(response["Location"])
            continue
        if "text/html" not in response.get("Content-Type", ""):
            continue
        page = Page()
        page.feed(response.content.decode())
        texts[path] = " ".join(" ".join(page.text).split())
        for href in page.links:
            target = urlsplit(urljoin(path, href))
            if target.netloc or not target.path.startswith("/") or SKIP.search(target.path):
                continue
            queue.append(target.path + (f"?{target.query}" if target.query else ""))
    return texts


@pytest.fixture
def demo_site(db):
    accounts = demo.demo_accounts()
    applicant, editor = accounts["applicant"][0], accounts["editor"][0]
    proposals = demo.demo_load(applicant, editor)
    # a conversation in progress, so threads, the banner and a second round are on the pages too
    sent_back = next(p for p in proposals if p.state == "changes_requested")
    thread = services.thread_start(sent_back, editor, "Say which version of Unicode applies.", section="scope")
    services.comment_reply(thread, applicant, "Unicode 15, now said in 4.1.")
    pending = next(p for p in proposals if p.state == "submitted")
    services.thread_start(pending, editor, "Is the first example valid?", section="examples")
    return accounts


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["anonymous", "applicant", "editor"])
def test_no_page_shows_a_raw_value_or_a_label_run_together(client, demo_site, role):
    if role != "anonymous":
        client.force_login(demo_site[role][0])
    texts = crawl(client)
    assert len(texts) >= {"anonymous": 8, "applicant": 15, "editor": 25}[role]
    problems = []
    for path, text in texts.items():
        words = set(re.findall(r"[a-z]+", text.lower()))
        problems += [(path, glued) for glued in sorted(GLUED & words)]
        problems += [(path, raw) for raw in UNDERSCORED.findall(text)]
    assert problems == []
