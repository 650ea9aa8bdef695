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
