from django.urls import path, re_path

from ..lookup import SNID_PAGE_ROUTE
from . import (
    account,
    accounts,
    help,
    identity,
    imports,
    proposals,
    public,
    reservations,
    review,
    review_decide,
    threads,
)
from .stewardship_urls import urlpatterns as stewardship_urlpatterns

app_name = "registry"

urlpatterns = [
    path("", proposals.home, name="home"),
    path("favicon.ico", public.favicon, name="favicon"),
    # the public registry
    path("urn/", public.namespace_list, name="namespace_list"),
    path("urn/search/", public.urn_search, name="urn_search"),
    path("urn/feed.atom", public.registry_feed, name="feed"),
    re_path(r"^urn/registry\.(?P<fmt>json|csv|xml)$", public.registry_export, name="registry_export"),
    path("urn/registry-full.json", public.registry_full_export, name="registry_full_export"),
    *stewardship_urlpatterns,
    path(SNID_PAGE_ROUTE, public.namespace_detail, name="namespace_detail"),
    path("urn/<str:snid>/diff/", public.namespace_diff, name="namespace_diff"),
    path("urn/<str:snid>/<int:version>/", public.namespace_detail, name="namespace_version"),
    re_path(
        r"^urn/(?P<snid>[^/]+)/(?P<version>\d+)/registration\.(?P<fmt>md|txt)$",
        public.namespace_document,
        name="namespace_document",
    ),
    # the documentation, for people without the source
    path("help/", help.help_index, name="help_index"),
    path("help/<slug:slug>/", help.help_page, name="help_page"),
    # applicants
    path("accounts/", account.account, name="account"),
    path("accounts/name/", account.account_name, name="account_name"),
    path("accounts/address/", account.account_address, name="account_address"),
    path("accounts/address/<str:token>/", account.account_address_confirm, name="account_address_confirm"),
    path("accounts/data.json", account.account_data, name="account_data"),
    path("accounts/close/", account.account_close, name="account_close"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/signup/sent/", accounts.signup_sent, name="signup_sent"),
    path("accounts/confirm/again/", accounts.signup_confirm_again, name="signup_confirm_again"),
    path("accounts/identities/", identity.identities, name="identities"),
    path("accounts/confirm/<str:uidb64>/<str:token>/", accounts.signup_confirm, name="signup_confirm"),
    path("proposals/", proposals.my_proposals, name="proposal_list"),
    path("proposals/new/", proposals.proposal_new, name="proposal_new"),
    path("proposals/import/", imports.proposal_import, name="proposal_import"),
    path("proposals/import/create/", imports.proposal_import_create, name="proposal_import_create"),
    path("proposals/<int:pk>/", proposals.proposal_detail, name="proposal_detail"),
    path("proposals/<int:pk>/edit/", proposals.proposal_edit, name="proposal_edit"),
    path("proposals/<int:pk>/edit/diagrams/", proposals.proposal_diagrams, name="proposal_diagrams"),
    path("proposals/<int:pk>/check/", proposals.proposal_check, name="proposal_check"),
    re_path(r"^proposals/(?P<pk>\d+)/export\.(?P<fmt>md|txt)$", proposals.proposal_export, name="proposal_export"),
    path("proposals/<int:pk>/reserve/", proposals.reservation_request, name="proposal_reserve"),
    re_path(
        r"^proposals/(?P<pk>\d+)/(?P<action>submit|withdraw|pull_back)/$",
        proposals.proposal_action,
        name="proposal_action",
    ),
    # the review conversation (applicant and editors)
    path("threads/<int:pk>/reply/", threads.thread_reply, name="thread_reply"),
    path("threads/<int:pk>/resolve/", threads.thread_resolve, name="thread_resolve"),
    path("threads/<int:pk>/reopen/", threads.thread_reopen, name="thread_reopen"),
    # GFD editors
    path("review/", review.review_queue, name="review_queue"),
    path("review/reservations/", reservations.reservations, name="review_reservations"),
    path("review/reservations/act/", reservations.reservation_action, name="review_reservation_action"),
    path("review/snid/<str:snid>/", review.snid_history, name="review_snid_history"),
    path("review/<int:pk>/", review.review_detail, name="review_detail"),
    path("review/<int:pk>/diagrams/", review.review_diagrams, name="review_diagrams"),
    path("review/<int:pk>/diff/", review.review_diff, name="review_diff"),
    path("review/<int:pk>/decide/", review_decide.review_decide, name="review_decide"),
    path("review/<int:pk>/comment/", review.review_comment, name="review_comment"),
    path("review/<int:pk>/judgement/", review.review_judgement, name="review_judgement"),
]
