"""Restore a backup made by ``export_registry --format backup`` (docs/operations.md)."""

from pathlib import Path

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection, transaction

from ...accounts.names import name_key
from ...grammar import snid_error
from ...lookup import registry_invalidate
from ...transparency.log import LogError
from ...transparency.signer import log_replacement_problem
from ._backup import (
    DERIVED_MODELS,
    PER_ACCOUNT_MODELS,
    REGISTRY_MODELS,
    RESTORED_LAST,
    BackupError,
    read_backup,
)

MAX_BYTES = 2 * 1024**3


class Command(BaseCommand):
    help = (
        "Restore a backup made with `export_registry --format backup` into a migrated database "
        "(docs/operations.md). The file is checked first (schema, HMAC-SHA256 signature under the backup "
        "key, exact bytes); a "
        "database that already holds registry data, or accounts with the backup's usernames, is "
        "refused unless --replace is given. Accounts the backup does not hold are never touched."
    )

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="replace the registry data and the backup's own accounts already in the "
            "database (other accounts stay as they are)",
        )
        parser.add_argument(
            "--no-measure",
            action="store_true",
            help="do not measure the restored validators' matching cost now (until "
            "measure_validators runs, every lookup and SNID page matches in the bounded worker)",
        )

    def handle(self, path, replace=False, no_measure=False, **options):
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}.") from None
        if len(raw) > MAX_BYTES:
            raise CommandError(f"{path} is larger than {MAX_BYTES:,} bytes; this is not a registry backup.")
        try:
            document = read_backup(raw)
        except BackupError as exc:
            raise CommandError(f"{path}: {exc}") from None
        records = document["records"]
        # Nothing that is not RFC 6453 SNID syntax may enter the registry, not even by a backup.
        bad = [
            r["fields"].get("snid", "")
            for r in records
            if r["model"] == "registry.namespace" and snid_error(r["fields"].get("snid", ""))
        ]
        if bad:
            raise CommandError(
                f"The backup holds {len(bad)} SNID(s) that are not valid, e.g. "
                f"{bad[0][:40]!r}: {snid_error(bad[0])} Nothing was restored.",
                returncode=2,
            )
        usernames = [r["fields"]["username"] for r in records if r["model"] == "auth.user"]
        tokens = [r["pk"] for r in records if r["model"] == "authtoken.token"]

        held = [label for label in REGISTRY_MODELS if apps.get_model(label)._default_manager.exists()]
        existing_users = sorted(
            get_user_model().objects.filter(username__in=usernames).values_list("username", flat=True)
        )
        Token = apps.get_model("authtoken.token")
        foreign_tokens = Token.objects.filter(key__in=tokens).exclude(user__username__in=usernames).exists()
        if foreign_tokens:
            raise CommandError("An API token in the backup belongs to another account here; nothing was restored.")
        folded_here = dict(
            get_user_model()
            .objects.filter(account__name_key__in=[name_key(u) for u in usernames])
            .values_list("account__name_key", "username")
        )
        other_case = sorted(
            f"{here} (the backup's {theirs})"
            for theirs in usernames
            if (here := folded_here.get(name_key(theirs))) not in (None, theirs)
        )
        if other_case:
            raise CommandError(
                "Accounts here have the backup's user names in another case: "
                + ", ".join(other_case)
                + ". User names are compared ignoring case, so both cannot exist and neither "
                "replaces the other; rename the accounts here first (admin → Users). Nothing was "
                "restored."
            )
        if not replace and held:
            raise CommandError(
                "This database already holds registry data ("
                + ", ".join(label.split(".")[1] for label in held)
                + "); nothing was restored. "
                "Restore into an empty, migrated database, or give --replace to replace it."
            )
        if not replace and existing_users:
            raise CommandError(
                "Accounts with the backup's usernames already exist here ("
                + ", ".join(existing_users)
                + "); nothing was restored. Give --replace to let "
                "the backup's accounts replace them (no other account is touched)."
            )
        # The backup's log replaces the one here: only if it is sound and extends what was signed, so a
        # restore never takes back or renumbers an entry that mirrors and witnesses hold.
        entries = sorted(
            (r["pk"], r["fields"]["leaf"].encode("utf-8"), r["fields"]["leaf_hash"])
            for r in records
            if r["model"] == "registry.logentry"
        )
        head = next((r["fields"]["size"] for r in records if r["model"] == "registry.loghead"), 0)
        try:
            problem = log_replacement_problem(entries, head)
        except LogError as exc:
            raise CommandError(f"The transparency log cannot be checked, so nothing was restored: {exc}") from None
        if problem:
            raise CommandError(f"{problem} Nothing was restored.")
        try:
            with transaction.atomic():
                if replace:
                    self._clear_registry()
                    Token.objects.filter(user__username__in=usernames).delete()
                    for label in sorted(PER_ACCOUNT_MODELS - {"registry.account"}):  # the backup's, instead
                        apps.get_model(label)._default_manager.filter(user__username__in=usernames).delete()
                self._load(records)
        except DatabaseError as exc:
            raise CommandError(f"The database refused the restore, nothing was written: {exc}".strip()) from None
        registry_invalidate()
        counts = {
            label: sum(1 for r in records if r["model"] == label)
            for label in (
                "registry.namespace",
                "registry.proposal",
                "auth.user",
                "account.emailaddress",
                "socialaccount.socialaccount",
                "authtoken.token",
            )
        }
        self.stdout.write(
            f"Restored {counts['registry.namespace']} SNIDs and {counts['registry.proposal']} "
            f"proposals, {counts['auth.user']} accounts with {counts['account.emailaddress']} e-mail "
            f"addresses, {counts['socialaccount.socialaccount']} sign-in identities and "
            f"{counts['authtoken.token']} API tokens."
        )
        if not no_measure:
            # The costs are derived and not in the backup: until measured, no validator is proven cheap,
            # so every lookup and SNID page would match in the bounded worker (grammar/cost.py).
            try:
                call_command("measure_validators", "--no-touch", stdout=self.stdout)
            except SystemExit:  # a validator over the budget: listed above, and on the editors' dashboard
                pass

    def _clear_registry(self):
        tables = [apps.get_model(label)._meta.db_table for label in [*REGISTRY_MODELS, *DERIVED_MODELS]]
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                # Only the tables' owner may (docs/deployment.md: run restores as the migration role).
                cursor.execute("TRUNCATE " + ", ".join(connection.ops.quote_name(t) for t in tables))
            else:
                cursor.execute("DELETE FROM registry_deprecation")  # before SNIDs may be re-pointed
                cursor.execute("UPDATE registry_namespace SET current_id = NULL")
                for table in reversed(tables):
                    cursor.execute(f"DELETE FROM {connection.ops.quote_name(table)}")

    def _load(self, records):
        """What loaddata does, from records already checked: constraints checked once at the end."""
        with connection.constraint_checks_disabled():
            deferred = []
            first = [r for r in records if r["model"] not in RESTORED_LAST]
            for obj in serializers.deserialize("python", first, handle_forward_references=True):
                obj.save()
                if obj.deferred_fields:
                    deferred.append(obj)
            for obj in deferred:
                obj.save_deferred_fields()
            for obj in serializers.deserialize("python", [r for r in records if r["model"] in RESTORED_LAST]):
                obj.save()
        connection.check_constraints(
            table_names=[
                apps.get_model(label)._meta.db_table
                for label in ["auth.user", *sorted(PER_ACCOUNT_MODELS), "authtoken.token", *REGISTRY_MODELS]
            ]
        )
        if connection.vendor == "postgresql":
            from django.core.management.color import no_style

            with connection.cursor() as cursor:
                for sql in connection.ops.sequence_reset_sql(
                    no_style(), [apps.get_model(label) for label in REGISTRY_MODELS]
                ):
                    cursor.execute(sql)
