"""Who is a GFD editor: the group, its permission, granting and revoking."""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission

from .. import rules


def editors_group() -> Group:
    """The "GFD editors" group with the review permission (created by a migration too)."""
    group, _ = Group.objects.get_or_create(name=rules.EDITOR_GROUP)
    app_label, codename = rules.EDITOR_PERMISSION.split(".")
    group.permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return group


def editor_grant(user, *, staff: bool = False) -> None:
    """Make ``user`` a GFD editor; ``staff`` also opens the read-mostly admin to them.

    The admin shows only the models a staff account may view, so a staff editor is given
    the view permission of each of the registry's models (the admin changes none of them).
    """
    user.groups.add(editors_group())
    if staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.user_permissions.add(*_registry_view_permissions())


def editor_revoke(user) -> None:
    """No longer a GFD editor, nor staff (a superuser stays one: that is createsuperuser's)."""
    user.groups.remove(editors_group())
    user.user_permissions.remove(*_registry_view_permissions())
    if user.is_staff and not user.is_superuser:
        user.is_staff = False
        user.save(update_fields=["is_staff"])


def _registry_view_permissions():
    return Permission.objects.filter(content_type__app_label="registry", codename__startswith="view_")
