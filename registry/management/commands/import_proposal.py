from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ... import services
from ._common import SCRIPTED_COMMAND_CHECKS, get_user, read_proposal_file


class Command(BaseCommand):
    help = (
        "Create a proposal from an interchange JSON file (docs/proposal-format.md), "
        "optionally submitting and approving it through the site's services; prints its id."
    )

    requires_system_checks = SCRIPTED_COMMAND_CHECKS  # see _common.py

    def add_arguments(self, parser):
        from ...checklist import MANUAL_CHECKS  # here, not at import: commands start without the checklist

        parser.add_argument("path")
        parser.add_argument("--submitter", help="username of the submitter (default: the first superuser)")
        parser.add_argument("--submit", action="store_true", help="submit it for review")
        parser.add_argument("--approve", action="store_true", help="approve it (implies --submit)")
        parser.add_argument("--editor", help="username of the approving editor (with --approve)")
        parser.add_argument(
            "--judge",
            action="append",
            default=[],
            metavar="CHECK=satisfied|not-satisfied",
            help="record one of the four judgements of GFD.191 §5 as the editor, before approving "
            f"(repeat for each; checks: {', '.join(MANUAL_CHECKS)})",
        )
        parser.add_argument(
            "--override-reason",
            default="",
            help="written reason to approve although a check fails or a judgement is not satisfied or not "
            "recorded (the approval rule of docs/findings.md; shown on the SNID's public page)",
        )

    def handle(
        self, path, submitter=None, submit=False, approve=False, editor=None, override_reason="", judge=(), **options
    ):
        if approve and not editor:
            raise CommandError("--approve needs --editor USER.")
        verdicts = _judgements(judge)
        if verdicts and not approve:
            raise CommandError("--judge records the editor's judgements before an approval: give --approve too.")
        data = read_proposal_file(path)
        if submitter:
            user = get_user(submitter)
        else:
            user = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
            if user is None:
                raise CommandError("Give --submitter USER (there is no superuser to default to).")
        editor_user = get_user(editor) if editor else None
        try:
            proposal = services.proposal_create(data, user)
            if submit or approve:
                proposal = services.proposal_transition(proposal, "submit", user)
            if approve:
                if verdicts:
                    services.judgements_set(proposal, editor_user, verdicts)
                proposal = services.proposal_transition(
                    proposal, "approve", editor_user, override_reason=override_reason
                )
        except services.ServiceError as exc:
            raise CommandError(exc.message) from None
        if approve and proposal.overridden:
            # What the approval was decided over, as the public page says it (stdout stays the id alone).
            over = "; ".join(b["sentence"] for b in proposal.overridden)
            self.stderr.write(f"Approved although: {over} — because: {proposal.override_reason}")
        self.stdout.write(str(proposal.pk))


def _judgements(options) -> dict[str, tuple[bool, str]]:
    """``--judge scope=satisfied`` options as the service takes them; a mistake is a usage error."""
    from ...checklist import MANUAL_CHECKS

    out = {}
    for option in options:
        check, _, verdict = option.partition("=")
        check, verdict = check.strip(), verdict.strip().lower()
        if check not in MANUAL_CHECKS:
            raise CommandError(f"--judge {option!r}: the checks are {', '.join(MANUAL_CHECKS)}.")
        if verdict not in ("satisfied", "not-satisfied"):
            raise CommandError(f"--judge {option!r}: say {check}=satisfied or {check}=not-satisfied.")
        out[check] = (verdict == "satisfied", "")
    return out
