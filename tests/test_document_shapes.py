"""Shapes of registration documents the importer had never seen, from texts written for these tests:
each is read right, or what it cannot be sure of is reported uncertain with the other reading; a value
is never reported found when the document does not say it. Every document is imported as text, as a
PDF and as a Word file built from it."""

from __future__ import annotations

import pytest

from registry.documents import document_import, known, read_file

from .docxmaker import make_docx
from .pdfmaker import make_pdf

FORMATS = ["text", "pdf", "docx"]


def imported(text: str, fmt: str):
    """The import of ``text`` as a text file, a PDF or a Word file made from it."""
    if fmt == "text":
        return document_import(text)
    raw = make_pdf(text, positioned=True) if fmt == "pdf" else make_docx(text)  # placed as typeset, not spaced
    source, kind = read_file(f"registration.{fmt}", raw)
    return document_import(source, format=kind)


def items(result, field: str) -> list:
    return [item for item in result.report.items if item.field == field]


def example(result, urn: str):
    found = [item for item in result.report.items if item.field.startswith("examples.") and item.value == urn]
    assert found, (urn, [i.value for i in result.report.items if i.field.startswith("examples.")])
    return found[0]


def assert_nothing_found_that_is_not_said(result, truth: dict) -> None:
    """The contract: a field reported found equals what the document says."""
    for item in result.report.items:
        if item.status == "found" and item.field in truth:
            assert item.value == truth[item.field], item
        if item.status != "found":
            assert item.why, item


# --- a value wrapped across lines ------------------------------------------------------------------

WRAPPED = """Namespace Identifier:  demo

Syntax:

   NSS = word ":" serial
   word = 1*ALPHA
   serial = 6DIGIT

Examples:

   The grammar decides this one (six digits, not three):

      urn:ogf:demo:alpha:123
      456

   A quotation that closes on the next line: "urn:ogf:demo:beta:654
   321" names the second.

   A sentence ends with urn:ogf:demo:gamma:111111.
   The registry keeps it.

   The grammar ends this one on its line: urn:ogf:demo:delta:222222
   333 is another number.
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_wrapped_urn_is_joined_only_when_the_grammar_or_the_layout_proves_it(fmt):
    result = imported(WRAPPED, fmt)
    assert result.data.examples.valid == [
        "urn:ogf:demo:alpha:123456",
        "urn:ogf:demo:beta:654321",
        "urn:ogf:demo:gamma:111111",
        "urn:ogf:demo:delta:222222",
    ]
    joined = example(result, "urn:ogf:demo:alpha:123456")
    assert joined.status == "found" and "the grammar accepts it joined" in joined.why
    quoted = example(result, "urn:ogf:demo:beta:654321")
    assert quoted.status == "found" and "closes on line" in quoted.why
    assert example(result, "urn:ogf:demo:gamma:111111").status == "found"  # the sentence ends there
    assert example(result, "urn:ogf:demo:delta:222222").status == "found"  # six digits: the grammar ends it


@pytest.mark.parametrize("fmt", FORMATS)
def test_wrapped_urn_without_a_grammar_is_joined_and_uncertain_never_cut_silently(fmt):
    text = (
        "Namespace Identifier:  demo\n\nExamples:\n\n   o  urn:ogf:demo:first:part-one\n      two\n"
        "   o  urn:ogf:demo:second:12\n      34\n   o  urn:ogf:demo:third:x\n\n"
        "   The name urn:ogf:demo:fourth:12\n   34 was written across two lines, or not.\n"
    )
    result = imported(text, fmt)
    assert result.data.examples.valid == [
        "urn:ogf:demo:first:part-onetwo",
        "urn:ogf:demo:second:1234",
        "urn:ogf:demo:third:x",
        "urn:ogf:demo:fourth:12",
    ]
    doubtful = example(result, "urn:ogf:demo:fourth:12")  # never cut to its first line silently
    assert doubtful.status == "uncertain"
    assert "which may be its continuation ('urn:ogf:demo:fourth:1234')" in doubtful.why
    for urn, first in (
        ("urn:ogf:demo:first:part-onetwo", "urn:ogf:demo:first:part-one"),
        ("urn:ogf:demo:second:1234", "urn:ogf:demo:second:12"),
    ):
        item = example(result, urn)
        assert item.status == "uncertain" and f"the other reading is {first!r}" in item.why
        assert len(item.lines) == 2
    assert example(result, "urn:ogf:demo:third:x").status == "found"


def test_wrapped_urn_against_its_grammar_stays_uncertain():
    """The layout says the URN goes on (broken after ':', the rest alone below) but the grammar
    accepts only the first line's part: both readings are shown, nothing is decided silently."""
    text = (
        'Namespace Identifier:  demo\n\nSyntax:\n\n   NSS = 1*ALPHA [ "-" ]\n\nExamples:\n\n'
        "      urn:ogf:demo:abc-\n      def\n"
    )
    item = example(document_import(text), "urn:ogf:demo:abc-def")
    assert item.status == "uncertain" and "the grammar accepts only 'urn:ogf:demo:abc-'" in item.why


@pytest.mark.parametrize("fmt", FORMATS)
def test_wrapped_urn_the_grammar_joins_but_words_follow_is_joined_uncertain(fmt):
    """The grammar alone does not decide a break that the layout contradicts: the next line goes on
    in words after the piece, so the join is a reading, flagged with the other one."""
    text = (
        WRAPPED.split("Examples:")[0] + "Examples:\n\n   The name urn:ogf:demo:alpha:123\n   456 is the alpha report.\n"
    )
    item = example(imported(text, fmt), "urn:ogf:demo:alpha:123456")
    assert item.status == "uncertain" and item.why.endswith(
        "but words follow it there; the other reading is 'urn:ogf:demo:alpha:123'"
    )


# --- registrants that are not a name on a line -----------------------------------------------------

REGISTRANTS = {
    "position-then-person": (
        "   Designated contact:  The Example Metadata Project Lead. Sam Sample\n"
        "      keeps the registry (sam@example.org).\n",
        ("Sam Sample", "", "sam@example.org", ""),
        {"name"},
    ),
    "role-with-person-in-parentheses": (
        "      The Example Registry Services Administrator (attn: Kim Q.\n      Sample)\n"
        "      Example Standards Bureau\n      1 Example Road\n      Example City\n",
        ("Kim Q. Sample", "Example Standards Bureau", "", "1 Example Road\nExample City"),
        {"name", "organisation", "address"},
    ),
    "contact-sentence": (
        "   Registering organization:  The Example Engineering Forum\n\n"
        "   Designated contact:  An expert chosen by the forum will read the demo mailing list,\n"
        "      demo-list@example.org.\n",
        ("", "The Example Engineering Forum", "demo-list@example.org", ""),  # a sentence is no one's name
        set(),
    ),
    "role-with-a-comma": (
        "   Registering organization:  Example Cable Laboratories\n\n   Designated contact:\n\n"
        "      Manager, Standards and Registries, registry@example.org\n",
        ("Manager, Standards and Registries", "Example Cable Laboratories", "registry@example.org", ""),
        {"name"},
    ),
    "organisation-and-address-only": (
        "      Zelestra Media\n      2314 Example Avenue\n      Example City, CA 91214\n      USA\n",
        ("", "Zelestra Media", "", "2314 Example Avenue\nExample City, CA 91214\nUSA"),
        {"organisation", "address"},
    ),
    "organisation-wrapped-where-it-runs-on": (
        "      Example Broadcasting Standards Committee of the Americas and\n      the Caribbean\n"
        "      1 Example Plaza\n      Example City\n",
        (
            "",
            "Example Broadcasting Standards Committee of the Americas and the Caribbean",
            "",
            "1 Example Plaza\nExample City",
        ),
        {"organisation", "address"},
    ),
    "organisation-perhaps-wrapped": (
        "   Registering organization:\n      Name:  Example Broadcasting Standards\n"
        "      Committee of the Americas\n      1 Example Plaza\n      Example City\n",
        ("", "Example Broadcasting Standards Committee of the Americas", "", "1 Example Plaza\nExample City"),
        {"organisation", "address"},
    ),
    "declared-contact-label": (
        "   Registering organization:  Example Union\n\n   Declared Contact:  Ada Sample\n   Email:  ada@example.org\n",
        ("Ada Sample", "Example Union", "ada@example.org", ""),
        set(),
    ),
    "o-bullets": (
        "   o  Name: Ada Sample\n   o  Organization: Example Union\n   o  Email: ada@example.org\n",
        ("Ada Sample", "Example Union", "ada@example.org", ""),
        set(),
    ),
    "affiliation-wrapped-deeper": (
        "   Name:         Ada Sample\n   Affiliation:  Example Institute for Open Metadata and\n"
        "                 Archival Science\n   Email:        ada@example.org\n",
        ("Ada Sample", "Example Institute for Open Metadata and Archival Science", "ada@example.org", ""),
        {"organisation"},
    ),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", list(REGISTRANTS))
def test_registrant_shape(shape, fmt):
    block, (name, organisation, email, address), uncertain = REGISTRANTS[shape]
    text = "Namespace ID:  demo\n\nDeclared registrant of the namespace:\n\n" + block
    result = imported(text, fmt)
    r = result.data.registrant
    assert (r.name, r.organisation, r.email, r.address) == (name, organisation, email, address)
    for key in ("name", "organisation", "email", "address"):
        item = result.report.item(f"registrant.{key}")
        if item.value:
            assert (item.status == "uncertain") == (key in uncertain), item
    assert_nothing_found_that_is_not_said(
        result,
        {
            "registrant.name": name,
            "registrant.organisation": organisation,
            "registrant.email": email,
            "registrant.address": address,
        },
    )


def test_each_registrant_reading_says_why_and_shows_the_other_reading():
    def why(shape, key):
        text = "Namespace ID:  demo\n\nDeclared registrant of the namespace:\n\n" + REGISTRANTS[shape][0]
        return document_import(text).report.item(f"registrant.{key}").why

    assert why("position-then-person", "name").startswith(
        "read from a sentence: the person named after the role title 'The Example Metadata Project Lead'"
    )
    assert "the other reading is 'The Example Registry Services Administrator (attn: Kim Q. Sample)'" in why(
        "role-with-person-in-parentheses", "name"
    )
    assert why("contact-sentence", "name") == (
        "a designated expert is described, not a person named ('An expert chosen by the forum will read the demo "
        "mailing list, demo-list@example.org.', line 7): fill in a person"
    )
    assert why("role-with-a-comma", "name") == "the contact is given only by a role title"
    assert why("organisation-perhaps-wrapped", "organisation") == (
        "line 7 ('Committee of the Americas') was read as the second half of the name; the other reading is "
        "'Example Broadcasting Standards'"
    )


# --- labels and headings of other templates ---------------------------------------------------------

NUMBERED = """3.  Namespace Registration

3.1.  Namespace ID

   "demo"

3.2.  Registration Information

   Registration version number: 1
   Registration date: 2012-03-04

3.3.  Declared registrant of the namespace

   Name:     Example Union
   Address:  1 Example Road, Example City
   Contact:  Ada Sample <ada@example.org>

3.4.  Declaration of syntactic structure

      NSS = 1*( ALPHA / DIGIT / ":" )

3.5.  Relevant ancillary documentation

   The Example Union's handbook.

3.6.  Identifier uniqueness considerations

   One registry assigns every name.

3.7.  Identifier persistence considerations

   Names are never reassigned.

3.8.  Process of identifier assignment

   Ask the union.

3.9.  Process of identifier resolution

   None.

3.10.  Rules for Lexical Equivalence

   Case-insensitive.

3.11.  Conformance with URN Syntax

   No reserved characters.

3.12.  Validation mechanism

   None.

3.13.  Scope

   Global.

4.  Examples

   urn:demo:handbook:2012
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_numbered_subsections_are_the_template_headings(fmt):
    result = imported(NUMBERED, fmt)
    assert set(result.mapped) == {
        "snid",
        "version",
        "registrant",
        "syntactic_structure",
        "ancillary_documentation",
        "uniqueness",
        "immutability",
        "identifier_assignment",
        "resolution",
        "lexical_equivalence",
        "reserved_use",
        "validation_mechanism",
        "scope",
        "examples",
    }
    data = result.data
    assert (data.snid, data.registration_date.isoformat()) == ("demo", "2012-03-04")
    r = data.registrant
    assert (r.name, r.organisation, r.email) == ("Ada Sample", "Example Union", "ada@example.org")
    assert data.sections["scope"] == "Global." and data.sections["identifier_assignment"] == "Ask the union."
    assert data.examples.valid == ["urn:ogf:demo:handbook:2012"] and data.grammar.rule == "NSS"


@pytest.mark.parametrize("fmt", FORMATS)
def test_sub_namespace_name_is_the_proposed_snid_and_its_quoted_examples_are_its_own(fmt):
    text = (
        "Sub-namespace name:  demo\n\nDeclared registrant of the namespace:\n\n   Name:  Example Union\n\n"
        "Declaration of syntactic structure:\n\n   Names have the form urn:ietf:params:demo:{kind}:{name}; for\n"
        '   example "urn:ietf:params:demo:report:2011 (the yearly report)" and\n'
        '   "urn:ietf:params:demo:minutes:7" are names of this sub-namespace.\n'
    )
    result = imported(text, fmt)
    item = result.report.item("snid")
    assert (result.data.snid, item.status) == ("demo", "uncertain")  # a name of another namespace: flagged
    assert item.why == (
        "proposed from the registry name 'demo' of a sub-namespace (a name of another namespace): check that it "
        "is the SNID you request; its URN prefix urn:ietf:params:demo: was inferred from the registry name and "
        "the parent namespace urn:ietf:params:"
    )
    assert result.data.examples.valid == ["urn:ogf:demo:report:2011", "urn:ogf:demo:minutes:7"]
    minutes = example(result, "urn:ogf:demo:minutes:7")
    assert minutes.status == "uncertain" and minutes.why.startswith(
        "written urn:ietf:params:demo:minutes:7, re-cast as an urn:ogf:demo: URN by cutting the sub-namespace"
    )


def test_a_sub_namespace_given_as_its_urn_prefix_gives_its_last_name_uncertain():
    result = document_import("Sub-namespace name:  urn:ietf:params:demo\n\nScope:\n\n   Global.\n")
    item = result.report.item("snid")
    assert (result.data.snid, item.status) == ("demo", "uncertain")
    assert item.why == (
        "proposed from the URN prefix 'urn:ietf:params:demo' of the sub-namespace the document registers "
        "(a name of another namespace): check that it is the SNID you request"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_contact_label_inside_another_section_is_its_text(fmt):
    text = (
        "   Namespace Identifier:  demo\n\n   Registrant:\n\n      Name:  Ada Sample\n"
        "      Email:  ada@example.org\n\n   Assignment:\n\n      Names are given by the desk.\n\n"
        "   Contact:  desk@example.org for new names.\n"
    )
    result = imported(text, fmt)
    r = result.data.registrant
    assert (r.name, r.email) == ("Ada Sample", "ada@example.org")
    assert "Contact:  desk@example.org for new names." in result.data.sections["identifier_assignment"]
    assert [h["title"] for h in result.report.headings] == ["Namespace Identifier", "Registrant", "Assignment"]


def test_a_label_is_added_as_data_without_code(tmp_path):
    shipped = known.load()
    assert shipped["headings"]["Sub-namespace name"] == "snid"
    assert shipped["registrant_labels"]["declared contact"] == "contact"
    path = tmp_path / "labels.toml"
    path.write_text(known.LABELS_FILE.read_text(encoding="utf-8") + "\n[extra]\n", encoding="utf-8")
    extended = path.read_text(encoding="utf-8").replace("[headings]\n", '[headings]\n"Requested NID" = "snid"\n', 1)
    path.write_text(extended, encoding="utf-8")
    assert known.load(path)["headings"]["Requested NID"] == "snid"
    path.write_text('[headings]\n"Requested NID" = "no_such_section"\n', encoding="utf-8")
    with pytest.raises(known.LabelsError, match="names the section 'no_such_section'"):
        known.load(path)
    path.write_text('[registrant_labels]\n"sponsor" = "sponsorship"\n', encoding="utf-8")
    with pytest.raises(known.LabelsError, match="holds 'sponsorship'"):
        known.load(path)


# --- examples quoted in prose, in o-bullet lists, and of another namespace ---------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_examples_quoted_in_prose_and_in_o_bullets(fmt):
    text = (
        'Namespace Identifier:  demo\n\nExamples:\n\n   The names "urn:ogf:demo:report:2011 (revised)" and\n'
        '   "urn:ogf:demo:minutes:7" appear in the yearly report; also:\n\n   o  urn:ogf:demo:list:1\n\n'
        '   o  urn:ogf:demo:list:2\n\n   and one with a space inside its parenthesis, "urn:ogf:demo:doc:(draft 2)".\n'
    )
    result = imported(text, fmt)
    assert result.data.examples.valid == [
        "urn:ogf:demo:report:2011",
        "urn:ogf:demo:minutes:7",
        "urn:ogf:demo:list:1",
        "urn:ogf:demo:list:2",
        "urn:ogf:demo:doc:(draft",
    ]
    assert all(example(result, urn).status == "found" for urn in result.data.examples.valid[:4])
    cut = example(result, "urn:ogf:demo:doc:(draft")
    assert cut.status == "uncertain" and "closes only after a space" in cut.why


@pytest.mark.parametrize("fmt", FORMATS)
def test_examples_of_another_namespace_are_kept_as_written(fmt):
    text = (
        "Namespace ID:  demo\n\nExamples:\n\n      urn:demo:catalogue:42\n      urn:other:thing:1\n"
        "      urn:ogf:demo:catalogue:43\n      urn:ogf:other:thing:2\n"
    )
    result = imported(text, fmt)
    assert result.data.examples.valid == [
        "urn:ogf:demo:catalogue:42",
        "urn:other:thing:1",
        "urn:ogf:demo:catalogue:43",
        "urn:ogf:other:thing:2",
    ]
    own = example(result, "urn:ogf:demo:catalogue:42")  # its own NID: re-cast, as the registration becomes an SNID
    assert own.status == "found" and own.why == "written urn:demo:catalogue:42, re-cast as an urn:ogf:demo: URN"
    other = example(result, "urn:other:thing:1")
    assert other.status == "uncertain" and other.why == (
        "an example of urn:other:, which is not this document's namespace; kept as written"
    )
    assert example(result, "urn:ogf:demo:catalogue:43").status == "found"
    other_snid = example(result, "urn:ogf:other:thing:2")  # another SNID's: never re-cast into this one
    assert other_snid.status == "uncertain" and other_snid.why == (
        "an example of urn:ogf:other:, which is not this document's namespace; kept as written"
    )
    assert "Example URNs of urn:demo: were re-cast as urn:ogf:demo: — check that they still make sense." in result.notes
    assert any(
        note.startswith("The examples of urn:ogf:other:, urn:other: are URNs of another namespace")
        for note in result.notes
    )


def test_examples_without_an_snid_are_kept_as_written():
    result = document_import("Examples:\n\n      urn:demo:catalogue:42\n")
    assert result.data.snid == "" and result.data.examples.valid == ["urn:demo:catalogue:42"]
    item = example(result, "urn:demo:catalogue:42")
    assert item.status == "uncertain" and item.why == (
        "no SNID was read, so it could not be re-cast as an urn:ogf:<snid>: URN; kept as written"
    )


SUB_NAMESPACE = """Sub-namespace name:  urn:ietf:params:demo

Syntax:

{grammar}

Examples:

      urn:ietf:params:demo:report:7
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_sub_namespace_example_is_recast_at_its_prefix_when_the_grammar_agrees(fmt):
    result = imported(SUB_NAMESPACE.format(grammar='   NSS = kind ":" 1*DIGIT\n   kind = 1*ALPHA'), fmt)
    assert result.data.snid == "demo" and result.data.examples.valid == ["urn:ogf:demo:report:7"]
    item = example(result, "urn:ogf:demo:report:7")
    assert item.status == "found"
    assert item.why == "written urn:ietf:params:demo:report:7, re-cast as an urn:ogf:demo: URN"
    assert (
        "Example URNs of urn:ietf:params:demo: were re-cast as urn:ogf:demo: — check that they still make sense."
        in result.notes
    )


@pytest.mark.parametrize(
    "grammar, doubt",
    [
        (
            '   URN = "urn:ietf:params:demo:" kind ":" 1*DIGIT\n   kind = 1*ALPHA',
            "the grammar, rebased onto urn:ogf:, does not accept it so re-cast",
        ),  # rebased to urn:ogf:demo:params:demo:
        ("   The names are a kind and a number.", "no grammar could confirm the re-cast form"),
    ],
)
def test_a_sub_namespace_example_the_grammar_does_not_confirm_is_recast_uncertain(grammar, doubt):
    result = document_import(SUB_NAMESPACE.format(grammar=grammar))
    assert result.data.examples.valid == ["urn:ogf:demo:report:7"]
    item = example(result, "urn:ogf:demo:report:7")
    assert item.status == "uncertain" and item.why == (
        "written urn:ietf:params:demo:report:7, re-cast as an urn:ogf:demo: URN by cutting the sub-namespace "
        f"urn:ietf:params:demo:; {doubt}: check which form is meant"
    )


# --- PDF text laid out as printed -------------------------------------------------------------------


@pytest.mark.parametrize("columns", [1, 2])
def test_pdf_text_keeps_the_lines_indentation_and_blank_lines(columns):
    """Indentation typeset as a position (no spaces in the PDF) comes back as spaces."""
    text = "\n".join(
        [
            "Declared registrant of the namespace:",
            "",
            "   Name:         Ada Sample",
            "   Affiliation:  Example Institute for Open Metadata and",
            "                 Archival Science",
            "",
            "      urn:ogf:demo:a:b",
        ]
        * 12
    )
    source, fmt = read_file("registration.pdf", make_pdf(text, columns=columns, positioned=True))
    lines = [line.rstrip() for line in source.replace("\f", "\n").split("\n")]
    expected = [line for line in text.split("\n")]
    assert [line for line in lines if line] == [line for line in expected if line]  # indentation kept
    assert lines[:7] == expected[:7]  # the blank lines too
