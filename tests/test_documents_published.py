"""The published registrations under tests/seeds/: each imports exactly, every field with its status;
a field reported found is never wrong, in the text and in a PDF made from it."""

import pytest

from registry.documents import document_import
from registry.grammar import grammar_compile

from .docxmaker import make_docx
from .published_registrations import REGISTRATIONS
from .published_registrations import truth as truth_of
from .published_rfcs import PUBLISHED, SEEDS, published, seed


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_registration_imports_exactly(name):
    snid, (valid, invalid), rules, top, registrant = PUBLISHED[name]
    result = document_import(published(name))
    data = result.data
    assert data.snid == snid
    assert (data.examples.valid, data.examples.invalid) == (valid, invalid)
    rule_item = result.report.item("grammar.rules")
    assert (rule_item.value.split(", ") if rule_item and rule_item.value else []) == rules
    assert data.grammar.rule == top
    r = data.registrant
    assert (r.name, r.organisation, r.email, r.address) == registrant


def _statuses(result) -> dict[str, str]:
    """The report's fields grouped by status, in the short names of ``Expected``."""
    by_field: dict[str, set] = {}
    for item in result.report.items:
        by_field.setdefault(item.field, set()).add(item.status)
    groups: dict[str, list[str]] = {}
    for name, statuses in by_field.items():
        short = name.replace("sections.", "s.").replace("registrant.", "r.")
        groups.setdefault("/".join(sorted(statuses)), []).append(short)
    return {status: " ".join(names) for status, names in groups.items()}


@pytest.mark.parametrize("name", sorted(REGISTRATIONS))
def test_registration_imports_exactly_with_every_field_status(name):
    expected = REGISTRATIONS[name]
    result = document_import(published(name))
    data = result.data
    assert data.snid == expected.snid
    assert (data.examples.valid, data.examples.invalid) == (expected.valid, expected.invalid)
    rule_item = result.report.item("grammar.rules")
    assert (rule_item.value.split(", ") if rule_item and rule_item.value else []) == expected.rules
    assert data.grammar.rule == expected.top
    r = data.registrant
    assert (r.name, r.organisation, r.email, r.address) == expected.registrant
    statuses = _statuses(result)
    assert statuses.pop("found", "") == expected.found
    assert statuses.pop("uncertain", "") == expected.uncertain
    assert statuses.pop("found/uncertain", "") == expected.found_and_uncertain
    assert set(statuses) <= {"not found"}


ALL_DOCUMENTS = sorted(p.name for p in SEEDS.iterdir() if p.name != "README.md")


def test_every_document_under_tests_has_expected_values():
    assert set(ALL_DOCUMENTS) == set(REGISTRATIONS) | set(PUBLISHED)
    assert len(REGISTRATIONS) >= 15


@pytest.mark.parametrize("name", ALL_DOCUMENTS)
def test_found_is_never_wrong_and_anything_else_says_why(name):
    """The importer's contract: a field reported "found" equals what an expert reads; a field it is
    unsure of or did not find is reported so, with the reason."""
    truth = truth_of(name)
    result = document_import(published(name))
    for item in result.report.items:
        if item.status != "found":
            assert item.why, (name, item)
            continue
        if item.field in ("examples.valid", "examples.invalid"):
            assert item.value in truth[item.field], (name, item)
        elif item.field in truth:
            assert item.value == truth[item.field], (name, item)
    if result.report.item("grammar.abnf").status == "found":
        assert grammar_compile(result.data.grammar.abnf, result.data.grammar.rule).errors == []


@pytest.mark.parametrize(
    "name", ["rfc7302-eidr.txt", "rfc8069-ieee.txt", "rfc7207-eurosystem.txt", "rfc7254-gsma.txt", "rfc3044-issn.txt"]
)
def test_docx_with_label_and_value_in_separate_paragraphs_reads_the_same_registrant(name):
    from registry.documents import read_file

    text, fmt = read_file("registration.docx", make_docx(published(name).replace("\f", "")))  # no page breaks in Word
    result = document_import(text, format=fmt)
    r = result.data.registrant
    assert (r.name, r.organisation, r.email) == REGISTRATIONS[name].registrant[:3]


def test_every_published_example_records_its_source_line():
    for name in PUBLISHED:
        result = document_import(published(name))
        source = result.source.split("\n")
        for item in result.report.items:
            if item.field.startswith("examples.") and item.value:
                first = source[item.lines[0] - 1].replace(" ", "")
                written = item.value.split(":", 3)[3] if item.value.startswith("urn:ogf:") else item.value
                assert written[:10] in first, (name, item)  # re-cast or kept as written, from its own line


def test_uuid_grammar_keeps_its_multi_line_rules_and_accepts_its_example():
    result = document_import(published("rfc4122-uuid-kramdown.md"))
    abnf = result.data.grammar.abnf
    assert abnf.split("\n")[:2] == [
        'UUID                   = time-low "-" time-mid "-"',
        '                         time-high-and-version "-"',
    ]
    compiled = grammar_compile(abnf, result.data.grammar.rule)
    assert compiled.ok and not compiled.errors
    hexdigit = compiled.parsed.rules["hexdigit"]
    assert (hexdigit.line, hexdigit.end_line) == (12, 15)  # continuation lines kept with their rule
    from registry.grammar import parse_urn

    assert result.data.examples.valid == ["urn:ogf:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"]  # re-cast
    assert compiled.check(parse_urn(result.data.examples.valid[0])) == []
    assert result.report.item("grammar.abnf").lines[:2] == [36, 37]


def test_templates_and_other_namespaces_are_left_out_and_reported():
    result = document_import(published("whip-ietf-subnamespace.md"))
    assert result.data.examples.valid == []
    left_out = {(item["text"], item["line"]) for item in result.report.left_out}
    assert ("urn:ietf:params:whip:{type}:{name}:{other", 27) in left_out
    assert ("urn:ietf:params:whip:ext", 53) in left_out


def test_bnf_instead_of_abnf_is_named_as_the_cause():
    result = document_import(published("mrn-iala.md"))
    assert any("use BNF ('<a> ::= b'), not ABNF" in note and "40" in note for note in result.notes)


def test_registrant_uncertainties_are_reported():
    items = {i.field: i for i in document_import(published("adi-trustframe.md")).report.items}
    assert items["registrant.name"].status == "uncertain" and "role title" in items["registrant.name"].why
    assert items["registrant.address"].why == "given as N/A or TBD"
    items = {i.field: i for i in document_import(seed("001")).report.items}
    assert items["registrant.address"].lines == [53, 54, 55]
    assert items["grammar.abnf"].status == "uncertain"
    assert items["grammar.abnf"].why.startswith(
        "The grammar on source lines 65-79 was printed in columns by text extraction; 7 rule(s) were rejoined"
    )
    assert "'MM', 'DD', 'alphanum', 'other', 'hex' but does not define them" in items["grammar.abnf"].why
    assert "separate columns" in items["registrant.address"].why


@pytest.mark.parametrize(
    "name", ["rfc2648-ietf.txt", "rfc4246-isan.txt", "rfc7207-eurosystem.txt", "rfc8069-ieee.txt", "rfc5138-cgi.txt"]
)
def test_found_is_never_wrong_in_a_pdf_made_from_the_document_either(name):
    from registry.documents import read_file

    from .pdfmaker import make_pdf

    truth = truth_of(name)
    text, fmt = read_file("registration.pdf", make_pdf(published(name).replace("\f", "")))
    result = document_import(text, format=fmt)
    checked = 0
    for item in result.report.items:
        if item.status != "found":
            assert item.why, (name, item)
        elif item.field in ("examples.valid", "examples.invalid"):
            assert item.value in truth[item.field], (name, item)
        elif item.field in truth:
            assert item.value == truth[item.field], (name, item)
            checked += 1
    assert checked >= 3  # the SNID and at least two registrant fields are read from the PDF too
