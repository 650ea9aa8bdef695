"""Every mail of a full stewardship walk, through the pages: one address per mail, one mail per person per
event, each person told in the role they act in, and every mail in words (no doubled punctuation, no
unfilled placeholder, no internal key, no "None")."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.core import mail

from registry.models import Namespace
from registry.stewardship.models import ChangeRequest, Steward

from .confirming import step
from .factories import proposal_factory, user_factory

#: What a mail must never say: doubled punctuation, template syntax, internal keys, Python's None.
NOT_WORDS = re.compile(r"(?<!\.)\.\.(?!\.)|,,|;;|::(?!\w)|\{\{|\{%|snid-durable|registrant_public_contact|\bNone\b")


@pytest.fixture
def walk(db, client, django_capture_on_commit_callbacks):
    """urn:ogf:example: and urn:ogf:successor:, stewarded by Sam; Erin, an editor who is also a steward of
    urn:ogf:example:; Ed and Eve, editors."""
    sam = user_factory("sam")
    erin = user_factory("erin", editor=True)
    ed, eve = user_factory("ed", editor=True), user_factory("eve", editor=True)
    proposal_factory(sam, state="approved", editor=ed)
    proposal_factory(sam, state="approved", editor=ed, snid="successor")
    namespace = Namespace.objects.get(snid="example")
    client.force_login(eve)
    form = {"add-username": "erin", "add-reason": "Maintainer."}
    with django_capture_on_commit_callbacks(execute=True):
        assert step(client, "/urn/example/stewardship/add/", form).status_code == 302
    mail.outbox.clear()
    return {"sam": sam, "erin": erin, "ed": ed, "eve": eve, "namespace": namespace}


def _step(client, user, path, data, capture):
    client.force_login(user)
    with capture(execute=True):
        response = step(client, path, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    sent = list(mail.outbox)
    mail.outbox.clear()
    return sent


def _who(sent) -> Counter:
    return Counter((m.to[0], m.subject) for m in sent)


def _words_of(sent):
    for message in sent:
        assert len(message.to) == 1 and not message.cc and not message.bcc, message.to
        for text in (message.subject, message.body):
            found = NOT_WORDS.search(text)
            assert found is None, (found.group(0), message.subject, text)


@pytest.mark.django_db
def test_every_mail_of_a_stewardship_walk_goes_once_to_each_person_concerned(
    client, walk, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    sam, erin, ed, eve = (walk[k].email for k in ("sam", "erin", "ed", "eve"))

    # Erin, an editor, asks as a steward to deprecate it: she is told as the one who asked, never asked to
    # decide; the stewards are told once each; the editors who may decide (Ed, Eve) are asked once each.
    sent = _step(
        client,
        walk["erin"],
        "/urn/example/stewardship/change/deprecation/",
        {"deprecation-successor": "successor", "deprecation-reason": "Superseded."},
        capture,
    )
    _words_of(sent)
    filed = "[urn:ogf] urn:ogf:example: a deprecation was requested"
    asked = "[urn:ogf] urn:ogf:example: deprecation requested"
    assert _who(sent) == Counter({(sam, filed): 1, (erin, filed): 1, (ed, asked): 1, (eve, asked): 1})
    assert "Approve or decline it" not in next(m.body for m in sent if m.to == [erin])

    # Ed approves it: one mail per steward saying both that the request was approved and the SNID deprecated.
    request = ChangeRequest.objects.get()
    sent = _step(
        client,
        walk["ed"],
        f"/review/stewardship/change/{request.pk}/",
        {"decision": "approve", "decision-note": ""},
        capture,
    )
    _words_of(sent)
    decided = "[urn:ogf] urn:ogf:example: is deprecated: the request to deprecate it was approved"
    assert _who(sent) == Counter({(sam, decided): 1, (erin, decided): 1})

    # Sam invites Ed to steward urn:ogf:successor:: the stewards, Sam and Ed are told once; the editors who
    # may decide (Erin and Eve; Ed is the one invited) are asked once.
    sent = _step(
        client,
        walk["sam"],
        "/urn/successor/stewardship/invite/",
        {"invite-username": "ed", "invite-reason": "Helps."},
        capture,
    )
    _words_of(sent)
    counts = Counter(m.to[0] for m in sent)
    assert counts == Counter({sam: 1, ed: 1, erin: 1, eve: 1}), _who(sent)
    assert {m.subject for m in sent if m.to[0] in (erin, eve)} == {"[urn:ogf] urn:ogf:successor: a steward invited ed"}

    # Eve confirms it: everyone concerned, once each.
    invitation = Steward.objects.get(state="invited")
    sent = _step(
        client,
        walk["eve"],
        f"/review/stewardship/invitation/{invitation.pk}/",
        {"decision": "confirm", "decision-note": "Welcome."},
        capture,
    )
    _words_of(sent)
    assert Counter(m.to[0] for m in sent) == Counter({sam: 1, ed: 1})


@pytest.mark.django_db
def test_an_editors_mail_goes_to_each_editor_alone(client, walk, django_capture_on_commit_callbacks):
    sent = _step(
        client,
        walk["sam"],
        "/urn/example/stewardship/change/contact/",
        {"contact-registrant_public_contact": "desk@example.org", "contact-reason": "A role address."},
        django_capture_on_commit_callbacks,
    )
    editors = [m for m in sent if "change of the contact requested" in m.subject]
    assert sorted(m.to for m in editors) == [[walk["ed"].email], [walk["eve"].email]]  # Erin stewards it


@pytest.mark.django_db
def test_an_editors_own_steps_mail_each_steward_once_in_words(client, walk, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    sam, erin = walk["sam"].email, walk["erin"].email
    # Eve deprecates urn:ogf:successor: (Sam stewards it), then withdraws it.
    sent = _step(
        client,
        walk["eve"],
        "/urn/successor/stewardship/deprecate/",
        {"deprecate-reason": "Superseded.", "deprecate-successor": ""},
        capture,
    )
    _words_of(sent)
    assert _who(sent) == Counter({(sam, "[urn:ogf] urn:ogf:successor: is deprecated"): 1})
    sent = _step(
        client, walk["eve"], "/urn/successor/stewardship/undeprecate/", {"undeprecate-reason": "Still used."}, capture
    )
    _words_of(sent)
    assert [m.to for m in sent] == [[sam]]
    # Ed removes Erin as a steward of urn:ogf:example:: the stewards (Erin among them), once each.
    steward = Steward.objects.get(user=walk["erin"], state="active")
    sent = _step(
        client, walk["ed"], f"/urn/example/stewardship/remove/{steward.pk}/", {"remove-reason": "Left."}, capture
    )
    _words_of(sent)
    assert Counter(m.to[0] for m in sent) == Counter({sam: 1, erin: 1})
