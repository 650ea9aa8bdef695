"""All settings, read from the environment in one place.

Development is the default so that every ``manage.py`` command works on a fresh
clone with nothing set: SQLite inside the checkout, a generated secret key kept
in ``.secret_key`` (git-ignored), localhost only. ``DJANGO_DEBUG=0`` switches to
production, where the site refuses to start (registry/wsgi.py) while a secret it
needs is missing (``REGISTRY_MISSING_TO_SERVE``) rather than run with a silently
insecure default; a build step and the log's signer need none of the web's secrets.

Environment variables: DJANGO_SECRET_KEY, DJANGO_DEBUG, DJANGO_ALLOWED_HOSTS,
DATABASE_URL, REDIS_URL, DJANGO_EMAIL_URL-style settings (EMAIL_HOST, ...),
REGISTRY_TRUSTED_PROXIES, the transparency log's REGISTRY_LOG_* and the REGISTRY_* limits
(docs/deployment.md).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import json
import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .keyfiles import key_file_create
from .oidc_settings import identity_provider_apps, identity_providers

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_count(name: str) -> int | None:
    """A whole number in ASCII digits, or None when unset."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    if not text.isascii() or not text.isdigit():
        raise ImproperlyConfigured(f"{name} must be a whole number, not {text[:20]!r}.")
    return int(text)


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    if value.strip().lower() in {"1", "true", "yes", "on"}:
        return True
    if value.strip().lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be 0 or 1 (got {value!r}).")


def _env_list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


DEBUG = _env_bool("DJANGO_DEBUG", True)


def _development_secret_key() -> str:
    """A random key generated once per checkout, so sessions survive restarts."""
    path = BASE_DIR / ".secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        key_file_create(path, secrets.token_urlsafe(50) + "\n")  # the first of concurrent starts wins
        return path.read_text().strip()


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
ALLOWED_HOSTS = _env_list("DJANGO_ALLOWED_HOSTS")
if DEBUG:
    SECRET_KEY = SECRET_KEY or _development_secret_key()
    ALLOWED_HOSTS = ALLOWED_HOSTS or ["localhost", "127.0.0.1", "[::1]", "testserver"]
# In production a missing secret fails hard where it is used, not at every import of the settings:
# a build step (collectstatic, check --deploy) and the signer's own commands (log_keygen,
# log_sign) hold no web secrets. The site itself (registry/wsgi.py, so granian and runserver)
# refuses to start while anything named in REGISTRY_MISSING_TO_SERVE is missing, and Django
# refuses any use of an empty SECRET_KEY.

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "corsheaders",
    # Before rest_framework.authtoken: its drf_create_token command replaces DRF's (user names folded)
    "registry",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    # Sign-in with ORCID and other OpenID Connect providers (registry.identity, docs/stewardship.md)
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
]

MIDDLEWARE = [
    "registry.middleware.ClientAddressMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "registry.middleware.SecurityHeadersMiddleware",
    # Before any view (or CSRF's check) reads the body; after the headers, so a 413 carries them.
    "registry.bodylimits.BodyLimitMiddleware",
    "axes.middleware.AxesMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "registry.fairshare.HeavyRequestLimit",
    "registry.storage.StorageFaultMiddleware",
    "registry.lookup.AnsweredFromMemoryMiddleware",
]

#: Django's database sessions; a lost database while saving one is a storage fault, not a 400.
SESSION_ENGINE = "registry.storage"

ROOT_URLCONF = "registry.urls"
WSGI_APPLICATION = "registry.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
# Form widgets are drawn with Django's own Jinja2 widget templates: the same markup
# (up to whitespace and the spelling of escaped quotes) at a third of the cost of the
# Django template language, which was half of the proposal form's server time. Widgets with no
# Jinja2 template (the admin's, auth's) fall back to the Django one (registry/formrenderer.py).
FORM_RENDERER = "registry.formrenderer.Jinja2WithDjangoFallback"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
        # A kept connection is tried (one "SELECT 1") before a request's first query: after the
        # database restarted, the first request of each thread gets its answer, not a 503
        # (tests/faults/test_postgres_lost.py). SQLite's connections are always usable.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A server that takes no connection (frozen, packets dropped) is given up after this many
    # seconds, not the system's two minutes, so a request answers 503 in time (unless
    # DATABASE_URL's own ?connect_timeout= says otherwise).
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", int(os.environ.get("REGISTRY_DB_CONNECT_SECONDS", "5"))
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite as a real default (docs/operations.md): readers never wait for the writer (WAL);
    # every transaction takes the write lock when it begins (IMMEDIATE), so two concurrent
    # decisions queue for up to REGISTRY_SQLITE_BUSY_SECONDS and the second sees the first's
    # result (409) instead of failing to upgrade its read lock ("database is locked").
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": float(os.environ.get("REGISTRY_SQLITE_BUSY_SECONDS", "20")),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

REDIS_URL = os.environ.get("REDIS_URL", "")
#: No cache entry lives longer than this (seconds); "for ever" is read as this too.
REGISTRY_CACHE_MAX_SECONDS = int(os.environ.get("REGISTRY_CACHE_MAX_SECONDS", str(7 * 24 * 3600)))
if REDIS_URL:
    # Redis is an optimisation, never a dependency (registry/cache.py): short socket timeouts,
    # and a circuit breaker that falls back to this process's bounded memory.
    CACHES = {
        "default": {
            "BACKEND": "registry.cache.ResilientCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {
                "SOCKET_TIMEOUT": float(os.environ.get("REGISTRY_CACHE_SOCKET_TIMEOUT", "0.25")),
                "BREAKER_SECONDS": float(os.environ.get("REGISTRY_CACHE_BREAKER_SECONDS", "30")),
                "MAX_TIMEOUT": REGISTRY_CACHE_MAX_SECONDS,
                "LOCAL_MAX_ENTRIES": int(os.environ.get("REGISTRY_CACHE_LOCAL_ENTRIES", "2000")),
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "OPTIONS": {"MAX_ENTRIES": 2000}}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = DEBUG  # development serves straight from static/, no collectstatic
if DEBUG:
    STATIC_ROOT.mkdir(exist_ok=True)  # git-ignored; keeps whitenoise from warning
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

LOGIN_URL = "/accounts/login/"

# --- Access policy (docs/security.md) -------------------------------------------------------

#: The one trusted-proxy setting. Empty (the default): the client address is the TCP peer and
#: X-Forwarded-For is ignored. A number N: N reverse proxies stand in front of the app, each
#: appending the address it saw, so the client is the N-th address from the right. A list of
#: addresses or networks ("10.0.0.5, 10.1.0.0/16"): headers are read only from those peers, and
#: the client is the right-most address that is not one of them. registry.middleware resolves
#: it once per request for Django, the DRF throttles and the log-in limits alike.
REGISTRY_TRUSTED_PROXIES = os.environ.get("REGISTRY_TRUSTED_PROXIES", "").strip()
if REGISTRY_TRUSTED_PROXIES and not REGISTRY_TRUSTED_PROXIES.isdigit():
    try:
        [
            ipaddress.ip_network(item.strip(), strict=False)
            for item in REGISTRY_TRUSTED_PROXIES.split(",")
            if item.strip()
        ]
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"REGISTRY_TRUSTED_PROXIES must be a number of proxies or a comma-separated "
            f"list of addresses or networks ({exc}); see docs/deployment.md."
        ) from None

#: Log-in limits (django-axes): failed attempts per (account, client address) and per client
#: address within LOGIN_FAILURE_WINDOW. A wrong guess elsewhere never locks the owner out.
LOGIN_FAILURE_LIMIT = int(os.environ.get("REGISTRY_LOGIN_FAILURES", "5"))
LOGIN_ADDRESS_FAILURE_LIMIT = int(os.environ.get("REGISTRY_LOGIN_ADDRESS_FAILURES", "50"))
LOGIN_FAILURE_WINDOW = 15 * 60  # seconds
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's password sign-in, the user name compared folded ("Ärger" is "ärger"; registry.accounts.names)
    "registry.accounts.names.FoldedNameBackend",
]


SOCIALACCOUNT_PROVIDERS = identity_provider_apps(identity_providers())
SOCIALACCOUNT_ADAPTER = "registry.identity.SocialAccountAdapter"
ACCOUNT_ADAPTER = "registry.identity.AccountAdapter"
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_REQUIRED = False
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"  # the provider vouches for the identity; e-mail is optional
#: A provider's address never signs anyone in to the account that has it (registry.identity).
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
SOCIALACCOUNT_LOGIN_ON_GET = False  # a sign-in starts with a POST from our page (no login CSRF)
SOCIALACCOUNT_STORE_TOKENS = False
SOCIALACCOUNT_OPENID_CONNECT_URL_PREFIX = "oidc"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"  # local sign-ups are confirmed by registry.views.accounts, not allauth
ACCOUNT_UNIQUE_EMAIL = False
AXES_HANDLER = "registry.views.accounts.LoginLimitHandler"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = dt.timedelta(seconds=LOGIN_FAILURE_WINDOW)
AXES_RESET_ON_SUCCESS = False  # the handler clears only the (account, address) count
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # a block ends on time, whatever is tried
AXES_USERNAME_CALLABLE = "registry.views.accounts.login_username"
AXES_CLIENT_IP_CALLABLE = "registry.middleware.client_address"
AXES_LOCKOUT_CALLABLE = "registry.views.accounts.lockout_response"
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False

#: Sign-up and password-reset mails: per client address and per e-mail address, per hour.
SIGNUP_RATE_PER_ADDRESS = int(os.environ.get("REGISTRY_SIGNUPS_PER_ADDRESS", "5"))
PASSWORD_RESET_RATE_PER_ADDRESS = int(os.environ.get("REGISTRY_RESETS_PER_ADDRESS", "10"))
PASSWORD_RESET_RATE_PER_EMAIL = int(os.environ.get("REGISTRY_RESETS_PER_EMAIL", "3"))
ACCOUNT_RATE_WINDOW = 60 * 60  # seconds
#: The password-reset page never answers sooner, so known and unknown addresses look alike.
PASSWORD_RESET_MIN_SECONDS = float(os.environ.get("REGISTRY_RESET_MIN_SECONDS", "0.3"))

#: Longest reservation an editor may grant at once (days); renewable by an editor.
RESERVATION_MAX_DAYS = int(os.environ.get("REGISTRY_RESERVATION_MAX_DAYS", "365"))

#: The admin lives at a non-default path in production (it is for GFD editors only).
ADMIN_PATH = os.environ.get("DJANGO_ADMIN_PATH", "admin/" if DEBUG else "registry-admin/").strip("/") + "/"
LOGIN_REDIRECT_URL = "/proposals/"
LOGOUT_REDIRECT_URL = "/urn/"

EMAIL_BACKEND = os.environ.get("DJANGO_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "urn@ogf.org")
#: Where links in e-mails point.
SITE_URL = os.environ.get("REGISTRY_SITE_URL", "http://127.0.0.1:8000").rstrip("/")

#: The transparency log (docs/transparency.md). Its Ed25519 signer key — the key itself, or a file
#: holding it (``manage.py log_keygen`` writes one) — is needed only by the signer
#: (``manage.py log_sign``), never in the database. Development keeps one in ``.log_key``
#: (git-ignored), made on first use.
REGISTRY_LOG_KEY = os.environ.get("REGISTRY_LOG_KEY", "").strip()
REGISTRY_LOG_KEY_FILE = os.environ.get("REGISTRY_LOG_KEY_FILE", str(BASE_DIR / ".log_key") if DEBUG else "")
#: Whether a missing key file is created (development only).
REGISTRY_LOG_KEY_CREATE = DEBUG


def _development_log_state() -> str:
    """Development: one record per database (``.log_state/<digest of the database's address>``), so a
    checkout that switches databases does not take one database's log for another's."""
    database = DATABASES["default"]
    address = "|".join(str(database.get(key) or "") for key in ("ENGINE", "HOST", "PORT", "NAME"))
    return str(BASE_DIR / ".log_state" / hashlib.sha256(address.encode()).hexdigest()[:16])


#: The signer's own record of what it signed (a directory beside its key that only the signer
#: writes; the database cannot rewrite it). Development: under ``.log_state`` in the checkout.
REGISTRY_LOG_STATE_DIR = os.environ.get("REGISTRY_LOG_STATE_DIR", _development_log_state() if DEBUG else "")
#: Each app server's floor: the last checkpoint this host served, kept outside the database (a small
#: file per host, written atomically), so that no restart serves an older or inconsistent one.
REGISTRY_LOG_SERVED_FILE = os.environ.get(
    "REGISTRY_LOG_SERVED_FILE",
    str(Path(REGISTRY_LOG_STATE_DIR).with_name(Path(REGISTRY_LOG_STATE_DIR).name + "-served.json"))
    if DEBUG
    else "/var/lib/urn-registry/log-served.json",
)
#: Development: a new database is a new log. The signer's record and the app servers' floor belong to
#: one database's log (its identity, made with it); a database with another identity begins a new log.
#: Off in production, where an emptied or replaced log table is refused as damage.
REGISTRY_LOG_NEW_DATABASE_NEW_LOG = _env_bool("REGISTRY_LOG_NEW_DATABASE_NEW_LOG", DEBUG)
#: The log's public verifier key (what ``log_keygen`` prints): web workers check with it the
#: checkpoint the signer published before serving it. Derived from the signer key when unset.
REGISTRY_LOG_VERIFIER_KEY = os.environ.get("REGISTRY_LOG_VERIFIER_KEY", "").strip()
#: Development and tests: the process that appended signs right after its transaction commits
#: (through the same checks as the signer). Production runs ``manage.py log_sign --watch``.
REGISTRY_LOG_SIGN_INLINE = _env_bool("REGISTRY_LOG_SIGN_INLINE", DEBUG)
#: Seconds between the signer's looks at the log head (``log_sign --watch``).
REGISTRY_LOG_SIGN_POLL = float(os.environ.get("REGISTRY_LOG_SIGN_POLL", "1"))


def _witnesses() -> list[dict]:
    """REGISTRY_LOG_WITNESSES: a JSON list of {"key": witness public key, "url": its submission prefix}."""
    try:
        witnesses = json.loads(os.environ.get("REGISTRY_LOG_WITNESSES", "") or "[]")
        if not isinstance(witnesses, list) or not all(
            isinstance(w, dict) and set(w) == {"key", "url"} and all(isinstance(v, str) for v in w.values())
            for w in witnesses
        ):
            raise ValueError("a JSON list of objects with exactly key and url")
    except ValueError as exc:
        raise ImproperlyConfigured(f"REGISTRY_LOG_WITNESSES must be {exc}; see docs/transparency.md.") from None
    return witnesses


#: The witnesses the signer asks to cosign each checkpoint (C2SP tlog-witness), and how long it
#: waits for each.
REGISTRY_LOG_WITNESSES = _witnesses()
REGISTRY_LOG_WITNESS_TIMEOUT = float(os.environ.get("REGISTRY_LOG_WITNESS_TIMEOUT", "5"))
#: How many of REGISTRY_LOG_WITNESSES must cosign a checkpoint before it is published (default: all of
#: them). A checkpoint without the quorum stays unpublished, so a fork is never published unwitnessed.
REGISTRY_LOG_WITNESS_QUORUM = _env_count("REGISTRY_LOG_WITNESS_QUORUM")
if REGISTRY_LOG_WITNESS_QUORUM is not None and REGISTRY_LOG_WITNESS_QUORUM > len(REGISTRY_LOG_WITNESSES):
    raise ImproperlyConfigured(
        f"REGISTRY_LOG_WITNESS_QUORUM is {REGISTRY_LOG_WITNESS_QUORUM}, but {len(REGISTRY_LOG_WITNESSES)} "
        "witness(es) are configured in REGISTRY_LOG_WITNESSES; see docs/transparency.md."
    )
#: Who is mailed when the signer finds the log damaged, besides the GFD editors.
REGISTRY_LOG_ALARM_EMAILS = _env_list("REGISTRY_LOG_ALARM_EMAILS")

#: What the running site (registry/wsgi.py) needs in production and does not have.
REGISTRY_MISSING_TO_SERVE = (
    []
    if DEBUG
    else [
        name
        for name, value in (
            ("DJANGO_SECRET_KEY", SECRET_KEY),
            ("DJANGO_ALLOWED_HOSTS", ALLOWED_HOSTS),
            (
                "REGISTRY_LOG_VERIFIER_KEY",
                REGISTRY_LOG_VERIFIER_KEY
                or REGISTRY_LOG_KEY
                or (REGISTRY_LOG_KEY_FILE and Path(REGISTRY_LOG_KEY_FILE).is_file()),
            ),
        )
        if not value
    ]
)

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["registry.api.parsers.SafeJSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": ["registry.api.throttles.AnonymousRateThrottle"],
    "DEFAULT_PAGINATION_CLASS": "registry.api.pagination.SitePageNumberPagination",  # links from SITE_URL
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "registry.api.errors.exception_handler",
    # The client address is resolved once, from REGISTRY_TRUSTED_PROXIES, by
    # registry.middleware.client_address (the throttles ask it); DRF's own reading of
    # X-Forwarded-For is switched off so no code path trusts the header by default.
    "NUM_PROXIES": 0,
}
#: Anonymous API requests per client address, e.g. "600/min"; "off" disables.
REGISTRY_ANON_RATE = os.environ.get("REGISTRY_ANON_RATE", "1200/min")
#: Seconds a process's registry index keeps answering lookups after the database last answered,
#: while it cannot be reached (registry/lookup.py, docs/operations.md); 0: never.
REGISTRY_LOOKUP_STALE_SECONDS = float(os.environ.get("REGISTRY_LOOKUP_STALE_SECONDS", "3600"))

SPECTACULAR_SETTINGS = {
    "TITLE": "urn:ogf registry API",
    "DESCRIPTION": (
        "Look up and validate urn:ogf: URNs against the registered subnamespaces (GFD.191, "
        "RFC 6453), read the registry, and work with proposals.\n\n"
        f"[← Back to the registry]({SITE_URL}/urn/) · "
        f"[registry.json]({SITE_URL}/urn/registry.json) (every SNID with its pattern for offline "
        "validation) · Read endpoints need no account; proposal endpoints use your site login."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Operation links inside Swagger UI's operation buttons are interactive controls nested in
    # controls (WCAG 4.1.2); ReDoc uses the site's served fonts
    # (static/registry/fonts.css, no font CDN). registry/api/docs_ui.py.
    # Its layout: BaseLayout without a second <main> (static/registry/api-docs.js); a string, as it names a
    # script's value (drf-spectacular writes a string as it is).
    "SWAGGER_UI_SETTINGS": '{"deepLinking": false, "layout": "RegistryLayout", '
    '"presets": [SwaggerUIBundle.presets.apis, window.registrySwaggerLayout]}',
    "REDOC_UI_SETTINGS": {
        "theme": {
            "typography": {
                "fontFamily": "var(--sans, sans-serif)",
                "headings": {"fontFamily": "var(--sans, sans-serif)"},
                "code": {"fontFamily": "var(--mono, monospace)"},
            }
        }
    },
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "registry.api.docs_ui.open_operations_name_no_security",
    ],
    "ENUM_NAME_OVERRIDES": {
        "ProposalStateEnum": "registry.enums.ProposalState",
        "NamespaceStatusEnum": "registry.enums.NamespaceStatus",
        "SnidStatusEnum": "registry.api.serializers.SNID_STATUS_CHOICES",
        "RegistrationStatusEnum": "registry.api.serializers.REGISTRATION_STATUS_CHOICES",
        "FindingStatusEnum": "registry.enums.FindingStatus",
        "EventKindEnum": "registry.enums.EventKind",
        "ResolverStatusEnum": "registry.resolution.models.ResolverStatus",
    },
}

# Read-only registry data may be used from any origin (no credentials are sent);
# the authenticated proposal endpoints are same-origin only.
CORS_URLS_REGEX = r"^/api/(snids|lookup|validate|resolve|schema)(/.*)?$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS", "POST"]
CORS_EXPOSE_HEADERS = ["ETag", "Retry-After", "Registry-As-Of", "Registry-Log-Damage"]
#: django-cors-headers' defaults, and If-None-Match: a script revalidating with the ETag it was shown.
CORS_ALLOW_HEADERS = [
    "accept",
    "authorization",
    "content-type",
    "user-agent",
    "x-csrftoken",
    "x-requested-with",
    "if-none-match",
]

#: Bulk validation accepts up to 10,000 URNs of up to 4 KiB each.
DATA_UPLOAD_MAX_MEMORY_SIZE = 48 * 1024 * 1024

#: The hard budget of one job on untrusted text (grammar check, Markdown, document
#: import), run in a separate worker process: seconds of CPU time and address-space
#: megabytes (work, not the machine's load), a generous wall-clock ceiling against a stuck
#: worker, and worker processes per web process (registry/sandbox.py).
REGISTRY_JOB_SECONDS = float(os.environ.get("REGISTRY_JOB_SECONDS", "2"))
REGISTRY_JOB_MEMORY_MB = int(os.environ.get("REGISTRY_JOB_MEMORY_MB", "512"))
REGISTRY_JOB_WALL_SECONDS = float(os.environ.get("REGISTRY_JOB_WALL_SECONDS", "30"))
REGISTRY_JOB_WORKERS = int(os.environ.get("REGISTRY_JOB_WORKERS", "1"))
#: Reading one document (PDF/Word extraction and import) is a bigger job: its own CPU budget,
#: enough for a PDF of 200 dense pages (6.5 to 20 s, by the machine) with room to spare.
REGISTRY_IMPORT_CPU_SECONDS = float(os.environ.get("REGISTRY_IMPORT_CPU_SECONDS", "30"))

#: Resolver health checks (registry/resolution/health.py, docs/resolution.md): networks the
#: checker may reach although private, loopback or link-local ("" none; tests use 127.0.0.0/8),
#: how many consecutive failures over at least how many seconds make a resolver "down",
#: the per-request timeout, the most probes of one run, and how long an editor's live probe
#: from the review page may take in all (well under the worker timeout).
REGISTRY_RESOLVER_ALLOW_PRIVATE = os.environ.get("REGISTRY_RESOLVER_ALLOW_PRIVATE", "").strip()
REGISTRY_RESOLVER_DOWN_AFTER = int(os.environ.get("REGISTRY_RESOLVER_DOWN_AFTER", "3"))
REGISTRY_RESOLVER_DOWN_SECONDS = int(os.environ.get("REGISTRY_RESOLVER_DOWN_SECONDS", str(2 * 24 * 3600)))
REGISTRY_RESOLVER_TIMEOUT = float(os.environ.get("REGISTRY_RESOLVER_TIMEOUT", "10"))
REGISTRY_RESOLVER_RUN_CAP = int(os.environ.get("REGISTRY_RESOLVER_RUN_CAP", "500"))
REGISTRY_RESOLVER_PROBE_SECONDS = float(os.environ.get("REGISTRY_RESOLVER_PROBE_SECONDS", "15"))
#: CPU seconds the bounded worker may spend resolving one URN of an SNID whose resolvers were
#: approved over the resolution budget (registry/resolution/budget.py: stated on the SNID's page and in
#: the API); past it, or predicted far past it, the lookup's answer without those addresses.
REGISTRY_RESOLVE_JOB_SECONDS = float(os.environ.get("REGISTRY_RESOLVE_JOB_SECONDS", "0.05"))
#: Backups (export_registry --format backup) are signed with HMAC-SHA256 under this key, kept
#: apart from the backups: the key itself, or a file holding it. Development makes one in
#: .backup_key (git-ignored) on first use; production has none until one is set.
REGISTRY_BACKUP_KEY = os.environ.get("REGISTRY_BACKUP_KEY", "")
REGISTRY_BACKUP_KEY_FILE = os.environ.get("REGISTRY_BACKUP_KEY_FILE", "") or (
    str(BASE_DIR / ".backup_key") if DEBUG else ""
)

#: Fair sharing (registry/fairshare.py): heavy requests (check, import, save, decide) in
#: progress at once per account (or client address) and per web process; past either, 429.
REGISTRY_HEAVY_PER_ACCOUNT = int(os.environ.get("REGISTRY_HEAVY_PER_ACCOUNT", "2"))
REGISTRY_HEAVY_PER_PROCESS = int(
    os.environ.get("REGISTRY_HEAVY_PER_PROCESS", str(max(1, int(os.environ.get("WEB_THREADS", "2")) - 1)))
)

if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = _env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_REFERRER_POLICY = "same-origin"
    SESSION_COOKIE_HTTPONLY = True
    CSRF_COOKIE_HTTPONLY = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
