"""What the core workflow asks of stewardship while it registers an SNID (registry.services).

Kept apart from ``stewardship.services`` so the core services import only models-level
helpers from here, and the stewardship services may import the core's errors.
"""

from __future__ import annotations

from django.utils import timezone

from .models import Steward, StewardshipEvent, StewardshipEventKind, StewardState


def steward_first(namespace, user) -> Steward:
    """The registrant of an SNID's first version becomes its first steward (in the approval's transaction)."""
    steward = Steward.objects.filter(namespace=namespace, user=user, state=StewardState.ACTIVE).first()
    if steward is None:
        steward = Steward.objects.create(namespace=namespace, user=user, state=StewardState.ACTIVE,
                                         reason="Registrant of the SNID.", confirmed_at=timezone.now())
        StewardshipEvent.objects.create(namespace=namespace, actor=None, kind=StewardshipEventKind.STEWARD_ADDED,
                                        summary="The registrant became the SNID's first steward.",
                                        data={"user": user.get_username()})
    return steward
