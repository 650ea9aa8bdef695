from django.db import migrations, models

from registry.dbguards import sqlite_triggers_install, sqlite_triggers_remove


def _triggers_remove(apps, schema_editor):
    sqlite_triggers_remove(schema_editor.connection)


def _triggers_install(apps, schema_editor):
    sqlite_triggers_install(schema_editor.connection)


class Migration(migrations.Migration):
    """Text of an imported document that matched no template section gets its own field
    instead of being appended to section 8. (SQLite rebuilds the table for the new column: its
    development triggers, which name the table, are taken off first and put back after.)"""

    dependencies = [
        ("registry", "0007_access_policy"),
    ]

    operations = [
        migrations.RunPython(_triggers_remove, _triggers_install),
        migrations.AddField(
            model_name="proposal",
            name="unplaced_text",
            field=models.TextField(blank=True, default="", db_default=""),
        ),
        migrations.RunPython(_triggers_install, _triggers_remove),
    ]
