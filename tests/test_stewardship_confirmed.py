"""Every stewardship step is taken from its confirmation page, as things stand when it is confirmed.

A POST that skipped the page (no token: a forged form, a script, an old bookmark) changes nothing
and shows the page, as a 409; so does one sent from a page that has since moved on (another steward
was added, so the page no longer names everyone who is told). The person who gains from skipping is
the one who asks: each case below is tried as that person, and it is allowed once through the page."""

from __future__ import annotations

import pytest
from django.core import mail

from registry.models import Namespace
from registry.stewardship import services as stewardship
from registry.stewardship.models import ChangeRequest, ChangeState, Deprecation, Steward, StewardState

from .confirming import seen_of, step
from .factories import proposal_factory, user_factory

NOT_SEEN = "Nothing was done: this page has changed since it was shown (or it was not shown)."


@pytest.fixture
def world(db):
    steward = user_factory("stella")
    ed1, ed2 = user_factory("ed1", editor=True), user_factory("ed2", editor=True)
    proposal_factory(steward, state="approved", editor=ed2)
    proposal_factory(steward, state="approved", editor=ed2, snid="successor")
    namespace = Namespace.objects.get(snid="example")
    partner = stewardship.steward_add(namespace, user_factory("partner"), ed2, reason="Second maintainer.")
    contact = stewardship.change_request_create(
        namespace, "contact", {"registrant_public_contact": "wg@example.org"}, steward, reason="Role address."
    )
    invitation = stewardship.steward_invite(namespace, user_factory("ivan"), steward, reason="Runs the archive.")
    return {
        "steward": steward,
        "ed1": ed1,
        "ed2": ed2,
        "namespace": namespace,
        "partner": partner,
        "contact": contact,
        "invitation": invitation,
    }


def _nothing_changed(world) -> bool:
    return (
        not Deprecation.objects.exists()
        and ChangeRequest.objects.count() == 1
        and ChangeRequest.objects.get().state == ChangeState.PENDING
        and Steward.objects.get(pk=world["partner"].pk).state == StewardState.ACTIVE
        and Steward.objects.get(pk=world["invitation"].pk).state == StewardState.INVITED
        and not Steward.objects.filter(user__username__in=["newcomer", "friend"]).exists()
    )


def _steps(world) -> list[tuple[str, str, dict]]:
    """(who, where, what the step's form sends) for every stewardship step that changes something."""
    contact, invitation, partner = world["contact"], world["invitation"], world["partner"]
    return [
        ("steward", "/urn/example/stewardship/invite/", {"invite-username": "friend", "invite-reason": "Helps."}),
        (
            "steward",
            "/urn/example/stewardship/change/deprecation/",
            {"deprecation-successor": "successor", "deprecation-reason": "Moved."},
        ),
        ("ed1", "/urn/example/stewardship/deprecate/", {"deprecate-reason": "Old.", "deprecate-successor": ""}),
        ("ed1", f"/urn/example/stewardship/remove/{partner.pk}/", {"remove-reason": "Left."}),
        ("ed1", "/urn/example/stewardship/add/", {"add-username": "newcomer", "add-reason": "Helps."}),
        ("ed1", f"/review/stewardship/change/{contact.pk}/", {"decision": "approve", "decision-note": ""}),
        ("ed1", f"/review/stewardship/invitation/{invitation.pk}/", {"decision": "confirm", "decision-note": ""}),
    ]


@pytest.mark.django_db
def test_every_stewardship_step_posted_without_its_confirmation_page_changes_nothing(client, world):
    user_factory("newcomer"), user_factory("friend")
    for who, url, data in _steps(world):
        client.force_login(world[who])
        mail.outbox.clear()
        for forged in ({**data, "confirm": "yes"}, {**data, "confirm": "yes", "seen": "0" * 64}):
            response = client.post(url, forged)
            page = response.content.decode()
            assert response.status_code == 409, (url, response.status_code)
            assert NOT_SEEN in page and seen_of(response), url  # the page, to read and confirm
            assert _nothing_changed(world) and mail.outbox == [], url


@pytest.mark.django_db
def test_every_stewardship_step_is_taken_through_its_confirmation_page(client, world):
    user_factory("newcomer"), user_factory("friend")
    for who, url, data in _steps(world):
        client.force_login(world[who])
        response = step(client, url, data)
        assert response.status_code == 302, (url, response.content.decode()[:1500])
    assert Deprecation.objects.in_force().filter(namespace__snid="example").exists()
    assert Steward.objects.get(pk=world["partner"].pk).state == StewardState.REMOVED
    assert ChangeRequest.objects.get(pk=world["contact"].pk).state == ChangeState.APPROVED
    assert ChangeRequest.objects.filter(kind="deprecation", state=ChangeState.PENDING).exists()
    assert set(Steward.objects.filter(state=StewardState.ACTIVE).values_list("user__username", flat=True)) >= {
        "newcomer",
        "ivan",
    }
    assert Steward.objects.filter(user__username="friend", state=StewardState.INVITED).exists()


@pytest.mark.django_db
def test_a_confirmation_overtaken_by_a_change_is_shown_again_as_things_stand(client, world):
    """The page named who is told; another steward was added before the click: the click changes nothing,
    and the page shown again names the new steward too."""
    client.force_login(world["ed1"])
    url = f"/urn/example/stewardship/remove/{world['partner'].pk}/"
    shown = client.get(url)
    assert "later" not in shown.content.decode()
    stewardship.steward_add(world["namespace"], user_factory("later"), world["ed2"], reason="Joined meanwhile.")
    response = client.post(url, {"remove-reason": "Left.", "confirm": "yes", "seen": seen_of(shown)})
    page = response.content.decode()
    assert response.status_code == 409 and NOT_SEEN in page and "later" in page
    assert Steward.objects.get(pk=world["partner"].pk).state == StewardState.ACTIVE
    # Read again, the page acts.
    assert step(client, url, {"remove-reason": "Left."}).status_code == 302


@pytest.mark.django_db
def test_one_persons_confirmation_does_not_act_for_another(client, world):
    """The token binds the page to the person it was shown to: an editor's page, sent on by
    someone else's session (another editor), is refused as not seen."""
    client.force_login(world["ed1"])
    url = f"/urn/example/stewardship/remove/{world['partner'].pk}/"
    token = seen_of(client.get(url))
    other = user_factory("ed3", editor=True)
    client.force_login(other)
    response = client.post(url, {"remove-reason": "Left.", "confirm": "yes", "seen": token})
    assert response.status_code == 409
    assert Steward.objects.get(pk=world["partner"].pk).state == StewardState.ACTIVE


@pytest.mark.django_db
def test_a_confirmation_for_one_snid_does_not_act_on_another(client, world):
    """Both SNIDs have the same steward, so their invitation pages say the same words: the page of
    urn:ogf:example: still does not invite anyone to urn:ogf:successor:."""
    user_factory("friend")
    client.force_login(world["steward"])
    data = {"invite-username": "friend", "invite-reason": "Helps."}
    token = seen_of(client.post("/urn/example/stewardship/invite/", data))
    response = client.post("/urn/successor/stewardship/invite/", {**data, "confirm": "yes", "seen": token})
    assert response.status_code == 409
    assert not Steward.objects.filter(user__username="friend").exists()
