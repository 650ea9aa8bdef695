"""When the database cannot take a write, or cannot be reached at all: a clear answer, never a
500, never lost typing.

A full disk, a database busy past its timeout, or a lost database connection is a
fault of the service, not of the request. ``storage_fault`` recognises one and
says what happened in words; views that save typed text (the proposal editor,
the new-proposal form, the import's "Create draft") catch it and show the form again with everything typed in it;
``StorageFaultMiddleware`` turns one raised in any other view into a 503 with
``Retry-After`` — the site's error page, or JSON under /api/ — and ``server_error``
(Django's ``handler500``) does the same for one raised outside a view: in a middleware
that reads the session or the account (with the database gone, every signed-in request
fails there first), or while a template evaluates a lazy query. The 503 itself never
reads the session, the account or the flash messages: they live in the database.
"""

from __future__ import annotations

import logging
import sys

from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import DatabaseError, InterfaceError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

from .transparency.log import LogDamaged

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 30

_FULL = (
    "disk is full",
    "database or disk is full",
    "no space left on device",
    "could not extend file",
    "could not write",
    "disk quota exceeded",
    "file too large",
)
_BUSY = ("database is locked", "database table is locked", "lock timeout", "could not obtain lock")
_LOST = (
    "server closed the connection",
    "connection refused",
    "could not connect",
    "terminating connection",
    "connection already closed",
    "the connection is closed",
    "disk i/o error",
    "unable to open database",
    "connection failed",  # psycopg's opening words for every failure to connect
    "the database system is",  # PostgreSQL refusing connections: shutting down, starting up, in recovery
    "no connection to the server",
    "timeout expired",
)
#: SQLSTATE classes of a lost server, where the driver gives one: connection exceptions (08…) and
#: operator intervention (57P…: shut down, crashed, not accepting connections yet); not 57014, a
#: cancelled statement.
_LOST_SQLSTATES = ("08", "57P")


def storage_fault(exc: BaseException | None, *, reading: bool = False) -> str | None:
    """A sentence for people if ``exc`` is a storage fault; None for any other error.
    ``reading``: the request only asked for a page (a GET), so there was nothing to save."""
    if isinstance(exc, LogDamaged):
        return str(exc)  # a public change cannot be logged: nothing was saved, and the page says why
    if not isinstance(exc, (DatabaseError, InterfaceError)):
        return None
    text = str(exc).lower()
    if any(marker in text for marker in _FULL):
        return (
            "The registry's storage is full, so nothing could be saved. The operators have been "
            "told; please try again later."
        )
    if any(marker in text for marker in _BUSY):
        return "The registry's database was busy for too long, so nothing was saved. Please try again in a moment."
    sqlstate = getattr(exc.__cause__, "sqlstate", None) or ""
    if isinstance(exc, InterfaceError) or sqlstate.startswith(_LOST_SQLSTATES) or any(m in text for m in _LOST):
        if reading:
            return "The registry could not reach its database. Please try again in a moment."
        return "The registry could not reach its database, so nothing was saved. Please try again in a moment."
    return None


def _asks_only(request) -> bool:
    """A request that only asks for something (a page, an answer): nothing of it was to be saved."""
    return request.method in ("GET", "HEAD", "OPTIONS")


def unavailable(request, message: str):
    """The 503 answer: JSON under /api/, else the site's error page drawn without the request's
    session (no account, no flash messages: reading them would meet the same fault)."""
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=503)
    else:
        asks_only = _asks_only(request)
        if not asks_only:
            message += " Go back to your form (your browser keeps what you typed) and send it again then."
        title = "Not available just now" if asks_only else "Not saved"
        steps = (
            [{"url": request.get_full_path(), "label": "Try again", "note": f"in {RETRY_AFTER_SECONDS} seconds or so"}]
            if asks_only
            else []
        )
        page = render_to_string("503.html", {"message": message, "title": title, "steps": steps, "outage": True})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def unhandled_fault(request):
    """The 503 of ``unavailable`` for a storage fault no view handled (raised in a middleware or a
    template; called by the site's ``handler500``, registry/views/errors.py), or None for any
    other exception, which stays a server error."""
    exc = sys.exception()
    message = storage_fault(exc, reading=_asks_only(request))
    if message is None:
        return None
    logger.error("storage fault outside a view on %s %s: %s", request.method, request.path, exc)
    return unavailable(request, message)


class StorageFaultMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        message = storage_fault(exception, reading=_asks_only(request))
        if message is None:
            return None
        logger.error("storage fault on %s %s: %s", request.method, request.path, exception)
        return unavailable(request, message)


class SessionStore(DatabaseSessionStore):
    """Django's database sessions (``SESSION_ENGINE = "registry.storage"``), except that a session
    that cannot be saved because the database is lost is that storage fault, a 503 with
    ``Retry-After`` (``unhandled_fault``). Django turns every database error of an update into
    ``UpdateError``, which its session middleware reports as a 400 "session interrupted" — meant
    for a session deleted by a log-out in a concurrent request, and wrong for a database that
    went away between reading the session and saving it (seen in tests/faults/test_postgres_lost.py)."""

    def save(self, must_create=False):
        try:
            return super().save(must_create=must_create)
        except UpdateError as exc:
            cause = exc.__context__
            if cause is not None and storage_fault(cause) is not None:
                raise cause from None
            raise
