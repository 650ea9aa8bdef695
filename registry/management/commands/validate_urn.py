import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...grammar import UrnSyntaxError, grammar_compile, normalize, parse_urn
from ...selectors import namespace_get


class Command(BaseCommand):
    help = ("Validate urn:ogf: URNs against an ABNF grammar file or a registered SNID's grammar. "
            "URNs come from the arguments or, if none, from standard input, one per line. "
            "Exit status: 0 all valid, 1 some invalid, 2 bad grammar or usage.")

    def add_arguments(self, parser):
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--grammar", help="ABNF file describing the whole URN or the string after the SNID")
        source.add_argument("--snid", help="use the registered grammar of this SNID")
        parser.add_argument("--rule", help="top rule (default: the first rule of the file)")
        parser.add_argument("--json", action="store_true", help="one JSON object per line")
        parser.add_argument("urns", nargs="*")

    def handle(self, grammar=None, snid=None, rule=None, json=False, urns=(), **options):
        steps, expected_snid = [], None
        if grammar:
            try:
                text = Path(grammar).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"Cannot read the grammar {grammar}: {exc}.", returncode=2) from None
            compiled = grammar_compile(text, rule)
        else:
            if rule:
                raise CommandError("--rule goes with --grammar; --snid uses the registered rule.", returncode=2)
            namespace = namespace_get(snid)
            if namespace is None or namespace.current is None:
                raise CommandError(f"urn:ogf:{snid}: is not registered.", returncode=2)
            current = namespace.current
            compiled = grammar_compile(current.grammar_abnf, current.grammar_rule,
                                       examples=tuple(current.examples_valid) + tuple(current.examples_invalid))
            steps, expected_snid = list(current.equivalence), namespace.snid
        errors = [issue.message for issue in compiled.issues if issue.severity == "error"]
        if errors or not compiled.ok:
            raise CommandError("The grammar cannot be used:\n  " + "\n  ".join(errors or ["it has no rules"]),
                               returncode=2)
        lines = urns or [line.strip() for line in sys.stdin if line.strip()]
        all_valid = True
        for urn in lines:
            result = self.validate(compiled, urn, steps, expected_snid)
            all_valid &= result["valid"]
            if json:
                self.stdout.write(__import__("json").dumps(result, ensure_ascii=False))
            elif result["valid"]:
                self.stdout.write(f"valid    {urn}  (normalized: {result['normalized']})")
            else:
                self.stdout.write(f"invalid  {urn}: {' '.join(result['errors'])}")
        if not all_valid:
            sys.exit(1)

    @staticmethod
    def validate(compiled, urn, steps, expected_snid) -> dict:
        try:
            parsed = parse_urn(urn)
        except UrnSyntaxError as exc:
            return {"urn": urn, "valid": False, "normalized": None, "errors": [exc.message]}
        errors = []
        if expected_snid and parsed.snid.lower() != expected_snid.lower():
            errors.append(f"The URN belongs to urn:ogf:{parsed.snid}:, not urn:ogf:{expected_snid}:.")
        else:
            errors.extend(compiled.check(parsed))
        return {"urn": urn, "valid": not errors, "normalized": normalize(parsed, steps), "errors": errors}
