"""The proposal interchange format: validation messages and lossless round trips."""

import pytest

from registry import interchange

from .factories import demo_raw


@pytest.mark.parametrize("name", ["example", "fdc", "img", "newsml", "urn-5"])
def test_demo_files_load_and_dump_back_unchanged(name):
    raw = demo_raw(name)
    # Files written before document.type existed still load; the key is written back empty.
    expected = {**raw, "document": {"type": "", **raw["document"]}}
    assert interchange.dump(interchange.load(raw)) == expected


def test_document_type_is_one_of_the_gfd_types():
    data = interchange.load({"snid": "a", "document": {"type": "community practice"}})
    assert data.document.type == "Community Practice"
    assert interchange.load({"snid": "a", "document": {"type": ""}}).document.type == ""


def test_document_type_free_text_is_refused_with_the_list():
    with pytest.raises(interchange.InterchangeError) as caught:
        interchange.load({"snid": "a", "document": {"type": "Standard"}})
    assert caught.value.errors == [
        "document.type: 'Standard' is not a GFD type; use one of Informational, Experimental, "
        "Community Practice, Recommendation (or leave it empty)."
    ]


def test_document_type_written_as_status_is_refused_with_a_hint():
    with pytest.raises(interchange.InterchangeError) as caught:
        interchange.load({"snid": "a", "document": {"status": "Informational"}})
    assert caught.value.errors == [
        "document.status: must be one of draft, in-review, published (or empty) ('Informational' is "
        "a document type: put it in document.type)."
    ]


def test_old_file_without_document_type_imports():
    data = interchange.load({"snid": "a", "document": {"reference": "GFD.1", "url": "", "status": "draft"}})
    assert (data.document.reference, data.document.status, data.document.type) == ("GFD.1", "draft", "")


def test_missing_optional_keys_take_defaults():
    data = interchange.load({"snid": "minimal"})
    assert (data.version, data.registration_date, data.sections, data.equivalence, data.max_length) == (
        1,
        None,
        {},
        [],
        None,
    )
    assert data.examples == interchange.Examples()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": "blue"}, "colour: is not a known key"),
        ({"version": "2"}, "version: must be a whole number"),
        ({"version": True}, "version: must be a whole number"),
        ({"version": 0}, "version: must be a whole number"),
        ({"version": 10**20}, "version: must be a whole number from 1 to 100,000"),
        ({"title": None}, "title: must be a string, not null"),
        ({"registration_date": "yesterday"}, "registration_date: 'yesterday' is not an ISO date"),
        ({"registrant": "me"}, "registrant: must be an object, not a string"),
        ({"registrant": {"phone": "1"}}, "registrant.phone: is not a known key"),
        ({"document": {"status": "final"}}, "document.status: must be one of"),
        ({"document": {"url": "javascript:alert(1)"}}, "document.url: must be an http"),
        ({"sections": {"scoop": "x"}}, "sections.scoop: is not a known key"),
        ({"sections": {"scope": 7}}, "sections.scope: must be a string, not a number"),
        ({"sections": {"scope": "x" * 100_001}}, "sections.scope: is 100,001 characters long"),
        ({"grammar": {"abnf": ["a"]}}, "grammar.abnf: must be a string, not a list"),
        ({"examples": {"valid": "urn:ogf:x:y"}}, "examples.valid: must be a list of strings"),
        ({"examples": {"valid": [1]}}, "examples.valid[0]: must be a string"),
        ({"examples": {"equivalent": [["urn:ogf:a:b"]]}}, "examples.equivalent[0]: must list at least two"),
        ({"equivalence": ["lowercase"]}, "equivalence: 'lowercase' is not a known normalisation step"),
        ({"max_length": 0}, "max_length: must be a whole number from 1 to 4096"),
        ({"title": "a\x00b"}, "title: must not contain NUL"),
        ({"format": "v2"}, "format: must be"),
    ],
)
def test_invalid_input_is_rejected_naming_the_key(change, message):
    raw = demo_raw("example")
    raw.update(change)
    with pytest.raises(interchange.InterchangeError) as caught:
        interchange.load(raw)
    assert any(error.startswith(message) for error in caught.value.errors), caught.value.errors


def test_snid_is_required_and_every_error_is_listed():
    with pytest.raises(interchange.InterchangeError) as caught:
        interchange.load({"version": -1, "max_length": "x"})
    assert [e.split(":")[0] for e in caught.value.errors] == ["snid", "version", "max_length"]


def test_top_level_must_be_an_object():
    with pytest.raises(interchange.InterchangeError, match="must be a JSON object, not a list"):
        interchange.load([])


def test_equivalence_steps_are_kept_in_vocabulary_order():
    data = interchange.load({"snid": "x", "equivalence": ["case-insensitive", "percent-hex-case-insensitive"]})
    assert data.equivalence == ["case-insensitive", "percent-hex-case-insensitive"]
