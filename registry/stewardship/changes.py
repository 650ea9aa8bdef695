"""The table of administrative change kinds: what a steward may ask to change after approval.

Each kind names its form (the validator of the request's data), the proposal fields it may
set, and how an approved request is applied. Nothing here reaches the syntax, the
equivalence rules, the examples or the meaning of an SNID: those change only by a new
version. A kind whose module is not installed (``resolvers`` needs ``registry.resolution``)
is not offered.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Callable

from .forms import ContactChangeForm, RegistrantChangeForm, ResolversChangeForm
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
    available: Callable[[], bool] = lambda: True
    #: Cleans the data beyond the form (e.g. the resolution module's own validator); raises ValueError.
    validate: Callable | None = None


def current_values(namespace, fields) -> dict:
    """The values in force for ``fields``: the overlay's where it applies, else the current version's."""
    overlay = overlay_of(namespace)
    values = {name: getattr(namespace.current, name) for name in fields}
    values.update({k: v for k, v in overlay.items() if k in values})
    return values


def overlay_of(namespace) -> dict:
    """The overlay values in force for the namespace's current version ({} when none applies)."""
    row = RegistrantOverlay.objects.filter(namespace_id=namespace.pk).first()
    if row is None or namespace.current is None or row.version != namespace.current.version:
        return {}
    return dict(row.values)


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


CONTACT_FIELDS = ("registrant_public_contact",)
REGISTRANT_FIELDS = ("registrant_name", "registrant_organisation", "registrant_email", "registrant_address")
#: Every proposal field an overlay may carry (public pages apply only these).
OVERLAY_FIELDS = CONTACT_FIELDS + REGISTRANT_FIELDS


def _resolution() -> bool:
    try:
        return importlib.util.find_spec("registry.resolution.services") is not None
    except ModuleNotFoundError:  # no registry.resolution package at all
        return False


def _resolvers_validate(namespace, data: dict) -> dict:
    from registry.resolution.services import resolvers_validate  # present only with the resolution module

    return {"resolvers": resolvers_validate(namespace.snid, data)}


def _resolvers_apply(namespace, data: dict, editor, reason: str) -> dict:
    from registry.resolution.services import resolvers_replace

    resolvers_replace(namespace.snid, data["resolvers"], editor, reason)
    return {}


CHANGE_KINDS: dict[str, ChangeKind] = {
    kind.name: kind for kind in (
        ChangeKind("contact", "Public contact", "contact", ContactChangeForm, _overlay_apply(CONTACT_FIELDS)),
        ChangeKind("registrant", "Registrant's organisation and contact details", "registrant's details",
                   RegistrantChangeForm, _overlay_apply(REGISTRANT_FIELDS)),
        ChangeKind("resolvers", "Resolvers", "resolvers", ResolversChangeForm, _resolvers_apply,
                   available=_resolution, validate=_resolvers_validate),
    )
}


def kinds_offered() -> list[ChangeKind]:
    return [kind for kind in CHANGE_KINDS.values() if kind.available()]
