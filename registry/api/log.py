"""The log's JSON endpoints as DRF views, so the OpenAPI schema documents them (answers: ``views``)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers

from ..views import log as views
from .serializers import ErrorSerializer
from .views import PublicView


class EntryProofSerializer(serializers.Serializer):
    """Any entry of the log, exactly as stored, and the RFC 9162 proof that it is in the tree."""

    leaf = serializers.CharField(help_text="the entry: canonical JSON, exactly the bytes that are hashed")
    index = serializers.IntegerField(help_text="the entry's number in the log, from 0")
    tree_size = serializers.IntegerField(help_text="the size of the tree the proof is for")
    leaf_hash = serializers.CharField(help_text="SHA-256(0x00 || leaf), base64")
    proof = serializers.ListField(child=serializers.CharField(), help_text="the inclusion path, base64 hashes")
    root_hash = serializers.CharField(help_text="the root of the tree of tree_size leaves, base64")
    checkpoint = serializers.CharField(
        allow_null=True,
        help_text="the signed checkpoint of that tree (C2SP tlog-checkpoint), when tree_size is the log's current size",
    )


class InclusionProofSerializer(EntryProofSerializer):
    """A version's transparency-log entry and the RFC 9162 proof that it is in the tree."""

    snid = serializers.CharField()
    version = serializers.IntegerField()


class ConsistencyProofSerializer(serializers.Serializer):
    """The RFC 9162 proof that the tree of ``second`` leaves extends the tree of ``first`` leaves."""

    first = serializers.IntegerField()
    second = serializers.IntegerField()
    first_root = serializers.CharField(help_text="base64")
    second_root = serializers.CharField(help_text="base64")
    proof = serializers.ListField(child=serializers.CharField(), help_text="base64 hashes")
    checkpoint = serializers.CharField(
        allow_null=True, help_text="the signed checkpoint, when second is the log's current size"
    )


ERRORS = {
    400: ErrorSerializer,
    404: ErrorSerializer,
    429: ErrorSerializer,
    503: OpenApiResponse(ErrorSerializer, "the log cannot sign (no key configured)"),
}


class VersionProof(PublicView):
    @extend_schema(
        summary="A version's transparency-log entry, with its inclusion proof",
        description="Every approved version is an entry of the registry's signed append-only log "
        "(/help/transparency/, /log/). The answer holds the entry's canonical JSON, its number, "
        "and the RFC 9162 inclusion proof in the tree of `size` entries (default: the log's "
        "current size, with its signed checkpoint). Verify it with any RFC 9162 or Go "
        "`sumdb/tlog` implementation.",
        parameters=[
            OpenApiParameter(
                "size", int, required=False, description="prove inclusion in this earlier tree size instead"
            )
        ],
        responses={200: InclusionProofSerializer, **ERRORS},
    )
    def get(self, request, snid, version):
        return views.version_proof(request, snid, version)


class LogConsistency(PublicView):
    @extend_schema(
        summary="Proof that the log only grew between two sizes",
        description="The RFC 9162 consistency proof from the tree of `first` entries to the tree of `second` "
        "entries (default: the current size, with its signed checkpoint): a mirror that checked "
        "the log at size `first` verifies that nothing it saw was changed or removed.",
        parameters=[
            OpenApiParameter("first", int, required=True, description="the earlier tree size"),
            OpenApiParameter("second", int, required=False, description="the later tree size"),
        ],
        responses={200: ConsistencyProofSerializer, **ERRORS},
    )
    def get(self, request):
        return views.consistency(request)


class EntryProof(PublicView):
    @extend_schema(
        summary="Any transparency-log entry, with its inclusion proof",
        description="Entry `index` of the registry's log (a version registered, a reservation, resolvers, "
        "stewards, an administrative change, a deprecation: /log/ lists them in words), as stored, "
        "with the RFC 9162 inclusion proof in the current tree and its signed checkpoint.",
        responses={200: EntryProofSerializer, **ERRORS},
    )
    def get(self, request, index):
        return views.entry_proof(request, index)
