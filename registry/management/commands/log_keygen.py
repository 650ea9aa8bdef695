from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from ...transparency.log import log_key_generate


class Command(BaseCommand):
    help = ("Generate the transparency log's Ed25519 signer key into a file (never overwriting one) and "
            "print its verifier key, to publish (docs/transparency.md). Point REGISTRY_LOG_KEY_FILE at it, "
            "or put its content in REGISTRY_LOG_KEY.")

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", default=None,
                            help="where to write the key (default: REGISTRY_LOG_KEY_FILE)")
        parser.add_argument("--name", default=None,
                            help="the key's and the log's name, its origin, e.g. urn.ogf.org/log "
                                 "(default: REGISTRY_SITE_URL's host + /log)")

    def handle(self, path=None, name=None, **options):
        target = path or settings.REGISTRY_LOG_KEY_FILE
        if not target:
            raise CommandError("Give a path for the key file (REGISTRY_LOG_KEY_FILE is not set).")
        try:
            signer = log_key_generate(Path(target), name)
        except FileExistsError:
            raise CommandError(f"{target} exists: a log key is never overwritten. To rotate the key, write "
                               "the new one elsewhere (docs/transparency.md, 'Rotating the key').") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Signer key written to {target} (keep it secret; back it up).")
        self.stdout.write(f"Verifier key (publish it): {signer.verifier()}")
