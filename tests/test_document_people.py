"""People and organisations as a reader takes them, from registrant blocks written for these tests:
continuation lines of a value joined, the person in ``attn:`` or ``c/o``, a position separated from the person
the next sentence names, and a sentence about an expert or a list that names no one (left empty,
and said so). Every reading that is a guess is flagged. Imported as text, PDF and Word."""

from __future__ import annotations

import pytest

from .test_document_shapes import FORMATS, assert_nothing_found_that_is_not_said, imported

SHAPES = {
    # name: (block, (name, organisation, e-mail, address), fields flagged, a phrase of the name's flag)
    "organisation-wrapped-at-its-label": (
        "   Name:  Ada Sample\n   Organization:  Example Broadcasting Standards\n   Committee of the Americas\n"
        "   Email:  ada@example.org\n",
        ("Ada Sample", "Example Broadcasting Standards Committee of the Americas", "ada@example.org", ""),
        {"organisation"},
    ),
    "organisation-wrapped-after-a-preposition": (
        "   Registering organization:\n      Example Institute for Open\n      Metadata Standards\n"
        "      1 Example Road\n      Example City\n   Designated contact:\n      Name: Ada Sample\n"
        "      Email: ada@example.org\n",
        (
            "Ada Sample",
            "Example Institute for Open Metadata Standards",
            "ada@example.org",
            "1 Example Road\nExample City",
        ),
        {"organisation", "address"},
    ),
    "name-a-role-attn-a-person": (
        "   Name:  Registry Services Administrator (attn: Kim Sample)\n   Organization:  Example Standards Bureau\n"
        "   Email:  kim@example.org\n",
        ("Kim Sample", "Example Standards Bureau", "kim@example.org", ""),
        {"name"},
    ),
    "name-a-role-attn-wrapped": (
        "   Name:  The Example Registry Services Administrator (attn:\n      Kim Q. Sample)\n"
        "   Email:  kim@example.org\n",
        ("Kim Q. Sample", "", "kim@example.org", ""),
        {"name"},
    ),
    "name-an-office-c/o-a-person": (
        "   Name:  Example Standards Office c/o Kim Q. Sample\n   Email:  kim@example.org\n",
        ("Kim Q. Sample", "Example Standards Office", "kim@example.org", ""),
        {"name", "organisation"},
    ),
    "c/o-line-above-the-street": (
        "      Example Standards Office\n      c/o Kim Q. Sample\n      1 Example Road\n      Example City\n",
        ("Kim Q. Sample", "Example Standards Office", "", "c/o Kim Q. Sample\n1 Example Road\nExample City"),
        {"name", "organisation", "address"},
    ),
    "position-then-the-sentence-naming-its-holder": (
        "   Name:  Example Metadata Project Lead\n      The current lead is Sam Sample (sam@example.org).\n",
        ("Sam Sample", "", "sam@example.org", ""),
        {"name"},
    ),
    "position-then-holder-in-one-value": (
        "   Contact:  The Example Working Group Chair.  The chair is\n      currently Sam Sample, sam@example.org.\n",
        ("Sam Sample", "", "sam@example.org", ""),
        {"name"},
    ),
    "position-and-holder-unlabelled": (
        "      Example Metadata Project Lead\n      Sam Sample holds this position.\n      sam@example.org\n",
        ("Sam Sample", "", "sam@example.org", ""),
        {"name"},
    ),
    "designated-expert": (
        "   Registering organization:  Example Forum\n"
        "   Designated contact:  Designated experts appointed by the forum,\n"
        "      via demo-experts@example.org.\n",
        ("", "Example Forum", "demo-experts@example.org", ""),
        set(),
    ),
    "a-mailing-list": (
        "   Registering organization:  Example Forum\n   Contact:  The Example Demo mailing list <demo@example.org>\n",
        ("", "Example Forum", "demo@example.org", ""),
        set(),
    ),
}

WHY = {
    "organisation-wrapped-at-its-label": (
        "organisation",
        "line 7 ('Committee of the Americas') was read as the second half of the name; "
        "the other reading is 'Example Broadcasting Standards'",
    ),
    "name-a-role-attn-a-person": (
        "name",
        "the person named for the attention of 'Registry Services Administrator'; the other reading is "
        "'Registry Services Administrator (attn: Kim Sample)'",
    ),
    "name-an-office-c/o-a-person": (
        "organisation",
        "cut at 'c/o': the organisation before it, 'Kim Q. Sample' in whose care it is; the other reading "
        "is 'Example Standards Office c/o Kim Q. Sample'",
    ),
    "c/o-line-above-the-street": ("name", "read from the address's c/o line: the person in whose care it is"),
    "position-then-the-sentence-naming-its-holder": (
        "name",
        "read from a sentence: the person named after the role title 'Example Metadata Project Lead'; the other "
        "reading is 'Example Metadata Project Lead The current lead is Sam Sample (sam@example.org).'",
    ),
    "designated-expert": (
        "name",
        "a designated expert is described, not a person named ('Designated experts appointed by the forum, via "
        "demo-experts@example.org.', line 6): fill in a person",
    ),
    "a-mailing-list": (
        "name",
        "a mailing list is given, not a person ('The Example Demo mailing list <demo@example.org>', line 6): fill in a "
        "person",
    ),
}


def _import(shape: str, fmt: str = "text"):
    return imported("Namespace ID:  demo\n\nDeclared registrant of the namespace:\n\n" + SHAPES[shape][0], fmt)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_registrant_read_as_a_reader_takes_it(shape, fmt):
    _, (name, organisation, email, address), flagged = SHAPES[shape]
    result = _import(shape, fmt)
    r = result.data.registrant
    assert (r.name, r.organisation, r.email, r.address) == (name, organisation, email, address)
    for key in ("name", "organisation", "email", "address"):
        item = result.report.item(f"registrant.{key}")
        if item.value:
            assert (item.status == "uncertain") == (key in flagged), item
    assert_nothing_found_that_is_not_said(
        result,
        {"registrant.name": name, "registrant.organisation": organisation, "registrant.email": email},
    )


@pytest.mark.parametrize("shape", list(WHY))
def test_each_guess_says_why_and_shows_the_other_reading(shape):
    key, why = WHY[shape]
    assert _import(shape).report.item(f"registrant.{key}").why == why


@pytest.mark.parametrize("shape", ["designated-expert", "a-mailing-list"])
def test_a_contact_that_names_no_one_is_left_empty_and_said_so(shape):
    result = _import(shape)
    item = result.report.item("registrant.name")
    assert (item.value, item.status) == ("", "not found") and item.lines  # the report points at what was written
    assert any(note.startswith("The registrant section names no one:") for note in result.notes)


def test_a_position_is_never_the_organisation():
    result = _import("position-then-the-sentence-naming-its-holder")
    assert result.data.registrant.organisation == ""
    assert any("'Example Metadata Project Lead'" in note and "not copied" in note for note in result.notes)


def test_a_company_in_whose_care_mail_goes_is_not_a_person():
    """ "c/o Alliances Management" reads like a name but is written as none (no initial): it stays an
    address line, and in a value it is cut from the organisation without becoming the contact."""
    block = "      Example Standards Office\n      c/o Example Management\n      1 Example Road\n"
    result = imported("Namespace ID:  demo\n\nDeclared registrant of the namespace:\n\n" + block, "text")
    r = result.data.registrant
    assert (r.name, r.organisation) == ("", "Example Standards Office")
    assert r.address == "c/o Example Management\n1 Example Road"
    block = "   Name:  Example Standards Office c/o Example Management\n   Email:  office@example.org\n"
    result = imported("Namespace ID:  demo\n\nDeclared registrant of the namespace:\n\n" + block, "text")
    item = result.report.item("registrant.organisation")
    assert (item.value, item.status) == ("Example Standards Office", "uncertain")
    assert result.data.registrant.name == ""
