"""Error pages for people: what went wrong and what they can do next.

``templates/403.html``, ``404.html``, ``409.html`` and ``500.html`` extend the
site layout. Django renders the first two for ``PermissionDenied`` and
``Http404``: a view's own message (``Http404("No such proposal.")``) becomes
the page's explanation, but never Django's words for its internals (the
resolver's ``Resolver404``, ``get_object_or_404``'s "No Proposal matches the
given query."). Views that know more call ``error_page`` with a title, the
explanation and the next steps (links, or one-button forms such as "pull it
back to draft").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.http import Http404, HttpResponseServerError, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.urls import Resolver404
from django.views.decorators.csrf import requires_csrf_token

from ..storage import unhandled_fault

#: get_object_or_404's message: it names a model class, which says nothing to the person reading.
_DJANGO_NOT_FOUND = re.compile(r"^No \w+ matches the given query\.$")


@dataclass(frozen=True)
class NextStep:
    """A link (GET) or, with ``post``, a one-button form."""

    label: str
    url: str
    post: bool = False
    note: str = ""


def error_page(request, status: int, title: str, message: str, steps=(), *, context=None):
    return render(
        request,
        f"{status}.html",
        {"title": title, "message": message, "steps": list(steps), **(context or {})},
        status=status,
    )


def forbidden(request, message: str, steps=()):
    return error_page(request, 403, "You cannot do this here", message, steps)


def conflict(request, message: str, steps=()):
    return error_page(request, 409, "This proposal has moved on", message, steps)


@requires_csrf_token
def page_not_found(request, exception=None):
    """404 (``handler404``): the view's explanation when it gave one for people, else the page's own."""
    message = ""
    if isinstance(exception, Http404) and not isinstance(exception, Resolver404) and exception.args:
        said = exception.args[0]
        if isinstance(said, str) and not _DJANGO_NOT_FOUND.match(said):
            message = said
    return render(request, "404.html", {"message": message}, status=404)


def server_error(request):
    """500 (``handler500``): JSON under /api/, elsewhere the site's page, rendered without the request.

    Nothing that may have failed (the database, the session, the cache) is asked
    for: the template gets no request context, as Django's own handler does. A storage
    fault is not a server error: it is the 503 saying to try again (registry/storage.py).
    """
    outage = unhandled_fault(request)
    if outage is not None:
        return outage
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"detail": "The server failed to answer this request; it has been logged. Try again in a moment."},
            status=500,
        )
    return HttpResponseServerError(loader.get_template("500.html").render())
