"""Access policy in the database: what no role but the tables' owner can write, and what nobody can rewrite.

PostgreSQL (in addition to 0006):
- ``registry_namespace.current`` points only at an approved proposal of that SNID, and once set
  is never cleared (checked at commit, so a restore may insert in any order);
- a proposal becomes approved only together with its approval event (checked at commit);
- events are neither back-dated nor future-dated by more than five minutes;
- judgements of a decided proposal and comments of a decided proposal do not change; judgements
  are not added after the decision; reservation requests are never deleted and, once answered,
  never changed;
- TRUNCATE of the registry's tables is refused.
Writing history (a restore inserting old events, or judgements of decided proposals) and
TRUNCATE are left to the role that owns the tables (the migration role, docs/deployment.md);
the app's own role does not own them, so it can neither do that nor disable a trigger.

SQLite (development): triggers (registry/dbguards.py) refuse renaming an SNID (queryset
``update()`` included), changing an event or an approved proposal, and pointing ``current`` at a
non-approved proposal.
"""

from django.db import migrations, models

from registry.dbguards import sqlite_triggers_install, sqlite_triggers_remove

POSTGRES_FORWARD = r"""
CREATE OR REPLACE FUNCTION registry_is_owner(tablename text) RETURNS boolean AS $$
  SELECT pg_has_role(current_user, c.relowner, 'MEMBER')
  FROM pg_class c WHERE c.oid = tablename::regclass
$$ LANGUAGE sql STABLE;

CREATE OR REPLACE FUNCTION registry_check_current() RETURNS trigger AS $$
DECLARE target record;
BEGIN
  SELECT state, namespace_id INTO target FROM registry_proposal WHERE id = NEW.current_id;
  IF target IS NULL OR target.state <> 'approved' OR target.namespace_id IS DISTINCT FROM NEW.id THEN
    RAISE EXCEPTION 'SNID % can only point at an approved version of itself (proposal %)', NEW.snid, NEW.current_id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_keep_current() RETURNS trigger AS $$
BEGIN
  IF OLD.current_id IS NOT NULL AND NEW.current_id IS NULL THEN
    RAISE EXCEPTION 'SNID % keeps its current version; it is never cleared', OLD.snid
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_approval_needs_event() RETURNS trigger AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM registry_proposalevent e WHERE e.proposal_id = NEW.id
                 AND e.action = 'approve' AND e.to_state = 'approved') THEN
    RAISE EXCEPTION 'proposal % is approved only by the approval service, together with its event', NEW.id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_event_on_time() RETURNS trigger AS $$
BEGIN
  IF (NEW.created_at < now() - interval '5 minutes' OR NEW.created_at > now() + interval '5 minutes')
     AND NOT registry_is_owner(TG_TABLE_NAME) THEN
    RAISE EXCEPTION 'events are recorded when they happen; % is not now', NEW.created_at
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_review_frozen() RETURNS trigger AS $$
DECLARE pid bigint; decided boolean;
BEGIN
  pid := CASE WHEN TG_OP = 'INSERT' THEN NEW.proposal_id ELSE OLD.proposal_id END;
  SELECT state IN ('approved', 'rejected', 'withdrawn') INTO decided FROM registry_proposal WHERE id = pid;
  IF TG_OP = 'UPDATE' AND NEW.proposal_id IS DISTINCT FROM OLD.proposal_id THEN
    RAISE EXCEPTION '% rows never move to another proposal', TG_TABLE_NAME
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF coalesce(decided, false) AND (TG_OP <> 'INSERT' OR
      (TG_TABLE_NAME = 'registry_judgement' AND NOT registry_is_owner(TG_TABLE_NAME))) THEN
    RAISE EXCEPTION 'proposal % is decided; its review (%) is final', pid, TG_TABLE_NAME
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_request_kept() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'reservation requests are never deleted' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF OLD.state <> 'pending' THEN
    RAISE EXCEPTION 'reservation request % was answered; the answer is final', OLD.id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_refuse_truncate() RETURNS trigger AS $$
BEGIN
  IF NOT registry_is_owner(TG_TABLE_NAME) THEN
    RAISE EXCEPTION 'TRUNCATE of % is refused: the record is never emptied', TG_TABLE_NAME
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER registry_current_is_approved AFTER INSERT OR UPDATE OF current_id ON registry_namespace
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.current_id IS NOT NULL)
  EXECUTE FUNCTION registry_check_current();
CREATE TRIGGER registry_current_kept BEFORE UPDATE OF current_id ON registry_namespace
  FOR EACH ROW EXECUTE FUNCTION registry_keep_current();
CREATE CONSTRAINT TRIGGER registry_approval_with_event AFTER INSERT OR UPDATE OF state ON registry_proposal
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.state = 'approved')
  EXECUTE FUNCTION registry_approval_needs_event();
CREATE TRIGGER registry_event_on_time BEFORE INSERT ON registry_proposalevent
  FOR EACH ROW EXECUTE FUNCTION registry_event_on_time();
CREATE TRIGGER registry_comment_frozen BEFORE UPDATE OR DELETE ON registry_comment
  FOR EACH ROW EXECUTE FUNCTION registry_review_frozen();
CREATE TRIGGER registry_judgement_frozen BEFORE INSERT OR UPDATE OR DELETE ON registry_judgement
  FOR EACH ROW EXECUTE FUNCTION registry_review_frozen();
CREATE TRIGGER registry_request_kept BEFORE UPDATE OR DELETE ON registry_reservationrequest
  FOR EACH ROW EXECUTE FUNCTION registry_request_kept();
"""

TABLES = [
    "registry_namespace",
    "registry_proposal",
    "registry_proposalevent",
    "registry_comment",
    "registry_judgement",
    "registry_reservationrequest",
]
POSTGRES_FORWARD += "".join(
    f"CREATE TRIGGER registry_no_truncate BEFORE TRUNCATE ON {table} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION registry_refuse_truncate();\n"
    for table in TABLES
)

POSTGRES_BACKWARD = (
    "".join(f"DROP TRIGGER IF EXISTS registry_no_truncate ON {table};\n" for table in TABLES)
    + """
DROP TRIGGER IF EXISTS registry_current_is_approved ON registry_namespace;
DROP TRIGGER IF EXISTS registry_current_kept ON registry_namespace;
DROP TRIGGER IF EXISTS registry_approval_with_event ON registry_proposal;
DROP TRIGGER IF EXISTS registry_event_on_time ON registry_proposalevent;
DROP TRIGGER IF EXISTS registry_comment_frozen ON registry_comment;
DROP TRIGGER IF EXISTS registry_judgement_frozen ON registry_judgement;
DROP TRIGGER IF EXISTS registry_request_kept ON registry_reservationrequest;
DROP FUNCTION IF EXISTS registry_check_current(), registry_keep_current(), registry_approval_needs_event(),
  registry_event_on_time(), registry_review_frozen(), registry_request_kept(), registry_refuse_truncate(),
  registry_is_owner(text);
"""
)


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_FORWARD, params=None)  # no placeholders: RAISE uses %
    else:
        sqlite_triggers_install(schema_editor.connection)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_BACKWARD, params=None)
    else:
        sqlite_triggers_remove(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("registry", "0007_public_contact")]
    operations = [
        migrations.AlterField(
            model_name="proposalevent",
            name="kind",
            field=models.CharField(
                choices=[("created", "Created"), ("transition", "State change"), ("judgement", "Editor's judgement")],
                default="transition",
                max_length=16,
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
