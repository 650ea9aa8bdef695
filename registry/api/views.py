"""API views. Public registry endpoints are anonymous and cacheable; proposal endpoints
use the same predicates (``rules``) and the same service (``services``) as the site."""

from __future__ import annotations

from django.db.models import Q
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, permissions, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import rules, services
from ..enums import NamespaceStatus
from ..lookup import NotAnOgfUrn, lookup_urn
from ..models import Namespace, Proposal
from ..selectors import pending_proposals, proposals_for, reservation_active
from . import serializers as s
from .http import cacheable, etag_for, not_modified

MAX_BATCH = 10_000


class PublicView(APIView):
    """Anonymous, read-only registry data: no session (so no CSRF), throttled per address."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]


def _bad_request(message: str) -> Response:
    return Response({"detail": message}, status=status.HTTP_400_BAD_REQUEST)


# --- the registry ------------------------------------------------------------------------------


@extend_schema(
    summary="Registered SNIDs",
    parameters=[OpenApiParameter("q", str, description="filter by text in the SNID or title")],
)
class SnidList(generics.ListAPIView):
    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    serializer_class = s.SnidListItemSerializer

    def get_queryset(self):
        queryset = Namespace.objects.registered().filter(current__isnull=False).select_related("current")
        text = self.request.query_params.get("q", "").strip()[:200]
        if text:
            queryset = queryset.filter(Q(snid__icontains=text) | Q(current__title__icontains=text))
        return queryset

    def list(self, request, *args, **kwargs):
        etag = etag_for(request)
        return not_modified(request, etag) or cacheable(super().list(request, *args, **kwargs), etag)


def _namespace_or_404(snid: str) -> Namespace:
    namespace = Namespace.objects.by_snid(snid).select_related("current", "current__namespace").first()
    if namespace is None or (namespace.status == NamespaceStatus.RESERVED and not reservation_active(namespace)):
        close = Namespace.objects.registered().filter(snid__icontains=snid[:3]).values_list("snid", flat=True)[:5]
        hint = f" Similar registered SNIDs: {', '.join(close)}." if close else ""
        raise Http404(f"urn:ogf:{snid}: is neither registered nor reserved.{hint}")
    return namespace


class SnidDetail(PublicView):
    @extend_schema(summary="One SNID: its current version and version list (case-insensitive)",
                   responses={200: s.SnidSerializer, 404: s.ErrorSerializer})
    def get(self, request, snid):
        etag = etag_for(request)
        if cached := not_modified(request, etag):
            return cached
        namespace = _namespace_or_404(snid)
        versions = namespace.proposals.approved().order_by("version").only("version", "registration_date")
        data = s.SnidSerializer(namespace, context={"versions": versions}).data
        return cacheable(Response(data), etag)


class SnidVersion(PublicView):
    @extend_schema(summary="Any approved version of an SNID, exactly as approved",
                   responses={200: s.VersionSerializer, 404: s.ErrorSerializer})
    def get(self, request, snid, version):
        etag = etag_for(request)
        if cached := not_modified(request, etag):
            return cached
        namespace = _namespace_or_404(snid)
        proposal = namespace.proposals.approved().select_related("namespace").filter(version=version).first()
        if proposal is None:
            raise Http404(f"urn:ogf:{namespace.snid}: has no version {version}.")
        return cacheable(Response(s.VersionSerializer(proposal).data), etag)


# --- lookup and validation -------------------------------------------------------------------


class Lookup(PublicView):
    @extend_schema(
        summary="Is this urn:ogf: URN registered and valid, and what is its normal form?",
        parameters=[OpenApiParameter("urn", str, required=True, description="a urn:ogf: URN")],
        responses={200: s.LookupResultSerializer, 400: s.ErrorSerializer},
    )
    def get(self, request):
        urn = request.query_params.get("urn")
        if urn is None or urn == "":
            return _bad_request("Give the URN to look up as ?urn=urn:ogf:<snid>:<string>.")
        try:
            answer = lookup_urn(urn)
        except NotAnOgfUrn as exc:
            return _bad_request(str(exc))
        etag = etag_for(request)
        return not_modified(request, etag) or cacheable(Response(answer), etag)


class Validate(PublicView):
    @extend_schema(
        summary=f"Validate up to {MAX_BATCH:,} URNs at once",
        request=s.ValidateRequestSerializer,
        responses={200: s.ValidateResponseSerializer, 400: s.ErrorSerializer, 413: s.ErrorSerializer},
    )
    def post(self, request):
        urns = request.data.get("urns") if isinstance(request.data, dict) else None
        if not isinstance(urns, list):
            return _bad_request('Send a JSON object {"urns": ["urn:ogf:...", ...]}.')
        if len(urns) > MAX_BATCH:
            return Response({"detail": f"{len(urns):,} URNs sent; at most {MAX_BATCH:,} per request."},
                            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        results = []
        for index, urn in enumerate(urns):
            if not isinstance(urn, str):
                return _bad_request(f"urns[{index}] must be a string.")
            try:
                results.append(lookup_urn(urn))
            except NotAnOgfUrn as exc:
                results.append({"urn": urn[:200], "normalized": None, "snid": None, "registered": False,
                                "valid": False, "grammar_checked": False, "errors": [str(exc)],
                                "registration": None})
        return Response({"results": results})


# --- proposals (authenticated) -----------------------------------------------------------------


class IsEditor(permissions.BasePermission):
    message = "Only GFD editors can see the review queue."

    def has_permission(self, request, view):
        return rules.is_editor(request.user)


@extend_schema(summary="My proposals")
class ProposalList(generics.ListAPIView):
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = s.ProposalSummarySerializer

    def get_queryset(self):
        return proposals_for(self.request.user).select_related("submitter").order_by("-updated_at", "-id")


@extend_schema(summary="One proposal with its content, findings and history",
               responses={200: s.ProposalDetailSerializer, 404: s.ErrorSerializer})
class ProposalDetail(generics.RetrieveAPIView):
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = s.ProposalDetailSerializer
    queryset = Proposal.objects.select_related("submitter", "namespace").prefetch_related("events__actor")

    def get_object(self):
        proposal = super().get_object()
        if not rules.can_view_proposal(self.request.user, proposal):
            raise Http404("No such proposal.")  # do not reveal that it exists
        return proposal


@extend_schema(summary="The review queue: proposals awaiting a decision, oldest first (editors)")
class ReviewQueue(generics.ListAPIView):
    permission_classes = [permissions.IsAuthenticated, IsEditor]
    serializer_class = s.ProposalSummarySerializer

    def get_queryset(self):
        return pending_proposals()


class ProposalAction(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        summary="Take a workflow action (submit, withdraw, request_changes, approve, reject)",
        request=s.ActionSerializer,
        responses={200: s.ProposalDetailSerializer, 400: s.ErrorSerializer, 403: s.ErrorSerializer,
                   404: s.ErrorSerializer, 409: OpenApiResponse(s.ErrorSerializer, "already decided")},
    )
    def post(self, request, pk, action):
        proposal = Proposal.objects.filter(pk=pk).select_related("submitter").first()
        if proposal is None or not rules.can_view_proposal(request.user, proposal):
            raise Http404("No such proposal.")
        if action not in s.ACTIONS:
            raise Http404(f"Unknown action {action!r}; one of: {', '.join(s.ACTIONS)}.")
        body = s.ActionSerializer(data=request.data if isinstance(request.data, dict) else {})
        body.is_valid(raise_exception=True)
        if not (rules.is_submitter(request.user, proposal) or rules.is_editor(request.user)):
            raise PermissionDenied("You may not act on this proposal.")
        updated = services.proposal_transition(proposal, action, request.user, **body.validated_data)
        fresh = ProposalDetail.queryset.get(pk=updated.pk)
        return Response(s.ProposalDetailSerializer(fresh, context={"request": request}).data)
