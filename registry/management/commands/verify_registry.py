import argparse

from django.core.management.base import BaseCommand, CommandError

from ... import verify


class Command(BaseCommand):
    help = (
        "Verify a registry site (base URL) or a mirror directory against its signed transparency log: the "
        "signature and witnesses' cosignatures, every leaf re-read and re-hashed, consistency with the "
        "checkpoint seen last time, and everything the log holds compared with what the site publishes. "
        "Same as python -m registry.verify, with the same options (docs/transparency.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "arguments",
            nargs=argparse.REMAINDER,
            help="the source and options of python -m registry.verify (which --help lists)",
        )

    def handle(self, arguments, **options):
        argv = [str(a) for a in arguments]
        if argv[:1] == ["--"]:
            argv = argv[1:]
        status = verify.main(argv, out=self.stdout)
        if status:
            raise CommandError(
                "the registry did not verify" if status == 1 else "the registry could not be checked", returncode=status
            )
