from django.urls import path, re_path

from . import log as views

urlpatterns = [
    path("log/", views.log_page, name="page"),
    path("log/checkpoint", views.checkpoint, name="checkpoint"),
    path("log/key", views.verifier_key, name="key"),
    re_path(r"^log/tile/(?P<path>[0-9a-z./]{1,80})$", views.tile, name="tile"),
]

def api_urlpatterns():
    """Under /api/ (registry.api.urls); imported late, the DRF views need the API modules."""
    from ..api import log as api

    return [
        path("snids/<str:snid>/versions/<int:version>/proof", api.VersionProof.as_view(), name="snid_version_proof"),
        path("log/consistency/", api.LogConsistency.as_view(), name="log_consistency"),
        path("log/entries/<int:index>/proof", api.EntryProof.as_view(), name="log_entry_proof"),
    ]
