"""A person and what the registry holds about them, across every room: their account page's facts, the
JSON they may download, their public name, their address, and closing their account.

This sits above the rooms (proposals, stewardship, accounts) because a person spans them all; each
write goes through the room's own service where one exists (a steward's public name is logged by
the stewardship room). Closing an account keeps what is part of the public record — registrations,
the transparency log, the review history, naming the person by the public name they chose — and
removes every way to sign in and every way to reach them:

* the account signs in no more: inactive, no usable password, its sign-in identities unlinked, its
  API token deleted, every session ended (the session hash covers the password);
* its roles are taken away (groups such as the GFD editors, staff, permissions of its own);
* its e-mail address is forgotten (the account's and allauth's), after one last mail saying so;
* its user name stays reserved (nobody can take it, nor one that reads like it, and be taken for
  them); pages name the account by its public name, "(account closed)".
"""

from __future__ import annotations

import datetime as dt

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.core import signing
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from . import interchange, notify, rules
from .accounts.models import Account
from .accounts.names import email_key, public_name_problem, public_name_record, users_with_address
from .errors import ServiceError
from .identity import linked_identities
from .models import Comment, Proposal, ReservationRequest
from .stewardship import services as stewardship
from .stewardship.models import Steward, StewardState
from .stewardship.selectors import orcid_of, public_name

#: How long a link to confirm a new address works (as long as a sign-up's).
ADDRESS_LINK_DAYS = 3
ADDRESS_SALT = "registry.people.address_change"


def roles_of(user) -> list[str]:
    """The roles the account holds, as its page names them."""
    roles = []
    if rules.is_editor(user):
        roles.append("GFD editor: reviews proposals, decides, reserves SNIDs")
    if user.is_superuser:
        roles.append("Administrator (superuser)")
    elif user.is_staff:
        roles.append("Staff: may use the admin (read-mostly)")
    roles += [f"Member of the group “{g}”" for g in user.groups.exclude(name=rules.EDITOR_GROUP).order_by("name")]
    return roles


def account_facts(user) -> dict:
    """What the account page shows: every fact once, read here for the page and the download alike."""
    account = Account.objects.filter(user=user).first()
    stewardships = Steward.objects.filter(user=user).select_related("namespace").order_by("created_at", "pk")
    return {
        "username": user.get_username(),
        "public_name": public_name(user),
        "email": user.email,
        "confirmed_at": account.confirmed_at if account else None,
        "date_joined": user.date_joined,
        "last_login": user.last_login,
        "identities": linked_identities(user),
        "orcid": orcid_of(user),
        "has_password": user.has_usable_password(),
        "api_token": Token.objects.filter(user=user).values_list("created", flat=True).first(),
        "roles": roles_of(user),
        "proposals": list(Proposal.objects.filter(submitter=user).order_by("-updated_at", "-pk")),
        "stewardships": list(stewardships),
    }


def _when(value) -> str | None:
    return value.isoformat() if value else None


def person_data(user) -> dict:
    """Everything the registry holds about ``user``, as JSON they download from their account page: the
    account, addresses, identities, roles, proposals (each in the interchange format), stewardships,
    comments, reservation requests. Secrets are not repeated (the password hash, the API token)."""
    facts = account_facts(user)
    return {
        "format": "urn-ogf-registry-person",
        "version": 1,
        "exported_at": timezone.now().isoformat(),
        "account": {
            "username": facts["username"],
            "public_name": facts["public_name"],
            "email": facts["email"],
            "address_confirmed_at": _when(facts["confirmed_at"]),
            "joined_at": _when(facts["date_joined"]),
            "last_login_at": _when(facts["last_login"]),
            "signs_in_with_password": facts["has_password"],
            "api_token_created_at": _when(facts["api_token"]),
            "roles": facts["roles"],
        },
        "email_addresses": [
            {"email": a.email, "verified": a.verified, "primary": a.primary}
            for a in EmailAddress.objects.filter(user=user).order_by("email")
        ],
        "identities": [
            {
                "provider": a.provider,
                "uid": a.uid,
                "linked_at": _when(a.date_joined),
                "last_login_at": _when(a.last_login),
            }
            for a in SocialAccount.objects.filter(user=user).order_by("provider", "uid")
        ],
        "proposals": [
            {
                "id": p.pk,
                "snid": p.snid,
                "version": p.version,
                "state": p.state,
                "created_at": _when(p.created_at),
                "updated_at": _when(p.updated_at),
                "content": interchange.dump(p.to_data()),
            }
            for p in facts["proposals"]
        ],
        "stewardships": [
            {
                "snid": s.namespace.snid,
                "state": s.state,
                "show_orcid": s.show_orcid,
                "since": _when(s.confirmed_at or s.created_at),
                "ended_at": _when(s.ended_at),
            }
            for s in facts["stewardships"]
        ],
        "comments": [
            {"proposal": c.proposal_id, "section": c.section, "created_at": _when(c.created_at), "text": c.text}
            for c in Comment.objects.filter(author=user).order_by("created_at", "pk")
        ],
        "reservation_requests": [
            {"snid": r.snid, "state": r.state, "reason": r.reason, "created_at": _when(r.created_at)}
            for r in ReservationRequest.objects.filter(requester=user).order_by("created_at", "pk")
        ],
    }


def person_public_name(user, name: str) -> str:
    """Change the name pages show for ``user``: a steward's through the stewardship room (public pages and
    the log name stewards, and the log says so); anyone else's here. The name is refused with a sentence
    when it reads like another person's or mixes scripts. Returns the name as kept."""
    name = " ".join((name or "").split())
    if Steward.objects.filter(user_id=user.pk, state=StewardState.ACTIVE).exists():
        stewardship.steward_public_name(user, name)
        return public_name(user)
    if len(name) > 150:
        raise ServiceError(f"The name is {len(name):,} characters long; the limit is 150.")
    if problem := public_name_problem(name, user=user):
        raise ServiceError(problem)
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(first_name=name, last_name="")
        user.first_name, user.last_name = name, ""
        public_name_record(user)
    return name


# --- a new address, confirmed by a link mailed to it ----------------------------------------------------


def address_change_request(user, address: str, *, link_for) -> None:
    """Mail a link to ``address``; the account's address changes only when it is followed (its owner
    proves the mailbox). An address another account has gets a mail saying so instead, with the same
    answer on the page, so the page tells nobody which addresses have accounts. ``link_for(token)``
    makes the link's URL (the view's)."""
    address = address.strip()
    if users_with_address(address).exclude(pk=user.pk).exists():
        notify.later("address_taken", [address], {"user": user})
        return
    token = signing.dumps({"u": user.pk, "e": address, "k": email_key(user.email)}, salt=ADDRESS_SALT)
    notify.later("address_confirm", [address], {"user": user, "link": link_for(token), "days": ADDRESS_LINK_DAYS})


def address_change_read(token: str):
    """The (account, new address) a link asks for, or None when it is forged, expired, used (the account's
    address changed since it was made) or the address has been taken since."""
    try:
        data = signing.loads(token, salt=ADDRESS_SALT, max_age=dt.timedelta(days=ADDRESS_LINK_DAYS))
    except signing.BadSignature:
        return None
    user = get_user_model().objects.filter(pk=data.get("u"), is_active=True).first()
    if user is None or email_key(user.email) != data.get("k") or email_key(data.get("e")) == data.get("k"):
        return None
    if users_with_address(data["e"]).exclude(pk=user.pk).exists():
        return None
    return user, data["e"]


@transaction.atomic
def address_change(user, address: str) -> None:
    """The owner followed the link: the account's address is ``address``, confirmed; the old one is told."""
    old = user.email
    user.email = address
    user.save(update_fields=["email"])
    EmailAddress.objects.filter(user=user).delete()
    EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)
    if old:
        notify.later("address_changed", [old], {"user": user, "address": address})


# --- closing -------------------------------------------------------------------------------------------


def close_refusal(user) -> str | None:
    """Why ``user`` cannot close their account here, or None."""
    if user.is_superuser:
        return (
            "An administrator's account is closed by another administrator (admin → Users), so the registry "
            "is never left without one."
        )
    return None


def account_close(user) -> None:
    """Close ``user``'s account (see the module's docstring for what stays and what goes)."""
    if problem := close_refusal(user):
        raise ServiceError(problem)
    address = user.email
    with transaction.atomic():
        stewardship.steward_account_deactivated(user)  # editors are told of SNIDs left without a steward
        SocialAccount.objects.filter(user=user).delete()  # and their provider tokens
        EmailAddress.objects.filter(user=user).delete()
        Token.objects.filter(user=user).delete()
        user.groups.clear()
        user.user_permissions.clear()
        user.is_active = False
        user.is_staff = False
        user.email = ""
        user.set_unusable_password()
        user.save()
        Account.objects.filter(user=user).update(closed_at=timezone.now())
        if address:
            notify.later("account_closed", [address], {"user": user, "name": public_name(user)})
