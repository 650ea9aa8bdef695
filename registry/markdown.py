"""The one place user-derived text becomes markup: Markdown and railroad-diagram SVG.

Text is stored raw and rendered here with Python-Markdown, then sanitised with
nh3 against an allow-list: no scripts, no event handlers, no style, and links
only to http(s) and mailto. Diagrams (drawn from a grammar, so they carry its
rule names and strings) pass through the same sanitiser with an SVG allow-list.
``mark_safe`` appears nowhere else in the project.
"""

from __future__ import annotations

import markdown as _markdown
import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

ALLOWED_TAGS = {
    "p", "br", "hr", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "del", "sup", "sub",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = {"http", "https", "mailto"}


#: Python-Markdown's time grows with the square of the number of blocks (30,000 headings
#: take twenty seconds); no real section comes near this, so longer text is shown as is.
MAX_MARKDOWN_LINES = 2000


def render_markdown(text: str) -> SafeString:
    text = text or ""
    if text.count("\n") > MAX_MARKDOWN_LINES:
        # Safe: the whole text is HTML-escaped.
        return mark_safe(f'<pre class="too-long">{escape(text)}</pre>')  # noqa: S308
    html = _markdown.markdown(text, extensions=["tables", "fenced_code", "sane_lists"], output_format="html")
    clean = nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES,
                      url_schemes=URL_SCHEMES, link_rel="nofollow noopener")
    # Safe: ``clean`` is nh3's output against the allow-list above.
    return mark_safe(clean)  # noqa: S308


SVG_TAGS = {"svg", "g", "path", "rect", "text", "a", "title"}
SVG_ATTRIBUTES = {
    "svg": {"class", "height", "width", "viewBox", "role", "aria-label"},
    "g": {"class", "transform"},
    "path": {"d", "class"},
    "rect": {"x", "y", "width", "height", "rx", "ry", "class"},
    "text": {"x", "y", "class"},
    "a": {"href"},
}


def render_svg(svg: str) -> SafeString:
    clean = nh3.clean(svg, tags=SVG_TAGS, attributes=SVG_ATTRIBUTES, url_schemes=URL_SCHEMES,
                      link_rel=None)
    # Safe: ``clean`` is nh3's output against the SVG allow-list above.
    return mark_safe(clean)  # noqa: S308
