"""Issue 44's acceptance, walked in Chromium at 1280 and 375 px: the review decides what the editor
saw and judged.

Two rounds. Round 1: the applicant submits; the editor records the four judgements of GFD.191 §5,
"Within the OGF's scope" not satisfied, and requests changes. The applicant changes the title, adds
a resolver (section 3.2), changes the registrant's organisation and section 4.1, and submits again;
the editors' mail gives the review's counts. Round 2: the editor finds all four changes under
"Changes since round 1" and again on the confirmation page, where the approval is refused without a
written reason (the judgement listed; a blank reason refused by the page, then by the server), then
given with one. The public page says "Approved although … because …", and so does the decision's mail.

And one reservation as an editor: reserved and released, each through its confirmation page; the
release is listed under "Released" with its date and editor, and the log says so.

axe-core (WCAG 2.2 A/AA and best practices), the width check and the words check of
``test_every_page.problems`` run on every page shown, at both widths.
"""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.utils import timezone
from playwright.sync_api import expect

from registry import services
from registry.models import Namespace, Proposal

from ..factories import data_factory, user_factory
from .conftest import login
from .test_every_page import BEST_PRACTICE, problems

WIDTHS = (1280, 375)
APPLICANT, EDITOR = ("carl", "carl-long-pass-phrase"), ("erin", "erin-long-pass-phrase")
SCOPE_NOTE = "A product catalogue of one vendor is not the OGF's to name."
REQUEST = "Say which grid resources the identifiers name, so that they are within the OGF's scope."
NEW_TITLE = "Supercomputers, clusters and grid storage"
NEW_ORGANISATION = "Open Grid Forum, Grid Storage WG"
SCOPE_ADDED = "The identifiers name grid storage clusters run by OGF members."
RESOLVER_NAME = "Cluster catalogue"
RESOLVER_TEMPLATE = "https://catalogue.example.net/{DOMAIN}/{INDEX}"
REASON = "The steering group decided on 2026-11-20 that grid storage catalogues are within the OGF's scope."
SCOPE_BLOCKER = "Within the OGF's scope: judged not satisfied"
#: The review's counts once scope is judged not satisfied (the example's two warnings are its own).
COUNTS = re.compile(r"^\s*1 failing · \d+ with a warning · 0 for the editor's judgement\s*$")


def _context(chromium, live_server, width):
    context = chromium.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, reduced_motion="reduce"
    )
    context.set_default_timeout(20_000)
    return context


def _clean(page, label: str, found: list[str]) -> None:
    """Collect what axe-core, the width check and the words check find on the page shown."""
    found += problems(page, label, BEST_PRACTICE)


def _sentence(counts) -> str:
    """The counts as the mails write them: the same words, joined by commas instead of dots."""
    return " ".join(counts.inner_text().split()).replace(" · ", ", ")


def _mails(subject_part: str) -> list:
    return [m for m in mail.outbox if subject_part in m.subject]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_two_rounds_judged_changed_then_approved_over_a_judgement_with_a_reason(
    chromium, live_server, screenshot, width
):
    applicant = user_factory(APPLICANT[0], password=APPLICANT[1])
    user_factory(EDITOR[0], editor=True, password=EDITOR[1])
    proposal = services.proposal_create(data_factory(title="Historic supercomputers"), applicant)
    contexts = [_context(chromium, live_server, width) for _ in ("applicant", "editor")]
    found: list[str] = []
    try:
        applicant_page, editor_page = (context.new_page() for context in contexts)
        login(applicant_page, *APPLICANT)
        login(editor_page, *EDITOR)
        # Round 1, the applicant submits.
        applicant_page.goto(f"/proposals/{proposal.pk}/edit/")
        applicant_page.get_by_role("button", name="Save and submit for review").click()
        applicant_page.get_by_text("Submitted for review.").wait_for()

        # Round 1, the editor: the four judgements, scope not satisfied; then changes requested.
        editor_page.goto(f"/review/{proposal.pk}/")
        panel = editor_page.locator(".decision-panel")
        for check_id in ("snid-durable", "subdelegation", "immutability"):
            panel.locator(f'input[name="verdict-{check_id}"][value="ok"]').check()
        panel.locator('input[name="verdict-scope"][value="not-ok"]').check()
        scope = panel.locator("fieldset.judgement", has=editor_page.locator('legend[data-check="scope"]'))
        scope.locator("details.question > summary").click()
        scope.get_by_label("Note on Within the OGF's scope").fill(SCOPE_NOTE)
        panel.get_by_role("button", name="Record judgements").click()
        editor_page.get_by_text("4 judgements recorded: none is left to judge.").wait_for()
        expect(editor_page.locator("#review-counts")).to_have_text(COUNTS)
        _clean(editor_page, "round 1: the review page, judged", found)
        editor_page.get_by_label("Message to the applicant").fill(REQUEST)
        editor_page.get_by_role("button", name="Request changes…").click()
        editor_page.get_by_text("carl, the applicant, gets an e-mail").wait_for()
        _clean(editor_page, "round 1: the confirmation of a request for changes", found)
        editor_page.get_by_role("button", name="Yes, request changes").click()
        editor_page.get_by_text("Changes requested; carl has been told").wait_for()

        # The applicant: title, a resolver, the registrant's organisation and 4.1 changed; submitted again.
        applicant_page.goto(f"/proposals/{proposal.pk}/edit/")
        applicant_page.locator("#decision").get_by_text(REQUEST).wait_for()
        applicant_page.get_by_label("Title", exact=True).fill(NEW_TITLE)
        applicant_page.get_by_label("Resolvers", exact=True).fill(
            f"{RESOLVER_NAME} | {RESOLVER_TEMPLATE} | landing | text/html"
        )
        applicant_page.get_by_role("textbox", name="Organisation", exact=True).fill(NEW_ORGANISATION)
        scope_field = applicant_page.get_by_label("4.1 Scope", exact=True)
        scope_field.fill(scope_field.input_value() + "\n\n" + SCOPE_ADDED)
        applicant_page.get_by_role("button", name="Save and submit for review").click()
        applicant_page.get_by_text("Submitted for review.").wait_for()
        resubmitted = _mails("submitted again")
        assert len(resubmitted) == 1 and resubmitted[0].to == ["erin@example.org"]

        # Round 2, the editor: every change since round 1.
        editor_page.goto(f"/review/{proposal.pk}/")
        counts = editor_page.locator("#review-counts")
        expect(counts).to_have_text(COUNTS)  # the judgement not satisfied is the one failure, none left to judge
        assert f"The review's counts: {_sentence(counts)}." in resubmitted[0].body
        changes = editor_page.locator("#round-changes")
        expect(changes.locator("#round-title")).to_contain_text("Changes since round 1")
        _expect_the_four_changes(changes)
        counted = _sentence(counts)
        _clean(editor_page, "round 2: the review page", found)

        # Approval asked for: refused without a reason, the judgement listed.
        editor_page.get_by_role("button", name="Approve and register…").click()
        confirm = editor_page.locator("section.confirm")
        expect(confirm.get_by_role("heading", name="What changed since round 1")).to_be_visible()
        _expect_the_four_changes(confirm.locator(".changes-seen"))
        blockers = confirm.locator("ul.failing-checks > li")
        expect(blockers).to_have_count(1)
        expect(blockers).to_have_text(SCOPE_BLOCKER)
        assert blockers.get_attribute("data-kind") == "not-satisfied"
        expect(confirm.get_by_role("button", name="Yes, approve")).to_have_count(0)
        approve = confirm.get_by_role("button", name="Approve anyway, with this reason")
        reason = confirm.get_by_label("Why approve anyway (public)")
        _clean(editor_page, "round 2: the confirmation of an approval over a judgement", found)
        screenshot(editor_page, f"review-approve-over-a-judgement-{width}", full_page=True)
        approve.click()  # no reason: the page itself refuses to send the form
        assert reason.evaluate("field => !field.validity.valid && document.activeElement === field")
        assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
        reason.fill("   ")  # a blank reason gets past the browser; the server refuses it
        approve.click()
        expect(editor_page.get_by_role("alert")).to_have_text(
            "Nothing was decided: approving over what is listed below needs your written reason."
        )
        assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
        expect(confirm.locator("ul.failing-checks > li")).to_have_text(SCOPE_BLOCKER)
        _clean(editor_page, "round 2: an approval refused without a reason", found)
        confirm.get_by_label("Why approve anyway (public)").fill(REASON)
        confirm.get_by_role("button", name="Approve anyway, with this reason").click()
        editor_page.get_by_text("Approved: urn:ogf:example: is registered and published").wait_for()
        _clean(editor_page, "round 2: approved", found)

        # The public page, and the decision's mail.
        decided = Proposal.objects.get(pk=proposal.pk)
        assert decided.state == "approved" and decided.override_reason == REASON
        editor_page.goto("/urn/example/")
        note = editor_page.locator(".card aside.editor-note")
        expect(note).to_contain_text("Approved although")
        expect(note.locator("ul.overridden > li")).to_have_text([SCOPE_BLOCKER])
        expect(note).to_contain_text(f"because {REASON}")
        expect(editor_page.locator("main")).to_contain_text(NEW_TITLE)
        _clean(editor_page, "the public page of the SNID", found)
        screenshot(editor_page, f"snid-approved-although-{width}")
    finally:
        for context in contexts:
            context.close()
    decisions = _mails("urn:ogf:example: is registered")
    assert len(decisions) == 1 and decisions[0].to == ["carl@example.org"]
    body = decisions[0].body
    assert f"It was approved although:\n- {SCOPE_BLOCKER}\nbecause: {REASON}" in body
    assert f"The review's counts at this decision: {counted}." in body
    assert found == [], "\n".join(found)


def _expect_the_four_changes(where) -> None:
    """The title, the registrant's organisation, section 4.1 and the added resolver, as _changes.html shows them."""
    expect(where.locator("pre.diff ins", has_text=f"+ {NEW_TITLE}")).to_have_count(1)
    expect(where.locator("pre.diff ins", has_text=f"+ Organisation: {NEW_ORGANISATION}")).to_have_count(1)
    expect(where.locator("pre.diff ins", has_text=SCOPE_ADDED)).to_have_count(1)
    for heading in ("Title", "1.3 Declared Registrant", "4.1 Scope", "Resolvers (3.2)"):
        expect(where.get_by_role("heading", name=heading, exact=True)).to_have_count(1)
    added = where.locator("table.resolver-changes tr.resolver-added")
    expect(added.first.locator("td").first).to_have_text(RESOLVER_NAME)
    expect(added.filter(has_text="URL template").locator("td").last).to_have_text(RESOLVER_TEMPLATE)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_a_reservation_is_reserved_then_released_each_confirmed_first(chromium, live_server, screenshot, width):
    user_factory(EDITOR[0], editor=True, password=EDITOR[1])
    context = _context(chromium, live_server, width)
    found: list[str] = []
    today = timezone.localdate().isoformat()
    try:
        page = context.new_page()
        login(page, *EDITOR)
        page.goto("/review/reservations/")
        _clean(page, "the reservations", found)
        page.locator("#r-snid").fill("glue")
        page.locator("#r-reason").fill("While the GLUE WG writes its proposal.")
        page.get_by_role("button", name="Reserve…").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Confirm: reserve urn:ogf:glue:")
        expect(page.locator("section.confirm")).to_contain_text("urn:ogf:glue: is reserved until")
        _clean(page, "the confirmation of a reservation", found)
        assert not Namespace.objects.by_snid("glue").exists()  # the confirmation changed nothing
        page.get_by_role("button", name="Reserve", exact=True).click()
        page.get_by_text("urn:ogf:glue: is reserved until").wait_for()
        assert Namespace.objects.by_snid("glue").get().status == "reserved"

        active = page.locator("form.reservation", has_text="urn:ogf:glue:")
        active.get_by_role("button", name="Release now…").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(
            "Confirm: release the reservation of urn:ogf:glue: now"
        )
        expect(page.locator("section.confirm")).to_contain_text(f"released on {today} by erin")
        _clean(page, "the confirmation of a release", found)
        screenshot(page, f"reservation-release-confirmation-{width}")
        assert Namespace.objects.by_snid("glue").get().released_at is None
        page.get_by_role("button", name="Release the reservation now").click()
        page.get_by_text(f"is released (on {today} by erin)").wait_for()
        released = page.locator("h2", has_text="Released").locator("xpath=following-sibling::ul[1]/li")
        expect(released).to_have_text([f"urn:ogf:glue: released on {today} by erin"])
        expect(page.locator("form.reservation", has_text="urn:ogf:glue:")).to_have_count(0)
        expect(page.get_by_role("heading", name="Expired")).to_have_count(0)
        _clean(page, "the reservations after the release", found)
        page.goto("/log/")
        expect(page.locator("main")).to_contain_text(f"Reservation released on {today} by erin")
    finally:
        context.close()
    namespace = Namespace.objects.by_snid("glue").get()
    assert (
        namespace.released_by.username == "erin"
        and timezone.localtime(namespace.released_at).date().isoformat() == today
    )
    assert found == [], "\n".join(found)
