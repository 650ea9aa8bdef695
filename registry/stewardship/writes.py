"""What every stewardship service shares: reasons checked, deadlocks tried again, rows locked in one order,
the history's line, the registry stamp moved, and the mails of a step (``services``, ``deprecation``)."""

from __future__ import annotations

import random
import time
from functools import partial, wraps

from django.db import OperationalError, transaction
from django.utils import timezone

from .. import notify
from ..errors import Conflict, ServiceError
from ..models import Namespace
from ..signals import registry_changed_send
from .models import StewardshipEvent
from .selectors import emails_of, stewards_told

REASON_MAX = 2000
#: Tries of a service the database broke off as a deadlock or a serialisation failure.
DEADLOCK_ATTEMPTS = 3
_RETRIED_SQLSTATES = {"40P01", "40001"}  # deadlock_detected, serialization_failure
#: Seconds, at most, before the next try (times the tries so far).
DEADLOCK_PAUSE = 0.05


def _reason(text: str, what: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ServiceError(f"{what} needs a reason; it is recorded in the SNID's history.")
    if len(text) > REASON_MAX:
        raise ServiceError(f"The reason is {len(text):,} characters long; the limit is {REASON_MAX:,}.")
    return text


def _note(text: str) -> str:
    text = (text or "").strip()
    if len(text) > REASON_MAX:
        raise ServiceError(f"The note is {len(text):,} characters long; the limit is {REASON_MAX:,}.")
    return text


def _retried(service):
    """Run ``service`` (itself atomic) again when the database broke it off as a deadlock; refuse as a
    conflict after ``DEADLOCK_ATTEMPTS``. Inside a caller's transaction nothing can be tried again."""

    @wraps(service)
    def call(*args, **kwargs):
        attempts = 1 if transaction.get_connection().in_atomic_block else DEADLOCK_ATTEMPTS
        for attempt in range(1, attempts + 1):
            try:
                return service(*args, **kwargs)
            except OperationalError as exc:
                if getattr(exc.__cause__, "sqlstate", None) not in _RETRIED_SQLSTATES:
                    raise
                if attempt == attempts:
                    raise Conflict(
                        "Another editor was changing the same SNIDs at the same moment, so nothing "
                        "was changed. Look at the SNID's page again and try once more."
                    ) from None
                # A short pause, different for each: the two do not meet again at once.
                time.sleep(random.uniform(0, DEADLOCK_PAUSE * attempt))
        raise AssertionError("unreachable")  # the loop returns or raises

    return call


def _locked(namespace, *also: str) -> Namespace:
    """Lock the SNID's row, and those of the SNIDs named in ``also``, in the order of their ids (so
    that no two services wait on each other); the SNID must be registered."""
    ids = {namespace.pk}
    for snid in also:
        other = Namespace.objects.by_snid(snid).values_list("pk", flat=True).first()
        if other is not None:
            ids.add(other)
    rows = {
        row.pk: row
        for row in Namespace.objects.select_for_update(of=("self",))
        .select_related("current")
        .filter(pk__in=ids)
        .order_by("pk")
    }
    locked = rows[namespace.pk]
    if locked.status != "registered" or locked.current is None:
        raise Conflict(f"urn:ogf:{locked.snid}: is not registered; only a registered SNID has stewards.")
    return locked


def _event(namespace, actor, kind, summary, *, public=False, reason="", data=None) -> StewardshipEvent:
    return StewardshipEvent.objects.create(
        namespace=namespace, actor=actor, kind=kind, public=public, summary=summary, reason=reason, data=data or {}
    )


def _touch(namespace) -> None:
    """Public views of the SNID changed: move the registry stamp (lookup, page cache, exports)."""
    Namespace.objects.filter(pk=namespace.pk).update(updated_at=timezone.now())
    transaction.on_commit(partial(registry_changed_send, namespace.snid))


def _tell(template: str, namespace, context: dict, *also) -> None:
    """Mail the SNID's stewards (as they stand after the commit) and ``also``, one mail each."""
    notify.later(template, lambda: emails_of(stewards_told(namespace, *also)), {"namespace": namespace, **context})


def _ask_editors(template: str, namespace, context: dict, *also) -> None:
    """Mail the GFD editors a step they decide, except those told of it already as a steward or as the one
    who asked (``_tell`` with the same ``also``): one mail per person, in the role they act in."""
    notify.later(
        template,
        lambda: notify.editors_emails(besides=stewards_told(namespace, *also)),
        {"namespace": namespace, **context},
    )
