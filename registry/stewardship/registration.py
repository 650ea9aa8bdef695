"""What the core workflow asks of stewardship while it registers an SNID (registry.services).

Kept apart from ``stewardship.services`` so the core services import only models-level
helpers from here, and the stewardship services may import the core's errors.
"""

from __future__ import annotations

from django.utils import timezone

from ..logcore.kinds import STEWARD_CHANGED
from ..transparency.log import log_append
from .models import Steward, StewardshipEvent, StewardshipEventKind, StewardState
from .selectors import logged_name

#: The reason the registrant's stewardship is given (registry-full.json marks it ``registrant``).
REGISTRANT_REASON = "Registrant of the SNID."


def steward_first(namespace, user) -> Steward:
    """The registrant of an SNID's first version becomes its first steward, in the approval's transaction and
    after the version's log entry: a public change, logged like every other steward change."""
    steward = Steward.objects.filter(namespace=namespace, user=user, state=StewardState.ACTIVE).first()
    if steward is None:
        steward = Steward.objects.create(
            namespace=namespace,
            user=user,
            state=StewardState.ACTIVE,
            reason=REGISTRANT_REASON,
            confirmed_at=timezone.now(),
        )
        StewardshipEvent.objects.create(
            namespace=namespace,
            actor=None,
            kind=StewardshipEventKind.STEWARD_ADDED,
            public=True,  # the log and the SNID's list of stewards show it
            summary="The registrant became the SNID's first steward.",
            data={"user": user.get_username()},
        )
        log_append(
            STEWARD_CHANGED.name,
            {"snid": namespace.snid, "change": "added", "steward": logged_name(user), "reason": REGISTRANT_REASON},
        )
    return steward
