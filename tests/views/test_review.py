"""The GFD editor's dashboard, as anonymous / applicant / editor."""

import datetime as dt
import io
import re
import smtplib

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from registry import notify, services
from registry.enums import ProposalState
from registry.models import Comment, Judgement, Namespace, Proposal, ProposalEvent, ReservationRequest

from ..confirming import decide, reservation_act
from ..factories import data_factory, expired_reservation, judge_all, proposal_factory, user_factory


@pytest.fixture
def people(db):
    return {"applicant": user_factory("ann"), "editor": user_factory("eve", editor=True)}


def status_of(response) -> str:
    if response.status_code == 302 and "/accounts/login/" in response["Location"]:
        return "login"
    return str(response.status_code)


GETS = [
    "/review/",
    "/review/{pk}/",
    "/review/reservations/",
    "/review/snid/example/",
    "/review/{pk}/diagrams/",
    "/review/{pk}/diagrams/?fragment=1",
]
POSTS = ["/review/{pk}/decide/", "/review/{pk}/comment/", "/review/{pk}/judgement/", "/review/reservations/act/"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", GETS + POSTS)
@pytest.mark.parametrize(
    ("role", "expected_get", "expected_post"),
    [("anonymous", "login", "login"), ("applicant", "403", "403"), ("editor", "200", "302")],
)
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
    if state == "submitted":
        judge_all(proposal, people["editor"])
    with django_capture_on_commit_callbacks(execute=True):
        if state == "submitted":
            page = decide(client, proposal.pk, action, comment="Reason given.", follow=True).content.decode()
        else:  # no confirmation page for a proposal that cannot be decided: the POST says why
            page = client.post(
                f"/review/{proposal.pk}/decide/", {"action": action, "comment": "Reason given."}, follow=True
            ).content.decode()
    stored = Proposal.objects.get(pk=proposal.pk)
    if state == "submitted":
        assert (
            stored.state
            == {"request_changes": "changes_requested", "approve": "approved", "reject": "rejected"}[action]
        )
        assert mail.outbox[-1].to == ["ann@example.org"]
        event = stored.events.last()
        assert (event.action, event.actor, event.comment) == (action, people["editor"], "Reason given.")
        assert "summary" in event.data or action != "approve"
    else:
        assert stored.state == state
        assert "only a submitted proposal can be decided" in page and "What you can do" in page


@pytest.mark.django_db
def test_approval_with_failing_check_needs_an_override_reason(client, people):
    proposal = proposal_factory(people["applicant"], name="urn-5", state="submitted")
    judge_all(proposal, people["editor"])
    client.force_login(people["editor"])
    response = decide(client, proposal.pk, "approve")
    page = response.content.decode()
    assert response.status_code == 400 and "needs your written reason" in page
    assert "Valid examples accepted: fails" in page
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
    decide(client, proposal.pk, "approve", override_reason="As published.")
    stored = Proposal.objects.get(pk=proposal.pk)
    assert stored.state == "approved" and stored.events.last().data["override_reason"] == "As published."
    assert Namespace.objects.get().snid == "urn-5"


@pytest.mark.django_db
def test_editor_cannot_decide_own_proposal(client, people):
    own = proposal_factory(people["editor"], state="submitted")
    client.force_login(people["editor"])
    page = client.get(f"/review/{own.pk}/").content.decode()
    assert "another editor must decide" in page
    client.post(f"/review/{own.pk}/decide/", {"action": "approve", "confirm": "yes"})
    assert Proposal.objects.get(pk=own.pk).state == "submitted"


@pytest.mark.django_db
def test_review_page_shows_sections_checks_judgements_diagrams_examples(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    for fragment in (
        "2.1 Syntactic Structure",
        "Automated review",
        'name="verdict-scope"',
        'name="verdict-snid-durable"',
        f'<a href="/review/{proposal.pk}/diagrams/">',
        "listed valid: accepted",
        "Request changes",
    ):
        assert fragment in page
    assert 'class="railroad-diagram"' in client.get(f"/review/{proposal.pk}/diagrams/").content.decode()


def _submitted_second_version(people):
    """A submitted version 2 of an approved SNID of the applicant."""
    proposal_factory(people["applicant"], state="approved", editor=user_factory(editor=True))
    data = data_factory(version=2)
    data.sections["changes"] = "Second edition."
    revision = services.proposal_create(data, people["applicant"])
    services.proposal_transition(revision, "submit", people["applicant"])
    return revision


@pytest.mark.django_db
def test_new_version_review_shows_a_diff_against_the_approved_version(client, people):
    revision = _submitted_second_version(people)
    client.force_login(people["editor"])
    page = client.get(f"/review/{revision.pk}/").content.decode()
    assert "Changes from the approved version 1" in page and f'<a href="/review/{revision.pk}/diff/">' in page
    assert "<ins>+ Second edition.</ins>" in client.get(f"/review/{revision.pk}/diff/").content.decode()
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
    client.post(f"/review/{proposal.pk}/judgement/", {"verdict-scope": "ok", "note-scope": "Grid resources."})
    judgement = Judgement.objects.get()
    assert (judgement.check_id, judgement.ok, judgement.note, judgement.editor) == (
        "scope",
        True,
        "Grid resources.",
        people["editor"],
    )
    client.post(f"/review/{proposal.pk}/judgement/", {"verdict-examples-valid": "ok"})
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
        reservation_act(client, action="grant", request=first.pk, until=until)
        reservation_act(client, action="decline", request=second.pk, note="Too vague.")
    assert [r.state for r in ReservationRequest.objects.order_by("id")] == ["granted", "declined"]
    namespace = Namespace.objects.get(snid="nsi")
    assert (namespace.status, namespace.reserved_for, namespace.reserved_until.isoformat()) == (
        "reserved",
        people["applicant"],
        until,
    )
    assert "granted" in mail.outbox[-2].subject and "declined" in mail.outbox[-1].subject
    page = client.get("/review/reservations/").content.decode()
    assert "urn:ogf:nsi:" in page and "Requests waiting" in page


@pytest.mark.django_db
def test_editor_reserves_and_releases_directly(client, people):
    client.force_login(people["editor"])
    until = (timezone.localdate() + dt.timedelta(days=10)).isoformat()
    reserved = reservation_act(
        client, action="reserve", snid="glue", until=until, reason="GLUE", follow=True
    ).content.decode()
    assert f"urn:ogf:glue: is reserved until {until}." in reserved
    assert "urn:ogf:glue:" in client.get("/urn/").content.decode()
    released = reservation_act(client, action="release", snid="glue", follow=True).content.decode()
    today = timezone.localdate().isoformat()
    assert f"is released (on {today} by eve); anyone may now propose it" in released
    assert "urn:ogf:glue:" not in client.get("/urn/").content.decode()
    listed = client.get("/review/reservations/").content.decode()
    assert f"<code>urn:ogf:glue:</code> released on {today} by eve" in listed and "<h2>Expired</h2>" not in listed
    bad = client.get("/review/reservations/act/", {"action": "reserve", "snid": "-bad", "until": until})
    assert bad.status_code == 409 and "must start with a letter or digit" in bad.content.decode()


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
    again = io.StringIO()
    call_command("expire_reservations", "--release", stdout=again)
    assert "0 expired reservations released." in again.getvalue()  # its end is recorded once


@pytest.mark.django_db
def test_a_released_reservation_never_expires_a_second_time(client, people):
    from registry.transparency.models import LogEntry

    until = (timezone.localdate() + dt.timedelta(days=30)).isoformat()
    client.force_login(people["editor"])
    reservation_act(client, action="reserve", snid="glue", until=until, reason="For the WG.")
    reservation_act(client, action="release", snid="glue", note="Not needed.")
    ends = LogEntry.objects.filter(kind="reservation-ended").count()
    out = io.StringIO()
    call_command("expire_reservations", "--release", stdout=out)
    assert "urn:ogf:glue:" not in out.getvalue() and "0 expired reservations released." in out.getvalue()
    assert LogEntry.objects.filter(kind="reservation-ended").count() == ends == 1


@pytest.mark.django_db
def test_snid_history_lists_every_proposal_and_event(client, people):
    proposal_factory(people["applicant"], state="rejected", snid="hist")
    proposal_factory(people["applicant"], state="approved", snid="hist")
    client.force_login(people["editor"])
    page = client.get("/review/snid/HIST/").content.decode()
    assert page.count("Proposal ") == 2
    assert "rejected the proposal" in page and "approved the proposal" in page


# --- safe decisions ---------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["request_changes", "approve", "reject"])
def test_decision_without_confirmation_changes_nothing_and_says_what_happens(client, people, action):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    response = client.post(f"/review/{proposal.pk}/decide/", {"action": action, "comment": "Say who assigns."})
    page = response.content.decode()
    assert response.status_code == 200
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
    assert ProposalEvent.objects.filter(proposal=proposal, action=action).count() == 0
    assert "ann, the applicant, gets an e-mail at ann@example.org" in page
    assert {
        "request_changes": "edit it and submit it again",
        "approve": "published at once",
        "reject": "rejected for good",
    }[action] in page
    assert 'name="confirm" value="yes"' in page and "Say who assigns." in page


@pytest.mark.django_db
def test_approval_confirmation_asks_for_the_override_reason_when_checks_fail(client, people):
    proposal = proposal_factory(people["applicant"], name="urn-5", state="submitted")
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}).content.decode()
    assert "The review's rule stops this approval" in page and "Valid examples accepted: fails" in page
    assert 'id="confirm-override" name="override_reason"' in page
    decide(client, proposal.pk, "approve", override_reason="As published in RFC.")
    assert Proposal.objects.get(pk=proposal.pk).events.last().data["override_reason"] == "As published in RFC."


@pytest.mark.django_db
def test_request_changes_without_a_message_is_refused_before_confirmation(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "request_changes"}, follow=True).content.decode()
    assert "Request changes needs a message to the applicant" in page
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"


@pytest.mark.django_db
def test_approving_with_open_judgements_asks_to_record_them_or_confirm(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    services.judgement_set(proposal, people["editor"], "scope", ok=True)
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}).content.decode()
    for title in ("SNID durable", "Sub-delegation", "Identifier immutability"):
        assert f"{title}: not judged" in page
    assert "<code>snid-durable</code>" not in page  # people read the checks' names, not their ids
    assert f'href="/review/{proposal.pk}/#judgements">record it first</a>' in page
    assert "Approve anyway, with this reason" in page
    for check_id in ("snid-durable", "subdelegation", "immutability"):
        services.judgement_set(proposal, people["editor"], check_id, ok=True)
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}).content.decode()
    assert "not recorded" not in page and "Yes, approve" in page


@pytest.mark.django_db
def test_recording_judgements_in_one_form_updates_the_panel_at_once(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    before = client.get(f"/review/{proposal.pk}/").content.decode()
    waiting = before[before.index("Needs the editor&#x27;s judgement") :]
    assert 'data-check="scope"' in waiting[: waiting.index("</ul>")]
    response = client.post(
        f"/review/{proposal.pk}/judgement/",
        {
            "verdict-scope": "ok",
            "note-scope": "Grid resources.",
            "verdict-snid-durable": "not-ok",
            "verdict-subdelegation": "",
            "verdict-immutability": "",
        },
        follow=True,
    )
    page = response.content.decode()
    assert "2 judgements recorded; 2 still open." in page
    assert sorted(Judgement.objects.values_list("check_id", "ok")) == [("scope", True), ("snid-durable", False)]
    waiting = page[page.index("Needs the editor&#x27;s judgement") :]
    assert 'data-check="scope"' not in waiting[: waiting.index("</ul>")]
    today = timezone.localdate().isoformat()
    assert f"Judged satisfied by eve on {today}: Grid resources." in page
    assert f"Judged not satisfied by eve on {today}." in page
    assert "2 of the 4 judgements recorded; 2 still open." in page


@pytest.mark.django_db
def test_messages_say_what_was_done_never_done(client, people):
    request = services.reservation_request_create("nsi", people["applicant"], reason="NSI WG")
    client.force_login(people["editor"])
    until = (timezone.localdate() + dt.timedelta(days=30)).isoformat()
    page = reservation_act(client, action="grant", request=request.pk, until=until, follow=True).content.decode()
    assert f"Reservation of urn:ogf:nsi: granted to ann until {until}; ann has been told." in page
    assert "Done." not in page


# --- error pages ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_error_pages_are_styled_and_say_what_to_do_next(client, people):
    client.force_login(people["applicant"])
    forbidden = client.get("/review/")
    assert forbidden.status_code == 403
    page = forbidden.content.decode()
    assert "<!DOCTYPE html>" in page and "Only GFD editors can use the review dashboard" in page
    assert "What you can do" in page and 'href="/proposals/"' in page
    missing = client.get("/proposals/999999/")
    assert missing.status_code == 404 and "What you can do" in missing.content.decode()
    withdrawn = proposal_factory(people["applicant"], state="withdrawn")
    conflict = client.post(f"/proposals/{withdrawn.pk}/withdraw/", {"confirm": "yes"})
    assert conflict.status_code == 409
    assert "This proposal is withdrawn, so it cannot be withdrawn now." in conflict.content.decode()


# --- mail -------------------------------------------------------------------------------------

ENTITY = re.compile(r"&(#x?[0-9a-fA-F]+|[a-zA-Z]+);")
LINK = re.compile(r"https?://\S+")


class FailingBackend:
    """An e-mail backend whose server is down."""

    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")


@pytest.mark.django_db
def test_mail_bodies_are_plain_sentences_with_links_to_the_configured_site(
    client, people, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://urn.example.net"
    title = 'OCR\'d "Grid" registry <v2> & friends'
    with django_capture_on_commit_callbacks(execute=True):
        proposal = proposal_factory(people["applicant"], state="submitted", title=title)
        thread = services.thread_start(
            proposal, people["editor"], "Isn't 4.1 too broad? Use <b>less</b> & more.", section="scope"
        )
        services.comment_reply(thread, people["applicant"], 'It\'s narrower now & "quoted".')
        services.proposal_transition(proposal, "request_changes", people["editor"], comment="Don't forget 4.1.")
        services.proposal_transition(proposal, "submit", people["applicant"])
        services.proposal_transition(proposal, "pull_back", people["applicant"])
        services.proposal_transition(proposal, "submit", people["applicant"])
        services.proposal_transition(proposal, "reject", people["editor"], comment="Out of scope & late.")
        request = services.reservation_request_create("nsi", people["applicant"], reason="Ann's WG")
        services.reservation_request_decide(
            request, people["editor"], grant=True, until=timezone.localdate() + dt.timedelta(days=5), note="Don't wait."
        )
    assert len(mail.outbox) == 10
    for message in mail.outbox:
        assert ENTITY.search(message.subject + message.body) is None, message.body
        links = LINK.findall(message.body)
        assert links and all(link.startswith("https://urn.example.net/") for link in links), message.body
    bodies = "\n".join(m.body for m in mail.outbox)
    assert title in bodies and "Isn't 4.1 too broad? Use <b>less</b> & more." in bodies
    assert "eve, a GFD editor, reviewed your proposal" in bodies and "is now" not in bodies
    assert "ann pulled the proposal" in bodies


@pytest.mark.django_db
def test_text_mail_templates_turn_autoescape_off():
    from pathlib import Path

    from django.conf import settings as django_settings

    for template in sorted((Path(django_settings.BASE_DIR) / "templates/registry/email").glob("*.txt")):
        text = template.read_text(encoding="utf-8")
        assert text.startswith("{% autoescape off %}") and text.rstrip().endswith("{% endautoescape %}"), template


@pytest.mark.django_db
def test_a_mail_that_cannot_be_sent_is_logged_and_the_decision_stands(
    client, people, settings, caplog, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = f"{__name__}.FailingBackend"
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    with django_capture_on_commit_callbacks(execute=True):
        response = decide(client, proposal.pk, "request_changes", comment="Fix 4.1.")
    assert response.status_code == 302
    assert Proposal.objects.get(pk=proposal.pk).state == "changes_requested"
    assert "Could not send the 'decision' mail to ann@example.org" in caplog.text


@pytest.mark.django_db
def test_a_bad_header_is_logged_not_raised(people, caplog, django_capture_on_commit_callbacks):
    proposal = proposal_factory(people["applicant"], state="submitted")
    with django_capture_on_commit_callbacks(execute=True):
        services.proposal_transition(proposal, "request_changes", people["editor"], comment="Fix it.")
        notify.later(
            "decision",
            ["ann@example.org\nBcc: everyone@example.org"],
            {"proposal": proposal, "actor": people["editor"]},
        )
    assert "Could not send the 'decision' mail" in caplog.text
    assert all("everyone@example.org" not in m.to for m in mail.outbox)


# --- threads ----------------------------------------------------------------------------------


def _section(page: str, key: str) -> str:
    start = page.index(f'id="section-{key}"')
    return page[start : page.index('class="template-section"', start + 1)]


@pytest.mark.django_db
def test_editor_starts_a_thread_where_the_section_is_shown(client, people, django_capture_on_commit_callbacks):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    assert 'form="start-scope"' in _section(page, "scope") and 'id="start-scope"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/review/{proposal.pk}/comment/", {"section": "scope", "text": "Narrow **4.1**."})
    thread = Comment.objects.get()
    assert response["Location"] == f"/review/{proposal.pk}/#thread-{thread.pk}"
    assert (thread.section, thread.parent, thread.round, thread.resolved_at) == ("scope", None, 1, None)
    assert mail.outbox[-1].to == ["ann@example.org"]
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    assert f'id="thread-{thread.pk}"' in _section(page, "scope")
    assert "Narrow <strong>4.1</strong>." in page and "1 open thread" in page


@pytest.mark.django_db
def test_a_thread_on_a_finding_is_shown_beside_the_section_it_concerns(client, people):
    proposal = proposal_factory(people["applicant"], name="urn-5", state="submitted")
    failing = next(f for f in proposal.findings if f["status"] == "fail")
    client.force_login(people["editor"])
    client.post(f"/review/{proposal.pk}/comment/", {"finding": failing["id"], "text": "Is this intended?"})
    thread = Comment.objects.get()
    assert thread.finding == failing["id"]
    assert thread.anchor == f"finding:{failing['id']}"
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    from registry.checklist import CHECK_TITLES

    assert f"on the finding “{CHECK_TITLES[failing['id']]}”" in page
    refused = client.post(f"/review/{proposal.pk}/comment/", {"finding": "no-such-check", "text": "x"}, follow=True)
    assert "has no finding “no-such-check” to comment on." in refused.content.decode()


@pytest.mark.django_db
def test_applicant_replies_beside_the_section_and_either_side_resolves_and_reopens(
    client, people, django_capture_on_commit_callbacks
):
    proposal = proposal_factory(people["applicant"], state="submitted")
    thread = services.thread_start(proposal, people["editor"], "Who assigns the index?", section="scope")
    services.proposal_transition(proposal, "request_changes", people["editor"], comment="See 4.1.")
    client.force_login(people["applicant"])
    page = client.get(f"/proposals/{proposal.pk}/").content.decode()
    section = _section(page, "scope")
    assert "Who assigns the index?" in section and f'form="thread-{thread.pk}-reply"' in section
    assert f'id="thread-{thread.pk}-reply"' in page
    assert 'form="start-scope"' not in page  # editors start threads; the applicant answers
    # On the edit page the thread's controls are the proposal form's own (what it holds is kept first).
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    section = _section(page, "scope")
    assert "Who assigns the index?" in section and f'value="reply-{thread.pk}"' in section
    assert 'form="thread-' not in page and 'form="start-scope"' not in page
    edit = f"/proposals/{proposal.pk}/edit/"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/threads/{thread.pk}/reply/", {"text": "The WG chair assigns it.", "next": edit})
    assert response["Location"] == f"{edit}#thread-{thread.pk}"
    reply = Comment.objects.get(parent=thread)
    assert (reply.author, reply.section) == (people["applicant"], "scope")
    assert mail.outbox[-1].to == ["eve@example.org"] and "The WG chair assigns it." in mail.outbox[-1].body
    client.post(f"/threads/{thread.pk}/resolve/")
    thread.refresh_from_db()
    assert (thread.resolved_by, thread.is_resolved) == (people["applicant"], True)
    again = client.post(f"/threads/{thread.pk}/resolve/", follow=True).content.decode()
    assert "already resolved by ann" in again
    client.force_login(people["editor"])
    client.post(f"/threads/{thread.pk}/reopen/")
    thread.refresh_from_db()
    assert thread.resolved_at is None
    client.post(f"/threads/{reply.pk}/resolve/")  # a reply is not a thread
    thread.refresh_from_db()
    assert thread.resolved_at is None
    client.post(f"/threads/{thread.pk}/resolve/")
    thread.refresh_from_db()
    assert thread.resolved_by == people["editor"]


@pytest.mark.django_db
def test_unresolved_threads_are_counted_in_the_queue_and_on_the_proposal(client, people, django_assert_num_queries):
    proposal = proposal_factory(people["applicant"], state="submitted")
    first = services.thread_start(proposal, people["editor"], "One.", section="scope")
    services.thread_start(proposal, people["editor"], "Two.")
    services.comment_reply(first, people["applicant"], "Answer.")
    services.thread_resolve(first, people["editor"])
    services.thread_start(proposal, people["editor"], "Three.", section="examples")
    client.force_login(people["editor"])
    queue = client.get("/review/").content.decode()
    assert f'href="/review/{proposal.pk}/">2 open</a>' in queue
    client.force_login(people["applicant"])
    assert "2 open threads" in client.get(f"/proposals/{proposal.pk}/").content.decode()


@pytest.mark.django_db
def test_thread_markup_is_sanitised_by_the_one_renderer(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    services.thread_start(proposal, people["editor"], "<script>alert(1)</script>*emphasis* [x](javascript:alert(1))")
    client.force_login(people["applicant"])
    page = client.get(f"/proposals/{proposal.pk}/").content.decode()
    assert "<em>emphasis</em>" in page and "<script>alert" not in page and "javascript:" not in page


SECRET = "Private remark between the editor and the applicant"
DECISION = "Private decision message to the applicant"


@pytest.fixture
def discussed(people):
    """An approved (so public) proposal with a thread and an editor's messages."""
    proposal = proposal_factory(people["applicant"], state="submitted")
    thread = services.thread_start(proposal, people["editor"], SECRET, section="scope")
    services.comment_reply(thread, people["applicant"], SECRET + " (reply)")
    services.proposal_transition(proposal, "request_changes", people["editor"], comment=DECISION)
    services.proposal_transition(proposal, "submit", people["applicant"])
    return services.proposal_transition(proposal, "approve", people["editor"], override_reason="test")


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["anonymous", "other"])
def test_threads_never_reach_anyone_but_the_applicant_and_editors(client, people, discussed, role):
    if role == "other":
        client.force_login(user_factory("mallory"))
    urls = [
        f"/proposals/{discussed.pk}/",
        f"/proposals/{discussed.pk}/export.md",
        f"/proposals/{discussed.pk}/export.txt",
        "/urn/",
        "/urn/example/",
        "/urn/example/1/",
        "/urn/example/1/registration.md",
        "/urn/example/1/registration.txt",
        "/urn/registry.json",
        "/urn/registry.csv",
        "/urn/registry.xml",
        "/urn/feed.atom",
        "/api/snids/",
        "/api/snids/example/",
        "/api/snids/example/versions/1/",
        f"/api/proposals/{discussed.pk}/",
        "/api/proposals/",
    ]
    seen = 0
    for url in urls:
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert SECRET.encode() not in body and DECISION.encode() not in body, url
        seen += response.status_code == 200
    assert seen >= 12
    thread = Comment.objects.filter(parent=None).get()
    for action in ("reply", "resolve", "reopen"):
        response = client.post(f"/threads/{thread.pk}/{action}/", {"text": "Let me in."})
        assert status_of(response) == ("login" if role == "anonymous" else "404")
    assert Comment.objects.count() == 2 and Comment.objects.get(pk=thread.pk).resolved_at is None


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["applicant", "editor"])
def test_the_applicant_and_editors_read_the_threads_and_messages(client, people, discussed, role):
    client.force_login(people[role])
    page = client.get(f"/proposals/{discussed.pk}/").content.decode()
    assert SECRET in page and DECISION in page
    assert DECISION in client.get(f"/api/proposals/{discussed.pk}/").content.decode()


# --- the decision banner and rounds -----------------------------------------------------------


@pytest.mark.django_db
def test_the_decision_banner_leads_the_applicants_pages_until_the_next_submission(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    thread = services.thread_start(proposal, people["editor"], "Who assigns the index?", section="scope")
    services.proposal_transition(proposal, "request_changes", people["editor"], comment="Please fix **4.1**.")
    client.force_login(people["applicant"])
    for url in (f"/proposals/{proposal.pk}/", f"/proposals/{proposal.pk}/edit/"):
        page = client.get(url).content.decode()
        banner = page[page.index('id="decision"') : page.index("</section>", page.index('id="decision"'))]
        assert page.index('id="decision"') < page.index('id="section-snid"')
        assert "Editor eve requested changes." in banner and "Please fix <strong>4.1</strong>." in banner
        assert f'href="#thread-{thread.pk}">4.1 Scope</a>' in banner and "1 open thread to answer" in banner
    services.proposal_transition(proposal, "submit", people["applicant"])
    assert 'id="decision"' not in client.get(f"/proposals/{proposal.pk}/").content.decode()


@pytest.mark.django_db
def test_the_editor_sees_what_changed_since_the_previous_round_and_which_threads_were_answered(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    answered = services.thread_start(proposal, people["editor"], "Who assigns the index?", section="scope")
    services.thread_start(proposal, people["editor"], "And the examples?", section="examples")
    client.force_login(people["editor"])
    assert "Changes since round" not in client.get(f"/review/{proposal.pk}/").content.decode()
    services.proposal_transition(proposal, "request_changes", people["editor"], comment="See 4.1.")
    data = proposal.to_data()
    data.sections["scope"] += "\n\nThe WG chair assigns the index."
    services.proposal_update(proposal, data, people["applicant"])
    services.comment_reply(answered, people["applicant"], "Done in 4.1.")
    services.proposal_transition(proposal, "submit", people["applicant"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    changes = page[page.index('id="round-changes"') :]
    changes = changes[: changes.index("</section>")]
    assert "Changes since round 1" in page and "round 2" in page
    assert "<h3>4.1 Scope</h3>" in changes and "<ins>+ The WG chair assigns the index.</ins>" in changes
    assert "<h3>2.1 Syntactic Structure</h3>" not in changes
    assert "The applicant answered 1 thread since then" in changes
    assert f'href="#thread-{answered.pk}">4.1 Scope</a>' in changes and "And the examples?" not in changes
    thread = page[page.index(f'id="thread-{answered.pk}"') :]
    assert "Done in 4.1." in thread[: thread.index("</details>")]
    assert "new since round 1" in thread[: thread.index("</details>")]


# --- the applicant's safe actions ----------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("state", ["draft", "submitted", "changes_requested"])
def test_withdraw_without_confirmation_changes_nothing(client, people, state):
    proposal = proposal_factory(people["applicant"], state=state)
    events = ProposalEvent.objects.filter(proposal=proposal).count()
    client.force_login(people["applicant"])
    response = client.post(f"/proposals/{proposal.pk}/withdraw/", {"confirm": "no"})
    page = response.content.decode()
    assert response.status_code == 200 and "Withdrawing is final" in page
    assert "start a new proposal" in page and 'name="confirm" value="yes"' in page
    assert Proposal.objects.get(pk=proposal.pk).state == state
    assert ProposalEvent.objects.filter(proposal=proposal).count() == events
    client.post(f"/proposals/{proposal.pk}/withdraw/", {"confirm": "yes"})
    assert Proposal.objects.get(pk=proposal.pk).state == "withdrawn"


@pytest.mark.django_db
def test_pull_back_is_a_logged_transition_back_to_draft(client, people, django_capture_on_commit_callbacks):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["applicant"])
    edit = client.get(f"/proposals/{proposal.pk}/edit/")
    page = edit.content.decode()
    assert edit.status_code == 403 and "submitted and under review" in page
    assert f'action="/proposals/{proposal.pk}/pull_back/"' in page and "Pull it back to draft" in page
    assert "only its submitter" not in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/proposals/{proposal.pk}/pull_back/", {"confirm": "yes"})
    assert response["Location"] == f"/proposals/{proposal.pk}/edit/"
    event = ProposalEvent.objects.filter(proposal=proposal).last()
    assert (event.action, event.from_state, event.to_state, event.actor) == (
        "pull_back",
        "submitted",
        "draft",
        people["applicant"],
    )
    assert Proposal.objects.get(pk=proposal.pk).state == "draft"
    assert mail.outbox[-1].to == ["eve@example.org"] and "pulled back to draft" in mail.outbox[-1].subject
    history = client.get(f"/proposals/{proposal.pk}/").content.decode()
    assert "Applicant ann pulled the proposal back to draft before a decision." in history
    assert client.get(f"/proposals/{proposal.pk}/edit/").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("state", ["draft", "changes_requested", "approved", "rejected"])
def test_pull_back_only_from_submitted(client, people, state):
    proposal = proposal_factory(people["applicant"], state=state)
    client.force_login(people["applicant"])
    response = client.post(f"/proposals/{proposal.pk}/pull_back/", {"confirm": "yes"})
    assert response.status_code == 409
    assert Proposal.objects.get(pk=proposal.pk).state == state


@pytest.mark.django_db
def test_history_reads_as_sentences(client, people):
    proposal = proposal_factory(people["applicant"], state="changes_requested", editor=people["editor"])
    services.proposal_transition(proposal, "submit", people["applicant"])
    client.force_login(people["applicant"])
    page = client.get(f"/proposals/{proposal.pk}/").content.decode()
    for sentence in (
        "Applicant ann created the draft.",
        "Applicant ann submitted the proposal for review.",
        "Editor eve requested changes. “Please fix.”",
        "Applicant ann submitted the revised proposal for review.",
    ):
        assert sentence in page
    assert "Requestchanges" not in page and "request_changes" not in page


@pytest.mark.django_db
def test_start_points_mail_links_at_the_address_it_serves(settings, monkeypatch):
    monkeypatch.delenv("REGISTRY_SITE_URL", raising=False)
    call_command("start", "--no-serve", "--port", "8123", stdout=io.StringIO())
    assert settings.SITE_URL == "http://127.0.0.1:8123"
    monkeypatch.setenv("REGISTRY_SITE_URL", "https://urn.example.net")
    settings.SITE_URL = "https://urn.example.net"
    call_command("start", "--no-serve", "--port", "8124", stdout=io.StringIO())
    assert settings.SITE_URL == "https://urn.example.net"


@pytest.mark.django_db
def test_a_form_without_its_token_gets_a_page_that_says_what_to_do(people):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(people["applicant"])
    response = client.post("/proposals/new/", {"start": "blank", "snid": "tokenless"})
    page = response.content.decode()
    assert response.status_code == 403 and "The form expired" in page and "reload the page" in page
    assert Proposal.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/review/{pk}/", "/proposals/{pk}/"])
def test_threads_cost_the_same_queries_however_many_there_are(client, people, url):
    proposal = proposal_factory(people["applicant"], state="submitted")
    first = services.thread_start(proposal, people["editor"], "First.", section="scope")
    services.comment_reply(first, people["applicant"], "Reply.")
    client.force_login(people["editor"])
    with CaptureQueriesContext(connection) as few:
        client.get(url.format(pk=proposal.pk))
    for index in range(5):
        thread = services.thread_start(proposal, user_factory(editor=True), f"More {index}.", section="examples")
        services.comment_reply(thread, people["applicant"], f"Answer {index}.")
        services.thread_resolve(thread, people["applicant"])
    with CaptureQueriesContext(connection) as many:
        page = client.get(url.format(pk=proposal.pk)).content.decode()
    assert page.count("Answer ") == 5
    assert len(many) == len(few)


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
        row = page[page.index(f'href="/review/{proposal.pk}/"') :]
        return row[: row.index("</tr>")]

    assert "new version (2)" in kind_of(version)
    assert "duplicate of a registered SNID" in kind_of(duplicate)
    assert "new SNID" in kind_of(fresh) and "duplicate" not in kind_of(fresh)


@pytest.mark.django_db
def test_threads_of_a_decided_proposal_are_shown_without_forms(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    thread = services.thread_start(proposal, people["editor"], "Say who assigns.", section="scope")
    client.force_login(people["applicant"])
    assert f'form="thread-{thread.pk}-reply"' in client.get(f"/proposals/{proposal.pk}/").content.decode()
    services.proposal_transition(proposal, "approve", people["editor"], override_reason="test data")
    for who, url in (("applicant", f"/proposals/{proposal.pk}/"), ("editor", f"/review/{proposal.pk}/")):
        client.force_login(people[who])
        page = client.get(url).content.decode()
        assert "Say who assigns." in page and f'form="thread-{thread.pk}-reply"' not in page, who
        assert "Start thread" not in page, who


def _queue_with_threads(client, people, first: int, last: int) -> tuple[int, str]:
    """Submitted proposals ``first`` to ``last`` - 1, each with one open thread; then the
    queue's queries and page."""
    for index in range(first, last):
        proposal = proposal_factory(people["applicant"], state="submitted", snid=f"q{index:02d}")
        services.thread_start(proposal, people["editor"], "Why?", section="scope")
    client.force_login(people["editor"])
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/review/?sort=snid").content.decode()
    return len(queries), page


@pytest.mark.django_db
def test_queue_queries_do_not_grow_with_the_number_of_proposals(client, people):
    few, _ = _queue_with_threads(client, people, 0, 5)
    many, page = _queue_with_threads(client, people, 5, 25)
    assert (many, page.count(">1 open</a>")) == (few, 25)


@pytest.mark.django_db
def test_queue_rows_leave_the_big_columns_unread(client, people):
    proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    with CaptureQueriesContext(connection) as queries:
        client.get("/review/")
    rows = [
        q["sql"] for q in queries.captured_queries if 'FROM "registry_proposal"' in q["sql"] and "LIMIT" in q["sql"]
    ]
    assert [("grammar_abnf" in sql, '"sections"' in sql, '"findings",' in sql) for sql in rows] == [
        (False, False, False)
    ]


@pytest.mark.django_db
def test_queue_pages_keep_their_order_and_page_two_shows_the_rest(client, people, monkeypatch):
    monkeypatch.setattr("registry.views.review.QUEUE_PAGE_SIZE", 3)
    for snid in ("delta", "alpha", "echo", "charlie", "bravo"):
        proposal_factory(people["applicant"], state="submitted", snid=snid)
    client.force_login(people["editor"])

    def snids(page):
        return re.findall(r"<code>urn:ogf:([a-z]+):</code></a></td>", page)

    first = client.get("/review/", {"sort": "snid"}).content.decode()
    assert snids(first) == ["alpha", "bravo", "charlie"]
    assert 'href="?state=submitted&amp;q=&amp;sort=snid&amp;page=2" rel="next"' in first
    assert "page 1 of 2 (5 proposals)" in first
    second = client.get("/review/", {"sort": "snid", "page": "2"}).content.decode()
    assert snids(second) == ["delta", "echo"]
    assert 'sort=snid&amp;page=1" rel="prev"' in second
    newest = client.get("/review/", {"sort": "newest", "page": "2"}).content.decode()
    assert snids(newest) == ["alpha", "delta"]
    assert snids(client.get("/review/", {"sort": "nonsense"}).content.decode()) == ["delta", "alpha", "echo"]


@pytest.mark.django_db
def test_heavy_parts_of_the_review_page_load_from_their_own_url_when_opened(client, people):
    revision = _submitted_second_version(people)
    client.force_login(people["editor"])
    page = client.get(f"/review/{revision.pk}/").content.decode()
    assert (page.count('class="railroad-diagram"'), page.count("<ins>")) == (0, 0)
    assert f'data-lazy-url="/review/{revision.pk}/diagrams/?fragment=1"' in page
    assert f'data-lazy-url="/review/{revision.pk}/diff/?fragment=1"' in page
    assert 'src="/static/registry/lazy.js"' in page
    fragment = client.get(f"/review/{revision.pk}/diagrams/", {"fragment": "1"}).content.decode()
    whole = client.get(f"/review/{revision.pk}/diagrams/").content.decode()
    assert ('class="railroad-diagram"' in fragment, "<html" in fragment) == (True, False)
    assert ('class="railroad-diagram"' in whole, f'href="/review/{revision.pk}/"' in whole) == (True, True)
    diff = client.get(f"/review/{revision.pk}/diff/", {"fragment": "1"}).content.decode()
    assert ("<ins>+ Second edition.</ins>" in diff, "<html" in diff) == (True, False)


@pytest.mark.django_db
@pytest.mark.parametrize("part", ["diagrams", "diff"])
@pytest.mark.parametrize(("role", "expected"), [("anonymous", "login"), ("applicant", "403"), ("editor", "200")])
def test_lazy_parts_of_the_review_page_have_its_permissions(client, people, part, role, expected):
    proposal_factory(people["applicant"], state="approved", editor=user_factory(editor=True))
    revision = services.proposal_create(data_factory(version=2), people["applicant"])
    services.proposal_transition(revision, "submit", people["applicant"])
    if role != "anonymous":
        client.force_login(people[role])
    assert status_of(client.get(f"/review/{revision.pk}/{part}/?fragment=1")) == expected
    assert status_of(client.get(f"/review/{revision.pk}/")) == expected


@pytest.mark.django_db
@pytest.mark.parametrize("part", ["diagrams", "diff"])
def test_lazy_parts_of_a_draft_or_a_first_version_are_not_for_review(client, people, part):
    draft = proposal_factory(people["applicant"])
    client.force_login(people["editor"])
    assert client.get(f"/review/{draft.pk}/{part}/").status_code == 404
    first = proposal_factory(people["applicant"], state="submitted", snid="first")
    assert client.get(f"/review/{first.pk}/{part}/").status_code == (200 if part == "diagrams" else 404)
