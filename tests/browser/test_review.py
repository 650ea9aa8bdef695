"""An editor requests changes, the applicant resubmits, the editor approves and finds the SNID on /urn/."""

import pytest
from django.contrib.auth import get_user_model

from registry import services

from ..factories import data_factory, user_factory
from .conftest import login


@pytest.mark.django_db(transaction=True)
def test_editor_requests_changes_applicant_resubmits_editor_approves(new_page, screenshot):
    applicant = get_user_model().objects.create_user("carl", "carl@example.org", "carl-long-pass-phrase")
    user_factory("erin", editor=True, password="erin-long-pass-phrase")
    proposal = services.proposal_create(data_factory(title="Historic supercomputers"), applicant)
    services.proposal_transition(proposal, "submit", applicant)

    editor_page = new_page()
    login(editor_page, "erin", "erin-long-pass-phrase")
    editor_page.goto("/review/")
    screenshot(editor_page, "review-queue")
    editor_page.get_by_role("link", name="urn:ogf:example:").click()
    screenshot(editor_page, "review-proposal")
    editor_page.get_by_label("Comment to the applicant").fill("Please say in 4.1 who assigns the index.")
    editor_page.get_by_role("button", name="Request changes").click()
    editor_page.get_by_text("Sent back for changes").wait_for()

    applicant_page = new_page()
    login(applicant_page, "carl", "carl-long-pass-phrase")
    applicant_page.goto("/proposals/")
    applicant_page.get_by_role("link", name="urn:ogf:example:").click()
    applicant_page.get_by_text("Please say in 4.1 who assigns the index.").first.wait_for()
    applicant_page.get_by_role("link", name="Edit").click()
    scope = applicant_page.get_by_label("4.1 Scope")
    scope.fill(scope.input_value() + "\n\nThe assigning organisation chooses the index.")
    applicant_page.get_by_role("button", name="Save and submit for review").click()
    applicant_page.get_by_text("Submitted for review.").wait_for()

    editor_page.goto(f"/review/{proposal.pk}/")
    editor_page.get_by_role("button", name="Approve and register").click()
    editor_page.get_by_text("Approved and published in the registry.").wait_for()

    editor_page.goto("/urn/")
    editor_page.get_by_role("link", name="urn:ogf:example:").click()
    editor_page.get_by_text("The assigning organisation chooses the index.").wait_for()
    screenshot(editor_page, "registry-snid", full_page=False)
    editor_page.goto("/urn/")
    screenshot(editor_page, "registry-list")
