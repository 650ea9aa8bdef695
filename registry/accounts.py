"""Writes of accounts that are not about proposals: sign-ups never confirmed are purged.

A sign-up holds its user name from the moment the form is sent (registry.views.accounts
creates the account inactive and mails a confirmation link). Left alone, anyone could hold any
number of names — "ogf", "gfd-editor" — forever with addresses they do not own. The link is
valid for ``PASSWORD_RESET_TIMEOUT`` (three days); an account still unconfirmed well after
that is deleted, with nothing else: it never signed in, so it owns nothing.
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils import timezone

#: Days after which a sign-up never confirmed is purged (its link expired days before).
UNCONFIRMED_DAYS = 7


def signups_unconfirmed(days: int = UNCONFIRMED_DAYS, now: dt.datetime | None = None):
    """Accounts created by the sign-up form and never confirmed, older than ``days``: inactive, never
    signed in, not staff, no identity linked, no proposal, no stewardship."""
    cutoff = (now or timezone.now()) - dt.timedelta(days=days)
    return (get_user_model().objects.filter(is_active=False, last_login__isnull=True, is_staff=False,
                                            is_superuser=False, date_joined__lt=cutoff)
            .filter(socialaccount__isnull=True, proposals__isnull=True, stewardships__isnull=True)
            .distinct().order_by("date_joined"))


def signups_unconfirmed_purge(days: int = UNCONFIRMED_DAYS, now: dt.datetime | None = None) -> list[str]:
    """Delete those accounts (``signups_unconfirmed``); the user names freed. An account something
    refers to after all is left as it is."""
    freed = []
    for user in signups_unconfirmed(days, now):
        try:
            with transaction.atomic():
                user.delete()
        except (ProtectedError, IntegrityError):
            continue
        freed.append(user.get_username())
    return freed
