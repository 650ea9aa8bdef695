"""An applicant imports a published registration, reviews it side by side with its source, creates the draft."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from registry.models import Proposal

from ..factories import user_factory
from .conftest import login

SEED = Path(__file__).resolve().parent.parent / "seeds" / "urn-5-registration.txt"


@pytest.mark.django_db(transaction=True)
def test_import_review_side_by_side_then_create_the_draft(new_page, screenshot):
    user_factory("ines", password="ines-long-pass-phrase")
    page = new_page()
    login(page, "ines", "ines-long-pass-phrase")
    page.goto("/proposals/import/")
    page.set_input_files("input[type=file]", str(SEED))
    page.get_by_role("button", name="Read the document").click()
    page.get_by_role("heading", name="Review what was read from the document").wait_for()
    assert Proposal.objects.count() == 0  # nothing stored before the applicant confirms

    # Each extracted part links to its source line; the link scrolls the source pane to it.
    snid_row = page.locator("#part-snid")
    expect(snid_row.get_by_role("link", name="line 2")).to_have_count(1)
    assert page.locator("#L2").inner_text().strip() == "urn-5"
    expect(page.locator(".part-row.status-uncertain").nth(1)).to_be_attached()  # version 2, reserved use, …
    examples = page.locator("#part-examples_valid textarea").input_value()
    assert "urn:ogf:urn-5:JtTCacwJ1e1N0yqTULRG7C1GLq8:4" in examples  # urn-n, its placeholder, re-cast
    page.get_by_label("Title").fill("Random identifiers")
    screenshot(page, "import-review")
    page.locator("#part-version").get_by_role("link").first.click()
    assert page.url.endswith("#L6")

    page.get_by_role("button", name="Create draft").click()
    page.get_by_text("are marked uncertain").wait_for()  # uncertain items must be confirmed
    page.get_by_label("I have checked the highlighted items against the source").check()
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url("**/proposals/*/edit/")
    proposal = Proposal.objects.get(submitter__username="ines")
    assert (proposal.snid, proposal.title) == ("urn-5", "Random identifiers")
    assert proposal.examples_valid[1] == "urn:ogf:urn-5:JtTCacwJ1e1N0yqTULRG7C1GLq8:4"
