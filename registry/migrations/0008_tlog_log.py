"""The transparency log's tables (registry.transparency) and the database guards that keep it append-only.

On PostgreSQL entries can be neither changed nor deleted and the head only moves one
entry forward, whatever SQL reaches the database (as migration 0006 guards approved
versions); SQLite's triggers are registry.dbguards'. Versions approved before this
migration are put in the log by ``manage.py log_backfill`` (docs/transparency.md).
"""

import django.utils.timezone
from django.db import migrations, models
from django.db.models.functions import Lower

FORWARD = """
CREATE OR REPLACE FUNCTION registry_refuse_log_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'the transparency log is append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_log_head_forward() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' OR NEW.size <> OLD.size + 1 OR NEW.id <> OLD.id THEN
    RAISE EXCEPTION 'the transparency log head only moves one entry forward'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER registry_logentry_append_only BEFORE UPDATE OR DELETE ON registry_logentry
  FOR EACH ROW EXECUTE FUNCTION registry_refuse_log_change();
CREATE TRIGGER registry_loghead_forward BEFORE UPDATE OR DELETE ON registry_loghead
  FOR EACH ROW EXECUTE FUNCTION registry_log_head_forward();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS registry_logentry_append_only ON registry_logentry;
DROP TRIGGER IF EXISTS registry_loghead_forward ON registry_loghead;
DROP FUNCTION IF EXISTS registry_refuse_log_change();
DROP FUNCTION IF EXISTS registry_log_head_forward();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("registry", "0008_faults_matching_validator_cost")]
    operations = [
        migrations.CreateModel(
            name="LogEntry",
            fields=[
                ("index", models.BigIntegerField(primary_key=True, serialize=False)),
                ("kind", models.CharField(max_length=40)),
                ("snid", models.CharField(blank=True, max_length=32)),
                ("version", models.PositiveIntegerField(blank=True, null=True)),
                (
                    "leaf",
                    models.TextField(help_text="the leaf's canonical JSON, exactly the bytes that are hashed (UTF-8)"),
                ),
                ("leaf_hash", models.CharField(help_text="SHA-256(0x00 || leaf), hex", max_length=64)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now, editable=False)),
            ],
            options={
                "verbose_name_plural": "log entries",
                "ordering": ["index"],
                "indexes": [models.Index(Lower("snid"), "version", name="logentry_snid_version")],
            },
        ),
        migrations.CreateModel(
            name="LogHead",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("size", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(forward, backward),
    ]
