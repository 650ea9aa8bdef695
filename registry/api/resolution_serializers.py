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
