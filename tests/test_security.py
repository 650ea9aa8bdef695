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


@pytest.mark.django_db
def test_login_attempts_are_limited(client, settings):
    from django.core.cache import cache
    cache.clear()
    user_factory("victim", password="the-right-password-1")
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        assert client.post("/accounts/login/", {"username": "victim", "password": "wrong"}).status_code == 200
    blocked = client.post("/accounts/login/", {"username": "victim", "password": "the-right-password-1"})
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0
    assert "Too many failed log-in attempts" in blocked.content.decode()
    assert client.get("/proposals/").status_code == 302  # not logged in
    cache.clear()
    ok = client.post("/accounts/login/", {"username": "victim", "password": "the-right-password-1"})
    assert ok.status_code == 302
    cache.clear()


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
