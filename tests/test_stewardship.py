"""Stewards, administrative change requests and deprecation: the rules and the services."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core import mail

from registry import rules, services
from registry.logcore.kinds import leaf_decode
from registry.models import Namespace, Proposal
from registry.stewardship import services as stewardship
from registry.stewardship.changes import kinds_offered, overlay_of
from registry.stewardship.models import (
    ChangeRequest,
    ChangeState,
    Steward,
    StewardshipEvent,
    StewardshipImmutableError,
    StewardState,
)
from registry.stewardship.selectors import current_with_overlay, public_history, snids_without_steward
from registry.transparency.models import LogEntry

from .factories import data_factory, proposal_factory, user_factory

ROLES = ("anonymous", "other", "steward", "editor", "conflicted")


@pytest.fixture
def snid(db):
    """urn:ogf:example: registered by ``steward``; ``conflicted`` is an editor who is also its steward."""
    steward = user_factory("steward")
    approved = proposal_factory(steward, state="approved")
    namespace = approved.namespace
    editor = user_factory("editor", editor=True)
    conflicted = user_factory("conflicted", editor=True)
    stewardship.steward_add(namespace, conflicted, editor, reason="Also maintains it.")
    users = {
        "anonymous": AnonymousUser(),
        "other": user_factory("other"),
        "steward": steward,
        "editor": editor,
        "conflicted": conflicted,
    }
    return {
        "namespace": Namespace.objects.select_related("current").get(pk=namespace.pk),
        "users": users,
        "approved": approved,
    }


def _contact(snid, user, contact="registry@example.org"):
    return stewardship.change_request_create(
        snid["namespace"], "contact", {"registrant_public_contact": contact}, user, reason="The old address is gone."
    )


def _leaves(kind):
    return [leaf_decode(e.leaf.encode()) for e in LogEntry.objects.filter(kind=kind).order_by("index")]


# --- the one rule ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "role, steward, request_change, decide, see",
    [
        ("anonymous", False, False, False, False),
        ("other", False, False, False, False),
        ("steward", True, True, False, True),
        ("editor", False, False, True, True),
        ("conflicted", True, True, False, True),
    ],
)
def test_rules_for_an_snid_by_role(snid, role, steward, request_change, decide, see):
    user, namespace = snid["users"][role], snid["namespace"]
    assert rules.is_steward(user, namespace) is steward
    assert rules.is_steward(user, namespace.snid.upper()) is steward  # by SNID, case-insensitively
    assert rules.can_request_change(user, namespace) is request_change
    assert rules.can_decide_for_snid(user, namespace) is decide
    assert rules.can_see_stewardship(user, namespace) is see


@pytest.mark.django_db
def test_registrant_is_the_first_steward_at_approval(snid):
    first = Steward.objects.filter(namespace=snid["namespace"]).order_by("id").first()
    assert first.user == snid["users"]["steward"] and first.state == StewardState.ACTIVE


@pytest.mark.django_db
def test_a_deactivated_steward_no_longer_acts_for_the_snid(snid):
    steward = snid["users"]["steward"]
    steward.is_active = False
    steward.save()
    assert not rules.is_steward(steward, snid["namespace"])


@pytest.mark.django_db
def test_conflicted_editor_cannot_decide_on_a_version_of_their_snid(snid):
    """The conflict of interest follows stewardship: an editor-steward may not approve a new version."""
    version = services.proposal_create(data_factory(version=2), snid["users"]["steward"])
    services.proposal_transition(version, "submit", snid["users"]["steward"])
    with pytest.raises(services.NotAllowed):
        services.proposal_transition(version, "approve", snid["users"]["conflicted"], override_reason="x")
    assert (
        services.proposal_transition(version, "approve", snid["users"]["editor"], override_reason="test data").state
        == "approved"
    )


@pytest.mark.django_db
def test_any_steward_may_propose_a_new_version(snid):
    co_steward = user_factory("co")
    stewardship.steward_add(snid["namespace"], co_steward, snid["users"]["editor"], reason="Joined the group.")
    version = services.proposal_create(data_factory(version=2), co_steward)
    assert version.namespace_id == snid["namespace"].pk
    assert not [f for f in version.findings if f["id"] == "snid-unique" and f["status"] == "fail"]
    stranger = services.proposal_create(data_factory(version=2), snid["users"]["other"])
    assert [f for f in stranger.findings if f["id"] == "snid-unique" and f["status"] == "fail"]


# --- stewards ------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["other", "steward", "conflicted"])
def test_only_an_unconflicted_editor_adds_a_steward(snid, role):
    with pytest.raises(services.NotAllowed):
        stewardship.steward_add(snid["namespace"], user_factory(), snid["users"][role], reason="Why not.")


@pytest.mark.django_db
def test_editor_adds_and_removes_a_steward_with_a_reason_recorded_and_logged(snid):
    editor, newcomer = snid["users"]["editor"], user_factory("newcomer")
    newcomer.first_name, newcomer.last_name = "Nora", "Newcomer"
    newcomer.save()
    with pytest.raises(services.ServiceError, match="reason"):
        stewardship.steward_add(snid["namespace"], newcomer, editor, reason="  ")
    steward = stewardship.steward_add(snid["namespace"], newcomer, editor, reason="Took over the group.")
    assert rules.is_steward(newcomer, snid["namespace"])
    stewardship.steward_remove(steward, editor, reason="Left the group.")
    assert not rules.is_steward(newcomer, snid["namespace"])
    events = StewardshipEvent.objects.filter(namespace=snid["namespace"], data__user="newcomer")
    assert [(e.kind, e.reason, e.public) for e in events] == [
        ("steward-added", "Took over the group.", True),
        ("steward-removed", "Left the group.", True),
    ]
    changes = [(leaf["change"], leaf["steward"], leaf["reason"]) for leaf in _leaves("steward-changed")]
    # The public log names a steward as they chose to be named, never by the login name.
    assert ("added", "Nora Newcomer", "Took over the group.") in changes
    assert ("removed", "Nora Newcomer", "Left the group.") in changes
    assert ("added", "a steward without a public name", "Also maintains it.") in changes  # "conflicted"
    assert not [leaf for leaf in _leaves("steward-changed") if leaf["steward"] in ("newcomer", "conflicted")]


@pytest.mark.django_db
def test_the_last_steward_is_not_removed(db):
    owner = user_factory("owner")
    namespace = proposal_factory(owner, state="approved").namespace
    only = Steward.objects.get(namespace=namespace)
    with pytest.raises(services.Conflict, match="only steward"):
        stewardship.steward_remove(only, user_factory(editor=True), reason="Gone.")


@pytest.mark.django_db
def test_steward_invites_and_an_editor_confirms(snid):
    invitee = user_factory("invitee")
    with pytest.raises(services.NotAllowed):
        stewardship.steward_invite(snid["namespace"], invitee, snid["users"]["other"], reason="Let me in.")
    invitation = stewardship.steward_invite(
        snid["namespace"], invitee, snid["users"]["steward"], reason="Co-maintainer."
    )
    assert invitation.state == StewardState.INVITED and not rules.is_steward(invitee, snid["namespace"])
    with pytest.raises(services.NotAllowed):
        stewardship.steward_invitation_decide(invitation, snid["users"]["steward"], confirm=True)
    with pytest.raises(services.NotAllowed):
        stewardship.steward_invitation_decide(invitation, snid["users"]["conflicted"], confirm=True)
    stewardship.steward_invitation_decide(invitation, snid["users"]["editor"], confirm=True)
    assert rules.is_steward(invitee, snid["namespace"])
    with pytest.raises(services.Conflict):
        stewardship.steward_invitation_decide(invitation, snid["users"]["editor"], confirm=False)


@pytest.mark.django_db(transaction=True)
def test_editors_are_mailed_about_an_invitation_and_a_change_request(db, settings):
    editor = user_factory("mailed-editor", editor=True)
    owner = user_factory("owner")
    namespace = proposal_factory(owner, state="approved", editor=user_factory(editor=True)).namespace
    mail.outbox.clear()
    stewardship.steward_invite(namespace, user_factory("friend"), owner, reason="Co-maintainer.")
    stewardship.change_request_create(
        namespace, "contact", {"registrant_public_contact": "a@b.example"}, owner, reason="Moved."
    )
    subjects = [m.subject for m in mail.outbox if editor.email in m.to]
    assert subjects == [
        "[urn:ogf] urn:ogf:example: a steward invited friend",
        "[urn:ogf] urn:ogf:example: change of the contact requested",
    ]


# --- administrative change requests ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["other", "editor"])
def test_a_non_steward_change_request_is_refused(snid, role):
    with pytest.raises(services.NotAllowed):
        _contact(snid, snid["users"][role])
    assert not ChangeRequest.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "kind, data",
    [
        ("grammar", {"grammar_abnf": "x = 1*ALPHA"}),
        ("contact", {"registrant_public_contact": "a@b.example", "grammar_abnf": "x = 1*ALPHA"}),
        ("registrant", {"registrant_organisation": "Org", "examples_valid": ["urn:ogf:example:x"]}),
        ("contact", {"registrant_public_contact": "a@b.example", "equivalence": []}),
        ("meaning", {"sections": {"scope": "Something else"}}),
    ],
)
def test_a_change_request_cannot_touch_the_grammar_examples_equivalence_or_meaning(snid, kind, data):
    with pytest.raises(services.ServiceError, match="only by a new version"):
        stewardship.change_request_create(snid["namespace"], kind, data, snid["users"]["steward"], reason="x")
    assert not ChangeRequest.objects.exists()


@pytest.mark.django_db
def test_a_change_request_is_validated_by_its_kinds_form(snid):
    with pytest.raises(services.ServiceError, match="New public contact: This field is required"):
        stewardship.change_request_create(
            snid["namespace"], "contact", {"registrant_public_contact": ""}, snid["users"]["steward"], reason="x"
        )
    with pytest.raises(services.ServiceError, match="at least one"):
        stewardship.change_request_create(snid["namespace"], "registrant", {}, snid["users"]["steward"], reason="x")


@pytest.mark.django_db
def test_resolvers_change_request_is_checked_and_applied_by_the_resolution_module(snid):
    from registry.resolution.models import Resolver

    assert "resolvers" in [k.name for k in kinds_offered()]
    steward, editor = snid["users"]["steward"], snid["users"]["editor"]
    with pytest.raises(services.ServiceError, match="https://"):
        stewardship.change_request_create(
            snid["namespace"], "resolvers", {"resolvers": "javascript:alert(1)"}, steward, reason="x"
        )
    request = stewardship.change_request_create(
        snid["namespace"],
        "resolvers",
        {"resolvers": "https://data.example.org/{INDEX}"},
        steward,
        reason="Our catalogue resolves them now.",
    )
    stewardship.change_request_decide(request, editor, approve=True)
    assert [r.template for r in Resolver.objects.current().filter(namespace=snid["namespace"])] == [
        "https://data.example.org/{INDEX}"
    ]


@pytest.mark.django_db
def test_approved_contact_change_is_an_overlay_the_version_never_changes(snid):
    namespace, approved = snid["namespace"], snid["approved"]
    version_before = json.dumps(Proposal.objects.filter(pk=approved.pk).values().get(), default=str)
    request = _contact(snid, snid["users"]["steward"])
    assert overlay_of(namespace) == {}
    for role in ("steward", "conflicted", "other"):
        with pytest.raises(services.NotAllowed):
            stewardship.change_request_decide(request, snid["users"][role], approve=True)
    decided = stewardship.change_request_decide(request, snid["users"]["editor"], approve=True, note="Thanks.")
    assert decided.state == ChangeState.APPROVED
    assert decided.before == {"registrant_public_contact": approved.registrant_public_contact}
    assert json.dumps(Proposal.objects.filter(pk=approved.pk).values().get(), default=str) == version_before
    namespace.refresh_from_db()
    assert current_with_overlay(namespace).registrant_public()["contact"] == "registry@example.org"
    history = public_history(namespace)
    assert history[-1].summary == "Contact changed by an editor at the steward's request."
    with pytest.raises(services.Conflict, match="already approved"):
        stewardship.change_request_decide(request, snid["users"]["editor"], approve=False)
    with pytest.raises(StewardshipImmutableError):
        ChangeRequest.objects.get(pk=request.pk).save()


@pytest.mark.django_db
def test_approved_change_is_logged_with_the_new_public_record(snid):
    from registry.logcore.kinds import sha256_hex
    from registry.transparency.records import version_record

    stewardship.change_request_decide(_contact(snid, snid["users"]["steward"]), snid["users"]["editor"], approve=True)
    (leaf,) = _leaves("administrative-change")
    current = current_with_overlay(Namespace.objects.select_related("current").get(pk=snid["namespace"].pk))
    assert leaf["snid"] == "example" and leaf["version"] == 1 and leaf["change"] == "contact"
    assert leaf["fields"] == {"contact": "registry@example.org"}
    assert leaf["registrant"]["contact"] == "registry@example.org"
    assert leaf["record_sha256"] == sha256_hex(version_record(current))


@pytest.mark.django_db
def test_unpublished_registrant_details_change_but_are_not_logged_in_the_clear(snid):
    request = stewardship.change_request_create(
        snid["namespace"],
        "registrant",
        {"registrant_email": "private@example.org", "registrant_organisation": "New Org"},
        snid["users"]["steward"],
        reason="Reorganised.",
    )
    stewardship.change_request_decide(request, snid["users"]["editor"], approve=True)
    (leaf,) = _leaves("administrative-change")
    published = set(snid["approved"].registrant_published)
    assert "private@example.org" not in json.dumps(leaf) or "email" in published
    assert overlay_of(snid["namespace"])["registrant_email"] == "private@example.org"


@pytest.mark.django_db
def test_declined_change_leaves_everything_as_it_was(snid):
    request = _contact(snid, snid["users"]["steward"])
    stewardship.change_request_decide(request, snid["users"]["editor"], approve=False, note="Use a role address.")
    assert overlay_of(snid["namespace"]) == {} and not _leaves("administrative-change")
    assert [e.kind for e in public_history(snid["namespace"])].count("change-approved") == 0


@pytest.mark.django_db
def test_overlay_steps_aside_for_a_new_version(snid):
    stewardship.change_request_decide(_contact(snid, snid["users"]["steward"]), snid["users"]["editor"], approve=True)
    version = services.proposal_create(data_factory(version=2), snid["users"]["steward"])
    services.proposal_transition(version, "submit", snid["users"]["steward"])
    services.proposal_transition(version, "approve", snid["users"]["editor"], override_reason="test data")
    namespace = Namespace.objects.select_related("current").get(pk=snid["namespace"].pk)
    assert overlay_of(namespace) == {}
    assert current_with_overlay(namespace).registrant_public_contact == version.registrant_public_contact


@pytest.mark.django_db
def test_history_is_append_only(snid):
    event = StewardshipEvent.objects.first()
    event.summary = "rewritten"
    with pytest.raises(StewardshipImmutableError):
        event.save()
    with pytest.raises(StewardshipImmutableError):
        StewardshipEvent.objects.all().update(summary="rewritten")
    with pytest.raises(StewardshipImmutableError):
        StewardshipEvent.objects.all().delete()


# --- account life -------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_deactivating_the_only_steward_tells_the_editors_and_keeps_the_snid(db):
    editor = user_factory("watching-editor", editor=True)
    owner = user_factory("owner")
    namespace = proposal_factory(owner, state="approved", editor=user_factory(editor=True)).namespace
    mail.outbox.clear()
    owner.is_active = False
    owner.save()
    namespace.refresh_from_db()
    assert namespace.status == "registered" and namespace.current_id
    assert list(snids_without_steward()) == [namespace]
    assert StewardshipEvent.objects.filter(namespace=namespace, kind="steward-deactivated").exists()
    assert [m.subject for m in mail.outbox if editor.email in m.to] == ["[urn:ogf] SNIDs without an active steward"]


@pytest.mark.django_db(transaction=True)
def test_deactivating_one_of_two_stewards_alerts_nobody(db):
    editor = user_factory("watching-editor", editor=True)
    owner, partner = user_factory("owner"), user_factory("partner")
    namespace = proposal_factory(owner, state="approved", editor=user_factory(editor=True)).namespace
    stewardship.steward_add(namespace, partner, editor, reason="Second maintainer.")
    mail.outbox.clear()
    owner.is_active = False
    owner.save()
    assert list(snids_without_steward()) == [] and mail.outbox == []


# --- the tables of moves -------------------------------------------------------------------------


STEWARD_ACTIONS = ("confirm", "decline", "remove")


@pytest.mark.django_db
@pytest.mark.parametrize("start", list(StewardState))
@pytest.mark.parametrize("action", STEWARD_ACTIONS)
def test_a_stewardship_moves_only_along_its_table(snid, start, action):
    """Every (state, action) pair: the moves of the table happen and write their event; every other is a
    Conflict that writes nothing."""
    from django.utils import timezone

    from registry.stewardship.models import STEWARD_MOVE_BY_KEY

    steward = Steward.objects.create(
        namespace=snid["namespace"],
        user=user_factory(f"s-{start}-{action}"),
        state=start,
        invited_by=snid["users"]["steward"],
        confirmed_at=timezone.now(),
    )
    events = StewardshipEvent.objects.count()
    editor = snid["users"]["editor"]
    move = STEWARD_MOVE_BY_KEY.get((start, action))
    if move is not None:
        changed = stewardship.steward_transition(
            snid["namespace"], action, editor, steward=steward, reason="Recorded reason."
        )
        assert changed.state == move.target
        event = StewardshipEvent.objects.latest("id")
        assert event.kind == move.event and event.data["user"] == steward.user.username
        assert event.public is move.public
    else:
        with pytest.raises(services.Conflict):
            stewardship.steward_transition(snid["namespace"], action, editor, steward=steward, reason="Why.")
        assert Steward.objects.get(pk=steward.pk).state == start
        assert StewardshipEvent.objects.count() == events


@pytest.mark.django_db
def test_the_tables_derive_the_state_pairs_and_every_move_names_an_event_and_a_mail():
    from django.template.loader import get_template

    from registry.stewardship.models import CHANGE_MOVES, CHANGE_TRANSITIONS, STEWARD_MOVES, STEWARD_TRANSITIONS

    assert STEWARD_TRANSITIONS == {
        ("invited", "active"): "steward-confirmed",
        ("invited", "declined"): "steward-declined",
        ("active", "removed"): "steward-removed",
    }
    assert CHANGE_TRANSITIONS == {
        ("pending", "approved"): "change-approved",
        ("pending", "declined"): "change-declined",
    }
    for move in (*STEWARD_MOVES, *CHANGE_MOVES):
        get_template(f"registry/email/{move.mail}.txt")  # every move tells everyone concerned


@pytest.mark.django_db
@pytest.mark.parametrize("start", list(ChangeState))
@pytest.mark.parametrize("action", ["approve", "decline"])
def test_a_change_request_moves_only_along_its_table(snid, start, action):
    from registry.stewardship.models import CHANGE_MOVE_BY_KEY

    request = _contact(snid, snid["users"]["steward"])
    ChangeRequest.objects.filter(pk=request.pk).update(state=start)
    events = StewardshipEvent.objects.count()
    editor = snid["users"]["editor"]
    move = CHANGE_MOVE_BY_KEY.get((start, action))
    if move is not None:
        changed = stewardship.change_request_transition(request, action, editor, note="n")
        assert (changed.state, changed.decided_by, changed.decision_note) == (move.target, editor, "n")
        assert StewardshipEvent.objects.latest("id").kind == move.event
    else:
        with pytest.raises(services.Conflict):
            stewardship.change_request_transition(request, action, editor)
        assert ChangeRequest.objects.get(pk=request.pk).state == start
        assert StewardshipEvent.objects.count() == events
