"""The full public registry as one JSON document: ``/urn/registry-full.json`` (docs/registry-exports.md).

``registry.json`` shows each SNID's current version. The transparency log holds more:
every approved version, each SNID's resolvers, stewards and deprecation. A mirror that
checks the log (``python -m registry.verify``) must see all of it as the site publishes
it *now*, or a rewrite of an earlier version, a resolver re-pointed or a deprecation
slipped in behind the application's back would pass unseen. This document shows it,
built from the same rows the pages, the API, resolution and the lookup read:

- ``versions``: every approved version exactly as approved (no administrative overlay:
  ``registry.json`` shows the current record with it), its record as the log writes it
  (``transparency.records.version_record``), the SHA-256 of its whole registration
  document as the registry holds it now (``document_sha256``, equal to the logged digest
  unless the document was rewritten: its prose sections or the unpublished details) and
  the SHA-256 of each public prose section (so a mirror can say which one changed);
- ``resolvers``: the declared part of the SNID's current resolvers, in order;
- ``stewards``: the SNID's stewards by the name the log gives them (the name they chose, never
  the login name; ``registrant``: the registrant, made the first steward on approval), every
  active stewardship, those of deactivated accounts too
  (their stewardship has not ended, though the SNID page no longer shows them; whether an
  account is deactivated is not published);
- ``deprecation``: the deprecation in force, or null.

Built with one query per table (never per SNID) and cached with the other exports.
"""

from __future__ import annotations

from django.db.models import Min, Q
from django.utils import timezone

from . import interchange
from .enums import NamespaceStatus
from .exports import last_modified
from .gfd191 import PROSE_KEYS
from .logcore.kinds import sha256_hex
from .models import Namespace, Proposal
from .transparency.records import version_record


def full_document(updated=None) -> dict:
    """Every registered SNID with all its approved versions, resolvers, stewards and deprecation, and the
    active reservations (as ``registry.json`` lists them)."""
    namespaces = list(
        Namespace.objects.filter(status=NamespaceStatus.REGISTERED, current__isnull=False)
        .order_by("snid")
        .values_list("pk", "snid")
    )
    versions = _versions()
    resolvers = _resolvers()
    stewards = _stewards()
    deprecations = _deprecations()
    snids = []
    for pk, snid in namespaces:
        deprecation = deprecations.get(pk)
        snids.append(
            {
                "snid": snid,
                "status": "deprecated" if deprecation else "registered",
                "deprecation": deprecation,
                "resolvers": resolvers.get(pk, []),
                "stewards": stewards.get(pk, []),
                "versions": versions.get(pk, []),
            }
        )
    changed = last_modified() if updated is None else updated
    return {
        "registry": "urn:ogf subnamespace identifiers: the full public registry",
        "specification": "GFD.191, RFC 6453",
        "updated": (changed or timezone.now()).isoformat(),
        "snids": snids,
        "reservations": _reservations(),
    }


def _reservations() -> list[dict]:
    """The active reservations, as ``registry.json`` lists them (``selectors.reservation_active``)."""
    today = timezone.localdate()
    rows = (
        Namespace.objects.filter(status=NamespaceStatus.RESERVED)
        .filter(Q(reserved_until__isnull=True) | Q(reserved_until__gte=today))
        .order_by("snid")
        .values_list("snid", "reserved_until")
    )
    return [{"snid": snid, "reserved_until": until.isoformat() if until else None} for snid, until in rows]


def _versions() -> dict[int, list[dict]]:
    by_namespace: dict[int, list[dict]] = {}
    proposals = (
        Proposal.objects.approved()
        .filter(namespace__isnull=False)
        .select_related("namespace")
        .order_by("namespace_id", "version")
    )
    for proposal in proposals.iterator(chunk_size=500):
        record = version_record(proposal)
        sections = proposal.sections or {}
        record["document_sha256"] = sha256_hex(interchange.dump(proposal.to_data()))
        record["sections_sha256"] = {key: sha256_hex(sections[key]) for key in PROSE_KEYS if sections.get(key)}
        by_namespace.setdefault(proposal.namespace_id, []).append(record)
    return by_namespace


def _resolvers() -> dict[int, list[dict]]:
    from .resolution.models import Resolver

    by_namespace: dict[int, list[dict]] = {}
    for resolver in Resolver.objects.current().order_by("namespace_id", "order", "id"):
        by_namespace.setdefault(resolver.namespace_id, []).append(resolver.as_data())
    return by_namespace


def _stewards() -> dict[int, list[dict]]:
    from .stewardship.models import Steward, StewardState
    from .stewardship.registration import REGISTRANT_REASON
    from .stewardship.selectors import logged_name

    by_namespace: dict[int, list[dict]] = {}
    rows = (
        Steward.objects.filter(state=StewardState.ACTIVE)
        .select_related("user")
        .order_by("namespace_id", "created_at", "id")
    )
    first = dict(Steward.objects.values("namespace_id").annotate(first=Min("id")).values_list("namespace_id", "first"))
    for steward in rows:
        user = steward.user
        by_namespace.setdefault(steward.namespace_id, []).append(
            {
                "name": logged_name(user),
                "registrant": first.get(steward.namespace_id) == steward.pk
                and steward.invited_by_id is None
                and steward.reason == REGISTRANT_REASON,
            }
        )
    return by_namespace


def _deprecations() -> dict[int, dict]:
    from .stewardship.models import Deprecation

    return {
        d.namespace_id: {
            "since": d.deprecated_at.date().isoformat(),
            "reason": d.reason,
            "successor": d.successor.snid if d.successor_id else None,
        }
        for d in Deprecation.objects.in_force().select_related("successor")
    }
