"""The workflow: every transition from every state, as the right and the wrong actor."""

import datetime as dt
import threading

import pytest
from django.db import connection

from registry import services
from registry.enums import TRANSITIONS, Actor, NamespaceStatus, ProposalAction, ProposalState
from registry.models import Namespace, Proposal, ProposalEvent

from .factories import approve, data_factory, judge_all, proposal_factory, user_factory

ALL_STATES = list(ProposalState.values)
ALL_ACTIONS = list(ProposalAction.values)
ALLOWED = {(t.source, t.action): (t.target, t.actor) for t in TRANSITIONS}


def _actor_for(role, proposal, editor):
    return proposal.submitter if role == Actor.SUBMITTER else editor


@pytest.mark.django_db
@pytest.mark.parametrize("state", ALL_STATES)
@pytest.mark.parametrize("action", ALL_ACTIONS)
def test_transition_matrix(state, action):
    editor = user_factory(editor=True)
    proposal = proposal_factory(state=state, editor=editor)
    events_before = proposal.events.count()
    allowed = ALLOWED.get((state, action))
    role = (
        allowed[1]
        if allowed
        else (Actor.EDITOR if action in ("approve", "reject", "request_changes") else Actor.SUBMITTER)
    )
    actor = _actor_for(role, proposal, editor)
    kwargs = {"comment": "because", "override_reason": "test"}
    if allowed is None:
        with pytest.raises(services.Conflict):
            services.proposal_transition(proposal, action, actor, **kwargs)
        assert Proposal.objects.get(pk=proposal.pk).state == state
        assert proposal.events.count() == events_before
        return
    moved = services.proposal_transition(proposal, action, actor, **kwargs)
    assert moved.state == allowed[0]
    new_events = list(proposal.events.order_by("id"))[events_before:]
    assert [(e.action, e.from_state, e.to_state, e.actor_id) for e in new_events] == [
        (action, state, allowed[0], actor.pk)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("transition", TRANSITIONS, ids=lambda t: f"{t.source}-{t.action}")
def test_transition_refused_for_the_wrong_actor(transition):
    editor = user_factory(editor=True)
    proposal = proposal_factory(state=transition.source, editor=editor)
    wrong = [user_factory()]  # a stranger
    wrong.append(editor if transition.actor == Actor.SUBMITTER else proposal.submitter)
    for actor in wrong:
        with pytest.raises(services.NotAllowed):
            services.proposal_transition(proposal, transition.action, actor, comment="c", override_reason="r")
    assert Proposal.objects.get(pk=proposal.pk).state == transition.source


@pytest.mark.django_db
def test_editor_cannot_decide_on_own_proposal():
    editor = user_factory(editor=True)
    proposal = proposal_factory(editor, state="submitted")
    with pytest.raises(services.NotAllowed, match="own proposals"):
        services.proposal_transition(proposal, "approve", editor, override_reason="x")


@pytest.mark.django_db
def test_request_changes_and_reject_need_a_comment(editor):
    proposal = proposal_factory(state="submitted")
    for action in ("request_changes", "reject"):
        with pytest.raises(services.ServiceError, match="needs a comment"):
            services.proposal_transition(proposal, action, editor, comment="  ")


@pytest.mark.django_db
def test_submit_is_refused_while_required_sections_are_missing(applicant):
    data = data_factory()
    data.sections.pop("scope")
    proposal = services.proposal_create(data, applicant)
    with pytest.raises(services.ServiceError, match="4.1 Scope"):
        services.proposal_transition(proposal, "submit", applicant)
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.DRAFT


@pytest.mark.django_db
def test_approve_is_refused_while_a_check_fails_unless_overridden(applicant, editor):
    proposal = proposal_factory(applicant, name="urn-5", state="submitted")
    judge_all(proposal, editor)
    with pytest.raises(services.ServiceError, match="Valid examples accepted: fails"):
        services.proposal_transition(proposal, "approve", editor)
    approved = services.proposal_transition(proposal, "approve", editor, override_reason="Published as is in 2003.")
    event = approved.events.last()
    assert event.data["override_reason"] == "Published as is in 2003."
    assert event.data["summary"]["fail"] >= 1


@pytest.mark.django_db
def test_submit_and_approve_events_store_the_findings_snapshot(applicant, editor):
    proposal = proposal_factory(applicant, state="approved", editor=editor)
    events = {e.action: e for e in proposal.events.all()}
    for action in ("submit", "approve"):
        ids = {f["id"] for f in events[action].data["findings"]}
        assert {"snid-syntax", "examples-valid", "scope"} <= ids


@pytest.mark.django_db
def test_approval_registers_the_snid_as_version_1(applicant, editor):
    proposal = proposal_factory(applicant, state="approved", editor=editor)
    namespace = Namespace.objects.get()
    assert (namespace.snid, namespace.status, namespace.current_id) == (
        "example",
        NamespaceStatus.REGISTERED,
        proposal.pk,
    )
    assert (proposal.version, proposal.registration_date) == (1, dt.date.today())


@pytest.mark.django_db
def test_new_versions_are_numbered_previous_plus_one(applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor)
    versions = []
    for _ in range(2):
        data = data_factory(version=len(versions) + 2)
        draft = services.proposal_create(data, applicant)
        assert draft.namespace is not None  # recognised as a new version of own SNID
        services.proposal_transition(draft, "submit", applicant)
        versions.append(approve(draft, editor).version)
    assert versions == [2, 3]
    assert Namespace.objects.get().current.version == 3


@pytest.mark.django_db
def test_someone_elses_registered_snid_cannot_be_approved_again(applicant, other_applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor)
    rival = proposal_factory(other_applicant, state="submitted")
    with pytest.raises(services.Conflict, match="already registered"):
        services.proposal_transition(rival, "approve", editor, override_reason="try")
    assert Proposal.objects.get(pk=rival.pk).state == ProposalState.SUBMITTED


@pytest.mark.django_db
def test_reserved_snid_blocks_others_until_it_expires(applicant, other_applicant, editor):
    services.namespace_reserve(
        "example", editor, until=dt.date.today() + dt.timedelta(days=30), reason="WG request", reserved_for=applicant
    )
    rival = proposal_factory(other_applicant, state="submitted")
    with pytest.raises(services.Conflict, match="reserved"):
        services.proposal_transition(rival, "approve", editor, override_reason="x")
    own = proposal_factory(applicant, state="submitted")
    approve(own, editor)
    assert Namespace.objects.get().status == NamespaceStatus.REGISTERED


@pytest.mark.django_db
def test_only_editors_reserve(applicant):
    with pytest.raises(services.NotAllowed):
        services.namespace_reserve("mine", applicant, until=dt.date.today(), reason="")


@pytest.mark.django_db
def test_update_only_by_submitter_and_only_while_editable(applicant, other_applicant):
    proposal = proposal_factory(applicant)
    changed = data_factory(title="New title")
    assert services.proposal_update(proposal, changed, applicant).title == "New title"
    with pytest.raises(services.NotAllowed):
        services.proposal_update(proposal, changed, other_applicant)
    services.proposal_transition(proposal, "submit", applicant)
    with pytest.raises(services.Conflict, match="can no longer be edited"):
        services.proposal_update(proposal, changed, applicant)


# --- real concurrency, PostgreSQL only -------------------------------------------------------


def _race(count, work):
    """Run ``work(i)`` in ``count`` threads released together; return results or errors."""
    barrier, results = threading.Barrier(count), [None] * count

    def run(index):
        try:
            barrier.wait()
            results[index] = work(index)
        except Exception as exc:  # collected and asserted on by the caller
            results[index] = exc
        finally:
            connection.close()  # each thread has its own connection

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.django_db(transaction=True)
def test_simultaneous_decisions_on_one_proposal_exactly_one_wins(postgres):
    editors = [user_factory(editor=True) for _ in range(20)]
    proposal = proposal_factory(state="submitted")
    actions = ["approve", "reject", "request_changes"]
    results = _race(
        20,
        lambda i: services.proposal_transition(proposal, actions[i % 3], editors[i], comment="c", override_reason="r"),
    )
    winners = [r for r in results if isinstance(r, Proposal)]
    assert len(winners) == 1
    assert all(isinstance(r, services.Conflict) for r in results if r not in winners)
    decisions = ProposalEvent.objects.filter(proposal=proposal, action__in=actions)
    assert decisions.count() == 1


@pytest.mark.django_db(transaction=True)
def test_simultaneous_approvals_for_one_snid_register_it_once(postgres):
    editor = user_factory(editor=True)
    proposals = [proposal_factory(state="submitted") for _ in range(20)]
    results = _race(20, lambda i: services.proposal_transition(proposals[i], "approve", editor, override_reason="race"))
    assert sum(isinstance(r, Proposal) for r in results) == 1
    assert Namespace.objects.count() == 1
    assert Proposal.objects.filter(state=ProposalState.APPROVED).count() == 1


@pytest.mark.django_db
def test_findings_are_stored_on_every_save(applicant):
    proposal = proposal_factory(applicant, name="urn-5")
    assert proposal.findings_summary["fail"] == 1  # its counter-example (2.3's wording is the editor's to judge)
    fixed = data_factory("urn-5")
    fixed.examples.valid.pop()  # drop the example its grammar rejects
    fixed.sections["encoding"] = "Percent-escaping is not used."
    updated = services.proposal_update(proposal, fixed, applicant)
    stored = Proposal.objects.get(pk=proposal.pk)
    assert stored.findings_summary == updated.findings_summary
    assert stored.findings_summary["fail"] == 0
    assert {f["id"] for f in stored.findings} >= {"examples-valid", "scope"}


@pytest.mark.django_db(transaction=True)
def test_simultaneous_new_versions_get_consecutive_numbers(postgres):
    applicant = user_factory()
    editors = [user_factory(editor=True) for _ in range(10)]
    proposal_factory(applicant, state="approved", editor=editors[0])
    revisions = []
    for _ in range(10):
        draft = services.proposal_create(data_factory(version=2), applicant)
        revisions.append(services.proposal_transition(draft, "submit", applicant))
    results = _race(
        10, lambda i: services.proposal_transition(revisions[i], "approve", editors[i], override_reason="race")
    )
    assert all(isinstance(r, Proposal) for r in results), results
    versions = sorted(Proposal.objects.approved().values_list("version", flat=True))
    assert versions == list(range(1, 12))
    assert Namespace.objects.get().current.version == 11
    approvals = ProposalEvent.objects.filter(action="approve")
    assert approvals.count() == 11  # every approval logged once, none lost


@pytest.mark.django_db
def test_reservations_need_a_valid_snid_and_a_date_not_past(editor):
    with pytest.raises(services.ServiceError, match="must start with a letter or digit"):
        services.namespace_reserve("-bad", editor, until=dt.date.today(), reason="")
    with pytest.raises(services.ServiceError, match="today or later"):
        services.namespace_reserve("good", editor, until=dt.date.today() - dt.timedelta(days=1), reason="")
    with pytest.raises(services.ServiceError, match="today or later"):
        services.namespace_reserve("good", editor, until=None, reason="")
    assert Namespace.objects.count() == 0


@pytest.mark.django_db
def test_threads_of_a_decided_proposal_are_closed():
    applicant, editor = user_factory("ann"), user_factory("eve", editor=True)
    proposal = proposal_factory(applicant, state="submitted")
    thread = services.thread_start(proposal, editor, "Say who assigns.", section="scope")
    services.proposal_transition(proposal, "approve", editor, override_reason="test data")
    proposal.refresh_from_db()
    for change in (
        lambda: services.comment_reply(thread, applicant, "Too late?"),
        lambda: services.thread_resolve(thread, editor),
        lambda: services.thread_start(proposal, editor, "After the fact."),
    ):
        with pytest.raises(services.Conflict, match="its review is closed"):
            change()
    assert (proposal.comments.count(), proposal.comments.get().resolved_at) == (1, None)
