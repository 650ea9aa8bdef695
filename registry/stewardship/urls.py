"""URLs of an SNID's life after approval (included in the registry's URL namespace)."""

from django.urls import path

from . import views

urlpatterns = [
    path("urn/<str:snid>/stewardship/", views.stewardship, name="stewardship"),
    path("urn/<str:snid>/stewardship/change/<slug:kind>/", views.change_request, name="stewardship_change"),
    path("urn/<str:snid>/stewardship/invite/", views.steward_invite, name="stewardship_invite"),
    path("urn/<str:snid>/stewardship/orcid/", views.steward_orcid, name="stewardship_orcid"),
    path("urn/<str:snid>/stewardship/add/", views.steward_add, name="stewardship_add"),
    path("urn/<str:snid>/stewardship/remove/<int:pk>/", views.steward_remove, name="stewardship_remove"),
    path("urn/<str:snid>/stewardship/deprecate/", views.deprecate, name="stewardship_deprecate"),
    path("urn/<str:snid>/stewardship/undeprecate/", views.undeprecate, name="stewardship_undeprecate"),
    path("review/stewardship/", views.stewardship_queue, name="stewardship_queue"),
    path("review/stewardship/change/<int:pk>/", views.change_decide, name="stewardship_change_decide"),
    path("review/stewardship/invitation/<int:pk>/", views.invitation_decide, name="stewardship_invitation_decide"),
]
