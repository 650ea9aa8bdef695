"""Every URL of the site and the API × {anonymous, applicant, other applicant, editor}.

The table is the expected outcome; ``test_every_url_is_in_the_table`` walks the
URL resolver, so adding a URL without deciding who may use it fails. Outcomes:
a status code, or ``login`` for a redirect to the log-in page. The admin's own
URLs are Django's and covered by tests/test_admin.py; its index is listed here.
"""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from registry import services
from registry.stewardship import services as stewardship
from registry.transparency.signer import log_sign

from .factories import api_decide, data_factory, proposal_factory, user_factory

ROLES = ("anonymous", "applicant", "other", "editor")
EVERYONE_200 = ("200", "200", "200", "200")
LOGGED_IN_200 = ("login", "200", "200", "200")
EDITORS_ONLY = ("login", "403", "403", "200")
EDITORS_POST = ("login", "403", "403", "302")

# name: (method, path template, outcomes per role). {draft}: the applicant's draft;
# {approved}: the applicant's approved proposal of urn:ogf:example:; {version}: its version 2, submitted.
MATRIX: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "registry:home": ("GET", "/", ("302", "302", "302", "302")),
    "registry:favicon": ("GET", "/favicon.ico", ("301", "301", "301", "301")),
    "registry:namespace_list": ("GET", "/urn/", EVERYONE_200),
    "registry:urn_search": ("GET", "/urn/search/?urn=urn:ogf:example:x", EVERYONE_200),
    "registry:feed": ("GET", "/urn/feed.atom", EVERYONE_200),
    "registry:registry_export": ("GET", "/urn/registry.json", EVERYONE_200),
    "registry:registry_full_export": ("GET", "/urn/registry-full.json", EVERYONE_200),
    "registry:namespace_detail": ("GET", "/urn/example/", EVERYONE_200),
    "registry:namespace_diff": ("GET", "/urn/example/diff/", EVERYONE_200),
    "registry:namespace_version": ("GET", "/urn/example/1/", EVERYONE_200),
    "registry:namespace_document": ("GET", "/urn/example/1/registration.md", EVERYONE_200),
    "registry:signup": ("GET", "/accounts/signup/", EVERYONE_200),
    "registry:help_index": ("GET", "/help/", EVERYONE_200),
    "registry:help_page": ("GET", "/help/documents/", EVERYONE_200),
    "registry:signup_sent": ("GET", "/accounts/signup/sent/", EVERYONE_200),
    "registry:signup_confirm": ("GET", "/accounts/confirm/MQ/bad-token/", ("400", "400", "400", "400")),
    "registry:proposal_list": ("GET", "/proposals/", LOGGED_IN_200),
    "registry:proposal_new": ("GET", "/proposals/new/", LOGGED_IN_200),
    "registry:proposal_import": ("GET", "/proposals/import/", LOGGED_IN_200),
    "registry:proposal_import_create": ("POST", "/proposals/import/create/", ("login", "400", "400", "400")),
    "registry:proposal_detail": ("GET", "/proposals/{draft}/", ("404", "200", "404", "200")),
    "registry:proposal_edit": ("GET", "/proposals/{draft}/edit/", ("login", "200", "404", "403")),
    "registry:proposal_diagrams": ("GET", "/proposals/{draft}/edit/diagrams/", ("login", "200", "404", "403")),
    "registry:proposal_check": ("POST", "/proposals/{draft}/check/", ("login", "200", "404", "403")),
    "registry:proposal_export": ("GET", "/proposals/{draft}/export.md", ("404", "200", "404", "200")),
    "registry:proposal_reserve": ("POST", "/proposals/{draft}/reserve/", ("login", "302", "404", "302")),
    # without confirm=yes the applicant gets the confirmation page; nobody else may withdraw
    "registry:proposal_action": ("POST", "/proposals/{draft}/withdraw/", ("login", "200", "404", "403")),
    "registry:thread_reply": ("POST", "/threads/{thread}/reply/", ("login", "302", "404", "302")),
    "registry:thread_resolve": ("POST", "/threads/{thread}/resolve/", ("login", "302", "404", "302")),
    "registry:thread_reopen": ("POST", "/threads/{thread}/reopen/", ("login", "302", "404", "302")),
    "registry:review_queue": ("GET", "/review/", EDITORS_ONLY),
    "registry:review_reservations": ("GET", "/review/reservations/", EDITORS_ONLY),
    "registry:review_reservation_action": ("POST", "/review/reservations/act/", EDITORS_POST),
    "registry:review_snid_history": ("GET", "/review/snid/example/", EDITORS_ONLY),
    "registry:review_detail": ("GET", "/review/{approved}/", EDITORS_ONLY),
    "registry:review_diagrams": ("GET", "/review/{approved}/diagrams/", EDITORS_ONLY),
    "registry:review_diff": ("GET", "/review/{version}/diff/", EDITORS_ONLY),
    "registry:review_decide": ("POST", "/review/{approved}/decide/", EDITORS_POST),
    "registry:review_comment": ("POST", "/review/{approved}/comment/", EDITORS_POST),
    "registry:review_judgement": ("POST", "/review/{approved}/judgement/", EDITORS_POST),
    # an SNID's life after approval: {approved}'s applicant is the steward of urn:ogf:example:. Each step's
    # GET is its form or confirmation page (tests/test_stewardship_views.py covers the POSTs by role)
    "registry:stewardship": ("GET", "/urn/example/stewardship/", ("login", "200", "403", "200")),
    "registry:stewardship_change": ("GET", "/urn/example/stewardship/change/contact/", ("login", "200", "403", "403")),
    "registry:stewardship_invite": ("GET", "/urn/example/stewardship/invite/", ("login", "200", "403", "403")),
    "registry:stewardship_orcid": ("POST", "/urn/example/stewardship/orcid/", ("login", "302", "403", "403")),
    "registry:stewardship_name": ("POST", "/urn/example/stewardship/name/", ("login", "302", "403", "403")),
    "registry:stewardship_add": ("GET", "/urn/example/stewardship/add/", ("login", "403", "403", "200")),
    "registry:stewardship_remove": (
        "GET",
        "/urn/example/stewardship/remove/{steward}/",
        ("login", "403", "403", "200"),
    ),
    "registry:stewardship_deprecate": ("GET", "/urn/example/stewardship/deprecate/", ("login", "403", "403", "200")),
    # not deprecated: the editor is told so (409), with the way back
    "registry:stewardship_undeprecate": (
        "GET",
        "/urn/example/stewardship/undeprecate/",
        ("login", "403", "403", "409"),
    ),
    "registry:stewardship_queue": ("GET", "/review/stewardship/", EDITORS_ONLY),
    "registry:stewardship_change_decide": (
        "GET",
        "/review/stewardship/change/{change}/?decision=approve",
        EDITORS_ONLY,
    ),
    "registry:stewardship_invitation_decide": (
        "GET",
        "/review/stewardship/invitation/{invitation}/?decision=confirm",
        EDITORS_ONLY,
    ),
    "api:snid_list": ("GET", "/api/snids/", EVERYONE_200),
    "api:snid_detail": ("GET", "/api/snids/example/", EVERYONE_200),
    "api:snid_version": ("GET", "/api/snids/example/versions/1/", EVERYONE_200),
    "api:lookup": ("GET", "/api/lookup/?urn=urn:ogf:example:x", EVERYONE_200),
    "api:snid_version_proof": ("GET", "/api/snids/example/versions/1/proof", EVERYONE_200),
    "api:log_consistency": ("GET", "/api/log/consistency/?first=0", EVERYONE_200),
    "api:log_entry_proof": ("GET", "/api/log/entries/0/proof", EVERYONE_200),
    "log:page": ("GET", "/log/", EVERYONE_200),
    "log:checkpoint": ("GET", "/log/checkpoint", EVERYONE_200),
    "log:key": ("GET", "/log/key", EVERYONE_200),
    "log:tile": ("GET", "/log/tile/entries/000.p/1", EVERYONE_200),
    "api:validate": ("POST", "/api/validate/", EVERYONE_200),
    "api:resolve": ("GET", "/api/resolve/?urn=urn:ogf:example:cluster:2009:example.net:42", EVERYONE_200),
    "resolution:resolve": ("GET", "/resolve/?urn=urn:ogf:example:cluster:2009:example.net:42", EVERYONE_200),
    "resolution:resolve_path": ("GET", "/urn:ogf:example:cluster:2009:example.net:42", EVERYONE_200),
    "resolution:resolvers_edit": ("GET", "/urn/example/resolvers/edit/", EDITORS_ONLY),
    "resolution:resolvers_probe": ("POST", "/review/{approved}/resolvers/probe/", ("login", "403", "403", "200")),
    "api:proposal_list": ("GET", "/api/proposals/", ("403", "200", "200", "200")),
    "api:proposal_detail": ("GET", "/api/proposals/{draft}/", ("403", "200", "404", "200")),
    "api:proposal_action": ("POST", "/api/proposals/{draft}/actions/withdraw/", ("403", "200", "404", "403")),
    # an editor without a body: 400 (which judgements?); the applicant may read the draft, not judge it
    "api:proposal_judgements": ("POST", "/api/proposals/{draft}/judgements/", ("403", "403", "404", "400")),
    "api:review_queue": ("GET", "/api/review/", ("403", "403", "403", "200")),
    "api:index": ("GET", "/api/", EVERYONE_200),
    "api:schema": ("GET", "/api/schema/", EVERYONE_200),
    "api:docs": ("GET", "/api/docs/", EVERYONE_200),
    "api:redoc": ("GET", "/api/redoc/", EVERYONE_200),
    "api:redoc_bundle": ("GET", "/api/redoc/redoc.standalone.js", EVERYONE_200),
    "login": ("GET", "/accounts/login/", EVERYONE_200),
    "logout": ("POST", "/accounts/logout/", ("302", "302", "302", "302")),
    "password_change": ("GET", "/accounts/password_change/", LOGGED_IN_200),
    "password_change_done": ("GET", "/accounts/password_change/done/", LOGGED_IN_200),
    "password_reset": ("GET", "/accounts/password_reset/", EVERYONE_200),
    "password_reset_done": ("GET", "/accounts/password_reset/done/", EVERYONE_200),
    "password_reset_confirm": ("GET", "/accounts/reset/MQ/bad-token/", EVERYONE_200),
    "password_reset_complete": ("GET", "/accounts/reset/done/", EVERYONE_200),
    "registry:identities": ("GET", "/accounts/identities/", LOGGED_IN_200),
    "registry:account": ("GET", "/accounts/", LOGGED_IN_200),
    "registry:account_data": ("GET", "/accounts/data.json", LOGGED_IN_200),
    "registry:account_close": ("GET", "/accounts/close/", LOGGED_IN_200),
    "registry:account_name": ("POST", "/accounts/name/", ("login", "302", "302", "302")),
    "registry:account_address": ("POST", "/accounts/address/", ("login", "400", "400", "400")),
    "registry:account_address_confirm": ("GET", "/accounts/address/forged/", ("400", "400", "400", "400")),
    # without the right password first (kept in the session), back to the log-in page: for everyone
    "registry:signup_confirm_again": ("POST", "/accounts/confirm/again/", ("login", "login", "login", "login")),
    # sign-in with an identity provider (django-allauth): none is configured in this table's world
    "account_login": ("GET", "/accounts/login/", EVERYONE_200),
    "account_logout": ("POST", "/accounts/logout/", ("302", "302", "302", "302")),
    "account_signup": ("GET", "/accounts/signup/", EVERYONE_200),
    "account_inactive": ("GET", "/accounts/inactive/", ("403", "403", "403", "403")),
    "socialaccount_connections": ("GET", "/accounts/social/", LOGGED_IN_200),
    "socialaccount_login_cancelled": ("GET", "/accounts/social/login/cancelled/", EVERYONE_200),
    "socialaccount_login_error": ("GET", "/accounts/social/login/error/", ("401", "401", "401", "401")),
    "socialaccount_signup": ("GET", "/accounts/social/signup/", ("login", "login", "login", "login")),
    "openid_connect_login": ("POST", "/accounts/social/oidc/orcid/login/", ("404", "404", "404", "404")),
    "openid_connect_callback": ("GET", "/accounts/social/oidc/orcid/login/callback/", ("404", "404", "404", "404")),
    "admin:index": ("GET", "/admin/", ("302", "302", "302", "302")),
}


def _names(resolver: URLResolver, namespace: str = "") -> set[str]:
    names = set()
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            if pattern.namespace == "admin":
                continue
            names |= _names(pattern, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(f"{namespace}{pattern.name}")
    return names


def test_every_url_is_in_the_table():
    names = _names(get_resolver())
    missing = sorted(names - set(MATRIX))
    assert missing == [], f"URLs without a row in the permission matrix: {missing}"
    assert sorted(set(MATRIX) - names - {"admin:index"}) == []


@pytest.fixture
def world(db):
    applicant, other = user_factory("owner"), user_factory("stranger")
    editor = user_factory("gfd-editor", editor=True)
    approved = proposal_factory(applicant, state="approved", editor=user_factory(editor=True))
    draft = proposal_factory(applicant, snid="drafty")
    services.reservation_request_create("wanted", applicant)
    pending = proposal_factory(applicant, snid="pending", state="submitted")
    version = services.proposal_create(data_factory(version=2), applicant)
    services.proposal_transition(version, "submit", applicant)
    # The review of a decided proposal is closed: threads live on proposals under review.
    thread = services.thread_start(pending, editor, "A remark for the applicant only.", section="scope")
    namespace = approved.namespace
    change = stewardship.change_request_create(
        namespace,
        "contact",
        {"registrant_public_contact": "new@example.org"},
        applicant,
        reason="The old address is gone.",
    )
    invitation = stewardship.steward_invite(namespace, user_factory("invitee"), applicant, reason="Co-maintainer.")
    steward = namespace.stewards.get(user=applicant)
    log_sign()  # the log's signer, as after the commits a test's transaction never makes
    return {
        "users": {"applicant": applicant, "other": other, "editor": editor},
        "ids": {
            "draft": draft.pk,
            "approved": approved.pk,
            "thread": thread.pk,
            "version": version.pk,
            "change": change.pk,
            "invitation": invitation.pk,
            "steward": steward.pk,
        },
    }


def outcome(response) -> str:
    if response.status_code == 302 and "/accounts/login/" in response.get("Location", ""):
        return "login"
    return str(response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(MATRIX))
@pytest.mark.parametrize("role", ROLES)
def test_permission_matrix(client, world, name, role):
    method, template, expected = MATRIX[name]
    if role != "anonymous":
        client.force_login(world["users"][role])
    path = template.format(**world["ids"])
    if method == "GET":
        response = client.get(path)
    elif name.startswith("api:"):
        body = {"urns": ["urn:ogf:example:x"]} if name == "api:validate" else {}
        response = client.post(path, body, content_type="application/json")
    else:
        response = client.post(path, {})
    assert outcome(response) == expected[ROLES.index(role)]


# --- review comments, judgements, decision messages and editors' names: rules.can_see_review -----

SECRETS = ("SECRET-COMMENT", "SECRET-JUDGEMENT", "SECRET-DECISION", "SECRET-APPROVAL", "reviewer-hidden")


@pytest.fixture
def reviewed(db):
    applicant, other = user_factory("owner"), user_factory("stranger")
    reviewer = user_factory("reviewer-hidden", editor=True)
    proposal = proposal_factory(applicant, state="submitted")
    services.comment_add(proposal, reviewer, "SECRET-COMMENT on the registrant.", section="registrant")
    services.comment_add(proposal, reviewer, "SECRET-COMMENT in general.")
    services.judgement_set(proposal, reviewer, "scope", ok=True, note="SECRET-JUDGEMENT")
    services.proposal_transition(proposal, "request_changes", reviewer, comment="SECRET-DECISION")
    services.proposal_transition(proposal, "submit", applicant)
    services.proposal_transition(proposal, "approve", reviewer, comment="SECRET-APPROVAL", override_reason="test data")
    return {
        "applicant": applicant,
        "other": other,
        "editor": user_factory("another-editor", editor=True),
        "proposal": proposal,
    }


PUBLIC_PATHS = [
    "/proposals/{id}/",
    "/api/proposals/{id}/",
    "/urn/example/",
    "/urn/example/1/",
    "/urn/feed.atom",
    "/urn/registry.json",
    "/urn/registry.csv",
    "/urn/registry.xml",
    "/urn/example/1/registration.md",
    "/proposals/{id}/export.md",
    "/api/snids/example/",
    "/api/snids/example/versions/1/",
    "/api/snids/example/versions/1/proof",
    "/log/tile/entries/000.p/1",
]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["anonymous", "other"])
@pytest.mark.parametrize("path", PUBLIC_PATHS)
def test_review_never_reaches_anyone_but_submitter_and_editors(client, reviewed, role, path):
    if role != "anonymous":
        client.force_login(reviewed[role])
    response = client.get(path.format(id=reviewed["proposal"].pk))
    assert response.status_code in (200, 403)  # 403: the proposal API needs a log-in
    body = response.content.decode()
    assert [secret for secret in SECRETS if secret in body] == []


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["applicant", "editor"])
def test_submitter_and_editors_keep_seeing_the_review_after_approval(client, reviewed, role):
    client.force_login(reviewed[role])
    page = client.get(f"/proposals/{reviewed['proposal'].pk}/").content.decode()
    api = client.get(f"/api/proposals/{reviewed['proposal'].pk}/").content.decode()
    for text in (page, api):
        assert "SECRET-DECISION" in text and "SECRET-APPROVAL" in text and "reviewer-hidden" in text
    assert "SECRET-COMMENT on the registrant." in page and "SECRET-COMMENT in general." in page


@pytest.mark.django_db
def test_anonymous_history_keeps_the_public_facts(client, reviewed):
    page = client.get(f"/proposals/{reviewed['proposal'].pk}/").content.decode()
    assert "An editor approved the proposal." in page and "An editor requested changes." in page
    assert "Editor " not in page  # who acted is part of the review


def test_can_see_review_is_the_rule(db):
    from django.contrib.auth.models import AnonymousUser

    from registry.rules import can_see_review

    applicant, other, editor = user_factory("a1"), user_factory("o1"), user_factory("e1", editor=True)
    proposal = proposal_factory(applicant, state="approved")
    assert [can_see_review(u, proposal) for u in (AnonymousUser(), other, applicant, editor)] == [
        False,
        False,
        True,
        True,
    ]


# --- conflict of interest: an editor never decides their own case -------------------------------


@pytest.fixture
def own(db):
    editor = user_factory("self-editor", editor=True)
    return {
        "editor": editor,
        "proposal": proposal_factory(editor, state="submitted"),
        "other_editor": user_factory("other-editor", editor=True),
    }


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["approve", "reject", "request_changes"])
def test_an_editor_cannot_decide_their_own_proposal(own, action):
    with pytest.raises(services.NotAllowed, match="cannot decide on their own proposals"):
        services.proposal_transition(own["proposal"], action, own["editor"], comment="mine", override_reason="x")
    assert own["proposal"].__class__.objects.get(pk=own["proposal"].pk).state == "submitted"


@pytest.mark.django_db
def test_an_editor_cannot_judge_or_comment_as_editor_on_their_own_proposal(client, own):
    with pytest.raises(services.NotAllowed, match="cannot judge their own"):
        services.judgement_set(own["proposal"], own["editor"], "scope", ok=True)
    client.force_login(own["editor"])
    pk = own["proposal"].pk
    client.post(f"/review/{pk}/comment/", {"text": "looks fine to me", "section": ""})
    client.post(f"/review/{pk}/decide/", {"action": "approve", "override_reason": "x"})
    assert api_decide(client, pk, "approve", override_reason="x").status_code == 403
    proposal = own["proposal"].__class__.objects.get(pk=pk)
    assert (proposal.state, proposal.comments.count(), proposal.judgements.count()) == ("submitted", 0, 0)


@pytest.mark.django_db
def test_another_editor_decides_and_a_superuser_overrides_only_with_a_recorded_reason(own):
    from django.contrib.auth import get_user_model

    services.proposal_transition(own["proposal"], "request_changes", own["other_editor"], comment="fix")
    boss = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw-for-tests-1")
    mine = proposal_factory(boss, snid="bossy", state="submitted")
    with pytest.raises(services.NotAllowed):
        services.proposal_transition(mine, "approve", boss, override_reason="x")
    services.proposal_transition(mine, "approve", boss, override_reason="x", conflict_reason="Only editor on leave")
    assert mine.events.last().data["conflict_override"] == "Only editor on leave"


@pytest.mark.django_db
def test_an_editor_cannot_grant_their_own_reservation_nor_reserve_for_themselves(own):
    import datetime as dt

    request = services.reservation_request_create("mine", own["editor"], reason="for me")
    with pytest.raises(services.NotAllowed, match="their own reservation requests"):
        services.reservation_request_decide(
            request, own["editor"], grant=True, until=dt.date.today() + dt.timedelta(days=30)
        )
    with pytest.raises(services.NotAllowed, match="for themselves"):
        services.namespace_reserve(
            "mine", own["editor"], until=dt.date.today() + dt.timedelta(days=30), reason="", reserved_for=own["editor"]
        )
    granted = services.reservation_request_decide(
        request, own["other_editor"], grant=True, until=dt.date.today() + dt.timedelta(days=30)
    )
    assert granted.state == "granted"


@pytest.mark.django_db
def test_reservations_have_a_maximum_length_and_are_renewed_by_an_editor(own, settings):
    import datetime as dt

    today = dt.date.today()
    with pytest.raises(services.ServiceError, match="at most 365 days"):
        services.namespace_reserve("longer", own["editor"], until=dt.date(9999, 12, 31), reason="")
    applicant = user_factory("wants-it")
    services.namespace_reserve(
        "longer", own["editor"], until=today + dt.timedelta(days=365), reason="WG", reserved_for=applicant
    )
    settings.RESERVATION_MAX_DAYS = 400  # a later day, seen from today
    renewed = services.namespace_renew("longer", own["other_editor"], until=today + dt.timedelta(days=400))
    assert (renewed.reserved_until, renewed.reserved_for, renewed.reservation_reason) == (
        today + dt.timedelta(days=400),
        applicant,
        "WG",
    )
    with pytest.raises(services.NotAllowed):
        services.namespace_renew("longer", applicant, until=today + dt.timedelta(days=10))


@pytest.mark.django_db
def test_judgements_are_events_and_frozen_once_decided(own):
    from registry.models import ProposalEvent

    proposal, editor = own["proposal"], own["other_editor"]
    services.judgement_set(proposal, editor, "scope", ok=False, note="unclear")
    services.judgement_set(proposal, editor, "scope", ok=True, note="clear now")
    judged = ProposalEvent.objects.filter(proposal=proposal, kind="judgement")
    assert [(e.data["check"], e.data["ok"], e.comment) for e in judged] == [
        ("scope", False, "unclear"),
        ("scope", True, "clear now"),
    ]
    services.proposal_transition(proposal, "approve", editor, override_reason="x")
    with pytest.raises(services.Conflict, match="judgements are final"):
        services.judgement_set(proposal, editor, "scope", ok=False, note="rewrite history")
    assert proposal.judgements.get().note == "clear now"


@pytest.mark.django_db
def test_an_editor_cannot_reserve_an_snid_they_are_proposing(own):
    import datetime as dt

    with pytest.raises(services.NotAllowed, match="proposing themselves"):
        services.namespace_reserve(
            own["proposal"].snid.upper(), own["editor"], until=dt.date.today() + dt.timedelta(days=30), reason=""
        )
    reserved = services.namespace_reserve(
        own["proposal"].snid, own["other_editor"], until=dt.date.today() + dt.timedelta(days=30), reason="WG"
    )
    assert reserved.reserved_until == dt.date.today() + dt.timedelta(days=30)
