"""User names are one name whatever their case (Unicode case folding), on SQLite and PostgreSQL alike:
made, renamed, signed in with and looked up by every path."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction

from registry import rules
from registry.accounts.models import Account
from registry.accounts.names import name_key, user_by_name

from .factories import user_factory

PASSWORD = "pw-for-tests-1"


def test_name_key_folds_case_fully_and_normalises():
    assert name_key("Ärger") == name_key("ärger") == name_key("ÄRGER") == name_key("A\u0308rger")
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key("ﬁsh") == name_key("FISH")  # a compatibility ligature (NFKC, as Django stores names)
    assert name_key("ärger") != name_key("arger")  # accents are not case


@pytest.mark.django_db
@pytest.mark.parametrize("first, second", [("Ärger", "ärger"), ("straße", "STRASSE"), ("ed2", "ED2")])
def test_a_name_that_is_taken_once_folded_is_refused_by_every_save(first, second):
    user_factory(first)
    with pytest.raises(IntegrityError, match="is taken"), transaction.atomic():
        get_user_model().objects.create_user(second, "x@example.org", PASSWORD)
    assert list(get_user_model().objects.values_list("username", flat=True)) == [first]


@pytest.mark.django_db
def test_a_rename_into_a_taken_name_is_refused_and_a_change_of_case_is_not():
    user_factory("Ärger")
    other = user_factory("other")
    other.username = "ÄRGER"
    with pytest.raises(IntegrityError), transaction.atomic():
        other.save()
    mine = get_user_model().objects.get(username="Ärger")
    mine.username = "ÄRGER"
    mine.save()
    assert Account.objects.get(user=mine).name_key == name_key("ärger")


@pytest.mark.django_db(transaction=True)
def test_two_saves_racing_past_the_check_meet_the_unique_index_and_leave_no_account_behind():
    """What two sign-ups at once would do: the second passes the pre-save check (disconnected here, as
    if it ran before the first committed), the database's unique index refuses its record, and its user
    row — committed on its own outside any transaction — is removed again."""
    from django.db.models.signals import pre_save

    from registry.accounts.names import user_name_claim

    user_factory("Ärger")
    pre_save.disconnect(user_name_claim, sender=get_user_model(), dispatch_uid="registry.user_name_claim")
    try:
        with pytest.raises(IntegrityError, match="a moment ago"):
            get_user_model().objects.create_user("ärger", "x@example.org", PASSWORD)
    finally:
        pre_save.connect(user_name_claim, sender=get_user_model(), dispatch_uid="registry.user_name_claim")
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["Ärger"]


@pytest.mark.django_db
def test_the_database_itself_holds_one_folded_name_once():
    first, second = user_factory("a1"), user_factory("a2")
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE registry_account SET name_key = %s WHERE user_id = %s", [name_key("A1"), second.pk])
    assert Account.objects.get(user=first).name_key == "a1"


# --- sign-in and look-ups -------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["Ärger", "ärger", "ÄRGER"])
def test_the_site_log_in_takes_the_name_in_any_case(client, typed):
    user_factory("Ärger")
    client.post("/accounts/login/", {"username": typed, "password": PASSWORD})
    assert client.session.get("_auth_user_id") == str(get_user_model().objects.get().pk)


@pytest.mark.django_db
def test_a_wrong_password_or_an_unknown_name_still_fails(client):
    user_factory("Ärger")
    for name, password in (("ärger", "wrong-password-1"), ("nobody", PASSWORD)):
        response = client.post("/accounts/login/", {"username": name, "password": password})
        assert response.status_code == 200 and "_auth_user_id" not in client.session


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["anonymous", "applicant", "staff"])
def test_the_admin_signs_in_with_the_name_in_any_case_and_only_staff(client, role):
    """The admin signs in through the site's form; only a staff account gets in, whatever the case typed."""
    user = user_factory("Ärger")
    if role == "staff":
        user.is_staff = user.is_superuser = True
        user.save()
    if role != "anonymous":
        client.post("/accounts/login/?next=/admin/", {"username": "äRGER", "password": PASSWORD})
        assert client.session.get("_auth_user_id") == str(user.pk)
    page = client.get("/admin/", follow=True)
    assert (page.status_code, page.redirect_chain[-1][0] if page.redirect_chain else "") == {
        "anonymous": (200, "/accounts/login/?next=/admin/"),
        "applicant": (403, "/admin/login/?next=/admin/"),
        "staff": (200, ""),
    }[role]


@pytest.mark.django_db
def test_make_editor_and_api_tokens_find_the_account_in_any_case():
    from rest_framework.authtoken.models import Token

    user = user_factory("Ärger")
    out = io.StringIO()
    call_command("make_editor", "ärger", stdout=out)
    assert rules.is_editor(get_user_model().objects.get(pk=user.pk))
    call_command("drf_create_token", "ÄRGER", stdout=out)
    assert Token.objects.filter(user=user).count() == 1
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        call_command("drf_create_token", "nobody", stdout=out)


@pytest.mark.django_db
def test_the_sign_up_form_treats_a_name_taken_once_folded_as_taken(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    user_factory("Ärger")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/accounts/signup/",
            {
                "username": "ärger",
                "email": "new@example.org",
                "password1": "a-long-pass-phrase-1",
                "password2": "a-long-pass-phrase-1",
            },
        )
    assert response["Location"] == "/accounts/signup/sent/"
    assert get_user_model().objects.count() == 1
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Sign-up: choose another user name"]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["superuser"])
def test_the_admin_refuses_a_name_taken_once_folded_on_its_form_not_with_a_500(client, role):
    admin_user = user_factory("root")
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    user_factory("Ärger")
    other = user_factory("other")
    client.force_login(admin_user)
    added = client.post(
        "/admin/auth/user/add/",
        {
            "username": "ärger",
            "usable_password": "true",
            "password1": "a-long-pass-phrase-1",
            "password2": "a-long-pass-phrase-1",
        },
    )
    assert added.status_code == 200
    assert "Another account has this user name" in added.content.decode()
    renamed = client.post(
        f"/admin/auth/user/{other.pk}/change/",
        {"username": "ÄRGER", "date_joined_0": "2026-01-01", "date_joined_1": "10:00:00"},
    )
    assert renamed.status_code == 200 and "Another account has this user name" in renamed.content.decode()
    assert sorted(get_user_model().objects.values_list("username", flat=True)) == ["other", "root", "Ärger"]


@pytest.mark.django_db
def test_user_by_name_prefers_the_exact_name_of_an_account_that_clashed_before_folding():
    older, later = user_factory("Ärger"), user_factory("later")
    # as migration 0010 leaves an account made before names were folded: no folded name of its own
    get_user_model().objects.filter(pk=later.pk).update(username="ärger")
    Account.objects.filter(user=later).update(name_key=None)
    assert user_by_name("ärger").pk == later.pk and user_by_name("ÄRGER").pk == older.pk
    later.refresh_from_db()
    later.first_name = "Still saved"  # its own name unchanged: a save is not refused
    later.save()
    assert Account.objects.get(user=later).name_key is None


# --- accounts made before names were folded -----------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_migration_0010_records_every_account_and_reports_clashes_without_merging(client, capsys):
    import datetime as dt

    from django.db.migrations.executor import MigrationExecutor
    from django.utils import timezone

    from registry.accounts.checks import name_clashes_check

    mine = ("registry", "0010_account_names_and_origins")
    executor = MigrationExecutor(connection)
    executor.migrate(
        [parent.key for parent in executor.loader.graph.node_map[mine].parents if parent.key[0] == "registry"]
    )  # the registry as it stood before: no records
    User, now = get_user_model(), timezone.now()
    made = [
        User(username=name, email=email, date_joined=now + dt.timedelta(minutes=n))
        for n, (name, email) in enumerate([("Ärger", "A@Example.org"), ("ärger", ""), ("solo", "")])
    ]
    for user in made:
        user.set_password(PASSWORD)
    User.objects.bulk_create(made)  # as they were: no records (bulk_create sends no signals)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert "'ärger' is the same name as the older 'Ärger', which keeps it" in capsys.readouterr().out
    records = {a.user.username: (a.name_key, a.email_key, a.origin) for a in Account.objects.select_related("user")}
    assert records == {
        "Ärger": ("ärger", "a@example.org", "unrecorded"),
        "ärger": (None, "", "unrecorded"),
        "solo": ("solo", "", "unrecorded"),
    }
    (warning,) = name_clashes_check(databases=["default"])
    assert warning.id == "registry.W010" and "'Ärger', 'ärger'" in warning.msg
    for name in ("Ärger", "ärger"):  # nothing merged: each still signs in with its own exact name
        client.post("/accounts/login/", {"username": name, "password": PASSWORD})
        assert client.session["_auth_user_id"] == str(User.objects.get(username=name).pk)
        client.logout()
