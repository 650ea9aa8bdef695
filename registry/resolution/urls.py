from django.urls import path, re_path

from . import views

urlpatterns = [
    path("resolve/", views.resolve_query, name="resolve"),
    path("api/resolve/", views.resolve_api, name="resolve_api"),
    re_path(r"^(?P<urn>[uU][rR][nN]:[oO][gG][fF]:.*)$", views.resolve_path, name="resolve_path"),
]
