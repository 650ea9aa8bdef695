"""A backup is the whole registry: every table the site needs to be the same site comes back from a restore
into a fresh database — accounts with their records, addresses, identities, tokens, stewards' choices —
compared table by table, and every kind of account signs in again."""

from __future__ import annotations

import io

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import models
from rest_framework.authtoken.models import Token

from registry.accounts.models import Account, AccountOrigin
from registry.management.commands._backup import BACKUP_MODELS, DERIVED_MODELS, LEFT_OUT, PER_ACCOUNT_MODELS
from registry.stewardship.models import Steward

from .factories import user_factory

PASSWORD = "pw-for-tests-1"
ORCID_ID = "0000-0002-1825-0097"


def test_every_table_is_in_the_backup_or_left_out_with_a_reason():
    tables = {model._meta.label_lower for model in apps.get_models()}
    assert tables == set(BACKUP_MODELS) | set(LEFT_OUT) | set(DERIVED_MODELS)
    assert not set(BACKUP_MODELS) & set(LEFT_OUT)
    assert all(reason.strip() for reason in LEFT_OUT.values())


def test_docs_operations_lists_what_a_backup_holds_and_leaves_out():
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "operations.md").read_text()
    for label in [*BACKUP_MODELS, *LEFT_OUT]:
        assert f"`{label}`" in text, label


def _snapshot() -> dict[str, list]:
    """Every backed-up table's rows as comparable values: accounts by name, the rows that belong to an
    account without their row number (a fresh database numbers them anew)."""
    users = dict(get_user_model().objects.values_list("pk", "username"))
    groups = {g.pk: g.name for g in apps.get_model("auth.group").objects.all()}
    snapshot = {}
    for label in BACKUP_MODELS:
        model = apps.get_model(label)
        rows = []
        for obj in model._default_manager.all():
            row = {}
            for field in model._meta.concrete_fields:
                value = getattr(obj, field.attname)
                if field.is_relation and field.related_model is get_user_model():
                    value = users.get(value)
                elif field.primary_key and (label in PER_ACCOUNT_MODELS or label == "auth.user"):
                    continue
                elif isinstance(field, models.ForeignKey) and field.related_model._meta.label_lower == "auth.group":
                    value = groups.get(value)
                row[field.name] = value
            if label == "auth.user":
                row["groups"] = sorted(obj.groups.values_list("name", flat=True))
                row["permissions"] = sorted(obj.user_permissions.values_list("codename", flat=True))
            if label == "auth.group":
                row.pop("id")
                row["permissions"] = sorted(obj.permissions.values_list("codename", flat=True))
            rows.append(row)
        snapshot[label] = sorted(rows, key=repr)
    return snapshot


@pytest.fixture
def people(db, make_proposal):
    """One account of every kind: a password sign-up confirmed, an ORCID-only account showing its iD on
    the SNID it stewards, a staff editor with a token, an unconfirmed sign-up, a closed account."""
    from registry.accounts.services import signup_confirm

    confirmed = user_factory("sam", password=PASSWORD)
    confirmed.first_name = "Sam Smith"
    confirmed.save()
    Account.objects.filter(user=confirmed).update(origin=AccountOrigin.SIGNUP)
    signup_confirm(confirmed)
    EmailAddress.objects.create(user=confirmed, email=confirmed.email, verified=True, primary=True)

    orcid = get_user_model().objects.create_user("josiah", email="josiah@example.org")  # no password
    Account.objects.filter(user=orcid).update(origin=AccountOrigin.IDENTITY)
    SocialAccount.objects.create(
        user=orcid, provider="orcid", uid=ORCID_ID, extra_data={"sub": ORCID_ID, "name": "Josiah Carberry"}
    )
    EmailAddress.objects.create(user=orcid, email=orcid.email, verified=True, primary=True)
    editor = user_factory("erin", editor=True)
    Token.objects.create(user=editor)
    proposal = make_proposal(orcid, state="approved", editor=editor)
    Steward.objects.filter(namespace=proposal.namespace, user=orcid).update(show_orcid=True)

    pending = user_factory("pending")
    get_user_model().objects.filter(pk=pending.pk).update(is_active=False)
    Account.objects.filter(user=pending).update(origin=AccountOrigin.SIGNUP)
    return {"snid": proposal.namespace.snid}


@pytest.mark.django_db(transaction=True)
def test_a_restore_into_a_fresh_database_is_the_same_site_table_by_table(tmp_path, people, client):
    before = _snapshot()
    out = io.StringIO()
    call_command("export_registry", "--format", "backup", stdout=out)
    path = tmp_path / "backup.json"
    path.write_text(out.getvalue(), encoding="utf-8")
    call_command("flush", interactive=False)
    assert not get_user_model().objects.exists() and not SocialAccount.objects.exists()

    restored = io.StringIO()
    call_command("import_registry", str(path), "--no-measure", stdout=restored)
    assert "accounts with 2 e-mail addresses, 1 sign-in identities and 1 API tokens" in restored.getvalue()
    after = _snapshot()
    for label in BACKUP_MODELS:
        assert after[label] == before[label], label

    # the password account signs in through the log-in page
    assert client.post("/accounts/login/", {"username": "SAM", "password": PASSWORD}).status_code == 302
    assert client.get("/accounts/").status_code == 200
    client.logout()
    # the ORCID-only account is found by its identity (the sign-in itself: tests/browser/test_accounts.py)
    linked = SocialAccount.objects.select_related("user").get(provider="orcid", uid=ORCID_ID)
    assert linked.user.username == "josiah" and not linked.user.has_usable_password()
    assert linked.user.account.origin == AccountOrigin.IDENTITY
    # the SNID page shows the steward's verified ORCID iD again, as they chose
    page = client.get(f"/urn/{people['snid']}/").content.decode()
    assert f"https://orcid.org/{ORCID_ID}" in page
    # names as compared came back: a look-alike of a restored name is still refused
    from registry.accounts.names import name_taken

    assert name_taken("5am") is False and name_taken("SAM") and name_taken("jos\u0456ah")


@pytest.mark.django_db(transaction=True)
def test_replace_restores_the_backups_identities_instead_of_doubling_them(tmp_path, people):
    out = io.StringIO()
    call_command("export_registry", "--format", "backup", stdout=out)
    path = tmp_path / "backup.json"
    path.write_text(out.getvalue(), encoding="utf-8")
    before = _snapshot()
    call_command("import_registry", str(path), "--replace", "--no-measure", stdout=io.StringIO())
    assert _snapshot() == before
    assert SocialAccount.objects.count() == 1 and EmailAddress.objects.count() == 2
