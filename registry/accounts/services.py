"""Writes of accounts not about proposals: sign-up, its confirmation, the purge of sign-ups never confirmed.

A sign-up holds its user name from the moment the form is sent (the account is made inactive and a
confirmation link is mailed). It does the same work and gets the same answer whether or not the
name or the address is taken — the password is always hashed, exactly one mail goes to the address
typed — so neither the page nor its timing tells anyone which accounts exist; only the mailbox's
owner learns it, from the mail (limited per client address and per e-mail address by the view).

Left alone, anyone could hold any number of names — "ogf", "gfd-editor" — forever with addresses
they do not own. The link is valid for ``PASSWORD_RESET_TIMEOUT`` (three days); an account made by
the form and still unconfirmed well after that is deleted, with nothing else: it never signed in, so
it owns nothing. Which accounts the form made is recorded when it makes them (Account.origin), never
guessed from what an account lacks: an account an administrator made, or deactivated, is not one.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from .. import notify
from .models import Account, AccountOrigin
from .names import name_taken, users_with_address

#: Days after which a sign-up never confirmed is purged (its link expired days before).
UNCONFIRMED_DAYS = 7


def signup_register(username: str, email: str, password: str, *, tokens) -> None:
    """Make the account (inactive) and mail its confirmation link — or, when the address or the name is
    taken, mail the address what happened instead. ``tokens`` makes the link (the view's generator).

    The same work either way: the password is hashed before anything is looked up, and one mail is
    sent. An address that already has an account is told so (it is the owner's own address); a free
    address asking for a taken name is told the name is taken — which only the mailbox's owner
    reads, at the view's per-address and per-mailbox limits.
    """
    hashed = make_password(password)
    owners = list(users_with_address(email).order_by("date_joined").values_list("username", flat=True))
    if owners:
        notify.later("signup_address_taken", [email], {"usernames": owners})
        return
    user = None
    if not name_taken(username):
        try:
            with transaction.atomic():
                user = get_user_model()(username=username, email=email, password=hashed, is_active=False)
                user.save()
                Account.objects.filter(user=user).update(origin=AccountOrigin.SIGNUP)
        except IntegrityError:  # the same name (folded), a moment ago
            user = None
    if user is None:
        notify.later("signup_name_taken", [email], {"username": username})
        return
    link = settings.SITE_URL + reverse(
        "registry:signup_confirm", args=[urlsafe_base64_encode(force_bytes(user.pk)), tokens.make_token(user)]
    )
    notify.later("signup_confirm", [email], {"user": user, "link": link})


@transaction.atomic
def signup_confirm(user) -> None:
    """The owner followed the link: the account may sign in, and is no longer an unconfirmed sign-up."""
    get_user_model()._default_manager.filter(pk=user.pk).update(is_active=True)
    Account.objects.filter(user_id=user.pk).update(confirmed_at=timezone.now())
    user.is_active = True


def signups_unconfirmed(days: int = UNCONFIRMED_DAYS, now: dt.datetime | None = None):
    """Accounts the sign-up form made and nobody confirmed, older than ``days``: made by the form
    (recorded), never confirmed, inactive, never signed in, not staff; nothing linked or owned."""
    cutoff = (now or timezone.now()) - dt.timedelta(days=days)
    return (
        get_user_model()
        .objects.filter(
            account__origin=AccountOrigin.SIGNUP,
            account__confirmed_at__isnull=True,
            is_active=False,
            last_login__isnull=True,
            is_staff=False,
            is_superuser=False,
            date_joined__lt=cutoff,
        )
        .filter(socialaccount__isnull=True, proposals__isnull=True, stewardships__isnull=True)
        .distinct()
        .order_by("date_joined")
    )


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
