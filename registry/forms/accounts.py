"""The sign-up form. It validates; registry.accounts.services writes."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from ..accounts.lookalike import username_problem
from .common import FocusFirstErrorMixin


class SignUpForm(FocusFirstErrorMixin, UserCreationForm):
    """A new account, confirmed by a link mailed to its address before it can sign in.

    The form never says that a user name or an address is taken (that would tell anyone which
    accounts exist): the sign-up service mails the address what happened instead
    (registry.accounts.services.signup_register).
    """

    email = forms.EmailField(
        help_text="We mail you a link: the account can sign in once you follow it. "
        "Also for notices about your proposals and password resets."
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip()

    def validate_unique(self):
        """Uniqueness is the service's business (see the class docstring), not an error shown here."""

    def clean_username(self):
        # UserCreationForm says "A user with that username already exists."; the service decides instead.
        # What a name may be (RFC 8265, one script) is no secret: said here.
        username = self.cleaned_data.get("username")
        if username and (problem := username_problem(username)):
            raise forms.ValidationError(problem, code="username_form")
        return username


class LogInForm(AuthenticationForm):
    """Django's log-in form; the right password on a sign-up whose address is not confirmed yet says so.

    The sign-in backend (registry.accounts.names.FoldedNameBackend) notes such an account on the request
    only after its password matched, in the same work as any other attempt: a wrong password, an
    unknown name and a deactivated account keep the one generic answer.
    """

    error_messages = {
        **AuthenticationForm.error_messages,
        "unconfirmed": "The address of this account is not confirmed yet, so it cannot sign in. We can mail "
        "a new confirmation link to the address you signed up with.",
    }

    def clean(self):
        try:
            return super().clean()
        except forms.ValidationError:
            if getattr(self.request, "unconfirmed_signup", None) is not None:
                raise forms.ValidationError(self.error_messages["unconfirmed"], code="unconfirmed") from None
            raise


# --- the account page (registry.views.account) ------------------------------------------------------


class AccountNameForm(FocusFirstErrorMixin, forms.Form):
    public_name = forms.CharField(
        label="Your public name",
        max_length=150,
        required=False,
        help_text="How pages name you to others (as a steward, on the SNID's public page and in the "
        "transparency log). Leave it empty to be named by nothing but your role. A name that reads like "
        "another person's is refused.",
    )


class AccountAddressForm(FocusFirstErrorMixin, forms.Form):
    email = forms.EmailField(
        label="New e-mail address",
        help_text="We mail a link to the new address; your address changes when you follow it. Until then "
        "mails keep going to the address you have now.",
    )

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip()


class AccountCloseForm(FocusFirstErrorMixin, forms.Form):
    """Closing is confirmed by typing the account's user name (an ORCID-only account has no password)."""

    username = forms.CharField(label="Type your user name to confirm", max_length=150)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_username(self) -> str:
        typed = self.cleaned_data["username"].strip()
        if typed.casefold() != self.user.get_username().casefold():
            raise forms.ValidationError(
                f"That is not your user name: type {self.user.get_username()} to close this account."
            )
        return typed
