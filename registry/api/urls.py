from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from . import docs_ui, log, views
from .errors import not_found
from .index import api_index
from .resolve import ResolveApi

app_name = "api"

urlpatterns = [
    # The hot endpoints first: URL resolution tries patterns in order.
    path("lookup/", views.Lookup.as_view(), name="lookup"),
    path("", api_index, name="index"),  # registry/api/index.py: a page for browsers, JSON for clients
    path("validate/", views.Validate.as_view(), name="validate"),
    path("resolve/", ResolveApi.as_view(), name="resolve"),  # registry/api/resolve.py
    path("snids/", views.SnidList.as_view(), name="snid_list"),
    path("snids/<str:snid>/", views.SnidDetail.as_view(), name="snid_detail"),
    path("snids/<str:snid>/versions/<int:version>/", views.SnidVersion.as_view(), name="snid_version"),
    # The transparency log's proofs (registry/api/log.py, answered by registry/views/log.py).
    path("snids/<str:snid>/versions/<int:version>/proof", log.VersionProof.as_view(), name="snid_version_proof"),
    path("log/consistency/", log.LogConsistency.as_view(), name="log_consistency"),
    path("log/entries/<int:index>/proof", log.EntryProof.as_view(), name="log_entry_proof"),
    path("proposals/", views.ProposalList.as_view(), name="proposal_list"),
    path("proposals/<int:pk>/", views.ProposalDetail.as_view(), name="proposal_detail"),
    path("proposals/<int:pk>/actions/<str:action>/", views.ProposalAction.as_view(), name="proposal_action"),
    path("proposals/<int:pk>/judgements/", views.ProposalJudgements.as_view(), name="proposal_judgements"),
    path("review/", views.ReviewQueue.as_view(), name="review_queue"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
    path("redoc/redoc.standalone.js", docs_ui.redoc_bundle, name="redoc_bundle"),
    re_path(r"^[\s\S]*$", not_found),  # any path, an encoded newline included, is a JSON 404
]
