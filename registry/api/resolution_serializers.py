"""How resolvers read in the API: declared (a version's section 3.2) and in force (with health).

A room of its own so the registry API (``registry.api.serializers``) and the resolve
endpoint (``resolution.api``) both describe resolvers with the same typed fields in the
OpenAPI schema, without importing each other.
"""

from __future__ import annotations

from rest_framework import serializers

from ..resolution.models import ResolverStatus
from ..resolving.templates import RETURNS


class DeclaredResolverSerializer(serializers.Serializer):
    name = serializers.CharField()
    template = serializers.CharField(help_text="https URL with {nss} and {RuleName} placeholders")
    returns = serializers.ChoiceField(choices=RETURNS)
    media_types = serializers.ListField(child=serializers.CharField())
    primary = serializers.BooleanField()


class ResolverStatusSerializer(DeclaredResolverSerializer):
    status = serializers.ChoiceField(
        choices=ResolverStatus.choices,
        help_text=(
            "unknown (not checked yet), up, failing (failed its last checks, not yet down), down (skipped by "
            "resolution)"
        ),
    )
    last_checked_at = serializers.DateTimeField(allow_null=True, help_text="the last health check, null if none")
    last_http_code = serializers.IntegerField(allow_null=True)
    last_latency_ms = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField(allow_blank=True)


class ResolutionBudgetSerializer(serializers.Serializer):
    """What one URN of an SNID whose resolvers were approved over the review's budget may cost
    (registry/resolution/budget.py)."""

    approved_over_budget = serializers.BooleanField()
    review_budget_ms = serializers.FloatField(help_text="the review's budget per URN of up to 4,096 characters")
    budget_ms_per_urn = serializers.FloatField(help_text="CPU time the registry gives one URN of this SNID")
    measured_ms = serializers.FloatField(allow_null=True, help_text="the review's figure; null if never measured")
    measured_is_lower_bound = serializers.BooleanField(allow_null=True, help_text="measuring stopped: at least this")
    measured_length = serializers.IntegerField(allow_null=True, help_text="the longest URN measured, in characters")
    summary = serializers.CharField()
