"""Size limits by construction: every field, the whole proposal, request bodies and event copies."""

from __future__ import annotations

import pytest

from registry import bodylimits, interchange, services
from registry.conversation import round_changes, submitted_content
from registry.enums import ProposalAction
from registry.forms import ProposalForm
from registry.gfd191 import SECTIONS
from tests.factories import demo_raw, proposal_factory


def _form_data(proposal, **fields) -> dict:
    data = ProposalForm.initial_from(proposal.to_data())
    data = {key: value for key, value in data.items() if value is not None}
    data.update(fields)
    return data


# --- interchange (API, import, forms) ----------------------------------------------------------


def test_too_many_equivalence_groups_are_refused_naming_the_limit():
    raw = demo_raw("example")
    group = ["urn:ogf:example:a", "urn:ogf:example:A"]
    raw["examples"]["equivalent"] = [group] * (interchange.MAX_EQUIVALENT_GROUPS + 1)
    with pytest.raises(interchange.InterchangeError) as error:
        interchange.load(raw)
    assert f"the limit is {interchange.MAX_EQUIVALENT_GROUPS:,}" in str(error.value)


def test_too_large_equivalence_group_is_refused_naming_the_limit():
    raw = demo_raw("example")
    raw["examples"]["equivalent"] = [["urn:ogf:example:a"] * (interchange.MAX_GROUP_URNS + 1)]
    with pytest.raises(interchange.InterchangeError) as error:
        interchange.load(raw)
    assert f"examples.equivalent[0]: has {interchange.MAX_GROUP_URNS + 1} URNs" in str(error.value)


def test_example_lists_have_a_total_limit():
    raw = demo_raw("example")
    raw["examples"]["valid"] = ["urn:ogf:example:" + "a" * 4000] * 60  # 240,960 characters
    with pytest.raises(interchange.InterchangeError) as error:
        interchange.load(raw)
    assert f"the limit is {interchange.MAX_EXAMPLES_CHARS:,}" in str(error.value)


def test_whole_proposal_has_a_total_limit():
    raw = demo_raw("example")
    keys = list(raw["sections"])[:12]
    raw["sections"] = {key: "x" * 90_000 for key in keys}  # 1,080,000 characters
    with pytest.raises(interchange.InterchangeError) as error:
        interchange.load(raw)
    assert f"the limit for one proposal is {interchange.MAX_PROPOSAL_CHARS:,}" in str(error.value)


# --- the form: refused before parsing, never echoed whole --------------------------------------


@pytest.mark.django_db
def test_oversized_examples_field_is_refused_and_not_echoed(client):
    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    huge = "urn:ogf:example:a\n" * 60_000  # 1,080,000 characters in one field
    response = client.post(f"/proposals/{proposal.pk}/edit/", _form_data(proposal, examples_valid=huge))
    page = response.content.decode()
    assert response.status_code in (200, 400)
    assert "This field was 1,080,000 characters long; the limit is" in page
    # At most the field's limit is shown back (and one row per example read, up to MAX_EXAMPLES).
    assert page.count("urn:ogf:example:a\n") <= interchange.MAX_EXAMPLES_CHARS // 18 + interchange.MAX_EXAMPLES
    assert len(page) < 1_500_000
    proposal.refresh_from_db()
    assert len(proposal.examples_valid) < 10  # nothing cut was saved


@pytest.mark.django_db
def test_check_without_saving_of_an_oversized_field_answers_briefly(client):
    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    huge = "urn:ogf:example:" + "b" * 4000 + "\n"
    response = client.post(f"/proposals/{proposal.pk}/check/", _form_data(proposal, examples_equivalent=huge * 300))
    page = response.content.decode()
    assert "the limit is" in page
    assert len(page) < 1_500_000


@pytest.mark.django_db
def test_form_refuses_a_proposal_over_the_total_limit(client):
    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    sections = {f"section_{key}": "y" * 95_000 for key in list(proposal.sections)[:11]}
    response = client.post(f"/proposals/{proposal.pk}/edit/", _form_data(proposal, **sections))
    assert f"the limit for one proposal is {interchange.MAX_PROPOSAL_CHARS:,}" in response.content.decode()


# --- request bodies ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_api_body_over_its_limit_is_json_413_before_reading(client):
    length = bodylimits.body_limit("/api/validate/") + 1
    response = client.post("/api/validate/", b"{}", content_type="application/json", CONTENT_LENGTH=str(length))
    assert response.status_code == 413
    assert response["Content-Type"].startswith("application/json")
    assert "the limit here is" in response.json()["detail"]


@pytest.mark.django_db
def test_form_body_over_its_limit_is_413_for_people(client):
    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    length = bodylimits.PROPOSAL_BODY_MAX + 1
    response = client.post(f"/proposals/{proposal.pk}/check/", {"snid": "x"}, CONTENT_LENGTH=str(length))
    assert response.status_code == 413
    assert "too large" in response.content.decode() and len(response.content) < 2_000


@pytest.mark.django_db
def test_sign_in_body_has_the_small_default_limit(client):
    response = client.post("/accounts/login/", {"username": "x"}, CONTENT_LENGTH=str(bodylimits.DEFAULT_BODY_MAX + 1))
    assert response.status_code == 413


def test_every_path_has_a_limit_no_larger_than_bulk_validation(settings):
    for path in (
        "/",
        "/proposals/1/edit/",
        "/proposals/import/",
        "/api/proposals/",
        "/review/1/decide/",
        "/accounts/login/",
        "/api/lookup/",
    ):
        assert 0 < bodylimits.body_limit(path) <= max(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, bodylimits.IMPORT_BODY_MAX)


# --- event copies ------------------------------------------------------------------------------


def _cycle(proposal, change=None):
    submitter = proposal.submitter
    proposal = services.proposal_transition(proposal, ProposalAction.PULL_BACK, submitter)
    if change is not None:
        data = proposal.to_data()
        change(data)
        proposal = services.proposal_update(proposal, data, submitter)
    return services.proposal_transition(proposal, ProposalAction.SUBMIT, submitter)


def _submits(proposal):
    return list(proposal.events.filter(action=ProposalAction.SUBMIT).order_by("created_at", "id"))


@pytest.mark.django_db
def test_resubmitting_unchanged_text_keeps_no_second_copy():
    proposal = _cycle(proposal_factory(state="submitted"))
    first, second = _submits(proposal)
    assert "content" in first.data and "content" not in second.data
    assert second.data["content_changes"] == {} and second.data["content_base"] == first.pk
    assert second.data["content_sha256"] == first.data["content_sha256"]
    assert submitted_content(second) == first.data["content"]
    changes = round_changes(proposal)
    assert changes is not None and changes.changed == []


@pytest.mark.django_db
def test_resubmitting_changed_text_keeps_only_what_changed():
    proposal = proposal_factory(state="submitted")
    big = "z" * 90_000
    proposal = _cycle(proposal, lambda data: data.sections.update(scope=big))
    proposal = _cycle(proposal, lambda data: setattr(data, "title", "A new title"))
    first, second, third = _submits(proposal)
    assert second.data["content_changes"] == {"sections": {"scope": big}}
    assert third.data["content_changes"] == {"title": "A new title"}  # the 90,000 characters are not copied again
    rebuilt = submitted_content(third)
    assert rebuilt["title"] == "A new title" and rebuilt["sections"]["scope"] == big
    assert rebuilt == interchange.dump(proposal.to_data())
    assert round_changes(proposal).number == 3


@pytest.mark.django_db
def test_a_removed_section_is_rebuilt_removed():
    proposal = proposal_factory(state="submitted")
    optional = {section.key for section in SECTIONS if not section.required}
    key = next(key for key in proposal.sections if key in optional)
    proposal = _cycle(proposal, lambda data: data.sections.pop(key))
    second = _submits(proposal)[-1]
    assert second.data["content_removed"] == [f"sections.{key}"]
    assert key not in submitted_content(second)["sections"]


@pytest.mark.django_db
def test_a_refused_body_still_carries_the_security_headers(client):
    response = client.post("/accounts/login/", {"username": "x"}, CONTENT_LENGTH=str(bodylimits.DEFAULT_BODY_MAX + 1))
    assert response.status_code == 413 and "default-src 'self'" in response["Content-Security-Policy"]
