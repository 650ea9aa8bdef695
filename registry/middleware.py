"""Security headers Django does not set itself: a strict Content-Security-Policy and a
Permissions-Policy. Every script, style and image comes from this site; the only
exceptions are the API documentation pages, whose bundled Swagger UI and ReDoc
(served locally) configure themselves with inline script."""

from __future__ import annotations

STRICT = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
          "form-action 'self'; frame-ancestors 'none'")
API_DOCS = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; object-src 'none'; "
            "base-uri 'self'; frame-ancestors 'none'")
PERMISSIONS = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"
API_DOC_PATHS = ("/api/docs/", "/api/redoc/")


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        policy = API_DOCS if request.path.startswith(API_DOC_PATHS) else STRICT
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS)
        return response
