"""The single Markdown helper: rendered once within the budget, then sanitised."""

import time

import pytest
from django.core.cache import cache

from registry import markdown, sandbox
from registry.markdown import prerender, render_markdown


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    markdown.local_clear()
    yield
    cache.clear()
    markdown.local_clear()


XSS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    '<div style="background:url(javascript:alert(1))">x</div>',
    "<iframe src=//evil></iframe>",
    '<svg onload="alert(1)"></svg>',
    "<p onclick=alert(1)>x</p>",
]


@pytest.mark.parametrize("payload", XSS)
def test_markdown_strips_scripts_handlers_and_javascript_links(payload):
    html = str(render_markdown(payload))
    for bad in ("<script", "onerror", "onload", "onclick", "javascript:", "<iframe", "style=", "<svg", "<img"):
        assert bad not in html.lower()


def test_markdown_keeps_formatting_and_safe_links():
    html = str(render_markdown("**MUST** use `xn--` [RFC](https://www.rfc-editor.org/rfc/rfc5890)\n\n- a\n- b"))
    assert "<strong>MUST</strong>" in html and "<code>xn--</code>" in html
    assert '<a href="https://www.rfc-editor.org/rfc/rfc5890" rel="nofollow noopener">RFC</a>' in html
    assert "<li>a</li>" in html


def test_very_long_text_is_shown_escaped_instead_of_rendered():
    text = "# heading <script>x</script>\n" * 30000
    started = time.thread_time()  # the work, which a busy machine does not stretch
    html = str(render_markdown(text))
    assert time.thread_time() - started < 1
    assert html.startswith(
        '<div class="markdown-unrendered"><p class="notice">This text is 870,000 '
        "characters long; the registry formats sections of at most 100,000."
    )
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize(
    "text", ["[" * 10_000, "[a](" * 5_000, "[" * 100_000], ids=["10k-brackets", "5k-open-links", "100k-brackets"]
)
def test_pathological_markdown_is_cut_short_by_the_time_limit_and_says_so(text):
    # The limit is CPU time (work, not the machine's load): this thread's and the bounded jobs'.
    started, cpu, jobs = time.perf_counter(), time.thread_time(), sandbox.jobs_cpu_seconds()
    html = str(render_markdown(text))
    work = time.thread_time() - cpu + sandbox.jobs_cpu_seconds() - jobs
    assert work < 2, f"used {work:.2f} s of CPU time"
    assert time.perf_counter() - started < 300  # a hang, not a budget (that is the CPU time above)
    assert html.startswith(
        '<div class="markdown-unrendered"><p class="notice">This text could not be '
        "formatted within the registry&#x27;s limits (0.5 s of CPU time per section, "
        "2 s of CPU time / 512 MB per job). It is shown as written.</p>"
    )


def test_markdown_is_rendered_once_then_looked_up(monkeypatch):
    prerender(["*one*", "*two*"])

    def no_rendering(*args, **kwargs):
        raise AssertionError("rendered again")

    monkeypatch.setattr(sandbox, "run_bounded", no_rendering)
    assert str(render_markdown("*one*")) == "<p><em>one</em></p>"
    assert str(render_markdown("*two*")) == "<p><em>two</em></p>"


def test_markdown_once_looked_up_is_kept_in_the_process(monkeypatch):
    prerender(["*one*"])
    markdown.local_clear()
    assert str(render_markdown("*one*")) == "<p><em>one</em></p>"  # from the shared cache

    def no_shared_cache(*args, **kwargs):
        raise AssertionError("asked the shared cache again")

    monkeypatch.setattr(cache, "get", no_shared_cache)
    monkeypatch.setattr(cache, "get_many", no_shared_cache)
    assert str(render_markdown("*one*")) == "<p><em>one</em></p>"
    assert prerender(["*one*"]) == {"*one*": "<p><em>one</em></p>"}


def test_markdown_process_table_is_bounded_in_characters(monkeypatch):
    monkeypatch.setattr(markdown, "_local", markdown._LocalHtml(max_chars=40))
    prerender(["*aaaa*", "*bbbb*", "*cccc*"])  # 20 characters of HTML each
    kept = [markdown._local.get(markdown._key(t)) for t in ("*aaaa*", "*bbbb*", "*cccc*")]
    assert kept == [None, "<p><em>bbbb</em></p>", "<p><em>cccc</em></p>"]


def test_markdown_shown_unformatted_is_not_kept_in_the_process(settings):
    settings.REGISTRY_JOB_SECONDS = 0.3
    text = "[" * 6_000 + " a"
    assert "within the registry&#x27;s limits" in prerender([text])[text]
    assert markdown._local.get(markdown._key(text)) is None


def test_a_job_over_budget_leaves_every_section_escaped_with_the_limit(settings):
    settings.REGISTRY_JOB_SECONDS = 0.3
    texts = ["[" * 3_000 + " a", "[" * 3_000 + " b"]  # together more than 0.3 s
    result = prerender(texts)
    assert all(
        "within the registry&#x27;s limits" in result[t] and "0.3 s of CPU time / 512 MB" in result[t] for t in texts
    )
    assert result[texts[0]].count("[") == 3_000


def test_text_past_the_per_proposal_limit_is_not_formatted(monkeypatch):
    from registry import markdown

    monkeypatch.setattr(markdown, "MARKDOWN_PROPOSAL_MAX_CHARS", 1_000)
    sections = ["x" * 298 + f" {i}" for i in range(5)]  # 300 characters each
    result = prerender(sections)
    assert [result[t].startswith("<p>") for t in sections] == [True, True, True, False, False]
    assert "more than 1,000 characters long in all; the registry formats that much at most" in result[sections[-1]]


def test_abnf_in_prose_renders_as_code_not_emphasis():
    html = str(render_markdown("SITE = 1*31ALPHA and SERIAL = 1*10DIGIT"))
    assert "<em>" not in html
    assert "<code>SITE = 1*31ALPHA</code>" in html and "<code>SERIAL = 1*10DIGIT</code>" in html


def test_urns_in_prose_render_as_code_and_emphasis_still_works():
    html = str(render_markdown("See urn:ogf:example:a_b_c:1. This is *important*."))
    assert "<code>urn:ogf:example:a_b_c:1</code>." in html and "<em>important</em>" in html


def test_code_spans_and_fences_are_left_as_written():
    html = str(render_markdown("Keep `1*2DIGIT` here.\n\n```\nA = 1*2B\n```\n"))
    assert html.count("<code>") == 2 and "``" not in html
