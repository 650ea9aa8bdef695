"""The checkpoint the log's signer published last (registry.transparency.models.LogSigned)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0011_resolver_cost"),
    ]

    operations = [
        migrations.CreateModel(
            name="LogSigned",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "note",
                    models.TextField(help_text="the signed checkpoint with the witnesses' cosignatures, as served"),
                ),
                ("size", models.BigIntegerField(default=0)),
                ("signed_at", models.DateTimeField(blank=True, null=True)),
                ("damage", models.TextField(blank=True, help_text="why the signer refuses to sign, or empty")),
                (
                    "checked_at",
                    models.DateTimeField(blank=True, help_text="when the signer last examined the log", null=True),
                ),
            ],
            options={"verbose_name": "signed checkpoint"},
        ),
    ]
