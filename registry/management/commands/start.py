import io
import os

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from ... import demo
from ...transparency.log import log_verifier


class Command(BaseCommand):
    help = ("Set up and run the registry for a first look: migrate, load the demo data into an "
            "empty database, create the demo accounts, then serve on 127.0.0.1.")

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-serve", action="store_true", help="set up only; do not serve")

    def handle(self, port=8000, no_serve=False, **options):
        address = f"http://127.0.0.1:{port}"
        if not os.environ.get("REGISTRY_SITE_URL"):
            # Links in mails point at the server people are looking at.
            settings.SITE_URL = address
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("Database migrated.")
        call_command("log_backfill", verbosity=0, stdout=io.StringIO())  # versions approved before the log
        self.stdout.write(f"Transparency log key: {log_verifier(create=True)} (see /log/).")
        accounts = demo.demo_accounts()
        if demo.database_is_empty():
            proposals = demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
            self.stdout.write(f"Loaded {len(proposals)} demonstration proposals.")
        else:
            self.stdout.write("The database already has data; demo data not loaded.")
        self.stdout.write("\nDemo accounts:")
        for role, (user, password, created) in accounts.items():
            note = "" if created else " (already existed; password as first set)"
            self.stdout.write(f"  {role:<9} username {user.username!r}  password {password!r}{note}")
        if no_serve:
            return
        self.stdout.write(f"\nServing on {address}/  (Ctrl-C to stop); links in mails use {settings.SITE_URL}/\n")
        call_command("runserver", f"127.0.0.1:{port}", use_reloader=False)
