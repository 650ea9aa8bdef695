"""Reads of resolution for pages, the API and exports."""

from __future__ import annotations

from ..enums import EventKind
from ..models import ProposalEvent
from .models import Resolver


def resolver_status(namespace) -> list[dict]:
    """Each current resolver's declaration, status and last check (two queries)."""
    resolvers = list(Resolver.objects.current().filter(namespace=namespace)[:20])
    last = {}
    for check in (Resolver.checks.rel.related_model.objects.filter(resolver__in=resolvers)
                  .order_by("resolver_id", "-checked_at", "-id")):
        last.setdefault(check.resolver_id, check)
    out = []
    for resolver in resolvers:
        check = last.get(resolver.pk)
        out.append({**resolver.as_data(), "status": resolver.status,
                    "last_checked_at": resolver.last_checked_at.isoformat() if resolver.last_checked_at else None,
                    "last_http_code": check.http_code if check else None,
                    "last_latency_ms": check.latency_ms if check else None,
                    "last_error": check.error if check else ""})
    return out


def resolver_changes(namespace) -> list:
    """The SNID's resolver changes after approval (public: what changed, when, why)."""
    return list(ProposalEvent.objects.filter(proposal__namespace=namespace, kind=EventKind.RESOLVERS)
                .order_by("-created_at")[:20])
