"""Accessibility as a test: axe-core in Chromium, on what the page walk does not reach.

axe-core is the npm package ``axe-core`` at the version pinned in
``tests/browser/vendor/axe-core/VERSION`` (its ``axe.min.js`` is vendored there,
with its licence, so the test needs no npm). Every page type, for every role and
after every action, at 1280 and 375 px, is walked by ``test_every_page.py`` (axe's
WCAG 2.2 A/AA rules and its best practices, the width, the words). Here: the pinned
release, a panel held half-way through loading, the railroad diagrams' notes, the
header's rows and the list labels at 375 px.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from registry import demo, services
from registry.models import Proposal

from ..factories import data_factory
from .conftest import login

VENDOR = Path(__file__).resolve().parent / "vendor" / "axe-core"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
LONG_SNID = "a" * 16 + "-" + "b" * 15  # 32 characters, the longest an SNID may be
LONG_REGISTERED = "c" * 16 + "-" + "d" * 15  # and one registered, on the public pages


def axe_violations(page) -> list[str]:
    """axe-core's WCAG 2.2 A/AA violations on the page as it stands, one line each."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate((VENDOR / "axe.min.js").read_text(encoding="utf-8"))
    found = page.evaluate(
        """async (tags) => {
          const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
          return result.violations.map(v => `${v.id} (${v.nodes.length}): ` +
            v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
        }""",
        AXE_TAGS,
    )
    return found


@pytest.fixture
def site(transactional_db):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    applicant, editor = accounts["applicant"][0], accounts["editor"][0]
    long = services.proposal_create(data_factory(snid=LONG_SNID, title="The longest SNID there can be"), applicant)
    services.proposal_transition(long, "submit", applicant)
    registered = services.proposal_create(
        data_factory(snid=LONG_REGISTERED, title="A registered SNID as long as there can be"), applicant
    )
    services.proposal_transition(registered, "submit", applicant)
    services.proposal_transition(registered, "approve", editor, override_reason="Test data.")
    round_two = services.proposal_create(data_factory(snid="second-round", title="A second round"), applicant)
    services.proposal_transition(round_two, "submit", applicant)
    services.proposal_transition(round_two, "request_changes", editor, comment="Say who assigns the index.")
    data = round_two.to_data()
    data.sections["scope"] += "\n\nThe WG chair assigns the index."
    services.proposal_update(round_two, data, applicant)
    services.proposal_transition(round_two, "submit", applicant)
    return {p.snid: p.pk for p in Proposal.objects.all()}


def _context(chromium, live_server, width):
    context = chromium.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, reduced_motion="reduce"
    )
    context.set_default_timeout(20_000)
    return context


def test_accessibility_axe_is_the_pinned_release():
    version = (VENDOR / "VERSION").read_text().strip()
    assert (VENDOR / "axe.min.js").read_text(encoding="utf-8").startswith(f"/*! axe v{version}\n")


@pytest.mark.django_db(transaction=True)
def test_railroad_core_rule_notes_sit_between_the_rails(chromium, live_server, site):
    """The "RFC 5234 core rule: …" note of a legend diagram ends before the rail resumes on either side."""
    context = _context(chromium, live_server, 1280)
    page = context.new_page()
    try:
        page.goto("/urn/example/")
        page.locator("details", has_text="Railroad diagrams").first.evaluate("d => d.open = true")
        page.locator("text.comment").first.wait_for()
        gaps = page.evaluate("""() => Array.from(
          document.querySelectorAll('svg.railroad-diagram text.comment')).map(t => {
            const [left, right] = Array.from(t.parentNode.querySelectorAll(':scope > path')).map(p => p.getBBox());
            const box = t.getBBox();
            return {text: t.textContent, start: box.x, end: box.x + box.width,
                    railEnds: left.x + left.width, railStarts: right.x};
        })""")
    finally:
        context.close()
    assert len(gaps) >= 2  # ALPHA and DIGIT
    for gap in gaps:
        assert gap["railEnds"] <= gap["start"] and gap["end"] <= gap["railStarts"], gap


NAV_ROWS = """() => {
    const nav = document.querySelector('header.site nav');
    const rows = {};
    for (const item of nav.querySelectorAll('a, button')) {  // what is seen, not the boxes around it
        const box = item.getBoundingClientRect();
        const top = Math.round(box.top);
        rows[top] = Math.min(rows[top] ?? Infinity, box.left);
    }
    return [nav.getBoundingClientRect().left, Object.values(rows)];
}"""

LABEL_GAPS = """() => Array.from(document.querySelectorAll('table.list td[data-label]')).map(td => {
    const label = getComputedStyle(td, '::before');
    const range = document.createRange();
    range.selectNodeContents(td);
    const first = Array.from(range.getClientRects()).find(r => r.width > 0);
    return {label: td.dataset.label, gap: first.left - td.getBoundingClientRect().left - parseFloat(label.width)};
})"""


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("who", ["editor", "applicant"])
def test_header_navigation_wraps_flush_left_at_375_px(chromium, live_server, site, who):
    context = _context(chromium, live_server, 375)
    page = context.new_page()
    try:
        login(page, who, f"{who}-demo-2026")
        page.goto("/proposals/")
        nav_left, rows = page.evaluate(NAV_ROWS)
    finally:
        context.close()
    assert len(rows) >= 2  # the signed-in items do wrap at 375 px
    assert all(abs(left - nav_left) < 1 for left in rows), (nav_left, rows)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("who", "path"), [("editor", "/review/"), ("applicant", "/proposals/"), ("anonymous", "/urn/")]
)
def test_list_labels_at_375_px_keep_a_space_before_their_values(chromium, live_server, site, who, path):
    context = _context(chromium, live_server, 375)
    page = context.new_page()
    try:
        if who != "anonymous":
            login(page, who, f"{who}-demo-2026")
        page.goto(path)
        gaps = page.evaluate(LABEL_GAPS)
    finally:
        context.close()
    assert gaps and all(g["gap"] >= 4 for g in gaps), [g for g in gaps if g["gap"] < 4]


@pytest.mark.django_db(transaction=True)
def test_accessibility_of_a_panel_while_it_loads(chromium, live_server, site):
    """A lazy panel held half-way (its fragment not yet answered) passes axe too: busy is not faded text."""
    context = _context(chromium, live_server, 1280)
    page = context.new_page()
    held = []
    try:
        login(page, "editor", "editor-demo-2026")
        page.goto(f"/review/{site['img']}/")
        page.route("**/*fragment=1*", lambda route: held.append(route))
        page.locator("details.lazy > summary").first.click()
        page.locator("details.lazy[aria-busy=true]").first.wait_for()
        assert "loading" in page.evaluate(
            "getComputedStyle(document.querySelector('details.lazy[aria-busy=true] > summary'), '::after').content"
        )
        violations = axe_violations(page)
        for route in held:
            route.continue_()
    finally:
        context.close()
    assert violations == []
