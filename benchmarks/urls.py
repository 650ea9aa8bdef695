from django.http import JsonResponse
from django.urls import include, path


def floor(request):
    """The framework's floor: the cheapest JSON response Django can give."""
    return JsonResponse({"ok": True})


urlpatterns = [
    path("bench/floor/", floor),
    path("", include("registry.urls")),
]
