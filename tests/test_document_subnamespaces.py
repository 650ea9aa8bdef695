"""Sub-namespace registrations (RFC 3553's template and its later variants), from texts written for
these tests: the SNID is proposed from the registry name or the URN prefix and always flagged; the
registration's own URNs are its examples wherever they stand (quoted in prose, after labels, in boxed
and unboxed tables with their wrapped cells rejoined), while URNs of other namespaces stay set aside.
Every document is imported as text, as a PDF and as a Word file built from it."""

from __future__ import annotations

import pytest

from registry.documents import document_import

from .test_document_shapes import FORMATS, example, imported

TEMPLATE = """Registration of the Demo Parameters Sub-namespace

Abstract

   This memo registers a sub-namespace of urn:ietf:params for the Example
   Demo Protocol.  Names such as "urn:ietf:params:demo:report:2011" name its
   reports; "urn:example:other:thing" names something else entirely.

IANA Considerations

   Registry name:  demo

   URN Prefix:  urn:ietf:params:demo

   Specification:  This memo.

   Repository:  https://registry.example.org/demo

   Index value:  A kind and a number, urn:ietf:params:demo:<kind>:<number>,
      assigned by the Example Demo registry.

   Contact:  Ada Sample <ada@example.org>

   The initial entries are:

   +------------------------------+----------------------+
   | URN                          | Description          |
   +------------------------------+----------------------+
   | urn:ietf:params:demo:minutes | minutes of the       |
   | :7                           | seventh meeting      |
   +------------------------------+----------------------+
   | urn:ietf:params:demo:agenda: | the agenda           |
   | 2012                         |                      |
   +------------------------------+----------------------+
   | urn:ietf:params:demo:rolls:1 | see                  |
   |                              | urn:example:other:x  |
   +------------------------------+----------------------+

   and later ones:

      URN                            Meaning
      -----------------------------  ------------------
      urn:ietf:params:demo:roster:   the member list
        current
      urn:ietf:params:demo:charter1  the charter
      urn:ietf:params:demo:bylawsv2  the bylaws as
      0                              amended
"""

EXPECTED = [
    "urn:ogf:demo:report:2011",
    "urn:ogf:demo:minutes:7",
    "urn:ogf:demo:agenda:2012",
    "urn:ogf:demo:rolls:1",
    "urn:ogf:demo:roster:current",
    "urn:ogf:demo:charter1",
    "urn:ogf:demo:bylawsv20",
]


@pytest.mark.parametrize("fmt", FORMATS)
def test_sub_namespace_template_proposes_the_snid_from_its_prefix_flagged(fmt):
    result = imported(TEMPLATE, fmt)
    assert result.data.snid == "demo"
    item = result.report.item("snid")
    assert item.status == "uncertain" and item.why.startswith(
        "proposed from the URN prefix 'urn:ietf:params:demo' of the sub-namespace the document registers"
    )
    assert any("registers the sub-namespace urn:ietf:params:demo:" in note for note in result.notes)
    assert {"snid", "ancillary_documentation", "identifier_assignment", "syntactic_structure", "registrant"} <= set(
        result.mapped
    )
    r = result.data.registrant
    assert (r.name, r.email) == ("Ada Sample", "ada@example.org")
    assert result.report.item("registrant.name").status == "found"


@pytest.mark.parametrize("fmt", FORMATS)
def test_sub_namespace_urns_are_examples_in_prose_and_in_boxed_and_unboxed_tables(fmt):
    result = imported(TEMPLATE, fmt)
    assert result.data.examples.valid == EXPECTED
    for urn in EXPECTED:  # re-cast from another namespace without a grammar to confirm: each one flagged
        item = example(result, urn)
        assert item.status == "uncertain" and "re-cast as an urn:ogf:demo: URN" in item.why
    minutes = example(result, "urn:ogf:demo:minutes:7")
    assert "it fills its table cell on line" in minutes.why and len(minutes.lines) == 2
    agenda = example(result, "urn:ogf:demo:agenda:2012")
    assert "breaks it after ':', the rest alone on the next line" in agenda.why
    assert "breaks it after ':'" in example(result, "urn:ogf:demo:roster:current").why
    assert "it fills its table cell" in example(result, "urn:ogf:demo:bylawsv20").why
    assert example(result, "urn:ogf:demo:charter1").lines == [example(result, "urn:ogf:demo:charter1").lines[0]]
    left = {entry["text"]: entry["why"] for entry in result.report.left_out}
    assert left["urn:ietf:params:demo"] == "the prefix of the sub-namespace registered, not an example"
    assert left["urn:example:other:thing"] == "a mention of another namespace in prose"
    assert left["urn:example:other:x"] == "a mention of another namespace in prose"  # in a table, still another's


def test_a_urn_with_room_left_in_its_cell_ends_there():
    """A URN that leaves room in its cell for the next line's text was not broken by the cell's width:
    the next line of the cell is text of its own."""
    row = "| urn:ietf:params:demo:rolls:1 | see                  |"
    below = "|                              | urn:example:other:x  |"
    text = TEMPLATE.replace(row, row.replace("rolls:1", "r      ")).replace(below, below.replace("   ", " One", 1))
    result = document_import(text)
    assert "urn:ogf:demo:r" in result.data.examples.valid
    assert not any(urn.startswith("urn:ogf:demo:rOne") for urn in result.data.examples.valid)


@pytest.mark.parametrize("fmt", FORMATS)
def test_registry_name_alone_gives_the_snid_and_the_prefix_it_implies(fmt):
    text = (
        "IANA Considerations\n\n   Registry name:  demo\n\n   Specification:  This memo.\n\n"
        "   Repository:  None.\n\n   Index value:  A number under urn:ietf:params.\n\n"
        "   Contact:  Ada Sample <ada@example.org>\n\n"
        '   The first names given are "urn:ietf:params:demo:1" and "urn:ietf:params:demo:2";\n'
        "   see also urn:other:demo:3.\n"
    )
    result = imported(text, fmt)
    item = result.report.item("snid")
    assert (result.data.snid, item.status) == ("demo", "uncertain")
    assert "proposed from the registry name 'demo'" in item.why
    assert "its URN prefix urn:ietf:params:demo: was inferred" in item.why
    assert result.data.examples.valid == ["urn:ogf:demo:1", "urn:ogf:demo:2"]
    assert [e["why"] for e in result.report.left_out if e["text"] == "urn:other:demo:3"] == [
        "a mention of another namespace in prose"
    ]


def test_a_registry_name_that_is_not_a_name_leaves_the_snid_empty_and_says_why():
    text = "IANA Considerations\n\n   Registry name:  Example Demo Parameters\n\n   Specification:  This memo.\n\n"
    result = document_import(text)
    item = result.report.item("snid")
    assert (result.data.snid, item.status, item.value) == ("", "not found", "")
    assert item.why == (
        "the registry name 'Example Demo Parameters' (line 3) is not a single name an SNID can be; "
        "fill in the SNID you request"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_urn_prefix_entries_under_the_sub_namespace_are_its_urns(fmt):
    text = (
        "IANA Considerations\n\n   URN Prefix:  urn:ietf:params:demo\n\n"
        "   URN Prefix:  urn:ietf:params:demo:reports\n\n"
        "   URN Prefix:  urn:ietf:params:demo:minutes\n\n   Specification:  This memo.\n\n"
        "   Contact:  Ada Sample <ada@example.org>\n"
    )
    result = imported(text, fmt)
    assert result.data.snid == "demo"
    assert result.data.examples.valid == ["urn:ogf:demo:reports", "urn:ogf:demo:minutes"]
    item = example(result, "urn:ogf:demo:reports")
    assert item.status == "uncertain"
    assert "listed as a URN prefix under the sub-namespace registered; taken as an example of it" in item.why


def test_two_sub_namespaces_side_by_side_the_first_is_taken_and_the_other_shown():
    text = "IANA Considerations\n\n   URN Prefix:  urn:ietf:params:demo\n\n   URN Prefix:  urn:ietf:params:other\n"
    item = document_import(text).report.item("snid")
    assert item.value == "demo" and item.status == "uncertain"
    assert item.why.endswith("the document also names 'urn:ietf:params:other', not taken")


# Tables and sub-namespace fields read in linear time: the work from n/4 to n grows about 4-fold
# (16-fold if quadratic), measured as in tests/test_documents_robust.py.
HOSTILE = {
    "boxed-rows": lambda n: "Examples:\n   +---+---+\n" + "   | urn:a:b:c | x |\n" * int(n * 20_000),
    "boxed-full-cells": lambda n: "Examples:\n   +------+\n" + "   |urn:a:|\n" * int(n * 20_000),
    "unboxed-rows": lambda n: "Examples:\n   ---------  ---\n" + "   urn:a:b:  x\n" * int(n * 20_000),
    "many-registry-names": lambda n: "   Registry name:  demo\n" * int(n * 20_000),
    "many-prefixes": lambda n: "".join(f"   URN Prefix:  urn:ietf:params:d{i}\n" for i in range(int(n * 10_000))),
    "many-contacts": lambda n: "IANA Considerations\n\n" + "   Contact:  Ada Sample\n\n   text\n\n" * int(n * 5_000),
}


def _cpu_seconds(text):
    import time

    started = time.process_time()
    document_import(text)
    return time.process_time() - started


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_sub_namespace_text_is_read_in_linear_time(case):
    make = HOSTILE[case]
    small, large = make(0.25), make(1)
    quarters, fulls = [], []
    for _ in range(3):
        quarters.append(_cpu_seconds(small))
        fulls.append(_cpu_seconds(large))
    quarter, full = min(quarters), min(fulls)
    assert full < 10 * quarter + 0.25, f"{case}: {quarters} s at n/4, {fulls} s at n"
