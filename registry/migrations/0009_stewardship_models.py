"""An SNID's life after approval (registry.stewardship): stewards, change requests, overlays, deprecations.

The registrant of each registered SNID's current version becomes its first steward. On
PostgreSQL the database itself keeps the history append-only, decided change requests
unchanged, and a deprecated SNID from being registered, reserved, re-pointed or proposed
again (SQLite's triggers are registry.dbguards').
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

FORWARD = """
CREATE OR REPLACE FUNCTION registry_refuse_stewardship_event_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'an SNID''s history is append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_refuse_decided_change() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' OR OLD.state <> 'pending' THEN
    RAISE EXCEPTION 'a decided change request never changes' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_refuse_deprecation_delete() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'a deprecation is ended, never deleted' USING ERRCODE = 'integrity_constraint_violation';
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_deprecated_namespace_stays() RETURNS trigger AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM registry_deprecation d WHERE d.namespace_id = OLD.id AND d.ended_at IS NULL)
     AND (NEW.status <> OLD.status OR NEW.current_id IS DISTINCT FROM OLD.current_id
          OR NEW.reserved_until IS DISTINCT FROM OLD.reserved_until
          OR NEW.reserved_for_id IS DISTINCT FROM OLD.reserved_for_id) THEN
    RAISE EXCEPTION 'SNID % is deprecated: it is never registered, reserved or reassigned', OLD.snid
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_deprecated_not_proposed() RETURNS trigger AS $$
BEGIN
  IF (TG_OP = 'INSERT' OR NEW.state = 'approved') AND EXISTS (
      SELECT 1 FROM registry_deprecation d JOIN registry_namespace n ON n.id = d.namespace_id
      WHERE d.ended_at IS NULL AND lower(n.snid) = lower(NEW.snid)) THEN
    RAISE EXCEPTION 'SNID % is deprecated: it is never proposed or registered again', NEW.snid
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER registry_stewardshipevent_append_only BEFORE UPDATE OR DELETE ON registry_stewardshipevent
  FOR EACH ROW EXECUTE FUNCTION registry_refuse_stewardship_event_change();
CREATE TRIGGER registry_changerequest_decided BEFORE UPDATE OR DELETE ON registry_changerequest
  FOR EACH ROW EXECUTE FUNCTION registry_refuse_decided_change();
CREATE TRIGGER registry_deprecation_kept BEFORE DELETE ON registry_deprecation
  FOR EACH ROW EXECUTE FUNCTION registry_refuse_deprecation_delete();
CREATE TRIGGER registry_deprecated_stays BEFORE UPDATE ON registry_namespace
  FOR EACH ROW EXECUTE FUNCTION registry_deprecated_namespace_stays();
CREATE TRIGGER registry_deprecated_not_proposed BEFORE INSERT ON registry_proposal
  FOR EACH ROW EXECUTE FUNCTION registry_deprecated_not_proposed();
CREATE TRIGGER registry_deprecated_not_approved BEFORE UPDATE OF state ON registry_proposal
  FOR EACH ROW EXECUTE FUNCTION registry_deprecated_not_proposed();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS registry_stewardshipevent_append_only ON registry_stewardshipevent;
DROP TRIGGER IF EXISTS registry_changerequest_decided ON registry_changerequest;
DROP TRIGGER IF EXISTS registry_deprecation_kept ON registry_deprecation;
DROP TRIGGER IF EXISTS registry_deprecated_stays ON registry_namespace;
DROP TRIGGER IF EXISTS registry_deprecated_not_proposed ON registry_proposal;
DROP TRIGGER IF EXISTS registry_deprecated_not_approved ON registry_proposal;
DROP FUNCTION IF EXISTS registry_refuse_stewardship_event_change();
DROP FUNCTION IF EXISTS registry_refuse_decided_change();
DROP FUNCTION IF EXISTS registry_refuse_deprecation_delete();
DROP FUNCTION IF EXISTS registry_deprecated_namespace_stays();
DROP FUNCTION IF EXISTS registry_deprecated_not_proposed();
"""


def guards_forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def guards_backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


def first_stewards(apps, schema_editor):
    """The registrant (submitter) of each registered SNID's current version becomes its first steward."""
    Namespace = apps.get_model("registry", "Namespace")
    Steward = apps.get_model("registry", "Steward")
    for namespace in Namespace.objects.filter(status="registered", current__isnull=False).select_related("current"):
        if not Steward.objects.filter(namespace=namespace, user_id=namespace.current.submitter_id).exists():
            Steward.objects.create(
                namespace=namespace,
                user_id=namespace.current.submitter_id,
                state="active",
                reason="Registrant of the SNID when stewards were introduced.",
                confirmed_at=namespace.registered_at,
            )


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0008_tlog_log"),
        ("registry", "0008_faults_matching_validator_cost"),  # the leaves of the branches merged before
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RegistrantOverlay",
            fields=[
                (
                    "namespace",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        primary_key=True,
                        related_name="overlay",
                        serialize=False,
                        to="registry.namespace",
                    ),
                ),
                ("version", models.PositiveIntegerField()),
                ("values", models.JSONField(default=dict)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
        ),
        migrations.CreateModel(
            name="ChangeRequest",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("kind", models.CharField(max_length=24)),
                ("data", models.JSONField(default=dict)),
                ("before", models.JSONField(blank=True, default=dict)),
                ("reason", models.TextField(blank=True)),
                (
                    "state",
                    models.CharField(
                        choices=[("pending", "Awaiting an editor"), ("approved", "Approved"), ("declined", "Declined")],
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("decision_note", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "namespace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="change_requests",
                        to="registry.namespace",
                    ),
                ),
                (
                    "requested_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "ordering": ["created_at", "id"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("state__in", ["pending", "approved", "declined"])),
                        name="change_state_valid",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="Deprecation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("reason", models.TextField()),
                ("deprecated_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("ended_at", models.DateTimeField(blank=True, null=True)),
                ("end_reason", models.TextField(blank=True)),
                (
                    "deprecated_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "ended_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "namespace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="deprecations",
                        to="registry.namespace",
                    ),
                ),
                (
                    "successor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="registry.namespace",
                    ),
                ),
            ],
            options={
                "ordering": ["deprecated_at", "id"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("ended_at__isnull", True)),
                        fields=("namespace",),
                        name="one_deprecation_in_force",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="Steward",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "state",
                    models.CharField(
                        choices=[
                            ("invited", "Invited (awaiting an editor)"),
                            ("active", "Steward"),
                            ("removed", "Removed"),
                            ("declined", "Invitation declined"),
                        ],
                        default="active",
                        max_length=16,
                    ),
                ),
                ("show_orcid", models.BooleanField(default=False)),
                ("reason", models.TextField(blank=True, help_text="why the steward was added or invited")),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ("confirmed_at", models.DateTimeField(blank=True, null=True)),
                ("ended_at", models.DateTimeField(blank=True, null=True)),
                (
                    "invited_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "namespace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="stewards", to="registry.namespace"
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="stewardships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["created_at", "id"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("state__in", ["invited", "active"])),
                        fields=("namespace", "user"),
                        name="one_live_stewardship_per_user",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("state__in", ["invited", "active", "removed", "declined"])),
                        name="steward_state_valid",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="StewardshipEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("steward-added", "Steward added"),
                            ("steward-removed", "Steward removed"),
                            ("steward-invited", "Steward invited"),
                            ("steward-confirmed", "Steward confirmed"),
                            ("steward-declined", "Steward invitation declined"),
                            ("steward-deactivated", "Steward's account deactivated"),
                            ("change-requested", "Change requested"),
                            ("change-approved", "Change approved"),
                            ("change-declined", "Change declined"),
                            ("deprecated", "Deprecated"),
                            ("undeprecated", "Deprecation withdrawn"),
                        ],
                        max_length=24,
                    ),
                ),
                ("public", models.BooleanField(default=False)),
                ("summary", models.CharField(max_length=300)),
                ("reason", models.TextField(blank=True)),
                ("data", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "namespace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="stewardship_events",
                        to="registry.namespace",
                    ),
                ),
            ],
            options={
                "ordering": ["created_at", "id"],
                "indexes": [
                    models.Index(fields=["namespace", "public", "created_at"], name="stewardship_event_public")
                ],
            },
        ),
        migrations.RunPython(guards_forward, guards_backward),
        migrations.RunPython(first_stewards, migrations.RunPython.noop),
    ]
