from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from ...grammar import snid_error
from ...lookup import registry_invalidate
from ...models import Namespace, Proposal


class Command(BaseCommand):
    help = ("Restore a backup made with `export_registry --format backup` into an empty, migrated "
            "database (docs/operations.md). Refuses to mix a backup into existing data.")

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, path, **options):
        if Namespace.objects.exists() or Proposal.objects.exists():
            raise CommandError("This database already holds registry data; restore into an empty one "
                               "(run `manage.py migrate` on a new database first).")
        with transaction.atomic():
            # The editors group made by the migration is replaced by the backup's own.
            from django.contrib.auth.models import Group
            Group.objects.all().delete()
            call_command("loaddata", path, verbosity=0)
            # Nothing that is not RFC 6453 SNID syntax may enter the registry, not even by a backup.
            bad = [snid for snid in Namespace.objects.values_list("snid", flat=True) if snid_error(snid)]
            if bad:
                raise CommandError(f"The backup holds {len(bad)} SNID(s) that are not valid, e.g. "
                                   f"{bad[0][:40]!r}: {snid_error(bad[0])} Nothing was restored.",
                                   returncode=2)
        registry_invalidate()
        self.stdout.write(f"Restored {Namespace.objects.count()} SNIDs and {Proposal.objects.count()} proposals.")
