"""The automated review checklist: seed expectations, and a pass and a non-pass case per check."""

from __future__ import annotations

import pytest

from registry import interchange
from registry.checklist import CHECK_IDS, MANUAL_CHECKS, RegistryFacts, run_checklist, summarize

from .factories import demo_raw


def findings_for(raw: dict, facts: RegistryFacts | None = None):
    return run_checklist(interchange.load(raw), facts)


def statuses(findings, check_id: str) -> list[str]:
    return [f.status for f in findings if f.id == check_id]


# --- the seeds, as an expert would judge them ----------------------------------------------


def test_gfd191_example_passes_grammar_checks_with_expected_warnings():
    findings = findings_for(demo_raw("example"))
    for check_id in ("grammar-present", "grammar-parses", "grammar-complete", "grammar-charset",
                     "examples-valid", "equivalence", "max-length", "percent-encoding"):
        assert statuses(findings, check_id) == ["pass"], check_id
    warned = [f for f in findings if f.id == "examples-invalid"]
    assert [(f.status, f.item["example"].split(":")[4]) for f in warned] == [("warning", "1949")]
    (reserved,) = [f for f in findings if f.id == "reserved-characters"]
    assert reserved.status == "warning" and "? #" in reserved.message
    assert summarize(findings)["fail"] == 0


def test_urn5_fails_examples_valid_on_its_counter_example():
    findings = findings_for(demo_raw("urn-5"))
    failed = [f for f in findings if f.id == "examples-valid"]
    assert [(f.status, f.item["example"]) for f in failed] == [
        ("fail", "urn:ogf:urn-5:Od4rB2QNOLt1e5wITWSJ+9U2Ve+Zon6N3d:17")]


@pytest.mark.parametrize("name", ["fdc", "img", "newsml"])
def test_other_seeds_pass_example_checks(name):
    findings = findings_for(demo_raw(name))
    assert "fail" not in statuses(findings, "examples-valid") + statuses(findings, "examples-invalid")


def test_every_check_runs_in_a_fixed_order():
    findings = findings_for(demo_raw("example"))
    order = list(dict.fromkeys(f.id for f in findings))
    assert order == [c for c in CHECK_IDS if c in order]
    assert len(CHECK_IDS) == len(set(CHECK_IDS)) >= 23


def test_findings_carry_reference_and_item():
    for finding in findings_for(demo_raw("urn-5")):
        assert finding.message and finding.reference.startswith(("GFD.191", "RFC"))


# --- one case per check id: (check, change to the GFD.191 example, facts, expected statuses) ----


def _sections(**changes):
    sections = dict(demo_raw("example")["sections"])
    for key, value in changes.items():
        if value is None:
            sections.pop(key, None)
        else:
            sections[key] = value
    return {"sections": sections}


def _grammar(abnf, rule=None):
    return {"grammar": {"abnf": abnf, "rule": rule or ""}}


SIMPLE = 'urn = "urn:ogf:example:" 1*DIGIT\n'
SIMPLE_EXAMPLES = {"examples": {"valid": ["urn:ogf:example:42"], "invalid": ["urn:ogf:example:x"],
                                "equivalent": []}}

CASES = [
    # check id, change, facts, statuses of that check
    ("snid-syntax", {}, None, ["pass"]),
    ("snid-syntax", {"snid": "-bad_snid"}, None, ["fail"]),
    ("snid-not-experimental", {}, None, ["pass"]),
    ("snid-not-experimental", {"snid": "x-test"}, None, ["fail"]),
    ("snid-unique", {}, None, ["pass"]),
    ("snid-unique", {}, RegistryFacts(registered=True, latest_version=1), ["fail"]),
    ("snid-unique", {}, RegistryFacts(registered=True, latest_version=1, own_namespace=True), ["pass"]),
    ("snid-unique", {}, RegistryFacts(reserved=True, reserved_until="2030-01-01"), ["fail"]),
    ("snid-unique", {}, RegistryFacts(reserved=True, reserved_for_applicant=True), ["pass"]),
    ("snid-unique", {}, RegistryFacts(registered=True, latest_version=1, submitter_known=False), ["warning"]),
    ("snid-durable", {}, None, ["editor"]),
    ("snid-durable", {"snid": "nsi-wg"}, None, ["warning"]),
    ("snid-durable", {"snid": "grid2011"}, None, ["warning"]),
    ("required-sections", {}, None, ["pass"]),
    ("required-sections", _sections(scope=None, immutability="  "), None, ["fail", "fail"]),
    ("version", {}, None, ["pass"]),
    ("version", {"version": 2}, None, ["fail"]),
    ("version", {"version": 3}, RegistryFacts(registered=True, latest_version=2, own_namespace=True), ["pass"]),
    ("document", {}, None, ["pass"]),
    ("document", {"document": {"reference": "", "url": "", "status": ""}}, None, ["fail"]),
    ("document", {"document": {"reference": "RFC 4198", "url": "", "status": "published"}}, None,
     ["warning", "warning"]),
    ("document", {"document": {"reference": "GFD.191", "status": "published", "type": "Experimental"}}, None,
     ["warning"]),
    ("document", {"document": {"reference": "GFD.191", "status": "published"}}, None, ["warning"]),
    ("registrant", {}, None, ["pass"]),
    ("registrant", {"registrant": {}}, None, ["fail"]),
    ("registrant", {"registrant": {"name": "Ann"}}, None, ["warning"]),
    ("grammar-present", {}, None, ["pass"]),
    ("grammar-present", _grammar(""), None, ["fail"]),
    ("grammar-parses", {}, None, ["pass"]),
    ("grammar-parses", _grammar('urn = "a" /\n'), None, ["fail"]),
    ("grammar-complete", {}, None, ["pass"]),
    ("grammar-complete", _grammar('urn = "urn:ogf:example:" x\nspare = "y"\n'), None, ["fail", "warning"]),
    ("grammar-complete", _grammar('urn = "urn:ogf:other:" 1*DIGIT\n'), None, ["fail"]),
    ("grammar-charset", {}, None, ["pass"]),
    ("grammar-charset", _grammar('urn = "urn:ogf:example:" 1*(DIGIT / " ")\n'), None, ["fail"]),
    ("grammar-charset", _grammar('urn = "urn:ogf:example:" 1*(DIGIT / "%" 2HEXDIG)\n'), None, ["pass"]),
    ("grammar-charset", _grammar('urn = "urn:ogf:" 1*(ALPHA / "/") ":" 1*DIGIT\n'), None, ["fail"]),
    ("grammar-charset", _grammar('s = 1*(ALPHA / %x80-FF)\n'), None, ["fail"]),
    ("reserved-characters", {**_grammar(SIMPLE), **SIMPLE_EXAMPLES}, None, ["pass"]),
    ("reserved-characters", {}, None, ["warning"]),
    ("max-length", {}, None, ["pass"]),
    ("max-length", {"max_length": None}, None, ["warning"]),
    ("max-length", {**_grammar('urn = "urn:ogf:example:" 1*5DIGIT\n'), "max_length": None}, None, ["pass"]),
    ("max-length", {"max_length": 30}, None, ["pass", "fail", "fail", "fail", "fail"]),
    ("percent-encoding", {}, None, ["pass"]),
    ("percent-encoding", _sections(encoding="Labels are LDH."), None, ["fail"]),
    ("percent-encoding", {"equivalence": [], "examples": {"valid": [], "invalid": [], "equivalent": []}},
     None, ["fail"]),
    ("unicode-version", {}, None, ["pass"]),
    ("unicode-version", _sections(lexical_equivalence="Names are compared after NFC."), None, ["warning"]),
    ("unicode-version", _sections(lexical_equivalence="NFC as of Unicode 6.0."), None, ["pass"]),
    ("equivalence", {}, None, ["pass"]),
    ("equivalence", {"equivalence": []}, None, ["fail", "warning"]),
    ("examples-present", {}, None, ["pass"]),
    ("examples-present", {"examples": {"valid": [], "invalid": [], "equivalent": []}}, None, ["warning"]),
    ("examples-valid", {**_grammar(SIMPLE), **SIMPLE_EXAMPLES}, None, ["pass"]),
    ("examples-valid", {**_grammar(SIMPLE), "examples": {"valid": ["urn:ogf:example:4x", "urn:ogf:other:1",
                                                                     "not a urn"]}}, None,
     ["fail", "fail", "fail"]),
    ("examples-invalid", {**_grammar(SIMPLE), **SIMPLE_EXAMPLES}, None, ["pass"]),
    ("examples-invalid", {**_grammar(SIMPLE), "examples": {"invalid": ["urn:ogf:example:7"]}}, None, ["warning"]),
    ("subdelegation", _sections(identifier_assignment="URNs are assigned sequentially by the group."),
     None, ["pass"]),
    ("subdelegation", {}, None, ["editor"]),
    ("subdelegation", _sections(uniqueness=None), None, ["warning"]),
    ("immutability", {}, None, ["editor"]),
    ("immutability", _sections(immutability=None), None, ["fail"]),
    ("scope", {}, None, ["editor"]),
    ("resolvers", {"resolvers": [{"name": "main", "template": "https://data.example.org/{DOMAIN}/{INDEX}"}]},
     None, ["pass"]),
    ("resolvers", {"resolvers": [{"name": "main", "template": "http://data.example.org/{nss}"}]},
     None, ["warning", "pass"]),
    # an optional rule the examples never use: no URL for any of the four examples
    ("resolvers", {"resolvers": [{"name": "main", "template": "https://data.example.org/{QUERY}"}]},
     None, ["warning"] * 4),
]


@pytest.mark.parametrize(("check_id", "change", "facts", "expected"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_check_cases(check_id, change, facts, expected):
    raw = demo_raw("example")
    raw.update(change)
    assert statuses(findings_for(raw, facts), check_id) == expected


def test_every_check_id_has_a_passing_and_a_non_passing_case():
    covered = {}
    for check_id, _, _, expected in CASES:
        covered.setdefault(check_id, set()).update(expected)
    for check_id in CHECK_IDS:
        outcomes = covered.get(check_id, set())
        if check_id == "scope":  # always the editor's call
            assert outcomes == {"editor"}
            continue
        assert "pass" in outcomes or check_id in MANUAL_CHECKS, check_id
        assert outcomes - {"pass"}, check_id


def test_bare_percent_fails_grammar_charset_with_a_counter_example():
    raw = {**demo_raw("example"), **_grammar('urn = "urn:ogf:example:" 1*(DIGIT / "%")\n')}
    (finding,) = [f for f in findings_for(raw) if f.id == "grammar-charset"]
    assert (finding.status, finding.item["counter_example"]) == ("fail", "urn:ogf:example:%")
    assert finding.message == (
        "The grammar admits strings that are not valid urn:ogf: URNs, for example 'urn:ogf:example:%': "
        "'%' at character 17 must be followed by two hexadecimal digits (a percent-encoded octet). "
        "(Checked 3 strings generated from the grammar.)")


def test_snid_unique_without_a_submitter_is_neutral():
    facts = RegistryFacts(registered=True, latest_version=1, submitter_known=False)
    (finding,) = [f for f in findings_for(demo_raw("example"), facts) if f.id == "snid-unique"]
    assert "someone else" not in finding.message
    assert finding.message.startswith("urn:ogf:example: is already registered (latest version 1).")


def test_passing_checks_state_what_they_examined():
    findings = findings_for(demo_raw("example"))
    messages = {f.id: f.message for f in findings if f.status == "pass"}
    assert "checked 158 test strings" in messages["grammar-parses"] or "test strings)" in messages["grammar-parses"]
    assert "(length bound 255)" in messages["max-length"]
    assert messages["grammar-charset"].startswith("Checked ")
    assert "checked 1 group" in messages["equivalence"]


# --- a check that examined nothing never passes ----------------------------------------------

_NOTHING_GRAMMARS = {
    "grammar-parses": 's = "(" [s] ")"\n',  # recursive: not compared with the reference parser
    "grammar-complete": "; only a comment\n",
    "grammar-charset": 's = "a" s\n',  # no string can be generated
    "reserved-characters": 'x = ""\n',
    "max-length": 'x = ""\n',
}


@pytest.mark.parametrize("check_id", CHECK_IDS)
def test_check_examining_nothing_is_not_pass(check_id):
    data = interchange.ProposalData(snid="", version=0)
    if check_id in _NOTHING_GRAMMARS:
        data.grammar = interchange.Grammar(_NOTHING_GRAMMARS[check_id], "")
    findings = [f for f in run_checklist(data) if f.id == check_id]
    assert [f for f in findings if f.status == "pass"] == []


def test_grammar_charset_cut_short_by_its_work_limit_is_not_pass(monkeypatch):
    from collections import OrderedDict

    from registry import checklist
    from registry.grammar import samples

    monkeypatch.setattr(samples, "MAX_STEPS", 40)
    monkeypatch.setattr(checklist, "_SAMPLES", OrderedDict())  # generate again under the limit
    (finding,) = [f for f in findings_for(demo_raw("example")) if f.id == "grammar-charset"]
    assert finding.status == "warning" and "work limit reached" in finding.message
