"""Writes of accounts not about proposals: sign-up, its confirmation, the purge of sign-ups never confirmed.

A sign-up holds its user name from the moment the form is sent (the account is made inactive and a
confirmation link is mailed). It does the same work and gets the same answer whether or not the
name or the address is taken — the password is always hashed, exactly one mail goes to the address
typed — so neither the page nor its timing tells anyone which accounts exist; only the mailbox's
owner learns it, from the mail (limited per client address and per e-mail address by the view).

A lost mail is never a dead end: signing up again with the address, the password-reset form and the
log-in page (after the right password) mail an unconfirmed sign-up a fresh link (``signup_link_again``).

Left alone, anyone could hold any number of names — "ogf", "gfd-editor" — forever with addresses
they do not own. The link is valid for ``PASSWORD_RESET_TIMEOUT`` (three days); an account made by
the form and still unconfirmed a week after its last link is deleted — unless it holds something
after all (a role, a proposal, a stewardship, an identity, a token: ``kept_because``), which the
purge keeps and lists. Which accounts the form made is recorded when it makes them
(Account.origin), never guessed from what an account lacks: an account an administrator made, or
deactivated, is not one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

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
from .models import Account, AccountOrigin, unconfirmed_signup
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
    owners = list(users_with_address(email).select_related("account").order_by("date_joined"))
    if owners and all(unconfirmed_signup(owner) for owner in owners):
        # The first mail was lost (or expired): the way in is a fresh link, not "log in or reset".
        signup_link_again(owners[0], tokens=tokens, address=email)
        return
    if owners:
        notify.later("signup_address_taken", [email], {"usernames": [owner.get_username() for owner in owners]})
        return
    user = None
    if not name_taken(username):
        try:
            with transaction.atomic():
                user = get_user_model()(username=username, email=email, password=hashed, is_active=False)
                user.save()
                Account.objects.filter(user=user).update(
                    origin=AccountOrigin.SIGNUP, confirmation_sent_at=timezone.now()
                )
        except IntegrityError:  # the same name (folded), a moment ago
            user = None
    if user is None:
        notify.later("signup_name_taken", [email], {"username": username})
        return
    notify.later("signup_confirm", [email], {"user": user, "link": _confirm_link(user, tokens)})


def _confirm_link(user, tokens) -> str:
    return settings.SITE_URL + reverse(
        "registry:signup_confirm", args=[urlsafe_base64_encode(force_bytes(user.pk)), tokens.make_token(user)]
    )


def signup_link_again(user, *, tokens, address: str | None = None) -> bool:
    """Mail an unconfirmed sign-up a fresh confirmation link (its first was lost, or expired): from signing
    up again with its address, the password-reset form, or the log-in page after the right password.
    The link goes to the account's own address only. False (and no mail) for any other account."""
    if not unconfirmed_signup(user) or not user.email:
        return False
    Account.objects.filter(user_id=user.pk).update(confirmation_sent_at=timezone.now())
    notify.later("signup_confirm_again", [address or user.email], {"user": user, "link": _confirm_link(user, tokens)})
    return True


def signup_links_resend(address: str, *, tokens) -> int:
    """The password-reset form for an address whose sign-up is unconfirmed: a fresh confirmation link
    instead of nothing (Django mails reset links to active accounts only). How many were mailed."""
    return sum(
        signup_link_again(user, tokens=tokens, address=address)
        for user in users_with_address(address).select_related("account").order_by("date_joined")
    )


@transaction.atomic
def signup_confirm(user) -> None:
    """The owner followed the link: the account may sign in, and is no longer an unconfirmed sign-up."""
    get_user_model()._default_manager.filter(pk=user.pk).update(is_active=True)
    Account.objects.filter(user_id=user.pk).update(confirmed_at=timezone.now())
    user.is_active = True


def signups_unconfirmed(days: int = UNCONFIRMED_DAYS, now: dt.datetime | None = None):
    """Accounts the sign-up form made and nobody confirmed, their last link mailed more than ``days``
    ago: made by the form (recorded), never confirmed, inactive, never signed in. Some of them may hold
    something after all (``kept_because``): the purge keeps those and says why."""
    cutoff = (now or timezone.now()) - dt.timedelta(days=days)
    return (
        get_user_model()
        .objects.filter(
            account__origin=AccountOrigin.SIGNUP,
            account__confirmed_at__isnull=True,
            account__closed_at__isnull=True,
            is_active=False,
            last_login__isnull=True,
            date_joined__lt=cutoff,
        )
        .exclude(account__confirmation_sent_at__gte=cutoff)
        .select_related("account")
        .order_by("date_joined")
    )


def kept_because(user) -> list[str]:
    """What an unconfirmed sign-up holds that the purge must not delete with it: a role (a group such as
    the GFD editors, staff, superuser, a permission), proposals, stewardships, an identity, an API token."""
    from allauth.socialaccount.models import SocialAccount
    from rest_framework.authtoken.models import Token

    reasons = []
    roles = [group.name for group in user.groups.order_by("name")]
    roles += ["superuser"] * user.is_superuser + ["staff"] * user.is_staff
    if user.user_permissions.exists():
        roles.append("permissions of its own")
    if roles:
        reasons.append("role: " + ", ".join(roles))
    if (count := user.proposals.count()) > 0:
        reasons.append(f"{count} proposal{'s' * (count != 1)}")
    if (count := user.stewardships.count()) > 0:
        reasons.append(f"{count} stewardship{'s' * (count != 1)}")
    if SocialAccount.objects.filter(user=user).exists():
        reasons.append("a linked sign-in identity")
    if Token.objects.filter(user=user).exists():
        reasons.append("an API token")
    return reasons


@dataclass
class PurgeReport:
    deleted: list[str] = field(default_factory=list)
    #: (user name, why it was kept), for each unconfirmed sign-up that holds something.
    kept: list[tuple[str, list[str]]] = field(default_factory=list)


def signups_unconfirmed_purge(
    days: int = UNCONFIRMED_DAYS, now: dt.datetime | None = None, *, dry_run: bool = False
) -> PurgeReport:
    """Delete the unconfirmed sign-ups (``signups_unconfirmed``) that hold nothing; keep, and list with
    the reasons, those that do. Anything else that refers to an account (a comment, a judgement) keeps it
    too: the database refuses the deletion and the report says so."""
    report = PurgeReport()
    for user in signups_unconfirmed(days, now):
        reasons = kept_because(user)
        if reasons:
            report.kept.append((user.get_username(), reasons))
            continue
        if not dry_run:
            try:
                with transaction.atomic():
                    user.delete()
            except (ProtectedError, IntegrityError):
                report.kept.append((user.get_username(), ["records that refer to it (comments, decisions)"]))
                continue
        report.deleted.append(user.get_username())
    return report
