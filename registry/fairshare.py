"""Fair sharing: heavy requests (checks, imports, saves) never starve pages and lookups.

A heavy request runs the checklist, a document import or a save, each of which
may use a bounded job's full CPU budget; a page or a lookup takes milliseconds.
``HeavyRequestLimit`` counts heavy requests in progress in this web process, per
account (the site login, or the API token, or else the client address) and in all, and
answers 429 with ``Retry-After`` at once — never by holding a thread to wait — past either limit:

- REGISTRY_HEAVY_PER_ACCOUNT (default 2) heavy requests of one account at once;
- REGISTRY_HEAVY_PER_PROCESS (default: the web server's threads per worker, WEB_THREADS, less one, at least 1)
  heavy requests of everybody at once, so every web process always keeps a
  thread for public pages and lookups: the heavy work has a pool of its own
  within the process's threads, and its jobs run in the bounded worker.

The counts live in the process's memory, not in the shared cache: a limit that
must hold during a Redis outage cannot depend on Redis. With several web
processes an account may thus have that many heavy requests in each.

The answer is JSON for /api/ paths and the site's error page otherwise, except for
the forms where someone typed what they send (a proposal's edit and new pages, the
import's "Create draft"): there the request goes on to its view with a ``Refusal``
(``refusal(request)``), and the view shows its form again with everything typed in
it and the message, as 429 with ``Retry-After``, doing none of the heavy work
(no check, no import, no save). Nothing typed is lost to a busy registry.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render

#: Unsafe requests to these paths run the checklist, an import, a save or a decision.
HEAVY_PATHS = re.compile(
    r"^/(?:proposals/(?:new|import|import/create|\d+/edit|\d+/check)/"
    r"|review/\d+/decide/"
    r"|api/proposals/(?:\d+/(?:actions/[^/]+/)?)?)$"
)
HEAVY_METHODS = frozenset({"POST", "PUT", "PATCH"})
#: Forms whose views show what was typed again when the request is refused (see ``refusal``).
KEEPS_TYPED_TEXT = re.compile(r"^/proposals/(?:new|import/create|\d+/edit)/$")
RETRY_AFTER_SECONDS = 5


@dataclass(frozen=True)
class Refusal:
    """A heavy request refused for now: what to tell the person, and when to try again."""

    message: str
    retry_after: int = RETRY_AFTER_SECONDS
    status: int = 429

    def apply(self, response):
        """``response`` (the form shown again) with this refusal's status and Retry-After."""
        response.status_code = self.status
        response["Retry-After"] = str(self.retry_after)
        return response


def refusal(request) -> Refusal | None:
    """The refusal of this request when it may only show its form again, else None."""
    return getattr(request, "heavy_refusal", None)


class Slots:
    """Heavy requests in progress in this process: per key and in all (thread-safe)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._by_key: Counter[str] = Counter()
        self._total = 0

    @contextmanager
    def hold(self, key: str, per_key: int, total: int):
        """Yields True with a slot held, or False (nothing held) when a limit is reached."""
        with self._lock:
            granted = self._by_key[key] < per_key and self._total < total
            if granted:
                self._by_key[key] += 1
                self._total += 1
        try:
            yield granted
        finally:
            if granted:
                with self._lock:
                    self._total -= 1
                    self._by_key[key] -= 1
                    if self._by_key[key] <= 0:
                        del self._by_key[key]

    @property
    def in_progress(self) -> int:
        return self._total


slots = Slots()


def is_heavy(request) -> bool:
    return request.method in HEAVY_METHODS and HEAVY_PATHS.match(request.path_info) is not None


def requester(request) -> str:
    """The account: the site login, else the API token (DRF checks it later; a made-up token only
    gets a count of its own, still within the per-process limit), else the client address."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"account:{user.pk}"
    scheme, _, token = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() == "token" and token.strip():
        return "token:" + hashlib.sha256(token.strip().encode("utf-8", "replace")).hexdigest()[:32]
    from .middleware import client_address

    return f"address:{client_address(request)}"


def busy_message(*, own: bool, seconds: int = RETRY_AFTER_SECONDS) -> str:
    if own:
        return (
            f"You already have {settings.REGISTRY_HEAVY_PER_ACCOUNT} checks, imports or saves "
            f"in progress; wait for them to finish, then try again in {seconds} seconds."
        )
    return f"The registry is busy checking other people's proposals; try again in {seconds} seconds."


def too_busy(request, *, own: bool):
    seconds = RETRY_AFTER_SECONDS
    message = busy_message(own=own, seconds=seconds)
    if not request.path_info.startswith("/api/"):
        message += (
            " Nothing was saved by this request: go back to your form (your browser keeps "
            "what you typed) and send it again."
        )
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=429)
    else:
        response = render(request, "429.html", {"message": message, "title": "Too many at once"}, status=429)
    response["Retry-After"] = str(seconds)
    return response


class HeavyRequestLimit:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_heavy(request):
            return self.get_response(request)
        key = requester(request)
        per_key = settings.REGISTRY_HEAVY_PER_ACCOUNT
        with slots.hold(key, per_key, settings.REGISTRY_HEAVY_PER_PROCESS) as granted:
            if granted:
                return self.get_response(request)
        with slots._lock:
            own = slots._by_key[key] >= per_key
        if request.method == "POST" and KEEPS_TYPED_TEXT.match(request.path_info):
            # The view shows the form again with what was typed (light work: no slot needed).
            request.heavy_refusal = Refusal(
                busy_message(own=own) + " Nothing was saved by this request; "
                "everything you typed is kept below: send it again then."
            )
            return self.get_response(request)
        return too_busy(request, own=own)
