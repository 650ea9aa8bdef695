import json

from django.core.management.base import BaseCommand, CommandError

from ... import interchange
from ...models import Proposal
from ._common import SCRIPTED_COMMAND_CHECKS


class Command(BaseCommand):
    help = "Print a stored proposal in the interchange JSON format (docs/proposal-format.md)."

    requires_system_checks = SCRIPTED_COMMAND_CHECKS  # see _common.py

    def add_arguments(self, parser):
        parser.add_argument("id", type=int)

    def handle(self, id, **options):
        proposal = Proposal.objects.filter(pk=id).first()
        if proposal is None:
            raise CommandError(f"There is no proposal {id}.")
        self.stdout.write(json.dumps(interchange.dump(proposal.to_data()), indent=2, ensure_ascii=False))
