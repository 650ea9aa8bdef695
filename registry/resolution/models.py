"""A registered SNID's resolvers and the history of their health checks.

A proposal declares its resolvers in ``Proposal.resolvers`` (section 3.2, part of the
immutable record). On approval they become the SNID's current ``Resolver`` rows;
replacing them later (``resolution.services.resolvers_replace``) retires the rows
(``retired_at``) and adds new ones, so the checks of a retired resolver stay readable
and nothing is deleted.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class ResolverStatus(models.TextChoices):
    UNKNOWN = "unknown", "Not checked yet"
    UP = "up", "Up"
    FAILING = "failing", "Failing (not yet down)"
    DOWN = "down", "Down"


class ResolverQuerySet(models.QuerySet):
    def current(self):
        return self.filter(retired_at__isnull=True)


class Resolver(models.Model):
    namespace = models.ForeignKey("registry.Namespace", on_delete=models.PROTECT, related_name="resolvers")
    name = models.CharField(max_length=100)
    template = models.CharField(max_length=1000)
    returns = models.CharField(max_length=16, default="landing")
    media_types = models.JSONField(default=list, blank=True)
    primary = models.BooleanField(default=False)
    order = models.PositiveIntegerField(default=0)
    #: The capture program of the SNID's whole resolver set (resolution.expand.program_of), the same
    #: on each of its current rows, or null when no template names a rule.
    program = models.JSONField(null=True, blank=True)
    #: What resolving one URN of the SNID with its whole resolver set was measured to cost
    #: (resolution.cost.ResolutionCost.as_dict), the same on each current row; null: never
    #: measured (rows from before the measurement, measured on first use in the bounded worker).
    cost = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=ResolverStatus.choices, default=ResolverStatus.UNKNOWN)
    consecutive_failures = models.PositiveIntegerField(default=0)
    failing_since = models.DateTimeField(null=True, blank=True)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    retired_at = models.DateTimeField(null=True, blank=True)

    objects = ResolverQuerySet.as_manager()

    class Meta:
        ordering = ["namespace_id", "order", "id"]
        indexes = [models.Index(fields=["namespace", "retired_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.namespace_id})"

    def as_data(self) -> dict:
        """The declared part, as the interchange format and the log write it."""
        return {
            "name": self.name,
            "template": self.template,
            "returns": self.returns,
            "media_types": list(self.media_types or []),
            "primary": self.primary,
        }


class ResolverCheck(models.Model):
    """One probe of one resolver by ``check_resolvers`` (append-only history)."""

    resolver = models.ForeignKey(Resolver, on_delete=models.PROTECT, related_name="checks")
    checked_at = models.DateTimeField(default=timezone.now)
    ok = models.BooleanField()
    http_code = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    url = models.CharField(max_length=2000, blank=True)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-checked_at", "-id"]
        indexes = [models.Index(fields=["resolver", "checked_at"])]

    def __str__(self) -> str:
        return (
            f"Check of resolver {self.resolver_id} at {self.checked_at:%Y-%m-%d %H:%M}: {'ok' if self.ok else 'failed'}"
        )
