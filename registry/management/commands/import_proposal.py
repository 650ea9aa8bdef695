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
        parser.add_argument("path")
        parser.add_argument("--submitter", help="username of the submitter (default: the first superuser)")
        parser.add_argument("--submit", action="store_true", help="submit it for review")
        parser.add_argument("--approve", action="store_true", help="approve it (implies --submit)")
        parser.add_argument("--editor", help="username of the approving editor (with --approve)")
        parser.add_argument("--override-reason", default="", help="written reason to approve although a check fails")

    def handle(self, path, submitter=None, submit=False, approve=False, editor=None, override_reason="", **options):
        if approve and not editor:
            raise CommandError("--approve needs --editor USER.")
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
                proposal = services.proposal_transition(
                    proposal, "approve", editor_user, override_reason=override_reason
                )
        except services.ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(str(proposal.pk))
