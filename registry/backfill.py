"""Putting into the log what the registry published before the log (or before the log recorded it) began.

``manage.py log_backfill`` (and ``start``, which runs it) calls ``log_backfill``. The log must
hold everything the verifier compares with what the site publishes, so an upgraded registry
verifies: every approved version, and for the current state of each SNID its stewards, its
resolvers and its deprecation, and the reservations in force. What is already in the log is
read back (``verifier.replay``, as a mirror reads it) and never logged twice.

What is logged is only what the log could not have recorded, so that a rewrite behind the
application's back is never laundered into the log (the tamper drill checks it; the verifier
reports such a rewrite as a difference instead):

- approved versions not in the log, and reservations of SNIDs the log holds nothing about;
- resolvers and a deprecation of an SNID of which the log holds none, made before the log's
  first entry (the log holds the ones made since: their services log them);
- stewards the log does not hold, made before the log's first entry, and the registrant's own
  stewardship whenever it was made: releases before this one did not log it.

The caller checks first that the log is not damaged (an append would give a signed number a
second entry); this module appends, a batch of entries per transaction.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field

from django.db import transaction

from .enums import NamespaceStatus
from .logcore.kinds import SNID_DEPRECATED, SNID_RESOLVERS, STEWARD_CHANGED
from .models import Namespace, Proposal
from .selectors import reservation_active
from .stewardship.registration import REGISTRANT_REASON
from .transparency.log import log_append
from .transparency.models import LogEntry
from .transparency.records import log_reservation_granted, log_version_registered
from .verifier.replay import Logged, replay

BATCH = 500
#: The reason of a resolvers entry backfill writes (the kind's ``how`` is ``changed``).
RESOLVERS_REASON = "In force before the log recorded them (logged by log_backfill)."
#: The reasons the registrant's stewardship was given: on approval, and by migration 0009.
REGISTRANT_REASONS = (REGISTRANT_REASON, "Registrant of the SNID when stewards were introduced.")


@dataclass
class Backfilled:
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("versions", "stewards", "resolvers", "deprecations", "reservations"), 0)
    )

    def sentence(self, size: int) -> str:
        words = {
            "versions": ("version", "versions"),
            "stewards": ("steward", "stewards"),
            "resolvers": ("resolver set", "resolver sets"),
            "deprecations": ("deprecation", "deprecations"),
            "reservations": ("reservation", "reservations"),
        }
        parts = [f"{n} {words[key][n != 1]}" for key, n in self.counts.items()]
        return f"Logged {', '.join(parts[:-1])} and {parts[-1]}; the log has {size} entries."


def _logged() -> tuple[dict[str, Logged], dt.datetime | None]:
    """What the log holds, replayed as the verifier replays it, and when its first entry was logged."""
    leaves = [
        json.loads(text)
        for text in LogEntry.objects.order_by("index").values_list("leaf", flat=True).iterator(chunk_size=2000)
    ]
    began = dt.datetime.strptime(leaves[0]["at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC) if leaves else None
    return replay(leaves).snids, began


def _before(moment: dt.datetime | None, began: dt.datetime | None) -> bool:
    return began is None or (moment is not None and moment < began)


def log_backfill() -> tuple[Backfilled, int]:
    """Log what is missing (see the module's docstring): (what was logged, the log's size after)."""
    from .transparency.log import log_tree

    done = Backfilled()
    snids, began = _logged()
    pending: list[tuple[str, object]] = []  # (what, a function appending it), in log order

    versions = {(key, number) for key, logged in snids.items() for number in logged.versions}
    for proposal in (
        Proposal.objects.approved().select_related("namespace").order_by("decided_at", "id").iterator(chunk_size=BATCH)
    ):
        if (proposal.namespace.snid.lower(), proposal.version) not in versions:
            pending.append(("versions", lambda proposal=proposal: log_version_registered(proposal)))

    namespaces = (
        Namespace.objects.filter(status=NamespaceStatus.REGISTERED, current__isnull=False)
        .select_related("current")
        .order_by("snid")
    )
    stewards, resolvers, deprecations = _stewards(), _resolvers(), _deprecations()
    for namespace in namespaces.iterator(chunk_size=BATCH):
        logged = snids.get(namespace.snid.lower()) or Logged(namespace.snid)
        for fields in _stewards_missing(namespace, logged, stewards.get(namespace.pk, []), began):
            pending.append(("stewards", lambda fields=fields: log_append(STEWARD_CHANGED.name, fields)))
        current = resolvers.get(namespace.pk, [])
        if current and logged.resolvers is None and all(_before(r.created_at, began) for r in current):
            fields = {
                "snid": namespace.snid,
                "version": namespace.current.version,
                "how": "changed",
                "reason": RESOLVERS_REASON,
                "resolvers": [r.as_data() for r in current],
            }
            pending.append(("resolvers", lambda fields=fields: log_append(SNID_RESOLVERS.name, fields)))
        deprecation = deprecations.get(namespace.pk)
        if deprecation is not None and logged.deprecation is None and _before(deprecation.deprecated_at, began):
            fields = {
                "snid": namespace.snid,
                "reason": deprecation.reason,
                "successor": deprecation.successor.snid if deprecation.successor_id else None,
            }
            pending.append(("deprecations", lambda fields=fields: log_append(SNID_DEPRECATED.name, fields)))

    for namespace in Namespace.objects.filter(status=NamespaceStatus.RESERVED).order_by("snid"):
        if reservation_active(namespace) and namespace.snid.lower() not in snids:
            pending.append(
                ("reservations", lambda namespace=namespace: log_reservation_granted(namespace, renewal=False))
            )

    for start in range(0, len(pending), BATCH):
        with transaction.atomic():  # a commit per batch, not per entry
            for what, append in pending[start : start + BATCH]:
                append()
                done.counts[what] += 1
    return done, log_tree()[1]


def _stewards() -> dict[int, list]:
    from .stewardship.models import Steward, StewardState

    by_namespace: dict[int, list] = {}
    for steward in (
        Steward.objects.filter(state=StewardState.ACTIVE)
        .select_related("user")
        .order_by("namespace_id", "created_at", "id")
    ):
        by_namespace.setdefault(steward.namespace_id, []).append(steward)
    return by_namespace


def _stewards_missing(namespace, logged: Logged, stewards: list, began) -> list[dict]:
    """The steward-changed fields of the SNID's stewards the log does not hold and could not have recorded.

    Stewards are counted by the name the log gives them (two may both have chosen none)."""
    from .stewardship.selectors import logged_name

    out, seen = [], {}
    for position, steward in enumerate(stewards):
        name = logged_name(steward.user)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] <= logged.stewards.get(name, (None, 0))[1]:
            continue  # the log holds this many stewards of that name
        registrant = position == 0 and steward.invited_by_id is None and steward.reason in REGISTRANT_REASONS
        if registrant or _before(steward.confirmed_at or steward.created_at, began):
            out.append(
                {
                    "snid": namespace.snid,
                    "change": "added",
                    "steward": name,
                    "reason": steward.reason or "A steward before the log recorded stewards (log_backfill).",
                }
            )
    return out


def _resolvers() -> dict[int, list]:
    from .resolution.models import Resolver

    by_namespace: dict[int, list] = {}
    for resolver in Resolver.objects.current().order_by("namespace_id", "order", "id"):
        by_namespace.setdefault(resolver.namespace_id, []).append(resolver)
    return by_namespace


def _deprecations() -> dict[int, object]:
    from .stewardship.models import Deprecation

    return {d.namespace_id: d for d in Deprecation.objects.in_force().select_related("successor")}
