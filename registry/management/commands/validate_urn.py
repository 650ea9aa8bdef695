import sys
from json import dumps
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...grammar import UrnSyntaxError, normalize, parse_urn
from ...lookup import lookup_for_snid, registry_index
from ._common import SCRIPTED_COMMAND_CHECKS


class Command(BaseCommand):
    help = (
        "Validate urn:ogf: URNs against an ABNF grammar file or a registered SNID's grammar. "
        "URNs come from the arguments or, if none, from standard input, one per line. "
        "Exit status: 0 all valid, 1 some invalid, 2 bad grammar or usage."
    )

    requires_system_checks = SCRIPTED_COMMAND_CHECKS  # see _common.py

    def add_arguments(self, parser):
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--grammar", help="ABNF file describing the whole URN or the string after the SNID")
        source.add_argument("--snid", help="use the registered grammar of this SNID")
        parser.add_argument("--rule", help="top rule (default: the first rule of the file)")
        parser.add_argument("--json", action="store_true", help="one JSON object per line")
        parser.add_argument("urns", nargs="*")

    def handle(self, grammar=None, snid=None, rule=None, json=False, urns=(), **options):
        if grammar:
            validate = self.grammar_validator(grammar, rule)
        else:
            if rule:
                raise CommandError("--rule goes with --grammar; --snid uses the registered rule.", returncode=2)
            validate = self.snid_validator(snid)
        lines = urns or [line.strip() for line in sys.stdin if line.strip()]
        all_valid = True
        for urn in lines:
            result = validate(urn)
            all_valid &= result["valid"]
            if json:
                self.stdout.write(dumps(result, ensure_ascii=False))
            elif result["valid"]:
                self.stdout.write(f"valid    {urn}  (normalized: {result['normalized']})")
            else:
                self.stdout.write(f"invalid  {urn}: {' '.join(result['errors'])}")
        if not all_valid:
            sys.exit(1)

    @staticmethod
    def grammar_validator(path, rule):
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"Cannot read the grammar {path}: {exc}.", returncode=2) from None
        from ...grammar import grammar_compile  # the compiler, only for a grammar file

        compiled = grammar_compile(text, rule)
        errors = [issue.message for issue in compiled.errors]
        if errors or not compiled.ok:
            raise CommandError(
                "The grammar cannot be used:\n  " + "\n  ".join(errors or ["it has no rules"]), returncode=2
            )

        def validate(urn):
            try:
                parsed = parse_urn(urn)
            except UrnSyntaxError as exc:
                return {"urn": urn, "valid": False, "normalized": None, "errors": [exc.message]}
            errors = compiled.check(parsed)
            return {"urn": urn, "valid": not errors, "normalized": normalize(parsed), "errors": errors}

        return validate

    @staticmethod
    def snid_validator(snid):
        """The registry's own lookup, restricted to one SNID."""
        entry = registry_index().entries.get(snid.lower())
        if entry is None:
            raise CommandError(f"urn:ogf:{snid}: is not registered.", returncode=2)
        return lambda urn: lookup_for_snid(urn, entry.snid)
