"""The URN and grammar engine: everything that executes a registration.

No Django imports here, so it can be tested and benchmarked on its own; the
checklist, the pages, the API and the commands all call it.

- ``parse_urn`` / ``normalize``: urn:ogf: syntax and lexical equivalence.
- ``grammar_compile``: ABNF text -> issues, analysis and an RE2 validator.
- ``grammar_diagrams``: railroad diagrams of the rules.
"""

from .compiler import CompiledGrammar, Validator, cache_clear, grammar_compile
from .diagrams import grammar_diagrams, rule_svg
from .parse import Issue
from .urn import (
    EQUIVALENCE_STEPS,
    PREFIX,
    URN_MAX_LENGTH,
    ParsedUrn,
    UrnSyntaxError,
    is_valid_snid,
    normalize,
    parse_urn,
    snid_error,
    unknown_steps,
)

__all__ = [
    "EQUIVALENCE_STEPS",
    "PREFIX",
    "URN_MAX_LENGTH",
    "CompiledGrammar",
    "Issue",
    "ParsedUrn",
    "UrnSyntaxError",
    "Validator",
    "cache_clear",
    "grammar_compile",
    "grammar_diagrams",
    "is_valid_snid",
    "normalize",
    "parse_urn",
    "rule_svg",
    "snid_error",
    "unknown_steps",
]
