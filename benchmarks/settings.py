"""Production-like settings for benchmarks: DEBUG off, no throttling, a floor view.

Used as DJANGO_SETTINGS_MODULE=benchmarks.settings by benchmarks/bench_http.py;
never by the site itself.
"""

import os

os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-" + "k" * 40)
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
# A published, benchmark-only transparency log key (every worker must sign with the same one).
os.environ.setdefault(
    "REGISTRY_LOG_KEY", "PRIVATE+KEY+benchmark.invalid/log+64d6dc98+AZ4towCubxFh6B8s56Ks9bYdn/0CGpJ/iPqypZ0RSruG"
)

from registry.settings import *  # noqa: E402,F403

ROOT_URLCONF = "benchmarks.urls"
REGISTRY_ANON_RATE = "off"
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = False
if os.environ.get("BENCH_PRODUCTION_STATIC") != "1":  # bench_weight.py measures what production serves
    STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
LOGGING = {"version": 1, "disable_existing_loggers": True, "root": {"level": "ERROR", "handlers": []}}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
