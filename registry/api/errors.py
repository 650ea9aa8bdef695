"""Every API error is JSON with a ``detail`` a developer can act on."""

from django.http import JsonResponse
from rest_framework.views import exception_handler as drf_exception_handler

from ..services import Conflict, NotAllowed, ServiceError


def exception_handler(exc, context):
    if isinstance(exc, ServiceError):
        status = 403 if isinstance(exc, NotAllowed) else 409 if isinstance(exc, Conflict) else 400
        return JsonResponse({"detail": exc.message}, status=status)
    return drf_exception_handler(exc, context)


def not_found(request, *args, **kwargs):
    """JSON 404 for any path under /api/ that is not an endpoint."""
    return JsonResponse({"detail": f"There is no API endpoint at {request.path}; see /api/docs/."},
                        status=404)
