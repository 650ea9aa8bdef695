from django.core.management.base import BaseCommand
from django.db import transaction

from ...enums import NamespaceStatus
from ...models import Namespace, Proposal
from ...selectors import reservation_active
from ...transparency.log import log_tree
from ...transparency.models import LogEntry
from ...transparency.records import log_reservation_granted, log_version_registered


BATCH = 500


class Command(BaseCommand):
    help = ("Put into the transparency log what was published before it began: every approved version not "
            "in it yet (in the order of approval), then the active reservations. Safe to run again: what is "
            "in the log already is skipped. Run it once after upgrading an existing registry "
            "(docs/transparency.md); 'start' runs it.")

    def handle(self, **options):
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
