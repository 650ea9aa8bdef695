"""``manage.py start``: set up the registry with demo data and serve it as its users will see it.

The demo data is loaded through the site's own services, so it sends the same
mails the site would. On a terminal those would bury the demo credentials under
screens of mail, and look as if mail went out: unless an outgoing mail backend
is configured, the mails are written to files and counted in one line.

It serves with granian and the deployed configuration (registry/serve.py),
DEBUG off, through ``registry.preview_settings`` (the production settings on
the loopback); ``--debug`` serves Django's development server in DEBUG mode
instead, for developers. As deployed, the web workers do not hold the log's key:
a signer of its own (``log_sign --watch``, docs/transparency.md) runs beside them
and stops with them.

``start`` changes nothing in a damaged transparency log: ``log_backfill`` refuses,
and ``start`` stops with its sentence.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from django.test.utils import override_settings

from ... import demo, sandbox, serve
from ...logcore.signer_state import SignerStateError
from ...transparency.log import LogError, log_sign, log_verifier

CONSOLE_MAIL = "django.core.mail.backends.console.EmailBackend"
FILE_MAIL = "django.core.mail.backends.filebased.EmailBackend"
PREVIEW_SETTINGS = "registry.preview_settings"


class Command(BaseCommand):
    help = (
        "Set up and run the registry for a first look: migrate, load the demo data into an "
        "empty database, create the demo accounts, then serve on 127.0.0.1 as deployed "
        "(granian, DEBUG off); --debug serves the development server instead."
    )

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-serve", action="store_true", help="set up only; do not serve")
        parser.add_argument(
            "--debug", action="store_true", help="serve Django's development server with DEBUG on (for developers)"
        )

    def handle(self, port=8000, no_serve=False, debug=False, **options):
        address = f"http://127.0.0.1:{port}"
        if not os.environ.get("REGISTRY_SITE_URL"):
            # Links in mails point at the server people are looking at.
            settings.SITE_URL = address
        mail_dir = Path(os.environ.get("REGISTRY_MAIL_DIR") or Path(settings.BASE_DIR) / "mail")
        to_files = settings.EMAIL_BACKEND == CONSOLE_MAIL
        mail = {"EMAIL_BACKEND": FILE_MAIL, "EMAIL_FILE_PATH": str(mail_dir)} if to_files else {}
        with override_settings(**mail):
            before = _files(mail_dir)
            call_command("migrate", interactive=False, verbosity=0)
            self.stdout.write("Database migrated.")
            self.stdout.write(f"Transparency log key: {log_verifier(create=True)} (see /log/).")
            # A new database is a new log: the signer's first pass says so, and sets the old log's record aside.
            try:
                new_log = log_sign(full=True).new_log
            except (LogError, SignerStateError) as exc:
                raise CommandError(str(exc)) from None
            if new_log:
                self.stdout.write(new_log)
            # Versions approved before the log; refuses (CommandError) to touch a damaged log.
            call_command("log_backfill", verbosity=0, stdout=io.StringIO())
            accounts = demo.demo_accounts()
            if demo.database_is_empty():
                proposals = demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
                self.stdout.write(f"Loaded {len(proposals)} demonstration proposals.")
            else:
                self.stdout.write("The database already has data; demo data not loaded.")
            if to_files:
                written = len(_files(mail_dir) - before)
                self.stdout.write(
                    f"{written} mail{'' if written == 1 else 's'} written to {mail_dir}/ "
                    "(one file each; nothing is sent from here)."
                )
            if no_serve:
                self._credentials(accounts, address)
                return
            if debug:
                self.stdout.write(
                    f"\nServing Django's development server (DEBUG on) at {address}/ — press Ctrl-C to stop."
                )
                self._credentials(accounts, address)
                call_command("runserver", f"127.0.0.1:{port}", use_reloader=False)
                return
        self._serve(accounts, address, port, mail_dir if to_files else None)

    def _serve(self, accounts, address, port, mail_dir):
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": PREVIEW_SETTINGS,
            "DJANGO_DEBUG": "0",
            # The checkout's development key and the loopback names, given explicitly: the
            # production settings still refuse to start without them.
            "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or settings.SECRET_KEY,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost,[::1]",
            "REGISTRY_SITE_URL": settings.SITE_URL,
            # The web workers get the log's public key only; the signer below holds the key.
            "REGISTRY_LOG_VERIFIER_KEY": str(log_verifier()),
            "REGISTRY_LOG_KEY": "",
            "REGISTRY_LOG_KEY_FILE": "",
            # Each server's floor (what it served) and the development rule: a new database is a new log.
            "REGISTRY_LOG_SERVED_FILE": settings.REGISTRY_LOG_SERVED_FILE,
            "REGISTRY_LOG_NEW_DATABASE_NEW_LOG": "1" if settings.REGISTRY_LOG_NEW_DATABASE_NEW_LOG else "0",
            "BIND": f"127.0.0.1:{port}",
            "WEB_CONCURRENCY": os.environ.get("WEB_CONCURRENCY", "2"),
        }
        if mail_dir is not None:
            environment["REGISTRY_MAIL_DIR"] = str(mail_dir)
        collected = subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=settings.BASE_DIR,
            env=environment,
            capture_output=True,
            text=True,
        )
        if collected.returncode:
            raise CommandError(f"Could not collect the static files:\n{collected.stderr.strip()}")
        self.stdout.write(
            f"\nServing the registry at {address}/ as deployed: granian (registry/serve.py), "
            "DEBUG off, static files by whitenoise.\nPress Ctrl-C to stop. "
            "Developers: `python manage.py start --debug` serves the development server instead."
        )
        self._credentials(accounts, address)
        self.stdout.flush()
        sys.stdout.flush()
        sandbox.shutdown()  # the demo's checks started a job process; the web workers start their own
        connections.close_all()
        self._start_signer(environment)
        os.chdir(settings.BASE_DIR)
        environment["WEB_LOG_LEVEL"] = os.environ.get("WEB_LOG_LEVEL", "warning")
        os.execve(sys.executable, serve.command(), environment)

    def _start_signer(self, environment):
        """The log's signer beside the web server, as deployed: it alone holds the key (and the record of
        what it signed); it stops when the server (which replaces this process) does."""
        signer = {
            **environment,
            "REGISTRY_LOG_VERIFIER_KEY": "",
            "REGISTRY_LOG_KEY": os.environ.get("REGISTRY_LOG_KEY", ""),
            "REGISTRY_LOG_KEY_FILE": os.environ.get("REGISTRY_LOG_KEY_FILE") or settings.REGISTRY_LOG_KEY_FILE,
            "REGISTRY_LOG_STATE_DIR": settings.REGISTRY_LOG_STATE_DIR,
            "REGISTRY_LOG_SIGNER_PARENT": str(os.getpid()),
        }
        subprocess.Popen(
            [sys.executable, "manage.py", "log_sign", "--watch"],
            cwd=settings.BASE_DIR,
            env=signer,
            stdout=subprocess.DEVNULL,
        )

    def _credentials(self, accounts, address):
        """The last thing printed: who to sign in as, and where."""
        rule = "=" * 72
        lines = [rule, f"  Sign in at {address}/accounts/login/ with a demo account:"]
        for role, (user, password, created) in accounts.items():
            label = "GFD editor" if role == "editor" else role
            note = "" if created else "  (already existed; password as first set)"
            lines.append(f"    {label:<11} username: {user.username:<10} password: {password}{note}")
        lines.append(rule)
        self.stdout.write("\n" + "\n".join(lines))


def _files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()} if directory.is_dir() else set()
