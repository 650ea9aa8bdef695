"""People and their accounts in a browser, at 1280 and 375 px, each page clean by axe-core (WCAG 2.2 A/AA):
from a lost confirmation mail to a signed-in person; the account page, its download and closing; and an
ORCID-only account signing in again after a backup was restored into a fresh database."""

from __future__ import annotations

import io
import json
import re

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command

from ..factories import proposal_factory, user_factory
from .conftest import login
from .test_accessibility import axe_violations
from .test_identity import ORCID_ID, _sign_in_with_orcid
from .test_identity import provider as provider  # noqa: F401 (a fixture)
from .test_identity import start_provider as start_provider  # noqa: F401 (a fixture)

WIDTHS = (1280, 375)
PASSWORD = "a-long-pass-phrase-1"


@pytest.fixture
def at_width(chromium, live_server):
    contexts = []

    def make(width):
        context = chromium.new_context(
            base_url=live_server.url,
            viewport={"width": width, "height": 900},
            reduced_motion="reduce",
            accept_downloads=True,
        )
        context.set_default_timeout(20_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def _clean(page, what):
    """The page has no axe violation and does not scroll sideways."""
    assert axe_violations(page) == [], what
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{what}: wider than the screen"


def _link(message) -> str:
    return re.search(r"https?://\S+(/accounts/confirm/\S+/)", message.body).group(1)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_from_a_lost_confirmation_mail_to_a_signed_in_person(at_width, width):
    cache.clear()
    mail.outbox.clear()
    page = at_width(width)
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill("newbie")
    page.get_by_label("Email").fill("newbie@example.org")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.get_by_role("heading", name="Check your e-mail").wait_for()
    _clean(page, "sent")
    assert len(mail.outbox) == 1  # ... and this first mail is lost

    login(page, "newbie", PASSWORD)
    page.get_by_text("The address of this account is not confirmed yet").wait_for()
    _clean(page, "log-in: not confirmed yet")
    page.get_by_role("button", name="Mail me a new confirmation link").click()
    page.get_by_text("We have sent a new confirmation link to").wait_for()
    _clean(page, "sent again")
    again = [m for m in mail.outbox if m.subject == "[urn:ogf] Your new confirmation link"]
    assert [m.to for m in again] == [["newbie@example.org"]]

    page.goto(_link(again[0]))
    _clean(page, "confirm")
    page.get_by_role("button", name="Confirm and sign in").click()
    page.wait_for_url("**/proposals/new/")
    assert page.get_by_role("button", name="Log out newbie").count() == 1
    _clean(page, "signed in")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_account_page_its_download_and_closing(at_width, width):
    cache.clear()
    person = user_factory("maria", password=PASSWORD)
    person.first_name = "María Ortega"
    person.save()
    proposal_factory(person, state="approved", editor=user_factory(editor=True))
    page = at_width(width)
    login(page, "maria", PASSWORD)
    page.get_by_role("link", name="Your account").click()
    page.get_by_role("heading", name="Your account", exact=True).wait_for()
    text = page.locator("main").inner_text()
    assert "María Ortega" in text and "maria@example.org" in text and "urn:ogf:example:" in text
    _clean(page, "account page")

    with page.expect_download() as download:
        page.get_by_role("link", name="Download all of it as JSON").first.click()
    data = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert data["account"]["public_name"] == "María Ortega" and [p["snid"] for p in data["proposals"]] == ["example"]

    page.get_by_role("link", name="Close your account…").click()
    page.get_by_role("heading", name="What stays").wait_for()
    assert "“María Ortega” (your public name)" in page.locator("main").inner_text()
    _clean(page, "close: what goes, what stays")
    page.get_by_label("Type your user name to confirm").fill("maria")
    page.get_by_role("button", name="Close my account").click()
    page.get_by_role("heading", name="Your account is closed").wait_for()
    _clean(page, "closed")
    assert page.get_by_role("link", name="Log in").count() == 1
    closed = get_user_model().objects.get(username="maria")
    assert not closed.is_active and closed.email == "" and closed.account.closed_at is not None


@pytest.mark.django_db(transaction=True)
def test_an_orcid_only_account_signs_in_again_after_a_restore_into_a_fresh_database(new_page, provider, tmp_path):
    page = new_page()
    _sign_in_with_orcid(page, provider)
    page.wait_for_url("**/proposals/")
    made = SocialAccount.objects.select_related("user").get(provider="orcid").user
    assert not made.has_usable_password()

    backup = io.StringIO()
    call_command("export_registry", "--format", "backup", stdout=backup)
    path = tmp_path / "backup.json"
    path.write_text(backup.getvalue(), encoding="utf-8")
    call_command("flush", interactive=False)
    assert not get_user_model().objects.exists()
    call_command("import_registry", str(path), "--no-measure", stdout=io.StringIO())

    later = new_page()  # another browser, after the restore
    _sign_in_with_orcid(later, provider)
    later.wait_for_url("**/proposals/")
    assert later.get_by_role("button", name=f"Log out {made.get_username()}").count() == 1
    assert get_user_model().objects.count() == 1  # the restored account, not a new one
    assert SocialAccount.objects.get(provider="orcid", uid=ORCID_ID).user.get_username() == made.get_username()
