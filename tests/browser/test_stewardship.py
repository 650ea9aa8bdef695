"""After approval: a steward asks for a new public contact, an editor approves, the public page shows it."""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from registry import services

from ..factories import proposal_factory
from .conftest import login

NEW_CONTACT = "urn-registry@wg.example.org"


@pytest.mark.django_db(transaction=True)
def test_steward_requests_a_contact_change_and_an_editor_approves_it(new_page, screenshot):
    users = get_user_model().objects
    steward = users.create_user("stella", "stella@example.org", "steward-pass-phrase-1")
    editor = users.create_user("eddie", "eddie@example.org", "editor-pass-phrase-1")
    editor.groups.add(services.editors_group())
    proposal_factory(steward, state="approved", editor=editor)

    page = new_page()
    login(page, "stella", "steward-pass-phrase-1")
    page.goto("/urn/example/")
    page.get_by_role("link", name="manage").click()
    page.wait_for_url("**/urn/example/stewardship/")
    form = page.locator("#change-contact")
    form.get_by_label("New public contact").fill(NEW_CONTACT)
    form.get_by_label("Why (shown to the editors)").fill("The working group's role address.")
    screenshot(page, "stewardship-request")
    form.get_by_role("button", name="Ask an editor to change the contact").click()
    page.get_by_text("Your request to change the contact is sent").wait_for()

    editor_page = new_page()
    login(editor_page, "eddie", "editor-pass-phrase-1")
    editor_page.goto("/review/stewardship/")
    request = editor_page.locator("form.change-decision", has_text="urn:ogf:example:")
    assert NEW_CONTACT in request.inner_text()
    request.get_by_role("button", name="Approve").click()
    editor_page.get_by_text("is approved and public").wait_for()

    public = new_page()
    public.goto("/urn/example/")
    card = public.locator("section.card")
    assert NEW_CONTACT in card.inner_text()
    history = public.locator("section.stewardship .history")
    today = timezone.localdate().isoformat()
    assert f"{today}: Contact changed by an editor at the steward's request." in history.inner_text()
    screenshot(public, "stewardship-public-page", full_page=True)
