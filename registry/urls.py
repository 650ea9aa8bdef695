"""URL configuration: the site's pages under the ``registry`` namespace, plus the admin."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import render
from django.urls import include, path

from .views import accounts


def _admin_login(request, extra_context=None):
    """The admin logs in through the site's rate-limited form.

    A signed-in account without staff status would be sent to that form again and again;
    it is told instead why the admin is closed to it and what gives access.
    """
    if request.user.is_authenticated:
        return render(
            request,
            "403.html",
            {
                "title": "The admin is for staff accounts",
                "message": (
                    f"You are signed in as {request.user.get_username()}, which is not a staff account, "
                    "so the admin (a read-mostly view of the records) is closed to it. An administrator "
                    "can open it to a GFD editor with “python manage.py make_editor "
                    f"{request.user.get_username()} --staff”; everything editors do is on the review "
                    "pages."
                ),
                "steps": [{"url": "/review/", "label": "Go to the review queue", "note": "if you are a GFD editor"}],
            },
            status=403,
        )
    return redirect_to_login(request.GET.get("next") or request.path.rsplit("login/", 1)[0])


admin.site.login = _admin_login
admin.site.site_header = "urn:ogf registry administration"
admin.site.site_title = "urn:ogf registry admin"

urlpatterns = [
    path("", include(("registry.views.resolve_urls", "resolution"))),  # /urn:ogf:..., /resolve/
    path("api/", include("registry.api.urls")),
    path(settings.ADMIN_PATH, admin.site.urls),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/password_reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/reset/<uidb64>/<token>/", accounts.PasswordResetConfirmView.as_view(), name="password_reset_confirm"
    ),
    path("accounts/", include("django.contrib.auth.urls")),
    # Sign-in with ORCID / OpenID Connect (registry.identity): allauth's social views only, and the names
    # allauth links to, given to the registry's own account pages.
    path("accounts/social/", include("allauth.socialaccount.urls")),
    path("accounts/social/", include("allauth.socialaccount.providers.openid_connect.urls")),
    path("accounts/login/", accounts.LoginView.as_view(), name="account_login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="account_logout"),
    path("accounts/signup/", accounts.signup, name="account_signup"),
    path("accounts/inactive/", accounts.account_inactive, name="account_inactive"),
    path("", include(("registry.views.log_urls", "log"))),  # /log/: the transparency log
    path("", include("registry.views.urls")),
]

#: A request Django itself refuses (a body past DATA_UPLOAD_MAX_MEMORY_SIZE sent without a
#: Content-Length, too many fields, a bad Host): JSON under /api/, the usual page elsewhere.
handler400 = "registry.api.errors.bad_request"
#: Not found and server errors: the site's own pages (JSON for a server error under /api/); a
#: storage fault (the database lost, a full disk) raised in a middleware or a template is a 503
#: with Retry-After, like one raised in a view (registry/storage.py).
handler404 = "registry.views.errors.page_not_found"
handler500 = "registry.views.errors.server_error"
