"""Every API error is JSON with a ``detail`` a developer can act on."""

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework.exceptions import ValidationError
from rest_framework.views import exception_handler as drf_exception_handler

from ..errors import Conflict, NotAllowed, ServiceError


def exception_handler(exc, context):
    if isinstance(exc, ServiceError):
        status = 403 if isinstance(exc, NotAllowed) else 409 if isinstance(exc, Conflict) else 400
        return JsonResponse({"detail": exc.message}, status=status)
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, ValidationError):
        response.data = {"detail": _flatten(exc.detail)}  # one documented shape for every error
    return response


def _flatten(detail, prefix: str = "") -> str:
    if isinstance(detail, dict):
        return "; ".join(_flatten(value, f"{prefix}{key}: ") for key, value in detail.items())
    if isinstance(detail, list):
        return "; ".join(_flatten(item, prefix) for item in detail)
    return f"{prefix}{detail}"


@csrf_exempt  # it only ever answers 404; a POST to an unknown path must not meet the CSRF page
def not_found(request, *args, **kwargs):
    """JSON 404 for any path under /api/ that is not an endpoint."""
    return JsonResponse({"detail": f"There is no API endpoint at {request.path}; see /api/docs/."}, status=404)


def bad_request(request, exception=None):
    """Django's 400 (and 413 for a body past its limit) as JSON for API paths."""
    from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
    from django.views.defaults import bad_request as page

    if not request.path.startswith("/api/"):
        return page(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return JsonResponse(
            {"detail": "The request body is larger than this endpoint accepts; see /api/docs/ for the limits."},
            status=413,
        )
    if isinstance(exception, TooManyFieldsSent):
        return JsonResponse({"detail": "The request has too many fields."}, status=400)
    return JsonResponse({"detail": "The request could not be read (malformed or refused by the server)."}, status=400)
