from django.core.management import call_command
from django.core.management.base import BaseCommand

from ... import exports


#: Everything the registry records, for --format backup (restored by import_registry).
BACKUP_MODELS = ["auth.group", "auth.user", "registry.namespace", "registry.proposal",
                 "registry.proposalevent", "registry.comment", "registry.reservationrequest",
                 "registry.judgement"]


class Command(BaseCommand):
    help = ("Print the public registry (registered SNIDs and active reservations) as JSON, CSV or "
            "XML: the same data as /urn/registry.json|csv|xml (docs/registry-exports.md). "
            "--format backup prints the whole record instead (every version, event, reservation, "
            "comment and account) for import_registry (docs/operations.md).")

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=sorted(exports.FORMATS) + ["backup"], default="json")
        parser.add_argument("--base-url", default=None,
                            help="prefix for the records' page URLs (default: REGISTRY_SITE_URL)")

    def handle(self, format="json", base_url=None, **options):
        if format == "backup":
            call_command("dumpdata", *BACKUP_MODELS, natural_foreign=True, natural_primary=False,
                         indent=1, stdout=self.stdout)
            return
        render_as, _ = exports.FORMATS[format]
        self.stdout.write(render_as(exports.registry_snapshot(None if base_url is None else base_url.rstrip("/"))), ending="")
