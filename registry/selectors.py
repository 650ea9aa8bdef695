"""Reads: the queries pages, the API, commands and services share."""

from __future__ import annotations

import difflib

from django.db.models import Max, OuterRef, Subquery
from django.db.models.functions import Lower
from django.utils import timezone

from .checklist import Finding, RegistryFacts, run_checklist
from .enums import NamespaceStatus, ProposalState
from .interchange import ProposalData
from .models import Namespace, Proposal


#: Longest search text any search box uses.
SEARCH_MAX_CHARS = 200


def search_text(raw: str | None) -> str:
    """Search-box input the database accepts: NUL (refused by PostgreSQL) and other control
    characters become spaces, ends trimmed, at most SEARCH_MAX_CHARS characters."""
    text = "".join(" " if ord(c) < 0x20 or ord(c) == 0x7F or 0xD800 <= ord(c) <= 0xDFFF else c
                   for c in (raw or "")[:SEARCH_MAX_CHARS * 2])
    return " ".join(text.split())[:SEARCH_MAX_CHARS]


def namespace_get(snid: str) -> Namespace | None:
    return Namespace.objects.by_snid(snid).select_related("current").first()


def reservation_active(namespace: Namespace, today=None) -> bool:
    today = today or timezone.localdate()
    return namespace.status == NamespaceStatus.RESERVED and (
        namespace.reserved_until is None or namespace.reserved_until >= today
    )


def latest_version(namespace: Namespace | None, exclude_pk: int | None = None) -> int | None:
    if namespace is None:
        return None
    approved = namespace.proposals.approved()
    if exclude_pk is not None:
        approved = approved.exclude(pk=exclude_pk)
    return approved.aggregate(latest=Max("version"))["latest"]


def registry_facts(snid: str, submitter_id: int | None = None,
                   exclude_pk: int | None = None) -> RegistryFacts:
    """What the checklist needs to know about ``snid``, as it stood before the proposal
    ``exclude_pk`` (so an approved proposal is not compared with its own registration)."""
    namespace = namespace_get(snid) if snid else None
    if namespace is None:
        return RegistryFacts()
    if namespace.status == NamespaceStatus.REGISTERED:
        latest = latest_version(namespace, exclude_pk)
        if latest is None:
            return RegistryFacts()  # registered by the proposal being checked
        owner_id = namespace.current.submitter_id if namespace.current else None
        return RegistryFacts(
            registered=True,
            latest_version=latest,
            own_namespace=submitter_id is not None and owner_id == submitter_id,
            submitter_known=submitter_id is not None,
        )
    if reservation_active(namespace):
        return RegistryFacts(
            reserved=True,
            reserved_for_applicant=submitter_id is not None
            and namespace.reserved_for_id == submitter_id,
            reserved_until=namespace.reserved_until.isoformat() if namespace.reserved_until else None,
        )
    return RegistryFacts()


def proposal_findings(proposal: Proposal) -> list[Finding]:
    facts = registry_facts(proposal.snid, proposal.submitter_id, exclude_pk=proposal.pk)
    return run_checklist(proposal.to_data(), facts)


def data_findings(data: ProposalData, submitter_id: int | None = None) -> list[Finding]:
    return run_checklist(data, registry_facts(data.snid, submitter_id))


def proposals_for(user):
    return Proposal.objects.filter(submitter=user).select_related("namespace")


def pending_proposals():
    return (
        Proposal.objects.filter(state=ProposalState.SUBMITTED)
        .select_related("submitter", "namespace")
        .order_by("submitted_at", "id")
    )


def snid_suggestions(snid: str, limit: int = 5) -> list[str]:
    """Registered SNIDs close to ``snid`` (for helpful 404s); never sends ``snid`` to the database."""
    registered = {s.lower(): s for s in Namespace.objects.registered().values_list("snid", flat=True)}
    close = difflib.get_close_matches(snid.lower(), list(registered), n=limit, cutoff=0.6)
    return [registered[c] for c in close]


def with_registration_kind(proposals):
    """Annotate what the registry already holds under each proposal's SNID, in the same query.

    ``registered_namespace_id`` / ``registered_current_id``: the registered namespace of that
    SNID (compared case-insensitively) and its current version, or None. With the proposal's
    own ``namespace_id`` this tells a new SNID from a new version and from a duplicate
    (see ``registration_kind``).
    """
    registered = Namespace.objects.filter(snid__lower=Lower(OuterRef("snid")), status=NamespaceStatus.REGISTERED)
    return proposals.annotate(registered_namespace_id=Subquery(registered.values("id")[:1]),
                              registered_current_id=Subquery(registered.values("current_id")[:1]))


def registration_kind(proposal) -> str:
    """"new", "version" or "duplicate", from the annotations of ``with_registration_kind``."""
    namespace_id = getattr(proposal, "registered_namespace_id", None)
    if namespace_id is None:
        return "new"
    if proposal.pk == proposal.registered_current_id:
        return "new" if proposal.version == 1 else "version"
    if proposal.namespace_id == namespace_id:
        return "version"
    return "duplicate"
