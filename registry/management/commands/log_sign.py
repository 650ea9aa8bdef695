import os
import signal
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from ...logcore.signer_state import SignerStateError
from ...transparency.log import LogError
from ...transparency.signer import log_sign, log_sign_watch


class Command(BaseCommand):
    help = (
        "The transparency log's signer (docs/transparency.md, 'The signer'): check that the log extends "
        "the last checkpoint signed, sign the new one, have the witnesses cosign it and publish it for "
        "the web workers. Exits 1 if the log is damaged (nothing signed). --watch keeps running: the one "
        "signer of a deployment, as a service of its own."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--watch",
            action="store_true",
            help="keep signing: look at the log every REGISTRY_LOG_SIGN_POLL seconds "
            f"(now {settings.REGISTRY_LOG_SIGN_POLL:g}) and sign when it grew, or every minute",
        )
        parser.add_argument(
            "--adopt",
            metavar="FILE",
            default=None,
            help="the signer's record is lost: take this checkpoint (signed with the key: a mirror's copy of "
            "log/checkpoint, or `python -m registry.witness latest`) as the last one signed; the table must "
            "extend it, and no witness may hold a later one",
        )
        parser.add_argument(
            "--begin",
            action="store_true",
            help="the very first signing of a new log (refused when a witness or the published row already "
            "knows a checkpoint of this origin)",
        )

    def handle(self, watch=False, adopt=None, begin=False, **options):
        if watch:
            stopping = []
            signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
            parent = os.environ.get("REGISTRY_LOG_SIGNER_PARENT")  # ``start``: stop with the server

            def stop():
                return bool(stopping) or (parent is not None and str(os.getppid()) != parent)

            self.stdout.write(
                f"Signing the transparency log (record in {settings.REGISTRY_LOG_STATE_DIR}); "
                "stop with Ctrl-C or SIGTERM."
            )
            self.stdout.flush()
            try:
                log_sign_watch(
                    settings.REGISTRY_LOG_SIGN_POLL, stop=stop, passes=lambda outcome: self._said(outcome, quiet=True)
                )
            except KeyboardInterrupt:
                pass
            return
        try:
            text = Path(adopt).read_text(encoding="utf-8") if adopt else None
        except OSError as exc:
            raise CommandError(f"Cannot read {adopt}: {exc.strerror}.") from None
        try:
            outcome = log_sign(adopt=text, begin=begin, full=True)  # run by hand: every leaf re-hashed
        except (LogError, SignerStateError) as exc:
            raise CommandError(str(exc), returncode=2) from None
        self._said(outcome)
        if outcome.damage or outcome.unpublished:
            raise CommandError(outcome.damage or outcome.unpublished, returncode=1)

    def _said(self, outcome, quiet=False):
        """What a pass did; ``quiet`` (the watching signer): nothing when there was nothing to sign."""
        if outcome.damage:
            sys.stderr.write(f"DAMAGED: {outcome.damage}\n")
            return
        if outcome.signed:
            cosigned = f"; cosigned by {', '.join(outcome.cosigned_by)}" if outcome.cosigned_by else ""
            self.stdout.write(f"Signed the checkpoint of size {outcome.size}{cosigned}.")
        elif not quiet:
            self.stdout.write(f"The checkpoint of size {outcome.size} is current; nothing to sign.")
        for problem in outcome.witness_problems:
            self.stdout.write(f"Witness: {problem}")
        if outcome.unpublished:
            self.stdout.write(f"NOT PUBLISHED: {outcome.unpublished}.")
        if outcome.new_log:
            self.stdout.write(outcome.new_log)
        self.stdout.flush()
