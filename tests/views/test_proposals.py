"""The applicant's pages, as anonymous / submitter / other applicant / editor."""

import re

import pytest
from django.core import mail

from registry import services
from registry.checklist import run_checklist, summarize
from registry.gfd191 import PROSE_KEYS
from registry.models import Comment, Proposal, ProposalEvent, ReservationRequest

from ..factories import approve, data_factory, proposal_factory, user_factory

ROLES = ["anonymous", "submitter", "other", "editor"]


@pytest.fixture
def people(db):
    return {"submitter": user_factory("sam"), "other": user_factory("olga"), "editor": user_factory("ed", editor=True)}


def as_role(client, people, role):
    if role != "anonymous":
        client.force_login(people[role])
    return client


def status_of(response) -> str:
    if response.status_code == 302 and "/accounts/login/" in response["Location"]:
        return "login"
    return str(response.status_code)


PAGE_MATRIX = [
    # path (draft proposal {pk}), expected per role: anonymous, submitter, other, editor
    ("/proposals/", ["login", "200", "200", "200"]),
    ("/proposals/new/", ["login", "200", "200", "200"]),
    ("/proposals/{pk}/", ["404", "200", "404", "200"]),
    ("/proposals/{pk}/edit/", ["login", "200", "404", "403"]),
    ("/proposals/{pk}/edit/diagrams/", ["login", "200", "404", "403"]),
    ("/proposals/{pk}/edit/diagrams/?fragment=1", ["login", "200", "404", "403"]),
    ("/accounts/signup/", ["200", "200", "200", "200"]),
    ("/accounts/login/", ["200", "200", "200", "200"]),
    ("/accounts/password_reset/", ["200", "200", "200", "200"]),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "expected"), PAGE_MATRIX)
@pytest.mark.parametrize("role", ROLES)
def test_page_permissions(client, people, path, expected, role):
    proposal = proposal_factory(people["submitter"], title="Draft title nobody else sees")
    response = as_role(client, people, role).get(path.format(pk=proposal.pk))
    assert status_of(response) == expected[ROLES.index(role)]
    if status_of(response) != "200":
        assert b"Draft title nobody else sees" not in response.content


POST_MATRIX = [
    ("/proposals/{pk}/check/", ["login", "200", "404", "403"]),
    ("/proposals/{pk}/submit/", ["login", "302", "404", "403"]),
    ("/proposals/{pk}/withdraw/", ["login", "200", "404", "403"]),
    ("/proposals/{pk}/reserve/", ["login", "302", "404", "302"]),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "expected"), POST_MATRIX)
@pytest.mark.parametrize("role", ROLES)
def test_action_permissions(client, people, path, expected, role):
    proposal = proposal_factory(people["submitter"])
    response = as_role(client, people, role).post(path.format(pk=proposal.pk), {})
    assert status_of(response) == expected[ROLES.index(role)]
    stored = Proposal.objects.get(pk=proposal.pk)
    if role != "submitter":  # an editor is redirected with an error message; nothing changes
        assert stored.state == "draft"
        assert ReservationRequest.objects.count() == 0


@pytest.mark.django_db
def test_get_pages_change_nothing(client, people):
    proposal = proposal_factory(people["submitter"], state="changes_requested")

    def snapshot():
        return (
            list(Proposal.objects.values()),
            ProposalEvent.objects.count(),
            Comment.objects.count(),
            ReservationRequest.objects.count(),
        )

    before = snapshot()
    for role in ("submitter", "editor"):
        as_role(client, people, role)
        for path in (
            "/proposals/",
            "/proposals/new/",
            f"/proposals/{proposal.pk}/",
            f"/proposals/{proposal.pk}/edit/",
            f"/proposals/{proposal.pk}/submit/",
            "/review/",
            f"/review/{proposal.pk}/",
        ):
            client.get(path)
    assert snapshot() == before


def _form_data(proposal, **changes):
    from registry.forms import ProposalForm

    initial = ProposalForm.initial_from(proposal.to_data())
    data = {key: value for key, value in initial.items() if value is not None and key != "equivalence"}
    data["equivalence"] = initial["equivalence"]
    data.update(changes)
    return data


@pytest.mark.django_db
def test_save_draft_through_the_form(client, people):
    proposal = proposal_factory(people["submitter"])
    client.force_login(people["submitter"])
    response = client.post(
        f"/proposals/{proposal.pk}/edit/",
        _form_data(proposal, title="Renamed", examples_valid="urn:ogf:example:a\nurn:ogf:example:b", intent="save"),
    )
    assert response.status_code == 302
    stored = Proposal.objects.get(pk=proposal.pk)
    assert (stored.title, stored.examples_valid) == ("Renamed", ["urn:ogf:example:a", "urn:ogf:example:b"])
    assert stored.findings_summary["fail"] == 2  # each new example fails the grammar
    assert len([f for f in stored.findings if f["id"] == "examples-valid" and f["status"] == "fail"]) == 2


@pytest.mark.django_db
def test_a_draft_survives_a_failed_validation_intact(client, people):
    proposal = proposal_factory(people["submitter"])
    before = list(Proposal.objects.filter(pk=proposal.pk).values())
    client.force_login(people["submitter"])
    typed = "Text typed in the scope section that must not be lost."
    response = client.post(
        f"/proposals/{proposal.pk}/edit/",
        _form_data(proposal, section_scope=typed, version="0", document_url="ftp://nope", intent="save"),
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert typed in page and "Nothing was saved" in page
    assert "must be an http:// or https:// address" in page
    assert list(Proposal.objects.filter(pk=proposal.pk).values()) == before


@pytest.mark.django_db
def test_check_without_saving_shows_findings_for_the_input_and_stores_nothing(client, people):
    proposal = proposal_factory(people["submitter"])
    before = list(Proposal.objects.filter(pk=proposal.pk).values())
    client.force_login(people["submitter"])
    response = client.post(f"/proposals/{proposal.pk}/edit/", _form_data(proposal, snid="x-test", intent="check"))
    assert response.status_code == 200
    assert "snid-not-experimental" in response.content.decode()
    fragment = client.post(f"/proposals/{proposal.pk}/check/", _form_data(proposal, snid="x-test"))
    assert 'id="workbench"' in fragment.content.decode() and "snid-not-experimental" in fragment.content.decode()
    assert list(Proposal.objects.filter(pk=proposal.pk).values()) == before


@pytest.mark.django_db
def test_submit_is_refused_while_required_sections_are_missing(client, people):
    proposal = proposal_factory(people["submitter"])
    client.force_login(people["submitter"])
    response = client.post(
        f"/proposals/{proposal.pk}/edit/", _form_data(proposal, section_scope="", intent="submit"), follow=True
    )
    assert "Cannot submit yet: Section 4.1 Scope is required" in response.content.decode()
    assert Proposal.objects.get(pk=proposal.pk).state == "draft"


@pytest.mark.django_db
@pytest.mark.parametrize("key", PROSE_KEYS)
def test_markdown_fields_are_sanitised_on_every_page(client, people, key):
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)>[x](javascript:alert(3))"
    data = data_factory()
    data.sections[key] = payload
    proposal = services.proposal_create(data, people["submitter"])
    services.proposal_transition(proposal, "submit", people["submitter"])
    for role, path in (("submitter", f"/proposals/{proposal.pk}/"), ("editor", f"/review/{proposal.pk}/")):
        client.force_login(people[role])
        body = client.get(path).content.decode().lower()
        assert "<script>alert" not in body and "<img" not in body and 'href="javascript:' not in body


@pytest.mark.django_db
def test_new_proposal_from_the_example_and_as_a_new_version(client, people):
    client.force_login(people["submitter"])
    response = client.post("/proposals/new/", {"start": "example", "snid": "supercomputers"})
    example = Proposal.objects.get(submitter=people["submitter"])
    assert response["Location"] == f"/proposals/{example.pk}/edit/"
    assert example.grammar_rule == "EXAMPLE-URN" and len(example.examples_valid) == 4
    assert example.title == ""  # the example's title names the example, not this registration
    example.title = "Supercomputers"
    example.save(update_fields=["title"])
    services.proposal_transition(example, "submit", people["submitter"])
    approve(example, people["editor"])
    client.post("/proposals/new/", {"start": "version", "namespace": "supercomputers"})
    revision = Proposal.objects.filter(submitter=people["submitter"]).latest("id")
    assert (revision.version, revision.namespace.snid, revision.title) == (2, "supercomputers", example.title)
    other = client.post("/proposals/new/", {"start": "version", "namespace": ""})
    assert "Choose which of your SNIDs to revise." in other.content.decode()


@pytest.mark.django_db
def test_a_new_version_starts_from_the_snid_as_it_stands_and_any_steward_may_start_it(client, people):
    from registry.resolution.models import Resolver
    from registry.stewardship import services as stewardship

    approved = proposal_factory(people["submitter"], state="approved", editor=people["editor"])
    namespace = approved.namespace
    co_steward = user_factory("co-steward")
    stewardship.steward_add(namespace, co_steward, people["editor"], reason="Co-maintainer.")
    request = stewardship.change_request_create(
        namespace,
        "contact",
        {"registrant_public_contact": "new@example.org"},
        people["submitter"],
        reason="The old address is gone.",
    )
    stewardship.change_request_decide(request, people["editor"], approve=True)
    Resolver.objects.create(namespace=namespace, name="main", template="https://data.example.org/{nss}", primary=True)

    client.force_login(co_steward)  # a steward who did not submit version 1
    assert namespace.snid in client.get("/proposals/new/").content.decode()
    client.post("/proposals/new/", {"start": "version", "namespace": namespace.snid})
    draft = Proposal.objects.get(submitter=co_steward)
    assert (draft.version, draft.registrant_public_contact) == (approved.version + 1, "new@example.org")
    assert [r["template"] for r in draft.resolvers] == ["https://data.example.org/{nss}"]


@pytest.mark.django_db
def test_my_proposals_shows_state_last_event_and_findings_in_constant_queries(
    client, people, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(people["submitter"])
    proposal_factory(people["submitter"], state="submitted")
    with CaptureQueriesContext(connection) as few:
        page = client.get("/proposals/").content.decode()
    assert "Submitted" in page and "Submit" in page and "0 fail" in page
    for _ in range(5):
        proposal_factory(people["submitter"], state="changes_requested")
    with CaptureQueriesContext(connection) as many:
        client.get("/proposals/")
    assert len(many) == len(few)


@pytest.mark.django_db
def test_my_proposals_queries_are_the_same_for_5_and_25_and_skip_the_big_columns(client, people):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def listed(first, last):
        for index in range(first, last):
            proposal_factory(people["submitter"], snid=f"mine{index:02d}")
        with CaptureQueriesContext(connection) as queries:
            page = client.get("/proposals/").content.decode()
        return queries, page.count("urn:ogf:mine")

    client.force_login(people["submitter"])
    few, _ = listed(0, 5)
    many, shown = listed(5, 25)
    rows = [q["sql"] for q in many.captured_queries if 'FROM "registry_proposal"' in q["sql"]]
    assert (len(many), shown) == (len(few), 25)
    assert [("grammar_abnf" in sql, '"sections"' in sql, '"validator"' in sql) for sql in rows] == [
        (False, False, False)
    ]


@pytest.mark.django_db
def test_edit_page_loads_the_saved_grammars_diagrams_when_opened_and_draws_unsaved_input_at_once(client, people):
    proposal = proposal_factory(people["submitter"])
    client.force_login(people["submitter"])
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    assert page.count('class="railroad-diagram"') == 0
    assert f'data-lazy-url="/proposals/{proposal.pk}/edit/diagrams/?fragment=1"' in page
    assert f'<a href="/proposals/{proposal.pk}/edit/diagrams/">' in page
    fragment = client.get(f"/proposals/{proposal.pk}/edit/diagrams/?fragment=1").content.decode()
    whole = client.get(f"/proposals/{proposal.pk}/edit/diagrams/").content.decode()
    assert ('id="rule-example-urn"' in fragment, "<html" in fragment) == (True, False)
    assert ('id="rule-example-urn"' in whole, f'href="/proposals/{proposal.pk}/edit/"' in whole) == (True, True)
    checked = client.post(f"/proposals/{proposal.pk}/check/", _form_data(proposal)).content.decode()
    assert ('id="rule-example-urn"' in checked, "data-lazy-url" in checked) == (True, False)


@pytest.mark.django_db
def test_editor_comments_show_next_to_their_section_for_the_applicant(client, people):
    proposal = proposal_factory(people["submitter"], state="changes_requested", editor=people["editor"])
    services.comment_add(proposal, people["editor"], "Name the Unicode version.", section="lexical_equivalence")
    client.force_login(people["submitter"])
    edit = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    section = edit[edit.index('id="section-lexical_equivalence"') : edit.index('id="section-validation_mechanism"')]
    assert "Name the Unicode version." in section


@pytest.mark.django_db
def test_reservation_request_while_writing(client, people, django_capture_on_commit_callbacks):
    proposal = proposal_factory(people["submitter"])
    client.force_login(people["submitter"])
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/proposals/{proposal.pk}/reserve/", {"reason": "Our WG needs the name"})
    request = ReservationRequest.objects.get()
    assert (request.snid, request.requester, request.state) == ("example", people["submitter"], "pending")
    assert [m.to for m in mail.outbox] == [["ed@example.org"]]
    again = client.post(f"/proposals/{proposal.pk}/reserve/", {}, follow=True)
    assert "already asked" in again.content.decode()


@pytest.mark.django_db
def test_signup_confirmed_by_the_mailed_link_logs_in_and_leads_to_a_new_proposal(
    client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/accounts/signup/",
            {
                "username": "newbie",
                "email": "n@example.org",
                "password1": "a-long-pass-phrase-1",
                "password2": "a-long-pass-phrase-1",
            },
        )
    assert response["Location"] == "/accounts/signup/sent/"
    assert client.get("/proposals/").status_code == 302  # not signed in yet
    (message,) = mail.outbox
    link = next(line for line in message.body.splitlines() if "/accounts/confirm/" in line)
    path = link.split("://", 1)[1].split("/", 1)[1]
    response = client.post("/" + path)
    assert response["Location"] == "/proposals/new/"
    assert client.get("/proposals/").status_code == 200


@pytest.mark.django_db
def test_password_reset_mail_goes_out(client, people):
    client.post("/accounts/password_reset/", {"email": "sam@example.org"})
    assert len(mail.outbox) == 1 and "/accounts/reset/" in mail.outbox[0].body


@pytest.mark.django_db
def test_logout_is_a_post(client, people):
    client.force_login(people["submitter"])
    assert client.get("/accounts/logout/").status_code == 405
    client.post("/accounts/logout/")
    assert status_of(client.get("/proposals/")) == "login"


# --- the review panel is about what is on screen (issue 15) ----------------------------------


def _panel(html: str) -> str:
    start = html.index('<div id="workbench">')
    return html[start:]


def _stale_draft(submitter):
    """A draft stored with SNID '-bad' and its findings, as saved before SNIDs were refused
    at every entry: what a page must never show again once other fields are posted."""
    proposal = proposal_factory(submitter)
    findings = run_checklist(data_factory("example", snid="-bad"))
    Proposal.objects.filter(pk=proposal.pk).update(
        snid="-bad", findings=[f.as_dict() for f in findings], findings_summary=summarize(findings)
    )
    proposal.refresh_from_db()
    return proposal


@pytest.mark.django_db
def test_invalid_post_checks_exactly_what_was_posted(client, people):
    proposal = _stale_draft(people["submitter"])
    client.force_login(people["submitter"])
    refused = client.post(f"/proposals/{proposal.pk}/edit/", _form_data(proposal, snid="-bad", intent="save"))
    assert refused.status_code == 400
    response = client.post(
        f"/proposals/{proposal.pk}/edit/", _form_data(proposal, snid="uuid-demo", version="0", intent="save")
    )
    panel = _panel(response.content.decode())
    assert response.status_code == 400
    assert "must start with a letter or digit" not in panel
    assert "&#x27;uuid-demo&#x27; is a well-formed SNID" in panel
    assert "Not checked: fix the Registration version field first." in panel  # the form error, once
    assert "The version should be" not in panel
    assert 'href="#id_version">Registration version</a>: Ensure this value is greater than or equal to 1.' in panel
    assert "including the fields still to correct" in panel


@pytest.mark.django_db
def test_check_without_saving_never_falls_back_to_the_saved_draft(client, people):
    proposal = _stale_draft(people["submitter"])
    client.force_login(people["submitter"])
    response = client.post(
        f"/proposals/{proposal.pk}/check/", _form_data(proposal, snid="uuid-demo", version="0", intent="check")
    )
    panel = response.content.decode()
    assert response.status_code == 200
    assert "must start with a letter or digit" not in panel
    assert "&#x27;uuid-demo&#x27; is a well-formed SNID" in panel
    assert "Registration version</a>: Ensure this value is greater than or equal to 1." in panel
    assert "Checked at <time" in panel
    assert Proposal.objects.get(pk=proposal.pk).snid == "-bad"


@pytest.mark.django_db
def test_edit_page_says_when_and_what_was_checked(client, people):
    proposal = proposal_factory(people["submitter"])
    client.force_login(people["submitter"])
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    assert "Checked at <time" in page and "the saved draft, as shown in the form" in page
    assert 'id="check-announcer"' in page and 'aria-live="polite"' in page


@pytest.mark.django_db
def test_example_findings_say_where_the_urn_goes_wrong(client, people):
    proposal = proposal_factory(people["submitter"])
    client.force_login(people["submitter"])
    urn = "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1"
    response = client.post(f"/proposals/{proposal.pk}/check/", _form_data(proposal, examples_valid=urn))
    assert "At character 66 (&#x27;m&#x27;): expected a digit (rule INDEX)." in response.content.decode()


# --- creation honours what was typed -----------------------------------------------------------


@pytest.mark.django_db
def test_new_from_the_example_is_rebased_onto_the_typed_snid(client, people):
    client.force_login(people["submitter"])
    client.post("/proposals/new/", {"start": "example", "snid": "x-test"})
    draft = Proposal.objects.get(submitter=people["submitter"])
    assert draft.snid == "x-test"
    assert draft.examples_valid[0] == "urn:ogf:x-test:cluster:2009:example.net:42"
    assert draft.examples_equivalent[0][1] == "URN:OGF:X-test:CLUSTER:2009:EXAMPLE.net:42"
    assert 'SNID = "x-test"' in draft.grammar_abnf
    failing = {f["id"] for f in draft.findings if f["status"] == "fail"}
    assert failing == {"snid-not-experimental"}  # not a duplicate of urn:ogf:example:


@pytest.mark.django_db
@pytest.mark.parametrize("start", ["blank", "example"])
def test_new_checks_snid_syntax_before_a_draft_exists(client, people, start):
    client.force_login(people["submitter"])
    response = client.post("/proposals/new/", {"start": start, "snid": "-bad"})
    assert response.status_code == 200
    assert "The SNID must start with a letter or digit, not &#x27;-&#x27;." in response.content.decode()
    assert not Proposal.objects.filter(submitter=people["submitter"]).exists()


@pytest.fixture
def deprecated_example(people):
    """urn:ogf:example: (the submitter's, deprecated) and urn:ogf:successor: (the submitter's, registered)."""
    from registry.stewardship import services as stewardship

    old = proposal_factory(people["submitter"], state="approved", editor=people["editor"]).namespace
    proposal_factory(people["submitter"], state="approved", editor=people["editor"], snid="successor")
    stewardship.snid_deprecate(old, people["editor"], reason="Superseded.", successor="successor")
    return old


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["submitter", "other", "editor"])
@pytest.mark.parametrize(
    "post",
    [
        {"start": "blank", "snid": "example"},
        {"start": "example", "snid": "EXAMPLE"},
        {"start": "version", "namespace": "example"},
    ],
)
def test_new_proposal_for_a_deprecated_snid_is_a_form_error_naming_it(client, people, deprecated_example, role, post):
    client.force_login(people[role])
    before = Proposal.objects.count()
    response = client.post("/proposals/new/", post)
    assert response.status_code == 200
    page = response.content.decode()
    if post["start"] == "version" and role != "submitter":  # not theirs: not even offered
        assert "Select a valid choice." in page
    else:
        assert re.search(r"urn:ogf:(example|EXAMPLE): is deprecated", page), page
        assert 'aria-invalid="true"' in page
    assert Proposal.objects.count() == before


@pytest.mark.django_db
def test_new_proposal_for_an_snid_registered_or_reserved_for_someone_else_is_a_form_error(client, people):
    import datetime as dt

    from django.utils import timezone

    proposal_factory(people["submitter"], state="approved", editor=people["editor"], snid="taken")
    services.namespace_reserve(
        "kept",
        people["editor"],
        until=timezone.localdate() + dt.timedelta(days=30),
        reason="For sam.",
        reserved_for=people["submitter"],
    )
    client.force_login(people["other"])
    for snid, words in (
        ("TAKEN", "urn:ogf:TAKEN: is already registered to someone else"),
        ("kept", "urn:ogf:kept: is reserved for someone else"),
    ):
        page = client.post("/proposals/new/", {"start": "blank", "snid": snid}).content.decode()
        assert words in page, page
    assert not Proposal.objects.filter(submitter=people["other"]).exists()
    client.force_login(people["submitter"])  # their own: a new version, and their reservation
    for snid in ("taken", "kept"):
        assert client.post("/proposals/new/", {"start": "blank", "snid": snid}).status_code == 302
    assert Proposal.objects.filter(submitter=people["submitter"], state="draft").count() == 2


# --- submit shows failing checks and asks --------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["edit", "action"])
def test_submit_with_failing_checks_asks_and_can_still_submit(client, people, path):
    proposal = proposal_factory(people["submitter"], snid="x-test")
    client.force_login(people["submitter"])
    if path == "edit":
        response = client.post(f"/proposals/{proposal.pk}/edit/", _form_data(proposal, intent="submit"))
    else:
        response = client.post(f"/proposals/{proposal.pk}/submit/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "with failing checks?" in page and 'data-check="snid-not-experimental"' in page
    # Each failing check links to its place on the edit page, saying where; no check id is shown.
    assert f'<a href="/proposals/{proposal.pk}/edit/#section-snid">1.1 Namespace Identifier</a>' in page
    assert "<code>snid-not-experimental</code>" not in page
    assert Proposal.objects.get(pk=proposal.pk).state == "draft"
    confirmed = client.post(f"/proposals/{proposal.pk}/submit/", {"confirm": "yes"}, follow=True)
    assert "Submitted for review with 6 failing checks" in confirmed.content.decode()
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"


@pytest.mark.django_db
def test_submit_without_failing_checks_asks_nothing(client, people):
    proposal = proposal_factory(people["submitter"])
    client.force_login(people["submitter"])
    response = client.post(f"/proposals/{proposal.pk}/submit/", follow=True)
    assert "Submitted for review. The GFD editor has been told." in response.content.decode()


# --- every link in the findings panel has a target -----------------------------------------------


def _ids_and_panel_links(html: str) -> tuple[set[str], list[str]]:
    from html.parser import HTMLParser

    ids, links, depth = set(), [], [0]

    class Collector(HTMLParser):
        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if attrs.get("id"):
                ids.add(attrs["id"])
            if attrs.get("id") == "workbench":
                depth[0] = 1
            elif depth[0] and tag == "div":
                depth[0] += 1
            href = attrs.get("href") or attrs.get("xlink:href") or ""
            if depth[0] and href.startswith("#"):
                links.append(href[1:])

        def handle_endtag(self, tag):
            if depth[0] and tag == "div":
                depth[0] -= 1

    Collector().feed(html)
    return ids, links


FAILING = {
    "snid": "x-links",
    "document": {"reference": "", "url": "", "status": ""},
    "grammar": {"abnf": 'urn = "urn:ogf:example:" 1*(DIGIT / "%" / HEXDIG / ALPHA)\n', "rule": ""},
    "max_length": None,
    "examples": {"valid": ["urn:ogf:example:x!"], "invalid": [], "equivalent": []},
}


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["edit", "review"])
def test_every_link_in_the_findings_panel_finds_its_target(client, people, page):
    if page == "edit":
        proposal = proposal_factory(people["submitter"], **FAILING)
        client.force_login(people["submitter"])
        html = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    else:
        proposal = proposal_factory(people["submitter"], state="submitted", **FAILING)
        client.force_login(people["editor"])
        html = client.get(f"/review/{proposal.pk}/").content.decode()
    # The diagrams load when their panel is opened: put them where the page's script puts them.
    lazy = re.search(
        r'data-lazy-url="([^"]+)"><summary>Railroad diagrams of the grammar</summary>\s*'
        r'<div class="lazy-body">(.*?)</div>',
        html,
        re.S,
    )
    html = html[: lazy.start(2)] + client.get(lazy.group(1)).content.decode() + html[lazy.end(2) :]
    ids, links = _ids_and_panel_links(html)
    for wanted in (
        "section-grammar",
        "section-document",
        "section-max_length",
        "section-examples",
        "rule-digit",
        "rule-hexdig",
        "rule-alpha",
    ):
        assert wanted in links, wanted
    assert [link for link in links if link not in ids] == []


@pytest.mark.django_db
def test_document_type_is_saved_from_the_form_and_checked(client, people):
    proposal = proposal_factory(people["submitter"])
    client.force_login(people["submitter"])
    client.post(f"/proposals/{proposal.pk}/edit/", _form_data(proposal, document_type="Experimental", intent="save"))
    proposal.refresh_from_db()
    assert proposal.document_type == "Experimental"
    warned = [f["message"] for f in proposal.findings if f["id"] == "document" and f["status"] == "warning"]
    assert warned == [
        "The registering document's GFD type is Experimental; GFD.191 §4 says it SHOULD be "
        "Informational. Say why in the proposal, or publish it as Informational."
    ]
    refused = client.post(f"/proposals/{proposal.pk}/edit/", _form_data(proposal, document_type="Standard"))
    assert refused.status_code == 400


@pytest.mark.django_db
def test_only_the_submitter_is_asked_to_confirm(client, people):
    proposal = proposal_factory(people["submitter"], snid="x-test")
    client.force_login(people["editor"])
    response = client.post(f"/proposals/{proposal.pk}/submit/")
    assert response.status_code == 403
    assert "submit_confirm" not in response.content.decode()
    assert Proposal.objects.get(pk=proposal.pk).state == "draft"


# --- a thread answered from the edit page keeps what the form holds ------------------------------


def _sent_back_with_a_thread(people):
    proposal = proposal_factory(people["submitter"], state="submitted")
    thread = services.thread_start(proposal, people["editor"], "Who assigns the index?", section="scope")
    services.proposal_transition(proposal, "request_changes", people["editor"], comment="See 4.1.")
    return Proposal.objects.get(pk=proposal.pk), thread


@pytest.mark.django_db
def test_replying_from_the_edit_page_saves_the_typed_draft_first(client, people):
    proposal, thread = _sent_back_with_a_thread(people)
    client.force_login(people["submitter"])
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    assert f'name="intent" value="reply-{thread.pk}"' in page and f'name="reply-{thread.pk}"' in page
    typed = proposal.sections["scope"] + "\n\nThe WG chair assigns the index."
    response = client.post(
        f"/proposals/{proposal.pk}/edit/",
        _form_data(
            proposal, section_scope=typed, intent=f"reply-{thread.pk}", **{f"reply-{thread.pk}": "Now said in 4.1."}
        ),
    )
    assert response.status_code == 302 and response["Location"] == f"/proposals/{proposal.pk}/edit/#thread-{thread.pk}"
    assert Proposal.objects.get(pk=proposal.pk).sections["scope"] == typed
    assert thread.replies.get().text == "Now said in 4.1."
    landed = client.get(response["Location"]).content.decode()
    in_thread = landed[landed.index(f'id="thread-{thread.pk}"') :]
    assert "Reply added; the GFD editors can read it" in in_thread[:3000]
    assert "Your changes to the draft were saved first." in in_thread[:3000]


@pytest.mark.django_db
def test_replying_from_the_edit_page_with_a_field_to_correct_keeps_everything_typed(client, people):
    proposal, thread = _sent_back_with_a_thread(people)
    client.force_login(people["submitter"])
    typed = "A scope I typed and must not lose."
    response = client.post(
        f"/proposals/{proposal.pk}/edit/",
        _form_data(
            proposal,
            section_scope=typed,
            version="0",
            intent=f"reply-{thread.pk}",
            **{f"reply-{thread.pk}": "Answered."},
        ),
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert typed in page and "Nothing in the form was saved" in page
    assert Proposal.objects.get(pk=proposal.pk).sections["scope"] != typed  # not saved: a field is wrong
    assert thread.replies.get().text == "Answered."  # the reply itself is sent


@pytest.mark.django_db
def test_a_refused_reply_from_the_edit_page_is_shown_again_and_the_draft_kept(client, people):
    proposal, thread = _sent_back_with_a_thread(people)
    client.force_login(people["submitter"])
    typed = proposal.sections["scope"] + " Changed."
    response = client.post(
        f"/proposals/{proposal.pk}/edit/",
        _form_data(proposal, section_scope=typed, intent=f"reply-{thread.pk}", **{f"reply-{thread.pk}": " " * 3}),
    )
    assert Proposal.objects.get(pk=proposal.pk).sections["scope"] == typed
    assert not thread.replies.exists()
    page = response.content.decode()
    assert response.status_code == 400 and "Your changes to the draft were saved first." in page


@pytest.mark.django_db
def test_resolving_from_the_edit_page_keeps_the_typed_draft(client, people):
    proposal, thread = _sent_back_with_a_thread(people)
    client.force_login(people["submitter"])
    response = client.post(
        f"/proposals/{proposal.pk}/edit/",
        _form_data(proposal, title="Typed before resolving", intent=f"resolve-{thread.pk}"),
    )
    assert response.status_code == 302
    assert Proposal.objects.get(pk=proposal.pk).title == "Typed before resolving"
    thread.refresh_from_db()
    assert thread.resolved_by == people["submitter"]


@pytest.mark.django_db
def test_a_thread_of_another_proposal_cannot_be_answered_from_this_edit_page(client, people):
    proposal, _ = _sent_back_with_a_thread(people)
    _, elsewhere = _sent_back_with_a_thread(people)
    client.force_login(people["submitter"])
    response = client.post(
        f"/proposals/{proposal.pk}/edit/",
        _form_data(proposal, intent=f"reply-{elsewhere.pk}", **{f"reply-{elsewhere.pk}": "Hi."}),
    )
    assert response.status_code == 404 and not elsewhere.replies.exists()
