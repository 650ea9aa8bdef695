from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from ...enums import NamespaceStatus
from ...models import Namespace
from ...signals import registry_changed_send
from ...transparency.records import log_reservation_ended


class Command(BaseCommand):
    help = (
        "List reservations whose date has passed and whose end is not recorded yet (a released one ended "
        "when it was released). Every check already treats them as free; with --release their reason "
        "records the expiry and the log its end, once, so the record says why they ended."
    )

    def add_arguments(self, parser):
        parser.add_argument("--release", action="store_true")

    def handle(self, release=False, **options):
        today = timezone.localdate()
        # A reservation an editor released ended then (its log entry says so): it never expires again.
        expired = Namespace.objects.filter(
            status=NamespaceStatus.RESERVED, reserved_until__lt=today, released_at__isnull=True
        ).exclude(reservation_reason__contains="Expired on")
        ended = []
        for namespace in expired.order_by("reserved_until"):
            ended.append(namespace.snid)
            self.stdout.write(f"urn:ogf:{namespace.snid}: reserved until {namespace.reserved_until} (expired)")
            if release:
                with transaction.atomic():
                    namespace.reservation_reason = (
                        f"{namespace.reservation_reason}\nExpired on {namespace.reserved_until}."
                    ).strip()
                    namespace.reserved_for = None
                    namespace.save()
                    log_reservation_ended(namespace, namespace.reserved_until, how="expired")
        count = len(ended)
        if release and count:
            registry_changed_send(*ended)  # lookups reload; their open proposals are checked again
        self.stdout.write(
            f"{count} expired reservation{'s' if count != 1 else ''}" + (" released." if release else ".")
        )
