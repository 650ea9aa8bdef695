from django.urls import path, re_path

from . import pages, public

app_name = "registry"

urlpatterns = [
    path("", pages.home, name="home"),
    path("urn/", public.namespace_list, name="namespace_list"),
    path("urn/search/", public.urn_search, name="urn_search"),
    path("urn/feed.atom", public.RegistryFeed(), name="feed"),
    re_path(r"^urn/registry\.(?P<fmt>json|csv|xml)$", public.registry_export, name="registry_export"),
    path("urn/<str:snid>/", public.namespace_detail, name="namespace_detail"),
    path("urn/<str:snid>/diff/", public.namespace_diff, name="namespace_diff"),
    path("urn/<str:snid>/<int:version>/", public.namespace_detail, name="namespace_version"),
    path("proposals/<int:pk>/", pages.proposal_detail, name="proposal_detail"),
]
