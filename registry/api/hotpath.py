"""``GET /api/lookup/`` answered at the WSGI layer, before Django builds a request.

A warm lookup is a dictionary hit (the answer serialised once per registry
stamp) or one RE2 match; building a WSGIRequest, running ten middlewares and
DRF's dispatch cost many times that. So ``with_fast_lookup`` wraps the Django
application and answers the common case itself, with the same bytes and the
same headers as the full stack (tests/api/test_lookup.py compares them):

- only ``GET /api/lookup/?urn=<ASCII>`` from an allowed host, without an
  ``Origin`` header (CORS answers stay with django-cors-headers), when no
  HTTPS redirect is due;
- only while the lookup index is fresh and the SNID's validator is loaded, so
  this path never touches the database (nor needs Django's request signals,
  which manage database connections);
- only 200 and 304 answers: a 400, a throttled request (429) and anything else
  go through Django, which logs them as usual;
- with the same throttle classes as the DRF view, checked last so a request is
  never counted twice.

Everything else falls through to Django unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from corsheaders.conf import conf as cors_conf
from django.conf import settings
from django.core.signals import setting_changed
from django.http.request import split_domain_port, validate_host
from django.utils.encoding import iri_to_uri

from ..conditional import etag_matches
from ..lookup import LOG_DAMAGE_HEADER, answerable_without_query, fresh_index
from ..middleware import PERMISSIONS, STRICT
from ..views.http import CACHE_CONTROL, anonymous_client, etag_of, lookup_answer, remember, simple_lookup_query
from .views import Lookup

LOOKUP_PATH = "/api/lookup/"


def with_fast_path(fast, application):
    """The WSGI application ``application`` with what ``fast(environ)`` answers — (status line,
    headers, body), or None to leave the request to ``application`` — answered first."""

    def fast_path_application(environ, start_response):
        answer = fast(environ)
        if answer is None:
            return application(environ, start_response)
        status, headers, body = answer
        start_response(status, headers)
        return [body]

    return fast_path_application


def with_fast_lookup(application):
    """The WSGI application ``application`` with lookups answered first (``REGISTRY_FAST_LOOKUP``)."""
    return with_fast_path(fast_lookup, application)


@dataclass(frozen=True, slots=True)
class Plan:
    """What the settings make of a lookup, read once (settings are slow to read per request)."""

    enabled: bool
    redirect_http: bool
    throttled: bool
    proxy_ssl_header: tuple | None
    forwarded_host: bool
    allowed_hosts: tuple[str, ...]
    headers: tuple[tuple[str, str], ...]  # what settings.MIDDLEWARE adds over plain HTTP
    secure_headers: tuple[tuple[str, str], ...]  # ... and over HTTPS


_plan: Plan | None = None


def plan() -> Plan:
    global _plan
    if _plan is None:
        allowed = settings.ALLOWED_HOSTS
        if settings.DEBUG and not allowed:
            allowed = [".localhost", "127.0.0.1", "[::1]"]
        _plan = Plan(
            enabled=(
                getattr(settings, "REGISTRY_FAST_LOOKUP", True)
                and not settings.PREPEND_WWW
                and not settings.DISALLOWED_USER_AGENTS
            ),
            redirect_http=settings.SECURE_SSL_REDIRECT,
            throttled=settings.REGISTRY_ANON_RATE not in ("", "off"),
            proxy_ssl_header=settings.SECURE_PROXY_SSL_HEADER,
            forwarded_host=settings.USE_X_FORWARDED_HOST,
            allowed_hosts=tuple(allowed),
            headers=tuple(_middleware_headers(secure=False)),
            secure_headers=tuple(_middleware_headers(secure=True)),
        )
    return _plan


def _settings_changed(**kwargs) -> None:
    global _plan
    _plan = None


setting_changed.connect(_settings_changed)


def fast_path_gate(environ: dict, path: str) -> tuple[object, Plan, bool] | None:
    """(index, plan, secure) when a plain GET of ``path`` may be answered at the WSGI layer, else
    None: no script prefix, no Origin (CORS answers come from Django), a fresh registry index,
    the fast path enabled, no HTTPS redirect due and an allowed host. The lookup's and the
    resolver's fast paths share it, so both refuse exactly what the full stack would treat
    differently."""
    if (
        environ.get("PATH_INFO") != path
        or environ.get("REQUEST_METHOD") != "GET"
        or environ.get("SCRIPT_NAME")
        or "HTTP_ORIGIN" in environ
    ):
        return None
    index = fresh_index()
    if index is None:
        return None
    rules = _plan or plan()
    if not rules.enabled:
        return None
    secure = _is_secure(environ, rules)
    if (rules.redirect_http and not secure) or not _host_allowed(environ, rules):
        return None
    return index, rules, secure


def fast_lookup(environ: dict) -> tuple[str, list[tuple[str, str]], bytes] | None:
    """(status line, headers, body) for a lookup this path may answer, else None."""
    gate = fast_path_gate(environ, LOOKUP_PATH)
    if gate is None:
        return None
    index, rules, secure = gate
    query = environ.get("QUERY_STRING", "")
    answer = index.answers.get(query)
    if answer is None:
        urn = simple_lookup_query(query)
        if urn is None or not answerable_without_query(urn, index):
            return None
        status, body = lookup_answer(urn, index)
        if status != 200:
            return None
        answer = remember(index, query, body, etag_of(index, f"{LOOKUP_PATH}?{iri_to_uri(query)}"))
    if rules.throttled and not _throttles_allow(environ):
        return None
    body, etag = answer
    if etag_matches(environ.get("HTTP_IF_NONE_MATCH", ""), etag):
        status, body = "304 Not Modified", b""
        headers = [("ETag", etag), ("Cache-Control", CACHE_CONTROL)]
    else:
        status = "200 OK"
        headers = [("Content-Type", "application/json"), ("ETag", etag), ("Cache-Control", CACHE_CONTROL)]
    headers += rules.secure_headers if secure else rules.headers
    if index.log_damage:
        headers.append((LOG_DAMAGE_HEADER, index.log_damage))
    headers.append(("Content-Length", str(len(body))))
    return status, headers, body


def _middleware_headers(secure: bool) -> list[tuple[str, str]]:
    """What the middleware stack (settings.MIDDLEWARE) adds to an API answer."""
    headers = [("Content-Security-Policy", STRICT), ("Permissions-Policy", PERMISSIONS)]
    if settings.X_FRAME_OPTIONS:
        headers.append(("X-Frame-Options", settings.X_FRAME_OPTIONS.upper()))
    if re.match(cors_conf.CORS_URLS_REGEX, LOOKUP_PATH):
        headers.append(("Vary", "origin"))
    if settings.SECURE_HSTS_SECONDS and secure:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        hsts += "; includeSubDomains" if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS else ""
        hsts += "; preload" if settings.SECURE_HSTS_PRELOAD else ""
        headers.append(("Strict-Transport-Security", hsts))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append(("X-Content-Type-Options", "nosniff"))
    if policy := settings.SECURE_REFERRER_POLICY:
        parts = policy.split(",") if isinstance(policy, str) else policy
        headers.append(("Referrer-Policy", ",".join(part.strip() for part in parts)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(("Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY))
    return headers


def _is_secure(environ: dict, rules: Plan) -> bool:
    """``HttpRequest.is_secure`` on the raw environ."""
    if rules.proxy_ssl_header:
        header, secure_value = rules.proxy_ssl_header
        value = environ.get(header)
        if value is not None:
            return value.split(",", 1)[0].strip() == secure_value
    return environ.get("wsgi.url_scheme") == "https"


#: Host headers already judged under the current plan: a client sends the same one every time,
#: and Django's parsing of it is a good part of a warm lookup's own time. Bounded.
_hosts_seen: dict[tuple, bool] = {}
HOSTS_SEEN_MAX = 64


def _host_allowed(environ: dict, rules: Plan) -> bool:
    """``HttpRequest.get_host`` would not raise DisallowedHost (when in doubt, Django decides)."""
    if rules.forwarded_host and "HTTP_X_FORWARDED_HOST" in environ:
        host = environ["HTTP_X_FORWARDED_HOST"]
    else:
        host = environ.get("HTTP_HOST")
    if not host:
        return False
    key = (host, rules.allowed_hosts)
    known = _hosts_seen.get(key)
    if known is None:
        domain, _port = split_domain_port(host)
        known = bool(domain) and validate_host(domain, rules.allowed_hosts)
        if len(_hosts_seen) >= HOSTS_SEEN_MAX:
            _hosts_seen.clear()
        _hosts_seen[key] = known
    return known


def _throttles_allow(environ: dict) -> bool:
    """The DRF view's throttles on the raw request (anonymous: they read only the client's address)."""
    client = anonymous_client(environ)
    return all([throttle().allow_request(client, None) for throttle in Lookup.throttle_classes])
