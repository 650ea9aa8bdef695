"""URL configuration: the site's pages under the ``registry`` namespace, plus the admin."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.urls import include, path

from .views.accounts import RateLimitedLoginView


def _admin_login(request, extra_context=None):
    """The admin logs in through the site's rate-limited form."""
    return redirect_to_login(request.GET.get("next") or request.path.rsplit("login/", 1)[0])


admin.site.login = _admin_login
admin.site.site_header = "urn:ogf registry administration"

urlpatterns = [
    path("api/", include("registry.api.urls")),
    path(settings.ADMIN_PATH, admin.site.urls),
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("registry.views.urls")),
]
