from django.core.management.base import BaseCommand, CommandError

from ...backfill import log_backfill
from ...transparency.log import LogError
from ...transparency.signer import log_damage_thorough


class Command(BaseCommand):
    help = (
        "Put into the transparency log what the registry published before the log recorded it: every "
        "approved version not in it yet (in the order of approval), then each SNID's stewards, resolvers "
        "and deprecation as they stand (those made before the log began, and the registrants' "
        "stewardships), then the active reservations. Safe to run again: what is in the log already is "
        "skipped, and nothing changed behind the log's back is ever logged. Run it once after upgrading "
        "(docs/transparency.md); 'start' runs it."
    )

    def handle(self, **options):
        # In a damaged log an append would give a signed number a second entry, or put back as new
        # what was deleted after a hole: never. The operators repair the log first.
        try:
            damage = log_damage_thorough()
        except LogError as exc:
            raise CommandError(
                f"The transparency log cannot be checked, so nothing was added to it: {exc}", returncode=2
            ) from None
        if damage:
            raise CommandError(
                f"{damage} log_backfill adds nothing to a damaged log; repair it first "
                "(docs/transparency.md, 'When the log is damaged').",
                returncode=1,
            )
        try:
            done, size = log_backfill()
        except LogError as exc:
            raise CommandError(str(exc), returncode=1) from None
        self.stdout.write(done.sentence(size))
