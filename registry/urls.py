"""URL configuration: the site's pages under the ``registry`` namespace, plus the admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("registry.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("registry.views.urls")),
]
