"""``GET /api/resolve/?urn=``: the resolution answer as JSON, documented in the OpenAPI schema."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers

from ..resolution.models import ResolverStatus
from ..resolving.templates import RETURNS
from .serializers import ErrorSerializer, LookupResultSerializer
from .views import PublicView


class ResolvedSerializer(serializers.Serializer):
    name = serializers.CharField()
    url = serializers.CharField(allow_null=True, help_text="this resolver's URL for the URN")
    status = serializers.ChoiceField(choices=ResolverStatus.choices)
    primary = serializers.BooleanField()
    returns = serializers.ChoiceField(choices=RETURNS)
    media_types = serializers.ListField(child=serializers.CharField())
    problem = serializers.CharField(required=False, help_text="why no URL could be made")


class ComponentsSerializer(serializers.Serializer):
    r = serializers.CharField(allow_null=True, help_text="RFC 8141 r-component (?+), passed on as urn-r")
    q = serializers.CharField(allow_null=True, help_text="RFC 8141 q-component (?=), kept as the URL's query")
    f = serializers.CharField(allow_null=True, help_text="fragment (#), left to the client")


class ResolveResultSerializer(LookupResultSerializer):
    components = ComponentsSerializer()
    resolvers = ResolvedSerializer(many=True, required=False)
    location = serializers.CharField(
        allow_null=True, help_text="where /resolve/ would send a browser; null: the landing page"
    )


class ResolveApi(PublicView):
    @extend_schema(
        summary="Where does this urn:ogf: URN resolve?",
        description="The lookup answer plus every resolver's URL for the URN (each template filled from "
        "the normalised URN and what the grammar's rules matched), each resolver's health "
        "status, and `location`: the URL `/resolve/` and `/urn:ogf:…` redirect to (the "
        "primary resolver, or `provider`; null when none is declared or all are down). "
        "CORS allowed; ETag tied to the registry.",
        parameters=[
            OpenApiParameter(
                "urn", str, required=True, description="a urn:ogf: URN, RFC 8141 ?+r, ?=q and #f components allowed"
            ),
            OpenApiParameter("provider", str, required=False, description="a resolver's name"),
        ],
        responses={
            200: ResolveResultSerializer,
            400: ErrorSerializer,
            429: OpenApiResponse(ErrorSerializer, "throttled; see Retry-After"),
        },
    )
    def get(self, request):
        from ..views.resolve import answer_for

        return answer_for(request, api=True)
