from django.core.management.base import BaseCommand

from ... import exports


class Command(BaseCommand):
    help = ("Print the public registry (registered SNIDs and active reservations) as JSON, CSV or "
            "XML: the same data as /urn/registry.json|csv|xml (docs/registry-exports.md).")

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=sorted(exports.FORMATS), default="json")
        parser.add_argument("--base-url", default="", help="prefix for the records' page URLs")

    def handle(self, format="json", base_url="", **options):
        render_as, _ = exports.FORMATS[format]
        self.stdout.write(render_as(exports.registry_snapshot(base_url.rstrip("/"))), ending="")
