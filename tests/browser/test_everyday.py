"""Small things seen in Chromium: the form shows only the choice made, and a confirmation is where the page lands."""

import pytest
from playwright.sync_api import expect

from registry import services

from ..factories import data_factory, proposal_factory, user_factory
from .conftest import login

IN_VIEW = """(selector) => {
  const box = document.querySelector(selector).getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight;
}"""


@pytest.mark.django_db(transaction=True)
def test_new_proposal_shows_only_the_fields_of_the_chosen_start(new_page):
    holder = user_factory("hal", password="hal-long-pass-phrase")
    proposal_factory(holder, state="approved")
    page = new_page()
    login(page, "hal", "hal-long-pass-phrase")
    page.goto("/proposals/new/")
    assert page.get_by_label("SNID", exact=True).is_visible()
    assert not page.get_by_label("SNID to revise").is_visible()
    page.get_by_label("A new version of an SNID registered to me").check()
    assert page.get_by_label("SNID to revise").is_visible()
    assert not page.get_by_label("SNID", exact=True).is_visible()
    page.get_by_role("button", name="Create the draft").click()  # no SNID chosen: the error is beside the list
    expect(page.get_by_text("Choose which of your SNIDs to revise.")).to_be_visible()
    expect(page.get_by_label("SNID to revise")).to_be_visible()


@pytest.mark.django_db(transaction=True)
def test_review_confirmations_are_in_view_where_the_page_lands(new_page):
    applicant = user_factory("ann")
    user_factory("erin", editor=True, password="erin-long-pass-phrase")
    proposal = services.proposal_create(data_factory(title="Landing in view"), applicant)
    services.proposal_transition(proposal, "submit", applicant)
    page = new_page()
    login(page, "erin", "erin-long-pass-phrase")
    page.goto(f"/review/{proposal.pk}/")
    section = page.locator("#section-scope")
    section.locator("summary", has_text="Comment on 4.1 Scope").click()
    section.get_by_label("Your comment on 4.1 Scope").fill("Who assigns the index?")
    section.get_by_role("button", name="Start thread").click()
    page.get_by_text("Comment added; ann can see it").wait_for()
    assert "#thread-" in page.url
    assert page.evaluate(IN_VIEW, "#section-scope .thread .messages")

    page.locator("fieldset.judgement", has_text="scope").get_by_label("Satisfied", exact=True).check()
    page.get_by_role("button", name="Record judgements").click()
    page.get_by_text("1 judgement recorded; 3 still open.").wait_for()
    assert page.url.endswith("#judgements")
    assert page.evaluate(IN_VIEW, "#judgements .messages")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", (1280, 375))
def test_approval_over_failing_checks_gives_the_reason_a_full_width_box_under_its_label(chromium, live_server, width):
    applicant = user_factory("ann")
    user_factory("erin", editor=True, password="erin-long-pass-phrase")
    proposal = proposal_factory(applicant, name="urn-5", state="submitted")
    context = chromium.new_context(base_url=live_server.url, viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        login(page, "erin", "erin-long-pass-phrase")
        page.goto(f"/review/{proposal.pk}/")
        page.get_by_role("button", name="Approve and register…").click()
        # The click returns once the confirmation page has started to load: wait for what is asked of it.
        expect(page.locator("ul.failing-checks li").first).to_be_visible()
        label = page.get_by_text("Why approve anyway (public)").bounding_box()
        box = page.get_by_label("Why approve anyway (public)").bounding_box()
        form = page.locator("section.confirm form").bounding_box()
        assert box["y"] >= label["y"] + label["height"] - 1  # under its label, not beside it
        assert box["width"] >= 0.9 * (form["width"] - 32) and box["height"] >= 100
    finally:
        context.close()


PANEL_SCROLLS = """() => {
  const panel = document.querySelector('aside.decision-panel');
  return {inside: panel.scrollHeight - panel.clientHeight, position: getComputedStyle(panel).position};
}"""


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("height", (900, 1080))
def test_the_decision_panel_fits_the_screen_it_stays_in(chromium, live_server, height):
    """The panel held in view beside the proposal never scrolls inside itself: not before the judgements,
    not with the confirmation of two judgements shown in it, not for a proposal whose checks fail."""
    applicant = user_factory("ann")
    user_factory("erin", editor=True, password="erin-long-pass-phrase")
    proposal = proposal_factory(applicant, name="urn-5", state="submitted")
    context = chromium.new_context(base_url=live_server.url, viewport={"width": 1280, "height": height})
    try:
        page = context.new_page()
        login(page, "erin", "erin-long-pass-phrase")
        page.goto(f"/review/{proposal.pk}/")
        page.evaluate("window.scrollTo(0, 1200)")
        assert page.evaluate(PANEL_SCROLLS) == {"inside": 0, "position": "sticky"}
        for check in ("scope", "snid-durable"):
            page.locator(f'input[name="verdict-{check}"][value="ok"]').check()
        page.get_by_role("button", name="Record judgements").click()
        page.get_by_text("2 judgements recorded").wait_for()
        assert page.evaluate(PANEL_SCROLLS)["inside"] == 0
    finally:
        context.close()


@pytest.mark.django_db(transaction=True)
def test_on_a_short_screen_the_decision_panel_is_not_held_in_view(chromium, live_server):
    """Where it would not fit, the panel stays at the top of its column: read with the page, never
    through a scroll bar of its own."""
    applicant = user_factory("ann")
    user_factory("erin", editor=True, password="erin-long-pass-phrase")
    proposal = proposal_factory(applicant, name="urn-5", state="submitted")
    context = chromium.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 700})
    try:
        page = context.new_page()
        login(page, "erin", "erin-long-pass-phrase")
        page.goto(f"/review/{proposal.pk}/")
        assert page.evaluate(PANEL_SCROLLS) == {"inside": 0, "position": "static"}
    finally:
        context.close()


@pytest.mark.django_db(transaction=True)
def test_replying_on_the_edit_page_keeps_what_was_typed_in_the_form(new_page):
    applicant = user_factory("ann", password="ann-long-pass-phrase")
    editor = user_factory("erin", editor=True)
    proposal = proposal_factory(applicant, state="submitted")
    thread = services.thread_start(proposal, editor, "Who assigns the index?", section="scope")
    services.proposal_transition(proposal, "request_changes", editor, comment="See 4.1.")
    page = new_page()
    login(page, "ann", "ann-long-pass-phrase")
    page.goto(f"/proposals/{proposal.pk}/edit/")
    scope = page.get_by_label("4.1 Scope")
    typed = scope.input_value() + "\n\nThe WG chair assigns the index."
    scope.fill(typed)
    box = page.locator(f"#thread-{thread.pk}")
    box.get_by_label("Reply to this thread").fill("Now said in 4.1.")
    box.get_by_role("button", name="Reply").click()
    page.get_by_text("Reply added").wait_for()
    assert page.get_by_label("4.1 Scope").input_value() == typed
    assert page.locator(f"#thread-{thread.pk}").get_by_text("Now said in 4.1.").is_visible()
    page.reload()
    assert page.get_by_label("4.1 Scope").input_value() == typed  # saved, not only shown
