"""Settings: development works with nothing set; production refuses to start half-configured."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def manage(*args, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


def serve(**env):
    """Load the site as granian or runserver does (registry/wsgi.py), in production mode."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "REGISTRY_LOG"))}
    clean.update(DJANGO_DEBUG="0", **env)
    return subprocess.run(
        [sys.executable, "-c", "import registry.wsgi"], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


VERIFIER_KEY = "production-test.invalid/log+56d12224+AY9SzfngKiqLnllrZvPPw9fhW8r45nr4HvtQ++TGHp3f"


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({}, "DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS and REGISTRY_LOG_VERIFIER_KEY"),
        ({"DJANGO_SECRET_KEY": "x" * 50, "REGISTRY_LOG_VERIFIER_KEY": VERIFIER_KEY}, "DJANGO_ALLOWED_HOSTS"),
        ({"DJANGO_ALLOWED_HOSTS": "urn.example.org", "REGISTRY_LOG_VERIFIER_KEY": VERIFIER_KEY}, "DJANGO_SECRET_KEY"),
        ({"DJANGO_SECRET_KEY": "x" * 50, "DJANGO_ALLOWED_HOSTS": "urn.example.org"}, "REGISTRY_LOG_VERIFIER_KEY"),
    ],
)
def test_production_site_refuses_to_start_without_what_it_needs(env, missing):
    result = serve(**env)
    assert result.returncode != 0
    assert f"Production mode (DJANGO_DEBUG=0) needs {missing} to be set in the environment to serve" in result.stderr


def test_production_site_starts_when_configured(tmp_path):
    result = serve(
        DJANGO_SECRET_KEY="k" * 60,
        DJANGO_ALLOWED_HOSTS="urn.example.org",
        REGISTRY_LOG_VERIFIER_KEY=VERIFIER_KEY,
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    assert result.returncode == 0, result.stderr


def test_production_site_needs_no_signer_key(tmp_path):
    """The web workers check the published checkpoint with the public key; the signer alone holds the key."""
    result = serve(
        DJANGO_SECRET_KEY="k" * 60,
        DJANGO_ALLOWED_HOSTS="urn.example.org",
        REGISTRY_LOG_VERIFIER_KEY=VERIFIER_KEY,
        REGISTRY_LOG_KEY="",
        REGISTRY_LOG_KEY_FILE="",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.long
def test_production_build_step_holds_no_secret(tmp_path):
    """collectstatic and check --deploy, as a build step runs them: DJANGO_DEBUG=0 and nothing else."""
    collected = manage(
        "collectstatic", "--noinput", "-v", "0", DJANGO_DEBUG="0", DJANGO_STATIC_ROOT=str(tmp_path / "static")
    )
    assert collected.returncode == 0, collected.stderr
    assert (tmp_path / "static" / "staticfiles.json").is_file()  # the hashed manifest of the production storage
    checked = manage("check", "--deploy", DJANGO_DEBUG="0")
    assert checked.returncode == 0, checked.stderr


@pytest.mark.long
def test_production_log_keygen_runs_without_a_key(tmp_path):
    """``log_keygen`` makes the key the settings once refused to start without."""
    result = manage("log_keygen", str(tmp_path / "log.key"), "--name", "urn.example.org/log", DJANGO_DEBUG="0")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "log.key").stat().st_mode & 0o777 == 0o600
    assert "Verifier key (publish it): urn.example.org/log+" in result.stdout


@pytest.mark.long
def test_production_signer_without_its_key_or_record_says_what_is_missing(tmp_path):
    result = manage("log_sign", DJANGO_DEBUG="0", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    assert result.returncode == 2 and "No log key: set REGISTRY_LOG_KEY or REGISTRY_LOG_KEY_FILE" in result.stderr
    key = tmp_path / "log.key"
    manage("log_keygen", str(key), "--name", "urn.example.org/log", DJANGO_DEBUG="0")
    result = manage(
        "log_sign",
        DJANGO_DEBUG="0",
        REGISTRY_LOG_KEY_FILE=str(key),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    assert result.returncode == 2 and "REGISTRY_LOG_STATE_DIR is not set" in result.stderr


def test_invalid_debug_value_is_a_clear_error():
    result = manage("check", DJANGO_DEBUG="maybe")
    assert "DJANGO_DEBUG must be 0 or 1" in result.stderr


def test_development_defaults_need_no_environment():
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings as s; "
        "print(s.DEBUG, s.ALLOWED_HOSTS[:2], len(s.SECRET_KEY) >= 50, "
        "s.DATABASES['default']['ENGINE'])",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ("True ['localhost', '127.0.0.1'] True django.db.backends.sqlite3")


def test_database_url_switches_to_postgresql():
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['NAME'])",
        DATABASE_URL="postgres://u@db.example.org:5432/registry",
    )
    assert result.stdout.strip() == "django.db.backends.postgresql registry"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgres://u@db.invalid:5432/registry", "5"),
        ("postgres://u@db.invalid:5432/registry?connect_timeout=2", "2"),  # the URL's own choice stands
    ],
)
def test_postgresql_connections_give_up_on_a_server_that_takes_none(url, expected):
    code = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS']['connect_timeout'])"
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "registry.settings",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == expected, result.stderr
