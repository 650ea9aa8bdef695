"""The table of change kinds: what a steward may ask an editor to change after approval.

Each kind names its form (the validator of the request's data), the proposal fields it may
set, what stands today (``current``: what the form starts from and what the editor compares
with), and how an approved request is applied. Nothing here reaches the syntax, the
equivalence rules, the examples or the meaning of an SNID: those change only by a new
version. Asking for a deprecation is a kind too, so an editor decides it like any request.

Stewardship sits below the resolution room and imports nothing of it: the ``resolvers`` kind
and the reader of the resolvers in force are registered here by registry.resolution.changes
(``register_change_kind``, ``register_resolvers_reader``), called from the app's ``ready``.
Without them no resolvers kind is offered and no SNID has resolvers in force.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .forms import ContactChangeForm, DeprecationRequestForm, RegistrantChangeForm
from .models import RegistrantOverlay


@dataclass(frozen=True)
class ChangeKind:
    name: str
    label: str
    #: What the public history says once it is approved: "<what> changed by an editor at the steward's request".
    what: str
    form: type
    #: (namespace, cleaned data, editor, reason) -> the values replaced, applied in the decision's transaction.
    apply: Callable
    #: (namespace) -> the values in force, as a request stores them: what the form starts from and what
    #: a request changes.
    current: Callable
    available: Callable[[], bool] = lambda: True
    #: Cleans the data beyond the form (e.g. the resolution module's own validator); raises ValueError.
    validate: Callable | None = None
    #: What the reason field asks (the deprecation's reason is public once approved).
    reason_label: str = "Why (shown to the editors)"
    #: An approval appends an ``administrative-change`` leaf (a deprecation appends its own).
    logged: bool = True
    #: The approval's history line is public (a deprecation writes its own public line).
    public: bool = True
    #: (cleaned data) -> other SNIDs the decision locks (a deprecation's successor), in the same order as all.
    also_locks: Callable[[dict], list[str]] = lambda data: []
    #: History sentences of this kind's moves where the moves' own ("A steward asked to change the {what}.")
    #: do not fit, by action.
    summaries: tuple[tuple[str, str], ...] = ()
    #: (stored values) -> the form's values (the resolvers' list as its lines).
    initial: Callable[[dict], dict] = dict

    def summary(self, move) -> str:
        """The history's sentence for ``move`` of a request of this kind."""
        text = dict(self.summaries).get(move.action, move.summary)
        return text.format(what=self.what, What=self.what[:1].upper() + self.what[1:])


def in_force_prefetch(namespaces) -> None:
    """Read the overlays and resolvers of many SNIDs in two queries (a list page), kept on each namespace
    for ``overlay_of`` and ``resolvers_in_force``."""
    namespaces = [n for n in namespaces if n.pk is not None]
    ids = {n.pk for n in namespaces}
    rows = {row.namespace_id: row for row in RegistrantOverlay.objects.filter(namespace_id__in=ids)}
    resolvers = _resolvers_of(ids)
    for namespace in namespaces:
        namespace._overlay_row = rows.get(namespace.pk)
        namespace._resolvers_in_force = resolvers[namespace.pk]


def overlay_of(namespace) -> dict:
    """The overlay values in force for the namespace's current version ({} when none applies)."""
    if hasattr(namespace, "_overlay_row"):
        row = namespace._overlay_row
    else:
        row = RegistrantOverlay.objects.filter(namespace_id=namespace.pk).first()
    if row is None or namespace.current is None or row.version != namespace.current.version:
        return {}
    return dict(row.values)


def current_values(namespace, fields) -> dict:
    """The values in force for ``fields``: the overlay's where it applies, else the current version's."""
    overlay = overlay_of(namespace)
    values = {name: getattr(namespace.current, name) for name in fields}
    values.update({k: v for k, v in overlay.items() if k in values})
    return values


def _overlay_apply(fields):
    def apply(namespace, data: dict, editor, reason: str) -> dict:
        before = current_values(namespace, fields)
        row = RegistrantOverlay.objects.select_for_update().filter(namespace_id=namespace.pk).first()
        values = dict(row.values) if row is not None and row.version == namespace.current.version else {}
        values.update({name: data[name] for name in fields if name in data})
        if row is None:
            RegistrantOverlay.objects.create(namespace=namespace, version=namespace.current.version, values=values)
        else:
            row.version, row.values = namespace.current.version, values
            row.save()
        return {name: before[name] for name in fields if name in data}

    return apply


def _overlay_current(fields):
    return lambda namespace: current_values(namespace, fields)


CONTACT_FIELDS = ("registrant_public_contact",)
REGISTRANT_FIELDS = ("registrant_name", "registrant_organisation", "registrant_email", "registrant_address")
#: Every proposal field an overlay may carry (public pages apply only these).
OVERLAY_FIELDS = CONTACT_FIELDS + REGISTRANT_FIELDS


#: (namespace ids) -> {id: its resolvers in force, in their order, as the interchange format writes them}:
#: registered by the resolution room (register_resolvers_reader); none registered, none are in force.
_resolvers_reader: Callable[[set[int]], dict[int, list[dict]]] | None = None


def register_resolvers_reader(reader: Callable[[set[int]], dict[int, list[dict]]]) -> None:
    """The resolution room tells stewardship how to read the resolvers in force (app ready)."""
    global _resolvers_reader
    _resolvers_reader = reader


def _resolvers_of(ids: set[int]) -> dict[int, list[dict]]:
    found = _resolvers_reader(ids) if _resolvers_reader is not None and ids else {}
    return {pk: found.get(pk, []) for pk in ids}


def resolvers_in_force(namespace) -> list[dict]:
    """The SNID's current resolvers, in their order, as the interchange format writes them."""
    if hasattr(namespace, "_resolvers_in_force"):
        return [dict(r) for r in namespace._resolvers_in_force]
    return _resolvers_of({namespace.pk})[namespace.pk]


def _deprecation_current(namespace) -> dict:
    return {"successor": ""}


def _deprecation_validate(namespace, data: dict) -> dict:
    from ..errors import ServiceError
    from .deprecation import deprecation_check

    try:
        heir = deprecation_check(namespace, data.get("successor", ""))
    except ServiceError as exc:
        raise ValueError(exc.message) from None
    return {"successor": heir.snid} if heir is not None else {}


def _deprecation_apply(namespace, data: dict, editor, reason: str) -> dict:
    from .deprecation import deprecation_write

    deprecation_write(namespace, editor, reason=reason, successor=data.get("successor", ""), requested=True)
    return {"successor": ""}


CHANGE_KINDS: dict[str, ChangeKind] = {
    kind.name: kind
    for kind in (
        ChangeKind(
            "contact",
            "Public contact",
            "contact",
            ContactChangeForm,
            _overlay_apply(CONTACT_FIELDS),
            _overlay_current(CONTACT_FIELDS),
        ),
        ChangeKind(
            "registrant",
            "Registrant's organisation and contact details",
            "registrant's details",
            RegistrantChangeForm,
            _overlay_apply(REGISTRANT_FIELDS),
            _overlay_current(REGISTRANT_FIELDS),
        ),
        ChangeKind(
            "deprecation",
            "Deprecation",
            "status",
            DeprecationRequestForm,
            _deprecation_apply,
            _deprecation_current,
            validate=_deprecation_validate,
            reason_label="Why the SNID should no longer be used (public once approved)",
            logged=False,
            public=False,
            also_locks=lambda data: [data["successor"]] if data.get("successor") else [],
            summaries=(
                ("request", "A steward asked an editor to deprecate the SNID."),
                ("approve", "An editor approved a steward's request to deprecate the SNID."),
                ("decline", "An editor declined a steward's request to deprecate the SNID."),
            ),
        ),
    )
}


def register_change_kind(kind: ChangeKind, *, before: str | None = None) -> None:
    """Offer ``kind`` (a room above stewardship adds its own: registry.resolution.changes), placed
    before the kind named ``before`` in the lists stewards and editors see; registering a name again
    replaces it."""
    kinds = [k for k in CHANGE_KINDS.values() if k.name != kind.name]
    at = next((i for i, k in enumerate(kinds) if k.name == before), len(kinds))
    kinds.insert(at, kind)
    CHANGE_KINDS.clear()
    CHANGE_KINDS.update((k.name, k) for k in kinds)


def kinds_offered() -> list[ChangeKind]:
    return [kind for kind in CHANGE_KINDS.values() if kind.available()]
