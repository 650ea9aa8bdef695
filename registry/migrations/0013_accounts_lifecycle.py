"""Accounts: names as people read them (TR39 skeletons of user and public names), and closed accounts.

Every account gets the skeleton of its user name and of its public name (registry.accounts.lookalike).
User names that read alike (``alice`` and ``аlice``, made before names were compared as read) are
reported here, not merged: the oldest account keeps the skeleton; the others keep their names without
one until an administrator renames them, and ``manage.py check --database default`` lists them.
"""

from django.conf import settings
from django.db import migrations, models


def skeletons_write(apps, schema_editor):
    from registry.accounts.names import name_skeleton, public_skeleton

    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Account = apps.get_model("registry", "Account")
    holders, alike = {}, []
    for user in User.objects.order_by("date_joined", "pk").iterator():
        key = name_skeleton(user.username)
        if key in holders:
            alike.append((holders[key], user.username))
            key = None
        else:
            holders[key] = user.username
        full = f"{user.first_name} {user.last_name}".strip()
        Account.objects.filter(user_id=user.pk).update(name_skeleton=key, public_skeleton=public_skeleton(full))
    if alike:
        print("\n  User names that read alike (nothing was merged; rename the later account in the admin):")
        for kept, other in alike:
            print(f"    {other!r} reads like the older {kept!r}, which keeps its name")


class Migration(migrations.Migration):
    dependencies = [("registry", "0012_tlog_signed_checkpoint")]

    operations = [
        migrations.AddField(
            model_name="account",
            name="name_skeleton",
            field=models.CharField(blank=True, editable=False, max_length=800, null=True, unique=True),
        ),
        migrations.AddField(
            model_name="account",
            name="public_skeleton",
            field=models.CharField(blank=True, db_index=True, editable=False, max_length=800),
        ),
        migrations.AddField(
            model_name="account",
            name="confirmation_sent_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="account",
            name="closed_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(skeletons_write, migrations.RunPython.noop),
    ]
