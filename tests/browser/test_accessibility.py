"""Accessibility as a test: axe-core over every kind of page, at 1280 and 375 px, with its panels open.

axe-core is the npm package ``axe-core`` at the version pinned in
``tests/browser/vendor/axe-core/VERSION`` (its ``axe.min.js`` is vendored there,
with its licence, so the test needs no npm). It runs in Debian's Chromium through
Playwright against the live test server and checks WCAG 2.2 A and AA; a page
passes with no violation at all. The same walk measures each page at 375 px: no
page may be wider than the viewport.

Pages: anonymous (the registry, an SNID and an earlier version, a tombstone, the
diff, search with and without hits, lookups valid and invalid, an unregistered
SNID, a resolver's not-found answer, the transparency log, sign-up and its
errors, log-in, password reset, the error page, every help page, the API
documentation with its panels open), the applicant's (proposals, a proposal, the
edit page and its diagrams, a new proposal, the import and its review, the
identities, stewardship, the confirmation pages) and the editor's (the queue, a
proposal under review, a decided one, round 2, the 32-character SNID,
reservations, an SNID's history, stewardship and resolvers, the admin's list and
change pages, the decision confirmations).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from registry import demo, services
from registry import help as help_pages
from registry.models import Proposal

from ..factories import data_factory
from .conftest import login

VENDOR = Path(__file__).resolve().parent / "vendor" / "axe-core"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
WIDTHS = (1280, 375)
LONG_SNID = "a" * 16 + "-" + "b" * 15  # 32 characters, the longest an SNID may be
LONG_REGISTERED = "c" * 16 + "-" + "d" * 15  # and one registered, on the public pages
SEED = Path(__file__).resolve().parent.parent / "seeds" / "urn-5-registration.txt"

OPEN_PANELS = """
async () => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  await new Promise(r => setTimeout(r, 50));
}
"""


def axe_violations(page) -> list[str]:
    """axe-core's WCAG 2.2 A/AA violations on the page as it stands, one line each."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate((VENDOR / "axe.min.js").read_text(encoding="utf-8"))
    found = page.evaluate(
        """async (tags) => {
          const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
          return result.violations.map(v => `${v.id} (${v.nodes.length}): ` +
            v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
        }""", AXE_TAGS)
    return found


def overflow(page) -> int:
    """How many pixels the page is wider than its viewport (0: none)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def examine(page, label: str, failures: list[str], *, panels: bool = True) -> None:
    page.wait_for_load_state("networkidle")
    if panels:
        page.evaluate(OPEN_PANELS)
        page.wait_for_load_state("networkidle")
    width = page.viewport_size["width"]
    for violation in axe_violations(page):
        failures.append(f"{label} at {width} px: {violation}")
    wider = overflow(page)
    if wider > 0:
        failures.append(f"{label} at {width} px: the page is {wider} px wider than the viewport")


@pytest.fixture
def site(transactional_db):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    applicant, editor = accounts["applicant"][0], accounts["editor"][0]
    long = services.proposal_create(data_factory(snid=LONG_SNID, title="The longest SNID there can be"), applicant)
    services.proposal_transition(long, "submit", applicant)
    registered = services.proposal_create(data_factory(snid=LONG_REGISTERED, title="A registered SNID as long as "
                                                       "there can be"), applicant)
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
    context = chromium.new_context(base_url=live_server.url, viewport={"width": width, "height": 900},
                                   reduced_motion="reduce")
    context.set_default_timeout(20_000)
    return context


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_accessibility_anonymous_pages(chromium, live_server, site, width):
    failures: list[str] = []
    context = _context(chromium, live_server, width)
    page = context.new_page()
    try:
        for path in ("/urn/", "/urn/example/", f"/urn/{LONG_REGISTERED}/", "/urn/example/1/", "/urn/fdc/", "/urn/example/diff/",
                     "/urn/search/?q=grid", "/urn/search/?q=nothing-matches-this", "/urn/search/",
                     "/urn/search/?urn=urn:ogf:example:cluster:2009:example.net:42",
                     "/urn/search/?urn=urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1",
                     "/urn/unregistered/", "/resolve/?urn=urn:ogf:unregistered:x", "/log/",
                     "/accounts/signup/", "/accounts/login/", "/accounts/password_reset/",
                     "/accounts/password_reset/done/", "/accounts/signup/sent/", "/no-such-page/",
                     "/help/", *(f"/help/{slug}/" for slug in help_pages.PAGES)):
            page.goto(path)
            examine(page, path, failures)
        page.goto("/accounts/signup/")
        page.get_by_role("button", name="Create account").click()
        examine(page, "sign-up with errors", failures)
    finally:
        context.close()
    assert failures == [], "\n".join(failures)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_accessibility_applicant_pages_and_confirmations(chromium, live_server, site, width):
    failures: list[str] = []
    context = _context(chromium, live_server, width)
    page = context.new_page()
    try:
        login(page, "applicant", "applicant-demo-2026")
        for path in ("/proposals/", f"/proposals/{site['img']}/", f"/proposals/{site['newsml']}/",
                     f"/proposals/{site['newsml']}/edit/", f"/proposals/{site['newsml']}/edit/diagrams/",
                     f"/proposals/{site[LONG_SNID]}/", "/proposals/new/", "/proposals/import/",
                     "/accounts/identities/", "/urn/example/stewardship/"):
            page.goto(path)
            examine(page, path, failures)
        page.goto(f"/proposals/{site['img']}/")
        page.get_by_role("button", name="Withdraw…").click()
        examine(page, "withdraw confirmation", failures)
        page.goto(f"/proposals/{site['urn-5']}/")
        page.get_by_role("button", name="Pull back to draft…").click()
        examine(page, "pull-back confirmation", failures)
        page.goto(f"/proposals/{site['newsml']}/edit/")
        page.get_by_role("button", name="Save and submit for review").click()
        examine(page, "submit with failing checks", failures)
        page.goto("/proposals/import/")
        page.set_input_files("input[type=file]", str(SEED))
        page.get_by_role("button", name="Read the document").click()
        examine(page, "import review", failures)
    finally:
        context.close()
    assert failures == [], "\n".join(failures)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_accessibility_editor_pages_and_confirmations(chromium, live_server, site, width):
    failures: list[str] = []
    context = _context(chromium, live_server, width)
    page = context.new_page()
    try:
        login(page, "editor", "editor-demo-2026")
        for path in ("/review/", f"/review/{site['img']}/", f"/review/{site['second-round']}/",
                     f"/review/{site['example']}/", f"/review/{site[LONG_SNID]}/", "/review/reservations/",
                     "/review/snid/example/", f"/review/{site['img']}/diagrams/", "/review/stewardship/",
                     "/urn/example/stewardship/", "/urn/example/resolvers/edit/", "/admin/",
                     "/admin/registry/proposal/", f"/admin/registry/proposal/{site['example']}/change/"):
            page.goto(path)
            examine(page, path, failures, panels=not path.startswith("/admin/"))
        page.goto(f"/review/{site['urn-5']}/")
        page.get_by_role("button", name="Approve and register…").click()
        examine(page, "approval over failing checks", failures)
        page.goto(f"/review/{site['img']}/")
        page.get_by_label("Message to the applicant").fill("Not a grid identifier.")
        page.get_by_role("button", name="Reject…").click()
        examine(page, "rejection", failures)
        page.goto(f"/review/{site['img']}/")
        page.get_by_label("Message to the applicant").fill("Say who assigns the identifiers.")
        page.get_by_role("button", name="Request changes…").click()
        examine(page, "request for changes", failures)
    finally:
        context.close()
    assert failures == [], "\n".join(failures)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_accessibility_api_documentation(chromium, live_server, transactional_db, width):
    failures: list[str] = []
    context = _context(chromium, live_server, width)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: message.type == "error" and console.append(message.text))
    try:
        for path, ready in (("/api/docs/", ".opblock"), ("/api/redoc/", ".api-content h1")):
            page.goto(path)
            page.locator(ready).first.wait_for()
            examine(page, path, failures, panels=False)
        # Swagger UI with its panels open: every operation, "Try it out", an executed request, the Authorize dialog.
        page.goto("/api/docs/")
        page.locator(".opblock").first.wait_for()
        for summary in page.locator(".opblock-summary-control").all():
            summary.click()
        lookup = page.locator("#operations-lookup-lookup_retrieve")
        lookup.locator(".try-out__btn").click()
        lookup.locator("tr[data-param-name=urn] input").fill("urn:ogf:example:cluster:2009:example.net:42")
        lookup.locator(".btn.execute").click()
        lookup.get_by_text("Server response").wait_for()
        examine(page, "/api/docs/ with every operation open and one executed", failures, panels=False)
        page.locator(".btn.authorize").first.click()
        page.locator(".modal-ux").wait_for()
        examine(page, "/api/docs/ Authorize dialog", failures, panels=False)
        # ReDoc with every collapsed part expanded.
        page.goto("/api/redoc/")
        page.locator(".api-content h1").first.wait_for()
        page.evaluate("""async () => {
          for (let round = 0; round < 3; round++) {
            for (const b of document.querySelectorAll('button[aria-expanded="false"], .collapser')) if (b.offsetParent) b.click();
            await new Promise(r => setTimeout(r, 200));
          }
        }""")
        examine(page, "/api/redoc/ expanded", failures, panels=False)
    finally:
        context.close()
    assert failures == [], "\n".join(failures)
    assert console == []  # nothing refused by the Content-Security-Policy, nothing fetched from elsewhere


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
        gaps = page.evaluate("""() => Array.from(document.querySelectorAll('svg.railroad-diagram text.comment')).map(t => {
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
@pytest.mark.parametrize(("who", "path"), [("editor", "/review/"), ("applicant", "/proposals/"), ("anonymous", "/urn/")])
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
            "getComputedStyle(document.querySelector('details.lazy[aria-busy=true] > summary'), '::after').content")
        violations = axe_violations(page)
        for route in held:
            route.continue_()
    finally:
        context.close()
    assert violations == []
