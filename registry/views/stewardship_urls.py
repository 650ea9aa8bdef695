"""URLs of an SNID's life after approval (included in the registry's URL namespace).

Each step's URL answers GET with its form or confirmation page and POST with the step itself
(``views`` for what stewards ask, ``decisions`` for what editors decide)."""

from django.urls import path

from . import stewardship as views
from . import stewardship_decisions as decisions

urlpatterns = [
    path("urn/<str:snid>/stewardship/", views.stewardship, name="stewardship"),
    path("urn/<str:snid>/stewardship/change/<slug:kind>/", views.change_request, name="stewardship_change"),
    path("urn/<str:snid>/stewardship/invite/", views.steward_invite, name="stewardship_invite"),
    path("urn/<str:snid>/stewardship/orcid/", views.steward_orcid, name="stewardship_orcid"),
    path("urn/<str:snid>/stewardship/name/", views.steward_name, name="stewardship_name"),
    path("urn/<str:snid>/stewardship/add/", decisions.steward_add, name="stewardship_add"),
    path("urn/<str:snid>/stewardship/remove/<int:pk>/", decisions.steward_remove, name="stewardship_remove"),
    path("urn/<str:snid>/stewardship/deprecate/", decisions.deprecate, name="stewardship_deprecate"),
    path("urn/<str:snid>/stewardship/undeprecate/", decisions.undeprecate, name="stewardship_undeprecate"),
    path("review/stewardship/", decisions.stewardship_queue, name="stewardship_queue"),
    path("review/stewardship/change/<int:pk>/", decisions.change_decide, name="stewardship_change_decide"),
    path("review/stewardship/invitation/<int:pk>/", decisions.invitation_decide, name="stewardship_invitation_decide"),
]
