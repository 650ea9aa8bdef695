"""The error pages as people meet them with DEBUG off: the site's own pages, in words, never Django's internals."""

import json

import pytest
from django.test import RequestFactory

from registry import urls
from registry.views import errors

from ..factories import proposal_factory, user_factory


@pytest.mark.django_db
def test_not_found_for_an_unknown_address_is_the_sites_page_without_resolver_words(client):
    response = client.get("/no-such-page/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "<title>Not found — urn:ogf registry</title>" in page
    assert "There is no page at this address, or it is not yours to see." in page
    assert "Resolver404" not in page and "Http404" not in page


@pytest.mark.django_db
def test_not_found_keeps_a_views_own_explanation(client):
    page = client.get("/help/nothing/").content.decode()
    assert "There is no such help page." in page


@pytest.mark.django_db
def test_not_found_never_names_a_model_from_get_object_or_404(client):
    client.force_login(user_factory("eve", editor=True))
    response = client.get("/review/999999/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "matches the given query" not in page and "Proposal matches" not in page
    assert "There is no page at this address, or it is not yours to see." in page


@pytest.mark.django_db
def test_not_found_of_a_draft_to_a_stranger_says_nothing_of_it(client):
    proposal = proposal_factory(user_factory("ann"))
    client.force_login(user_factory("other"))
    page = client.get(f"/proposals/{proposal.pk}/").content.decode()
    assert "No such proposal." in page and proposal.title not in page


def test_server_error_is_the_sites_page_rendered_without_the_request():
    assert urls.handler500 == "registry.views.errors.server_error"
    response = errors.server_error(RequestFactory().get("/urn/example/"))
    page = response.content.decode()
    assert response.status_code == 500
    assert "<title>Server error — urn:ogf registry</title>" in page
    assert "Something went wrong on our side" in page and "Try again in a moment" in page
    assert "Log in" in page and "Traceback" not in page  # the header's links, nothing from the failure


def test_server_error_under_the_api_is_json():
    response = errors.server_error(RequestFactory().get("/api/lookup/"))
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert "logged" in json.loads(response.content)["detail"]
