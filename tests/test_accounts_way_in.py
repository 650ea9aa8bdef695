"""Every route ends in a way in: a sign-up whose first mail was lost gets a fresh link by logging in with the
right password, by signing up again, or by the password-reset form; a wrong password tells nobody anything."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from .factories import user_factory

PASSWORD = "a-long-pass-phrase-1"
GENERIC = "Please enter a correct username and password"


@pytest.fixture(autouse=True)
def clean_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def sent(django_capture_on_commit_callbacks):
    """Run ``post`` and the mails it queues for after its commit."""

    def post(client, url, data):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url, data)

    return post


def _signup(client, sent, username="newbie", email="n@example.org", password=PASSWORD):
    return sent(
        client,
        "/accounts/signup/",
        {"username": username, "email": email, "password1": password, "password2": password},
    )


def _link(message) -> str:
    url = re.search(r"https?://\S+/accounts/confirm/\S+/", message.body).group(0)
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


@pytest.mark.django_db
def test_the_right_password_on_an_unconfirmed_account_says_so_and_offers_a_link(client, sent, mailoutbox):
    _signup(client, sent)
    page = client.post("/accounts/login/", {"username": "NEWBIE", "password": PASSWORD}).content.decode()
    assert "The address of this account is not confirmed yet" in page and GENERIC not in page
    assert 'action="/accounts/confirm/again/"' in page and "_auth_user_id" not in client.session
    response = sent(client, "/accounts/confirm/again/", {})
    assert response["Location"] == "/accounts/signup/sent/"
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Confirm your address", "[urn:ogf] Your new confirmation link"]
    assert mailoutbox[1].to == ["n@example.org"]
    sent_page = client.get(response["Location"]).content.decode()
    assert "We have sent a new confirmation link to <strong>n@example.org</strong>" in sent_page
    # the fresh link works: the account signs in
    client.post(_link(mailoutbox[1]))
    assert "_auth_user_id" in client.session


@pytest.mark.django_db
@pytest.mark.parametrize("username, password", [("newbie", "wrong-pass-phrase"), ("nobody", PASSWORD)])
def test_a_wrong_password_or_an_unknown_name_keeps_the_one_generic_answer(client, sent, username, password):
    _signup(client, sent)
    page = client.post("/accounts/login/", {"username": username, "password": password}).content.decode()
    assert GENERIC in page and "not confirmed" not in page and "/accounts/confirm/again/" not in page
    assert "unconfirmed_signup" not in client.session


@pytest.mark.django_db
def test_a_deactivated_account_with_its_right_password_keeps_the_generic_answer(client):
    user = user_factory("left", password=PASSWORD)
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    page = client.post("/accounts/login/", {"username": "left", "password": PASSWORD}).content.decode()
    assert GENERIC in page and "not confirmed" not in page


@pytest.mark.django_db
def test_a_new_link_needs_the_password_first_and_is_rate_limited(client, sent, mailoutbox, settings):
    assert client.post("/accounts/confirm/again/")["Location"] == "/accounts/login/"
    _signup(client, sent)
    settings.PASSWORD_RESET_RATE_PER_EMAIL = 2
    codes = []
    for _ in range(3):
        client.post("/accounts/login/", {"username": "newbie", "password": PASSWORD})
        codes.append(sent(client, "/accounts/confirm/again/", {}).status_code)
    assert codes == [302, 302, 429]
    assert len(mailoutbox) == 3  # the first mail and two new links


@pytest.mark.django_db
def test_signing_up_again_with_an_unconfirmed_address_mails_a_fresh_link(client, sent, mailoutbox):
    _signup(client, sent)
    _signup(client, sent, username="another-name", email="N@example.org", password="another-pass-phrase-2")
    assert get_user_model().objects.count() == 1  # no second account
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Confirm your address", "[urn:ogf] Your new confirmation link"]
    assert "account newbie, which is not confirmed yet" in mailoutbox[1].body
    client.post(_link(mailoutbox[1]))
    assert get_user_model().objects.get(username="newbie").is_active


@pytest.mark.django_db
def test_signing_up_again_with_a_confirmed_address_still_says_log_in_or_reset(client, sent, mailoutbox):
    user_factory("owner")  # owner@example.org, active
    _signup(client, sent, email="owner@example.org")
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Sign-up: this address already has an account"]


@pytest.mark.django_db
def test_the_password_reset_form_mails_an_unconfirmed_address_a_fresh_link(client, sent, mailoutbox):
    _signup(client, sent)
    response = sent(client, "/accounts/password_reset/", {"email": "n@example.org"})
    assert response.status_code == 302
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Confirm your address", "[urn:ogf] Your new confirmation link"]
    client.post(_link(mailoutbox[1]))
    assert get_user_model().objects.get(username="newbie").is_active


@pytest.mark.django_db
def test_the_sent_page_says_how_to_get_a_fresh_link(client, sent):
    _signup(client, sent)
    page = client.get("/accounts/signup/sent/").content.decode()
    assert "either mails a fresh confirmation link" in page and "/accounts/password_reset/" in page


# --- roles are facts the purge respects ------------------------------------------------------------


def _unconfirmed(client, sent, username, *, weeks_ago=True):
    import datetime as dt

    from django.utils import timezone

    from registry.accounts.models import Account

    _signup(client, sent, username=username, email=f"{username}@example.org")
    user = get_user_model().objects.get(username=username)
    if weeks_ago:
        old = timezone.now() - dt.timedelta(days=8)
        get_user_model().objects.filter(pk=user.pk).update(date_joined=old)
        Account.objects.filter(user=user).update(confirmation_sent_at=old)
    return user


@pytest.mark.django_db
def test_make_editor_refuses_an_unconfirmed_account_and_confirm_confirms_it(client, sent):
    from registry import rules

    user = _unconfirmed(client, sent, "ed")
    with pytest.raises(CommandError, match="never confirmed the address ed@example.org"):
        call_command("make_editor", "ed")
    user.refresh_from_db()
    assert not rules.is_editor(user)
    out = io.StringIO()
    call_command("make_editor", "ED", "--confirm", stdout=out)
    assert out.getvalue().splitlines() == [
        "ed's address ed@example.org is now confirmed; the account can sign in.",
        "ed is a GFD editor (not staff: --staff opens the admin).",
    ]
    user.refresh_from_db()
    assert user.is_active and rules.is_editor(user) and user.account.confirmed_at is not None


@pytest.mark.django_db
def test_make_editor_refuses_a_deactivated_account():
    user = user_factory("gone")
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    with pytest.raises(CommandError, match="closed or deactivated"):
        call_command("make_editor", "gone")


@pytest.mark.django_db
def test_the_purge_keeps_every_account_with_a_role_or_something_of_its_own_and_says_why(
    client, sent, make_proposal, settings
):
    settings.SIGNUP_RATE_PER_ADDRESS = 50
    from allauth.socialaccount.models import SocialAccount
    from rest_framework.authtoken.models import Token

    from registry.services import editors_group

    plain = _unconfirmed(client, sent, "plain")
    editor = _unconfirmed(client, sent, "editor")
    editor.groups.add(editors_group())
    staff = _unconfirmed(client, sent, "staff")
    get_user_model().objects.filter(pk=staff.pk).update(is_staff=True)
    author = _unconfirmed(client, sent, "author")
    make_proposal(author)
    steward = _unconfirmed(client, sent, "steward")
    registered = make_proposal(state="approved")
    from registry.stewardship.models import Steward

    Steward.objects.create(namespace=registered.namespace, user=steward, state="invited")
    orcid = _unconfirmed(client, sent, "orcid")
    SocialAccount.objects.create(user=orcid, provider="orcid", uid="0000-0002-1825-0097")
    robot = _unconfirmed(client, sent, "robot")
    Token.objects.create(user=robot)
    recent = _unconfirmed(client, sent, "recent", weeks_ago=False)

    out = io.StringIO()
    call_command("purge_unconfirmed_signups", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "plain: never confirmed — deleted"
    assert sorted(lines[1:-1]) == [
        "author: never confirmed, kept — it has 1 proposal",
        "editor: never confirmed, kept — it has role: GFD editors",
        "orcid: never confirmed, kept — it has a linked sign-in identity",
        "robot: never confirmed, kept — it has an API token",
        "staff: never confirmed, kept — it has role: staff",
        "steward: never confirmed, kept — it has 1 stewardship",
    ]
    assert lines[-1] == "1 unconfirmed sign-up deleted (older than 7 days); 6 kept (listed above with the reason)."
    left = set(get_user_model().objects.values_list("username", flat=True))
    assert "plain" not in left and {"editor", "staff", "author", "steward", "orcid", "robot", "recent"} <= left
    assert not get_user_model().objects.filter(pk=plain.pk).exists() and recent.pk
