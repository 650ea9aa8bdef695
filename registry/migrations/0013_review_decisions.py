import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from registry.dbguards import sqlite_triggers_install, sqlite_triggers_remove


def _triggers_remove(apps, schema_editor):
    sqlite_triggers_remove(schema_editor.connection)


def _triggers_install(apps, schema_editor):
    sqlite_triggers_install(schema_editor.connection)


#: The statuses a summary counts (registry.enums.FindingStatus), as of this migration.
_STATUSES = ("pass", "warning", "fail", "editor", "not_run")


def _summaries_recount(apps, schema_editor):
    """Count every proposal's stored findings again with its judgements (verdicts.review_summary, as
    of this migration): a question the editor answered no longer counts as waiting for them.

    ``findings_summary`` is a count derived from the stored findings, shown by the queue and the
    lists; it is no part of the registration (nor of the log). PostgreSQL's guard refuses any update
    of an approved row, so it is lifted for this one statement, which sets this column alone."""
    Proposal = apps.get_model("registry", "Proposal")
    Judgement = apps.get_model("registry", "Judgement")
    judged: dict[int, dict[str, bool]] = {}
    for proposal_id, check_id, ok in Judgement.objects.values_list("proposal_id", "check_id", "ok"):
        judged.setdefault(proposal_id, {})[check_id] = ok
    changed = []
    for pk, findings, stored in Proposal.objects.filter(pk__in=judged).values_list(
        "pk", "findings", "findings_summary"
    ):
        counts = dict.fromkeys(_STATUSES, 0)
        for finding in findings or []:
            status, ok = finding.get("status"), judged[pk].get(finding.get("id"))
            if status == "editor" and ok is not None:
                status = "pass" if ok else "fail"
            counts[status] = counts.get(status, 0) + 1
        if counts != stored:
            changed.append((pk, counts))
    if not changed:
        return
    postgres = schema_editor.connection.vendor == "postgresql"
    if postgres:
        schema_editor.execute("ALTER TABLE registry_proposal DISABLE TRIGGER registry_proposal_immutable")
    for pk, counts in changed:
        Proposal.objects.filter(pk=pk).update(findings_summary=counts)
    if postgres:
        schema_editor.execute("ALTER TABLE registry_proposal ENABLE TRIGGER registry_proposal_immutable")


class Migration(migrations.Migration):
    """A decision keeps what it rests on: an approval's override (the editor's reason and what it was
    given over), what a proposal asks for (fixed at its first submission), and who released a
    reservation and when. (SQLite rebuilds the tables for the new columns: its development triggers,
    which name the tables, are taken off first and put back after. No existing row is rewritten:
    approved proposals are immutable, and pages read a missing kind or override as before.)"""

    dependencies = [
        ("registry", "0012_tlog_signed_checkpoint"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(_triggers_remove, _triggers_install),
        migrations.AddField(
            model_name="namespace",
            name="released_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="namespace",
            name="released_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="proposal",
            name="kind",
            field=models.CharField(
                blank=True,
                choices=[("new-snid", "New SNID"), ("new-version", "New version")],
                db_default="",
                default="",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="proposal",
            name="overridden",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="proposal",
            name="override_reason",
            field=models.TextField(blank=True, db_default="", default=""),
        ),
        # Before the SQLite triggers are back (they refuse any update of an approved row too).
        migrations.RunPython(_summaries_recount, migrations.RunPython.noop),
        migrations.RunPython(_triggers_install, _triggers_remove),
    ]
