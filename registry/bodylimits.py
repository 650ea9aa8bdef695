"""Request bodies are bounded per path before anything reads them.

Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is one number for the whole site, and
it must be large for bulk validation (10,000 URNs of 4 KiB). Every other form
is far smaller, so ``BodyLimitMiddleware`` refuses a body over its path's limit
from the ``Content-Length`` header alone, before a byte of it is read or
parsed: JSON for ``/api/`` paths, a short page for people elsewhere, and never
any of the body echoed back. docs/security.md lists the limits.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.utils.html import escape

from .documents import MAX_DOCUMENT, MAX_FILE
from .interchange import MAX_PROPOSAL_CHARS

MIB = 1 << 20
#: A proposal form or JSON document: every text of a proposal (``MAX_PROPOSAL_CHARS``)
#: form-encoded (a non-ASCII character is up to 12 bytes as %XX%XX%XX%XX), with room.
PROPOSAL_BODY_MAX = 12 * MIB
#: The document import: an uploaded file, or pasted text and the review form that
#: carries the document along (``MAX_DOCUMENT`` characters twice) with the proposal.
IMPORT_BODY_MAX = MAX_FILE + 2 * MIB + 3 * MAX_DOCUMENT * 4
#: Anything else (sign-in, comments, decisions, reservation requests).
DEFAULT_BODY_MAX = 2 * MIB


def body_limit(path: str) -> int:
    """The largest request body accepted at ``path`` (bytes)."""
    if path.startswith("/api/validate"):
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if path.startswith("/proposals/import"):
        return IMPORT_BODY_MAX
    if path.startswith(("/proposals/", "/api/proposals", "/review/")):
        return PROPOSAL_BODY_MAX
    return DEFAULT_BODY_MAX


def too_large(path: str, length: int, limit: int) -> HttpResponse:
    message = (
        f"The request is {length:,} bytes; the limit here is {limit:,} bytes "
        f"({MAX_PROPOSAL_CHARS:,} characters for a whole proposal)."
    )
    if path.startswith("/api/"):
        return JsonResponse({"detail": message, "limit": limit}, status=413)
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too large</title></head>'
        f"<body><h1>What you sent is too large</h1><p>{escape(message)}</p>"
        "<p>Go back, shorten the longest texts and try again.</p></body></html>"
    )
    return HttpResponse(page, status=413, content_type="text/html; charset=utf-8")


class BodyLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = body_limit(request.path)
        if length > limit:
            return too_large(request.path, length, limit)
        return self.get_response(request)
