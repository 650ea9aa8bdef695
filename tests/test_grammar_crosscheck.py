"""The cross-check against the ``abnf`` package: what it is given, what it catches, what it costs."""

from __future__ import annotations

import re

import pytest
from abnf.parser import Rule

from registry.grammar import compiler, crosscheck
from registry.grammar.analysis import Scope, analyse
from registry.grammar.parse import parse_grammar

from .factories import demo_raw

DEMO = ["example", "fdc", "img", "newsml", "urn-5"]
CONSTRUCTS = [
    'a = %s"Ab" "cD" %d65 %x41-5A %x41.42.43 "" [ "x" ] 3"y" 2*4"z" *1DIGIT 0"q"\n',
    'a = <DIGIT> <ALPHA> <some prose> b\nb = ( "p" / "q" ) ( "r" )\n',
    'a = 1*( ALPHA / DIGIT / "-" ) ":" [ b ]\nb = "%" HEXDIG HEXDIG / "/" b\n',
]


def _read(abnf: str):
    parsed = parse_grammar(abnf)
    analysis = analyse(parsed, None)
    return Scope(parsed.rules), analysis


def _definitions(cls, scope, keys) -> list[str]:
    try:
        return [
            re.sub(r"<abnf\S* object at 0x[0-9a-f]+>", "Prose", str(cls(f"u-{scope.rules[key].name}").definition))
            for key in keys
        ]
    finally:
        for key in [key for key in Rule._obj_map if key[0] is cls]:
            del Rule._obj_map[key]


@pytest.mark.parametrize("abnf", [demo_raw(name)["grammar"]["abnf"] for name in DEMO] + CONSTRUCTS)
def test_reference_rules_are_what_the_package_reads_from_the_abnf_text(abnf):
    scope, analysis = _read(abnf)
    read, built = type("G", (Rule,), {}), type("G", (Rule,), {})
    read.load_grammar(crosscheck._abnf_text(scope, analysis.reachable))
    crosscheck._reference_rules(built, scope, analysis.reachable)
    assert _definitions(built, scope, analysis.reachable) == _definitions(read, scope, analysis.reachable)


def test_cross_check_builds_the_reference_without_reading_abnf_text(monkeypatch):
    def no_reading(cls, grammar, strict=True):
        raise AssertionError("the reference was read from text")

    monkeypatch.setattr(Rule, "load_grammar", classmethod(no_reading))
    raw = demo_raw("example")
    compiled = compiler._compile(raw["grammar"]["abnf"], None, tuple(raw["examples"]["valid"]))
    check = compiled.crosscheck
    assert (check.checked, check.skipped, check.cut_short, check.disagreements) == (100, "", "", [])


def test_nested_repetition_is_cross_checked_not_skipped():
    # Printed as ABNF it reads '**"a"', which the package's reader refuses; built
    # directly, the reference has it and the strings are compared.
    compiled = compiler._compile('a = *( *"a" ) "b"\n', None, ("aab",))
    assert compiled.ok and compiled.crosscheck.skipped == "" and compiled.crosscheck.checked > 10


def test_cross_check_catches_a_translation_that_forgets_a_character(monkeypatch):
    # Plant a translation error: the RE2 pattern loses '-' from the TYPE rule's class.
    real = compiler.build_pattern

    def wrong(scope, top, recursive):
        pattern, truncated = real(scope, top, recursive)
        return pattern.replace("[\\x{2D}0-9A-Za-z]{0,15}", "[0-9A-Za-z]{0,15}", 1), truncated

    monkeypatch.setattr(compiler, "build_pattern", wrong)
    raw = demo_raw("example")
    compiled = compiler._compile(raw["grammar"]["abnf"], None, tuple(raw["examples"]["valid"]))
    assert compiled.crosscheck.disagreements != []
    assert {(ours, theirs) for _, ours, theirs in compiled.crosscheck.disagreements} == {(False, True)}
    assert not compiled.ok and compiled.errors[0].kind == "disagreement"


def test_cross_check_catches_a_validator_that_accepts_too_much():
    scope, analysis = _read(demo_raw("fdc")["grammar"]["abnf"])
    result = crosscheck.cross_check(scope, analysis.top, analysis.reachable, lambda text: True, [])
    assert result.checked == 100 and result.disagreements != []
    assert {(ours, theirs) for _, ours, theirs in result.disagreements} == {(True, False)}


def test_the_cross_check_is_cut_short_after_the_same_strings_every_time(monkeypatch):
    """Its limit is counted work, not time: where it stops is a property of the grammar."""
    monkeypatch.setattr(crosscheck, "STEP_BUDGET", 3_000)
    scope, analysis = _read(demo_raw("example")["grammar"]["abnf"])
    runs = {
        crosscheck.cross_check(scope, analysis.top, analysis.reachable, lambda text: True, []).cut_short
        for _ in range(3)
    }
    assert len(runs) == 1
    (cut,) = runs
    assert re.fullmatch(
        r"the reference ABNF parser reached its limit of 3,000 steps of work after \d+ test string\(s\)", cut
    )
    assert not cut.endswith("after 0 test string(s)")  # it stopped part of the way through


def test_counted_reference_rules_read_as_the_package_reads_them():
    scope, analysis = _read(CONSTRUCTS[2])
    read, built = type("G", (Rule,), {}), type("G", (Rule,), {})
    read.load_grammar(crosscheck._abnf_text(scope, analysis.reachable))
    crosscheck._reference_rules(built, scope, analysis.reachable, crosscheck._Meter(10_000))
    assert _definitions(built, scope, analysis.reachable) == _definitions(read, scope, analysis.reachable)
