from json import dumps
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ... import interchange, sandbox, services
from ...grammar import snid_error
from ...documents import document_import
from ._common import get_user


class Command(BaseCommand):
    help = ("Read a registration document (GFD.191-style, RFC 3406/8141-style, plain text, Markdown "
            "or LaTeX) into a draft proposal and report what was mapped. With --json, print the "
            "proposal in the interchange format instead of storing it.")

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--submitter", help="owner of the draft (default: the first superuser)")

    def handle(self, path, json=False, submitter=None, **options):
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
            result = sandbox.run_bounded(document_import, text, what="document")
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}.") from None
        except sandbox.BudgetExceeded as exc:
            raise CommandError(exc.message + " Nothing was imported.", returncode=2) from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if json:
            self.stdout.write(dumps(interchange.dump(result.data), indent=2, ensure_ascii=False))
            return
        user = get_user(submitter) if submitter else get_user_model().objects.filter(
            is_superuser=True).order_by("pk").first()
        if user is None:
            raise CommandError("Give --submitter USER (there is no superuser to default to).")
        if not result.data.snid or snid_error(result.data.snid):
            result.data.snid = "unnamed"
        try:
            proposal = services.proposal_create(result.data, user)
        except services.ServiceError as exc:
            raise CommandError(exc.message, returncode=2) from None
        self.stdout.write(str(proposal.pk))
        self.stdout.write(report_text(result), ending="")


def report_text(result) -> str:
    lines = ["", "Mapped:"]
    lines += [f"  {key:<24} <- {heading}" for key, heading in result.mapped.items()]
    if result.unmapped:
        lines += ["Not mapped (kept in section 8):"] + [f"  {heading}" for heading in result.unmapped]
    if result.notes:
        lines += ["Needs attention:"] + [f"  - {note}" for note in result.notes]
    return "\n".join(lines) + "\n"

