"""The automated review panel is always about what is on screen, with and without JavaScript.

The sequence from issue 15: try to save a draft with SNID "-bad" (refused, and the
panel says why), change it back and set Version to 0 (invalid), then check without saving and save: the panel must judge
what was typed (the new SNID, version 0), list the field error beside the findings
and say when it was checked; with JavaScript it also says "out of date" as soon as
the form changes.
"""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from ..factories import proposal_factory
from .conftest import login

OLD_VERDICT = "The SNID must start with a letter or digit"
PASSWORD = "a-long-pass-phrase-42"


def _start(page, live_server):
    user = get_user_model().objects.create_user("cleo", "cleo@example.org", PASSWORD)
    proposal = proposal_factory(user)
    login(page, "cleo", PASSWORD)
    page.goto(f"/proposals/{proposal.pk}/edit/")
    page.get_by_label("SNID", exact=True).fill("-bad")
    page.get_by_role("button", name="Save draft").click()
    page.get_by_text("Nothing was saved").wait_for()
    assert OLD_VERDICT in page.locator("#workbench").inner_text()
    return proposal


def _assert_panel_judges_the_typed_input(page):
    panel = page.locator("#workbench").inner_text()
    assert OLD_VERDICT not in panel
    assert "'uuid-demo' is a well-formed SNID" in panel
    assert "Not checked: fix the Registration version field first." in panel  # the form error, once
    assert "The version should be" not in panel
    assert "Registration version: Ensure this value is greater than or equal to 1." in panel
    assert "Checked at" in panel


@pytest.mark.django_db(transaction=True)
def test_stale_result_sequence_with_javascript(new_page, live_server):
    page = new_page()
    _start(page, live_server)
    page.get_by_label("SNID", exact=True).fill("uuid-demo")
    page.get_by_label("Registration version").fill("0")
    stale = page.locator("#workbench .check-stale")
    assert stale.is_visible()
    assert "out of date" in page.locator("#check-announcer").inner_text()

    page.get_by_role("button", name="Check without saving").click()
    # The refused save left field errors in the panel already: wait for the new answer.
    expect(page.locator("#workbench")).not_to_contain_text(OLD_VERDICT)
    page.locator("#workbench .field-errors").wait_for()
    _assert_panel_judges_the_typed_input(page)
    assert not page.locator("#workbench .check-stale").is_visible()
    assert "Checked at" in page.locator("#check-announcer").inner_text()

    page.get_by_role("button", name="Save draft").click()
    page.get_by_text("Nothing was saved").wait_for()
    _assert_panel_judges_the_typed_input(page)


@pytest.mark.django_db(transaction=True)
def test_stale_result_sequence_without_javascript(chromium, live_server):
    context = chromium.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        _start(page, live_server)
        page.get_by_label("SNID", exact=True).fill("uuid-demo")
        page.get_by_label("Registration version").fill("0")
        page.get_by_role("button", name="Check without saving").click()
        page.get_by_text("Nothing was saved").wait_for()
        _assert_panel_judges_the_typed_input(page)
        assert page.get_by_label("SNID", exact=True).input_value() == "uuid-demo"

        page.get_by_role("button", name="Save draft").click()
        page.get_by_text("Nothing was saved").wait_for()
        _assert_panel_judges_the_typed_input(page)
    finally:
        context.close()
