"""An applicant signs up, writes a proposal from the GFD.191 example, fixes a failing check, submits."""

import pytest
from playwright.sync_api import expect

from registry.models import Proposal

TYPO = "urn:ogf:ada-clusters:cluster:2009:example.net:4two"
FIXED = "urn:ogf:ada-clusters:cluster:2009:example.net:42"


@pytest.mark.django_db(transaction=True)
def test_new_user_writes_fixes_and_submits_a_proposal(new_page, screenshot):
    page = new_page()
    page.goto("/accounts/signup/")
    screenshot(page, "signup")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Email").fill("ada@example.org")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase-42")
    page.get_by_label("Password confirmation").fill("a-long-pass-phrase-42")
    page.get_by_role("button", name="Create account").click()
    page.get_by_role("heading", name="Check your e-mail").wait_for()
    from django.core import mail

    (message,) = [m for m in mail.outbox if m.to == ["ada@example.org"]]
    link = next(line for line in message.body.splitlines() if "/accounts/confirm/" in line).strip()
    page.goto("/" + link.split("://", 1)[1].split("/", 1)[1])
    page.get_by_role("button", name="Confirm and sign in").click()

    page.get_by_label("A new SNID, starting from the GFD.191 worked example").check()
    page.get_by_label("SNID", exact=True).fill("ada-clusters")
    page.get_by_role("button", name="Create the draft").click()
    page.wait_for_url("**/proposals/*/edit/")
    assert page.locator(".finding.fail").count() == 0

    valid = page.get_by_label("Valid example URNs", exact=True)
    valid.fill(valid.input_value() + "\n" + TYPO)
    page.get_by_role("button", name="Check without saving").click()
    failing = page.locator("#workbench .finding.fail")
    failing.first.wait_for()
    assert failing.first.get_attribute("data-check") == "examples-valid"
    assert TYPO in failing.first.inner_text()
    expect(failing.first.get_by_role("link")).to_have_text("6 Examples: valid examples, line 5")
    screenshot(page, "edit-failing-check")

    valid.fill(valid.input_value().replace(TYPO, FIXED))
    page.get_by_role("button", name="Save draft").click()
    page.get_by_text("Draft saved.").wait_for()
    assert page.locator("#workbench .finding.fail").count() == 0

    page.get_by_role("button", name="Save and submit for review").click()
    page.get_by_text("Submitted for review.").wait_for()
    screenshot(page, "proposal-submitted")
    proposal = Proposal.objects.get(submitter__username="ada")
    assert proposal.state == "submitted"
    assert proposal.examples_valid[-1] == FIXED


@pytest.mark.django_db(transaction=True)
def test_validation_error_keeps_every_input(new_page):
    from django.contrib.auth import get_user_model

    from ..factories import proposal_factory
    from .conftest import login

    user = get_user_model().objects.create_user("bea", "bea@example.org", "another-long-pass-7")
    proposal = proposal_factory(user)
    page = new_page()
    login(page, "bea", "another-long-pass-7")
    page.goto(f"/proposals/{proposal.pk}/edit/")
    page.get_by_label("4.1 Scope").fill("A scope I typed and must not lose.")
    page.get_by_label("Registration version").fill("0")
    page.get_by_role("button", name="Save draft").click()
    page.get_by_text("Nothing was saved").wait_for()
    assert page.get_by_label("4.1 Scope").input_value() == "A scope I typed and must not lose."
