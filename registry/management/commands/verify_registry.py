from django.core.management.base import BaseCommand, CommandError

from ... import verify


class Command(BaseCommand):
    help = ("Verify a registry site (base URL) or a mirror directory against its signed transparency log: "
            "signature, consistency with the checkpoint seen last time, every record of registry.json in the "
            "log and matching it. Same as python -m registry.verify (docs/transparency.md).")

    def add_arguments(self, parser):
        for action in verify.build_parser()._actions:
            if action.dest == "help":
                continue
            kwargs = {"help": action.help, "default": action.default}
            if action.option_strings:
                if action.const is True:
                    kwargs["action"] = "store_true"
                elif action.type is not None:
                    kwargs["type"] = action.type
                parser.add_argument(*action.option_strings, dest=action.dest, **kwargs)
            else:
                parser.add_argument(action.dest, help=action.help)

    def handle(self, source, **options):
        argv = [source]
        for name in ("key", "export", "state", "mirror"):
            if options.get(name):
                argv += [f"--{name.replace('_', '-')}", str(options[name])]
        if options.get("accept_new_key"):
            argv.append("--accept-new-key")
        if options.get("no_save"):
            argv.append("--no-save")
        status = verify.main(argv, out=self.stdout)
        if status:
            raise CommandError("the registry did not verify" if status == 1 else "the registry could not be checked",
                               returncode=status)
