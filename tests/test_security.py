"""Security headers, log-in limits, the admin's path and production settings."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .factories import user_factory

ROOT = Path(__file__).resolve().parent.parent
PROD = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "s" * 20 + "-production-like-" + "k" * 30,
        "DJANGO_ALLOWED_HOSTS": "urn.example.org"}


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
    return client.post("/accounts/login/", {"username": username, "password": password},
                       REMOTE_ADDR=address, **headers)


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
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


def test_check_deploy_reports_nothing_in_production():
    result = run("check", "--deploy", "--fail-level", "WARNING", **PROD)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_are_hardened():
    code = ("from django.conf import settings as s; print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS >= 31536000, "
            "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_PROXY_SSL_HEADER[0], s.ADMIN_PATH)")
    result = run("shell", "--no-imports", "-c", code, **PROD)
    assert result.stdout.strip() == "True True True True HTTP_X_FORWARDED_PROTO registry-admin/"


# --- the client address: one trusted-proxy setting ---------------------------------------------


def lookups(client, count, **meta):
    return [client.get("/api/lookup/", {"urn": "urn:ogf:x:y"}, **meta).status_code for _ in range(count)]


@pytest.mark.django_db
def test_rotating_forwarded_for_does_not_escape_the_throttle_without_a_trusted_proxy(client, settings,
                                                                                      clean_cache):
    settings.REGISTRY_ANON_RATE = "5/min"
    statuses = [client.get("/api/lookup/", {"urn": "urn:ogf:x:y"}, REMOTE_ADDR="198.51.100.4",
                           HTTP_X_FORWARDED_FOR=f"10.9.0.{n}").status_code for n in range(8)]
    assert statuses.count(429) == 3


@pytest.mark.django_db
def test_behind_a_counted_proxy_only_the_address_it_saw_counts(client, settings, clean_cache):
    settings.REGISTRY_ANON_RATE = "5/min"
    settings.REGISTRY_TRUSTED_PROXIES = "1"
    # The client forges the left part; the proxy appends the real address (always the same here).
    forged = [client.get("/api/lookup/", {"urn": "urn:ogf:x:y"}, REMOTE_ADDR="10.0.0.1",
                         HTTP_X_FORWARDED_FOR=f"10.9.0.{n}, 203.0.113.9").status_code for n in range(8)]
    assert forged.count(429) == 3
    # Eight different real clients behind the same proxy are eight addresses.
    real = [client.get("/api/lookup/", {"urn": "urn:ogf:x:y"}, REMOTE_ADDR="10.0.0.1",
                       HTTP_X_FORWARDED_FOR=f"203.0.113.{20 + n}").status_code for n in range(8)]
    assert real.count(429) == 0


@pytest.mark.django_db
def test_forwarded_for_is_read_only_from_listed_proxy_addresses(client, settings, clean_cache):
    settings.REGISTRY_ANON_RATE = "5/min"
    settings.REGISTRY_TRUSTED_PROXIES = "10.0.0.0/24"
    via_proxy = [client.get("/api/lookup/", {"urn": "urn:ogf:x:y"}, REMOTE_ADDR="10.0.0.7",
                            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}, 10.0.0.3").status_code for n in range(8)]
    assert via_proxy.count(429) == 0
    direct = [client.get("/api/lookup/", {"urn": "urn:ogf:x:y"}, REMOTE_ADDR="198.51.100.4",
                         HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code for n in range(8)]
    assert direct.count(429) == 3


@pytest.mark.parametrize("peer, forwarded, proxies, client_address", [
    ("198.51.100.4", "1.2.3.4", "", "198.51.100.4"),
    ("10.0.0.1", "1.2.3.4, 203.0.113.9", "1", "203.0.113.9"),
    ("10.0.0.1", "1.2.3.4, 203.0.113.9, 10.0.0.2", "2", "203.0.113.9"),
    ("10.0.0.1", "203.0.113.9", "3", "203.0.113.9"),
    ("10.0.0.1", "not-an-address", "1", "10.0.0.1"),
    ("10.0.0.1", "1.2.3.4, 203.0.113.9, 10.0.0.2", "10.0.0.0/8", "203.0.113.9"),
    ("192.0.2.1", "203.0.113.9", "10.0.0.0/8", "192.0.2.1"),
    ("10.0.0.1", "2001:db8::1", "10.0.0.1", "2001:db8::1"),
])
def test_client_address_resolution(peer, forwarded, proxies, client_address):
    from registry.middleware import resolve_client, trusted_proxies
    assert resolve_client(peer, forwarded, trusted_proxies(proxies)) == client_address


@pytest.mark.django_db
def test_login_limits_use_the_same_client_address_behind_the_proxy(client, settings, clean_cache):
    settings.REGISTRY_TRUSTED_PROXIES = "1"
    user_factory("victim", password=RIGHT)
    for n in range(40):  # an attacker behind the proxy, forging the left part of the header
        login(client, "victim", "wrong", address="10.0.0.1", HTTP_X_FORWARDED_FOR=f"10.9.{n}.1, 192.0.2.66")
    assert login(client, "victim", RIGHT, address="10.0.0.1",
                 HTTP_X_FORWARDED_FOR="192.0.2.66").status_code == 429
    assert login(client, "victim", RIGHT, address="10.0.0.1",
                 HTTP_X_FORWARDED_FOR="203.0.113.5").status_code == 302  # the owner, elsewhere


# --- sign-up and password reset -------------------------------------------------------------------


def signup(client, n, email=None, address="203.0.113.7"):
    return client.post("/accounts/signup/", {"username": f"new{n}", "email": email or f"new{n}@example.org",
                                             "password1": "a-long-password-9", "password2": "a-long-password-9"},
                       REMOTE_ADDR=address)


@pytest.mark.django_db
def test_signups_are_limited_per_address(client, settings, clean_cache):
    statuses = []
    for n in range(settings.SIGNUP_RATE_PER_ADDRESS + 2):
        statuses.append(signup(client, n).status_code)
        client.logout()
    assert statuses == [302] * settings.SIGNUP_RATE_PER_ADDRESS + [429, 429]
    assert signup(client, 99, address="198.51.100.3").status_code == 302


@pytest.mark.django_db
def test_signup_email_is_unique_whatever_its_case(client, clean_cache):
    user_factory("first")  # first@example.org
    response = signup(client, 1, email=" FIRST@Example.org ")
    assert response.status_code == 200
    assert "An account already uses this e-mail address" in response.content.decode()


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
        client.post("/accounts/password_reset/", {"email": "known@example.org"},
                    REMOTE_ADDR=f"203.0.113.{_}")
    assert len(mailoutbox) == settings.PASSWORD_RESET_RATE_PER_EMAIL
    statuses = [client.post("/accounts/password_reset/", {"email": f"x{n}@example.org"},
                            REMOTE_ADDR="198.51.100.8").status_code
                for n in range(settings.PASSWORD_RESET_RATE_PER_ADDRESS + 1)]
    assert statuses[-1] == 429 and statuses[:-1] == [302] * settings.PASSWORD_RESET_RATE_PER_ADDRESS
