from django.urls import path

from . import pages

app_name = "registry"

urlpatterns = [
    path("", pages.home, name="home"),
    path("urn/", pages.namespace_list, name="namespace_list"),
    path("urn/<str:snid>/", pages.namespace_detail, name="namespace_detail"),
    path("proposals/<int:pk>/", pages.proposal_detail, name="proposal_detail"),
]
