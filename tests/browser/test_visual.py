"""Visual regression: the public pages at 1280 and 375 px against committed baselines.

A broken layout (a column that overflows, a card that collapses, a header that
wraps badly) changes many pixels; anti-aliasing and font hinting change a few.
So each screenshot is compared with its baseline in greyscale, and the test
fails when more than ``TOLERANCE`` of the pixels differ by more than
``PIXEL_THRESHOLD`` levels, or when the page height changes by more than
``HEIGHT_TOLERANCE`` pixels.

The data is fixed (the demo registry) and everything that changes from run to
run is made constant before the shot: dates become 2000-01-01, carets and
animations are off. Baselines live in tests/browser/baselines/ as small
palette PNGs; after an intended change, regenerate them with
``REGISTRY_UPDATE_BASELINES=1 pytest tests/browser/test_visual.py`` and review
the images before committing. Screenshots of a failing run are written next
to the test's temporary directory (the failure message says where).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from registry import demo

from ..conftest import require_external

BASELINES = Path(__file__).resolve().parent / "baselines"
UPDATE = os.environ.get("REGISTRY_UPDATE_BASELINES") == "1"
TOLERANCE = 0.01  # fraction of pixels that may differ
PIXEL_THRESHOLD = 48  # grey levels (of 255) a pixel must change by to count
HEIGHT_TOLERANCE = 24  # px
MAX_HEIGHT = 2400  # px: long pages are compared from the top down to here
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
README_SHOTS = {("snid-card", "desktop"): "snid-card", ("search-results", "desktop"): "search-results",
                ("snid-override-note", "phone"): "narrow-card", ("registry", "phone"): "narrow-list"}

#: Make volatile text constant: every ISO date, and the year in the demo data's version dates.
STEADY = """
() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) node.nodeValue = node.nodeValue.replace(/\\d{4}-\\d{2}-\\d{2}/g, "2000-01-01");
  for (const input of document.querySelectorAll("input")) input.blur();
  const style = document.createElement("style");
  style.textContent = "*,*::before,*::after{transition:none!important;animation:none!important;caret-color:transparent!important}";
  document.head.appendChild(style);
}
"""


def _image_tools():
    try:
        from PIL import Image, ImageChops
    except ImportError:
        Image = ImageChops = None
    require_external("Pillow", Image is not None, "pip install -r requirements-test.txt (Pillow compares the screenshots)")
    return Image, ImageChops


def _shoot(page, path: str) -> bytes:
    page.goto(path)
    page.wait_for_load_state("networkidle")
    page.evaluate(STEADY)
    height = min(page.evaluate("document.documentElement.scrollHeight"), MAX_HEIGHT)
    width = page.viewport_size["width"]
    return page.screenshot(clip={"x": 0, "y": 0, "width": width, "height": height}, full_page=True,
                           animations="disabled", caret="hide")


def _difference(Image, ImageChops, shot: bytes, baseline: Path) -> tuple[float, int]:
    """(fraction of pixels that changed, height difference in px) against the baseline."""
    new = Image.open(io.BytesIO(shot)).convert("L")
    old = Image.open(baseline).convert("L")
    height_change = abs(new.height - old.height)
    if new.size != old.size:
        height = min(new.height, old.height)
        new, old = new.crop((0, 0, new.width, height)), old.crop((0, 0, old.width, height))
    changed = ImageChops.difference(new, old).point(lambda level: 255 if level > PIXEL_THRESHOLD else 0)
    histogram = changed.histogram()
    return histogram[255] / (new.width * new.height), height_change


def _save_baseline(Image, shot: bytes, target: Path) -> None:
    """A palette PNG: a tenth of the size of the screenshot, and enough to see a layout."""
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    image.quantize(colors=32, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)


@pytest.fixture
def demo_site(transactional_db):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("device", list(WIDTHS))
def test_public_pages_match_their_baselines(chromium, live_server, demo_site, device, tmp_path):
    Image, ImageChops = _image_tools()
    BASELINES.mkdir(exist_ok=True)
    context = chromium.new_context(base_url=live_server.url, viewport={"width": WIDTHS[device], "height": 900},
                                   device_scale_factor=1, reduced_motion="reduce", locale="en-GB",
                                   timezone_id="UTC")
    context.set_default_timeout(15_000)
    page = context.new_page()
    failures = []
    try:
        for name, path in PAGES.items():
            shot = _shoot(page, path)
            readme_name = README_SHOTS.get((name, device))
            if readme_name and os.environ.get("REGISTRY_SCREENSHOTS"):
                target = Path(os.environ["REGISTRY_SCREENSHOTS"])
                target.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(target / f"{readme_name}.png"))
            baseline = BASELINES / f"{name}-{device}.png"
            if UPDATE or not baseline.exists():
                _save_baseline(Image, shot, baseline)
                if not UPDATE:
                    failures.append(f"{baseline.name}: no baseline yet; one was written, review and commit it")
                continue
            changed, height_change = _difference(Image, ImageChops, shot, baseline)
            if changed > TOLERANCE or height_change > HEIGHT_TOLERANCE:
                (tmp_path / baseline.name).write_bytes(shot)
                failures.append(f"{path} at {WIDTHS[device]} px: {changed:.2%} of pixels changed, height "
                                f"{height_change} px off (screenshot: {tmp_path / baseline.name})")
    finally:
        context.close()
    assert failures == []


def test_difference_catches_a_broken_layout_and_tolerates_noise(tmp_path):
    """The comparison itself: a shifted block fails, a few flipped pixels pass."""
    Image, ImageChops = _image_tools()
    base = Image.new("RGB", (200, 100), "white")
    for x in range(20, 180):
        for y in range(20, 40):
            base.putpixel((x, y), (11, 92, 173))
    baseline = tmp_path / "base.png"
    _save_baseline(Image, _png(base), baseline)

    noisy = base.copy()
    for x in range(0, 200, 25):
        noisy.putpixel((x, 90), (0, 0, 0))
    shifted = Image.new("RGB", (200, 100), "white")
    shifted.paste(base.crop((0, 0, 200, 60)), (0, 30))

    assert _difference(Image, ImageChops, _png(noisy), baseline)[0] <= TOLERANCE
    assert _difference(Image, ImageChops, _png(shifted), baseline)[0] > TOLERANCE
    taller = Image.new("RGB", (200, 140), "white")
    taller.paste(base, (0, 0))
    assert _difference(Image, ImageChops, _png(taller), baseline)[1] > HEIGHT_TOLERANCE


def _png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
