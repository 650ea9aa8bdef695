"""The first pages: who may see what."""

import pytest

from ..factories import proposal_factory, user_factory


@pytest.mark.django_db
def test_registry_list_shows_only_registered_snids(client):
    proposal_factory(state="approved")
    proposal_factory(state="submitted", snid="pending-one")
    page = client.get("/urn/")
    assert page.status_code == 200
    assert b"urn:ogf:example:" in page.content
    assert b"pending-one" not in page.content


@pytest.mark.django_db
def test_snid_page_is_case_insensitive_and_redirects_to_canonical_case(client):
    proposal_factory(state="approved")
    assert client.get("/urn/example/").status_code == 200
    response = client.get("/urn/EXAMPLE/")
    assert (response.status_code, response["Location"]) == (301, "/urn/example/")
    assert client.get("/urn/unknown/").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(("who", "status"), [("anonymous", 404), ("submitter", 200), ("other", 404), ("editor", 200)])
def test_draft_is_visible_only_to_submitter_and_editors(client, who, status):
    proposal = proposal_factory(title="Secret draft title")
    users = {"submitter": proposal.submitter, "other": user_factory(), "editor": user_factory(editor=True)}
    if who in users:
        client.force_login(users[who])
    response = client.get(f"/proposals/{proposal.pk}/")
    assert response.status_code == status
    assert (b"Secret draft title" in response.content) is (status == 200)


@pytest.mark.django_db
def test_approved_proposal_is_public(client):
    proposal = proposal_factory(state="approved")
    assert client.get(f"/proposals/{proposal.pk}/").status_code == 200


@pytest.mark.django_db
def test_get_changes_nothing(client, django_assert_num_queries):
    from registry.models import Proposal, ProposalEvent

    proposal = proposal_factory(state="submitted")
    client.force_login(proposal.submitter)
    before = (list(Proposal.objects.values()), ProposalEvent.objects.count())
    client.get(f"/proposals/{proposal.pk}/")
    client.get("/urn/")
    assert (list(Proposal.objects.values()), ProposalEvent.objects.count()) == before
