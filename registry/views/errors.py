"""Error pages for people: what went wrong and what they can do next.

``templates/403.html``, ``404.html`` and ``409.html`` extend the site layout.
Django renders the first two for ``PermissionDenied`` and ``Http404`` (the
exception's message becomes the page's explanation); views that know more
call ``error_page`` with a title, the explanation and the next steps (links,
or one-button forms such as "pull it back to draft").
"""

from __future__ import annotations

from dataclasses import dataclass

from django.shortcuts import render


@dataclass(frozen=True)
class NextStep:
    """A link (GET) or, with ``post``, a one-button form."""

    label: str
    url: str
    post: bool = False
    note: str = ""


def error_page(request, status: int, title: str, message: str, steps=(), *, context=None):
    return render(request, f"{status}.html",
                  {"title": title, "message": message, "steps": list(steps), **(context or {})}, status=status)


def forbidden(request, message: str, steps=()):
    return error_page(request, 403, "You cannot do this here", message, steps)


def conflict(request, message: str, steps=()):
    return error_page(request, 409, "This proposal has moved on", message, steps)
