"""Request-wide policy: who the client is, and the security headers Django does not set itself.

The client address comes from one setting, ``REGISTRY_TRUSTED_PROXIES`` (see
registry/settings.py and docs/deployment.md): without it X-Forwarded-For is ignored.
``ClientAddressMiddleware`` resolves it once and puts it in ``REMOTE_ADDR``, so Django,
the DRF throttles and the log-in limits (django-axes) all see the same address.

Headers: a strict Content-Security-Policy and a Permissions-Policy. Every script, style and
image comes from this site; the only exceptions are the API documentation pages, whose
bundled Swagger UI and ReDoc (served locally) configure themselves with inline script.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

PEER_KEY = "REGISTRY_PEER_ADDR"  # the TCP peer, kept when REMOTE_ADDR is replaced
CLIENT_KEY = "REGISTRY_CLIENT_ADDR"


@lru_cache(maxsize=8)
def trusted_proxies(value: str) -> int | tuple:
    """``""`` → 0; ``"2"`` → 2 proxies; ``"10.0.0.5, 10.1.0.0/16"`` → those networks."""
    value = (value or "").strip()
    if not value:
        return 0
    if value.isdigit():
        return int(value)
    try:
        return tuple(ipaddress.ip_network(item.strip(), strict=False) for item in value.split(",") if item.strip())
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"REGISTRY_TRUSTED_PROXIES must be a number of proxies or a comma-separated list of "
            f"addresses or networks ({exc})."
        ) from None


def _address(text: str):
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def resolve_client(peer: str, forwarded_for: str, proxies: int | tuple) -> str:
    """The client's address given the TCP peer, the X-Forwarded-For header and the trusted proxies."""
    if not proxies or not forwarded_for:
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    if isinstance(proxies, int):
        # Each of N proxies appends the address it saw: the client is the N-th from the right.
        # Anything further left was written by the client and is not evidence of anything.
        if not hops:
            return peer
        candidate = _address(hops[-min(proxies, len(hops))])
        return str(candidate) if candidate else peer
    if not _in(_address(peer), proxies):
        return peer  # not from a trusted proxy: its headers are the client's own words
    client = peer
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            break
        client = str(address)
        if not _in(address, proxies):
            break
    return client


def _in(address, networks) -> bool:
    return address is not None and any(address in network for network in networks)


def client_address(request) -> str:
    """The client address of ``request`` (used by axes as AXES_CLIENT_IP_CALLABLE, and by throttles)."""
    meta = request.META
    resolved = meta.get(CLIENT_KEY)
    if resolved is None:
        peer = meta.get("REMOTE_ADDR", "") or ""
        resolved = resolve_client(
            peer, meta.get("HTTP_X_FORWARDED_FOR", ""), trusted_proxies(settings.REGISTRY_TRUSTED_PROXIES)
        )
        meta[CLIENT_KEY], meta[PEER_KEY] = resolved, peer
    return resolved


class ClientAddressMiddleware:
    """Replace REMOTE_ADDR by the resolved client address, first thing, for everything after."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.META["REMOTE_ADDR"] = client_address(request)
        return self.get_response(request)


STRICT = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)
API_DOCS = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; object-src 'none'; "
    "base-uri 'self'; frame-ancestors 'none'"
)
PERMISSIONS = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"
API_DOC_PATHS = ("/api/docs/", "/api/redoc/")


#: Pages whose forms start a sign-in at an identity provider (registry.identity): a form's redirect to
#: the provider is a form action too, so these pages allow the configured providers' origins.
IDENTITY_PATHS = ("/accounts/",)


def _with_identity_providers(policy: str) -> str:
    from urllib.parse import urlsplit

    from django.conf import settings

    apps = settings.SOCIALACCOUNT_PROVIDERS.get("openid_connect", {}).get("APPS", [])
    origins = sorted(
        {
            f"{u.scheme}://{u.netloc}"
            for app in apps
            if (u := urlsplit(app.get("settings", {}).get("server_url", ""))).scheme in ("http", "https")
        }
    )
    return policy.replace("form-action 'self'", " ".join(["form-action 'self'", *origins])) if origins else policy


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        policy = API_DOCS if request.path.startswith(API_DOC_PATHS) else STRICT
        if request.path.startswith(IDENTITY_PATHS):
            policy = _with_identity_providers(policy)
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS)
        return response
