"""What the registry records of an account beside Django's user: its name as compared, and how it came to be.

Django's user table compares user names byte for byte (and SQLite's ``lower()``, behind ``iexact``,
folds ASCII only), so ``Ärger`` and ``ärger`` were two accounts. ``name_key`` holds the user name
case-folded (registry.accounts.names.name_key), written whenever the user is saved, with a unique
index: the same guarantee on SQLite and PostgreSQL, without a custom user model or a database
function. ``name_skeleton`` and ``public_skeleton`` hold the names as people read them (TR39
skeletons, registry.accounts.lookalike), so look-alikes are refused the same way. ``origin`` says how
the account was made — set by the service that made it, never guessed later from what the account
lacks — so ``purge_unconfirmed_signups`` touches only sign-ups.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AccountOrigin(models.TextChoices):
    SIGNUP = "signup", "Signed up with the form"
    IDENTITY = "identity", "First signed in with an identity provider"
    OTHER = "other", "Made by an administrator or a command"
    UNRECORDED = "unrecorded", "Made before origins were recorded, or restored from a backup"


class Account(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="account"
    )
    #: The user name case-folded; empty (NULL) only for an account whose name clashed with an older
    #: one's when this was introduced (migration 0010 reported it; renaming it fills this in).
    name_key = models.CharField(max_length=600, unique=True, null=True, blank=True, editable=False)
    #: The e-mail address case-folded, to find the accounts of an address on every database.
    email_key = models.CharField(max_length=800, blank=True, db_index=True, editable=False)
    origin = models.CharField(max_length=20, choices=AccountOrigin.choices, default=AccountOrigin.OTHER, editable=False)
    #: When the owner followed the sign-up form's confirmation link (sign-ups only).
    confirmed_at = models.DateTimeField(null=True, blank=True, editable=False)
    #: When a confirmation link was last mailed (sign-ups only): the purge waits a week after it.
    confirmation_sent_at = models.DateTimeField(null=True, blank=True, editable=False)
    #: The user name's TR39 skeleton (registry.accounts.lookalike): two names that read alike share it.
    #: Empty (NULL) only for an account that read like an older one's when this was introduced.
    name_skeleton = models.CharField(max_length=800, unique=True, null=True, blank=True, editable=False)
    #: The public name's skeleton ("" without one), to refuse a public name that reads like another's.
    public_skeleton = models.CharField(max_length=800, blank=True, db_index=True, editable=False)
    #: When the owner closed the account (registry.people): it keeps its public name, signs in no more.
    closed_at = models.DateTimeField(null=True, blank=True, editable=False)

    def __str__(self) -> str:
        return f"Account record of {self.user_id}"


def unconfirmed_signup(user) -> bool:
    """Whether ``user`` is a sign-up whose address was never confirmed (it cannot sign in until it is)."""
    account = getattr(user, "account", None)
    return (
        account is not None
        and account.origin == AccountOrigin.SIGNUP
        and account.confirmed_at is None
        and account.closed_at is None
        and not user.is_active
        and user.last_login is None
    )
