"""registry/fairshare.py: heavy requests are limited per account and per process with a clear
429 and Retry-After (HTML for pages, JSON for the API); pages and lookups are never limited."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from registry.fairshare import is_heavy, slots

from .factories import proposal_factory, user_factory
from .faults.conftest import request as http_request

CSRF = "c" * 32


def _form(proposal) -> dict:
    from registry.forms import ProposalForm

    initial = ProposalForm.initial_from(proposal.to_data())
    return {key: value for key, value in initial.items() if value is not None}


@pytest.mark.parametrize(
    ("method", "path", "heavy"),
    [
        ("POST", "/proposals/12/check/", True),
        ("POST", "/proposals/12/edit/", True),
        ("POST", "/proposals/new/", True),
        ("POST", "/proposals/import/", True),
        ("POST", "/proposals/import/create/", True),
        ("POST", "/review/12/decide/", True),
        ("POST", "/api/proposals/", True),
        ("PATCH", "/api/proposals/12/", True),
        ("POST", "/api/proposals/12/actions/submit/", True),
        ("GET", "/proposals/12/edit/", False),
        ("GET", "/urn/", False),
        ("GET", "/api/lookup/", False),
        ("POST", "/api/validate/", False),
    ],
)
def test_heavy_requests_are_the_checks_imports_saves_and_decisions(rf, method, path, heavy):
    assert is_heavy(getattr(rf, method.lower())(path)) is heavy


@pytest.mark.django_db
def test_an_account_past_its_heavy_limit_gets_a_429_page_with_retry_after(client, settings):
    settings.REGISTRY_HEAVY_PER_ACCOUNT, settings.REGISTRY_HEAVY_PER_PROCESS = 2, 10
    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    with slots.hold(f"account:{proposal.submitter.pk}", 2, 10), slots.hold(f"account:{proposal.submitter.pk}", 2, 10):
        response = client.post(f"/proposals/{proposal.pk}/check/", _form(proposal))
        assert response.status_code == 429 and response["Retry-After"] == "5"
        assert b"You already have 2 checks, imports or saves in progress" in response.content
        assert b"<html" in response.content
        # Another account and public pages are served meanwhile.
        other = proposal_factory()
        client.force_login(other.submitter)
        assert client.post(f"/proposals/{other.pk}/check/", _form(other)).status_code == 200
        assert client.get("/urn/").status_code == 200
    client.force_login(proposal.submitter)
    assert client.post(f"/proposals/{proposal.pk}/check/", _form(proposal)).status_code == 200


@pytest.mark.django_db
def test_the_api_answers_429_as_json(client, settings):
    settings.REGISTRY_HEAVY_PER_ACCOUNT, settings.REGISTRY_HEAVY_PER_PROCESS = 1, 10
    user = user_factory()
    client.force_login(user)
    with slots.hold(f"account:{user.pk}", 1, 10):
        response = client.post("/api/proposals/", data="{}", content_type="application/json")
    assert response.status_code == 429 and response["Retry-After"] == "5"
    assert json.loads(response.content)["detail"].startswith("You already have 1 checks")


@pytest.mark.django_db
def test_a_process_full_of_heavy_requests_refuses_more_but_serves_pages(client, settings):
    settings.REGISTRY_HEAVY_PER_ACCOUNT, settings.REGISTRY_HEAVY_PER_PROCESS = 2, 1
    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    with slots.hold("account:someone-else", 2, 1):
        response = client.post(f"/proposals/{proposal.pk}/check/", _form(proposal))
        assert response.status_code == 429
        assert b"The registry is busy checking other people" in response.content
        assert client.get(f"/proposals/{proposal.pk}/").status_code == 200
        assert client.get("/api/lookup/?urn=urn:ogf:example:x").status_code == 200
    assert slots.in_progress == 0


@pytest.mark.django_db(transaction=True)
def test_one_account_flooding_checks_does_not_hold_up_pages_and_lookups(live_server, settings, client):
    settings.REGISTRY_HEAVY_PER_ACCOUNT, settings.REGISTRY_HEAVY_PER_PROCESS = 2, 4
    settings.REGISTRY_ANON_RATE = "off"
    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    auth = {"Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF}", "X-CSRFToken": CSRF}
    form = _form(proposal)
    form["grammar_abnf"] = 'a = *(*"x" *"x" *"x") "y"\n'  # a second of CPU for the reference parser
    form["examples_valid"] = "urn:ogf:example:" + "x" * 150 + "z"
    url = live_server.url
    with ThreadPoolExecutor(16) as pool:
        checks = [
            pool.submit(http_request, url, "POST", f"/proposals/{proposal.pk}/check/", form, auth) for _ in range(12)
        ]
        public = [
            pool.submit(http_request, url, "GET", path)
            for _ in range(4)
            for path in ("/urn/", "/api/lookup/?urn=urn:ogf:example:x")
        ]
        checked = [future.result() for future in checks]
        served = [future.result() for future in public]
    statuses = sorted(answer.status for answer in checked)
    assert set(statuses) == {200, 429}, statuses  # never a 500; past two at once, 429
    assert all(a.headers.get("Retry-After") == "5" for a in checked if a.status == 429)
    assert [a.status for a in served] == [200] * len(served)
    assert max(a.seconds for a in served) < 2


# --- a refused save keeps what was typed --------------------------------------------------------


@pytest.mark.django_db
def test_a_refused_save_shows_the_edit_form_again_with_the_typed_text(client, settings):
    from registry.models import Proposal

    settings.REGISTRY_HEAVY_PER_ACCOUNT, settings.REGISTRY_HEAVY_PER_PROCESS = 1, 10
    proposal = proposal_factory()
    before = Proposal.objects.get(pk=proposal.pk).sections
    client.force_login(proposal.submitter)
    form = {**_form(proposal), "section_scope": "Typed while the registry was busy.", "intent": "save"}
    with slots.hold(f"account:{proposal.submitter.pk}", 1, 10):
        response = client.post(f"/proposals/{proposal.pk}/edit/", form)
    page = response.content.decode()
    assert (response.status_code, response["Retry-After"]) == (429, "5")
    assert "You already have 1 checks, imports or saves in progress" in page
    assert "everything you typed is kept below" in page
    assert 'id="proposal-form"' in page and "Typed while the registry was busy." in page
    assert "Not checked: the registry was too busy to check this request" in page and "Checked at" not in page
    assert Proposal.objects.get(pk=proposal.pk).sections == before  # nothing saved
    # Sent again once the registry has room: saved.
    assert client.post(f"/proposals/{proposal.pk}/edit/", form).status_code == 302
    assert Proposal.objects.get(pk=proposal.pk).sections["scope"] == "Typed while the registry was busy."


@pytest.mark.django_db
def test_a_refused_new_proposal_shows_its_form_again(client, settings):
    from registry.models import Proposal

    settings.REGISTRY_HEAVY_PER_ACCOUNT, settings.REGISTRY_HEAVY_PER_PROCESS = 2, 1
    user = user_factory()
    client.force_login(user)
    with slots.hold("account:someone-else", 2, 1):
        response = client.post("/proposals/new/", {"start": "blank", "snid": "typed-while-busy"})
    page = response.content.decode()
    assert (response.status_code, response["Retry-After"]) == (429, "5")
    assert "The registry is busy checking other people" in page and 'value="typed-while-busy"' in page
    assert not Proposal.objects.filter(submitter=user).exists()


@pytest.mark.django_db
def test_a_refused_import_create_shows_the_review_form_again_with_the_corrections(client, settings):
    import io

    from registry.models import Proposal

    settings.REGISTRY_HEAVY_PER_ACCOUNT, settings.REGISTRY_HEAVY_PER_PROCESS = 1, 10
    user = user_factory()
    client.force_login(user)
    upload = io.BytesIO(b"1. Namespace Identifier\n\nThe SNID is typed-import.\n\nurn:ogf:typed-import:a\n")
    upload.name = "registration.txt"
    review = client.post("/proposals/import/", {"file": upload})
    assert review.status_code == 200
    form = review.context["form"]
    fields = {name: ("" if form[name].value() is None else form[name].value()) for name in form.fields}
    fields.update(title="Corrected while busy", confirmed="on")
    with slots.hold(f"account:{user.pk}", 1, 10):
        response = client.post("/proposals/import/create/", fields)
    page = response.content.decode()
    assert (response.status_code, response["Retry-After"]) == (429, "5")
    assert "everything you typed is kept below" in page and 'value="Corrected while busy"' in page
    assert "Create draft" in page and "The SNID is typed-import." in page  # the source, for the next try
    assert not Proposal.objects.filter(submitter=user).exists()
    kept = response.context["form"]
    again = {name: ("" if kept[name].value() is None else kept[name].value()) for name in kept.fields}
    again["confirmed"] = "on"
    assert client.post("/proposals/import/create/", again).status_code == 302
    assert Proposal.objects.get(submitter=user).title == "Corrected while busy"
