"""The admin is read-mostly: nothing recorded can be changed or deleted through it."""

import pytest

from registry.models import Proposal

from .factories import proposal_factory, user_factory


@pytest.fixture
def superuser(db):
    user = user_factory("root")
    user.is_staff = user.is_superuser = True
    user.save()
    return user


@pytest.mark.django_db
def test_admin_cannot_change_or_delete_an_approved_proposal(client, superuser):
    proposal = proposal_factory(state="approved")
    client.force_login(superuser)
    page = client.get(f"/admin/registry/proposal/{proposal.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    response = client.post(f"/admin/registry/proposal/{proposal.pk}/change/", {"title": "changed"})
    assert response.status_code == 403
    assert client.post(f"/admin/registry/proposal/{proposal.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Proposal.objects.get(pk=proposal.pk).title == proposal.title


@pytest.mark.django_db
@pytest.mark.parametrize("model", ["proposal", "namespace", "proposalevent", "comment", "reservationrequest",
                                   "judgement"])
def test_admin_lists_every_model_and_adds_none(client, superuser, model):
    proposal_factory(state="approved")
    client.force_login(superuser)
    assert client.get(f"/admin/registry/{model}/").status_code == 200
    assert client.get(f"/admin/registry/{model}/add/").status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize("state", ["draft", "submitted", "approved"])
def test_admin_refuses_every_write_with_403_never_500(client, superuser, state):
    from registry.models import Comment, ProposalEvent, ReservationRequest

    proposal = proposal_factory(state=state)
    Comment.objects.create(proposal=proposal, author=proposal.submitter, text="a comment")
    ReservationRequest.objects.create(snid="wanted", requester=proposal.submitter, reason="a reason")
    client.force_login(superuser)
    objects = [("namespace", proposal.namespace), ("proposal", proposal),
               ("proposalevent", ProposalEvent.objects.filter(proposal=proposal).first()),
               ("comment", Comment.objects.first()), ("reservationrequest", ReservationRequest.objects.first())]
    for model, obj in objects:
        if obj is None:
            continue
        change = f"/admin/registry/{model}/{obj.pk}/change/"
        assert client.get(change).status_code == 200  # shown, read-only
        assert client.post(change, {"comment": "rewritten", "_save": "Save"}).status_code == 403, model
        assert client.post(f"/admin/registry/{model}/{obj.pk}/delete/", {"post": "yes"}).status_code == 403
        assert client.post(f"/admin/registry/{model}/", {"action": "delete_selected",
                                                          "_selected_action": [obj.pk]}).status_code in (200, 302)
    assert ProposalEvent.objects.filter(proposal=proposal, comment="rewritten").count() == 0


@pytest.mark.django_db
def test_admin_pages_are_titled_for_the_registry_not_django(client, superuser):
    client.force_login(superuser)
    page = client.get("/admin/").content.decode()
    assert "<title>Site administration | urn:ogf registry admin</title>" in page and "Django site admin" not in page
