"""Signals of the namespaces room, for rooms that must hear of a change without importing its sender.

``registry_changed`` is sent after a committed write that changes what a lookup answers
(a deprecation, a steward's change of the registrant's details): the lookup (above
stewardship) drops its in-memory index on it, while stewardship, which writes those
changes, imports nothing of the lookup.
"""

from __future__ import annotations

from django.dispatch import Signal

#: Sent with no arguments after the transaction that changed the registry commits.
registry_changed = Signal()


def registry_changed_send() -> None:
    """Tell every receiver the registry changed (pass to ``transaction.on_commit``)."""
    registry_changed.send(sender=None)
