"""The one place user-derived text becomes markup: Markdown and railroad-diagram SVG.

Text is stored raw and rendered here with Python-Markdown, then sanitised with
nh3 against an allow-list: no scripts, no event handlers, no style, and links
only to http(s) and mailto. Rendering runs once per distinct text, when it is
saved (``prerender``), inside the hard budget of registry.sandbox; pages look
the HTML up by a hash of the text. Diagrams (drawn from a grammar, so they carry its
rule names and strings) pass through the same sanitiser with an SVG allow-list.
``mark_safe`` appears nowhere else in the project.
"""

from __future__ import annotations

import hashlib
import signal
import threading

import markdown as _markdown
import nh3
import re2
from cachetools import LRUCache
from django.core.cache import cache
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from . import sandbox

ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "h3",
    "h4",
    "h5",
    "h6",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "del",
    "sup",
    "sub",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = {"http", "https", "mailto"}

#: Limits on rendering applicant Markdown (docs/security.md, "Limits"). Longer text
#: is shown as written (escaped) with a notice. Python-Markdown's time grows with
#: the square of some inputs (30,000 headings, 10,000 "["), so besides sizes each
#: section has its own share of the job's time, and the whole job the budget of
#: registry.sandbox.
MARKDOWN_SECTION_MAX_CHARS = 100_000
MARKDOWN_SECTION_MAX_LINES = 2_000
MARKDOWN_SECTION_SECONDS = 0.5
MARKDOWN_PROPOSAL_MAX_CHARS = 400_000
MAX_MARKDOWN_LINES = MARKDOWN_SECTION_MAX_LINES
#: Rendered HTML is kept by a hash of the text for RENDERED_SECONDS (every cache entry
#: expires): a page view looks it up; only text not seen lately is rendered, within the budget.
_CACHE_PREFIX = "markdown:v2:"  # v2: ABNF and URNs in prose kept as code
RENDERED_SECONDS = 7 * 24 * 3600
UNRENDERED_RETRY_SECONDS = 3600
_UNRENDERED = '<div class="markdown-unrendered">'


#: A process keeps the HTML it looked up most recently in its own memory as well, up to
#: this many characters: with a shared cache over the network (Redis) a page would
#: otherwise pay one round trip per text. Keys are content hashes, so nothing here
#: ever needs invalidating; text shown unformatted (it ran out of budget and is
#: tried again later) is never kept.
LOCAL_MAX_CHARS = 8_000_000


class _LocalHtml:
    """What this process keeps: a thread-safe least-recently-used table bounded in characters."""

    def __init__(self, max_chars: int):
        self._items = LRUCache(maxsize=max_chars, getsizeof=len)
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, html: str) -> None:
        if len(html) > self._items.maxsize or html.startswith(_UNRENDERED):
            return
        with self._lock:
            self._items[key] = html

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_local = _LocalHtml(LOCAL_MAX_CHARS)


class _OutOfTime(Exception):
    pass


#: ABNF in prose: a repetition (``1*31ALPHA``, ``*31(``, ``4DIGIT`` after ``=``) with the rule it
#: defines, if written (``SITE = 1*31ALPHA``); and URNs. Markdown would read the ``*`` of
#: ``1*31ALPHA and SERIAL = 1*10DIGIT`` as emphasis; these become code spans instead.
_GRAMMAR_IN_PROSE = re2.compile(
    r"(?:\b[A-Za-z][A-Za-z0-9-]*\s*=/?\s*)?"
    r"(?:[0-9]+\*[0-9]*|[0-9]*\*[0-9]+)[A-Za-z0-9(\"%<\[][^\s`]*"
    r"|(?i:\burn:[a-z0-9][a-z0-9-]{0,31}:[^\s`<>()\[\]]*[^\s`<>()\[\].,;:!?'\"])"
)
_CODE_SPAN = re2.compile(r"(`+)[^`]*?`+")
_FENCE = re2.compile(r"^ {0,3}(```|~~~)")


def code_for_grammar(text: str) -> str:
    """``text`` with ABNF repetitions and URNs outside code written as code spans, so that
    Markdown never turns the ``*`` of a grammar into emphasis (fenced and indented code,
    and existing code spans, are left as they are)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if _FENCE.search(line):
            fenced = not fenced
        elif not fenced and not line.startswith(("    ", "\t")) and ("*" in line or "urn:" in line.lower()):
            line = _outside_code(line)
        out.append(line)
    return "\n".join(out)


def _outside_code(line: str) -> str:
    pieces, start = [], 0
    for span in _CODE_SPAN.finditer(line):
        pieces.append(_GRAMMAR_IN_PROSE.sub(lambda m: f"`{m.group(0)}`", line[start : span.start()]))
        pieces.append(span.group(0))
        start = span.end()
    pieces.append(_GRAMMAR_IN_PROSE.sub(lambda m: f"`{m.group(0)}`", line[start:]))
    return "".join(pieces)


def _render_html(text: str) -> str:
    text = code_for_grammar(text)
    html = _markdown.markdown(text, extensions=["tables", "fenced_code", "sane_lists"], output_format="html")
    return nh3.clean(
        html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel="nofollow noopener"
    )


def _expire(signum, frame):
    raise _OutOfTime


def render_many(texts: tuple[str, ...]) -> list[str | None]:
    """Sanitised HTML of each text, or None where it could not be rendered in its share.

    Runs in a bounded worker: there an interval timer stops a section that takes
    more than MARKDOWN_SECTION_SECONDS, so one pathological section does not cost
    the others their rendering.
    """
    timed = sandbox.in_worker() and threading.current_thread() is threading.main_thread()
    out: list[str | None] = []
    for text in texts:
        try:
            if timed:
                signal.signal(signal.SIGVTALRM, _expire)
                signal.setitimer(signal.ITIMER_VIRTUAL, MARKDOWN_SECTION_SECONDS)
            out.append(_render_html(text))
        except (_OutOfTime, MemoryError, RecursionError):
            out.append(None)
        finally:
            if timed:
                signal.setitimer(signal.ITIMER_VIRTUAL, 0)
                signal.signal(signal.SIGVTALRM, signal.SIG_IGN)  # a late alarm must not escape
    return out


def _key(text: str) -> str:
    return _CACHE_PREFIX + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _unrendered(text: str, reason: str) -> str:
    # Safe: the whole text is HTML-escaped, the reason is ours.
    return (
        f'<div class="markdown-unrendered"><p class="notice">{escape(reason)} It is shown '
        f'as written.</p><pre class="too-long">{escape(text)}</pre></div>'
    )


def _too_large(text: str) -> str | None:
    if len(text) > MARKDOWN_SECTION_MAX_CHARS:
        return (
            f"This text is {len(text):,} characters long; the registry formats sections of "
            f"at most {MARKDOWN_SECTION_MAX_CHARS:,}."
        )
    if text.count("\n") > MARKDOWN_SECTION_MAX_LINES:
        return (
            f"This text has more than {MARKDOWN_SECTION_MAX_LINES:,} lines; the registry "
            f"formats sections of at most {MARKDOWN_SECTION_MAX_LINES:,}."
        )
    return None


def prerender(texts) -> dict[str, str]:
    """Render every text not rendered before, in one bounded job; {text: html}.

    Called when a proposal is saved, so that its pages only ever look the HTML
    up. Texts past MARKDOWN_PROPOSAL_MAX_CHARS in total are not formatted.
    """
    texts = [text for text in dict.fromkeys(texts) if text]
    keys = {text: _key(text) for text in texts}
    found = {key: html for key in keys.values() if (html := _local.get(key)) is not None}
    if len(found) < len(keys):
        found |= cache.get_many([key for key in keys.values() if key not in found])
    result = {text: found[keys[text]] for text in texts if keys[text] in found}
    missing, total = [], 0
    for text in texts:
        total += len(text)
        if text in result:
            continue
        reason = _too_large(text)
        if reason is None and total > MARKDOWN_PROPOSAL_MAX_CHARS:
            reason = (
                f"The proposal's text is more than {MARKDOWN_PROPOSAL_MAX_CHARS:,} characters "
                "long in all; the registry formats that much at most."
            )
        if reason is not None:
            result[text] = _unrendered(text, reason)
        else:
            missing.append(text)
    faulted: set[str] = set()
    if missing:
        try:
            rendered = sandbox.run_bounded(render_many, tuple(missing), what="text")
        except sandbox.BudgetExceeded as exc:
            rendered = [None] * len(missing)
            seconds, memory_mb = exc.seconds, exc.memory_mb
            if exc.fault:  # the formatter stopped: nothing is known about the text, keep nothing
                faulted = set(missing)
                fault = f"This text could not be formatted (the formatter stopped: {exc.reason})."
        else:
            seconds, memory_mb = sandbox.budget()
        for text, html in zip(missing, rendered, strict=True):
            result[text] = (
                html
                if html is not None
                else _unrendered(
                    text,
                    fault
                    if text in faulted
                    else f"This text could not be formatted within the registry's limits "
                    f"({MARKDOWN_SECTION_SECONDS:g} s of CPU time per section, {seconds:g} s of CPU "
                    f"time / {memory_mb} MB per job).",
                )
            )
    for text in texts:
        _local.put(keys[text], result[text])
    new = [text for text in texts if keys[text] not in found and text not in faulted]
    cache.set_many({keys[t]: result[t] for t in new if not result[t].startswith(_UNRENDERED)}, timeout=RENDERED_SECONDS)
    # A text that ran out of budget is tried again later (the machine may just have been busy).
    cache.set_many(
        {keys[t]: result[t] for t in new if result[t].startswith(_UNRENDERED)}, timeout=UNRENDERED_RETRY_SECONDS
    )
    return result


def prerender_page(texts) -> None:
    """Format every text a page shows in one bounded job, before its template asks for each.

    Each text the template found unformatted would otherwise cost a job of its own (after a
    restart or an approval, when the shared cache is new); texts already formatted cost one
    cache lookup for all. Past MARKDOWN_PROPOSAL_MAX_CHARS in all, the texts are left to
    ``render_markdown`` one by one (each within its own job), so a page reads the same either way.
    """
    texts = [text for text in texts if text]
    if sum(map(len, texts)) <= MARKDOWN_PROPOSAL_MAX_CHARS:
        prerender(texts)


def local_clear() -> None:
    """Forget this process's table (benchmarks measure a cold start with it)."""
    _local.clear()


def render_markdown(text: str) -> SafeString:
    text = text or ""
    if not text:
        return mark_safe("")  # noqa: S308
    key = _key(text)
    html = _local.get(key)
    if html is None:
        html = cache.get(key)
        if html is None:
            html = prerender([text])[text]
        else:
            _local.put(key, html)
    # Safe: ``html`` is nh3's output against the allow-list above, or fully escaped text.
    return mark_safe(html)  # noqa: S308


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
    clean = nh3.clean(svg, tags=SVG_TAGS, attributes=SVG_ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel=None)
    # Safe: ``clean`` is nh3's output against the SVG allow-list above.
    return mark_safe(clean)  # noqa: S308
