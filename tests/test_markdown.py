"""The single Markdown helper: rendered, then sanitised against an allow-list."""

import pytest

from registry.markdown import render_markdown

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
    import time
    text = "# heading <script>x</script>\n" * 30000
    started = time.perf_counter()
    html = str(render_markdown(text))
    assert time.perf_counter() - started < 1
    assert html.startswith('<pre class="too-long">') and "<script>" not in html and "&lt;script&gt;" in html
