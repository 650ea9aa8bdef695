"""Sign-up confirmed by a mailed link: no sign-in before it, and no page that tells which accounts exist."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from .factories import user_factory

PASSWORD = "a-long-pass-phrase-1"


@pytest.fixture(autouse=True)
def mails_sent(django_capture_on_commit_callbacks):
    """Mails go out when the sign-up's transaction commits: run those callbacks as each sign-up ends."""
    global _capture
    _capture = django_capture_on_commit_callbacks


_capture = None


@pytest.fixture
def clean_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def _signup(client, username="newbie", email="n@example.org"):
    with _capture(execute=True):
        return client.post("/accounts/signup/", {"username": username, "email": email, "password1": PASSWORD,
                                                 "password2": PASSWORD})


def _link(message) -> str:
    url = next(line for line in message.body.splitlines() if "/accounts/confirm/" in line).strip()
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


@pytest.mark.django_db
def test_an_unconfirmed_account_cannot_sign_in(client, clean_cache, mailoutbox):
    _signup(client)
    user = get_user_model().objects.get(username="newbie")
    assert not user.is_active
    response = client.post("/accounts/login/", {"username": "newbie", "password": PASSWORD})
    assert response.status_code == 200 and "_auth_user_id" not in client.session
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Confirm your address"]
    assert mailoutbox[0].to == ["n@example.org"]


@pytest.mark.django_db
def test_following_the_link_confirms_once_then_the_account_signs_in(client, clean_cache, mailoutbox):
    _signup(client)
    link = _link(mailoutbox[0])
    page = client.get(link)
    assert page.status_code == 200 and "Confirm and sign in" in page.content.decode()
    assert not get_user_model().objects.get(username="newbie").is_active  # a GET changes nothing
    assert client.post(link)["Location"] == "/proposals/new/"
    assert get_user_model().objects.get(username="newbie").is_active
    client.logout()
    assert client.post(link).status_code == 400  # used
    client.post("/accounts/login/", {"username": "newbie", "password": PASSWORD})
    assert "_auth_user_id" in client.session


@pytest.mark.django_db
def test_the_confirmation_page_names_the_account_but_nobody_is_signed_in_yet(client, clean_cache, mailoutbox):
    _signup(client)
    page = client.get(_link(mailoutbox[0])).content.decode()
    header = page[page.index('<header class="site">'):page.index("</header>")]
    assert "Log out" not in header and "newbie" not in header and ">Log in</a>" in header
    assert "Confirm the address of the account <strong>newbie</strong>" in page


@pytest.mark.django_db
def test_a_password_reset_link_does_not_confirm_an_account(client, clean_cache):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    _signup(client)
    user = get_user_model().objects.get(username="newbie")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    assert client.post(f"/accounts/confirm/{uid}/{default_token_generator.make_token(user)}/").status_code == 400
    assert client.post(f"/accounts/confirm/{uid}/nonsense/").status_code == 400
    assert client.post("/accounts/confirm/%%%/x/").status_code == 400
    assert not get_user_model().objects.get(pk=user.pk).is_active


@pytest.mark.django_db
@pytest.mark.parametrize("username, email", [("taken", "fresh@example.org"), ("TAKEN", "fresh@example.org"),
                                             ("fresh", "taken@example.org"), ("fresh", "TAKEN@example.org")])
def test_a_taken_name_or_address_gets_the_same_answer_and_its_owner_a_mail(client, clean_cache, mailoutbox,
                                                                         username, email):
    user_factory("taken")  # taken@example.org
    free = _signup(client, "someone-new", "new@example.org")
    taken = _signup(client, username, email)
    assert (taken.status_code, taken["Location"]) == (free.status_code, free["Location"])
    assert client.get(taken["Location"]).status_code == 200
    assert get_user_model().objects.filter(username__iexact=username).count() == (1 if username != "fresh" else 0)
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Confirm your address",
                                               "[urn:ogf] Sign-up: you may already have an account"]
    assert mailoutbox[1].to == [email.strip()]


@pytest.mark.django_db
def test_signup_form_errors_still_say_what_is_wrong(client, clean_cache):
    response = client.post("/accounts/signup/", {"username": "x", "email": "not-an-address", "password1": "a",
                                                 "password2": "b"})
    assert response.status_code == 200
    assert "Enter a valid email address." in response.content.decode()


@pytest.mark.django_db
def test_sign_ups_never_confirmed_are_purged_after_a_week_and_nothing_else(client, clean_cache, mailoutbox):
    import datetime as dt
    import io

    from django.core.management import call_command
    from django.utils import timezone

    _signup(client, "squatter", "s@example.org")
    _signup(client, "fresh", "f@example.org")
    users = get_user_model().objects
    week_ago = timezone.now() - dt.timedelta(days=8)
    users.filter(username="squatter").update(date_joined=week_ago)
    deactivated = user_factory("left")  # an account an admin deactivated: it signed in once
    users.filter(pk=deactivated.pk).update(is_active=False, last_login=week_ago, date_joined=week_ago)
    out = io.StringIO()
    call_command("purge_unconfirmed_signups", "--dry-run", stdout=out)
    assert "squatter: never confirmed (would be deleted)" in out.getvalue() and users.filter(username="squatter")
    call_command("purge_unconfirmed_signups", stdout=out)
    assert set(users.values_list("username", flat=True)) >= {"fresh", "left"}
    assert not users.filter(username="squatter").exists()
    # the name is free again: a new sign-up takes it
    _signup(client, "squatter", "owner@example.org")
    assert users.get(username="squatter").email == "owner@example.org"
