"""Security headers, log-in limits, the admin's path and production settings."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from registry import services

from .factories import user_factory

ROOT = Path(__file__).resolve().parent.parent
PROD = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "s" * 20 + "-production-like-" + "k" * 30,
    "DJANGO_ALLOWED_HOSTS": "urn.example.org",
    "REGISTRY_LOG_KEY": "PRIVATE+KEY+production-test.invalid/log+56d12224+AfyKEAVr37LDGWDTIcIbQt5UNh/uHEA04eYaDsKt7e9b",
}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/urn/", "/api/lookup/?urn=urn:ogf:x:y", "/accounts/login/"])
def test_security_headers_on_every_kind_of_response(client, path):
    response = client.get(path)
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert "camera=()" in response["Permissions-Policy"]


@pytest.mark.django_db
def test_only_the_api_documentation_may_run_inline_script(client):
    assert "script-src 'self' 'unsafe-inline'" in client.get("/api/docs/")["Content-Security-Policy"]


@pytest.fixture
def clean_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


RIGHT = "the-right-password-1"


def login(client, username, password, address="203.0.113.7", **headers):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address, **headers)


@pytest.mark.django_db
def test_login_attempts_are_limited_per_account_and_address(client, settings, clean_cache):
    user_factory("victim", password=RIGHT)
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        assert login(client, "victim", "wrong").status_code == 200
    assert login(client, "victim", "wrong").status_code == 429  # the fifth failure starts the block
    blocked = login(client, "victim", RIGHT)
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) == settings.LOGIN_FAILURE_WINDOW
    text = blocked.content.decode()
    assert "Too many failed log-in attempts for this account from your network address (5 in 15 minutes)" in text
    assert "a completed reset lifts the block at once" in text
    assert client.get("/proposals/").status_code == 302  # not logged in
    assert login(client, "victim", RIGHT, address="198.51.100.1").status_code == 302  # elsewhere: fine


@pytest.mark.django_db
def test_the_owner_logs_in_after_100_wrong_guesses_from_other_addresses(client, clean_cache):
    user_factory("victim", password=RIGHT)
    for guess in range(100):
        login(client, "victim", f"guess-{guess}", address=f"192.0.2.{guess % 10}")
    assert login(client, "victim", "still-wrong", address="192.0.2.1").status_code == 429
    assert login(client, "victim", RIGHT, address="203.0.113.50").status_code == 302


@pytest.mark.django_db
@pytest.mark.parametrize("spelling", ["VICTIM", " victim ", "Victim"])
def test_login_failures_count_against_the_normalised_username(client, settings, clean_cache, spelling):
    user_factory("victim", password=RIGHT)
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        login(client, "victim", "wrong")
    login(client, spelling, "wrong")
    assert login(client, "victim", RIGHT).status_code == 429


@pytest.mark.django_db
def test_one_address_guessing_many_accounts_is_paused(client, settings, clean_cache):
    user_factory("mine", password=RIGHT)
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT - 1):
        assert login(client, f"someone{n}", "wrong").status_code == 200
    assert login(client, "someone-else", "wrong").status_code == 429
    blocked = login(client, "mine", RIGHT)
    assert blocked.status_code == 429
    assert "Too many failed log-in attempts from your network address (50 in 15 minutes)" in blocked.content.decode()
    assert login(client, "mine", RIGHT, address="198.51.100.9").status_code == 302


@pytest.mark.django_db
def test_a_successful_login_clears_only_its_own_count(client, settings, clean_cache):
    user_factory("mine", password=RIGHT)
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        login(client, "mine", "wrong")
    assert login(client, "mine", RIGHT).status_code == 302
    client.post("/accounts/logout/")
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        login(client, "mine", "wrong")
    assert login(client, "mine", RIGHT).status_code == 302  # the count started again


@pytest.mark.django_db
def test_a_completed_password_reset_lifts_the_block(client, settings, clean_cache, mailoutbox):
    import re

    settings.PASSWORD_RESET_MIN_SECONDS = 0
    settings.SITE_URL = "https://urn.example.org"
    settings.ALLOWED_HOSTS = ["testserver", "evil.example"]  # a Host the site answers, but not its URL
    user_factory("victim", password=RIGHT)
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        login(client, "victim", "wrong")
    assert login(client, "victim", RIGHT).status_code == 429
    client.post("/accounts/password_reset/", {"email": "victim@example.org"}, HTTP_HOST="evil.example")
    link = re.search(r"https://urn\.example\.org(/accounts/reset/\S+)", mailoutbox[0].body).group(1)
    form = client.get(link, follow=True)
    new = "a-brand-new-password-2"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    assert login(client, "victim", new).status_code == 302


@pytest.mark.django_db
def test_the_admin_logs_in_through_the_limited_form(client):
    response = client.get("/admin/login/?next=/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def run(*args, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_reports_nothing_in_production():
    result = run("check", "--deploy", "--fail-level", "WARNING", **PROD)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_are_hardened():
    code = (
        "from django.conf import settings as s; print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS >= 31536000, "
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_PROXY_SSL_HEADER[0], s.ADMIN_PATH)"
    )
    result = run("shell", "--no-imports", "-c", code, **PROD)
    assert result.stdout.strip() == "True True True True HTTP_X_FORWARDED_PROTO registry-admin/"


# --- the client address: one trusted-proxy setting ---------------------------------------------


def lookups(client, count, **meta):
    return [client.get("/api/lookup/", {"urn": "urn:ogf:x:y"}, **meta).status_code for _ in range(count)]


def forwarded_lookups(client, peer, forwarded_values):
    """One lookup from TCP peer ``peer`` per X-Forwarded-For value; their statuses."""
    return [
        client.get("/api/lookup/", {"urn": "urn:ogf:x:y"}, REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=forwarded).status_code
        for forwarded in forwarded_values
    ]


@pytest.mark.django_db
def test_rotating_forwarded_for_does_not_escape_the_throttle_without_a_trusted_proxy(client, settings, clean_cache):
    settings.REGISTRY_ANON_RATE = "5/min"
    statuses = forwarded_lookups(client, "198.51.100.4", [f"10.9.0.{n}" for n in range(8)])
    assert statuses.count(429) == 3


@pytest.mark.django_db
def test_behind_a_counted_proxy_only_the_address_it_saw_counts(client, settings, clean_cache):
    settings.REGISTRY_ANON_RATE = "5/min"
    settings.REGISTRY_TRUSTED_PROXIES = "1"
    # The client forges the left part; the proxy appends the real address (always the same here).
    forged = forwarded_lookups(client, "10.0.0.1", [f"10.9.0.{n}, 203.0.113.9" for n in range(8)])
    assert forged.count(429) == 3
    # Eight different real clients behind the same proxy are eight addresses.
    real = forwarded_lookups(client, "10.0.0.1", [f"203.0.113.{20 + n}" for n in range(8)])
    assert real.count(429) == 0


@pytest.mark.django_db
def test_forwarded_for_is_read_only_from_listed_proxy_addresses(client, settings, clean_cache):
    settings.REGISTRY_ANON_RATE = "5/min"
    settings.REGISTRY_TRUSTED_PROXIES = "10.0.0.0/24"
    via_proxy = forwarded_lookups(client, "10.0.0.7", [f"203.0.113.{n}, 10.0.0.3" for n in range(8)])
    assert via_proxy.count(429) == 0
    direct = forwarded_lookups(client, "198.51.100.4", [f"203.0.113.{n}" for n in range(8)])
    assert direct.count(429) == 3


@pytest.mark.parametrize(
    "peer, forwarded, proxies, client_address",
    [
        ("198.51.100.4", "1.2.3.4", "", "198.51.100.4"),
        ("10.0.0.1", "1.2.3.4, 203.0.113.9", "1", "203.0.113.9"),
        ("10.0.0.1", "1.2.3.4, 203.0.113.9, 10.0.0.2", "2", "203.0.113.9"),
        ("10.0.0.1", "203.0.113.9", "3", "203.0.113.9"),
        ("10.0.0.1", "not-an-address", "1", "10.0.0.1"),
        ("10.0.0.1", "1.2.3.4, 203.0.113.9, 10.0.0.2", "10.0.0.0/8", "203.0.113.9"),
        ("192.0.2.1", "203.0.113.9", "10.0.0.0/8", "192.0.2.1"),
        ("10.0.0.1", "2001:db8::1", "10.0.0.1", "2001:db8::1"),
    ],
)
def test_client_address_resolution(peer, forwarded, proxies, client_address):
    from registry.middleware import resolve_client, trusted_proxies

    assert resolve_client(peer, forwarded, trusted_proxies(proxies)) == client_address


@pytest.mark.django_db
def test_login_limits_use_the_same_client_address_behind_the_proxy(client, settings, clean_cache):
    settings.REGISTRY_TRUSTED_PROXIES = "1"
    user_factory("victim", password=RIGHT)
    for n in range(40):  # an attacker behind the proxy, forging the left part of the header
        login(client, "victim", "wrong", address="10.0.0.1", HTTP_X_FORWARDED_FOR=f"10.9.{n}.1, 192.0.2.66")
    assert login(client, "victim", RIGHT, address="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.66").status_code == 429
    assert (
        login(client, "victim", RIGHT, address="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5").status_code == 302
    )  # the owner, elsewhere


# --- sign-up and password reset -------------------------------------------------------------------


def signup(client, n, email=None, address="203.0.113.7"):
    return client.post(
        "/accounts/signup/",
        {
            "username": f"new{n}",
            "email": email or f"new{n}@example.org",
            "password1": "a-long-password-9",
            "password2": "a-long-password-9",
        },
        REMOTE_ADDR=address,
    )


@pytest.mark.django_db
def test_signups_are_limited_per_address(client, settings, clean_cache):
    statuses = []
    for n in range(settings.SIGNUP_RATE_PER_ADDRESS + 2):
        statuses.append(signup(client, n).status_code)
        client.logout()
    assert statuses == [302] * settings.SIGNUP_RATE_PER_ADDRESS + [429, 429]
    assert signup(client, 99, address="198.51.100.3").status_code == 302


@pytest.mark.django_db
def test_signup_email_is_unique_whatever_its_case_and_the_page_does_not_say_so(
    client, clean_cache, mailoutbox, django_capture_on_commit_callbacks
):
    from django.contrib.auth import get_user_model

    user_factory("first")  # first@example.org
    with django_capture_on_commit_callbacks(execute=True):
        response = signup(client, 1, email=" FIRST@Example.org ")
    assert response.status_code == 302 and response["Location"] == "/accounts/signup/sent/"
    assert not get_user_model().objects.filter(username="new1").exists()
    assert [m.subject for m in mailoutbox] == ["[urn:ogf] Sign-up: this address already has an account"]


@pytest.mark.django_db
def test_password_reset_answers_known_and_unknown_addresses_alike(client, settings, clean_cache, mailoutbox):
    import time

    settings.PASSWORD_RESET_MIN_SECONDS = 0.2
    user_factory("known")
    answers, durations = [], []
    for email in ("known@example.org", "unknown@example.org"):
        started = time.monotonic()
        response = client.post("/accounts/password_reset/", {"email": email})
        durations.append(time.monotonic() - started)
        answers.append((response.status_code, response["Location"]))
    assert answers[0] == answers[1] == (302, "/accounts/password_reset/done/")
    assert min(durations) >= 0.2
    assert len(mailoutbox) == 1


@pytest.mark.django_db
def test_password_reset_mails_are_limited_per_email_and_per_address(client, settings, clean_cache, mailoutbox):
    settings.PASSWORD_RESET_MIN_SECONDS = 0
    user_factory("known")
    for _ in range(10):
        client.post("/accounts/password_reset/", {"email": "known@example.org"}, REMOTE_ADDR=f"203.0.113.{_}")
    assert len(mailoutbox) == settings.PASSWORD_RESET_RATE_PER_EMAIL
    statuses = [
        client.post("/accounts/password_reset/", {"email": f"x{n}@example.org"}, REMOTE_ADDR="198.51.100.8").status_code
        for n in range(settings.PASSWORD_RESET_RATE_PER_ADDRESS + 1)
    ]
    assert statuses[-1] == 429 and statuses[:-1] == [302] * settings.PASSWORD_RESET_RATE_PER_ADDRESS


# --- the database refuses what the app never does ---------------------------------------------------


@pytest.mark.django_db
def test_sqlite_and_postgres_refuse_renaming_an_snid_through_a_queryset_update(make_proposal):
    from django.db import DatabaseError, transaction

    from registry.models import Namespace

    make_proposal(state="approved")
    with pytest.raises(DatabaseError, match="never renamed"), transaction.atomic():
        Namespace.objects.filter(snid="example").update(snid="other")
    Namespace.objects.filter(snid="example").update(snid="EXAMPLE")  # a change of case is the same SNID
    assert list(Namespace.objects.values_list("snid", flat=True)) == ["EXAMPLE"]


@pytest.mark.django_db
def test_the_database_refuses_pointing_an_snid_at_a_version_that_is_not_approved(make_proposal):
    from django.db import DatabaseError, transaction

    from registry.models import Namespace, Proposal

    approved = make_proposal(state="approved")
    draft = make_proposal(approved.submitter)
    Proposal.objects.filter(pk=draft.pk).update(namespace=approved.namespace)
    with pytest.raises(DatabaseError, match="approved version"), transaction.atomic():
        Namespace.objects.filter(pk=approved.namespace_id).update(current=draft)
        Namespace.objects.get(pk=approved.namespace_id)  # PostgreSQL checks at commit; force it here
        from django.db import connection

        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    assert Namespace.objects.get().current_id == approved.pk


APP_ROLE_TAMPERING = {
    "repoint current": "UPDATE registry_namespace SET current_id = {draft}",
    "forge approval": "UPDATE registry_proposal SET state = 'approved' WHERE id = {draft}",
    "forge approval by insert": (
        "INSERT INTO registry_proposal (snid, title, version, registrant_name, registrant_organisation, "
        "registrant_email, registrant_address, registrant_public_contact, registrant_published, "
        "document_reference, document_url, document_status, document_type, sections, "
        "grammar_abnf, grammar_rule, examples_valid, examples_invalid, examples_equivalent, equivalence, "
        "findings, findings_summary, submitter_id, state, is_demo, public_note, created_at, updated_at, resolvers, "
        "overridden) "
        "SELECT 'forged', '', 1, '', '', '', '', '', '[]', '', '', '', '', '{{}}', '', '', '[]', '[]', '[]', "
        "'[]', '[]', '{{}}', submitter_id, 'approved', false, '', now(), now(), '[]', '[]' "
        "FROM registry_proposal WHERE id = {draft}"
    ),
    "delete events": "DELETE FROM registry_proposalevent",
    "rewrite an event": "UPDATE registry_proposalevent SET comment = 'rewritten'",
    "back-date an event": (
        "INSERT INTO registry_proposalevent (proposal_id, kind, action, from_state, to_state, comment, data, "
        "created_at) VALUES ({approved}, 'transition', 'approve', 'submitted', 'approved', '', '{{}}', "
        "now() - interval '3 years')"
    ),
    "change a comment after the decision": "UPDATE registry_comment SET text = 'rewritten'",
    "delete a comment after the decision": "DELETE FROM registry_comment",
    "change a judgement after the decision": "UPDATE registry_judgement SET ok = false",
    "add a judgement after the decision": (
        "INSERT INTO registry_judgement (proposal_id, check_id, ok, note, editor_id, updated_at) "
        "SELECT {approved}, 'durability', true, '', editor_id, now() FROM registry_judgement LIMIT 1"
    ),
    "delete a reservation request": "DELETE FROM registry_reservationrequest",
    "truncate": "TRUNCATE registry_proposalevent CASCADE",
    "truncate namespaces": "TRUNCATE registry_namespace CASCADE",
    "disable the triggers": "ALTER TABLE registry_proposal DISABLE TRIGGER ALL",
    "change an approved proposal": "UPDATE registry_proposal SET title = 'changed' WHERE id = {approved}",
}


REFUSAL = {
    "repoint current": "only point at an approved version",
    "forge approval": "only by the approval service",
    "forge approval by insert": "only by the approval service",
    "delete events": "append-only",
    "rewrite an event": "append-only",
    "back-date an event": "recorded when they happen",
    "change a comment after the decision": "review .* is final",
    "delete a comment after the decision": "review .* is final",
    "change a judgement after the decision": "review .* is final",
    "add a judgement after the decision": "review .* is final",
    "delete a reservation request": "never deleted",
    "truncate": "TRUNCATE .* is refused",
    "truncate namespaces": "TRUNCATE .* is refused",
    "disable the triggers": "must be owner",
    "change an approved proposal": "immutable",
}


@pytest.fixture
def app_role(postgres, db):
    """A role like the production app's (docs/deployment.md): may read and write, owns nothing."""
    import uuid

    from django.db import connection

    name = f"registry_app_{uuid.uuid4().hex[:10]}"
    with connection.cursor() as cursor:
        # Run the commit-time checks of what the fixtures wrote (as a commit would), then defer again.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute(f"CREATE ROLE {name} NOLOGIN")
        cursor.execute(f"GRANT USAGE ON SCHEMA public TO {name}")
        cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {name}")
        # More than docs/deployment.md grants, to show the trigger refuses TRUNCATE by itself too.
        cursor.execute(f"GRANT TRUNCATE ON ALL TABLES IN SCHEMA public TO {name}")
        cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {name}")
        cursor.execute(f"SET ROLE {name}")
    yield name
    with connection.cursor() as cursor:
        cursor.execute("RESET ROLE")


@pytest.fixture
def decided_world(db):
    from .factories import proposal_factory

    applicant, editor = user_factory("owner"), user_factory("judge", editor=True)
    proposal = proposal_factory(applicant, state="submitted")
    services.comment_add(proposal, editor, "Fine.")
    services.judgement_set(proposal, editor, "scope", ok=True)
    services.reservation_request_create("wanted", applicant)
    approved = services.proposal_transition(proposal, "approve", editor, override_reason="test data")
    draft = proposal_factory(applicant, snid="drafty")
    return {"approved": approved.pk, "draft": draft.pk, "editor": editor, "applicant": applicant}


@pytest.mark.django_db
def test_the_app_works_under_the_app_role(postgres, app_role, decided_world):
    """Every kind of write the app makes, as a role that owns no table."""
    import datetime as dt

    from registry.models import Proposal

    from .factories import proposal_factory

    editor, applicant = decided_world["editor"], decided_world["applicant"]
    other = user_factory("another-editor", editor=True)
    proposal = proposal_factory(applicant, name="example", snid="fresh", state="submitted")
    services.comment_add(proposal, editor, "Please fix.")
    services.judgement_set(proposal, editor, "scope", ok=True)
    services.proposal_transition(proposal, "request_changes", editor, comment="fix")
    services.proposal_transition(proposal, "submit", applicant)
    services.proposal_transition(proposal, "approve", other, override_reason="test data")
    request = services.reservation_request_create("later", applicant)
    services.reservation_request_decide(request, editor, grant=True, until=dt.date.today() + dt.timedelta(days=9))
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the commit-time checks, now
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == app_role
    assert Proposal.objects.get(pk=proposal.pk).state == "approved"


@pytest.mark.django_db
@pytest.mark.parametrize("kind", sorted(APP_ROLE_TAMPERING))
def test_raw_sql_tampering_is_refused_under_the_app_role(postgres, decided_world, app_role, kind):
    from django.db import DatabaseError, connection, transaction

    from registry.models import Proposal, ProposalEvent

    sql = APP_ROLE_TAMPERING[kind].format(**decided_world)
    events = ProposalEvent.objects.count()
    with pytest.raises(DatabaseError) as refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    assert re.search(REFUSAL[kind], str(refused.value)), str(refused.value)
    assert ProposalEvent.objects.count() == events
    assert Proposal.objects.get(pk=decided_world["draft"]).state == "draft"


# --- the shared page cache and absolute URLs ---------------------------------------------------------


@pytest.mark.django_db
def test_the_page_cache_ignores_query_parameters_a_page_does_not_read(client, clean_cache, make_proposal):
    from django.core.cache import cache

    make_proposal(state="approved")
    client.get("/urn/")
    entries = len(cache._cache)
    for n in range(50):
        assert client.get(f"/urn/?junk={n}&utm_source=x{n}").status_code == 200
    assert len(cache._cache) == entries
    client.get("/urn/?q=exam")  # a parameter the page reads: its own entry
    assert len(cache._cache) == entries + 1


@pytest.mark.django_db
def test_exports_and_the_feed_take_absolute_urls_from_the_site_url(client, settings, clean_cache, make_proposal):
    settings.SITE_URL = "https://urn.example.org"
    settings.ALLOWED_HOSTS = ["testserver", "evil.example"]
    make_proposal(state="approved")
    for path in ("/urn/registry.json", "/urn/registry.csv", "/urn/registry.xml", "/urn/feed.atom"):
        first = client.get(path, HTTP_HOST="evil.example").content.decode()
        assert "evil.example" not in first and "https://urn.example.org/urn/example/" in first, path
