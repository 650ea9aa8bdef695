"""The account page (/accounts/): what the registry holds about the signed-in person, their public name and
address (re-confirmed), the JSON download, and closing the account — keeping the public record."""

from __future__ import annotations

import json
import re

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from registry.accounts.models import Account

from ..factories import user_factory

PASSWORD = "pw-for-tests-1"
ORCID_ID = "0000-0002-1825-0097"


@pytest.fixture(autouse=True)
def clean_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def steward(db, make_proposal):
    """An applicant whose proposal was approved (a steward), with an ORCID identity and an API token."""
    proposal = make_proposal(state="approved")
    user = proposal.submitter
    SocialAccount.objects.create(user=user, provider="orcid", uid=ORCID_ID)
    Token.objects.create(user=user)
    make_proposal(user, name="example", snid="second")
    return user


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/accounts/", "/accounts/data.json", "/accounts/close/", "/accounts/name/", "/accounts/address/"]
)
def test_an_anonymous_visitor_is_sent_to_log_in(client, path):
    response = client.get(path) if not path.endswith(("name/", "address/")) else client.post(path, {})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
def test_the_page_shows_name_address_identities_proposals_stewardships_and_roles(client, steward):
    client.force_login(steward)
    page = client.get("/accounts/").content.decode()
    assert steward.get_username() in page and steward.email in page
    assert f"<code>{ORCID_ID}</code>" in page
    assert "<code>urn:ogf:example:</code>" in page and "<code>urn:ogf:second:</code>" in page
    assert "Your stewardships" in page and 'href="/urn/example/stewardship/"' in page
    assert "applicant: you may propose SNIDs" in page  # no role
    assert 'href="/accounts/data.json"' in page and 'href="/accounts/close/"' in page
    assert 'href="/accounts/">Your account</a>' in page  # from the header, on every page


@pytest.mark.django_db
def test_an_editor_sees_the_same_page_for_themselves_with_the_role(client, editor):
    client.force_login(editor)
    page = client.get("/accounts/").content.decode()
    assert "GFD editor: reviews proposals, decides, reserves SNIDs" in page and editor.email in page


@pytest.mark.django_db
def test_the_page_reads_a_bounded_number_of_queries(client, make_proposal, django_assert_max_num_queries):
    user = user_factory("busy")
    for n in range(6):
        make_proposal(user, snid=f"busy{n}")
    client.force_login(user)
    with django_assert_max_num_queries(20):
        assert client.get("/accounts/").status_code == 200


@pytest.mark.django_db
def test_a_public_name_is_changed_and_a_look_alike_refused_with_a_sentence(client):
    alice = user_factory("alice")
    alice.first_name = "Alice Smith"
    alice.save()
    me = user_factory("me")
    client.force_login(me)
    refused = client.post("/accounts/name/", {"public_name": "\u0410lice Smith"})  # Cyrillic А
    assert refused.status_code == 400
    assert "reads like “Alice Smith”, the public name of another person" in refused.content.decode()
    assert client.post("/accounts/name/", {"public_name": "  Maria   Ortega "})["Location"] == "/accounts/"
    me.refresh_from_db()
    assert me.first_name == "Maria Ortega"


@pytest.mark.django_db
def test_a_stewards_new_public_name_goes_through_stewardship_and_the_log(client, steward):
    from registry.transparency.models import LogEntry

    before = LogEntry.objects.count()
    client.force_login(steward)
    client.post("/accounts/name/", {"public_name": "Sam Steward"})
    assert LogEntry.objects.count() == before + 1
    assert "Sam Steward" in LogEntry.objects.order_by("-pk").first().leaf


@pytest.mark.django_db
def test_a_new_address_changes_only_when_its_link_is_followed(client, mailoutbox, django_capture_on_commit_callbacks):
    me = user_factory("me")  # me@example.org
    client.force_login(me)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/accounts/address/", {"email": "new@example.org"})
    assert response["Location"] == "/accounts/"
    me.refresh_from_db()
    assert me.email == "me@example.org"
    assert [(m.subject, m.to) for m in mailoutbox] == [("[urn:ogf] Confirm your new address", ["new@example.org"])]
    link = "/" + re.search(r"https?://\S+(/accounts/address/\S+/)", mailoutbox[0].body).group(1).lstrip("/")
    assert "Confirm the new address" in client.get(link).content.decode()
    me.refresh_from_db()
    assert me.email == "me@example.org"  # a GET changes nothing
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(link)["Location"] == "/accounts/"
    me.refresh_from_db()
    assert me.email == "new@example.org" and Account.objects.get(user=me).email_key == "new@example.org"
    assert list(EmailAddress.objects.filter(user=me).values_list("email", "verified")) == [("new@example.org", True)]
    assert mailoutbox[-1].subject == "[urn:ogf] Your account's address changed" and mailoutbox[-1].to == [
        "me@example.org"
    ]
    assert client.post(link).status_code == 400  # used


@pytest.mark.django_db
def test_an_address_another_account_has_gets_the_same_answer_and_a_mail(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    user_factory("other")  # other@example.org
    me = user_factory("me")
    client.force_login(me)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/accounts/address/", {"email": "OTHER@example.org"})
    assert response["Location"] == "/accounts/"
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] This address already has an account"]
    me.refresh_from_db()
    assert me.email == "me@example.org"


@pytest.mark.django_db
def test_the_download_holds_everything_and_no_secret(client, steward):
    client.force_login(steward)
    response = client.get("/accounts/data.json")
    assert response["Content-Disposition"].startswith('attachment; filename="urn-ogf-account-')
    data = json.loads(response.content)
    assert data["account"]["username"] == steward.get_username() and data["account"]["email"] == steward.email
    assert [(i["provider"], i["uid"]) for i in data["identities"]] == [("orcid", ORCID_ID)]
    assert sorted(p["snid"] for p in data["proposals"]) == ["example", "second"]
    assert all(p["content"]["snid"] == p["snid"] and p["content"]["sections"] for p in data["proposals"])
    assert [s["snid"] for s in data["stewardships"]] == ["example"]
    text = response.content.decode()
    assert Token.objects.get(user=steward).key not in text and steward.password not in text


@pytest.mark.django_db
def test_closing_says_what_stays_then_keeps_the_record_and_removes_every_way_in(client, steward, editor):
    from registry.stewardship.selectors import person

    steward.first_name = "Sam Steward"
    steward.save()
    steward.groups.add(editor.groups.first())
    client.force_login(steward)
    page = client.get("/accounts/close/").content.decode()
    assert "Public registrations, the transparency log and the review history" in page
    assert "“Sam Steward” (your public name)" in page and "GFD editor" in page
    assert client.post("/accounts/close/", {"username": "someone-else"}).status_code == 400
    proposals = steward.proposals.count()
    response = client.post("/accounts/close/", {"username": steward.get_username().upper()})
    assert "Your account is closed" in response.content.decode()
    assert "_auth_user_id" not in client.session
    user = get_user_model().objects.get(pk=steward.pk)
    assert not user.is_active and not user.has_usable_password() and user.email == ""
    assert not user.groups.exists() and not user.is_staff
    assert not SocialAccount.objects.filter(user=user).exists() and not Token.objects.filter(user=user).exists()
    assert user.account.closed_at is not None and user.proposals.count() == proposals
    assert person(user) == "Sam Steward (account closed)"
    assert client.get("/urn/example/").status_code == 200
    # nobody signs in to it again, and its name stays taken
    assert client.post("/accounts/login/", {"username": user.get_username(), "password": PASSWORD}).status_code == 200
    assert "_auth_user_id" not in client.session
    from registry.accounts.names import name_taken

    assert name_taken(user.get_username())


@pytest.mark.django_db
def test_an_administrator_cannot_close_their_own_account_here(client):
    admin = get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)
    client.force_login(admin)
    assert "closed by another administrator" in client.get("/accounts/close/").content.decode()
    assert client.post("/accounts/close/", {"username": "root"}).status_code == 400
    assert get_user_model().objects.get(pk=admin.pk).is_active
