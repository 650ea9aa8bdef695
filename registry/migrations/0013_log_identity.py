"""The log's identity (LogHead.identity): made with the log, kept by the signer in its record too, so a new
database is known as a new log (docs/transparency.md). An existing log's head gets one now (the column's
default, drawn once as the column is added: there is one head)."""

import secrets

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0012_tlog_signed_checkpoint"),
    ]

    operations = [
        migrations.AddField(
            model_name="loghead",
            name="identity",
            field=models.CharField(default=secrets.token_hex, editable=False, max_length=64),
        ),
    ]
