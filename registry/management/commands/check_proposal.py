import sys
from json import dumps
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...checklist import summarize
from ...models import Proposal
from ...selectors import data_findings, proposal_findings
from ._common import SCRIPTED_COMMAND_CHECKS, read_proposal_file


class Command(BaseCommand):
    help = (
        "Run the automated review checklist on an interchange JSON file or a stored "
        "proposal (by id). Exit status: 0 nothing fails, 1 something fails, 2 unreadable input."
    )

    requires_system_checks = SCRIPTED_COMMAND_CHECKS  # see _common.py

    def add_arguments(self, parser):
        parser.add_argument("source", help="a JSON file, or the id of a stored proposal")
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--submitter",
            metavar="USER",
            help="check a file as if USER submitted it (tells a new version of their "
            "own SNID from someone else's); without it uniqueness is only reported",
        )

    def handle(self, source, json=False, submitter=None, **options):
        submitter_id = None
        if submitter:
            # The name rules' Unicode data is loaded only when a name is looked up (tests/test_startup.py).
            from ...accounts.names import user_by_name

            user = user_by_name(submitter)
            if user is None:
                raise CommandError(f"There is no user {submitter!r}.", returncode=2)
            submitter_id = user.pk
        if source.isdigit() and not Path(source).exists():
            proposal = Proposal.objects.filter(pk=int(source)).first()
            if proposal is None:
                raise CommandError(f"There is no proposal {source}.", returncode=2)
            snid, findings = proposal.snid, proposal_findings(proposal)
        else:
            try:
                data = read_proposal_file(source)
            except CommandError as exc:
                raise CommandError(str(exc), returncode=2) from None
            snid, findings = data.snid, data_findings(data, submitter_id)
        summary = summarize(findings)
        if json:
            self.stdout.write(
                dumps(
                    {"snid": snid, "findings": [f.as_dict() for f in findings], "summary": summary},
                    indent=2,
                    ensure_ascii=False,
                )
            )
        else:
            for finding in findings:
                where = ""
                if finding.item:
                    where = " [" + ", ".join(f"{k}={v}" for k, v in finding.item.items()) + "]"
                self.stdout.write(f"{finding.status.upper():8} {finding.id:22} {finding.message}{where}")
            self.stdout.write("\n" + ", ".join(f"{n} {status}" for status, n in summary.items()))
        if summary["fail"]:
            sys.exit(1)
