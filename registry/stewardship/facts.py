"""What a change request changes, as editors and stewards read it before deciding or sending it.

Each field is named as the GFD.191 template names it (``gfd191.place_name``: "1.3 Declared
Registrant: public contact"), with the value in force and the value asked for side by side;
resolvers are two tables, as they stand and as asked for, each row saying what happens to it.
The same facts are shown on the steward's preview, the editors' queue, the decision's
confirmation page and in the mails, so what is approved is what was shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..gfd191 import place_name
from .changes import CHANGE_KINDS, ChangeKind
from .models import ChangeRequest, ChangeState, StewardshipEvent, StewardshipEventKind

#: What the facts call a value that is not set.
NOT_SET = "(not set)"


@dataclass(frozen=True)
class FieldChange:
    key: str
    label: str
    current: str
    requested: str

    @property
    def changed(self) -> bool:
        return self.current != self.requested


@dataclass(frozen=True)
class ResolverRow:
    resolver: dict
    #: kept | changed | new | removed
    fate: str

    @property
    def fate_label(self) -> str:
        return {"kept": "unchanged", "changed": "changed", "new": "added", "removed": "removed"}[self.fate]


@dataclass
class ChangeFacts:
    kind: ChangeKind
    fields: list[FieldChange] = field(default_factory=list)
    resolvers_now: list[ResolverRow] | None = None
    resolvers_asked: list[ResolverRow] | None = None
    #: What stands now is not what stood when the request was made (another change came first).
    moved: bool = False

    @property
    def label(self) -> str:
        return self.kind.label


def label_of(kind: ChangeKind, key: str) -> str:
    """A field as the template names it, else as the kind's form labels it."""
    name = place_name(key)
    if name:
        return name
    form_field = kind.form.base_fields.get(key)
    return str(form_field.label) if form_field is not None else key


def _text(value) -> str:
    if value in (None, ""):
        return NOT_SET
    return str(value)


def _resolver_key(resolver: dict) -> str:
    return (resolver.get("name") or "").strip().lower()


def resolver_rows(now: list[dict], asked: list[dict]) -> tuple[list[ResolverRow], list[ResolverRow]]:
    """Both tables: each resolver in force (kept, changed or removed) and each asked for (kept, changed or
    added), matched by name."""
    asked_by = {_resolver_key(r): r for r in asked}
    now_by = {_resolver_key(r): r for r in now}

    def fate(resolver, others, missing):
        other = others.get(_resolver_key(resolver))
        return missing if other is None else "kept" if other == resolver else "changed"

    return (
        [ResolverRow(r, fate(r, asked_by, "removed")) for r in now],
        [ResolverRow(r, fate(r, now_by, "new")) for r in asked],
    )


def facts_of(kind: ChangeKind, now: dict, asked: dict, *, base: dict | None = None) -> ChangeFacts:
    """The facts of a change from ``now`` (the values in force, as the kind's ``current`` gives them) to
    ``asked`` (the request's data); ``base``: what stood when it was asked for, if known."""
    facts = ChangeFacts(kind, moved=base is not None and any(base.get(k) != now.get(k) for k in base))
    if kind.name == "resolvers":
        facts.resolvers_now, facts.resolvers_asked = resolver_rows(now.get("resolvers", []), asked.get("resolvers", []))
        return facts
    if kind.name == "deprecation":
        successor = asked.get("successor")
        facts.fields = [
            FieldChange("status", "Status", "registered", "deprecated"),
            FieldChange("successor", "Successor SNID", NOT_SET, f"urn:ogf:{successor}:" if successor else "none named"),
        ]
        return facts
    facts.fields = [
        FieldChange(key, label_of(kind, key), _text(now.get(key)), _text(asked.get(key)))
        for key in kind.form.base_fields
        if key in asked
    ]
    return facts


def request_facts(request: ChangeRequest, *, base: dict | None = None) -> ChangeFacts:
    """A request's facts: against what stands (while it waits, or what stayed when it was declined), or
    against what it replaced once approved."""
    kind = CHANGE_KINDS[request.kind]
    if request.state == ChangeState.APPROVED:
        return facts_of(kind, request.before or {}, request.data)
    return facts_of(kind, kind.current(request.namespace), request.data, base=base)


def bases_of(requests) -> dict[int, dict]:
    """What stood when each request was made (kept with its ``change-requested`` event), in one query."""
    requests = list(requests)
    events = StewardshipEvent.objects.filter(
        kind=StewardshipEventKind.CHANGE_REQUESTED, namespace_id__in={r.namespace_id for r in requests}
    )
    wanted = {r.pk for r in requests}
    bases = {}
    for data in events.values_list("data", flat=True):
        if isinstance(data, dict) and data.get("request") in wanted and isinstance(data.get("base"), dict):
            bases[data["request"]] = data["base"]
    return bases
