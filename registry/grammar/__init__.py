"""The URN and grammar engine: everything that executes a registration.

No Django imports here, so it can be tested and benchmarked on its own; the
checklist, the pages, the API and the commands all call it.

- ``parse_urn`` / ``normalize``: urn:ogf: syntax and lexical equivalence.
- ``grammar_compile``: ABNF text -> issues, analysis and an RE2 validator.
- ``grammar_diagrams``: railroad diagrams of the rules.

Only the URN syntax is imported with the package: the compiler (the ABNF parser, the analysis,
the cross-check against the ``abnf`` package) and the diagrams are imported on first use of a
name they define, so a command or a model that only checks an SNID's spelling does not pay for
them at start-up (tests/test_startup.py).
"""

from importlib import import_module

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

#: Names imported on first use, and the module of the package that defines each.
_LAZY = {
    "CompiledGrammar": "compiler",
    "Validator": "compiler",
    "cache_clear": "compiler",
    "grammar_compile": "compiler",
    "grammar_diagrams": "diagrams",
    "rule_svg": "diagrams",
    "Issue": "parse",
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
