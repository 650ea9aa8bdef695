"""Visual regression: the public pages at 1280 and 375 px against committed baselines.

The pages draw their text with the fonts the site serves (static/registry/fonts.css),
so a machine with other system fonts draws the same glyphs; tests/browser/visual.py
compares what a person would notice — the layout (boxes, wrapping, overflow,
colours) and the picture averaged over blocks, so that anti-aliasing and hinting
do not count — and names the files that show a difference. The data is fixed
(the demo registry) and everything that changes from run to run is made constant
before the shot: dates become 2000-01-01, carets and animations are off.

After an intended change of the pages, redraw every baseline with one command and
look at the PNGs before committing them::

    REGISTRY_UPDATE_BASELINES=1 pytest tests/browser/test_visual.py

Pictures of a failing run go to ``REGISTRY_VISUAL_OUT`` (by default the test's
temporary directory); the failure message names them.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from registry import demo

from ..conftest import require_external
from . import visual
from .conftest import CHROMIUM, FLAGS

UPDATE = os.environ.get("REGISTRY_UPDATE_BASELINES") == "1"
WIDTHS = {"desktop": 1280, "phone": 375}
PAGES = {
    "registry": "/urn/",
    "snid-card": "/urn/example/",
    "snid-override-note": "/urn/fdc/",
    "search-results": "/urn/search/?q=grid",
    "lookup": "/urn/search/?urn=urn:ogf:example:cluster:2009:example.net:42",
    "signup": "/accounts/signup/",
}

#: Screenshots shown in the README (viewport only), written when REGISTRY_SCREENSHOTS=DIR is set.
README_SHOTS = {
    ("snid-card", "desktop"): "snid-card",
    ("search-results", "desktop"): "search-results",
    ("snid-override-note", "phone"): "narrow-card",
    ("registry", "phone"): "narrow-list",
}

#: Make volatile text constant: every ISO date, and the year in the demo data's version dates.
STEADY = """
() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) node.nodeValue = node.nodeValue.replace(/\\d{4}-\\d{2}-\\d{2}/g, "2000-01-01");
  for (const input of document.querySelectorAll("input")) input.blur();
  const style = document.createElement("style");
  style.textContent = "*,*::before,*::after{transition:none!important;animation:none!important;"
    + "caret-color:transparent!important}";
  document.head.appendChild(style);
}
"""

#: Deliberate regressions, each as a person would see it: (page, width, what is done to the page).
REGRESSIONS = {
    "wrapped-heading": ("snid-card", "desktop", "add_style", "h1 { max-width: 9em; }"),
    "table-overflowing-a-phone": (
        "registry",
        "phone",
        "add_style",
        "table.list, table.list tr { display: table-row !important; } "
        "table.list { display: table !important; } "
        "table.list td, table.list th { display: table-cell !important; "
        "white-space: nowrap; }"
        "table.list td[data-label]::before { content: none !important; }",
    ),
    "stylesheet-missing": (
        "lookup",
        "desktop",
        "script",
        "document.querySelector('link[rel=stylesheet][href*=\"site\"]').remove()",
    ),
}


def _pillow():
    try:
        import PIL  # noqa: F401
    except ImportError:
        PIL = None
    require_external(
        "Pillow", PIL is not None, "pip install -r requirements-test.txt (Pillow compares the screenshots)"
    )


def _out(tmp_path: Path) -> Path:
    return Path(os.environ.get("REGISTRY_VISUAL_OUT") or tmp_path)


def _context(browser, live_server, device):
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": WIDTHS[device], "height": 900},
        device_scale_factor=1,
        reduced_motion="reduce",
        locale="en-GB",
        timezone_id="UTC",
        bypass_csp=True,
    )  # the style STEADY and the regressions add are inline
    context.set_default_timeout(15_000)
    return context


def _load(page, path: str) -> None:
    page.goto(path)
    page.wait_for_load_state("networkidle")
    page.evaluate(STEADY)
    page.evaluate("document.fonts.ready.then(() => document.fonts.size)")


def _shoot(page) -> tuple[bytes, dict]:
    """The picture (from the top down to MAX_HEIGHT) and the layout of the page as it stands."""
    page.evaluate("window.scrollTo(0, 0)")
    page.evaluate("document.fonts.ready.then(() => document.fonts.size)")
    height = min(page.evaluate("document.documentElement.scrollHeight"), visual.MAX_HEIGHT)
    shape = visual.layout(page)
    shot = page.screenshot(
        clip={"x": 0, "y": 0, "width": page.viewport_size["width"], "height": height},
        full_page=True,
        animations="disabled",
        caret="hide",
    )
    return shot, shape


@pytest.fixture
def demo_site(transactional_db):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("device", list(WIDTHS))
def test_public_pages_match_their_baselines(chromium, live_server, demo_site, device, tmp_path):
    _pillow()
    context = _context(chromium, live_server, device)
    page = context.new_page()
    failures = []
    try:
        for name, path in PAGES.items():
            _load(page, path)
            shot, shape = _shoot(page)
            readme_name = README_SHOTS.get((name, device))
            if readme_name and os.environ.get("REGISTRY_SCREENSHOTS"):
                target = Path(os.environ["REGISTRY_SCREENSHOTS"])
                target.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(target / f"{readme_name}.png"))
            if UPDATE:
                visual.redraw(f"{name}-{device}", shot, shape)
                continue
            verdict = visual.compare(f"{name}-{device}", shot, shape, _out(tmp_path))
            if not verdict:
                failures.append(f"{path} at {WIDTHS[device]} px — " + verdict.message())
    finally:
        context.close()
    assert not failures, "\n\n".join(failures)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("regression", list(REGRESSIONS))
def test_a_deliberate_regression_fails_the_comparison(chromium, live_server, demo_site, regression, tmp_path):
    """The page as it is matches its baseline; the same page with the regression does not, and says why."""
    _pillow()
    if UPDATE:
        pytest.skip("the baselines are being redrawn")
    name, device, how, change = REGRESSIONS[regression]
    context = _context(chromium, live_server, device)
    page = context.new_page()
    try:
        _load(page, PAGES[name])
        untouched = visual.compare(f"{name}-{device}", *_shoot(page), tmp_path / "untouched")
        if how == "add_style":
            page.add_style_tag(content=change)
        else:
            page.evaluate(change)
        broken = visual.compare(f"{name}-{device}", *_shoot(page), tmp_path / "broken")
    finally:
        context.close()
    assert untouched, untouched.message()
    assert not broken
    said = "\n".join(broken.differences)
    expected = {
        "wrapped-heading": r"\n +h1 “[^\n]*”: \d+ line\(s\), the baseline \d+\n",
        "table-overflowing-a-phone": r"the page is wider than the viewport: \d+ px at 375 px",
        "stylesheet-missing": r"colours changed",
    }[regression]
    assert re.search(expected, said) and "blocks changed colour" in said, said
    assert all(f.exists() for f in broken.files) and len(broken.files) == 4


@pytest.mark.django_db(transaction=True)
def test_glyphs_drawn_otherwise_pass_the_comparison(chromium, live_server, demo_site, tmp_path):
    """Another machine's rasteriser draws the same glyphs with other edges. Chromium placing glyphs on whole
    pixels instead of fractions of one (--disable-font-subpixel-positioning) does that to every glyph: 1-5 %
    of the pixels change by more than a fifth of their range, though no one would see a difference. The
    pages still match their baselines."""
    _pillow()
    if UPDATE:
        pytest.skip("the baselines are being redrawn")
    browser = chromium.browser_type.launch(
        executable_path=CHROMIUM, headless=True, args=FLAGS + ["--disable-font-subpixel-positioning"]
    )
    failures = []
    try:
        for device in WIDTHS:
            context = _context(browser, live_server, device)
            page = context.new_page()
            for name, path in PAGES.items():
                _load(page, path)
                verdict = visual.compare(f"{name}-{device}", *_shoot(page), _out(tmp_path))
                if not verdict:
                    failures.append(verdict.message())
            context.close()
    finally:
        browser.close()
    assert not failures, "\n\n".join(failures)


# --- the comparison itself, on pictures and layouts made here ------------------------------------


def _text_picture(shift: int = 0, colour=(11, 92, 173), top: int = 40):
    """A white page with a coloured panel and rows of glyph-like marks (shifted right by ``shift`` px)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (320, 240), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((16, top, 300, top + 60), fill=colour)
    for row in range(6):
        for column in range(40):
            x = 16 + column * 7 + shift
            draw.line((x, 130 + row * 16, x + (column % 3), 140 + row * 16), fill=(29, 36, 48), width=1)
    return image


def _png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_picture_difference_ignores_glyph_edges_and_sees_moved_or_recoloured_areas():
    _pillow()
    from PIL import ImageChops

    baseline = _text_picture()
    edges = _text_picture(shift=1)  # every glyph one pixel over: anti-aliasing and hinting do no more
    raw = ImageChops.difference(edges.convert("L"), baseline.convert("L")).point(lambda v: 255 if v > 48 else 0)
    assert raw.histogram()[-1] / (320 * 240) > 0.02  # a plain pixel comparison sees many changed pixels
    assert visual.picture_difference(edges, baseline) == (0.0, [])
    moved_fraction, moved_regions = visual.picture_difference(_text_picture(top=90), baseline)
    assert moved_fraction > visual.PICTURE_TOLERANCE and moved_regions
    recoloured_fraction, _ = visual.picture_difference(_text_picture(colour=(180, 35, 24)), baseline)
    assert recoloured_fraction > visual.PICTURE_TOLERANCE


def test_picture_difference_sees_one_small_area_changed_on_a_long_page():
    _pillow()
    from PIL import Image, ImageDraw

    baseline = Image.new("RGB", (1280, 2400), "white")
    button = baseline.copy()
    ImageDraw.Draw(button).rectangle((600, 1000, 700, 1064), fill=(11, 92, 173))  # 0.2 % of the page
    fraction, regions = visual.picture_difference(button, baseline)
    assert fraction < visual.PICTURE_TOLERANCE and regions == [(640, 1024)]


def _element(
    key="p",
    text="Some text",
    box=(16, 100, 300, 24),
    lines=1,
    overflows=False,
    color="rgb(29, 36, 48)",
    background=None,
):
    return {
        "key": key,
        "text": text,
        "box": list(box),
        "lines": lines,
        "overflows": overflows,
        "color": color,
        "background": background,
    }


def _page(*elements, width=375, scroll_width=375, height=900):
    return {"width": width, "scroll_width": scroll_width, "height": height, "elements": list(elements)}


def test_layout_differences_name_what_a_reader_would_notice():
    heading, cell = _element("h1", "A heading", (16, 40, 343, 31)), _element("td", "A cell", (16, 100, 343, 24))
    baseline = _page(heading, cell)
    assert visual.layout_differences(baseline, baseline) == []
    nudged = _page(_element("h1", "A heading", (17, 42, 341, 31)), cell)  # within BOX_TOLERANCE
    assert visual.layout_differences(nudged, baseline) == []

    wrapped = _page(
        _element("h1", "A heading", (16, 40, 343, 62), lines=2), _element("td", "A cell", (16, 131, 343, 24))
    )
    said = "\n".join(visual.layout_differences(wrapped, baseline))
    assert "h1 “A heading”: 2 line(s), the baseline 1" in said and "td “A cell”: x, y, width, height" in said

    overflowing = _page(heading, _element("td", "A cell", (16, 100, 900, 24), overflows=True), scroll_width=916)
    said = "\n".join(visual.layout_differences(overflowing, baseline))
    assert "the page is wider than the viewport: 916 px at 375 px" in said and "its content is wider" in said

    recoloured = _page(heading, _element("td", "A cell", (16, 100, 343, 24), background="rgb(255, 0, 0)"))
    assert "on rgb(255, 0, 0), the baseline rgb(29, 36, 48) on transparent" in "\n".join(
        visual.layout_differences(recoloured, baseline)
    )

    gone = _page(cell)
    said = "\n".join(visual.layout_differences(gone, baseline))
    assert "elements missing:\n    h1 “A heading”" in said


def test_comparison_without_a_baseline_fails_and_says_how_to_draw_it(tmp_path, monkeypatch):
    _pillow()
    monkeypatch.setattr(visual, "BASELINES", tmp_path / "baselines")
    verdict = visual.compare("nowhere-phone", _png(_text_picture()), _page(), tmp_path / "out")
    assert not verdict
    assert "REGISTRY_UPDATE_BASELINES=1 pytest tests/browser/test_visual.py" in verdict.message()
    assert verdict.files == [tmp_path / "out" / "nowhere-phone.actual.png"] and verdict.files[0].exists()


def test_a_failing_comparison_writes_actual_baseline_and_difference(tmp_path, monkeypatch):
    _pillow()
    monkeypatch.setattr(visual, "BASELINES", tmp_path / "baselines")
    visual.redraw("page-desktop", _png(_text_picture()), _page(_element()))
    assert visual.compare("page-desktop", _png(_text_picture(shift=1)), _page(_element()), tmp_path / "same")
    verdict = visual.compare("page-desktop", _png(_text_picture(top=90)), _page(_element()), tmp_path / "out")
    names = [f.name for f in verdict.files]
    assert names == [
        "page-desktop.actual.png",
        "page-desktop.baseline.png",
        "page-desktop.difference.png",
        "page-desktop.baseline-actual-difference.png",
    ]
    message = verdict.message()
    assert all(str(f) in message for f in verdict.files) and "blocks changed colour" in message
    from PIL import Image

    difference = Image.open(verdict.files[2]).convert("RGB")
    red, green, blue = difference.getpixel((100, 56))  # the panel's old place: changed, painted red
    assert red > 200 and green < 120 and blue < 120
    assert len(set(difference.getpixel((310, 232)))) == 1  # untouched: grey
