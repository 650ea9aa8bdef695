"""An editor's decision through the API rests on what the editor read: the ``seen`` token
(registry/api/decisions.py), tried by the editor who would gain from deciding on something else."""

import pytest

from registry import services
from registry.api import views as api_views
from registry.models import Proposal

from ..factories import api_decide, judge_all, proposal_factory, user_factory

SCOPE_NOT_SATISFIED = "Within the OGF's scope: judged not satisfied"  # the note stays in the review


@pytest.fixture
def people(db):
    return {
        "applicant": user_factory("ann"),
        "erin": user_factory("erin", editor=True),
        "ed": user_factory("ed", editor=True),
        "other": user_factory("otto"),
    }


@pytest.fixture
def judged(client, people):
    """A submitted proposal Erin judged satisfied on all four questions, Erin signed in."""
    proposal = proposal_factory(people["applicant"], state="submitted")
    judge_all(proposal, people["erin"])
    client.force_login(people["erin"])
    return proposal


def _basis(client, pk):
    return client.get(f"/api/proposals/{pk}/").json()["decision_basis"]


def _approve(client, pk, seen, **body):
    return client.post(f"/api/proposals/{pk}/actions/approve/", {"seen": seen, **body}, content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize("who", [None, "applicant", "other", "erin"])
def test_decision_basis_is_given_to_editors_only(client, people, who):
    proposal = proposal_factory(people["applicant"], state="submitted")
    if who:
        client.force_login(people[who])
    response = client.get(f"/api/proposals/{proposal.pk}/")
    if who in (None, "other"):
        assert response.status_code in (403, 404)
        return
    basis = response.json()["decision_basis"]
    if who == "applicant":
        assert basis is None
    else:
        assert len(basis["seen"]) == 64
        assert {b["kind"] for b in basis["approval_blockers"]} == {"not-recorded"}  # nothing judged yet
        assert len(basis["approval_blockers"]) == 4


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["approve", "reject", "request_changes"])
def test_decision_without_seen_decides_nothing_and_says_what_to_send(client, people, action, judged):
    proposal = judged
    response = client.post(
        f"/api/proposals/{proposal.pk}/actions/{action}/",
        {"comment": "Please fix.", "override_reason": "x"},
        content_type="application/json",
    )
    assert response.status_code == 400
    body = response.json()
    assert "decision_basis.seen" in body["detail"] and body["decision_basis"]["approval_blockers"] == []
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
    assert _approve(client, proposal.pk, body["decision_basis"]["seen"]).status_code == 200


@pytest.mark.django_db
def test_a_judgement_recorded_after_reading_stops_the_override_it_did_not_see(client, people, judged):
    """Erin reads the proposal (nothing stands in the way), Ed then judges its scope not satisfied;
    Erin's approval with a reason written for what she read must not cover Ed's judgement."""
    proposal = judged
    read = _basis(client, proposal.pk)
    assert read["approval_blockers"] == []
    services.judgement_set(proposal, people["ed"], "scope", ok=False, note="Not a grid identifier.")

    refused = _approve(client, proposal.pk, read["seen"], override_reason="Looks fine to me.")
    assert refused.status_code == 409
    assert "has changed since `seen` was given" in refused.json()["detail"]
    now = refused.json()["decision_basis"]
    assert [b["sentence"] for b in now["approval_blockers"]] == [SCOPE_NOT_SATISFIED]
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"

    approved = _approve(client, proposal.pk, now["seen"], override_reason="The scope is a grid's.")
    assert approved.status_code == 200
    assert [b["sentence"] for b in Proposal.objects.get(pk=proposal.pk).overridden] == [SCOPE_NOT_SATISFIED]


@pytest.mark.django_db
def test_a_proposal_resubmitted_after_reading_needs_reading_again(client, people, judged):
    proposal = judged
    read = _basis(client, proposal.pk)
    services.proposal_transition(proposal, "pull_back", people["applicant"])
    data = proposal.to_data()
    data.title = "Another title, not read by the editor"
    services.proposal_update(Proposal.objects.get(pk=proposal.pk), data, people["applicant"])
    services.proposal_transition(Proposal.objects.get(pk=proposal.pk), "submit", people["applicant"])

    assert _approve(client, proposal.pk, read["seen"]).status_code == 409
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"


@pytest.mark.django_db
def test_one_editors_token_does_not_decide_for_another(client, people, judged):
    proposal = judged
    erins = _basis(client, proposal.pk)["seen"]
    client.force_login(people["ed"])
    assert _approve(client, proposal.pk, erins).status_code == 409
    assert _approve(client, proposal.pk, "0" * 64).status_code == 409
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
    assert api_decide(client, proposal.pk, "approve").status_code == 200


@pytest.mark.django_db
def test_a_decided_proposal_has_no_decision_basis_and_a_second_decision_is_already_decided(client, people, judged):
    proposal = judged
    seen = _basis(client, proposal.pk)["seen"]
    assert _approve(client, proposal.pk, seen).status_code == 200
    assert _basis(client, proposal.pk) is None
    again = _approve(client, proposal.pk, seen)
    assert again.status_code == 409 and "already approved" in again.json()["detail"]


def _applicant_resubmits(proposal, applicant, title: str | None = None) -> None:
    """The applicant's side of a race: pull back (when submitted), edit, submit again."""
    if Proposal.objects.get(pk=proposal.pk).state == "submitted":
        services.proposal_transition(Proposal.objects.get(pk=proposal.pk), "pull_back", applicant)
    if title is not None:
        data = proposal.to_data()
        data.title = title
        services.proposal_update(Proposal.objects.get(pk=proposal.pk), data, applicant)
    services.proposal_transition(Proposal.objects.get(pk=proposal.pk), "submit", applicant)


@pytest.mark.django_db
def test_a_text_changed_between_the_token_check_and_the_lock_is_not_decided(client, people, judged, monkeypatch):
    """The token is compared before the service locks the row: an applicant who resubmits another text in
    between (same blockers: none) must not have it approved unread. The service compares, under the lock,
    the proposal the token covered."""
    proposal = judged
    seen = _basis(client, proposal.pk)["seen"]
    checked = api_views.decision_seen

    def then_the_applicant_resubmits(*args):
        answer = checked(*args)
        _applicant_resubmits(proposal, people["applicant"], title="Another text, never read")
        return answer

    monkeypatch.setattr(api_views, "decision_seen", then_the_applicant_resubmits)
    refused = _approve(client, proposal.pk, seen)
    assert refused.status_code == 409 and "was changed" in refused.json()["detail"]
    assert refused.json()["decision_basis"]["seen"] != seen
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"


@pytest.mark.django_db
def test_a_proposal_read_as_sent_back_and_resubmitted_before_the_lock_is_not_decided(client, people, monkeypatch):
    """Read while changes were requested (no token to send), resubmitted before the service locks it: the
    approval must not go through without the editor having seen the new round."""
    proposal = proposal_factory(people["applicant"], state="changes_requested", editor=people["ed"])
    judge_all(proposal, people["ed"], ok=False)
    checked = api_views.decision_seen

    def then_the_applicant_resubmits(*args):
        answer = checked(*args)
        _applicant_resubmits(proposal, people["applicant"])
        return answer

    monkeypatch.setattr(api_views, "decision_seen", then_the_applicant_resubmits)
    client.force_login(people["erin"])
    refused = _approve(client, proposal.pk, "", override_reason="Fine.")
    assert refused.status_code == 409
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"


@pytest.mark.django_db
def test_an_editors_own_proposal_has_no_basis_and_is_refused_as_theirs(client, people):
    proposal = proposal_factory(people["erin"], state="submitted")
    client.force_login(people["erin"])
    assert _basis(client, proposal.pk) is None
    refused = _approve(client, proposal.pk, "", override_reason="Mine.")
    assert refused.status_code == 403 and "cannot decide on their own" in refused.json()["detail"]
