"""Sign-in with ORCID (OpenID Connect) against a real provider on the loopback, and linking an ORCID iD.

The provider is django-allauth's identity provider (tests/oidc_provider), started as a process of its
own with its own database; the registry talks to it over HTTP as it would to orcid.org.
"""

import subprocess
import sys
from pathlib import Path

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.core.cache import cache

from registry.settings import identity_provider_apps

from ..factories import proposal_factory, user_factory
from .conftest import login

ROOT = Path(__file__).resolve().parents[2]
ORCID_ID = "0000-0002-1825-0097"
CLIENT_ID, SECRET = "registry-test-client", "registry-test-secret"


@pytest.fixture
def start_provider(live_server, settings):
    """Start the provider (its user josiah asserting ``email``, verified or not, if given); its URL."""
    processes = []

    def start(*asserted: str) -> str:
        callback = f"{live_server.url}/accounts/social/oidc/orcid/login/callback/"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.oidc_provider.serve",
                CLIENT_ID,
                SECRET,
                callback,
                "josiah",
                "provider-pass-phrase-1",
                ORCID_ID,
                *asserted,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        processes.append(process)
        line = process.stdout.readline()
        assert line.startswith("LISTENING "), line + process.stdout.read()
        url = line.split()[1]
        settings.SOCIALACCOUNT_PROVIDERS = identity_provider_apps(
            [{"id": "orcid", "name": "ORCID", "url": url, "client_id": CLIENT_ID, "secret": SECRET}]
        )
        return url

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def provider(start_provider):
    return start_provider()


def _sign_in_at_the_provider(page):
    page.get_by_label("Username").fill("josiah")
    page.get_by_label("Password").fill("provider-pass-phrase-1")
    page.get_by_role("button", name="Sign In").click()


@pytest.mark.django_db(transaction=True)
def test_sign_in_with_orcid_creates_an_account_with_a_verified_orcid_id(new_page, provider, screenshot):
    page = new_page()
    page.goto("/accounts/login/")
    page.get_by_role("button", name="Sign in with ORCID").click()
    page.wait_for_url(f"{provider}/**")
    _sign_in_at_the_provider(page)
    page.wait_for_url("**/proposals/")
    account = SocialAccount.objects.get(provider="orcid")
    assert account.uid == ORCID_ID
    assert page.get_by_text(f"Log out {account.user.get_username()}").count() == 1
    assert account.user.is_active
    screenshot(page, "orcid-signed-in")


@pytest.mark.django_db(transaction=True)
def test_link_orcid_to_an_existing_account_and_show_it_as_a_steward(new_page, provider, screenshot):
    steward = get_user_model().objects.create_user(
        "stella", "stella@example.org", "steward-pass-phrase-1", first_name="Stella", last_name="Steward"
    )
    proposal_factory(steward, state="approved", editor=user_factory(editor=True))
    page = new_page()
    login(page, "stella", "steward-pass-phrase-1")
    page.goto("/accounts/identities/")
    page.get_by_role("button", name="Link your ORCID identity").click()
    page.wait_for_url(f"{provider}/**")
    _sign_in_at_the_provider(page)
    page.wait_for_url("**/accounts/identities/")
    assert f"ORCID: {ORCID_ID} (verified)" in page.locator("ul.identities").inner_text()
    assert SocialAccount.objects.get(provider="orcid").user == steward
    assert get_user_model().objects.count() == 2  # linked, not a new account

    page.goto("/urn/example/stewardship/")
    page.get_by_label(f"Show my verified ORCID iD ({ORCID_ID})", exact=False).check()
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text("Your ORCID iD is shown beside your name.").wait_for()
    cache.clear()
    public = new_page()
    public.goto("/urn/example/")
    stewards = public.locator("section.stewardship ul.stewards").inner_text()
    assert "Stella Steward" in stewards and ORCID_ID in stewards and "(verified)" in stewards
    screenshot(public, "steward-with-orcid", full_page=True)


# --- a first sign-in whose address an account already has ------------------------------------------


def _sign_in_with_orcid(page, provider):
    page.goto("/accounts/login/")
    page.get_by_role("button", name="Sign in with ORCID").click()
    page.wait_for_url(f"{provider}/**")
    _sign_in_at_the_provider(page)


@pytest.mark.django_db(transaction=True)
def test_a_first_sign_in_with_the_verified_address_of_an_account_asks_to_sign_in_and_link(new_page, start_provider):
    """Never a second account with the address, and never into the existing account unasked: the person
    signs in to it with the password, links ORCID there, and from then on ORCID signs them in to it."""
    stella = get_user_model().objects.create_user("stella", "stella@example.org", "steward-pass-phrase-1")
    provider = start_provider("Stella@Example.org", "verified")
    page = new_page()
    _sign_in_with_orcid(page, provider)
    page.get_by_role("heading", name="You already have an account here").wait_for()
    text = page.locator("main").inner_text()
    assert "ORCID says the address stella@example.org is yours" in text and "you were not signed in" in text
    assert page.get_by_role("link", name="Log out").count() == 0 and "Log out" not in page.content()
    assert get_user_model().objects.count() == 1 and not SocialAccount.objects.exists()

    page.get_by_role("link", name="Log in to your account").click()
    page.get_by_label("Username").fill("STELLA")  # any case: one name
    page.get_by_label("Password").fill("steward-pass-phrase-1")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/accounts/identities/")
    page.get_by_role("button", name="Link your ORCID identity").click()
    page.wait_for_url("**/accounts/identities/")  # signed in at the provider already
    assert f"ORCID: {ORCID_ID} (verified)" in page.locator("ul.identities").inner_text()
    assert SocialAccount.objects.get().user == stella and get_user_model().objects.count() == 1

    later = new_page()  # another browser: ORCID now signs in to stella's account
    _sign_in_with_orcid(later, provider)
    later.wait_for_url("**/proposals/")
    assert later.get_by_text("Log out stella").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_first_sign_in_never_keeps_an_address_the_provider_did_not_verify(new_page, start_provider):
    get_user_model().objects.create_user("stella", "stella@example.org", "steward-pass-phrase-1")
    provider = start_provider("stella@example.org")  # not verified: anybody could have typed it
    page = new_page()
    _sign_in_with_orcid(page, provider)
    page.wait_for_url("**/proposals/")
    made = SocialAccount.objects.get().user
    assert made.get_username() != "stella" and made.email == "" and not made.emailaddress_set.exists()
    assert list(
        get_user_model().objects.filter(email__iexact="stella@example.org").values_list("username", flat=True)
    ) == ["stella"]


@pytest.mark.django_db(transaction=True)
def test_a_first_sign_in_with_a_new_verified_address_keeps_it_and_records_how_the_account_came(
    new_page, start_provider
):
    from registry.accounts.models import AccountOrigin

    provider = start_provider("josiah@example.net", "verified")
    page = new_page()
    _sign_in_with_orcid(page, provider)
    page.wait_for_url("**/proposals/")
    made = SocialAccount.objects.get().user
    assert made.email == "josiah@example.net" and made.account.origin == AccountOrigin.IDENTITY
