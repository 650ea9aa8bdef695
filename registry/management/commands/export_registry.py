from django.core.management.base import BaseCommand, CommandError

from ... import exports
from ._backup import BackupError, backup_document, render


class Command(BaseCommand):
    help = (
        "Print the public registry (registered SNIDs and active reservations) as JSON, CSV or "
        "XML: the same data as /urn/registry.json|csv|xml (docs/registry-exports.md). "
        "--format backup prints the whole record instead (every version, event, reservation, log entry, "
        "comment, account and API token, signed with HMAC-SHA256 under the backup key) for "
        "import_registry "
        "(docs/operations.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--format",
            choices=sorted(exports.FORMATS) + ["full", "backup"],
            default="json",
            help="json, csv, xml: the current records; full: every version, resolver, steward "
            "and deprecation (/urn/registry-full.json); backup: the whole record",
        )
        parser.add_argument(
            "--base-url", default=None, help="prefix for the records' page URLs (default: REGISTRY_SITE_URL)"
        )

    def handle(self, format="json", base_url=None, **options):
        if format == "backup":
            try:
                document = backup_document()
            except BackupError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(render(document), ending="")
            return
        if format == "full":
            import orjson

            from ...exports_full import full_document

            self.stdout.write(orjson.dumps(full_document(), option=orjson.OPT_INDENT_2).decode(), ending="\n")
            return
        render_as, _ = exports.FORMATS[format]
        self.stdout.write(
            render_as(exports.registry_snapshot(None if base_url is None else base_url.rstrip("/"))), ending=""
        )
