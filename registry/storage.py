"""When the database cannot take a write: a clear answer, never a 500, never lost typing.

A full disk, a database busy past its timeout, or a lost database connection is a
fault of the service, not of the request. ``storage_fault`` recognises one and
says what happened in words; views that save typed text (the proposal editor,
the new-proposal form, the import's "Create draft") catch it and show the form again with everything typed in it;
``StorageFaultMiddleware`` turns one anywhere else into a 503 with
``Retry-After`` — the site's error page, or JSON under /api/.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError
from django.http import JsonResponse
from django.shortcuts import render

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 30

_FULL = ("disk is full", "database or disk is full", "no space left on device", "could not extend file",
         "could not write", "disk quota exceeded", "file too large")
_BUSY = ("database is locked", "database table is locked", "lock timeout", "could not obtain lock")
_LOST = ("server closed the connection", "connection refused", "could not connect", "terminating connection",
         "connection already closed", "the connection is closed", "disk i/o error", "unable to open database")


def storage_fault(exc: BaseException) -> str | None:
    """A sentence for people if ``exc`` is a storage fault; None for any other error."""
    if not isinstance(exc, (DatabaseError, InterfaceError)):
        return None
    text = str(exc).lower()
    if any(marker in text for marker in _FULL):
        return ("The registry's storage is full, so nothing could be saved. The operators have been "
                "told; please try again later.")
    if any(marker in text for marker in _BUSY):
        return ("The registry's database was busy for too long, so nothing was saved. Please try again "
                "in a moment.")
    if isinstance(exc, InterfaceError) or any(marker in text for marker in _LOST):
        return ("The registry could not reach its database, so nothing was saved. Please try again in "
                "a moment.")
    return None


def unavailable(request, message: str):
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=503)
    else:
        response = render(request, "503.html", {"message": message, "title": "Not saved"}, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class StorageFaultMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        message = storage_fault(exception)
        if message is None:
            return None
        logger.error("storage fault on %s %s: %s", request.method, request.path, exception)
        return unavailable(request, message)
