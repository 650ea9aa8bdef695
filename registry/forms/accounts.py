"""The sign-up form. It validates; registry.accounts.services writes."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

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
        return self.cleaned_data.get("username")
