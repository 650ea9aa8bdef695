from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from ...transparency.log import log_key_generate


class Command(BaseCommand):
    help = (
        "Generate the transparency log's Ed25519 signer key into a file (never overwriting one), write its "
        "verifier key beside it (<path>.pub) and print it, to publish and to give the app servers as "
        "REGISTRY_LOG_VERIFIER_KEY (docs/transparency.md). Point the signer's REGISTRY_LOG_KEY_FILE at the key. "
        "Needs no other setting, in production mode too."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "path", nargs="?", default=None, help="where to write the key (default: REGISTRY_LOG_KEY_FILE)"
        )
        parser.add_argument(
            "--name",
            default=None,
            help="the key's and the log's name, its origin, e.g. urn.ogf.org/log "
            "(default: REGISTRY_SITE_URL's host + /log)",
        )

    def handle(self, path=None, name=None, **options):
        target = path or settings.REGISTRY_LOG_KEY_FILE
        if not target:
            raise CommandError("Give a path for the key file (REGISTRY_LOG_KEY_FILE is not set).")
        try:
            signer = log_key_generate(Path(target), name)
        except FileExistsError:
            raise CommandError(
                f"{target} exists: a log key is never overwritten. To rotate the key, write "
                "the new one elsewhere (docs/transparency.md, 'Rotating the key')."
            ) from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        public = Path(f"{target}.pub")
        public.write_text(f"{signer.verifier()}\n", encoding="ascii")
        public.chmod(0o644)
        self.stdout.write(f"Signer key written to {target} (keep it secret; back it up).")
        self.stdout.write(f"Verifier key (publish it): {signer.verifier()}")
        self.stdout.write(f"It is also in {public}: the app servers' REGISTRY_LOG_VERIFIER_KEY.")
