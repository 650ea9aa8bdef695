"""The review decides what the editor saw and judged: one approval rule, every change of a round shown,
one count everywhere, every editor's action confirmed, words people read."""

import dataclasses
import datetime as dt
import io
import json

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.utils import timezone

from registry import services
from registry.enums import ProposalState
from registry.logcore.kinds import leaf_decode
from registry.models import Namespace, Proposal
from registry.transparency.models import LogEntry
from registry.verdicts import counts_sentence

from ..confirming import decide, reservation_act, seen_of
from ..factories import FIXTURES, api_decide, approve, judge_all, proposal_factory, user_factory

FOUR = ("scope", "snid-durable", "subdelegation", "immutability")


@pytest.fixture
def people(db):
    return {"applicant": user_factory("ann"), "editor": user_factory("eve", editor=True)}


def judged_scope_not_satisfied(proposal, editor):
    services.judgements_set(
        proposal,
        editor,
        {c: (c != "scope", "Grid middleware only." if c == "scope" else "") for c in FOUR},
    )


# --- one rule for approval --------------------------------------------------------------------------


@pytest.mark.django_db
def test_approval_over_a_judgement_not_satisfied_needs_a_reason_shown_publicly_logged_and_mailed(
    client, people, django_capture_on_commit_callbacks
):
    proposal = proposal_factory(people["applicant"], state="submitted")
    judged_scope_not_satisfied(proposal, people["editor"])
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}).content.decode()
    assert "The review's rule stops this approval" in page
    assert 'data-kind="not-satisfied">Within the OGF&#x27;s scope: judged not satisfied' in page
    assert "Approve anyway, with this reason" in page and 'name="override_reason" rows="6"' in page

    refused = decide(client, proposal.pk, "approve")  # "Yes" without a reason
    assert refused.status_code == 400 and "needs your written reason" in refused.content.decode()
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.SUBMITTED and not Namespace.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        decide(client, proposal.pk, "approve", override_reason="The WG charter puts it in scope.")
    stored = Proposal.objects.get(pk=proposal.pk)
    assert stored.state == ProposalState.APPROVED
    assert stored.override_reason == "The WG charter puts it in scope."
    assert [b["sentence"] for b in stored.overridden] == ["Within the OGF's scope: judged not satisfied"]
    assert stored.events.last().data["overridden"] == stored.overridden

    public = client.get("/urn/example/").content.decode()
    assert "Approved although" in public and "Within the OGF&#x27;s scope: judged not satisfied" in public
    assert "<strong>because</strong> The WG charter puts it in scope." in public
    assert "Grid middleware only." not in public  # the editor's note stays in the review

    leaf = leaf_decode(LogEntry.objects.filter(kind="snid-version").get().leaf.encode())
    assert leaf["approval"]["overridden"] == ["Within the OGF's scope: judged not satisfied"]
    assert leaf["approval"]["override_reason"] == "The WG charter puts it in scope."
    log_page = client.get("/log/").content.decode()
    assert "approved although Within the OGF&#x27;s scope: judged not satisfied" in log_page

    decision = [m for m in mail.outbox if "is registered" in m.subject][-1]
    assert decision.to == ["ann@example.org"]
    assert "It was approved although:\n- Within the OGF's scope: judged not satisfied\n" in decision.body
    assert "because: The WG charter puts it in scope." in decision.body


@pytest.mark.django_db
def test_approval_with_every_judgement_satisfied_needs_no_reason_and_says_nothing_publicly(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    judge_all(proposal, people["editor"])
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}).content.decode()
    assert "rule stops this approval" not in page and "Yes, approve" in page
    decide(client, proposal.pk, "approve")
    stored = Proposal.objects.get(pk=proposal.pk)
    assert stored.state == ProposalState.APPROVED and stored.overridden == [] and stored.override_reason == ""
    assert "Approved although" not in client.get("/urn/example/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("judged", ["not-satisfied", "not-recorded"])
def test_api_approval_keeps_the_same_rule(client, people, judged):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    verdicts = {c: {"ok": c != "immutability"} for c in FOUR}
    if judged == "not-recorded":
        del verdicts["immutability"]
    recorded = client.post(
        f"/api/proposals/{proposal.pk}/judgements/", {"judgements": verdicts}, content_type="application/json"
    )
    assert recorded.status_code == 200
    refused = api_decide(client, proposal.pk, "approve")
    assert refused.status_code == 400
    expected = "Identifier immutability: " + ("judged not satisfied" if judged == "not-satisfied" else "not judged")
    assert expected in refused.content.decode()
    approved = api_decide(client, proposal.pk, "approve", override_reason="Identifiers are minted once.")
    assert approved.status_code == 200 and approved.json()["state"] == "approved"
    assert [b["sentence"] for b in Proposal.objects.get(pk=proposal.pk).overridden] == [expected]


@pytest.mark.django_db
@pytest.mark.parametrize(("who", "status"), [(None, 403), ("applicant", 403), ("editor", 200)])
def test_api_judgements_are_for_editors(client, people, who, status):
    proposal = proposal_factory(people["applicant"], state="submitted")
    if who:
        client.force_login(people[who])
    response = client.post(
        f"/api/proposals/{proposal.pk}/judgements/",
        {"judgements": {"scope": {"ok": True}}},
        content_type="application/json",
    )
    assert response.status_code == status
    assert proposal.judgements.count() == (1 if status == 200 else 0)
    if status == 200:
        bad = client.post(
            f"/api/proposals/{proposal.pk}/judgements/",
            {"judgements": {"scoop": {"ok": True}}},
            content_type="application/json",
        )
        assert bad.status_code == 400 and "Unknown judgement(s) scoop" in bad.content.decode()


@pytest.mark.django_db
def test_import_proposal_approve_keeps_the_same_rule(people):
    source = str(FIXTURES / "proposals" / "example.json")
    args = ("import_proposal", source, "--submitter", "ann", "--approve", "--editor", "eve")
    with pytest.raises(CommandError, match="Within the OGF's scope: not judged"):
        call_command(*args, stdout=io.StringIO())
    out, said = io.StringIO(), io.StringIO()
    call_command(*args, "--judge=scope=not-satisfied", "--override-reason", "Charter says so.", stdout=out, stderr=said)
    approved = Proposal.objects.get(pk=int(out.getvalue()))
    assert said.getvalue().startswith("Approved although: Within the OGF's scope: judged not satisfied; SNID durable")
    assert said.getvalue().strip().endswith("— because: Charter says so.")
    assert approved.state == ProposalState.APPROVED and approved.override_reason == "Charter says so."
    assert [b["kind"] for b in approved.overridden] == ["not-satisfied", "not-recorded", "not-recorded", "not-recorded"]
    with pytest.raises(CommandError, match="say scope=satisfied or scope=not-satisfied"):
        call_command(*args, "--judge=scope=yes", stdout=io.StringIO())


# --- every decision rests on its confirmation page -------------------------------------------------------


@pytest.mark.django_db
def test_a_decision_that_skipped_its_confirmation_changes_nothing(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    judge_all(proposal, people["editor"])
    client.force_login(people["editor"])
    response = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve", "confirm": "yes"})
    page = response.content.decode()
    assert response.status_code == 409 and "Nothing was decided" in page and "Yes, approve" in page
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.SUBMITTED
    forged = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve", "confirm": "yes", "seen": "0" * 64})
    assert forged.status_code == 409 and Proposal.objects.get(pk=proposal.pk).state == ProposalState.SUBMITTED


@pytest.mark.django_db
def test_a_decision_is_shown_again_when_a_judgement_changed_after_its_page(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    judge_all(proposal, people["editor"])
    client.force_login(people["editor"])
    shown = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"})
    # Another editor records "not satisfied" while the first reads the confirmation page.
    services.judgement_set(proposal, user_factory("olga", editor=True), "scope", ok=False)
    response = client.post(
        f"/review/{proposal.pk}/decide/", {"action": "approve", "confirm": "yes", "seen": seen_of(shown)}
    )
    page = response.content.decode()
    assert response.status_code == 409 and "has changed since this page was shown" in page
    assert "Within the OGF&#x27;s scope: judged not satisfied" in page
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.SUBMITTED


@pytest.mark.django_db
def test_a_text_resubmitted_between_the_token_check_and_the_lock_is_not_decided(client, people, monkeypatch):
    """The page's token is compared before the service locks the row; an applicant who pulls back, edits
    and resubmits in between (no new blocker) must not have the new text approved unread."""
    from registry.views import review_decide

    proposal = proposal_factory(people["applicant"], state="submitted")
    judge_all(proposal, people["editor"])
    client.force_login(people["editor"])
    shown = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"})
    compared = review_decide.seen_matches

    def then_the_applicant_resubmits(*args):
        answer = compared(*args)
        applicant = people["applicant"]
        services.proposal_transition(Proposal.objects.get(pk=proposal.pk), "pull_back", applicant)
        data = proposal.to_data()
        data.title = "Another text, never read"
        services.proposal_update(Proposal.objects.get(pk=proposal.pk), data, applicant)
        services.proposal_transition(Proposal.objects.get(pk=proposal.pk), "submit", applicant)
        return answer

    monkeypatch.setattr(review_decide, "seen_matches", then_the_applicant_resubmits)
    response = client.post(
        f"/review/{proposal.pk}/decide/", {"action": "approve", "confirm": "yes", "seen": seen_of(shown)}
    )
    page = response.content.decode()
    assert response.status_code == 409 and "was changed (pulled back, edited or resubmitted)" in page
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.SUBMITTED


@pytest.mark.django_db
def test_the_confirmation_shows_every_check_and_judgement_it_decides_on(client, people):
    proposal = proposal_factory(people["applicant"], name="urn-5", state="submitted")
    services.judgement_set(proposal, people["editor"], "scope", ok=True, note="An OGF WG's namespace.")
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "reject", "comment": "No."}).content.decode()
    assert "What you decide on" in page
    for check in ("Valid examples accepted", "Within the OGF&#x27;s scope", "SNID durable"):
        assert check in page
    assert "satisfied (eve," in page and "An OGF WG&#x27;s namespace." in page
    assert "not judged" in page
    assert '<span class="count fail">1 failing</span>' in page


# --- a round's changes, all of them ----------------------------------------------------------------------


def revised(proposal, applicant):
    """Round 2: the title, a resolver, the registrant's organisation and section 4.1 changed."""
    data = proposal.to_data()
    sections = {**data.sections, "scope": data.sections["scope"] + "\n\nAlso for storage clusters."}
    registrant = dataclasses.replace(data.registrant, organisation="Open Grid Forum, Storage WG")
    resolver = {"name": "Cluster catalogue", "template": "https://catalogue.example.net/{DOMAIN}/{INDEX}"}
    data = dataclasses.replace(
        data, title="Clusters and storage", sections=sections, registrant=registrant, resolvers=[resolver]
    )
    services.proposal_update(proposal, data, applicant)
    return services.proposal_transition(proposal, "submit", applicant)


@pytest.mark.django_db
def test_changes_since_the_decided_round_show_title_resolvers_registrant_and_sections(client, people):
    proposal = proposal_factory(people["applicant"], state="changes_requested", editor=people["editor"])
    revised(proposal, people["applicant"])
    client.force_login(people["editor"])
    review = client.get(f"/review/{proposal.pk}/").content.decode()
    confirm = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}).content.decode()
    for page in (review, confirm):
        assert "<ins>+ Clusters and storage</ins>" in page  # the title
        assert "1.3 Declared Registrant" in page and "<ins>+ Organisation: Open Grid Forum, Storage WG</ins>" in page
        assert "4.1 Scope" in page and "Also for storage clusters." in page
        assert '<tr class="resolver-added"><td data-label="Resolver">Cluster catalogue</td>' in page
        assert "https://catalogue.example.net/{DOMAIN}/{INDEX}" in page
    assert "Changes since round 1" in review and "What changed since round 1" in confirm


@pytest.mark.django_db
def test_changes_are_counted_from_the_round_last_decided_on_after_a_pull_back(client, people):
    proposal = proposal_factory(people["applicant"], state="changes_requested", editor=people["editor"])
    revised(proposal, people["applicant"])  # round 2
    services.proposal_transition(proposal, "pull_back", people["applicant"])
    services.proposal_transition(proposal, "submit", people["applicant"])  # round 3, nothing new
    client.force_login(people["editor"])
    review = client.get(f"/review/{proposal.pk}/").content.decode()
    assert "Changes since round 1" in review and "<ins>+ Clusters and storage</ins>" in review


# --- one count everywhere ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_counts_agree_on_the_queue_the_review_page_the_history_my_proposals_and_the_mails(
    client, people, django_capture_on_commit_callbacks
):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    assert "4 for the editor&#x27;s judgement" in client.get("/review/").content.decode()
    judge_all(proposal, people["editor"])
    queue = client.get("/review/").content.decode()
    assert '<span class="count editor">0 for the editor&#x27;s judgement</span>' in queue

    judged_scope_not_satisfied(proposal, people["editor"])
    expected = '<span class="count fail">1 failing</span>'
    assert expected in client.get("/review/").content.decode()
    assert expected in client.get(f"/review/{proposal.pk}/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        decide(client, proposal.pk, "request_changes", comment="Say why it is in scope.")
    client.force_login(people["applicant"])
    assert expected in client.get("/proposals/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        services.proposal_transition(proposal, "submit", people["applicant"])
    stored = Proposal.objects.get(pk=proposal.pk).findings_summary
    said = counts_sentence(stored)  # "1 failing, N with a warning, 0 for the editor's judgement"
    assert said.startswith("1 failing, ") and said.endswith(" 0 for the editor's judgement")
    resubmitted = mail.outbox[-1]
    assert "submitted again" in resubmitted.subject and f"The review's counts: {said}." in resubmitted.body
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    assert f"Counts then: {said}.".replace("'", "&#x27;") in page
    assert f'<span class="count warning">{stored["warning"]} with a warning</span>' in page
    assert (
        f'<span class="count warning">{stored["warning"]} with a warning</span>'
        in client.get("/review/").content.decode()
    )


@pytest.mark.django_db
def test_an_approved_proposal_keeps_the_counts_it_was_approved_on(client, people):
    proposal = proposal_factory(people["applicant"], state="approved", editor=people["editor"])
    client.force_login(people["editor"])
    queue = client.get("/review/?state=approved").content.decode()
    assert '<span class="count editor">0 for the editor&#x27;s judgement</span>' in queue
    assert Proposal.objects.get(pk=proposal.pk).findings_summary["editor"] == 0


# --- every editor's action is a decision ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["reserve", "renew", "release"])
def test_reservation_actions_ask_first_and_a_post_that_skipped_the_page_changes_nothing(client, people, action):
    until = (timezone.localdate() + dt.timedelta(days=20)).isoformat()
    if action != "reserve":
        services.namespace_reserve("glue", people["editor"], until=timezone.localdate(), reason="GLUE")
    before = list(Namespace.objects.values_list("snid", "reserved_until", "released_at"))
    entries = LogEntry.objects.count()
    client.force_login(people["editor"])
    fields = {"action": action, "snid": "glue", "until": until}
    shown = client.get("/review/reservations/act/", fields)
    page = shown.content.decode()
    assert shown.status_code == 200 and "What will happen" in page and "Who is told" in page
    assert list(Namespace.objects.values_list("snid", "reserved_until", "released_at")) == before
    skipped = client.post("/review/reservations/act/", fields)
    assert skipped.status_code == 409 and "Nothing was done" in skipped.content.decode()
    assert list(Namespace.objects.values_list("snid", "reserved_until", "released_at")) == before
    assert LogEntry.objects.count() == entries
    done = reservation_act(client, **fields)
    assert done.status_code == 302 and LogEntry.objects.count() == entries + 1


@pytest.mark.django_db
def test_a_released_reservation_says_when_and_by_whom_on_its_page_and_in_the_log(client, people):
    services.namespace_reserve("glue", people["editor"], until=dt.date(2027, 1, 31), reason="GLUE")
    client.force_login(people["editor"])
    shown = client.get("/review/reservations/act/", {"action": "release", "snid": "glue"}).content.decode()
    assert "it was to run until 2027-01-31" in shown and "Nobody is mailed: it was held for nobody" in shown
    reservation_act(client, action="release", snid="glue")
    today = timezone.localdate().isoformat()
    listed = client.get("/review/reservations/").content.decode()
    assert f"<code>urn:ogf:glue:</code> released on {today} by eve" in listed and "<h2>Expired</h2>" not in listed
    leaf = json.loads(LogEntry.objects.filter(kind="reservation-ended").get().leaf)
    assert (leaf["how"], leaf["released_on"], leaf["released_by"], leaf["reserved_until"]) == (
        "released",
        today,
        "eve",
        "2027-01-31",
    )
    log_page = client.get("/log/").content.decode()
    assert f"Reservation released on {today} by eve (it was to run until 2027-01-31)" in log_page


# --- words of people ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_history_names_judgements_as_the_panel_does(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    services.judgement_set(proposal, people["editor"], "snid-durable", ok=True)
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    assert "Editor eve judged “SNID durable”: satisfied." in page and "judged snid-durable" not in page


@pytest.mark.django_db
def test_my_proposals_says_what_happened_in_the_past_tense(client, people):
    proposal_factory(people["applicant"], state="approved", editor=people["editor"])
    proposal_factory(people["applicant"], snid="other", state="submitted")
    client.force_login(people["applicant"])
    page = client.get("/proposals/").content.decode()
    assert 'data-label="Last change">Approved ' in page and 'data-label="Last change">Submitted ' in page
    assert "Submit for review" not in page and ">Approve <" not in page


@pytest.mark.django_db
def test_the_kind_of_a_proposal_is_fixed_when_it_is_submitted(client, people):
    first = proposal_factory(people["applicant"], state="approved", editor=people["editor"])
    data = dataclasses.replace(first.to_data(), version=2, title="Version two")
    second = services.proposal_create(data, people["applicant"])
    services.proposal_transition(second, "submit", people["applicant"])
    approve(second, people["editor"])
    assert (Proposal.objects.get(pk=first.pk).kind, Proposal.objects.get(pk=second.pk).kind) == (
        "new-snid",
        "new-version",
    )
    client.force_login(people["editor"])
    queue = client.get("/review/?state=approved").content.decode()
    assert queue.count("new version (2)") == 1 and "new version (1)" not in queue
    assert queue.count('data-label="Kind">new SNID') == 1


@pytest.mark.django_db
def test_a_release_tells_whom_it_was_held_for_and_cannot_be_repeated(
    client, people, django_capture_on_commit_callbacks
):
    services.namespace_reserve(
        "glue", people["editor"], until=dt.date(2027, 1, 31), reason="GLUE", reserved_for=people["applicant"]
    )
    client.force_login(people["editor"])
    shown = client.get("/review/reservations/act/", {"action": "release", "snid": "glue", "note": "WG closed."})
    assert "ann, for whom it was held, gets an e-mail saying so with your note." in shown.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        reservation_act(client, action="release", snid="glue", note="WG closed.")
    told = mail.outbox[-1]
    assert told.to == ["ann@example.org"] and "was released" in told.subject and "WG closed." in told.body
    again = client.get("/review/reservations/act/", {"action": "release", "snid": "glue"})
    page = again.content.decode()
    assert again.status_code == 409 and "has no active reservation to release" in page and "Release the" not in page
    entries = LogEntry.objects.count()
    with pytest.raises(services.Conflict, match="no active reservation"):
        services.namespace_release("glue", people["editor"])
    assert LogEntry.objects.count() == entries


@pytest.mark.django_db
def test_a_reservation_that_cannot_be_made_is_refused_on_its_confirmation_page(client, people):
    proposal_factory(people["applicant"], state="approved", editor=people["editor"])
    client.force_login(people["editor"])
    until = (timezone.localdate() + dt.timedelta(days=5)).isoformat()
    taken = client.get("/review/reservations/act/", {"action": "reserve", "snid": "example", "until": until})
    assert taken.status_code == 409 and "urn:ogf:example: is already registered." in taken.content.decode()
    assert "What will happen" not in taken.content.decode()


@pytest.mark.django_db
def test_the_review_names_a_closed_account_by_its_public_name_never_its_user_name(client, people):
    """The person left: the queue, the review page, its history and its threads keep what they did,
    named as the public pages name them ("Ann Applicant (account closed)"), not by the login name."""
    from registry.people import account_close

    applicant = people["applicant"]
    applicant.first_name, applicant.last_name = "Ann", "Applicant"
    applicant.save()
    proposal = proposal_factory(applicant, state="submitted")
    services.thread_start(proposal, applicant, "A question about 4.1.", section="scope")
    account_close(applicant)
    client.force_login(people["editor"])
    queue = client.get("/review/").content.decode()
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    for shown in (queue, page):
        assert "Ann Applicant (account closed)" in shown
        assert ">ann<" not in shown and " ann " not in shown and "by ann" not in shown
    assert "Applicant Ann Applicant (account closed) submitted" in page.replace("\n", " ")


@pytest.mark.django_db
def test_a_reason_never_covers_a_blocker_the_confirmation_page_did_not_show(client, people):
    """The page listed one blocker; when the decision is made the checks give another (here: the SNID
    was reserved for someone else in between): nothing is decided, and the page is shown again with it."""
    from registry.errors import SeenChanged

    proposal = proposal_factory(people["applicant"], state="submitted")
    judged_scope_not_satisfied(proposal, people["editor"])
    seen = ["Within the OGF's scope: judged not satisfied"]
    services.namespace_reserve(
        "example",
        user_factory("other-editor", editor=True),
        until=timezone.localdate() + dt.timedelta(days=9),
        reason="For another group.",
    )
    with pytest.raises(SeenChanged, match="SNID free to register: fails"):
        services.proposal_transition(
            proposal, "approve", people["editor"], override_reason="In scope after all.", seen_blockers=seen
        )
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.SUBMITTED
    # Through the page: confirmed as shown, it is decided on what was shown.
    services.namespace_release("example", user_factory("third-editor", editor=True))
    client.force_login(people["editor"])
    done = decide(client, proposal.pk, "approve", override_reason="In scope after all.")
    assert done.status_code == 302 and Proposal.objects.get(pk=proposal.pk).state == ProposalState.APPROVED


@pytest.mark.django_db
def test_the_review_page_says_so_when_the_stored_counts_differ_from_the_checks_run_now(client, people):
    """A check that could not be made at submission is counted "not run" on the queue; run now it gives
    a verdict: the review page shows the counts of now and says what the queue still says."""
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    assert 'id="counts-stored"' not in client.get(f"/review/{proposal.pk}/").content.decode()
    stored = Proposal.objects.get(pk=proposal.pk).findings_summary
    Proposal.objects.filter(pk=proposal.pk).update(
        findings_summary={**stored, "pass": stored["pass"] - 1, "not_run": stored["not_run"] + 1}
    )
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    said = counts_sentence({**stored, "not_run": stored["not_run"] + 1}).replace("'", "&#x27;")
    assert 'id="counts-stored"' in page and f"the last check of this proposal: {said}." in page
