"""Where a finding points, in words: the template's own headings, one name per place."""

from __future__ import annotations

import dataclasses

import pytest

from registry import gfd191
from registry.checklist import CHECK_PLACES, DRAFT, SUBMITTED, run_checklist
from registry.interchange import ProposalData
from registry.places import finding_place

from .factories import data_factory, demo_raw
from .test_checklist import ALICEGRID_EXAMPLES, ALICEGRID_MISSING_PAREN


def test_finding_place_names_a_grammar_line_by_section_field_line_and_column():
    place = finding_place({"section": "grammar", "line": 2, "column": 37, "rule": "SITE"})
    assert place.text == "2.1 Syntactic Structure: ABNF, line 2, column 37"
    assert (place.href, place.field, place.line, place.column) == ("#grammar-line-2", "id_grammar_abnf", 2, 37)
    assert finding_place({"section": "grammar", "line": 13}).text == "2.1 Syntactic Structure: ABNF, line 13"


def test_finding_place_names_an_example_by_its_list_and_line():
    place = finding_place({"example": "urn:ogf:example:x", "list": "invalid", "example_line": 4})
    assert place.text == "6 Examples: invalid examples, line 4"
    assert (place.href, place.field, place.line, place.column) == (
        "#examples_invalid-line-4",
        "id_examples_invalid",
        4,
        1,
    )


def test_finding_place_of_every_section_is_its_heading_in_the_template():
    for section in gfd191.SECTIONS:
        place = finding_place({"section": section.key})
        assert (place.text, place.href) == (section.heading, f"#section-{section.key}")


def test_finding_place_follows_the_template_data(monkeypatch):
    """The words come from gfd191 when the page is drawn: change the data, the link changes."""
    renamed = dataclasses.replace(gfd191.SECTIONS_BY_KEY["examples"], number="9", title="Sample URNs")
    monkeypatch.setitem(gfd191.SECTIONS_BY_KEY, "examples", renamed)
    assert finding_place({"section": "examples"}).text == "9 Sample URNs"
    assert (
        finding_place({"example": "urn:ogf:x:1", "list": "valid", "example_line": 2}).text
        == "9 Sample URNs: valid examples, line 2"
    )


def test_finding_place_of_a_field_or_group_names_its_section_first():
    assert finding_place({"section": "document"}).text == "1.2 Document Version: registering document"
    assert finding_place({"section": "max_length"}).text == "2.1 Syntactic Structure: maximum length"
    assert finding_place({"section": "unplaced"}).text == gfd191.UNPLACED_LABEL
    group = finding_place({"example": "URN:OGF:x:1", "list": "equivalent", "group": 1})
    assert (group.text, group.href) == (
        "2.4 Rules for Lexical Equivalence: equivalent URNs, group 2",
        "#section-examples_equivalent",
    )
    assert finding_place({"example": "urn:ogf:example:much-too-long"}).text == "6 Examples"


@pytest.mark.parametrize("item", [None, {}, {"section": "no-such-place"}, {"urls": [["a", "b", "c"]]}])
def test_finding_place_is_none_for_what_no_page_shows(item):
    assert finding_place(item) is None


def _sample_data() -> list[ProposalData]:
    """The demo proposals, and proposals wrong in every way a finding can point at."""
    demos = [data_factory(name) for name in ("example", "fdc", "img", "newsml", "urn-5")]
    example = demo_raw("example")["examples"]
    wrong = data_factory(
        max_length=30,
        examples={
            "valid": [*example["valid"], "urn:ogf:example:cluster:20x9:example.net:1"],
            "invalid": [example["valid"][0]],
            "equivalent": [
                ["urn:ogf:example:cluster:2009:example.net:42", "urn:ogf:example:cluster:2009:example.net:43"],
                ["urn:ogf:example:a", "not a urn"],
            ],
        },
    )
    broken = data_factory(
        snid="alicegrid", grammar={"abnf": ALICEGRID_MISSING_PAREN, "rule": ""}, examples=ALICEGRID_EXAMPLES
    )
    return [*demos, wrong, broken, ProposalData(snid=""), ProposalData(snid="x-bad", unplaced="Left over.")]


def test_every_place_a_check_points_at_has_a_name():
    items = [item for _, item in CHECK_PLACES.values() if item]
    for data in _sample_data():
        for stage in (DRAFT, SUBMITTED):
            items += [f.item for f in run_checklist(data, stage=stage) if f.item and set(f.item) - {"urls"}]
    assert len(items) > 100
    unnamed = [item for item in items if finding_place(item) is None]
    assert unnamed == []


def test_one_name_means_one_place():
    """Link texts are told apart by screen readers' link lists: the same words never lead to two places."""
    targets: dict[str, set] = {}
    for data in _sample_data():
        for stage in (DRAFT, SUBMITTED):
            for finding in run_checklist(data, stage=stage):
                place = finding_place(finding.item)
                if place is not None:
                    targets.setdefault(place.text, set()).add((place.href, place.line, place.column))
    assert len(targets) > 15
    assert {text: where for text, where in targets.items() if len(where) > 1} == {}
