"""Visual comparison that judges what a person would notice, not what the font rasteriser did.

Two views of a page are kept as its baseline (tests/browser/baselines/):

- its **layout** (``<name>.json``): the boxes of the elements a reader sees as
  things — headings, paragraphs, list items, table cells, code, forms, images —
  each with how many lines its text wraps onto, whether its content overflows
  it, and its text and background colours; and the page's own width and height.
  A heading that wraps, a table that runs out of a phone's screen, a block that
  moves or a colour that changes shows here by name.
- its **picture** (``<name>.png``), compared after anti-aliasing is taken out:
  both images are averaged over blocks of ``BLOCK`` × ``BLOCK`` px, and a block
  counts as changed only when its average colour moved by more than
  ``BLOCK_THRESHOLD`` levels. Hinting and anti-aliasing move the edges of
  glyphs by a pixel, which changes a block's average by a few levels; a missing
  stylesheet, a moved panel or a new colour changes whole blocks. The picture
  fails when more than ``PICTURE_TOLERANCE`` of the blocks changed, or when
  most of the blocks of any ``REGION`` × ``REGION`` px square did (a button,
  an icon or a diagram that changed, on a page too long for it to count).

When a page differs, or has no baseline, the failure message names the files
written to the output directory (``REGISTRY_VISUAL_OUT``, by default the test's
temporary directory): the actual picture, the baseline, a difference image (the
baseline greyed, changed blocks in red) and the three side by side.

Redraw every baseline after an intended change of the pages (then look at the
PNGs before committing them)::

    REGISTRY_UPDATE_BASELINES=1 pytest tests/browser/test_visual.py
"""

from __future__ import annotations

import difflib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

BASELINES = Path(__file__).resolve().parent / "baselines"
REDRAW = "REGISTRY_UPDATE_BASELINES=1 pytest tests/browser/test_visual.py"

BLOCK = 8  # px: the side of the squares whose average colours are compared
BLOCK_THRESHOLD = 40  # levels (of 255, on the channel that moved most) a block's average must move by
PICTURE_TOLERANCE = 0.005  # fraction of the blocks that may change
REGION = 64  # px: the side of the squares of which no more than half the blocks may change
BOX_TOLERANCE = 8  # px an element's edges may move before it counts as moved
HEIGHT_TOLERANCE = 24  # px the page's height may change
MAX_HEIGHT = 2400  # px: long pages are compared from the top down to here
SHOWN = 6  # differences of each kind spelled out in a message

#: The elements a reader sees as things of their own.
ELEMENTS = (
    "header, nav, main, footer, h1, h2, h3, h4, p, li, dt, dd, th, td, caption, pre, code, blockquote, "
    "table, form, fieldset, legend, label, input, select, textarea, button, img, svg, figure, figcaption, "
    "details, summary, .card, .badge"
)

#: The elements whose text's lines are counted (a container's count would only sum its children's).
TEXT_ELEMENTS = (
    "h1, h2, h3, h4, p, li, dt, dd, th, td, caption, code, legend, label, button, figcaption, summary, .badge"
)

#: The layout as a reader would describe it; lines are counted from the text's own boxes.
LAYOUT = """
([selector, textual, limit]) => {
  const viewport = document.documentElement.clientWidth;
  const lines = (element) => {
    const rects = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    while (walker.nextNode()) {
      if (!walker.currentNode.nodeValue.trim()) continue;
      range.selectNodeContents(walker.currentNode);
      for (const r of range.getClientRects()) if (r.width > 0 && r.height > 0) rects.push(r);
    }
    rects.sort((a, b) => a.top - b.top);
    let count = 0, top = 0, bottom = -Infinity;
    for (const r of rects) {
      const middle = (r.top + r.bottom) / 2;
      if (middle > bottom || middle < top) { count += 1; top = r.top; bottom = r.bottom; }
      else bottom = Math.max(bottom, r.bottom);
    }
    return count;
  };
  const colour = (value) => value === "rgba(0, 0, 0, 0)" ? null : value;
  const elements = [];
  for (const element of document.body.querySelectorAll(selector)) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || box.top + window.scrollY >= limit) continue;
    const style = getComputedStyle(element);
    if (style.visibility === "hidden") continue;
    const classes = [...element.classList].sort().join(".");
    elements.push({
      key: element.localName + (classes ? "." + classes : ""),
      text: (element.textContent || element.getAttribute("aria-label") || "").trim().replace(/\\s+/g, " ").slice(0, 60),
      box: [box.left + window.scrollX, box.top + window.scrollY, box.width, box.height].map(Math.round),
      lines: element.matches(textual) ? lines(element) : null,
      overflows: element.clientWidth > 0 && element.scrollWidth > element.clientWidth + 1,
      color: style.color,
      background: colour(style.backgroundColor),
    });
  }
  return {width: viewport, scroll_width: document.documentElement.scrollWidth,
          height: document.documentElement.scrollHeight, elements};
}
"""


def layout(page) -> dict:
    """The page's layout (scrolled to the top), as ``LAYOUT`` describes it."""
    return page.evaluate(LAYOUT, [ELEMENTS, TEXT_ELEMENTS, MAX_HEIGHT])


def _describe(element: dict) -> str:
    text = element["text"]
    return f"{element['key']} “{text[:40]}{'…' if len(text) > 40 else ''}”" if text else element["key"]


def _listed(kind: str, items: list[str]) -> list[str]:
    if not items:
        return []
    more = f" (and {len(items) - SHOWN} more)" if len(items) > SHOWN else ""
    return [f"{kind}{more}:"] + [f"    {item}" for item in items[:SHOWN]]


def layout_differences(actual: dict, baseline: dict) -> list[str]:
    """What moved, wrapped, overflowed, appeared or vanished, in words; [] when nothing did."""
    found = []
    if actual["scroll_width"] > actual["width"] + 1 and baseline["scroll_width"] <= baseline["width"] + 1:
        found.append(
            f"the page is wider than the viewport: {actual['scroll_width']} px at {actual['width']} px "
            f"(the baseline fits)"
        )
    height = min(actual["height"], MAX_HEIGHT) - min(baseline["height"], MAX_HEIGHT)
    if abs(height) > HEIGHT_TOLERANCE:
        found.append(
            f"the page is {abs(height)} px {'taller' if height > 0 else 'shorter'} than the baseline "
            f"({min(actual['height'], MAX_HEIGHT)} against {min(baseline['height'], MAX_HEIGHT)} px)"
        )
    old, new = baseline["elements"], actual["elements"]
    matcher = difflib.SequenceMatcher(a=[e["key"] for e in old], b=[e["key"] for e in new], autojunk=False)
    gone, added, wrapped, overflowing, moved, recoloured = [], [], [], [], [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            gone += [_describe(e) for e in old[i1:i2]]
            added += [_describe(e) for e in new[j1:j2]]
            continue
        for was, now in zip(old[i1:i2], new[j1:j2], strict=True):
            name = _describe(now)
            if now["lines"] != was["lines"]:
                wrapped.append(f"{name}: {now['lines']} line(s), the baseline {was['lines']}")
            if now["overflows"] and not was["overflows"]:
                overflowing.append(f"{name}: its content is wider than its box")
            if any(abs(a - b) > BOX_TOLERANCE for a, b in zip(now["box"], was["box"], strict=True)):
                moved.append(f"{name}: x, y, width, height {now['box']}, the baseline {was['box']}")
            if (now["color"], now["background"]) != (was["color"], was["background"]):
                recoloured.append(
                    f"{name}: {now['color']} on {now['background'] or 'transparent'}, the baseline "
                    f"{was['color']} on {was['background'] or 'transparent'}"
                )
    found += _listed("text that wraps onto another number of lines", wrapped)
    found += _listed("content wider than its box", overflowing)
    found += _listed("elements missing", gone)
    found += _listed("elements not in the baseline", added)
    found += _listed(f"elements moved or resized by more than {BOX_TOLERANCE} px", moved)
    found += _listed("colours changed", recoloured)
    return found


# --- pictures ------------------------------------------------------------------------------------


def _pil():
    from PIL import Image, ImageChops

    return Image, ImageChops


def _blocks(image):
    """The image's average colour over each BLOCK × BLOCK square (a partial last row/column averaged too)."""
    return image.convert("RGB").reduce(BLOCK)


def _changed_blocks(actual, baseline):
    """A one-bit image, one pixel per block, set where the average colour moved more than the threshold."""
    Image, ImageChops = _pil()
    height = min(actual.height, baseline.height)
    a, b = _blocks(actual.crop((0, 0, actual.width, height))), _blocks(baseline.crop((0, 0, baseline.width, height)))
    if a.size != b.size:  # a page of another width: every block is changed
        return Image.new("1", a.size, 1)
    red, green, blue = ImageChops.difference(a, b).split()
    most = ImageChops.lighter(ImageChops.lighter(red, green), blue)
    return most.point(lambda level: 255 if level > BLOCK_THRESHOLD else 0).convert("1")


def picture_difference(actual, baseline) -> tuple[float, list[tuple[int, int]]]:
    """The fraction of blocks whose average colour changed (over the height both pictures have), and the
    top-left corners (px) of the REGION squares of which more than half the blocks changed."""
    changed = _changed_blocks(actual, baseline)
    fraction = changed.histogram()[-1] / (changed.width * changed.height)
    per_region = changed.convert("L").reduce(REGION // BLOCK)
    regions = [
        (x * REGION, y * REGION)
        for y in range(per_region.height)
        for x in range(per_region.width)
        if per_region.getpixel((x, y)) > 127
    ]
    return fraction, regions


def _difference_image(actual, baseline):
    """The baseline greyed and lightened, with every changed block painted red."""
    Image, _ = _pil()
    height = min(actual.height, baseline.height)
    base = baseline.convert("L").point(lambda level: 160 + level * 95 // 255).convert("RGB")
    changed = _changed_blocks(actual, baseline).resize(
        (baseline.width // BLOCK * BLOCK or BLOCK, height // BLOCK * BLOCK or BLOCK), Image.NEAREST
    )
    canvas = Image.new("RGB", baseline.size, "white")
    canvas.paste(base, (0, 0))
    red = Image.new("RGB", changed.size, (220, 30, 30))
    canvas.paste(red, (0, 0), changed.convert("L").point(lambda v: v * 3 // 4))
    return canvas


def _side_by_side(*images):
    Image, _ = _pil()
    gap = 12
    canvas = Image.new(
        "RGB", (sum(i.width for i in images) + gap * (len(images) - 1), max(i.height for i in images)), (128, 128, 128)
    )
    x = 0
    for image in images:
        canvas.paste(image.convert("RGB"), (x, 0))
        x += image.width + gap
    return canvas


def save_baseline(shot: bytes, target: Path) -> None:
    """A palette PNG of 64 colours: a third of the size of the screenshot, and no block's average colour
    more than a few levels off (octree keeps the small areas' colours: a button's blue stays that blue)."""
    Image, _ = _pil()
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    image.quantize(colors=64, method=Image.Quantize.FASTOCTREE).save(target, optimize=True)


@dataclass
class Verdict:
    """A page's comparison with its baseline: what differs, in words, and the files that show it."""

    name: str
    differences: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def __bool__(self) -> bool:
        return not self.differences

    def message(self) -> str:
        lines = [f"{self.name}:"] + [f"  {d}" for d in self.differences]
        if self.files:
            lines.append("  see: " + ", ".join(str(f) for f in self.files))
        return "\n".join(lines)


def compare(name: str, shot: bytes, shape: dict, out: Path) -> Verdict:
    """Compare a screenshot and its layout with the baselines ``name``.png/.json; write the files that show why."""
    Image, _ = _pil()
    verdict = Verdict(name)
    picture, plan = BASELINES / f"{name}.png", BASELINES / f"{name}.json"
    actual = Image.open(io.BytesIO(shot)).convert("RGB")
    out.mkdir(parents=True, exist_ok=True)
    if not picture.exists() or not plan.exists():
        actual.save(out / f"{name}.actual.png")
        verdict.differences.append(
            f"no baseline ({picture.name} and {plan.name} in {BASELINES}); draw the "
            f"baselines with `{REDRAW}`, look at the PNGs, and commit them"
        )
        verdict.files.append(out / f"{name}.actual.png")
        return verdict
    baseline = Image.open(picture).convert("RGB")
    verdict.differences += layout_differences(shape, json.loads(plan.read_text()))
    changed, regions = picture_difference(actual, baseline)
    if changed > PICTURE_TOLERANCE:
        verdict.differences.append(
            f"{changed:.2%} of the {BLOCK}×{BLOCK} px blocks changed colour (tolerance "
            f"{PICTURE_TOLERANCE:.2%}; red in the difference image)"
        )
    if regions:
        verdict.differences += _listed(
            f"{REGION}×{REGION} px squares mostly changed (x, y of their top left "
            f"corners; red in the difference image)",
            [str(r) for r in regions],
        )
    if verdict.differences:
        files = {"actual": actual, "baseline": baseline, "difference": _difference_image(actual, baseline)}
        files["baseline-actual-difference"] = _side_by_side(*files.values())
        for kind, image in files.items():
            image.save(out / f"{name}.{kind}.png")
            verdict.files.append(out / f"{name}.{kind}.png")
        verdict.differences.append(f"if the change is intended, redraw the baselines: `{REDRAW}`")
    return verdict


def redraw(name: str, shot: bytes, shape: dict) -> None:
    BASELINES.mkdir(exist_ok=True)
    save_baseline(shot, BASELINES / f"{name}.png")
    (BASELINES / f"{name}.json").write_text(layout_text(shape))


def layout_text(shape: dict) -> str:
    """The layout as JSON with one element a line, so that a redrawn baseline's diff reads element by element."""
    head = {key: value for key, value in shape.items() if key != "elements"}
    rows = ",\n".join(json.dumps(element, ensure_ascii=False) for element in shape["elements"])
    return json.dumps(head, ensure_ascii=False)[:-1] + ', "elements": [\n' + rows + "\n]}\n"
