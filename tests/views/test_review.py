"""The GFD editor's dashboard, as anonymous / applicant / editor."""

import datetime as dt
import io

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from registry import services
from registry.enums import ProposalState
from registry.models import Comment, Judgement, Namespace, Proposal, ReservationRequest

from ..factories import data_factory, expired_reservation, proposal_factory, user_factory


@pytest.fixture
def people(db):
    return {"applicant": user_factory("ann"), "editor": user_factory("eve", editor=True)}


def status_of(response) -> str:
    if response.status_code == 302 and "/accounts/login/" in response["Location"]:
        return "login"
    return str(response.status_code)


GETS = ["/review/", "/review/{pk}/", "/review/reservations/", "/review/snid/example/"]
POSTS = ["/review/{pk}/decide/", "/review/{pk}/comment/", "/review/{pk}/judgement/", "/review/reservations/act/"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", GETS + POSTS)
@pytest.mark.parametrize(("role", "expected_get", "expected_post"), [
    ("anonymous", "login", "login"), ("applicant", "403", "403"), ("editor", "200", "302")])
def test_dashboard_permissions(client, people, path, role, expected_get, expected_post):
    proposal = proposal_factory(people["applicant"], state="submitted")
    if role != "anonymous":
        client.force_login(people[role])
    url = path.format(pk=proposal.pk)
    response = client.post(url, {}) if path in POSTS else client.get(url)
    assert status_of(response) == (expected_post if path in POSTS else expected_get)
    assert Proposal.objects.get(pk=proposal.pk).state == ProposalState.SUBMITTED
    assert Comment.objects.count() == Judgement.objects.count() == 0


@pytest.mark.django_db
def test_drafts_are_not_in_review(client, people):
    draft = proposal_factory(people["applicant"])
    client.force_login(people["editor"])
    assert client.get(f"/review/{draft.pk}/").status_code == 404
    assert "urn:ogf:example:" not in client.get("/review/?state=all").content.decode()


@pytest.mark.django_db
def test_queue_oldest_first_with_counts_filters_and_summaries(client, people):
    older = proposal_factory(people["applicant"], state="submitted", snid="older", title="Older one")
    Proposal.objects.filter(pk=older.pk).update(submitted_at=timezone.now() - dt.timedelta(days=9))
    proposal_factory(people["applicant"], state="submitted", snid="newer")
    proposal_factory(people["applicant"], state="rejected", snid="gone")
    client.force_login(people["editor"])
    page = client.get("/review/").content.decode()
    assert page.index("urn:ogf:older:") < page.index("urn:ogf:newer:")
    assert "9 days" in page and "Submitted (2)" in page and "Rejected (1)" in page
    assert 'class="count fail"' in page and "new SNID" in page
    assert "urn:ogf:gone:" not in page
    assert "urn:ogf:gone:" in client.get("/review/?state=rejected").content.decode()
    searched = client.get("/review/", {"q": "older one"}).content.decode()
    assert "urn:ogf:older:" in searched and "urn:ogf:newer:" not in searched


@pytest.mark.django_db
def test_queue_query_count_is_constant(client, people, django_assert_num_queries):
    client.force_login(people["editor"])
    proposal_factory(people["applicant"], state="submitted", snid="first")
    with CaptureQueriesContext(connection) as few:
        client.get("/review/")
    for index in range(6):
        proposal_factory(state="submitted", snid=f"more{index}")
    with django_assert_num_queries(len(few)):
        assert client.get("/review/").content.decode().count("urn:ogf:more") == 6


@pytest.mark.django_db
@pytest.mark.parametrize("state", ["submitted", "changes_requested", "approved", "rejected", "withdrawn"])
@pytest.mark.parametrize("action", ["request_changes", "approve", "reject"])
def test_decision_matrix(client, people, state, action, django_capture_on_commit_callbacks):
    proposal = proposal_factory(people["applicant"], state=state, editor=user_factory(editor=True))
    client.force_login(people["editor"])
    with django_capture_on_commit_callbacks(execute=True):
        page = client.post(f"/review/{proposal.pk}/decide/", {"action": action, "comment": "Reason given."},
                           follow=True).content.decode()
    stored = Proposal.objects.get(pk=proposal.pk)
    if state == "submitted":
        assert stored.state == {"request_changes": "changes_requested", "approve": "approved",
                                "reject": "rejected"}[action]
        assert mail.outbox[-1].to == ["ann@example.org"]
        event = stored.events.last()
        assert (event.action, event.actor, event.comment) == (action, people["editor"], "Reason given.")
        assert "summary" in event.data or action != "approve"
    else:
        assert stored.state == state
        assert "already" in page or "cannot" in page


@pytest.mark.django_db
def test_approval_with_failing_check_needs_an_override_reason(client, people):
    proposal = proposal_factory(people["applicant"], name="urn-5", state="submitted")
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}, follow=True).content.decode()
    assert "Cannot approve: 2 check(s) fail" in page
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
    client.post(f"/review/{proposal.pk}/decide/", {"action": "approve", "override_reason": "As published."})
    stored = Proposal.objects.get(pk=proposal.pk)
    assert stored.state == "approved" and stored.events.last().data["override_reason"] == "As published."
    assert Namespace.objects.get().snid == "urn-5"


@pytest.mark.django_db
def test_editor_cannot_decide_own_proposal(client, people):
    own = proposal_factory(people["editor"], state="submitted")
    client.force_login(people["editor"])
    page = client.get(f"/review/{own.pk}/").content.decode()
    assert "another editor must decide" in page
    client.post(f"/review/{own.pk}/decide/", {"action": "approve"})
    assert Proposal.objects.get(pk=own.pk).state == "submitted"


@pytest.mark.django_db
def test_review_page_shows_sections_checks_judgements_diagrams_examples(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    for fragment in ("2.1 Syntactic Structure", "Automated review", 'name="check_id" value="scope"',
                     'name="check_id" value="snid-durable"', 'class="railroad-diagram"',
                     "listed valid: accepted", "Request changes"):
        assert fragment in page


@pytest.mark.django_db
def test_new_version_review_shows_a_diff_against_the_approved_version(client, people):
    proposal_factory(people["applicant"], state="approved", editor=user_factory(editor=True))
    data = data_factory(version=2)
    data.sections["changes"] = "Second edition."
    revision = services.proposal_create(data, people["applicant"])
    services.proposal_transition(revision, "submit", people["applicant"])
    client.force_login(people["editor"])
    page = client.get(f"/review/{revision.pk}/").content.decode()
    assert "Changes from the approved version 1" in page and "<ins>+ Second edition.</ins>" in page
    assert "new version (2)" in client.get("/review/").content.decode()


@pytest.mark.django_db
def test_comments_reach_the_applicant(client, people, django_capture_on_commit_callbacks):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/review/{proposal.pk}/comment/", {"section": "scope", "text": "Narrow the scope."})
    comment = Comment.objects.get()
    assert (comment.section, comment.author) == ("scope", people["editor"])
    assert mail.outbox[-1].to == ["ann@example.org"] and "Narrow the scope." in mail.outbox[-1].body
    client.force_login(people["applicant"])
    assert "Narrow the scope." in client.get(f"/proposals/{proposal.pk}/").content.decode()


@pytest.mark.django_db
def test_judgements_are_recorded(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    client.post(f"/review/{proposal.pk}/judgement/", {"check_id": "scope", "ok": "on", "note": "Grid resources."})
    judgement = Judgement.objects.get()
    assert (judgement.check_id, judgement.ok, judgement.note, judgement.editor) == (
        "scope", True, "Grid resources.", people["editor"])
    client.post(f"/review/{proposal.pk}/judgement/", {"check_id": "examples-valid", "ok": "on"})
    assert Judgement.objects.count() == 1


@pytest.mark.django_db
def test_submission_notifies_editors(people, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        proposal_factory(people["applicant"], state="submitted")
    assert mail.outbox[-1].to == ["eve@example.org"]
    assert mail.outbox[-1].subject == "[urn:ogf] Proposal for urn:ogf:example: submitted for review"


@pytest.mark.django_db
def test_reservation_requests_are_granted_or_declined(client, people, django_capture_on_commit_callbacks):
    first = services.reservation_request_create("nsi", people["applicant"], reason="NSI WG")
    second = services.reservation_request_create("nml", people["applicant"])
    client.force_login(people["editor"])
    until = (timezone.localdate() + dt.timedelta(days=30)).isoformat()
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/review/reservations/act/", {"action": "grant", "request": first.pk, "until": until})
        client.post("/review/reservations/act/", {"action": "decline", "request": second.pk, "note": "Too vague."})
    assert [r.state for r in ReservationRequest.objects.order_by("id")] == ["granted", "declined"]
    namespace = Namespace.objects.get(snid="nsi")
    assert (namespace.status, namespace.reserved_for, namespace.reserved_until.isoformat()) == (
        "reserved", people["applicant"], until)
    assert "granted" in mail.outbox[-2].subject and "declined" in mail.outbox[-1].subject
    page = client.get("/review/reservations/").content.decode()
    assert "urn:ogf:nsi:" in page and "Requests waiting" in page


@pytest.mark.django_db
def test_editor_reserves_and_releases_directly(client, people):
    client.force_login(people["editor"])
    until = (timezone.localdate() + dt.timedelta(days=10)).isoformat()
    client.post("/review/reservations/act/", {"action": "reserve", "snid": "glue", "until": until, "reason": "GLUE"})
    assert "urn:ogf:glue:" in client.get("/urn/").content.decode()
    client.post("/review/reservations/act/", {"action": "release", "snid": "glue"})
    assert "urn:ogf:glue:" not in client.get("/urn/").content.decode()
    bad = client.post("/review/reservations/act/", {"action": "reserve", "snid": "-bad", "until": until},
                      follow=True).content.decode()
    assert "must start with a letter or digit" in bad


@pytest.mark.django_db
def test_expired_reservations_stop_blocking_and_the_command_reports_them(people):
    expired_reservation("old", people["editor"], reason="Expired", reserved_for=user_factory())
    rival = proposal_factory(people["applicant"], state="submitted", snid="old")
    services.proposal_transition(rival, "approve", people["editor"], override_reason="test")
    assert Namespace.objects.get(snid="old").status == "registered"
    expired_reservation("stale", people["editor"], days_ago=3, reason="Once")
    out = io.StringIO()
    call_command("expire_reservations", "--release", stdout=out)
    assert "urn:ogf:stale:" in out.getvalue() and "1 expired reservation released." in out.getvalue()
    assert "Expired on" in Namespace.objects.get(snid="stale").reservation_reason


@pytest.mark.django_db
def test_snid_history_lists_every_proposal_and_event(client, people):
    proposal_factory(people["applicant"], state="rejected", snid="hist")
    proposal_factory(people["applicant"], state="approved", snid="hist")
    client.force_login(people["editor"])
    page = client.get("/review/snid/HIST/").content.decode()
    assert page.count("Proposal ") == 2 and "Reject" in page and "Approve" in page


@pytest.mark.django_db
def test_queue_tells_a_new_snid_from_a_duplicate_and_a_new_version(client, people):
    owner, other = people["applicant"], user_factory("olaf")
    proposal_factory(owner, state="approved", editor=people["editor"])
    version = services.proposal_create(data_factory(version=2), owner)
    services.proposal_transition(version, "submit", owner)
    duplicate = proposal_factory(other, state="submitted")
    fresh = proposal_factory(other, state="submitted", snid="fresh")
    client.force_login(people["editor"])
    page = client.get("/review/").content.decode()

    def kind_of(proposal):
        row = page[page.index(f'href="/review/{proposal.pk}/"'):]
        return row[:row.index("</tr>")]

    assert "new version (2)" in kind_of(version)
    assert "duplicate of a registered SNID" in kind_of(duplicate)
    assert "new SNID" in kind_of(fresh) and "duplicate" not in kind_of(fresh)
