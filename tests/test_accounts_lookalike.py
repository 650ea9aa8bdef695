"""Names compared as people read them (RFC 8265, TR39 skeletons, mixed scripts), on SQLite and PostgreSQL:
a user name or public name that reads like another's is refused with a sentence, by every path."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from registry.accounts.lookalike import mixed_scripts, skeleton, username_problem
from registry.accounts.models import Account
from registry.accounts.names import name_skeleton, name_taken, public_name_problem, public_skeleton

from .factories import user_factory

PASSWORD = "a-long-pass-phrase-1"
CYRILLIC_A = "\u0430"
DOTTED_CAPITAL_I = "\u0130"


@pytest.mark.parametrize(
    "one, other",
    [
        ("alice", f"{CYRILLIC_A}lice"),  # Cyrillic а
        ("alice", f"al{DOTTED_CAPITAL_I}ce"),  # İ folds to i + a dot nobody sees
        ("alice", "ALICE"),
        ("mary", "rnary"),  # r n reads as m
        ("bill", "bi1l"),  # the digit one reads as l
        ("paypal", f"p{CYRILLIC_A}yp{CYRILLIC_A}l"),
        ("Ärger", "A\u0308RGER"),
    ],
)
def test_names_that_read_alike_share_a_skeleton(one, other):
    assert name_skeleton(one) == name_skeleton(other)


@pytest.mark.parametrize("one, other", [("alice", "alicia"), ("josé", "jose"), ("bob", "rob"), ("ärger", "arger")])
def test_names_that_read_differently_do_not(one, other):
    assert name_skeleton(one) != name_skeleton(other)


def test_the_skeleton_ignores_format_characters_and_keeps_a_visible_accent():
    assert skeleton("al\u200dice") == skeleton("alice")  # a zero-width joiner
    assert skeleton("é") != skeleton("e")


@pytest.mark.parametrize(
    "name, mixed",
    [(f"{CYRILLIC_A}lice", True), ("Alloτ", True), ("josé_2", False), ("山田あア", False), ("иван", False)],
)
def test_mixed_scripts_are_those_no_writing_system_uses_together(name, mixed):
    assert mixed_scripts(name) is mixed


@pytest.mark.parametrize(
    "name, says",
    [
        ("a b", "cannot contain the character ' '"),
        ("x\u2178", "RFC 8265"),  # a compatibility form (small roman numeral nine)
        (f"{CYRILLIC_A}lice", "cannot mix the scripts Cyrillic, Latin"),
    ],
)
def test_a_user_name_must_be_an_rfc_8265_name_in_one_script(name, says):
    assert says in username_problem(name)


def test_a_plain_name_in_any_one_script_is_a_user_name():
    assert username_problem("ärger.2") is None and username_problem("иван") is None


@pytest.mark.django_db
@pytest.mark.parametrize("taken, typed", [("alice", f"al{DOTTED_CAPITAL_I}ce"), ("mary", "rnary"), ("иван", "ИВАН")])
def test_a_name_that_reads_like_a_taken_one_is_refused_by_every_save(taken, typed):
    user_factory(taken)
    assert name_taken(typed)
    with pytest.raises(IntegrityError, match="reads like|is taken"), transaction.atomic():
        get_user_model().objects.create_user(typed, "x@example.org", PASSWORD)
    assert list(get_user_model().objects.values_list("username", flat=True)) == [taken]


@pytest.mark.django_db
def test_the_stored_skeleton_is_unique_so_two_saves_at_once_cannot_both_win():
    user_factory("alice")
    other = user_factory("bob")
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(user=other).update(name_skeleton=name_skeleton("alice"))


@pytest.mark.django_db
def test_sign_up_refuses_a_mixed_script_name_on_the_form(client):
    response = client.post(
        "/accounts/signup/",
        {"username": f"{CYRILLIC_A}lice", "email": "a@example.org", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    assert "cannot mix the scripts Cyrillic, Latin" in response.content.decode()
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
def test_sign_up_as_a_look_alike_makes_no_account_and_mails_why(client, mailoutbox, django_capture_on_commit_callbacks):
    from django.core.cache import cache

    cache.clear()
    user_factory("alice")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/accounts/signup/",
            {
                "username": f"al{DOTTED_CAPITAL_I}ce",
                "email": "imitator@example.org",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
    assert response["Location"] == "/accounts/signup/sent/"  # the same answer as a free name
    assert get_user_model().objects.count() == 1
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Sign-up: choose another user name"]
    assert "letters that look alike" in mailoutbox[0].body


@pytest.mark.django_db
def test_a_public_name_that_reads_like_another_persons_is_refused_with_a_sentence():
    alice, mallory = user_factory("alice"), user_factory("mallory")
    alice.first_name = "Alice Smith"
    alice.save()
    assert Account.objects.get(user=alice).public_skeleton == public_skeleton("alice smith")
    problem = public_name_problem(f"{CYRILLIC_A}lice  SMITH", user=mallory)
    assert problem.startswith("“аlice SMITH” reads like “Alice Smith”, the public name of another person")
    assert public_name_problem("Alice Smith", user=alice) is None  # one's own name
    assert public_name_problem("Alice Smithers", user=mallory) is None
    assert "cannot mix the scripts" in public_name_problem(f"B{CYRILLIC_A}rbara", user=mallory)


@pytest.mark.django_db
def test_a_steward_cannot_take_a_public_name_that_reads_like_anothers(make_proposal):
    from registry.errors import ServiceError
    from registry.stewardship import services as stewardship

    alice = user_factory("alice")
    alice.first_name = "Alice Smith"
    alice.save()
    steward = make_proposal(state="approved").submitter
    with pytest.raises(ServiceError, match="reads like “Alice Smith”"):
        stewardship.steward_public_name(steward, "Alice Smith")
    stewardship.steward_public_name(steward, "Bob Jones")
    assert Account.objects.get(user=steward).public_skeleton == public_skeleton("Bob Jones")


# --- where people decide about a person, a name mixing scripts is flagged ------------------------------


@pytest.mark.django_db
def test_a_mixed_script_name_made_before_the_rule_is_flagged_to_editors_and_stewards(client, make_proposal, editor):
    from registry.stewardship.selectors import person

    legacy = get_user_model().objects.create_user(f"{CYRILLIC_A}lice", "legacy@example.org", PASSWORD)
    assert person(legacy) == f"{CYRILLIC_A}lice [warning: the name mixes the scripts Cyrillic, Latin]"
    assert person(user_factory("plain")) == "plain"
    make_proposal(legacy, state="submitted", editor=editor)
    client.force_login(editor)
    queue = client.get("/review/").content.decode()
    assert f"{CYRILLIC_A}lice [warning: the name mixes the scripts Cyrillic, Latin]" in queue


@pytest.mark.django_db
def test_a_closed_account_is_named_by_its_public_name_alone():
    from django.utils import timezone

    from registry.stewardship.selectors import person

    user = user_factory("gone")
    user.first_name = "Gwen Gone"
    user.is_active = False
    user.save()
    Account.objects.filter(user=user).update(closed_at=timezone.now())
    user = get_user_model().objects.get(pk=user.pk)
    assert person(user) == "Gwen Gone (account closed)"
    user.first_name = ""
    assert person(user) == "a closed account"


@pytest.mark.django_db
def test_accounts_that_read_alike_from_before_the_rule_are_reported_by_check():
    from registry.accounts.checks import name_clashes_check

    user_factory("alice")
    legacy = user_factory("bob")
    # as migration 0013 leaves an account that read like an older one: its own name, no skeleton
    get_user_model().objects.filter(pk=legacy.pk).update(username=f"{CYRILLIC_A}lice")
    Account.objects.filter(user=legacy).update(name_skeleton=None, name_key=f"{CYRILLIC_A}lice")
    warnings = name_clashes_check(databases=["default"])
    assert [w.id for w in warnings] == ["registry.W011"]
    assert "'alice', 'аlice'" in warnings[0].msg and "'alice' (the oldest) keeps its name" in warnings[0].msg
    legacy.refresh_from_db()
    legacy.first_name = "Not Alice"
    legacy.save()  # saved under its own name: kept, still without a skeleton
    assert Account.objects.get(user=legacy).name_skeleton is None


@pytest.mark.django_db(transaction=True)
def test_migration_0013_gives_every_account_its_skeletons_and_reports_look_alikes_without_merging(client, capsys):
    import datetime as dt

    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.utils import timezone

    from registry.accounts.checks import name_clashes_check
    from registry.accounts.names import name_key

    before = ("registry", "0012_tlog_signed_checkpoint")
    executor = MigrationExecutor(connection)
    executor.migrate([before])  # before names were compared as read
    old_account = executor.loader.project_state(before).apps.get_model("registry", "Account")
    now, made = timezone.now(), []
    for n, name in enumerate(["alice", f"{CYRILLIC_A}lice"]):
        user = get_user_model()(
            username=name, email=f"{n}@example.org", first_name=f"Person {n}", date_joined=now + dt.timedelta(minutes=n)
        )
        user.set_password(PASSWORD)
        made.append(user)
    for user in get_user_model().objects.bulk_create(made):  # no signals: records as 0012 kept them
        old_account.objects.create(user_id=user.pk, name_key=name_key(user.username), email_key="", origin="other")
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert f"'{CYRILLIC_A}lice' reads like the older 'alice', which keeps its name" in capsys.readouterr().out
    records = {a.user.username: (a.name_skeleton, a.public_skeleton) for a in Account.objects.select_related("user")}
    assert records == {
        "alice": ("alice", public_skeleton("Person 0")),
        f"{CYRILLIC_A}lice": (None, public_skeleton("Person 1")),
    }
    assert [w.id for w in name_clashes_check(databases=["default"])] == ["registry.W011"]
    for name in ("alice", f"{CYRILLIC_A}lice"):  # nothing merged: each still signs in with its own name
        client.post("/accounts/login/", {"username": name, "password": PASSWORD})
        assert client.session["_auth_user_id"] == str(get_user_model().objects.get(username=name).pk)
        client.logout()
