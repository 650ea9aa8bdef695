"""The help pages: the user-facing documents of docs/ shown in the app at ``/help/<page>/``.

People using the site have no checkout, so a page that refers to documentation
links here. The text is the Markdown of docs/ as it ships, rendered by the one
renderer (registry.markdown: sanitised, and bounded like every Markdown text —
its sizes and its time budget), cached by the text's hash like every other
text. Only the documents named in ``PAGES`` are shown; operators' documents
(deployment, operations, security, performance) stay in the source.

Before rendering, the first heading becomes the page's title (its ``h1``), each
``##`` heading starts a section whose ``h2`` the page draws itself (the renderer
allows only ``h3``–``h6``, which the documents' ``###`` and deeper headings keep,
so no level is skipped), links between help pages point at their pages (a section's
anchor is its heading as GitHub spells it, so ``file.md#section`` links keep
working), and links to files that are not help pages keep their text only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings

DOCS = Path(settings.BASE_DIR) / "docs"

#: slug -> (file in docs/, what it is for, one line for the index).
PAGES: dict[str, tuple[str, str]] = {
    "documents": ("documents.md", "Importing a registration from a document, and downloading one"),
    "proposal-format": ("proposal-format.md", "The proposal interchange format (JSON) of the commands"),
    "api": ("api.md", "The JSON API: URN lookup, validation, the registry, proposals"),
    "registry-exports": ("registry-exports.md", "The registry as JSON, CSV and XML, and its Atom feed"),
    "resolution": ("resolution.md", "Resolvers: from a URN to where it lives, declared in section 3.2"),
    "stewardship": ("stewardship.md", "After approval: stewards, change requests, deprecation, sign-in"),
    "transparency": ("transparency.md", "The transparency log, and how anyone verifies the registry"),
    "findings": ("findings.md", "Reading the automated review: statuses, “not run”, judgements, places"),
}

_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)")


@dataclass(frozen=True)
class HelpSection:
    heading: str  # as written, `code` marks included
    anchor: str
    markdown: str

    @property
    def pieces(self) -> list[tuple[str, bool]]:
        """The heading as (text, is code) pieces, for the page to mark up (``code`` as in the document)."""
        return [(text, n % 2 == 1) for n, text in enumerate(self.heading.split("`")) if text]


@dataclass(frozen=True)
class HelpPage:
    slug: str
    title: str
    summary: str
    #: The text before the first section, then the sections (``##`` headings) in order.
    intro: str
    sections: tuple[HelpSection, ...]

    @property
    def texts(self) -> list[str]:
        """Every Markdown text of the page (to format them in one job)."""
        return [self.intro, *(section.markdown for section in self.sections)]


def heading_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _link(match: re.Match) -> str:
    text, target = match.group(1), match.group(2)
    if re.match(r"^(https?:|mailto:|#|/)", target):
        return match.group(0)
    path, _, anchor = target.partition("#")
    name = Path(path).name
    for slug, (filename, _summary) in PAGES.items():
        if name == filename:
            return f"[{text}](/help/{slug}/{'#' + anchor if anchor else ''})"
    return text  # a file of the source: people on the site cannot open it


def _prepared(text: str) -> tuple[str, str, list[HelpSection]]:
    """(title, intro, sections) of a document, its links made fit for a page of the site."""
    title, fenced = "", False
    parts: list[tuple[str, list[str]]] = [("", [])]  # (heading, lines); the first is the intro
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,2} ", line):
            heading = line.lstrip("#").strip()
            if not title and line.startswith("# "):
                title = heading.replace("`", "")  # a page title is plain text
            else:
                parts.append((heading, []))
            continue
        parts[-1][1].append(line)
    intro = _LINK.sub(_link, "\n".join(parts[0][1]).strip("\n"))
    sections = [
        HelpSection(heading, heading_anchor(heading.replace("`", "")), _LINK.sub(_link, "\n".join(lines).strip("\n")))
        for heading, lines in parts[1:]
    ]
    return title, intro, sections


@cache
def page(slug: str) -> HelpPage | None:
    """The help page ``slug``, or None when there is no such page (read once per process)."""
    if slug not in PAGES:
        return None
    filename, summary = PAGES[slug]
    title, intro, sections = _prepared((DOCS / filename).read_text(encoding="utf-8"))
    return HelpPage(slug, title or summary, summary, intro, tuple(sections))


def pages() -> list[HelpPage]:
    return [page(slug) for slug in PAGES]
