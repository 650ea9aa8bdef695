"""Account life: a deactivated account stops acting for its SNIDs, and editors hear of SNIDs left alone."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save, pre_save


def _remember_active(sender, instance, update_fields=None, **kwargs):
    if instance.pk is not None and (update_fields is None or "is_active" in update_fields):
        instance._was_active = sender.objects.filter(pk=instance.pk).values_list("is_active", flat=True).first()


def _deactivated(sender, instance, created, **kwargs):
    if not created and getattr(instance, "_was_active", False) and not instance.is_active:
        from .services import steward_account_deactivated

        steward_account_deactivated(instance)


def connect() -> None:
    user_model = get_user_model()
    pre_save.connect(_remember_active, sender=user_model, dispatch_uid="stewardship_remember_active")
    post_save.connect(_deactivated, sender=user_model, dispatch_uid="stewardship_deactivated")
