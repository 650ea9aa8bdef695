"""Signals of the namespaces room, for rooms that must hear of a change without importing its sender.

``registry_changed`` is sent after a committed write that changes what a lookup answers
(an approval, a reservation, a deprecation, a steward's change): the lookup (above
stewardship) drops its in-memory index on it, while stewardship, which writes those
changes, imports nothing of the lookup.
"""

from __future__ import annotations

from django.dispatch import Signal

#: Sent after the transaction that changed the registry commits, with ``snids``: the SNIDs whose
#: state changed (the open proposals of those SNIDs are checked again: ``services.findings``).
registry_changed = Signal()


def registry_changed_send(*snids: str) -> None:
    """Tell every receiver the registry changed, for ``snids`` (pass to ``transaction.on_commit``)."""
    registry_changed.send(sender=None, snids=snids)
