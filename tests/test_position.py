"""Where an invalid URN stops matching its grammar (registry/grammar/position.py)."""

import json
from pathlib import Path

import pytest

from registry.grammar import Validator, grammar_compile, parse_urn
from registry.grammar.position import describe

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "proposals"


def seed_grammar(name):
    data = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return grammar_compile(data["grammar"]["abnf"], data["grammar"].get("rule"))


# (seed, invalid URN, character, character found there, what was expected, rule)
CASES = [
    (
        "example",
        "urn:ogf:example:cluster:2009:example.net:4x",
        43,
        "x",
        "a digit, '#' or '?'",
        "INDEX",
    ),
    ("example", "urn:ogf:example:cluster:209:example.net:4", 28, ":", "a digit", "YEAR"),
    (
        "example",
        "urn:ogf:example:cluster:2009:example.net",
        41,
        None,
        "a letter or digit, '-', '.' or ':'",
        "DOMAIN",
    ),
    ("example", "urn:ogf:example:9cluster:2009:a:1", 17, "9", "a letter", "TYPE"),
    (
        "example",
        "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1",
        66,
        "m",
        "a digit",
        "INDEX",
    ),
    (
        "example",
        "urn:ogf:example:c:2009:a.b:1?",
        30,
        None,
        "a letter or digit, one of !$'()*+,-.:;=@_, '#', '%', '/' or '?'",
        "QUERY",
    ),
    ("example", "urn:ogf:example:abcdefghijklmnopq:2009:a:1", 33, "q", "':'", "EXAMPLE-URN"),
    (
        "example",
        "urn:ogf:example:c:2009:a_b:1",
        25,
        "_",
        "a letter or digit, '-', '.' or ':'",
        "LDH-LABEL",
    ),
    (
        "fdc",
        "urn:ogf:fdc:example.com:2002:A57/x",
        33,
        "/",
        "a letter or digit, one of !$'()*+,-.:;=@_ or '%'",
        "ResourceId",
    ),
    ("fdc", "urn:ogf:fdc:example.com:20021:x", 30, ":", "'0' to '2'", "MM"),
    ("fdc", "urn:ogf:fdc:-example.com:2002:x", 13, "-", "a letter or digit", "label"),
    ("fdc", "urn:ogf:fdc:example.com:200213:x", 30, "3", "'0' to '2'", "MM"),
    ("fdc", "urn:ogf:fdc:example:2002:x", 20, ":", "a letter or digit, '-' or '.'", "label"),
    ("img", "urn:ogf:img:a.b:20101301:x", 22, "3", "'0' to '2'", "MM"),
    ("img", "urn:ogf:img:a.b:20101232:x", 24, "2", "'0' or '1'", "DD"),
    ("img", "urn:ogf:img:a.b:2010123:x", 24, ":", "'0' or '1'", "DD"),
    (
        "img",
        "urn:ogf:img:a.b:20101231:x:",
        28,
        None,
        "a letter or digit, one of !$'()*+,-.:;=@_ or '%'",
        "FragmentId",
    ),
    ("newsml", "urn:ogf:newsml:iptc.org:20001006:NewsMLv1.0:0", 45, "0", "'1' to '9'", "posint"),
    (
        "newsml",
        "urn:ogf:newsml:iptc.org:20001006:NewsMLv1.0:1X",
        46,
        "X",
        "a digit, 'A', 'U', 'a' or 'u'",
        "posint",
    ),
    (
        "newsml",
        "urn:ogf:newsml:iptc.org:20001006:NewsMLv1.0",
        44,
        None,
        "a letter or digit, one of !$'()*+,-.:;=@_ or '%'",
        "string",
    ),
    ("newsml", "urn:ogf:newsml:iptc.org:0001006:N:1", 26, "0", "'1' to '9'", "century"),
    ("urn-5", "urn:ogf:urn-5:abc", 18, None, "a letter or digit, '+' or '-'", "random-number"),
    ("urn-5", "urn:ogf:urn-5:-URS6S2A3+chjjHVlTkQ9KT5nu2:ab", 44, "b", "nothing more", "nss"),
    (
        "urn-5",
        "urn:ogf:urn-5:-URS6S2A3+chjjHVlTkQ9KT5nu2.",
        42,
        ".",
        "a letter or digit, '+', '-' or ':'",
        "random-number",
    ),
]


@pytest.mark.parametrize(("seed", "urn", "character", "found", "expected", "rule"), CASES)
def test_position_of_an_invalid_urn_over_the_seed_grammars(seed, urn, character, found, expected, rule):
    validator = seed_grammar(seed).validator
    position = validator.position(parse_urn(urn))
    assert (position.character, position.found, position.expected, position.rule) == (
        character,
        found,
        expected,
        rule,
    )


def test_position_in_the_message_of_a_rejected_urn():
    validator = seed_grammar("example").validator
    urn = "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1"
    assert validator.check(parse_urn(urn)) == [
        "The URN does not match the grammar's rule 'EXAMPLE-URN'. At character 66 ('m'): expected a digit (rule INDEX)."
    ]


def test_position_says_when_the_urn_ends_too_early():
    validator = seed_grammar("example").validator
    position = validator.position(parse_urn("urn:ogf:example:cluster:2009:example.net"))
    assert position.message == (
        "The URN ends too early: at character 41, expected a letter or digit, '-', '.' or ':' (rule DOMAIN)."
    )


def test_position_says_when_the_end_was_expected():
    validator = seed_grammar("urn-5").validator
    position = validator.position(parse_urn("urn:ogf:urn-5:-URS6S2A3+chjjHVlTkQ9KT5nu2:ab"))
    assert position.message == "At character 44 ('b'): expected the end of the URN (rule nss)."


def test_position_of_a_valid_urn_is_none():
    validator = seed_grammar("example").validator
    assert validator.position(parse_urn("urn:ogf:example:cluster:2009:example.net:42")) is None


def test_position_works_from_the_stored_validator():
    compiled = seed_grammar("fdc")
    stored = json.loads(json.dumps(compiled.validator.as_dict()))
    cost = json.loads(json.dumps(compiled.validator.cost.as_dict()))  # stored beside it (ValidatorCost)
    validator = Validator.from_dict(stored, cost)
    position = validator.position(parse_urn("urn:ogf:fdc:example.com:200213:x"))
    assert (position.character, position.expected, position.rule) == (30, "'0' to '2'", "MM")


def test_position_absent_from_a_validator_stored_without_it():
    stored = seed_grammar("fdc").validator.as_dict()
    del stored["prefix_pattern"], stored["prefix_rules"]
    validator = Validator.from_dict(stored)
    assert validator.check(parse_urn("urn:ogf:fdc:example.com:200213:x")) == [
        "The string after 'urn:ogf:fdc:' does not match the grammar's rule 'NSS'."
    ]


def test_position_in_a_recursive_grammar():
    compiled = grammar_compile('id = "(" [id] ")"')
    position = compiled.validator.position(parse_urn("urn:ogf:x:(()x"))
    assert (position.character, position.found, position.expected) == (14, "x", "')'")


def test_position_with_a_case_insensitive_literal():
    compiled = grammar_compile('id = "abc" DIGIT')
    position = compiled.validator.position(parse_urn("urn:ogf:x:ABx"))
    assert (position.character, position.expected, position.rule) == (13, "'C' or 'c'", "id")


def test_describe_names_common_character_sets():
    assert describe(set("0123456789")) == "a digit"
    assert describe(set("0123456789abcdefABCDEF")) == "a hexadecimal digit"
    assert describe(set("ABCDEFGHIJKLMNOPQRSTUVWXYZ-")) == "an upper-case letter or '-'"
    assert describe(set("1234")) == "'1' to '4'"


def test_position_is_left_out_when_the_budget_is_spent(monkeypatch):
    from registry.grammar import position

    monkeypatch.setattr(position, "BUDGET", position.Budget(rate=0.0, burst=0.0))
    validator = seed_grammar("fdc").validator  # a URN no other test asks (answers are kept)
    assert validator.check(parse_urn("urn:ogf:fdc:example.org:200214:budget")) == [
        "The string after 'urn:ogf:fdc:' does not match the grammar's rule 'NSS'."
    ]
