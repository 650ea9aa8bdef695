from django.urls import path, re_path

from . import resolve as views
from . import resolvers as editor

urlpatterns = [
    path("resolve/", views.resolve_query, name="resolve"),
    path("review/<int:pk>/resolvers/probe/", editor.resolvers_probe, name="resolvers_probe"),
    path("urn/<str:snid>/resolvers/edit/", editor.resolvers_edit, name="resolvers_edit"),
    re_path(r"^(?P<urn>[uU][rR][nN]:[oO][gG][fF]:.*)$", views.resolve_path, name="resolve_path"),
]
