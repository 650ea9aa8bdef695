"""What the public sees of an SNID's life after approval: the current contact (the overlay) on the page,
in the API and the exports; its stewards (with a verified ORCID iD if they chose); its history; and a
mirror's verifier still finding every exported record in the log."""

from __future__ import annotations

import io

import pytest
from allauth.socialaccount.models import SocialAccount
from django.core.cache import cache

from registry import verify
from registry.logcore.note import Signer
from registry.lookup import registry_invalidate
from registry.models import Namespace
from registry.stewardship import services as stewardship
from registry.stewardship.models import Steward
from registry.transparency.log import log_cache_clear

from .confirming import step
from .factories import proposal_factory, user_factory

NEW_CONTACT = "urn-registry@new.example.org"


def _changed(editor, steward, snid="example"):
    namespace = Namespace.objects.get(snid=snid)
    request = stewardship.change_request_create(
        namespace, "contact", {"registrant_public_contact": NEW_CONTACT}, steward, reason="The group's role address."
    )
    stewardship.change_request_decide(request, editor, approve=True)
    registry_invalidate()
    cache.clear()
    return namespace


@pytest.fixture
def changed(db):
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    approved = proposal_factory(steward, state="approved", editor=editor)
    _changed(editor, steward)
    return {"approved": approved, "steward": steward, "editor": editor}


@pytest.mark.django_db
def test_public_page_shows_the_new_contact_and_the_history_line(client, changed):
    page = client.get("/urn/example/").content.decode()
    assert NEW_CONTACT in page
    assert changed["approved"].registrant_public_contact not in page
    day = changed["approved"].namespace.stewardship_events.last().created_at.date().isoformat()
    assert f"{day}</time>: Contact changed by an editor at the steward&#x27;s request." in page


@pytest.mark.django_db
def test_the_approved_version_page_keeps_what_was_approved(client, changed):
    """/urn/<snid>/1/ is the current version, so it shows today's contact; the API's version answer is
    the version exactly as approved."""
    body = client.get("/api/snids/example/versions/1/").json()
    assert body["registrant"]["public_contact"] == changed["approved"].registrant_public_contact


@pytest.mark.django_db
def test_api_and_exports_use_the_new_contact(client, changed):
    assert client.get("/api/snids/example/").json()["current"]["registrant"]["public_contact"] == NEW_CONTACT
    (record,) = client.get("/urn/registry.json").json()["snids"]
    assert record["registrant"]["contact"] == NEW_CONTACT
    assert NEW_CONTACT in client.get("/urn/registry.csv").content.decode()
    assert f"<contact>{NEW_CONTACT}</contact>" in client.get("/urn/registry.xml").content.decode()


@pytest.mark.django_db
def test_feed_tells_of_the_contact_change(client, changed):
    feed = client.get("/urn/feed.atom").content.decode()
    assert (
        "urn:ogf:example: Contact changed by an editor at the steward&#x27;s request." in feed
        or "urn:ogf:example: Contact changed by an editor at the steward's request." in feed
    )


@pytest.mark.django_db
def test_page_names_the_stewards_and_a_verified_orcid_only_if_chosen(client, changed):
    steward = changed["steward"]
    SocialAccount.objects.create(user=steward, provider="orcid", uid="0000-0002-1825-0097")
    page = client.get("/urn/example/").content.decode()
    assert "steward" in page and "0000-0002-1825-0097" not in page
    client.force_login(steward)
    response = client.post("/urn/example/stewardship/orcid/", {"show_orcid": "on"})
    assert response.status_code == 302
    client.logout()
    cache.clear()
    page = client.get("/urn/example/").content.decode()
    assert 'href="https://orcid.org/0000-0002-1825-0097"' in page and "(verified)" in page


@pytest.mark.django_db
def test_only_the_steward_themselves_shows_their_orcid(client, changed):
    other_steward = user_factory("co-steward")
    stewardship.steward_add(Namespace.objects.get(snid="example"), other_steward, changed["editor"], reason="Joined.")
    SocialAccount.objects.create(user=changed["steward"], provider="orcid", uid="0000-0002-1825-0097")
    client.force_login(other_steward)
    client.post("/urn/example/stewardship/orcid/", {"show_orcid": "on"})
    assert not Steward.objects.get(user=changed["steward"]).show_orcid


@pytest.mark.django_db
def test_stewardship_page_lets_a_steward_ask_and_an_editor_approve(client, db):
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    proposal_factory(steward, state="approved", editor=editor)
    client.force_login(steward)
    page = client.get("/urn/example/stewardship/").content.decode()
    assert "Ask for a change" in page and "grammar_abnf" not in page
    form = {"contact-registrant_public_contact": NEW_CONTACT, "contact-reason": "Role address."}
    assert client.post("/urn/example/stewardship/change/contact/", form).status_code == 200  # the preview
    response = step(client, "/urn/example/stewardship/change/contact/", form)
    assert response.status_code == 302
    client.force_login(editor)
    queue = client.get("/review/stewardship/").content.decode()
    assert NEW_CONTACT in queue and "Role address." in queue
    change = Namespace.objects.get(snid="example").change_requests.get()
    assert step(client, f"/review/stewardship/change/{change.pk}/", {"decision": "approve"}).status_code == 302
    client.logout()
    cache.clear()
    assert NEW_CONTACT in client.get("/urn/example/").content.decode()


@pytest.mark.django_db
def test_a_refused_request_comes_back_on_its_form(client, db):
    steward = user_factory("steward")
    proposal_factory(steward, state="approved")
    client.force_login(steward)
    response = client.post(
        "/urn/example/stewardship/change/contact/",
        {"contact-registrant_public_contact": NEW_CONTACT, "contact-reason": "", "confirm": "yes"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "This field is required" in page and NEW_CONTACT in page


@pytest.mark.django_db
def test_stewardship_page_queries_do_not_grow_with_the_stewards_and_requests(client, db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    namespace = proposal_factory(steward, state="approved", editor=editor).namespace
    counts = []

    def more(count, tag):
        for index in range(count):
            added = user_factory(f"s{index}-{tag}")
            stewardship.steward_add(namespace, added, editor, reason="More hands.")
            stewardship.change_request_create(
                namespace, "contact", {"registrant_public_contact": f"{index}@x.org"}, added, reason="Another."
            )
            stewardship.steward_invite(namespace, user_factory(f"i{index}-{tag}"), added, reason="Invited.")

    more(1, "first")
    for who in (editor, steward):
        client.force_login(who)
        client.get("/urn/example/stewardship/")
        with CaptureQueriesContext(connection) as few:
            client.get("/urn/example/stewardship/")
        more(5, who.username)
        with CaptureQueriesContext(connection) as many:
            assert client.get("/urn/example/stewardship/").status_code == 200
        counts.append((len(few), len(many)))
    assert all(many <= few for few, many in counts), counts


# --- a mirror's verifier after administrative changes ---------------------------------------------------


@pytest.fixture
def log_key(settings):
    key = Signer.generate("registry.test/log")
    settings.REGISTRY_LOG_KEY = str(key)
    return key


def test_verifier_finds_the_changed_record_in_the_log(transactional_db, live_server, log_key, tmp_path):
    steward, editor = user_factory("steward"), user_factory("editor", editor=True)
    proposal_factory(steward, state="approved", editor=editor)
    proposal_factory(steward, state="approved", editor=editor, snid="other")
    _changed(editor, steward)
    stewardship.snid_deprecate(Namespace.objects.get(snid="other"), editor, reason="Retired.", successor="example")
    log_cache_clear()
    out = io.StringIO()
    status = verify.main(
        [live_server.url, "--key", str(log_key.verifier()), "--state", str(tmp_path / "s.json")], out=out
    )
    assert status == 0, out.getvalue()
    assert "2 registered SNID(s) with 2 version(s)" in out.getvalue() and "1 deprecation(s)" in out.getvalue()


@pytest.mark.django_db
def test_stewardship_queue_names_the_first_snids_without_a_steward_and_counts_all_in_constant_queries(
    client, db, django_assert_max_num_queries, settings
):
    from benchmarks.data import populate
    from registry.views import stewardship_decisions as views

    settings.DEBUG = False
    populate(5)  # SNIDs written straight to the database: no steward
    client.force_login(user_factory("editor", editor=True))
    client.get("/review/stewardship/")
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        client.get("/review/stewardship/")
    populate(views.ORPHANED_SHOWN + 20, prefix="more")
    with django_assert_max_num_queries(len(few)):
        page = client.get("/review/stewardship/").content.decode()
    assert f"SNIDs without an active steward ({views.ORPHANED_SHOWN + 25})" in page
    assert page.count("stays registered; add a steward.") == views.ORPHANED_SHOWN
    assert f"The first {views.ORPHANED_SHOWN} by name, of {views.ORPHANED_SHOWN + 25}" in page
