"""The resolver endpoint: ``/urn:ogf:<snid>:<nss>``, ``/resolve/?urn=`` and ``/api/resolve/?urn=``.

Redirects and JSON answers carry an ETag tied to the registry stamp (like the lookup)
and the request (path, and the Accept header when resolvers declare media types), so
caches and clients revalidate cheaply. A GET never changes anything.
"""

from __future__ import annotations

import orjson
from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe

from .. import fairshare, sandbox
from ..lookup import registry_index
from ..models import Namespace
from ..resolution.models import ResolverStatus
from ..resolution.resolve import Outcome, resolve
from ..resolving.expand import urls_for, urls_grouped
from ..selectors import snid_suggestions
from ..stewardship.selectors import current_with_overlay
from .http import CACHE_CONTROL, etag_of, not_modified

MISSING = "Give the URN to resolve as ?urn=urn:ogf:<snid>:<string>."


def _wants_json(request) -> bool:
    return wants_json(request.META.get("HTTP_ACCEPT", ""))


def wants_json(accept: str) -> bool:
    if "application/json" not in accept:
        return False
    return accept.find("application/json") < accept.find("text/html") if "text/html" in accept else True


def _landing_details(outcome: Outcome) -> dict:
    """What the landing page adds for a registered SNID: public contact, 3.2 text, status."""
    answer = outcome.answer
    snid = answer.get("snid") or ""
    namespace = Namespace.objects.by_snid(snid).select_related("current").first() if answer.get("registered") else None
    if namespace is None or namespace.current is None:
        errors = answer.get("errors") or []
        details = {
            "suggestions": snid_suggestions(snid) if snid else [],
            # The lookup's sentence already says the SNID is not registered (or reserved): once.
            "registered_said": any("registered SNID" in e or "is reserved" in e for e in errors),
        }
    else:
        current = current_with_overlay(namespace)  # the contact in force (a steward may have changed it)
        details = {
            "contact": current.registrant_public_contact,
            "resolution": (current.sections or {}).get("resolution", ""),
            "down": bool(outcome.targets) and all(t.status == ResolverStatus.DOWN for t, _url, _p in outcome.targets),
        }
    return details


def etag_input(full_path: str, accept: str, varies: bool) -> str:
    """What a resolution's ETag is made of (with the registry stamp): the request, and the
    Accept header where the answer depends on it."""
    return f"{full_path}\n{accept if varies else ''}\n{wants_json(accept)}"


def _json(outcome: Outcome, status: int, extra: dict | None = None) -> HttpResponse:
    body = {**outcome.answer, "location": outcome.location or None, **(extra or {})}
    response = HttpResponse(orjson.dumps(body), status=status, content_type="application/json")
    response["Access-Control-Allow-Origin"] = "*"
    return response


class Busy(Exception):
    """The bounded resolution of this process is taken: answer 503 with Retry-After, at once."""


#: Resolutions of a resolver set over the budget run in the bounded worker one at a time per web
#: process, in the heavy requests' share of its threads (registry/fairshare.py): the rest are
#: told to come back (503, Retry-After), and pages and other resolutions are never held up.
BOUNDED_AT_ONCE = 1
RETRY_AFTER_SECONDS = 5


def urls_bounded(pairs, normalized: str, nss: str) -> list[tuple[str, str]]:
    """``resolve``'s ``slow``: fill the templates of a set measured over the resolution budget (an
    editor approved it over the failing check) in the bounded worker, within
    ``REGISTRY_RESOLVE_JOB_SECONDS`` of CPU time; past it, the templates naming rules stay unfilled
    and say why (the landing page answers). Raises Busy when this process's one bounded
    resolution is taken."""
    with fairshare.slots.hold("resolve:bounded", BOUNDED_AT_ONCE, settings.REGISTRY_HEAVY_PER_PROCESS) as granted:
        if not granted:
            raise Busy
        seconds = settings.REGISTRY_RESOLVE_JOB_SECONDS
        try:
            return sandbox.run_bounded(urls_grouped, pairs, normalized, nss, what="resolution", seconds=seconds)
        except sandbox.BudgetExceeded as exc:
            why = (
                f"The values of this resolver's placeholders could not be worked out within the {seconds * 1000:g} "
                "ms of CPU time the registry gives one URN of this SNID (its resolvers were approved over "
                "the resolution budget)."
                if not exc.fault
                else exc.message
            )
            return [
                urls_for([template], None, normalized, nss)[0] if not program else ("", why)
                for template, program in pairs
            ]


def _busy(request, api: bool) -> HttpResponse:
    message = (
        "This SNID's resolvers are costly to fill (an editor approved them over the registry's "
        "budget per URN), so its URNs are resolved one at a time, and one is being resolved now. "
        f"Try again in {RETRY_AFTER_SECONDS} seconds."
    )
    if api or _wants_json(request):
        response = HttpResponse(orjson.dumps({"detail": message}), status=503, content_type="application/json")
        response["Access-Control-Allow-Origin"] = "*"
    else:
        steps = [
            {"url": request.get_full_path(), "label": "Try again", "note": f"in {RETRY_AFTER_SECONDS} seconds or so"}
        ]
        response = render(
            request, "503.html", {"message": message, "title": "Busy resolving this SNID", "steps": steps}, status=503
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def _answer(request, text: str | None, *, provider: str, api: bool) -> HttpResponse:
    if not text:
        response = HttpResponse(orjson.dumps({"detail": MISSING}), status=400, content_type="application/json")
        response["Access-Control-Allow-Origin"] = "*"
        return response
    index = registry_index()
    accept = request.META.get("HTTP_ACCEPT", "")
    try:
        outcome = resolve(text, provider=provider, accept=accept, index=index, slow=urls_bounded)
    except Busy:
        return _busy(request, api)
    html = not api and outcome.kind != "redirect" and not _wants_json(request)
    # A page rendered for a signed-in person shows their name (and a CSRF token): never shared.
    personal = html and request.user.is_authenticated
    cacheable = outcome.kind in ("redirect", "landing", "unknown", "invalid") and not personal
    etag = etag_of(index, etag_input(request.get_full_path(), accept, outcome.negotiated or api))
    if cacheable and (response := not_modified(request, etag)):
        response["Vary"] = "Accept, Cookie" if html else "Accept"
        return response
    if api and outcome.kind == "not-urn":
        response = HttpResponse(
            orjson.dumps({"detail": outcome.answer["errors"][0]}), status=400, content_type="application/json"
        )
        response["Access-Control-Allow-Origin"] = "*"
    elif api:
        response = _json(outcome, 200)
    elif outcome.kind == "redirect":
        response = HttpResponse(status=outcome.status)
        response["Location"] = outcome.location
    elif _wants_json(request):
        response = _json(outcome, outcome.status, _landing_details(outcome))
    else:
        context = {"answer": outcome.answer, "outcome": outcome, "tried": text, **_landing_details(outcome)}
        response = render(request, "registry/resolution/landing.html", context, status=outcome.status)
    if cacheable:
        response["ETag"] = etag
        response["Cache-Control"] = CACHE_CONTROL
    elif personal:
        response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Accept"
    if html:
        patch_vary_headers(response, ["Cookie"])
    return response


@require_safe
def resolve_path(request, urn: str):
    """``GET /urn:ogf:<snid>:<nss>``: the URN is the path (an RFC 8141 ?+/?= part its query)."""
    raw = request.META.get("RAW_URI") or request.META.get("REQUEST_URI") or ""
    path = raw.split("?", 1)[0][1:] if raw.startswith("/") else urn
    query = request.META.get("QUERY_STRING", "")
    provider = ""
    if query.startswith(("+", "=")):
        path += "?" + query
    else:
        provider = request.GET.get("provider", "")
    return _answer(request, path, provider=provider, api=False)


@require_safe
def resolve_query(request):
    if "urn" not in request.GET and not _wants_json(request):
        return render(request, "registry/resolution/form.html")
    return _answer(request, request.GET.get("urn", ""), provider=request.GET.get("provider", ""), api=False)


def answer_for(request, *, api: bool) -> HttpResponse:
    return _answer(request, request.GET.get("urn", ""), provider=request.GET.get("provider", ""), api=api)


__all__ = ["answer_for", "resolve_path", "resolve_query"]
