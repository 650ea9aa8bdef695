"""User names compared case-insensitively with Unicode case folding, on every database.

``Ärger``, ``ärger`` and ``ÄRGER`` are one name; so are ``Straße`` and ``STRASSE`` (full case
folding, after NFKC as Django normalises user names). The folded name is stored with each account
(registry.accounts.models.Account.name_key, unique) by the user's own save, so every way an account
is made or renamed — the sign-up form, a first sign-in with an identity provider, the admin,
``createsuperuser``, a restore — meets the same rule, and the database's unique index holds it
against two saves at once. Every lookup of a person by the name they type goes through
``user_by_name``: sign-in (``FoldedNameBackend``, for the site's form, the admin and allauth alike),
``make_editor``, ``drf_create_token``, invitations.
"""

from __future__ import annotations

import unicodedata

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db import IntegrityError, transaction
from django.db.models import Q

from .lookalike import skeleton
from .models import Account, AccountOrigin, unconfirmed_signup


def name_key(name: str | None) -> str:
    """The form of a user name that is compared: NFKC, case-folded, NFKC again (Unicode's NFKC_Casefold
    but for default-ignorable characters, which the user-name validator refuses anyway)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name or "").casefold())


def name_skeleton(name: str | None) -> str:
    """A user name as people read it: the TR39 skeleton of its folded form (registry.accounts.lookalike)."""
    return skeleton(name_key(name))


def public_skeleton(name: str | None) -> str:
    """A public name as people read it ("" for none): spaces collapsed, folded, its skeleton."""
    return skeleton(name_key(" ".join((name or "").split())))


def email_key(address: str | None) -> str:
    """An e-mail address as compared: surrounding space dropped, then as ``name_key``."""
    return name_key((address or "").strip())


def user_by_name(name: str | None, users=None):
    """The account called ``name`` whatever its case, or None. ``users`` narrows the search (a queryset).

    The exact name first: an account whose name clashed with an older one's before names were
    folded (its ``name_key`` is empty until renamed) is still found by its own name.
    """
    users = users if users is not None else get_user_model()._default_manager.all()
    if not name:
        return None
    return users.filter(username=name).first() or users.filter(account__name_key=name_key(name)).first()


def name_taken(name: str, *, except_pk=None) -> bool:
    """Whether another account has ``name``, compared folded or as read (its skeleton)."""
    return (
        Account.objects.filter(Q(name_key=name_key(name)) | Q(name_skeleton=name_skeleton(name)))
        .exclude(user_id=except_pk)
        .exists()
        or get_user_model()._default_manager.filter(username=name).exclude(pk=except_pk).exists()
    )


def name_read_alike(name: str, *, except_pk=None) -> str | None:
    """The user name of another account that reads like ``name`` but is not it folded, or None."""
    return (
        Account.objects.filter(name_skeleton=name_skeleton(name))
        .exclude(name_key=name_key(name))
        .exclude(user_id=except_pk)
        .values_list("user__username", flat=True)
        .first()
    )


def public_name_read_alike(name: str, *, except_pk=None) -> str | None:
    """The public name of another account that reads like ``name`` ("" names none), or None."""
    key = public_skeleton(name)
    if not key:
        return None
    other = (
        Account.objects.filter(public_skeleton=key)
        .exclude(user_id=except_pk)
        .select_related("user")
        .order_by("user_id")
        .first()
    )
    return other.user.get_full_name().strip() if other else None


def public_name_problem(name: str, *, user) -> str | None:
    """Why ``user`` cannot take the public name ``name`` (it reads like another person's, or mixes
    scripts), or None. The sentence names the other public name: public names are public."""
    from .lookalike import mixed_scripts_problem

    name = " ".join((name or "").split())
    if not name:
        return None
    other = public_name_read_alike(name, except_pk=user.pk)
    if other is not None:
        return (
            f"“{name}” reads like “{other}”, the public name of another person (names are compared as "
            "they read: letters that look alike, and case, are one). Choose a name people can tell apart, "
            "for example with your full name or your organisation."
        )
    return mixed_scripts_problem(name, "A public name")


def public_name_record(user) -> None:
    """Store the skeleton of ``user``'s public name (its services call this after changing it)."""
    Account.objects.filter(user_id=user.pk).update(public_skeleton=public_skeleton(user.get_full_name()))


def users_with_address(address: str | None):
    """The accounts whose address is ``address`` (compared folded), or that allauth holds it for."""
    from allauth.account.models import EmailAddress

    key = email_key(address)
    if not key:
        return get_user_model()._default_manager.none()
    return (
        get_user_model()
        ._default_manager.filter(
            Q(account__email_key=key)
            | Q(pk__in=EmailAddress.objects.filter(email__iexact=address.strip()).values("user_id"))
        )
        .distinct()
    )


def name_clashes() -> list[list[str]]:
    """Groups of accounts whose names are one name folded (made before names were folded): each group's
    oldest account keeps the name; the others must be renamed (migration 0010, ``manage.py check``)."""
    groups: dict[str, list[str]] = {}
    for username in (
        get_user_model()._default_manager.filter(account__name_key__isnull=True).values_list("username", flat=True)
    ):
        groups.setdefault(name_key(username), [])
    if not groups:
        return []
    for username in get_user_model()._default_manager.order_by("date_joined", "pk").values_list("username", flat=True):
        if name_key(username) in groups:
            groups[name_key(username)].append(username)
    return [names for names in groups.values() if len(names) > 1]


def names_read_alike() -> list[list[str]]:
    """Groups of accounts whose names read alike (one skeleton), made before names were compared as read:
    each group's oldest account keeps the skeleton; the others must be renamed (migration 0013, check)."""
    groups: dict[str, list[str]] = {}
    for username in (
        get_user_model()
        ._default_manager.filter(account__name_skeleton__isnull=True, account__name_key__isnull=False)
        .values_list("username", flat=True)
    ):
        groups.setdefault(name_skeleton(username), [])
    if not groups:
        return []
    for username in get_user_model()._default_manager.order_by("date_joined", "pk").values_list("username", flat=True):
        if name_skeleton(username) in groups:
            groups[name_skeleton(username)].append(username)
    return [names for names in groups.values() if len(names) > 1]


class NameTaken(IntegrityError):
    """A user name already held, compared folded: what the unique index would say, said sooner and
    naming the account. An IntegrityError, so every caller that handles the index's error handles it."""


# --- kept by the user's own save (connected in RegistryConfig.ready) -------------------------------


def _name_fields_saved(update_fields) -> bool:
    return update_fields is None or bool({"username", "email", "first_name", "last_name"} & set(update_fields))


def user_name_claim(sender, instance, raw=False, update_fields=None, **kwargs):
    """pre_save: refuse a new or changed user name that another account holds (folded)."""
    if not _name_fields_saved(update_fields):
        return
    others = Account.objects.exclude(user_id=instance.pk)
    holder = others.filter(name_key=name_key(instance.username)).values_list("user__username", flat=True).first()
    look_alike = (
        others.filter(name_skeleton=name_skeleton(instance.username)).values_list("user__username", flat=True).first()
    )
    instance._name_clashed_before = False
    instance._name_read_alike_before = False
    if holder is None and look_alike is None:
        return
    if instance.pk is not None and sender._default_manager.filter(pk=instance.pk, username=instance.username).exists():
        # An account that clashed before names were folded (or compared as read), saved under its own
        # name: it keeps it (without the clashing key) until renamed; ``manage.py check`` reports it.
        instance._name_clashed_before = holder is not None
        instance._name_read_alike_before = look_alike is not None
        return
    if holder is not None:
        raise NameTaken(
            f"The user name {instance.username!r} is taken: {holder!r} is the same name (user names "
            "are compared ignoring case). Choose another."
        )
    raise NameTaken(
        f"The user name {instance.username!r} reads like {look_alike!r}, another account's (user names are "
        "compared as they read: letters that look alike are one). Choose another."
    )


def user_name_record(sender, instance, created=False, raw=False, update_fields=None, **kwargs):
    """post_save: write the folded name and address beside the user, in a savepoint.

    Two accounts saved at once under one folded name both pass ``user_name_claim``; the unique index
    refuses the second, whose user row is then removed again if this save made it — so it is never
    left behind without its record, even outside a transaction (``createsuperuser``).
    """
    if not created and not _name_fields_saved(update_fields):
        return
    names = {
        "name_key": None if getattr(instance, "_name_clashed_before", False) else name_key(instance.username),
        "name_skeleton": (
            None if getattr(instance, "_name_read_alike_before", False) else name_skeleton(instance.username)
        ),
        "email_key": email_key(instance.email),
        "public_skeleton": public_skeleton(instance.get_full_name()),
    }
    try:
        with transaction.atomic():
            Account.objects.update_or_create(
                user=instance,
                defaults=names,
                create_defaults={**names, "origin": AccountOrigin.UNRECORDED if raw else AccountOrigin.OTHER},
            )
    except IntegrityError:
        if created:
            sender._default_manager.filter(pk=instance.pk).delete()
        raise NameTaken(
            f"The user name {instance.username!r} (or one that reads like it) was taken a moment ago. Choose another."
        ) from None


class FoldedNameBackend(ModelBackend):
    """Django's password sign-in, finding the account by its name folded (the site's log-in form, the
    admin's and allauth's all authenticate through here)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        user = user_by_name(username)
        if user is None:
            get_user_model()().set_password(password)  # as long as a wrong password (Django's own defence)
            return None
        if user.check_password(password):
            if self.user_can_authenticate(user):
                return user
            if request is not None and unconfirmed_signup(user):
                # Only after the right password: the log-in page offers a new confirmation link.
                request.unconfirmed_signup = user.pk
        return None
