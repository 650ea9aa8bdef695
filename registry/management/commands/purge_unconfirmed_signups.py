"""Delete sign-ups never confirmed after a week, so nobody holds user names with addresses they do not own."""

from django.core.management.base import BaseCommand

from ...accounts.services import UNCONFIRMED_DAYS, signups_unconfirmed_purge


class Command(BaseCommand):
    help = (
        f"Delete accounts created by the sign-up form and never confirmed, whose last confirmation link "
        f"was mailed more than --days ago (default {UNCONFIRMED_DAYS}; links expire after three). An "
        "account with a role, a proposal, a stewardship, an identity or an API token is kept and listed "
        "with the reason. --dry-run lists what would be deleted."
    )

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=UNCONFIRMED_DAYS)
        parser.add_argument("--dry-run", action="store_true")

    def handle(self, days=UNCONFIRMED_DAYS, dry_run=False, **options):
        if days < 1:
            self.stderr.write("--days must be at least 1: a confirmation link is valid for three days.")
            raise SystemExit(2)
        report = signups_unconfirmed_purge(days, dry_run=dry_run)
        for name in report.deleted:
            self.stdout.write(f"{name}: never confirmed{' (would be deleted)' if dry_run else ' — deleted'}")
        for name, reasons in report.kept:
            self.stdout.write(f"{name}: never confirmed, kept — it has {'; '.join(reasons)}")
        deleted = len(report.deleted)
        self.stdout.write(
            f"{deleted} unconfirmed sign-up{'s' if deleted != 1 else ''} "
            f"{'to delete' if dry_run else 'deleted'} (older than {days} days)"
            + (f"; {len(report.kept)} kept (listed above with the reason)." if report.kept else ".")
        )
