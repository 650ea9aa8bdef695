"""Accounts: each user's name case-folded (unique) and how the account came to be (registry.accounts).

Every existing account gets its record. Names that are one name folded (``Ärger`` and ``ärger``,
made when names were compared byte for byte) are reported here, not merged: the oldest account
keeps the name; the others keep theirs without a folded one (they sign in by their exact name)
until an administrator renames them, and ``manage.py check --database default`` lists them until
then. Existing accounts' origin is "unrecorded": nothing guesses which were sign-ups, so the purge
of unconfirmed sign-ups never touches them.
"""

import unicodedata

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _folded(text):
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text or "").casefold())


def records_write(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Account = apps.get_model("registry", "Account")
    holders, clashes = {}, []
    for user in User.objects.order_by("date_joined", "pk").iterator():
        key = _folded(user.username)
        if key in holders:
            clashes.append((holders[key], user.username))
            key = None
        else:
            holders[key] = user.username
        Account.objects.create(
            user_id=user.pk, name_key=key, email_key=_folded((user.email or "").strip()), origin="unrecorded"
        )
    if clashes:
        print(
            "\n  User names that are one name when case is ignored (nothing was merged; rename the later "
            "account in the admin):"
        )
        for kept, other in clashes:
            print(f"    {other!r} is the same name as the older {kept!r}, which keeps it")


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0009_resolution_resolvers"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Account",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="account",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("name_key", models.CharField(blank=True, editable=False, max_length=600, null=True, unique=True)),
                ("email_key", models.CharField(blank=True, db_index=True, editable=False, max_length=800)),
                (
                    "origin",
                    models.CharField(
                        choices=[
                            ("signup", "Signed up with the form"),
                            ("identity", "First signed in with an identity provider"),
                            ("other", "Made by an administrator or a command"),
                            ("unrecorded", "Made before origins were recorded, or restored from a backup"),
                        ],
                        default="other",
                        editable=False,
                        max_length=20,
                    ),
                ),
                ("confirmed_at", models.DateTimeField(blank=True, editable=False, null=True)),
            ],
        ),
        migrations.RunPython(records_write, migrations.RunPython.noop),
    ]
