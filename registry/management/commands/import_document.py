from functools import partial
from json import dumps
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ... import interchange, sandbox
from ...documents import DocumentError, document_import, read_document
from ...grammar import snid_error
from ._common import SCRIPTED_COMMAND_CHECKS, get_user


class Command(BaseCommand):
    help = (
        "Read a registration document (text, Markdown, LaTeX, PDF or Word .docx; GFD.191-style or "
        "RFC 3406/8141-style) into a draft proposal and print the import report: every template "
        "field found (with its source lines), uncertain (why) or not found. --json prints the "
        "report, the proposal data and the new proposal's id; --dry-run creates nothing."
    )

    requires_system_checks = SCRIPTED_COMMAND_CHECKS  # see _common.py

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument("--dry-run", action="store_true", help="report only; create no proposal")
        parser.add_argument("--submitter", help="owner of the draft (default: the first superuser)")

    def handle(self, path, json=False, dry_run=False, submitter=None, **options):
        try:
            raw = Path(path).read_bytes()
            seconds = sandbox.import_cpu_seconds()
            text, fmt, notes = sandbox.run_bounded(
                read_document, Path(path).name, raw, what="document", expected=(DocumentError,), seconds=seconds
            )
            result = sandbox.run_bounded(
                partial(document_import, format=fmt, notes=notes),
                text,
                what="document",
                expected=(DocumentError,),
                seconds=seconds,
            )
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}.") from None
        except sandbox.BudgetExceeded as exc:
            raise CommandError(exc.message + " Nothing was imported.", returncode=2) from None
        except DocumentError as exc:
            raise CommandError(str(exc), returncode=2) from None
        data = result.data
        proposal = None
        if not dry_run:
            user = (
                get_user(submitter)
                if submitter
                else get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
            )
            if user is None:
                raise CommandError("Give --submitter USER (there is no superuser to default to), or --dry-run.")
            if not data.snid or snid_error(data.snid):
                data.snid = "unnamed"
            from ... import services  # the proposals' services (the checklist, the log): only to create

            try:
                proposal = services.proposal_create(data, user)
            except services.ServiceError as exc:
                raise CommandError(exc.message, returncode=2) from None
        if json:
            payload = {
                "proposal_id": proposal.pk if proposal else None,
                "created": proposal is not None,
                "report": result.report.as_dict(),
                "data": interchange.dump(data),
            }
            self.stdout.write(dumps(payload, indent=2, ensure_ascii=False))
            return
        if proposal is not None:
            self.stdout.write(str(proposal.pk))
        self.stdout.write(report_text(result), ending="")


def report_text(result) -> str:
    lines = ["", "Mapped:"]
    lines += [f"  {key:<24} <- {heading}" for key, heading in result.mapped.items()]
    if result.unmapped:
        lines += ["Not mapped (kept in section 8):"] + [f"  {heading}" for heading in result.unmapped]
    lines += ["Report:", result.report.as_text().rstrip("\n")]
    if result.report.left_out:
        lines += ["URN-like text not taken as examples:"]
        lines += [f"  line {item['line']}: {item['text']} ({item['why']})" for item in result.report.left_out]
    return "\n".join(lines) + "\n"
