"""Deprecation of an SNID, and the chains it makes: A deprecated in favour of B, B in favour of C.

A deprecated SNID stays registered and its URNs stay valid; its successor is where new identifiers
should go. A successor may itself be deprecated later, so readers follow the chain to its live end
(``successor_chain``): A's tombstone says "superseded by B, itself superseded by C". Deprecating an SNID
that others name as their successor says so on its confirmation page (``predecessors_of``), and no
deprecation may close a cycle (A -> B -> A): the chain would have no live end.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import rules
from ..errors import Conflict, NotAllowed, ServiceError
from ..logcore.kinds import SNID_DEPRECATED, SNID_UNDEPRECATED
from ..models import Namespace
from ..transparency.log import log_append
from .models import Deprecation
from .models import StewardshipEventKind as K
from .selectors import chain_of, deprecation_of, successors_in_force
from .writes import _event, _locked, _reason, _retried, _tell, _touch


def successor_snid(text: str) -> str:
    """The SNID a successor field names: ``example2``, ``EXAMPLE2`` or ``urn:ogf:example2:``."""
    text = (text or "").strip()
    if text.lower().startswith("urn:ogf:"):
        text = text[len("urn:ogf:") :].rstrip(":")
    return text


def deprecation_check(namespace, successor: str) -> Namespace | None:
    """The successor of a deprecation of ``namespace`` (None if none is named), or a refusal: Conflict
    when the state stands in the way (already deprecated, the successor deprecated meanwhile), else
    ServiceError (a successor that is no registered SNID, or the SNID itself)."""
    if deprecation_of(namespace) is not None:
        raise Conflict(f"urn:ogf:{namespace.snid}: is already deprecated.")
    successor = successor_snid(successor)
    if not successor:
        return None
    heir = Namespace.objects.by_snid(successor).first()
    if heir is None or heir.status != "registered" or heir.current_id is None:
        raise ServiceError(f"The successor urn:ogf:{successor[:40]}: is not a registered SNID.")
    if heir.pk == namespace.pk:
        raise ServiceError("An SNID cannot be its own successor.")
    successors = successors_in_force()
    if heir.snid in successors:
        chain = chain_of(successors[heir.snid], successors)
        if namespace.snid in chain.snids:
            raise Conflict(
                f"urn:ogf:{heir.snid}: is deprecated, {chain}: naming it as the successor of "
                f"urn:ogf:{namespace.snid}: would close a cycle, a chain of successors with no current SNID at "
                "its end. Name a current SNID."
            )
        better = f" such as urn:ogf:{chain.live}:, the live end of its chain" if chain.live else ""
        said = f", {chain}" if chain else ""
        raise Conflict(f"The successor urn:ogf:{heir.snid}: is itself deprecated{said}; name a current SNID{better}.")
    return heir


def deprecation_write(namespace, actor, *, reason: str, successor: str = "", requested: bool = False) -> Deprecation:
    """Deprecate ``namespace`` in the caller's transaction, the SNID and its successor locked (``_locked``):
    the row, the public history line, the log's leaf, and a mail to its stewards, unless ``requested``: the
    approval of their request then tells them both at once (``change_decided``), one mail each."""
    heir = deprecation_check(namespace, successor)
    deprecation = Deprecation.objects.create(namespace=namespace, reason=reason, successor=heir, deprecated_by=actor)
    by = "Deprecated by an editor at a steward's request" if requested else "Deprecated by an editor"
    sentence = by + (f"; its successor is urn:ogf:{heir.snid}:." if heir else ".")
    _event(
        namespace,
        actor,
        K.DEPRECATED,
        sentence,
        public=True,
        reason=reason,
        data={"successor": heir.snid if heir else None},
    )
    _touch(namespace)
    log_append(
        SNID_DEPRECATED.name, {"snid": namespace.snid, "reason": reason, "successor": heir.snid if heir else None}
    )
    if not requested:
        _tell("snid_deprecated", namespace, {"deprecation": deprecation, "actor": actor})
    return deprecation


@_retried
@transaction.atomic
def snid_deprecate(namespace, editor, *, reason: str, successor: str = "") -> Deprecation:
    """Mark a registered SNID deprecated. It stays registered, its URNs stay valid, and it is never
    reassigned, reserved or registered again while the mark stands."""
    successor = successor_snid(successor)
    namespace = _locked(namespace, *([successor] if successor else []))
    if not rules.can_deprecate(editor, namespace):
        raise NotAllowed(
            "Only GFD editors can deprecate an SNID."
            if not rules.is_editor(editor)
            else f"You are a steward of urn:ogf:{namespace.snid}:, so another editor must deprecate it."
        )
    reason = _reason(reason, "Deprecating an SNID")
    return deprecation_write(namespace, editor, reason=reason, successor=successor)


@_retried
@transaction.atomic
def snid_undeprecate(namespace, editor, *, reason: str) -> Deprecation:
    namespace = _locked(namespace)
    if not rules.can_deprecate(editor, namespace):
        raise NotAllowed(
            "Only GFD editors can withdraw a deprecation."
            if not rules.is_editor(editor)
            else f"You are a steward of urn:ogf:{namespace.snid}:, so another editor must withdraw its deprecation."
        )
    reason = _reason(reason, "Withdrawing a deprecation")
    deprecation = Deprecation.objects.select_for_update().in_force().filter(namespace=namespace).first()
    if deprecation is None:
        raise Conflict(f"urn:ogf:{namespace.snid}: is not deprecated.")
    deprecation.ended_at, deprecation.ended_by, deprecation.end_reason = timezone.now(), editor, reason
    deprecation.save()
    _event(namespace, editor, K.UNDEPRECATED, "An editor withdrew the deprecation.", public=True, reason=reason)
    _touch(namespace)
    log_append(SNID_UNDEPRECATED.name, {"snid": namespace.snid, "reason": reason})
    _tell("snid_undeprecated", namespace, {"deprecation": deprecation, "actor": editor})
    return deprecation
