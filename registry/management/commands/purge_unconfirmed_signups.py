"""Delete sign-ups never confirmed after a week, so nobody holds user names with addresses they do not own."""

from django.core.management.base import BaseCommand

from ...accounts.services import UNCONFIRMED_DAYS, signups_unconfirmed, signups_unconfirmed_purge


class Command(BaseCommand):
    help = (
        f"Delete accounts created by the sign-up form and never confirmed, older than --days "
        f"(default {UNCONFIRMED_DAYS}; their links expired after three). --dry-run lists them."
    )

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=UNCONFIRMED_DAYS)
        parser.add_argument("--dry-run", action="store_true")

    def handle(self, days=UNCONFIRMED_DAYS, dry_run=False, **options):
        if days < 1:
            self.stderr.write("--days must be at least 1: a confirmation link is valid for three days.")
            raise SystemExit(2)
        if dry_run:
            names = [u.get_username() for u in signups_unconfirmed(days)]
        else:
            names = signups_unconfirmed_purge(days)
        for name in names:
            self.stdout.write(f"{name}: never confirmed{' (would be deleted)' if dry_run else ' — deleted'}")
        self.stdout.write(
            f"{len(names)} unconfirmed sign-up{'s' if len(names) != 1 else ''} "
            f"{'to delete' if dry_run else 'deleted'} (older than {days} days)."
        )
