"""Sign-up confirmed by a mailed link: no sign-in before it, and no page that tells which accounts exist."""

from __future__ import annotations

import re

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
        return client.post(
            "/accounts/signup/", {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
        )


def _links_mailed(when):
    """Every confirmation link was last mailed ``when`` (the purge waits a week after the last one)."""
    from registry.accounts.models import Account

    Account.objects.exclude(confirmation_sent_at=None).update(confirmation_sent_at=when)


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
    header = page[page.index('<header class="site">') : page.index("</header>")]
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
@pytest.mark.parametrize(
    "username, email",
    [
        ("taken", "fresh@example.org"),
        ("TAKEN", "fresh@example.org"),
        ("fresh", "taken@example.org"),
        ("fresh", "TAKEN@example.org"),
    ],
)
def test_a_taken_name_or_address_gets_the_same_answer_and_its_owner_a_mail(
    client, clean_cache, mailoutbox, username, email
):
    user_factory("taken")  # taken@example.org
    free = _signup(client, "someone-new", "new@example.org")
    taken = _signup(client, username, email)
    assert (taken.status_code, taken["Location"]) == (free.status_code, free["Location"])
    assert client.get(taken["Location"]).status_code == 200
    assert get_user_model().objects.filter(username__iexact=username).count() == (1 if username != "fresh" else 0)
    told = (
        "[urn:ogf] Sign-up: this address already has an account"
        if "taken" in email.casefold()
        else "[urn:ogf] Sign-up: choose another user name"
    )
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Confirm your address", told]
    assert mailoutbox[1].to == [email.strip()]
    if "taken" in email.casefold():  # the address's owner is told their own account's name
        assert "belongs to the account taken," in mailoutbox[1].body


@pytest.mark.django_db
def test_signup_form_errors_still_say_what_is_wrong(client, clean_cache):
    response = client.post(
        "/accounts/signup/", {"username": "x", "email": "not-an-address", "password1": "a", "password2": "b"}
    )
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
    _links_mailed(week_ago)
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


@pytest.mark.django_db
def test_the_purge_touches_only_form_sign_ups_never_confirmed(client, clean_cache, mailoutbox):
    """An API-token account an administrator made and deactivated, a suspended editor, a confirmed sign-up
    suspended since, and an account older than the record of origins all look "inactive, never signed in":
    none is a sign-up left unconfirmed, and none is deleted."""
    import datetime as dt
    import io

    from django.core.management import call_command
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from registry.accounts.models import Account, AccountOrigin

    users = get_user_model().objects
    week_ago = timezone.now() - dt.timedelta(days=8)
    _signup(client, "squatter", "s@example.org")
    _signup(client, "suspended", "u@example.org")
    client.post(_link(mailoutbox[-1]))  # confirmed (and signed in) ...
    client.logout()
    robot = user_factory("api-robot")
    Token.objects.create(user=robot)
    editor = user_factory("suspended-editor", editor=True)
    legacy = user_factory("legacy")
    Account.objects.filter(user=legacy).update(origin=AccountOrigin.UNRECORDED)
    # ... then all of them inactive, never signed in (as far as the table says), a week old
    users.all().update(is_active=False, last_login=None, date_joined=week_ago)
    _links_mailed(week_ago)
    out = io.StringIO()
    call_command("purge_unconfirmed_signups", stdout=out)
    assert out.getvalue().splitlines() == [
        "squatter: never confirmed — deleted",
        "1 unconfirmed sign-up deleted (older than 7 days).",
    ]
    assert sorted(users.values_list("username", flat=True)) == sorted(
        ["suspended", "api-robot", "suspended-editor", "legacy"]
    )
    assert Token.objects.filter(user=robot).exists() and editor.groups.exists()


@pytest.mark.django_db
def test_accounts_record_how_they_came_to_be(client, clean_cache, mailoutbox):
    from registry.accounts.models import AccountOrigin

    _signup(client, "newbie")
    made = get_user_model().objects.create_user("by-command", "c@example.org", "x")
    newbie = get_user_model().objects.get(username="newbie")
    assert (newbie.account.origin, newbie.account.confirmed_at) == (AccountOrigin.SIGNUP, None)
    assert made.account.origin == AccountOrigin.OTHER
    client.post(_link(mailoutbox[0]))
    newbie.account.refresh_from_db()
    assert newbie.account.confirmed_at is not None


# --- the same answer, after the same work, whoever exists ---------------------------------------------

TAKEN_CASES = {
    "free": lambda n: (f"free{n}", f"free{n}@example.org"),
    "name taken": lambda n: ("TAKEN", f"other{n}@example.org"),
    "address taken": lambda n: (f"new{n}", "Taken@Example.org"),
}


@pytest.mark.budget
@pytest.mark.django_db
def test_signup_takes_as_long_whether_or_not_the_name_or_address_is_taken(client, clean_cache, settings, mailoutbox):
    """The same work whoever exists, measured as the CPU time of the request's thread (what a
    timing attacker sees once the machine's load is averaged out, and what the load cannot
    stretch); median of five of each, interleaved: a taken name or address used to answer 20
    times sooner (no password hashed), which told anyone which accounts exist."""
    import statistics
    import time

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]  # production's cost
    settings.SIGNUP_RATE_PER_ADDRESS = 1000
    user_factory("taken")
    durations = {kind: [] for kind in TAKEN_CASES}
    for n in range(5):
        for kind, typed in TAKEN_CASES.items():
            started = time.thread_time()
            assert _signup(client, *typed(n)).status_code == 302
            durations[kind].append(time.thread_time() - started)
    free = statistics.median(durations["free"])
    for kind in ("name taken", "address taken"):
        ratio = free / statistics.median(durations[kind])
        assert 2 / 3 < ratio < 3 / 2, (kind, ratio, durations)
    assert get_user_model().objects.filter(username__startswith="free").count() == 5
    assert len(mailoutbox) == 15  # one mail for each sign-up, whatever happened


@pytest.mark.django_db
def test_signup_answers_are_identical_whether_or_not_the_name_or_address_is_taken(client, clean_cache, mailoutbox):
    user_factory("taken")
    answers = {}
    for kind, typed in TAKEN_CASES.items():
        client.cookies.clear()
        username, email = typed(1)
        response = _signup(client, username, email)
        page = client.get(response["Location"]).content.decode().replace(email, "ADDRESS")
        answers[kind] = (
            response.status_code,
            response["Location"],
            response.content,
            sorted(response.headers),
            sorted(response.cookies),
            page,
        )
    assert answers["free"] == answers["name taken"] == answers["address taken"]
    # and a form error reads the same whoever exists
    errors = [
        re.sub(
            r'name="csrfmiddlewaretoken" value="[^"]+"',
            "",
            client.post(
                "/accounts/signup/",
                {"username": name, "email": "x@example.org", "password1": "password", "password2": "password"},
            ).content.decode(),
        ).replace(name, "NAME")
        for name in ("taken", "someone")
    ]
    assert "This password is too common." in errors[0] and errors[0] == errors[1]


@pytest.mark.django_db
def test_a_used_link_opened_while_signed_in_does_not_ask_to_log_in(client):
    user = user_factory("signed-in")
    client.force_login(user)
    page = client.get("/accounts/confirm/xx/nonsense/").content.decode()
    assert "<title>This link does not work — urn:ogf registry</title>" in page
    assert "You are signed in as <strong>signed-in</strong>" in page and ">Log in</a>, or" not in page
    client.logout()
    assert ">Log in</a>, or" in client.get("/accounts/confirm/xx/nonsense/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path, title",
    [
        ("/accounts/password_reset/done/", "Check your e-mail"),
        ("/accounts/reset/done/", "Password changed"),
        ("/accounts/reset/xx/nonsense/", "Choose a new password"),
    ],
)
def test_the_password_reset_pages_say_what_they_are_in_their_title(client, path, title):
    page = client.get(path, follow=True).content.decode()
    assert f"<title>{title} — urn:ogf registry</title>" in page
