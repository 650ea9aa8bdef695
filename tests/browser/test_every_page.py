"""Every page, as everyone sees it, after everything they do: clean at 1280 and at 375 px.

Chromium (Playwright) walks each page type as anonymous, the applicant, the GFD editor
and a steward, and after every action (sign up, confirm, save, check, submit, reply,
request, judge, decide). On each page it asks:

- axe-core (vendored, ``tests/browser/vendor/axe-core``): no violation of WCAG 2.2 A/AA
  nor of axe's best practices (heading order, unique landmarks, content in landmarks, …);
- no horizontal scrolling: the page is no wider than the viewport;
- no ``None`` in the visible text (a missing value printed as Python writes it);
- no literal markup outside code: ``**``, two backticks, ``{{`` or ``{%`` in the text
  means Markdown or a template was shown instead of rendered.

A walk is a list, one line per page: a path (``{name}`` is the id of one of ``site``'s
proposals) or ``act(label, action)``, where ``action(page, site)`` does what a person does
and leaves the browser on the page it lands on. Adding a page is adding its line.

``ELSEWHERE`` lists pages other parts of the registry own while they are being reworked
(stewardship, the transparency log, resolution's answers): they are walked with the
WCAG rules and the width check only until they join their role's walk, each by moving
its line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from registry import demo, services
from registry import help as help_pages
from registry.interchange import rebased
from registry.models import Namespace, Proposal
from registry.selectors import next_version_data

from ..factories import data_factory
from .conftest import login

VENDOR = Path(__file__).resolve().parent / "vendor" / "axe-core"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
BEST_PRACTICE = [*WCAG, "best-practice"]
WIDTHS = (1280, 375)
SEED = Path(__file__).resolve().parent.parent / "seeds" / "urn-5-registration.txt"
PASSWORDS = {"applicant": "applicant-demo-2026", "editor": "editor-demo-2026", "steward": "maintainer-demo-2026"}
USERNAMES = {"applicant": "applicant", "editor": "editor", "steward": "maintainer"}
LONG_SNID = "a" * 16 + "-" + "b" * 15  # 32 characters, the longest an SNID may be
LONG_REGISTERED = "c" * 16 + "-" + "d" * 15
#: An invalid example as long as people write them: one unbroken token, wider than a phone.
LONG_INVALID = "urn:ogf:wide:" + "x" * 40 + ":" + "0123456789" * 8 + ":no-such-part-in-the-grammar-at-all"
#: An example the grammar accepts though it is listed invalid: its line is quoted, marked, under the field.
LONG_ACCEPTED = "urn:ogf:long-example:cluster:2009:" + ".".join(["abcdefghij" * 6] * 3) + ":42"
BROKEN_GRAMMAR = (
    'WIDE = "urn:ogf:wide:" NAME ":" YEAR\nNAME = 1*40ALPHA\nYEAR = 4DIGIT ; Year in Gregorian '
    'calendar\nSITE = ALPHA *31( ALPHA / DIGIT / "-"\n'
)


@dataclass(frozen=True)
class Step:
    label: str
    go: str | Callable  # a path, or what a person does (page, site) -> None


def act(label: str, action: Callable) -> Step:
    return Step(label, action)


# --- what people do ---------------------------------------------------------------------------


def sign_up_with_errors(page, site):
    page.goto("/accounts/signup/")
    page.get_by_role("button", name="Create account").click()


def sign_up(page, site):
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill("newbie")
    page.get_by_label("Email").fill("newbie@example.org")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase-42")
    page.get_by_label("Password confirmation").fill("a-long-pass-phrase-42")
    page.get_by_role("button", name="Create account").click()
    page.get_by_role("heading", name="Check your e-mail").wait_for()


def open_confirmation_link(page, site):
    from django.core import mail

    message = next(m for m in mail.outbox if m.to == ["newbie@example.org"])
    link = next(line for line in message.body.splitlines() if "/accounts/confirm/" in line).strip()
    page.goto("/" + link.split("://", 1)[1].split("/", 1)[1])


def confirm_and_sign_in(page, site):
    page.get_by_role("button", name="Confirm and sign in").click()
    page.wait_for_url("**/proposals/new/")


def check_a_urn_on_an_snid_page(page, site):
    page.goto("/urn/example/")
    page.locator("#check-urn").fill(LONG_INVALID.replace("wide", "example"))
    page.locator("form.check-urn button").click()
    page.wait_for_url("**?urn=*")


def log_in_refused(page, site):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("nobody")
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()


def new_proposal_with_errors(page, site):
    page.goto("/proposals/new/")
    page.get_by_role("button", name="Create the draft").click()
    page.wait_for_load_state()


def import_nothing(page, site):
    page.goto("/proposals/import/")
    page.get_by_role("button", name="Read the document").click()
    page.wait_for_load_state()


def withdraw_an_approved_proposal(page, site):
    """A form sent after the proposal's state changed (another tab, an old page): the conflict page."""
    page.goto(f"/proposals/{site['judged']}/")
    page.evaluate(
        """(action) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = action;
      form.appendChild(document.querySelector('input[name=csrfmiddlewaretoken]').cloneNode());
      document.body.appendChild(form);
      form.submit();
    }""",
        f"/proposals/{site['judged']}/withdraw/",
    )
    page.wait_for_load_state()


def search_from_the_header(page, site):
    page.goto("/urn/")
    page.locator("#header-q").fill("clusters")
    page.keyboard.press("Enter")


def start_from_the_worked_example(page, site):
    page.goto("/proposals/new/")
    page.get_by_label("A new SNID, starting from the GFD.191 worked example").check()
    page.get_by_label("SNID", exact=True).fill("walked")
    page.get_by_role("button", name="Create the draft").click()
    page.wait_for_url("**/proposals/*/edit/")


def save_a_draft(page, site):
    page.goto(f"/proposals/{site['wide']}/edit/")
    page.get_by_role("button", name="Save draft").click()
    page.get_by_text("Draft saved.").wait_for()


def check_without_saving(page, site):
    page.goto(f"/proposals/{site['wide']}/edit/")
    field = page.get_by_label("4.1 Scope")
    field.fill(field.input_value() + " Checked, not saved.")
    page.get_by_role("button", name="Check without saving").click()
    page.locator("#workbench:not([aria-busy=true]) .check-status").wait_for()


def save_with_errors(page, site):
    page.goto(f"/proposals/{site['wide']}/edit/")
    page.get_by_label("Registration version").fill("0")
    page.get_by_role("button", name="Save draft").click()
    page.get_by_text("Nothing was saved").wait_for()


def reply_from_the_edit_page(page, site):
    page.goto(f"/proposals/{site['wide']}/edit/")
    thread = page.locator("#section-scope .thread").first
    thread.get_by_label("Reply to this thread").fill("Answered in **4.1**, see there.")
    thread.get_by_role("button", name="Reply").click()
    page.get_by_text("Reply added").wait_for()


def submit_with_failing_checks(page, site):
    page.goto(f"/proposals/{site['newsml']}/edit/")
    page.get_by_role("button", name="Save and submit for review").click()
    page.get_by_role("button", name="Submit anyway").wait_for()


def submit_anyway(page, site):
    submit_with_failing_checks(page, site)
    page.get_by_role("button", name="Submit anyway").click()
    page.get_by_text("Submitted for review with").wait_for()


def _applicant_action(label: str, name: str) -> Callable:
    def action(page, site):
        page.goto(f"/proposals/{site[name]}/")
        page.get_by_role("button", name=label).click()

    return action


def pull_back(page, site):
    _applicant_action("Pull back to draft…", "urn-5")(page, site)
    page.get_by_role("button", name="Yes, pull back to draft").click()
    page.wait_for_url("**/edit/")


def request_a_reservation(page, site):
    page.goto(f"/proposals/{site['wide']}/")
    page.locator("details.reserve > summary").click()
    page.get_by_role("button", name="Ask the editor to reserve it").click()
    page.get_by_text("requested; an editor will answer").wait_for()


def import_a_document(page, site):
    page.goto("/proposals/import/")
    page.set_input_files("input[type=file]", str(SEED))
    page.get_by_role("button", name="Read the document").click()
    page.get_by_role("button", name="Create draft").wait_for()


def create_the_imported_draft(page, site):
    import_a_document(page, site)
    confirm = page.locator(".actions .confirm input[type=checkbox]")
    if confirm.count():
        confirm.check()
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url("**/proposals/*/edit/")


def start_a_thread(page, site):
    page.goto(f"/review/{site['img']}/")
    section = page.locator("#section-scope")
    section.locator("summary", has_text="Comment on 4.1 Scope").click()
    section.get_by_label("Your comment on 4.1 Scope").fill("Who assigns the identifiers?")
    section.get_by_role("button", name="Start thread").click()
    page.get_by_text("Comment added").wait_for()


def record_judgements(page, site):
    page.goto(f"/review/{site['img']}/")
    panel = page.locator(".decision-panel")
    for check_id in ("scope", "snid-durable"):
        panel.locator(f'input[name="verdict-{check_id}"][value="ok"]').check()
    panel.get_by_role("button", name="Record judgements").click()
    page.get_by_text("2 judgements recorded").wait_for()


def _decision(name: str, button: str, message: str = "") -> Callable:
    def action(page, site):
        page.goto(f"/review/{site[name]}/")
        if message:
            page.get_by_label("Message to the applicant").fill(message)
        page.get_by_role("button", name=button).click()

    return action


def request_changes_confirmed(page, site):
    _decision("img", "Request changes…", "Say who assigns the identifiers.")(page, site)
    page.get_by_role("button", name="Yes, request changes").click()
    page.get_by_text("Changes requested;").wait_for()


def approve_with_every_judgement(page, site):
    page.goto(f"/review/{site['clusters']}/")
    panel = page.locator(".decision-panel")
    for check_id in ("scope", "snid-durable", "subdelegation", "immutability"):
        panel.locator(f'input[name="verdict-{check_id}"][value="ok"]').check()
    panel.get_by_role("button", name="Record judgements").click()
    page.get_by_text("4 judgements recorded").wait_for()
    page.get_by_role("button", name="Approve and register…").click()
    page.get_by_role("button", name="Yes, approve").click()
    page.get_by_text("Approved: urn:ogf:clusters:").wait_for()


def confirm_a_reservation(page, site):
    page.goto("/review/reservations/")
    page.get_by_role("button", name="Grant…").first.click()
    page.get_by_role("button", name="Grant the reservation").wait_for()


def grant_a_reservation(page, site):
    confirm_a_reservation(page, site)
    page.get_by_role("button", name="Grant the reservation").click()
    page.get_by_text("granted to").wait_for()


def start_a_new_version(page, site):
    page.goto("/proposals/new/")
    page.get_by_label("A new version of an SNID registered to me").check()
    page.get_by_label("SNID to revise").select_option("example")
    page.get_by_role("button", name="Create the draft").click()
    page.wait_for_url("**/proposals/*/edit/")


# --- the walks ----------------------------------------------------------------------------------

WALKS: dict[str, list[str | Step]] = {
    "anonymous": [
        "/urn/",
        "/urn/?q=exam&sort=-date",
        "/urn/example/",
        "/urn/example/1/",
        "/urn/example/2/",
        f"/urn/{LONG_REGISTERED}/",
        "/urn/fdc/",
        "/urn/example/diff/",
        "/urn/example/diff/?from=1&to=2",
        "/urn/?q=urn:ogf:example:cluster:2009:example.net:42",
        "/urn/search/?urn=urn:ogf:fdc:example.com:2002:A572007",
        "/api/",
        "/log/",
        "/urn/search/",
        "/urn/search/?q=grid",
        "/urn/search/?q=nothing-matches-this",
        "/urn/search/?urn=urn:ogf:example:cluster:2009:example.net:42",
        "/urn/search/?urn=urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1",
        "/urn/unregistered/",
        "/no-such-page/",
        "/accounts/login/",
        "/accounts/password_reset/",
        "/accounts/password_reset/done/",
        "/accounts/reset/done/",
        "/accounts/reset/MQ/not-a-token/",
        "/accounts/signup/",
        "/accounts/signup/sent/",
        "/accounts/inactive/",
        "/accounts/social/login/cancelled/",
        "/accounts/social/login/error/",
        "/proposals/",
        "/help/",
        *(f"/help/{slug}/" for slug in help_pages.PAGES),
        act("a URN checked on an SNID's page", check_a_urn_on_an_snid_page),
        act("log-in refused", log_in_refused),
        act("the header's search", search_from_the_header),
        act("sign-up with errors", sign_up_with_errors),
        act("sign-up sent", sign_up),
        act("sign-up confirmation", open_confirmation_link),
        act("confirmed and signed in", confirm_and_sign_in),
    ],
    "applicant": [
        "/proposals/",
        "/proposals/{img}/",
        "/proposals/{newsml}/",
        "/proposals/{newsml}/edit/",
        "/proposals/{newsml}/edit/diagrams/",
        "/proposals/{wide}/",
        "/proposals/{wide}/edit/",
        "/proposals/{judged}/",
        "/proposals/{version2}/",
        f"/proposals/{{{LONG_SNID}}}/",
        "/proposals/{long-example}/",
        "/proposals/{long-example}/edit/",
        "/proposals/new/",
        "/proposals/import/",
        "/accounts/identities/",
        "/accounts/social/connections/",
        "/review/",
        "/admin/",
        "/proposals/{img}/edit/",
        "/proposals/{judged}/edit/",
        act("a new proposal with errors", new_proposal_with_errors),
        act("an import with nothing to read", import_nothing),
        act("a conflict: withdrawing an approved proposal", withdraw_an_approved_proposal),
        act("a draft from the worked example", start_from_the_worked_example),
        act("saved", save_a_draft),
        act("checked without saving", check_without_saving),
        act("saved with errors", save_with_errors),
        act("a reply from the edit page", reply_from_the_edit_page),
        act("a reservation requested", request_a_reservation),
        act("submit with failing checks", submit_with_failing_checks),
        act("submitted anyway", submit_anyway),
        act("withdraw confirmation", _applicant_action("Withdraw…", "img")),
        act("pull-back confirmation", _applicant_action("Pull back to draft…", "urn-5")),
        act("pulled back", pull_back),
        act("an import's review", import_a_document),
        act("the imported draft", create_the_imported_draft),
    ],
    "editor": [
        "/review/",
        "/review/?state=approved",
        "/review/?q=no-such-proposal&sort=threads",
        "/review/{img}/",
        "/review/{second-round}/",
        "/review/{example}/",
        "/review/{judged}/",
        "/review/{version2}/",
        "/review/{version3}/",
        f"/review/{{{LONG_SNID}}}/",
        "/review/{img}/diagrams/",
        "/review/{version3}/diff/",
        "/review/reservations/",
        "/review/snid/example/",
        "/urn/example/resolvers/edit/",
        "/admin/",
        "/admin/registry/proposal/",
        "/admin/registry/proposal/{img}/change/",
        act("a thread started", start_a_thread),
        act("judgements recorded", record_judgements),
        act("approval over failing checks", _decision("urn-5", "Approve and register…")),
        act("rejection", _decision("img", "Reject…", "Not a grid identifier.")),
        act("request for changes", _decision("img", "Request changes…", "Say who assigns the identifiers.")),
        act("changes requested", request_changes_confirmed),
        act("approved with every judgement", approve_with_every_judgement),
        act("a reservation's confirmation", confirm_a_reservation),
        act("a reservation granted", grant_a_reservation),
    ],
    "steward": [
        "/proposals/",
        "/proposals/new/",
        "/urn/example/",
        "/urn/example/stewardship/",
        "/accounts/identities/",
        act("a new version started", start_a_new_version),
    ],
}

#: Pages being reworked elsewhere: WCAG rules and width only for now (not yet best practices, nor their
#: words). Move a line into its role's walk (above) to hold it to everything.
ELSEWHERE: dict[str, list[str | Step]] = {
    "anonymous": [
        "/resolve/",
        "/resolve/?urn=urn:ogf:unregistered:x",
        "/urn:ogf:",
        "/urn:ogf:unregistered:x",
        "/urn:ogf:example:not-valid",
    ],
    "applicant": ["/urn/example/stewardship/"],
    "editor": ["/review/stewardship/", "/urn/example/stewardship/"],
}


# --- the site the walks run on --------------------------------------------------------------


@pytest.fixture
def site(transactional_db):
    """The demo registry, and a proposal in each state a page shows differently."""
    accounts = demo.demo_accounts()
    applicant, editor = accounts["applicant"][0], accounts["editor"][0]
    demo.demo_load(applicant, editor)

    def submitted(data, user=applicant):
        proposal = services.proposal_create(data, user)
        return services.proposal_transition(proposal, "submit", user)

    submitted(data_factory(snid=LONG_SNID, title="The longest SNID there can be"))
    registered = submitted(data_factory(snid=LONG_REGISTERED, title="A registered SNID as long as there can be"))
    services.proposal_transition(registered, "approve", editor, override_reason="Test data.")
    round_two = submitted(data_factory(snid="second-round", title="A second round"))
    services.proposal_transition(round_two, "request_changes", editor, comment="Say who assigns the index.")
    data = round_two.to_data()
    data.sections["scope"] += "\n\nThe WG chair assigns the index."
    services.proposal_update(round_two, data, applicant)
    services.proposal_transition(round_two, "submit", applicant)
    # Judged (all four satisfied) and approved: its findings and its panel tell one story.
    judged = submitted(data_factory(snid="judged", title="Judged and approved"))
    services.judgements_set(
        judged, editor, {c: (True, "") for c in ("scope", "snid-durable", "subdelegation", "immutability")}
    )
    services.proposal_transition(judged, "approve", editor, override_reason="Test data.")
    # Version 2 of urn:ogf:example:, approved.
    example = Namespace.objects.by_snid("example").select_related("current").get()
    version2 = submitted(next_version_data(example))
    services.proposal_transition(version2, "approve", editor, override_reason="Test data.")
    version3 = submitted(next_version_data(Namespace.objects.by_snid("example").select_related("current").get()))
    # To be approved by the walk.
    submitted(rebased(data_factory(title="Clusters"), "clusters"))
    # A draft with a grammar that does not parse, a long invalid example and an editor's thread.
    wide = services.proposal_create(
        data_factory(
            snid="wide",
            title="Wide examples",
            grammar={"abnf": BROKEN_GRAMMAR, "rule": "WIDE"},
            examples={"valid": ["urn:ogf:wide:abc:2009"], "invalid": [LONG_INVALID], "equivalent": []},
        ),
        applicant,
    )
    wide = services.proposal_transition(wide, "submit", applicant)
    services.thread_start(wide, editor, "Who assigns the names?", section="scope")
    services.proposal_transition(wide, "request_changes", editor, comment="See the thread on 4.1.")
    long_example = rebased(data_factory(title="Long examples"), "long-example")
    long_example = dataclasses.replace(
        long_example,
        examples=dataclasses.replace(long_example.examples, invalid=[*long_example.examples.invalid, LONG_ACCEPTED]),
    )
    long_example = services.proposal_create(long_example, applicant)
    services.reservation_request_create("reserve-me", applicant, reason="While we write.")
    ids = {p.snid: p.pk for p in Proposal.objects.all()}
    ids["judged"], ids["version2"], ids["version3"], ids["wide"] = judged.pk, version2.pk, version3.pk, wide.pk
    ids["long-example"] = long_example.pk
    return ids


# --- looking at a page -------------------------------------------------------------------------

OPEN_PANELS = """async () => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  await new Promise(r => setTimeout(r, 50));
}"""

AXE = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
  return result.violations.map(v => `${v.id} (${v.nodes.length}): ` +
    v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
}"""

#: Text outside code, as read: what a page shows in words.
WORDS = """() => {
  const skip = new Set(['CODE', 'PRE', 'KBD', 'SAMP', 'TEXTAREA', 'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode(node) {
    for (let e = node.parentElement; e; e = e.parentElement) if (skip.has(e.tagName)) return NodeFilter.FILTER_REJECT;
    return NodeFilter.FILTER_ACCEPT;
  }});
  const out = [];
  while (walker.nextNode()) out.push(walker.currentNode.nodeValue);
  return out.join(' ');
}"""
LITERAL_MARKUP = re.compile(r"\*\*|``|\{\{|\{%")
#: Words of the registry's own, outside what people wrote (rendered Markdown: a registration's
#: sections, thread messages, a decision's message, the help documents; the admin's record of it),
#: where "None." is English.
OWN_WORDS = WORDS.replace(
    "const out = [];",
    """const out = [];
  const written = '.prose, .markdown, div.message, blockquote, details.preview, #content .readonly';""",
).replace(
    "return NodeFilter.FILTER_ACCEPT;",
    "return node.parentElement.closest(written) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;",
)


LEAKED_NONE = re.compile(r"(?<![\w-])None(?![\w-])")  # not If-None-Match


def _starts_a_sentence(text: str, match: re.Match) -> bool:
    """ "None of the 4 judgements is recorded yet." is English; a missing value printed by Python
    stands where a value goes, inside a sentence ("urn:ogf:None:", "version None")."""
    before = text[: match.start()].rstrip(" \t")
    return not before or before.endswith(("\n", ".", "!", "?"))


def _settled(page) -> None:
    """Wait until the page the step led to is the one shown: a step's click may start a navigation
    (a form's submit, a redirect after it) that is still under way when the previous page was idle;
    examining the page then would read the page being left."""
    from playwright.sync_api import Error

    for _ in range(3):
        page.wait_for_load_state("networkidle")
        try:
            page.evaluate("document.readyState")
            return
        except Error as exc:
            if "Execution context was destroyed" not in str(exc):
                raise
    page.wait_for_load_state("networkidle")


def problems(page, label: str, tags: list[str], *, panels: bool = True, words: bool = True) -> list[str]:
    """What is wrong with the page the browser shows, one line each (``words``: its text too)."""
    _settled(page)
    if panels:
        page.evaluate(OPEN_PANELS)
        page.wait_for_load_state("networkidle")
    where = f"{label} at {page.viewport_size['width']} px"
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate((VENDOR / "axe.min.js").read_text(encoding="utf-8"))
    found = [f"{where}: {violation}" for violation in page.evaluate(AXE, tags)]
    wider = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if wider > 0:
        found.append(f"{where}: the page is {wider} px wider than the viewport")
    for what, pattern, text in (
        (
            ("'None' shown", LEAKED_NONE, page.evaluate(OWN_WORDS)),
            ("literal markup", LITERAL_MARKUP, page.evaluate(WORDS)),
        )
        if words
        else ()
    ):
        matches = [m for m in pattern.finditer(text) if pattern is not LEAKED_NONE or not _starts_a_sentence(text, m)]
        if matches:
            first = matches[0]
            found.append(
                f"{where}: {what} ({len(matches)}): "
                f"…{' '.join(text[max(0, first.start() - 50) : first.end() + 30].split())}…"
            )
    return found


def walk(chromium, live_server, site, role: str, width: int, steps, tags, *, words: bool = True) -> list[str]:
    context = chromium.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, reduced_motion="reduce"
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    found: list[str] = []
    names = {key: value for key, value in site.items()}
    try:
        if role in USERNAMES:
            login(page, USERNAMES[role], PASSWORDS[role])
        for step in steps:
            step = step if isinstance(step, Step) else Step(step, step)
            if isinstance(step.go, str):
                path = re.sub(r"\{([^}]+)\}", lambda m: str(names[m.group(1)]), step.go)
                page.goto(path)
                label = path
            else:
                step.go(page, site)
                label = step.label
            found += problems(page, f"{role}: {label}", tags, words=words)
    finally:
        context.close()
    return found


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("role", list(WALKS))
def test_every_page_is_clean_for_everyone_after_everything(chromium, live_server, site, role, width):
    found = walk(chromium, live_server, site, role, width, WALKS[role], BEST_PRACTICE)
    assert found == [], "\n".join(found)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("role", list(ELSEWHERE))
def test_pages_reworked_elsewhere_meet_wcag(chromium, live_server, site, role, width):
    found = walk(chromium, live_server, site, role, width, ELSEWHERE[role], WCAG, words=False)
    assert found == [], "\n".join(found)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_api_documentation_is_clean_with_its_panels_open(chromium, live_server, transactional_db, width):
    context = chromium.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, reduced_motion="reduce"
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: message.type == "error" and console.append(message.text))
    found: list[str] = []
    try:
        for path, ready in (("/api/docs/", ".opblock"), ("/api/redoc/", ".api-content h1")):
            page.goto(path)
            page.locator(ready).first.wait_for()
            found += problems(page, path, BEST_PRACTICE, panels=False)
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
        found += problems(page, "/api/docs/ with every operation open and one executed", BEST_PRACTICE, panels=False)
        page.locator(".btn.authorize").first.click()
        page.locator(".modal-ux").wait_for()
        found += problems(page, "/api/docs/ Authorize dialog", BEST_PRACTICE, panels=False)
        # ReDoc with every collapsed part expanded.
        page.goto("/api/redoc/")
        page.locator(".api-content h1").first.wait_for()
        page.evaluate("""async () => {
          for (let round = 0; round < 3; round++) {
            for (const b of document.querySelectorAll('button[aria-expanded="false"], .collapser'))
              if (b.offsetParent) b.click();
            await new Promise(r => setTimeout(r, 200));
          }
        }""")
        found += problems(page, "/api/redoc/ expanded", BEST_PRACTICE, panels=False)
    finally:
        context.close()
    assert found == [], "\n".join(found)
    assert console == []  # nothing refused by the Content-Security-Policy, nothing fetched from elsewhere


def test_every_page_walk_names_known_proposals():
    """A path's ``{name}`` must be one of the site's proposals (a typo would fail only in the browser)."""
    known = {
        "img",
        "newsml",
        "urn-5",
        "example",
        "fdc",
        "second-round",
        "judged",
        "version2",
        "version3",
        "wide",
        "clusters",
        "long-example",
        LONG_SNID,
        LONG_REGISTERED,
    }
    for steps in (*WALKS.values(), *ELSEWHERE.values()):
        for step in steps:
            if isinstance(step, str):
                assert set(re.findall(r"\{([^}]+)\}", step)) <= known, step
