"""After approval, in Chromium at 1280 and 375 px: a steward asks for new resolvers and a new contact and
invites a colleague; an editor deprecates an SNID; another editor decides the requests and the invitation
from the queue. Every page on the way — forms, previews, confirmations, the pages after each step — is
checked by axe-core (0 violations) and must not be wider than the window; the mails each step sends are
read; the public page shows the outcome and names the steward as she chose."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone

from registry import services

from ..factories import proposal_factory
from ..test_stewardship_views import NEW_CONTACT, RESOLVERS
from .conftest import login
from .test_every_page import BEST_PRACTICE, WCAG, WIDTHS, problems

ARCHIVE = "archive | https://archive.example.org/records/{nss} | landing"


class Walk:
    """Each page is examined where the walk stands, as the page walk examines every page
    (tests/browser/test_every_page.py): axe-core and no horizontal scrolling."""

    def __init__(self, width):
        self.width = width
        self.failures: list[str] = []

    def examine(self, page, label, *, best_practice: bool = True):
        """WCAG 2.2 A and AA, and axe's best practices on the stewardship pages (the public SNID page's
        own headings are checked by tests/browser/test_accessibility.py)."""
        self.failures += problems(page, label, BEST_PRACTICE if best_practice else WCAG, panels=False, words=False)


def _people():
    users = get_user_model().objects
    steward = users.create_user(
        "stella", "stella@example.org", "steward-pass-phrase-1", first_name="Stella", last_name="Steward"
    )
    editors = []
    for name in ("eddie", "edna"):
        editor = users.create_user(name, f"{name}@example.org", "editor-pass-phrase-1")
        editor.groups.add(services.editors_group())
        editors.append(editor)
    users.create_user("ivan", "ivan@example.org", "invitee-pass-phrase-1", first_name="Ivan", last_name="Invitee")
    proposal_factory(steward, state="approved", editor=editors[1], resolvers=RESOLVERS)
    proposal_factory(steward, state="approved", editor=editors[1], snid="retired")
    return steward, editors


def _subjects(address) -> list[str]:
    return [m.subject for m in mail.outbox if address in m.to]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_a_stewards_requests_and_the_editors_decisions_at_both_widths(chromium, live_server, width, screenshot):
    _people()
    mail.outbox.clear()  # the registrations' own mails
    walk = Walk(width)
    context = chromium.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, reduced_motion="reduce"
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        # --- the steward asks: resolvers, contact, an invitation ---------------------------------------
        login(page, "stella", "steward-pass-phrase-1")
        page.goto("/urn/example/")
        page.get_by_role("link", name="manage").click()
        page.wait_for_url("**/urn/example/stewardship/")
        walk.examine(page, "stewardship page (steward)")
        resolvers = page.locator("#change-resolvers textarea").first
        lines = resolvers.input_value()
        assert lines.splitlines() == [
            "catalogue | https://data.example.org/{nss} | metadata | application/json | primary",
            "mirror | https://mirror.example.org/{nss} | landing",
        ]
        resolvers.fill(lines.splitlines()[0] + "\n" + ARCHIVE)
        page.locator("#change-resolvers").get_by_label("Why (shown to the editors)").fill(
            "The mirror closed; the archive serves the records now."
        )
        page.locator("#change-resolvers").get_by_role("button", name="Show what will change").click()
        page.get_by_role("heading", name="Check your request: ask to change the resolvers").wait_for()
        walk.examine(page, "resolver request preview")
        assert "removed" in page.locator("table", has_text="Resolvers now").inner_text()
        assert "added" in page.locator("table", has_text="Resolvers asked for").inner_text()
        screenshot(page, f"stewardship-resolvers-preview-{width}", full_page=True)
        page.get_by_role("button", name="Change it").click()  # back to the form: the lines are as typed
        assert page.get_by_label("Resolvers (all of them, as they should stand)").input_value().endswith(ARCHIVE)
        page.get_by_role("button", name="Show what will change").click()
        page.get_by_role("button", name="Send the request").click()
        page.get_by_text("Your request is sent: a change of the resolvers").wait_for()
        walk.examine(page, "stewardship page after a request")

        contact = page.locator("#change-contact")
        contact.get_by_label("New public contact").fill(NEW_CONTACT)
        contact.get_by_label("Why (shown to the editors)").fill("The working group's role address.")
        contact.get_by_role("button", name="Show what will change").click()
        walk.examine(page, "contact request preview")
        assert "1.3 Declared Registrant: public contact" in page.locator("table.change-diff").inner_text()
        page.get_by_role("button", name="Send the request").click()
        page.get_by_text("Your request is sent: a change of the contact").wait_for()

        invite = page.locator("#invite")
        invite.get_by_label("Their user name").fill("ivan")
        invite.get_by_label("Why (shown to the editors)").fill("Ivan runs the archive.")
        invite.get_by_role("button", name="Show what will happen").click()
        walk.examine(page, "invitation preview")
        page.get_by_role("button", name="Send the invitation").click()
        page.get_by_text("Ivan Invitee (ivan) is invited").wait_for()
        assert _subjects("eddie@example.org") == [
            "[urn:ogf] urn:ogf:example: change of the resolvers requested",
            "[urn:ogf] urn:ogf:example: change of the contact requested",
            "[urn:ogf] urn:ogf:example: a steward invited ivan",
        ]
        assert _subjects("ivan@example.org") == [
            "[urn:ogf] urn:ogf:example: Ivan Invitee (ivan) is invited as a steward"
        ]

        # --- an editor deprecates another SNID --------------------------------------------------------
        editor = context.new_page()
        login(editor, "edna", "editor-pass-phrase-1")
        editor.goto("/urn/retired/stewardship/deprecate/")
        walk.examine(editor, "deprecation form")
        editor.get_by_label("Why the SNID is deprecated (public)").fill("Replaced by urn:ogf:example:.")
        editor.get_by_label("Successor SNID (optional)").fill("example")
        editor.get_by_role("button", name="Show what will happen").click()
        walk.examine(editor, "deprecation confirmation")
        editor.get_by_role("button", name="Deprecate").click()
        editor.get_by_text("urn:ogf:retired: is deprecated").wait_for()
        walk.examine(editor, "stewardship page after the deprecation")
        deprecated = next(m for m in mail.outbox if m.subject == "[urn:ogf] urn:ogf:retired: is deprecated")
        assert deprecated.to == ["stella@example.org"] and "urn:ogf:example:" in deprecated.body

        # --- another editor decides from the queue --------------------------------------------------------
        login(editor, "eddie", "editor-pass-phrase-1")
        editor.goto("/review/stewardship/")
        walk.examine(editor, "editors' queue with a resolver request")
        queue = editor.locator("main").inner_text()
        assert "registrant_public_contact" not in queue and "urn:ogf:example::" not in queue
        assert "Ivan Invitee (ivan)" in queue and "Stella Steward (stella)" in queue
        screenshot(editor, f"stewardship-queue-{width}", full_page=True)
        mail.outbox.clear()
        for title, note in (("Resolvers", "The archive answers."), ("Public contact", "A role address, thanks.")):
            request = editor.locator("article.change-request-item", has_text=title)
            request.get_by_role("link", name="Approve…").click()
            walk.examine(editor, f"approval confirmation ({title})")
            editor.get_by_label("Note to the stewards (in the mail; optional)").fill(note)
            editor.get_by_role("button", name="Approve").click()
            editor.get_by_text("is approved and public").wait_for()
            walk.examine(editor, "queue after a decision")
        editor.locator("article.invitation-item").get_by_role("link", name="Confirm…").click()
        walk.examine(editor, "invitation confirmation")
        editor.get_by_role("button", name="Confirm the invitation").click()
        editor.get_by_text("Ivan Invitee (ivan) is now a steward").wait_for()

        approved = {m.subject: m for m in mail.outbox if m.to == ["stella@example.org"]}
        resolvers_mail = approved["[urn:ogf] urn:ogf:example: the request to change the resolvers was approved"]
        assert "The archive answers." in resolvers_mail.body and "archive.example.org" in resolvers_mail.body
        contact_mail = approved["[urn:ogf] urn:ogf:example: the request to change the contact was approved"]
        assert NEW_CONTACT in contact_mail.body and "1.3 Declared Registrant: public contact" in contact_mail.body
        assert "[urn:ogf] urn:ogf:example: the invitation of Ivan Invitee (ivan) was confirmed" in _subjects(
            "ivan@example.org"
        )

        # --- the public page -----------------------------------------------------------------------------
        public = context.new_page()
        public.goto("/urn/example/")
        walk.examine(public, "public SNID page", best_practice=False)
        stewards = public.locator("section.stewardship ul.stewards").inner_text()
        assert "Stella Steward" in stewards and "Ivan Invitee" in stewards and "stella" not in stewards
        assert NEW_CONTACT in public.locator("section.card").inner_text()
        today = timezone.localdate().isoformat()
        assert (
            f"{today}: Contact changed by an editor at the steward's request."
            in public.locator("section.stewardship .history").inner_text()
        )
    finally:
        context.close()
    assert walk.failures == [], "\n".join(walk.failures)
