"""The API documentation pages (Swagger UI, ReDoc) as this site serves them: local, and within its CSP.

Both UIs come from ``drf-spectacular-sidecar`` and are served from here, never
from a CDN. ReDoc's bundle draws a "Redocly" logo from ``cdn.redoc.ly`` in its
menu, which the Content-Security-Policy refuses (a console error on every
visit); the bundle is served with that one address replaced by an empty
``data:`` image, which the img-src policy allows and ReDoc then leaves out
(it hides the logo when the image fails). The templates that load them live in
``templates/drf_spectacular/``; ``static/registry/api-docs.css`` corrects what
axe-core finds against WCAG 2.2 AA in the two UIs.
"""

from __future__ import annotations

from functools import lru_cache

from django.contrib.staticfiles import finders
from django.http import HttpResponse

REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
REMOTE_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@lru_cache(maxsize=1)
def _redoc_source() -> bytes:
    path = finders.find(REDOC_BUNDLE)
    with open(path, "rb") as bundle:
        return bundle.read().replace(REMOTE_LOGO.encode(), b"data:,")


def redoc_bundle(request):
    response = HttpResponse(_redoc_source(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "public, max-age=86400"
    return response


def open_operations_name_no_security(result, generator, request, public):
    """drf-spectacular's post-processing hook: an operation anyone may call carries no ``security``.

    drf-spectacular writes ``security: [{}]`` ("no credentials needed") on every endpoint without
    authentication classes; ReDoc shows that as "Authorizations: None" on each public operation.
    With no top-level ``security`` in the schema, an operation without the key needs no credentials
    either: the same meaning, and nothing to print.
    """
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and operation.get("security") == [{}]:
                del operation["security"]
    return result
