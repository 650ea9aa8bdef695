"""A second line of defence on PostgreSQL: the database itself refuses to change the record.

Approved proposals cannot be updated or deleted, events cannot be changed at all,
and SNIDs cannot be deleted or renamed — whatever SQL reaches the database.
(SQLite, the development database, relies on the model guards alone.)
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION registry_refuse_approved_change() RETURNS trigger AS $$
BEGIN
  IF OLD.state = 'approved' THEN
    RAISE EXCEPTION 'approved proposal % is immutable; submit a new version instead', OLD.id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_refuse_event_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'proposal events are append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_refuse_snid_change() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'SNID % is never deleted', OLD.snid USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF lower(OLD.snid) <> lower(NEW.snid) THEN
    RAISE EXCEPTION 'SNID % is never renamed', OLD.snid USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER registry_proposal_immutable BEFORE UPDATE OR DELETE ON registry_proposal
  FOR EACH ROW EXECUTE FUNCTION registry_refuse_approved_change();
CREATE TRIGGER registry_event_append_only BEFORE UPDATE OR DELETE ON registry_proposalevent
  FOR EACH ROW EXECUTE FUNCTION registry_refuse_event_change();
CREATE TRIGGER registry_snid_permanent BEFORE UPDATE OR DELETE ON registry_namespace
  FOR EACH ROW EXECUTE FUNCTION registry_refuse_snid_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS registry_proposal_immutable ON registry_proposal;
DROP TRIGGER IF EXISTS registry_event_append_only ON registry_proposalevent;
DROP TRIGGER IF EXISTS registry_snid_permanent ON registry_namespace;
DROP FUNCTION IF EXISTS registry_refuse_approved_change();
DROP FUNCTION IF EXISTS registry_refuse_event_change();
DROP FUNCTION IF EXISTS registry_refuse_snid_change();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)  # no placeholders: RAISE uses %


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("registry", "0005_comments_reservations_judgements")]
    operations = [migrations.RunPython(forward, backward)]
