from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from ...enums import NamespaceStatus
from ...lookup import registry_invalidate
from ...models import Namespace
from ...signals import registry_changed_send
from ...transparency.records import log_reservation_ended


class Command(BaseCommand):
    help = (
        "List reservations whose date has passed. Every check already treats them as free; "
        "with --release their reason records the expiry, so the record says why they ended."
    )

    def add_arguments(self, parser):
        parser.add_argument("--release", action="store_true")

    def handle(self, release=False, **options):
        today = timezone.localdate()
        expired = Namespace.objects.filter(status=NamespaceStatus.RESERVED, reserved_until__lt=today)
        count = 0
        expired_list = list(expired.order_by("reserved_until"))
        for namespace in expired_list:
            count += 1
            self.stdout.write(f"urn:ogf:{namespace.snid}: reserved until {namespace.reserved_until} (expired)")
            if release and "Expired on" not in namespace.reservation_reason:
                with transaction.atomic():
                    namespace.reservation_reason = (
                        f"{namespace.reservation_reason}\nExpired on {namespace.reserved_until}."
                    ).strip()
                    namespace.reserved_for = None
                    namespace.save()
                    log_reservation_ended(namespace, namespace.reserved_until, how="expired")
        if release and count:
            registry_invalidate()
            registry_changed_send(*(namespace.snid for namespace in expired_list))
        self.stdout.write(
            f"{count} expired reservation{'s' if count != 1 else ''}" + (" released." if release else ".")
        )
