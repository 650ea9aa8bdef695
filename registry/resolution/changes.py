"""The resolvers as a kind of change a steward may ask for, given to stewardship.

Stewardship (below this room) keeps the table of change kinds and imports nothing of
resolution; ``install`` (called from the app's ``ready``) registers the ``resolvers`` kind —
its form, what stands today, the validation a registration gets and the replacement an
approval applies — and how to read the resolvers in force.
"""

from __future__ import annotations

from ..resolving.lines import resolvers_from_lines, resolvers_to_lines
from ..stewardship.changes import ChangeKind, register_change_kind, register_resolvers_reader, resolvers_in_force
from ..stewardship.forms import ResolversChangeForm
from .models import Resolver


def resolvers_read(ids: set[int]) -> dict[int, list[dict]]:
    """The resolvers in force of the SNIDs with these ids, in their order, in one query."""
    resolvers: dict[int, list[dict]] = {pk: [] for pk in ids}
    for resolver in Resolver.objects.current().filter(namespace_id__in=ids).order_by("namespace_id", "order", "id"):
        resolvers[resolver.namespace_id].append(resolver.as_data())
    return resolvers


def resolvers_parsed(value) -> list[dict]:
    """Resolvers from the form's lines (``name | URL template | returns | media types | primary``) or a list,
    as they will be installed: the first is the primary unless a line says ``primary``."""
    resolvers = resolvers_from_lines(value) if isinstance(value, str) else [dict(r) for r in value or ()]
    if resolvers and not any(r.get("primary") for r in resolvers):
        resolvers[0]["primary"] = True
    return resolvers


def _resolvers_current(namespace) -> dict:
    return {"resolvers": resolvers_in_force(namespace)}


def _resolvers_initial(values: dict) -> dict:
    resolvers = values.get("resolvers", [])
    return {"resolvers": resolvers if isinstance(resolvers, str) else resolvers_to_lines(resolvers)}


def _resolvers_validate(namespace, data: dict) -> dict:
    from .services import resolvers_validate  # the review and the log, on first use (registry/apps.py)

    resolvers = resolvers_parsed(data.get("resolvers", ""))
    errors = resolvers_validate(namespace.snid, resolvers)  # checked as at registration: [] when they can be set
    if errors:
        raise ValueError("; ".join(errors))
    if resolvers == resolvers_in_force(namespace):
        raise ValueError("these are the resolvers in force already; change a line, add one or remove one.")
    # What is stored is what the editor is shown and what an approval installs, line for line.
    return {"resolvers": resolvers}


def _resolvers_apply(namespace, data: dict, editor, reason: str) -> dict:
    from .services import resolvers_replace

    before = resolvers_in_force(namespace)
    resolvers_replace(namespace.snid, resolvers_parsed(data["resolvers"]), editor, reason)
    return {"resolvers": before}


RESOLVERS_KIND = ChangeKind(
    "resolvers",
    "Resolvers",
    "resolvers",
    ResolversChangeForm,
    _resolvers_apply,
    _resolvers_current,
    validate=_resolvers_validate,
    initial=_resolvers_initial,
    # The change is logged once, by the snid-resolvers entry resolvers_replace appends.
    logged=False,
)


def install() -> None:
    """Give stewardship the resolvers kind (offered after the registrant's details, before a
    deprecation) and the reader of the resolvers in force."""
    register_resolvers_reader(resolvers_read)
    register_change_kind(RESOLVERS_KIND, before="deprecation")
