"""The help pages: the user-facing documents of docs/ shown in the app at ``/help/<page>/``.

People using the site have no checkout, so a page that refers to documentation
links here. The text is the Markdown of docs/ as it ships, rendered by the one
renderer (registry.markdown: sanitised, and bounded like every Markdown text —
its sizes and its time budget), cached by the text's hash like every other
text. Only the documents named in ``PAGES`` are shown; operators' documents
(deployment, operations, security, performance) stay in the source.

Before rendering, the first heading becomes the page's title, the others move
one level down (the page's own ``h1`` is the title; the renderer allows
``h3``–``h6``), links between help pages point at their pages, and links to
files that are not help pages keep their text only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
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
}

_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)")


@dataclass(frozen=True)
class HelpPage:
    slug: str
    title: str
    summary: str
    markdown: str


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


def _prepared(text: str) -> tuple[str, str]:
    """(title, body) of a document, its headings and links made fit for a page of the site."""
    title, lines, fenced = "", [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            if not title and line.startswith("# "):
                title = line[2:].strip().replace("`", "")  # a page title is plain text
                continue
            line = "#" + line if line.startswith("##") else "##" + line
        lines.append(line)
    body = "\n".join(lines)
    return title, _LINK.sub(_link, body)


@lru_cache(maxsize=None)
def page(slug: str) -> HelpPage | None:
    """The help page ``slug``, or None when there is no such page (read once per process)."""
    if slug not in PAGES:
        return None
    filename, summary = PAGES[slug]
    title, body = _prepared((DOCS / filename).read_text(encoding="utf-8"))
    return HelpPage(slug, title or summary, summary, body)


def pages() -> list[HelpPage]:
    return [page(slug) for slug in PAGES]
