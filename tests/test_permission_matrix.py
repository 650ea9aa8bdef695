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

from .factories import proposal_factory, user_factory

ROLES = ("anonymous", "applicant", "other", "editor")
EVERYONE_200 = ("200", "200", "200", "200")
LOGGED_IN_200 = ("login", "200", "200", "200")
EDITORS_ONLY = ("login", "403", "403", "200")
EDITORS_POST = ("login", "403", "403", "302")

# name: (method, path template, outcomes per role). {draft}: the applicant's draft;
# {approved}: the applicant's approved proposal of urn:ogf:example:.
MATRIX: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "registry:home": ("GET", "/", ("302", "302", "302", "302")),
    "registry:favicon": ("GET", "/favicon.ico", ("301", "301", "301", "301")),
    "registry:namespace_list": ("GET", "/urn/", EVERYONE_200),
    "registry:urn_search": ("GET", "/urn/search/?urn=urn:ogf:example:x", EVERYONE_200),
    "registry:feed": ("GET", "/urn/feed.atom", EVERYONE_200),
    "registry:registry_export": ("GET", "/urn/registry.json", EVERYONE_200),
    "registry:namespace_detail": ("GET", "/urn/example/", EVERYONE_200),
    "registry:namespace_diff": ("GET", "/urn/example/diff/", EVERYONE_200),
    "registry:namespace_version": ("GET", "/urn/example/1/", EVERYONE_200),
    "registry:namespace_document": ("GET", "/urn/example/1/registration.md", EVERYONE_200),
    "registry:signup": ("GET", "/accounts/signup/", EVERYONE_200),
    "registry:proposal_list": ("GET", "/proposals/", LOGGED_IN_200),
    "registry:proposal_new": ("GET", "/proposals/new/", LOGGED_IN_200),
    "registry:proposal_import": ("GET", "/proposals/import/", LOGGED_IN_200),
    "registry:proposal_detail": ("GET", "/proposals/{draft}/", ("404", "200", "404", "200")),
    "registry:proposal_edit": ("GET", "/proposals/{draft}/edit/", ("login", "200", "404", "403")),
    "registry:proposal_check": ("POST", "/proposals/{draft}/check/", ("login", "200", "404", "403")),
    "registry:proposal_export": ("GET", "/proposals/{draft}/export.md", ("404", "200", "404", "200")),
    "registry:proposal_reserve": ("POST", "/proposals/{draft}/reserve/", ("login", "302", "404", "302")),
    "registry:proposal_action": ("POST", "/proposals/{draft}/withdraw/", ("login", "302", "404", "302")),
    "registry:review_queue": ("GET", "/review/", EDITORS_ONLY),
    "registry:review_reservations": ("GET", "/review/reservations/", EDITORS_ONLY),
    "registry:review_reservation_action": ("POST", "/review/reservations/act/", EDITORS_POST),
    "registry:review_snid_history": ("GET", "/review/snid/example/", EDITORS_ONLY),
    "registry:review_detail": ("GET", "/review/{approved}/", EDITORS_ONLY),
    "registry:review_decide": ("POST", "/review/{approved}/decide/", EDITORS_POST),
    "registry:review_comment": ("POST", "/review/{approved}/comment/", EDITORS_POST),
    "registry:review_judgement": ("POST", "/review/{approved}/judgement/", EDITORS_POST),
    "api:snid_list": ("GET", "/api/snids/", EVERYONE_200),
    "api:snid_detail": ("GET", "/api/snids/example/", EVERYONE_200),
    "api:snid_version": ("GET", "/api/snids/example/versions/1/", EVERYONE_200),
    "api:lookup": ("GET", "/api/lookup/?urn=urn:ogf:example:x", EVERYONE_200),
    "api:validate": ("POST", "/api/validate/", EVERYONE_200),
    "api:proposal_list": ("GET", "/api/proposals/", ("403", "200", "200", "200")),
    "api:proposal_detail": ("GET", "/api/proposals/{draft}/", ("403", "200", "404", "200")),
    "api:proposal_action": ("POST", "/api/proposals/{draft}/actions/withdraw/", ("403", "200", "404", "403")),
    "api:review_queue": ("GET", "/api/review/", ("403", "403", "403", "200")),
    "api:schema": ("GET", "/api/schema/", EVERYONE_200),
    "api:docs": ("GET", "/api/docs/", EVERYONE_200),
    "api:redoc": ("GET", "/api/redoc/", EVERYONE_200),
    "login": ("GET", "/accounts/login/", EVERYONE_200),
    "logout": ("POST", "/accounts/logout/", ("302", "302", "302", "302")),
    "password_change": ("GET", "/accounts/password_change/", LOGGED_IN_200),
    "password_change_done": ("GET", "/accounts/password_change/done/", LOGGED_IN_200),
    "password_reset": ("GET", "/accounts/password_reset/", EVERYONE_200),
    "password_reset_done": ("GET", "/accounts/password_reset/done/", EVERYONE_200),
    "password_reset_confirm": ("GET", "/accounts/reset/MQ/bad-token/", EVERYONE_200),
    "password_reset_complete": ("GET", "/accounts/reset/done/", EVERYONE_200),
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
    return {"users": {"applicant": applicant, "other": other, "editor": editor},
            "ids": {"draft": draft.pk, "approved": approved.pk}}


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
