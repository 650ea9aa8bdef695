from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

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
        registry_invalidate()
        self.stdout.write(f"Restored {Namespace.objects.count()} SNIDs and {Proposal.objects.count()} proposals.")
