"""Accounts: log-in limits (django-axes), sign-up and password reset, each throttled.

Log-in: failed attempts count per (account, client address) and per client address
(settings.LOGIN_FAILURE_LIMIT and LOGIN_ADDRESS_FAILURE_LIMIT within LOGIN_FAILURE_WINDOW),
so guesses from elsewhere never lock the owner out. Usernames are counted normalised
(case and surrounding space ignored). A successful log-in clears its own (account, address)
count; a completed password reset clears every count of the account.

Sign-up and reset mails are limited per client address and per e-mail address; the reset
page answers the same, in the same time, whether or not an account has the address.
"""

from __future__ import annotations

import time

from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.cache import cache
from django.db.models import Sum
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlsafe_base64_decode

from .. import rules
from ..accounts.services import signup_confirm as signup_confirmed
from ..accounts.services import signup_link_again, signup_links_resend, signup_register
from ..forms import SignUpForm
from ..forms.accounts import LogInForm
from ..middleware import client_address

# --- log-in limits --------------------------------------------------------------------------


def normalise_username(username: str | None) -> str:
    return (username or "").strip().casefold()[:150]


def login_username(request, credentials) -> str:
    """AXES_USERNAME_CALLABLE: ``ED2`` and ``" ed2 "`` count against one account."""
    username = (credentials or {}).get("username")
    if username is None and request is not None:
        username = request.POST.get("username")
    return normalise_username(username)


class LoginLimitHandler(AxesDatabaseHandler):
    """axes' database handler with two limits instead of one.

    axes compares one number with AXES_FAILURE_LIMIT (the per-account limit); the per-address
    count is scaled to it, so 50 failures from one address weigh as much as 5 for one
    account from one address. ``request.login_block`` says which limit was reached.
    """

    def get_failures(self, request, credentials=None) -> int:
        account, address = (
            attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        pair_limit, address_limit = settings.LOGIN_FAILURE_LIMIT, settings.LOGIN_ADDRESS_FAILURE_LIMIT
        scaled = address * pair_limit // address_limit
        if request is not None:
            request.login_block = "address" if scaled >= pair_limit and scaled >= account else "account"
        return max(account, scaled)

    def user_logged_in(self, sender, request, user, **kwargs):
        super().user_logged_in(sender, request, user, **kwargs)
        # Only this account from this address: a log-in to one's own account must not wipe
        # the address's count of guesses at other accounts.
        AccessAttempt.objects.filter(
            username=normalise_username(user.get_username()), ip_address=client_address(request)
        ).delete()


def _minutes(seconds: int) -> str:
    minutes = max(1, round(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def lockout_message(block: str) -> str:
    window = _minutes(settings.LOGIN_FAILURE_WINDOW)
    if block == "address":
        return (
            f"Too many failed log-in attempts from your network address "
            f"({settings.LOGIN_ADDRESS_FAILURE_LIMIT} in {window}). Log-ins from this address "
            f"are paused for {window} after the last failed attempt; nothing was checked."
        )
    return (
        f"Too many failed log-in attempts for this account from your network address "
        f"({settings.LOGIN_FAILURE_LIMIT} in {window}). Try again in {window}, or reset your "
        f"password by e-mail: a completed reset lifts the block at once. Log-ins from other "
        f"addresses are not affected."
    )


def lockout_response(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: the log-in page again, with the reason, as 429."""
    form = AuthenticationForm(request, data=None, initial={"username": (credentials or {}).get("username", "")})
    form.is_bound = False
    response = render(
        request,
        "registration/login.html",
        {
            "form": form,
            "lockout": lockout_message(getattr(request, "login_block", "account")),
            "next": request.POST.get("next", ""),
        },
        status=429,
    )
    response["Retry-After"] = str(settings.LOGIN_FAILURE_WINDOW)
    return response


class LoginView(auth_views.LoginView):
    """Django's log-in page; the limits live in the authentication backend (axes).

    With no page to return to, a GFD editor lands on the review queue, where their work is;
    everyone else on their proposals. The right password on a sign-up whose address is not confirmed
    yet offers a new confirmation link (``signup_confirm_again``), remembered in the session only.
    """

    form_class = LogInForm

    def form_invalid(self, form):
        unconfirmed = getattr(self.request, "unconfirmed_signup", None)
        if unconfirmed is not None and form.has_error("__all__", "unconfirmed"):
            self.request.session["unconfirmed_signup"] = unconfirmed
        return self.render_to_response(self.get_context_data(form=form, confirm_again=unconfirmed is not None))

    def get_default_redirect_url(self):
        if rules.is_editor(self.request.user):
            return reverse("registry:review_queue")
        return super().get_default_redirect_url()


# --- throttles for mails and accounts ------------------------------------------------------


def rate_exceeded(scope: str, key: str, limit: int, window: int | None = None) -> bool:
    """Count one more use of ``scope`` by ``key``; True once more than ``limit`` in ``window``."""
    window = window or settings.ACCOUNT_RATE_WINDOW
    cache_key = f"registry:rate:{scope}:{key}"
    if cache.add(cache_key, 1, window):
        return limit < 1
    try:
        return cache.incr(cache_key) > limit
    except ValueError:  # expired between add and incr
        cache.set(cache_key, 1, window)
        return limit < 1


def _too_many(request, template: str, form, what: str):
    form.add_error(None, f"Too many {what} from your network address or for this e-mail address. Try again in an hour.")
    response = render(request, template, {"form": form}, status=429)
    response["Retry-After"] = str(settings.ACCOUNT_RATE_WINDOW)
    return response


class SignupTokenGenerator(PasswordResetTokenGenerator):
    """Confirmation links: their own salt, so a password-reset link never confirms an account (nor the
    reverse); a link stops working once the account has signed in (the hash covers the last log-in)."""

    key_salt = "registry.views.accounts.SignupTokenGenerator"


signup_tokens = SignupTokenGenerator()


def signup(request):
    """A new account is created inactive and a confirmation link is mailed to it.

    Every valid sign-up gets the same answer ("we sent you a link"), after the same work, whether
    the user name or the address was free or not (registry.accounts.services.signup_register): the
    form tells nobody which accounts exist, and neither does the time it takes.
    """
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        email = (request.POST.get("email") or "").strip().casefold()
        if rate_exceeded("signup-addr", client_address(request), settings.SIGNUP_RATE_PER_ADDRESS) or (
            email and rate_exceeded("signup-mail", email, settings.SIGNUP_RATE_PER_ADDRESS)
        ):
            return _too_many(request, "registration/signup.html", form, "sign-ups")
        if form.is_valid():
            address = form.cleaned_data["email"]
            signup_register(
                form.cleaned_data["username"], address, form.cleaned_data["password1"], tokens=signup_tokens
            )
            request.session["signup_address"] = address
            request.session.pop("signup_again", None)
            return redirect("registry:signup_sent")
    return render(request, "registration/signup.html", {"form": form})


def signup_confirm_again(request):
    """POST from the log-in page, after the right password on an unconfirmed sign-up: a new link to the
    account's own address, limited per client address and per account."""
    if request.method != "POST":
        return redirect("login")
    pk = request.session.get("unconfirmed_signup")
    user = get_user_model().objects.select_related("account").filter(pk=pk).first() if pk else None
    if user is None:
        messages.error(request, "Log in with the account's user name and password first; then ask for a new link.")
        return redirect("login")
    if rate_exceeded("confirm-again-addr", client_address(request), settings.SIGNUP_RATE_PER_ADDRESS) or (
        rate_exceeded("confirm-again-account", str(user.pk), settings.PASSWORD_RESET_RATE_PER_EMAIL)
    ):
        response = render(
            request,
            "registration/login.html",
            {
                "form": LogInForm(request),
                "lockout": "Too many new confirmation links were asked for from your network address or for "
                "this account. The last one is on its way; try again in an hour.",
            },
            status=429,
        )
        response["Retry-After"] = str(settings.ACCOUNT_RATE_WINDOW)
        return response
    signup_link_again(user, tokens=signup_tokens)
    del request.session["unconfirmed_signup"]
    request.session["signup_address"] = user.email
    request.session["signup_again"] = True
    return redirect("registry:signup_sent")


def signup_sent(request):
    context = {"address": request.session.get("signup_address", ""), "again": request.session.get("signup_again")}
    return render(request, "registration/signup_sent.html", context)


def signup_confirm(request, uidb64, token):
    """GET shows a button (a GET never changes anything: mail scanners follow links); POST confirms."""
    try:
        user = get_user_model().objects.get(pk=int(urlsafe_base64_decode(uidb64).decode()))
    except (ValueError, TypeError, OverflowError, get_user_model().DoesNotExist):
        user = None
    valid = (
        user is not None and not user.is_active and user.last_login is None and signup_tokens.check_token(user, token)
    )
    if not valid:
        return render(request, "registration/signup_confirm.html", {"valid": False}, status=400)
    if request.method == "POST":
        signup_confirmed(user)
        login(request, user, backend="registry.accounts.names.FoldedNameBackend")
        messages.success(
            request, f"Welcome, {user.get_username()}: your address is confirmed. Start your first proposal below."
        )
        return redirect("registry:proposal_new")
    # "account", not "user": the template's ``user`` is the visitor (the header), who is not signed in yet.
    return render(request, "registration/signup_confirm.html", {"valid": True, "account": user})


class PasswordResetView(auth_views.PasswordResetView):
    """Reset mails: limited per address and per e-mail; links use settings.SITE_URL.

    Known and unknown addresses get the same page, and no answer comes sooner than
    PASSWORD_RESET_MIN_SECONDS, so its timing does not tell them apart either. An address whose
    sign-up was never confirmed gets a fresh confirmation link instead (Django mails active accounts only).
    """

    form_class = PasswordResetForm

    def post(self, request, *args, **kwargs):
        started = time.monotonic()
        form = self.get_form()
        email = (request.POST.get("email") or "").strip().casefold()
        if rate_exceeded("reset-addr", client_address(request), settings.PASSWORD_RESET_RATE_PER_ADDRESS):
            return _too_many(request, self.template_name, form, "password-reset requests")
        if form.is_valid() and rate_exceeded("reset-mail", email, settings.PASSWORD_RESET_RATE_PER_EMAIL):
            # Same answer as a sent mail: the owner already has several links on their way.
            response = redirect(self.get_success_url())
        else:
            self.extra_email_context = {"site_url": settings.SITE_URL}
            response = super().post(request, *args, **kwargs)
            if form.is_valid():
                signup_links_resend(form.cleaned_data["email"], tokens=signup_tokens)
        remaining = settings.PASSWORD_RESET_MIN_SECONDS - (time.monotonic() - started)
        if remaining > 0:
            time.sleep(remaining)
        return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """A completed reset proves the owner: every log-in block of the account is lifted."""

    def form_valid(self, form):
        response = super().form_valid(form)
        axes_reset(username=normalise_username(form.user.get_username()))
        return response


def account_inactive(request):
    """Where sign-in with an identity provider ends for a deactivated (or not yet confirmed) account."""
    return render(request, "registration/account_inactive.html", status=403)
