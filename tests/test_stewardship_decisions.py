"""Decisions after approval, at the services: nobody decides for themselves, everyone concerned is told,
a resolver request installs exactly what was asked for, stewards ask for a deprecation like any change."""

from __future__ import annotations

import pytest
from django.core import mail

from registry import rules, services
from registry.logcore.kinds import leaf_decode
from registry.models import Namespace
from registry.stewardship import services as stewardship
from registry.stewardship.changes import resolvers_in_force
from registry.stewardship.facts import request_facts
from registry.stewardship.models import ChangeRequest, ChangeState, Deprecation, Steward, StewardState
from registry.transparency.models import LogEntry

from .factories import proposal_factory, user_factory

RESOLVERS = [
    {
        "name": "catalogue",
        "template": "https://data.example.org/{nss}",
        "returns": "metadata",
        "media_types": ["application/json"],
        "primary": True,
    },
    {
        "name": "mirror",
        "template": "https://mirror.example.org/{nss}",
        "returns": "landing",
        "media_types": [],
        "primary": False,
    },
]


@pytest.fixture
def people(db):
    """urn:ogf:example: (stewarded by ``steward``) and urn:ogf:successor:, three editors, a co-steward."""
    steward = user_factory("steward")
    editors = [user_factory(f"ed{n}", editor=True) for n in (1, 2, 3)]
    proposal_factory(steward, state="approved", editor=editors[2], resolvers=RESOLVERS)
    proposal_factory(steward, state="approved", editor=editors[2], snid="successor")
    return {
        "steward": steward,
        "ed1": editors[0],
        "ed2": editors[1],
        "ed3": editors[2],
        "namespace": Namespace.objects.select_related("current").get(snid="example"),
    }


def _contact(namespace, user, contact="registry@example.org"):
    return stewardship.change_request_create(
        namespace, "contact", {"registrant_public_contact": contact}, user, reason="The old address is gone."
    )


def _subjects(address) -> list[str]:
    return [m.subject for m in mail.outbox if address in m.to]


# --- nobody decides for themselves ---------------------------------------------------------------------


@pytest.mark.django_db
def test_an_editor_cannot_make_himself_a_steward_another_editor_can(people):
    namespace, ed1, ed2 = people["namespace"], people["ed1"], people["ed2"]
    assert not rules.can_add_steward(ed1, namespace, ed1) and rules.can_add_steward(ed2, namespace, ed1)
    with pytest.raises(services.NotAllowed, match="Editors do not make themselves stewards"):
        stewardship.steward_add(namespace, ed1, ed1, reason="I will look after it.")
    assert not rules.is_steward(ed1, namespace)
    stewardship.steward_add(namespace, ed1, ed2, reason="Maintains the catalogue.")
    assert rules.is_steward(ed1, namespace)


@pytest.mark.django_db
def test_an_editor_never_approves_his_own_request_even_once_no_longer_a_steward(people):
    """ed1 is made a steward, files a contact change, is removed as steward by ed2 — and still cannot
    approve his own request (requested_by = decided_by can never happen)."""
    namespace, ed1, ed2 = people["namespace"], people["ed1"], people["ed2"]
    stewardship.steward_add(namespace, ed1, ed2, reason="Maintains the catalogue.")
    request = _contact(namespace, ed1)
    stewardship.steward_remove(
        Steward.objects.get(namespace=namespace, user=ed1, state="active"), ed2, reason="Left the group."
    )
    assert not rules.is_steward(ed1, namespace) and rules.can_decide_for_snid(ed1, namespace)
    assert not rules.can_decide_change(ed1, request)
    for approve in (True, False):
        with pytest.raises(services.NotAllowed, match="asked for this change yourself"):
            stewardship.change_request_decide(request, ed1, approve=approve)
    assert ChangeRequest.objects.get(pk=request.pk).state == ChangeState.PENDING
    decided = stewardship.change_request_decide(request, ed2, approve=True)
    assert decided.decided_by == ed2 and decided.requested_by == ed1


@pytest.mark.django_db
def test_a_former_steward_does_not_decide_what_was_asked_while_he_was_one(people):
    namespace, ed1, ed2, steward = people["namespace"], people["ed1"], people["ed2"], people["steward"]
    stewardship.steward_add(namespace, ed1, ed2, reason="Co-maintainer.")
    while_steward = _contact(namespace, steward)
    stewardship.steward_remove(
        Steward.objects.get(namespace=namespace, user=ed1, state="active"), ed2, reason="Left the group."
    )
    after = _contact(namespace, steward, "later@example.org")
    with pytest.raises(services.NotAllowed, match="were a steward"):
        stewardship.change_request_decide(while_steward, ed1, approve=True)
    assert rules.can_decide_change(ed1, after)  # asked after he stopped acting for it
    assert rules.can_decide_change(people["ed3"], while_steward)


@pytest.mark.django_db
def test_nobody_decides_an_invitation_that_concerns_them(people):
    namespace, ed1, ed2, ed3, steward = (people[k] for k in ("namespace", "ed1", "ed2", "ed3", "steward"))
    invited_editor = stewardship.steward_invite(namespace, ed1, steward, reason="Knows the catalogue.")
    with pytest.raises(services.NotAllowed, match="invitation is for you"):
        stewardship.steward_invitation_decide(invited_editor, ed1, confirm=True)
    # an editor who invited someone while a steward, and was removed since, does not decide it either
    stewardship.steward_add(namespace, ed2, ed3, reason="Co-maintainer.")
    friend = user_factory("friend")
    invitation = stewardship.steward_invite(namespace, friend, ed2, reason="A colleague.")
    stewardship.steward_remove(
        Steward.objects.get(namespace=namespace, user=ed2, state="active"), ed3, reason="Moved on."
    )
    assert not rules.can_decide_invitation(ed2, invitation)
    with pytest.raises(services.NotAllowed, match="You made this invitation"):
        stewardship.steward_invitation_decide(invitation, ed2, confirm=True)
    assert stewardship.steward_invitation_decide(invitation, ed3, confirm=True).state == StewardState.ACTIVE
    # adding someone who has an open invitation confirms it, under the same rule
    with pytest.raises(services.NotAllowed):
        stewardship.steward_add(namespace, ed1, ed1, reason="Myself.")
    assert Steward.objects.get(pk=invited_editor.pk).state == StewardState.INVITED


@pytest.mark.django_db
def test_an_editor_does_not_remove_his_own_stewardship(people):
    namespace, ed1, ed2 = people["namespace"], people["ed1"], people["ed2"]
    mine = stewardship.steward_add(namespace, ed1, ed2, reason="Co-maintainer.")
    assert not rules.can_remove_steward(ed1, mine) and rules.can_remove_steward(ed2, mine)
    with pytest.raises(services.NotAllowed):
        stewardship.steward_remove(mine, ed1, reason="Enough.")


@pytest.mark.django_db
def test_a_steward_cannot_invite_himself(people):
    with pytest.raises(services.NotAllowed):
        stewardship.steward_invite(people["namespace"], people["steward"], people["steward"], reason="Me.")


# --- deprecation requests ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_steward_asks_for_a_deprecation_and_an_editor_decides_it(people, django_capture_on_commit_callbacks):
    namespace, steward, ed1, ed2 = people["namespace"], people["steward"], people["ed1"], people["ed2"]
    stewardship.steward_add(namespace, ed1, ed2, reason="Co-maintainer.")
    with pytest.raises(services.ServiceError, match="not a registered SNID"):
        stewardship.change_request_create(namespace, "deprecation", {"successor": "nowhere"}, steward, reason="x")
    request = stewardship.change_request_create(
        namespace,
        "deprecation",
        {"successor": "urn:ogf:SUCCESSOR:"},
        steward,
        reason="Superseded by urn:ogf:successor:.",
    )
    assert request.data == {"successor": "successor"} and not Deprecation.objects.exists()
    with pytest.raises(services.NotAllowed):  # a steward, and an editor: another editor decides
        stewardship.change_request_decide(request, ed1, approve=True)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        stewardship.change_request_decide(request, ed2, approve=True, note="Agreed.")
    deprecation = Deprecation.objects.get()
    assert (deprecation.namespace, deprecation.successor.snid, deprecation.reason) == (
        namespace,
        "successor",
        "Superseded by urn:ogf:successor:.",
    )
    public = [e.summary for e in namespace.stewardship_events.filter(public=True)]
    assert public[-1] == ("Deprecated by an editor at a steward's request; its successor is urn:ogf:successor:.")
    leaf = leaf_decode(LogEntry.objects.order_by("-index").first().leaf.encode())
    assert (leaf["kind"], leaf["successor"]) == ("snid-deprecated", "successor")
    # One mail per steward saying both: the request was approved and the SNID is deprecated.
    assert _subjects(steward.email) == [
        "[urn:ogf] urn:ogf:example: is deprecated: the request to deprecate it was approved"
    ]
    body = next(m.body for m in mail.outbox if steward.email in m.to)
    assert "is deprecated now; its successor is urn:ogf:successor:" in body and "tombstone" in body


@pytest.mark.django_db
def test_a_deprecation_request_cannot_outlive_the_state_it_was_asked_in(people):
    namespace, steward, ed2 = people["namespace"], people["steward"], people["ed2"]
    request = stewardship.change_request_create(namespace, "deprecation", {}, steward, reason="Unused.")
    stewardship.snid_deprecate(namespace, ed2, reason="Retired meanwhile.")
    with pytest.raises(services.Conflict, match="already deprecated"):
        stewardship.change_request_decide(request, people["ed3"], approve=True)
    assert ChangeRequest.objects.get(pk=request.pk).state == ChangeState.PENDING


# --- resolvers: what is shown is what is installed -----------------------------------------------------


@pytest.mark.django_db
def test_a_resolver_request_installs_exactly_what_was_asked_for_and_shown(people):
    namespace, steward, ed2 = people["namespace"], people["steward"], people["ed2"]
    assert resolvers_in_force(namespace) == RESOLVERS
    lines = (
        "catalogue | https://data.example.org/{nss} | metadata | application/json | primary\n"
        "archive | https://archive.example.org/{nss}"
    )
    request = stewardship.change_request_create(
        namespace, "resolvers", {"resolvers": lines}, steward, reason="The mirror closed; the archive took over."
    )
    stored = request.data["resolvers"]
    assert [r["name"] for r in stored] == ["catalogue", "archive"]  # stored as shown, not as text to parse later
    facts = request_facts(request)
    assert [(r.resolver["name"], r.fate) for r in facts.resolvers_now] == [("catalogue", "kept"), ("mirror", "removed")]
    assert [(r.resolver["name"], r.fate) for r in facts.resolvers_asked] == [("catalogue", "kept"), ("archive", "new")]
    decided = stewardship.change_request_decide(request, ed2, approve=True)
    assert resolvers_in_force(Namespace.objects.get(pk=namespace.pk)) == stored
    assert decided.before == {"resolvers": RESOLVERS}


@pytest.mark.django_db
def test_a_resolver_request_that_changes_nothing_is_refused(people):
    from registry.resolving.lines import resolvers_to_lines

    with pytest.raises(services.ServiceError, match="in force already"):
        stewardship.change_request_create(
            people["namespace"],
            "resolvers",
            {"resolvers": resolvers_to_lines(RESOLVERS)},
            people["steward"],
            reason="Nothing really.",
        )


@pytest.mark.django_db
def test_the_editor_sees_when_what_stands_moved_since_the_request(people):
    from registry.stewardship.facts import bases_of

    namespace, steward = people["namespace"], people["steward"]
    first = _contact(namespace, steward, "first@example.org")
    second = _contact(namespace, steward, "second@example.org")
    assert not request_facts(second, base=bases_of([second])[second.pk]).moved
    stewardship.change_request_decide(first, people["ed2"], approve=True)
    second = ChangeRequest.objects.get(pk=second.pk)
    facts = request_facts(second, base=bases_of([second])[second.pk])
    assert facts.moved and facts.fields[0].current == "first@example.org"
    assert facts.fields[0].label == "1.3 Declared Registrant: public contact"


# --- everyone concerned is told --------------------------------------------------------------------


@pytest.fixture
def watched(people, django_capture_on_commit_callbacks):
    """``people`` with a second steward, and a way to run a step and read the mails it sends."""
    partner = user_factory("partner")
    stewardship.steward_add(people["namespace"], partner, people["ed2"], reason="Second maintainer.")

    def step(call):
        mail.outbox.clear()
        with django_capture_on_commit_callbacks(execute=True):
            result = call()
        return result

    return {**people, "partner": partner, "step": step}


def _told(subject_part, *, one_by_one: bool = True) -> set[str]:
    found = [m for m in mail.outbox if m.subject.endswith(subject_part)]
    if one_by_one:
        assert all(len(m.to) == 1 for m in found), "stewards are mailed one by one: nobody sees another's address"
    return {address for m in found for address in m.to}


@pytest.mark.django_db
def test_a_request_filed_and_decided_is_told_to_every_steward_the_requester_and_the_editors(watched):
    namespace, steward, partner, ed2 = (watched[k] for k in ("namespace", "steward", "partner", "ed2"))
    editors = {f"ed{n}@example.org" for n in (1, 2, 3)}
    request = watched["step"](lambda: _contact(namespace, partner))
    assert _told("a change of the contact was requested") == {steward.email, partner.email}
    assert _told("change of the contact requested", one_by_one=False) == editors
    editors_mail = next(m for m in mail.outbox if m.subject.endswith("change of the contact requested"))
    assert "1.3 Declared Registrant: public contact" in editors_mail.body
    assert "registry@example.org" in editors_mail.body and "The old address is gone." in editors_mail.body
    watched["step"](
        lambda: stewardship.change_request_decide(request, ed2, approve=False, note="Use the group's role address.")
    )
    assert _told("the request to change the contact was declined") == {steward.email, partner.email}
    assert "Use the group's role address." in mail.outbox[0].body


@pytest.mark.django_db
def test_an_invitation_made_confirmed_or_declined_is_told_to_everyone_concerned(watched):
    namespace, steward, partner, ed2 = (watched[k] for k in ("namespace", "steward", "partner", "ed2"))
    friend, stranger = user_factory("friend"), user_factory("stranger")
    invitation = watched["step"](lambda: stewardship.steward_invite(namespace, friend, partner, reason="Colleague."))
    assert _told("friend is invited as a steward") == {steward.email, partner.email, friend.email}
    assert _told("a steward invited friend", one_by_one=False) == {f"ed{n}@example.org" for n in (1, 2, 3)}
    watched["step"](lambda: stewardship.steward_invitation_decide(invitation, ed2, confirm=True, note="Welcome."))
    assert _told("the invitation of friend was confirmed") == {steward.email, partner.email, friend.email}
    assert "Welcome." in mail.outbox[0].body
    other = stewardship.steward_invite(namespace, stranger, steward, reason="Maybe.")
    watched["step"](lambda: stewardship.steward_invitation_decide(other, ed2, confirm=False, note="Not now."))
    assert _told("the invitation of stranger was declined") == {
        steward.email,
        partner.email,
        friend.email,
        stranger.email,
    }


@pytest.mark.django_db
def test_a_steward_added_or_removed_is_told_with_every_steward(watched):
    namespace, steward, partner, ed2 = (watched[k] for k in ("namespace", "steward", "partner", "ed2"))
    newcomer = user_factory("newcomer")
    added = watched["step"](lambda: stewardship.steward_add(namespace, newcomer, ed2, reason="Joined."))
    assert _told("newcomer is now a steward") == {steward.email, partner.email, newcomer.email}
    watched["step"](lambda: stewardship.steward_remove(added, ed2, reason="Left."))
    assert _told("newcomer is no longer a steward") == {steward.email, partner.email, newcomer.email}
    assert "Left." in mail.outbox[0].body


@pytest.mark.django_db
def test_a_deprecation_and_its_withdrawal_are_told_to_every_steward(watched):
    namespace, steward, partner, ed2 = (watched[k] for k in ("namespace", "steward", "partner", "ed2"))
    watched["step"](lambda: stewardship.snid_deprecate(namespace, ed2, reason="Retired.", successor="successor"))
    assert _told("urn:ogf:example: is deprecated") == {steward.email, partner.email}
    assert "urn:ogf:successor:" in mail.outbox[0].body and "Retired." in mail.outbox[0].body
    watched["step"](lambda: stewardship.snid_undeprecate(namespace, ed2, reason="Still used."))
    assert _told("its deprecation is withdrawn") == {steward.email, partner.email}


@pytest.mark.django_db
def test_no_mail_is_sent_for_a_step_that_was_refused(watched):
    namespace, ed1 = watched["namespace"], watched["ed1"]
    with pytest.raises(services.NotAllowed):
        watched["step"](lambda: stewardship.steward_add(namespace, ed1, ed1, reason="Me."))
    assert mail.outbox == []
