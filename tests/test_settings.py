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
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=clean,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("env", "missing"), [
    ({"DJANGO_DEBUG": "0"}, "DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS"),
    ({"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "x" * 50}, "DJANGO_ALLOWED_HOSTS"),
    ({"DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": "urn.example.org"}, "DJANGO_SECRET_KEY"),
])
def test_production_mode_requires_secret_key_and_hosts(env, missing):
    result = manage("check", **env)
    assert result.returncode != 0
    assert f"Production mode (DJANGO_DEBUG=0) needs {missing}" in result.stderr


LOG_KEY = "PRIVATE+KEY+production-test.invalid/log+56d12224+AfyKEAVr37LDGWDTIcIbQt5UNh/uHEA04eYaDsKt7e9b"


def test_production_mode_starts_when_configured():
    result = manage("check", DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 60,
                    DJANGO_ALLOWED_HOSTS="urn.example.org", REGISTRY_LOG_KEY=LOG_KEY)
    assert result.returncode == 0, result.stderr


def test_production_mode_requires_the_log_key():
    result = manage("check", DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 60,
                    DJANGO_ALLOWED_HOSTS="urn.example.org", REGISTRY_LOG_KEY="")
    assert result.returncode != 0
    assert "needs the transparency log's signer key" in result.stderr


def test_production_mode_requires_the_log_key_file_to_exist(tmp_path):
    result = manage("check", DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 60, DJANGO_ALLOWED_HOSTS="urn.example.org",
                    REGISTRY_LOG_KEY="", REGISTRY_LOG_KEY_FILE=str(tmp_path / "absent.key"))
    assert result.returncode != 0
    assert f"{tmp_path / 'absent.key'} does not exist" in result.stderr


def test_invalid_debug_value_is_a_clear_error():
    result = manage("check", DJANGO_DEBUG="maybe")
    assert "DJANGO_DEBUG must be 0 or 1" in result.stderr


def test_development_defaults_need_no_environment():
    result = manage("shell", "--no-imports", "-c", "from django.conf import settings as s; "
                    "print(s.DEBUG, s.ALLOWED_HOSTS[:2], len(s.SECRET_KEY) >= 50, "
                    "s.DATABASES['default']['ENGINE'])")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "True ['localhost', '127.0.0.1'] True django.db.backends.sqlite3")


def test_database_url_switches_to_postgresql():
    result = manage("shell", "--no-imports", "-c", "from django.conf import settings as s; "
                    "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['NAME'])",
                    DATABASE_URL="postgres://u@db.example.org:5432/registry")
    assert result.stdout.strip() == "django.db.backends.postgresql registry"


@pytest.mark.parametrize(("url", "expected"), [
    ("postgres://u@db.invalid:5432/registry", "5"),
    ("postgres://u@db.invalid:5432/registry?connect_timeout=2", "2"),  # the URL's own choice stands
])
def test_postgresql_connections_give_up_on_a_server_that_takes_none(url, expected):
    code = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS']['connect_timeout'])"
    result = subprocess.run([sys.executable, "-c", f"import django; django.setup(); {code}"], cwd=ROOT,
                            env={**{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
                                 "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "registry.settings"},
                            capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == expected, result.stderr
