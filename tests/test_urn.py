"""urn:ogf: syntax and lexical equivalence (RFC 6453 §2.4, GFD.191 §3)."""

import pytest

from registry.grammar import UrnSyntaxError, normalize, parse_urn, snid_error


@pytest.mark.parametrize(
    ("urn", "snid", "sss"),
    [
        ("urn:ogf:example:a", "example", "a"),
        ("URN:OGF:Example:A:b", "Example", "A:b"),
        ("urn:ogf:network:example.net:2013:topo%2Fx", "network", "example.net:2013:topo%2Fx"),
        ("urn:ogf:" + "a" * 32 + ":x", "a" * 32, "x"),
    ],
)
def test_parse_urn_splits_snid_and_string(urn, snid, sss):
    parsed = parse_urn(urn)
    assert (parsed.snid, parsed.sss) == (snid, sss)


@pytest.mark.parametrize(
    ("urn", "position", "fragment"),
    [
        ("urn:ietf:x:y", 5, "starts with 'urn:ogf:'"),
        ("urn:ogf", 8, "ends after"),
        ("urn:ogf:-bad:x", 9, "must start with a letter or digit"),
        ("urn:ogf:" + "a" * 33 + ":x", 9, "at most 32"),
        ("urn:ogf:ex_ample:x", 9, "Character 3 of the SNID"),
        ("urn:ogf:example", 16, "must be followed by ':'"),
        ("urn:ogf:example:", 17, "is empty"),
        ("urn:ogf:example:a b", 18, "' '"),
        ("urn:ogf:example:a%4", 18, "two hexadecimal digits"),
        ("urn:ogf:example:a%zz", 18, "two hexadecimal digits"),
        ("urn:ogf:example:caf\u00e9", 20, "U+00E9"),
    ],
)
def test_parse_urn_errors_say_what_and_where(urn, position, fragment):
    with pytest.raises(UrnSyntaxError) as caught:
        parse_urn(urn)
    assert caught.value.position == position
    assert fragment in caught.value.message


def test_snid_error_accepts_valid_snids():
    assert [snid_error(s) for s in ("a", "urn-5", "9to5", "A" * 32)] == [None] * 4


@pytest.mark.parametrize(
    ("a", "b", "steps", "equivalent"),
    [
        ("urn:ogf:example:X", "URN:OGF:EXAMPLE:X", [], True),
        ("urn:ogf:example:X", "urn:ogf:example:x", [], False),
        ("urn:ogf:example:X", "urn:ogf:example:x", ["case-insensitive"], True),
        ("urn:ogf:e:a%2f", "urn:ogf:e:a%2F", [], False),
        ("urn:ogf:e:a%2f", "urn:ogf:e:a%2F", ["percent-hex-case-insensitive"], True),
        ("urn:ogf:e:a%2f", "urn:ogf:e:A%2F", ["case-insensitive"], True),
        ("urn:ogf:e:%41b", "urn:ogf:e:Ab", ["percent-decode-unreserved"], True),
        ("urn:ogf:e:%2Fb", "urn:ogf:e:/b", ["percent-decode-unreserved"], False),  # reserved stays encoded
    ],
)
def test_equivalence_is_equality_of_normal_forms(a, b, steps, equivalent):
    assert (normalize(parse_urn(a), steps) == normalize(parse_urn(b), steps)) is equivalent


def test_normal_form_lower_cases_prefix_and_snid_only():
    assert normalize(parse_urn("URN:OGF:Example:CLUSTER")) == "urn:ogf:example:CLUSTER"
