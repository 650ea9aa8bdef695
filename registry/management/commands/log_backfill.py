from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from ...enums import NamespaceStatus
from ...models import Namespace, Proposal
from ...selectors import reservation_active
from ...transparency.log import LogError, log_tree
from ...transparency.signer import log_damage_thorough
from ...transparency.models import LogEntry
from ...transparency.records import log_reservation_granted, log_version_registered


BATCH = 500


class Command(BaseCommand):
    help = ("Put into the transparency log what was published before it began: every approved version not "
            "in it yet (in the order of approval), then the active reservations. Safe to run again: what is "
            "in the log already is skipped. Run it once after upgrading an existing registry "
            "(docs/transparency.md); 'start' runs it.")

    def handle(self, **options):
        # In a damaged log an append would give a signed number a second entry, or put back as new
        # what was deleted after a hole: never. The operators repair the log first.
        try:
            damage = log_damage_thorough()
        except LogError as exc:
            raise CommandError(f"The transparency log cannot be checked, so nothing was added to it: {exc}",
                               returncode=2) from None
        if damage:
            raise CommandError(f"{damage} log_backfill adds nothing to a damaged log; repair it first "
                               "(docs/transparency.md, 'When the log is damaged').", returncode=1)
        try:
            self._backfill()
        except LogError as exc:
            raise CommandError(str(exc), returncode=1) from None

    def _backfill(self):
        logged = set(LogEntry.objects.filter(kind="snid-version").values_list("snid", "version"))
        logged = {(snid.lower(), version) for snid, version in logged}
        versions = reservations = 0
        missing = [proposal for proposal in Proposal.objects.approved().select_related("namespace")
                   .order_by("decided_at", "id").iterator()
                   if (proposal.namespace.snid.lower(), proposal.version) not in logged]
        for start in range(0, len(missing), BATCH):
            with transaction.atomic():  # a commit per batch, not per entry
                for proposal in missing[start:start + BATCH]:
                    log_version_registered(proposal)
            versions += len(missing[start:start + BATCH])
        reserved = set(LogEntry.objects.exclude(kind="snid-version").values_list("snid", flat=True))
        reserved = {snid.lower() for snid in reserved}
        for namespace in Namespace.objects.filter(status=NamespaceStatus.RESERVED).order_by("snid"):
            if reservation_active(namespace) and namespace.snid.lower() not in reserved:
                with transaction.atomic():
                    log_reservation_granted(namespace, renewal=False)
                reservations += 1
        _, size = log_tree()
        self.stdout.write(f"Logged {versions} version{'s' if versions != 1 else ''} and {reservations} "
                          f"reservation{'s' if reservations != 1 else ''}; the log has {size} entries.")
