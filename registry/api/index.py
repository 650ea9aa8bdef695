"""``/api/``: what the API offers, for a person in a browser (an HTML page) and for a client (JSON).

The endpoints are listed once here, as data; the page and the JSON index both read the list, and the
documentation (``/api/docs/``, the OpenAPI schema) says the rest. A browser asks for HTML in its Accept
header; anything else (``*/*``, ``application/json``, no header) gets JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    what: str
    #: Who may call it ("" for anyone).
    who: str = ""
    #: A URL a reader may open as is (a GET with an example), or "" where the endpoint needs more.
    example: str = ""


EXAMPLE_URN = "urn:ogf:example:cluster:2009:example.net:42"

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("GET", "/api/lookup/?urn=…", "Is this URN valid, and what is its normal form?", example="lookup"),
    Endpoint("POST", "/api/validate/", "Look up many URNs at once (a JSON list in the body)."),
    Endpoint("GET", "/api/resolve/?urn=…", "Where a URN resolves: each resolver's URL and health.", example="resolve"),
    Endpoint("GET", "/api/snids/", "Every registered and reserved SNID, a page at a time.", example="snids"),
    Endpoint("GET", "/api/snids/{snid}/", "One SNID: its current version, versions, deprecation and resolvers."),
    Endpoint("GET", "/api/snids/{snid}/versions/{n}/", "One approved version, exactly as approved."),
    Endpoint("GET", "/api/snids/{snid}/versions/{n}/proof", "A version's transparency-log entry and its proof."),
    Endpoint("GET", "/api/log/consistency/?first=…", "Proof that the log only grew since a size you checked."),
    Endpoint("GET", "/api/log/entries/{index}/proof", "Any log entry, as logged, with its inclusion proof."),
    Endpoint("GET", "/api/proposals/", "Your proposals.", who="signed-in applicants"),
    Endpoint("GET", "/api/proposals/{id}/", "One of your proposals, whole.", who="signed-in applicants"),
    Endpoint("POST", "/api/proposals/{id}/actions/{action}/", "Submit, withdraw and more.", who="signed-in applicants"),
    Endpoint(
        "POST", "/api/proposals/{id}/judgements/", "Record the editor's judgements of GFD.191 §5.", who="GFD editors"
    ),
    Endpoint("GET", "/api/review/", "The proposals waiting for review.", who="GFD editors"),
)


def _example(name: str) -> str:
    query = f"?urn={EXAMPLE_URN}"
    return {
        "lookup": reverse("api:lookup") + query,
        "resolve": reverse("api:resolve") + query,
        "snids": reverse("api:snid_list"),
    }.get(name, "")


def api_index(request):
    """The HTML page for a browser, the JSON index for a client (``Vary: Accept``)."""
    endpoints = [
        {"method": e.method, "path": e.path, "what": e.what, "who": e.who, "example": _example(e.example)}
        for e in ENDPOINTS
    ]
    docs, schema = reverse("api:docs"), reverse("api:schema")
    if request.get_preferred_type(["application/json", "text/html"]) == "text/html":
        context = {"endpoints": endpoints, "docs": docs, "schema": schema, "redoc": reverse("api:redoc")}
        response = render(request, "registry/api/index.html", context)
    else:
        site = settings.SITE_URL  # absolute, from the one configured site URL, never the request's host
        response = JsonResponse(
            {
                "api": "urn:ogf registry",
                "docs": site + docs,
                "schema": site + schema,
                "endpoints": [
                    {
                        "method": e["method"],
                        "path": e["path"],
                        "what": e["what"],
                        **({"who": e["who"]} if e["who"] else {}),
                        **({"example": site + e["example"]} if e["example"] else {}),
                    }
                    for e in endpoints
                ],
            },
            json_dumps_params={"ensure_ascii": False},
        )
    patch_vary_headers(response, ["Accept"])
    patch_cache_control(response, public=True, max_age=300)
    return response
