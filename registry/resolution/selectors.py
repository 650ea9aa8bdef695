"""Reads of resolution for pages, the API and exports."""

from __future__ import annotations

from django.db.models import OuterRef, Subquery

from ..enums import EventKind
from ..models import ProposalEvent
from .budget import OverrideBudget, override_budget
from .models import Resolver, ResolverCheck


def resolver_status(namespace) -> list[dict]:
    """Each current resolver's declaration, status and last check, in one query (``resolvers_and_budget``)."""
    return resolvers_and_budget(namespace)[0]


def resolvers_and_budget(namespace) -> tuple[list[dict], OverrideBudget | None]:
    """Each current resolver's declaration, status and last check, in one query, and the budget
    per URN the registry keeps for a set approved over the review's (registry/resolution/budget.py).

    The last check is read by a subquery per column (the newest row of the resolver's
    history, on the (resolver, checked_at) index): the history grows every run, for years,
    and a page must not read it all."""
    last = ResolverCheck.objects.filter(resolver=OuterRef("pk")).order_by("-checked_at", "-id")
    resolvers = (
        Resolver.objects.current()
        .filter(namespace=namespace)
        .annotate(
            last_http_code=Subquery(last.values("http_code")[:1]),
            last_latency_ms=Subquery(last.values("latency_ms")[:1]),
            last_error=Subquery(last.values("error")[:1]),
        )[:20]
    )
    resolvers = list(resolvers)
    return [
        {
            **resolver.as_data(),
            "status": resolver.status,
            "last_checked_at": resolver.last_checked_at.isoformat() if resolver.last_checked_at else None,
            "last_http_code": resolver.last_http_code,
            "last_latency_ms": resolver.last_latency_ms,
            "last_error": resolver.last_error or "",
        }
        for resolver in resolvers
    ], override_budget(resolvers)


def resolver_changes(namespace) -> list:
    """The SNID's resolver changes after approval (public: what changed, when, why)."""
    return list(
        ProposalEvent.objects.filter(proposal__namespace=namespace, kind=EventKind.RESOLVERS).order_by("-created_at")[
            :20
        ]
    )
