"""API views. Public registry endpoints are anonymous and cacheable; proposal endpoints
use the same predicates (``rules``) and the same service (``services``) as the site."""

from __future__ import annotations

import orjson
from django.conf import settings
from django.core.cache import cache
from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, permissions
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import rules, services
from ..enums import NamespaceStatus
from ..errors import SeenChanged
from ..lookup import LOG_DAMAGE_HEADER, NotAnOgfUrn, lookup_urn, refused, registry_index
from ..models import Namespace, Proposal
from ..selectors import (
    pending_proposals,
    proposals_for,
    registry_search,
    reservation_active,
    search_text,
    snid_suggestions,
)
from ..stewardship.models import deprecated_in_force
from ..views.http import (
    anonymous_client,
    cacheable,
    etag_for,
    etag_of,
    lookup_answer,
    not_modified,
    remember,
    simple_lookup_query,
)
from ..views.log import lookup_with_proof
from . import serializers as s
from .decisions import NotSeen, decision_basis, decision_seen
from .negotiation import JSONOnly

MAX_BATCH = 10_000
API_CACHE_SECONDS = 300


class PublicView(APIView):
    """Anonymous, read-only registry data: no session (so no CSRF), throttled per address."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    content_negotiation_class = JSONOnly


# --- the registry ------------------------------------------------------------------------------


@extend_schema(
    summary="Registered SNIDs, or search them",
    description="Every registered SNID with its current version, in SNID order. With `q`, only the SNIDs "
    "whose identifier, title or registration text match, best match first, each with a "
    "`snippet` showing where.",
    parameters=[OpenApiParameter("q", str, description="words to search for, e.g. `uuid` or `content collections`")],
    responses={
        200: s.SnidListItemSerializer(many=True),
        404: OpenApiResponse(s.ErrorSerializer, "no such page"),
        429: s.ErrorSerializer,
    },
)
class SnidList(generics.ListAPIView):
    #: Cached for everyone (tests/views/test_shared_pages.py): built from settings, never the request.
    shared_page = True
    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    serializer_class = s.SnidListItemSerializer

    def get_queryset(self):
        text = search_text(self.request.query_params.get("q"))
        if text:
            return registry_search(text)
        return (
            Namespace.objects.registered()
            .filter(current__isnull=False)
            .select_related("current")
            .only(*s.SnidListItemSerializer.FIELDS)
            .annotate(deprecated=deprecated_in_force())
        )

    def list(self, request, *args, **kwargs):
        etag = etag_for(request)
        if cached := not_modified(request, etag):
            return cached
        # The page's data, kept as long as the registry stamp (in the ETag) lasts and shared by every
        # client: its links are absolute on settings.SITE_URL, whatever Host the request named.
        key = f"registry:api:snids:{etag}"
        data = cache.get(key)
        if data is None:
            data = super().list(request, *args, **kwargs).data
            cache.set(key, data, API_CACHE_SECONDS)
        return cacheable(Response(data), etag)


def _namespace_or_404(snid: str) -> Namespace:
    namespace = Namespace.objects.by_snid(snid).select_related("current", "current__namespace").first()
    if namespace is None or (namespace.status == NamespaceStatus.RESERVED and not reservation_active(namespace)):
        close = snid_suggestions(snid)
        hint = f" Similar registered SNIDs: {', '.join(close)}." if close else ""
        raise Http404(f"urn:ogf:{snid}: is neither registered nor reserved.{hint}")
    return namespace


class SnidDetail(PublicView):
    @extend_schema(
        summary="One SNID: its current version and version list (case-insensitive)",
        description="A registered SNID with its current version in full (every template section, "
        "the grammar, the examples and `pattern`, a regular expression for offline "
        "validation) and links to every version; a reserved SNID with its date. "
        "No account needed.",
        responses={200: s.SnidSerializer, 404: s.ErrorSerializer, 429: s.ErrorSerializer},
    )
    def get(self, request, snid):
        etag = etag_for(request)
        if cached := not_modified(request, etag):
            return cached
        namespace = _namespace_or_404(snid)
        versions = namespace.proposals.approved().order_by("version").only("version", "registration_date")
        data = s.SnidSerializer(namespace, context={"versions": versions}).data
        return cacheable(Response(data), etag)


class SnidVersion(PublicView):
    @extend_schema(
        summary="Any approved version of an SNID, exactly as approved",
        description="Approved versions never change, so answers can be cached for good. No account needed.",
        responses={200: s.VersionSerializer, 404: s.ErrorSerializer, 429: s.ErrorSerializer},
    )
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


def _json(data, status: int = 200) -> HttpResponse:
    """Compact UTF-8 JSON, as DRF's renderer writes it, by orjson (ten times faster on big batches)."""
    return HttpResponse(orjson.dumps(data), status=status, content_type="application/json")


class FastPublicView(PublicView):
    # The two hot endpoints answer their main method without DRF's request/response wrapping.
    #
    # Lookups are a dictionary hit and one RE2 match, so DRF's per-request work
    # (request wrapping, content negotiation, rendering) cost more than the lookup
    # itself. ``fast_method`` is served here with the same throttles, the same
    # JSON and the same errors; anything else (OPTIONS, HEAD, other methods) goes
    # through DRF as usual, and the class stays a DRF view for the OpenAPI schema.
    # (A comment, not a docstring: the schema shows docstrings to API users.)

    fast_method = "GET"

    def dispatch(self, request, *args, **kwargs):
        if request.method != self.fast_method:
            return super().dispatch(request, *args, **kwargs)
        self.request, self.args, self.kwargs, self.headers = request, args, kwargs, {}
        throttles = self.get_throttles() if settings.REGISTRY_ANON_RATE not in ("", "off") else ()
        client = anonymous_client(request.META) if throttles else None
        for throttle in throttles:
            if not throttle.allow_request(client, self):
                wait = throttle.wait()
                response = _json(
                    {"detail": f"Request was throttled. Expected available in {int(wait or 1)} seconds."}, 429
                )
                response["Retry-After"] = str(max(1, int(wait or 1)))
                return response
        return self.fast(request)


class Lookup(FastPublicView):
    @extend_schema(
        summary="Is this urn:ogf: URN registered and valid, and what is its normal form?",
        description="Checks one URN against the generic urn:ogf: syntax and the grammar registered for "
        "its SNID. `valid` is true only for a URN of a registered SNID that its grammar "
        "accepts; `errors` says why not, naming the character at fault. `normalized` is "
        "the form two lexically equivalent URNs share. `registration.url` is the SNID's "
        "page. Answers carry an ETag: send If-None-Match to get 304 while the registry "
        "is unchanged. To validate offline, use the `pattern` of `/api/snids/{snid}/`.",
        parameters=[
            OpenApiParameter("urn", str, required=True, description="a urn:ogf: URN"),
            OpenApiParameter(
                "proof",
                str,
                required=False,
                description="1: add `log`, the registration's transparency-log entry with "
                "its inclusion proof and the signed checkpoint (/help/transparency/)",
            ),
        ],
        responses={
            200: s.LookupResultSerializer,
            400: s.ErrorSerializer,
            429: OpenApiResponse(s.ErrorSerializer, "throttled; see Retry-After"),
        },
    )
    def get(self, request):  # documented signature; requests are answered by ``fast``
        return self.fast(request)

    def fast(self, request):
        index = registry_index()
        query = request.META.get("QUERY_STRING", "")
        if "proof=" in query and request.GET.get("proof") not in (None, "", "0"):
            # The version's log entry and inclusion proof, on request only: never on the hot path.
            status, body = lookup_answer(request.GET.get("urn"), index)
            if status == 200:
                body = lookup_with_proof(body)
            response = HttpResponse(body, status=status, content_type="application/json")
            if index.log_damage:
                response[LOG_DAMAGE_HEADER] = index.log_damage
            return response
        answer = index.answers.get(query)
        if answer is None:
            urn = simple_lookup_query(query)
            status, body = lookup_answer(request.GET.get("urn") if urn is None else urn, index)
            if status != 200:
                return HttpResponse(body, status=status, content_type="application/json")
            answer = remember(index, query, body, etag_of(index, request.get_full_path()))
        body, etag = answer
        response = not_modified(request, etag) or cacheable(HttpResponse(body, content_type="application/json"), etag)
        if index.log_damage:
            response[LOG_DAMAGE_HEADER] = index.log_damage
        return response


class Validate(FastPublicView):
    fast_method = "POST"

    @extend_schema(
        summary=f"Validate up to {MAX_BATCH:,} URNs at once",
        description='Send `{"urns": [...]}`; `results` holds one lookup answer per URN, in order '
        "(an item that is not a urn:ogf: URN gets `valid: false` with the reason).",
        request=s.ValidateRequestSerializer,
        responses={
            200: s.ValidateResponseSerializer,
            400: s.ErrorSerializer,
            413: s.ErrorSerializer,
            415: s.ErrorSerializer,
            429: OpenApiResponse(s.ErrorSerializer, "throttled; see Retry-After"),
        },
    )
    def post(self, request):  # documented signature; requests are answered by ``fast``
        return self.fast(request)

    def fast(self, request):
        if request.content_type != "application/json":
            return _json({"detail": f'Unsupported media type "{request.content_type}": send application/json.'}, 415)
        try:
            data = orjson.loads(request.body)
        except orjson.JSONDecodeError as exc:
            why = "the document is nested too deeply" if "recursion" in str(exc) else str(exc)
            return _json({"detail": f"JSON parse error - {why}"}, 400)
        urns = data.get("urns") if isinstance(data, dict) else None
        if not isinstance(urns, list):
            return _json({"detail": 'Send a JSON object {"urns": ["urn:ogf:...", ...]}.'}, 400)
        if len(urns) > MAX_BATCH:
            return _json({"detail": f"{len(urns):,} URNs sent; at most {MAX_BATCH:,} per request."}, 413)
        results = []
        registry = registry_index()  # one index for the whole batch
        for index, urn in enumerate(urns):
            if not isinstance(urn, str):
                return _json({"detail": f"urns[{index}] must be a string."}, 400)
            try:
                results.append(lookup_urn(urn, registry))
            except NotAnOgfUrn as exc:
                results.append(refused(urn, str(exc)))
        return _json({"results": results})


# --- proposals (authenticated) -----------------------------------------------------------------


class IsEditor(permissions.BasePermission):
    message = "Only GFD editors can see the review queue."

    def has_permission(self, request, view):
        return rules.is_editor(request.user)


@extend_schema(
    summary="My proposals",
    responses={
        200: s.ProposalSummarySerializer(many=True),
        403: s.ErrorSerializer,
        404: OpenApiResponse(s.ErrorSerializer, "no such page"),
    },
)
class ProposalList(generics.ListAPIView):
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = s.ProposalSummarySerializer

    def get_queryset(self):
        return proposals_for(self.request.user).select_related("submitter").order_by("-updated_at", "-id")


@extend_schema(
    summary="One proposal with its content, findings and history",
    responses={200: s.ProposalDetailSerializer, 403: s.ErrorSerializer, 404: s.ErrorSerializer},
)
class ProposalDetail(generics.RetrieveAPIView):
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = s.ProposalDetailSerializer
    queryset = Proposal.objects.select_related("submitter", "namespace").prefetch_related("events__actor")

    def get_object(self):
        proposal = super().get_object()
        if not rules.can_view_proposal(self.request.user, proposal):
            raise Http404("No such proposal.")  # do not reveal that it exists
        if not rules.can_see_registrant(self.request.user, proposal):
            return proposal.public_copy()
        return proposal


@extend_schema(
    summary="The review queue: proposals awaiting a decision, oldest first (editors)",
    responses={
        200: s.ProposalSummarySerializer(many=True),
        403: s.ErrorSerializer,
        404: OpenApiResponse(s.ErrorSerializer, "no such page"),
    },
)
class ReviewQueue(generics.ListAPIView):
    permission_classes = [permissions.IsAuthenticated, IsEditor]
    serializer_class = s.ProposalSummarySerializer

    def get_queryset(self):
        return pending_proposals()


def _proposal_write_responses(conflict: str) -> dict:
    """What a write to one proposal answers: the proposal, or why not."""
    return {
        200: s.ProposalDetailSerializer,
        400: s.ErrorSerializer,
        401: s.ErrorSerializer,
        403: s.ErrorSerializer,
        404: s.ErrorSerializer,
        409: OpenApiResponse(s.ErrorSerializer, conflict),
    }


def _visible_proposal(request, pk) -> Proposal:
    """The proposal, or a 404 for one that does not exist or that this person may not see."""
    proposal = Proposal.objects.filter(pk=pk).select_related("submitter").first()
    if proposal is None or not rules.can_view_proposal(request.user, proposal):
        raise Http404("No such proposal.")
    return proposal


def _proposal_answer(request, pk) -> Response:
    fresh = ProposalDetail.queryset.get(pk=pk)
    return Response(s.ProposalDetailSerializer(fresh, context={"request": request}).data)


class ProposalAction(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        summary="Take a workflow action (submit, withdraw, request_changes, approve, reject)",
        request=s.ActionSerializer,
        responses={
            **_proposal_write_responses("already decided"),
            400: OpenApiResponse(
                s.DecisionRefusedSerializer,
                "refused, saying why: a decision without its comment, an approval the approval rule stops "
                "without an override_reason, an editor's decision without `seen`",
            ),
            409: OpenApiResponse(
                s.DecisionRefusedSerializer,
                "already decided, or what the decision rests on changed since `seen` (decision_basis: as it is now)",
            ),
        },
    )
    def post(self, request, pk, action):
        proposal = _visible_proposal(request, pk)
        if action not in s.ACTIONS:
            raise Http404(f"Unknown action {action!r}; one of: {', '.join(s.ACTIONS)}.")
        body = s.ActionSerializer(data=request.data if isinstance(request.data, dict) else {})
        body.is_valid(raise_exception=True)
        if not (rules.is_submitter(request.user, proposal) or rules.is_editor(request.user)):
            raise PermissionDenied("You may not act on this proposal.")
        options = dict(body.validated_data)
        try:
            seen = decision_seen(request.user, proposal, action, options.pop("seen"))
        except NotSeen as refused:
            return _json({"detail": refused.detail, "decision_basis": refused.basis}, refused.status)
        try:
            updated = services.proposal_transition(proposal, action, request.user, **seen, **options)
        except SeenChanged as changed:  # the service's own run, under the row's lock, found other blockers
            fresh = Proposal.objects.get(pk=proposal.pk)
            return _json({"detail": changed.message, "decision_basis": decision_basis(request.user, fresh)}, 409)
        return _proposal_answer(request, updated.pk)


class ProposalJudgements(APIView):
    """Record the editor's judgements (GFD.191 §5): the approval rule asks for all four, satisfied."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        summary="Record the editor's judgements of GFD.191 §5 (editors only)",
        request=s.JudgementsSerializer,
        responses=_proposal_write_responses("already decided: judgements are final"),
    )
    def post(self, request, pk):
        proposal = _visible_proposal(request, pk)
        if not rules.is_editor(request.user):
            raise PermissionDenied("Only GFD editors record judgements.")
        body = s.JudgementsSerializer(data=request.data if isinstance(request.data, dict) else {})
        body.is_valid(raise_exception=True)
        verdicts = {check: (j["ok"], j["note"]) for check, j in body.validated_data["judgements"].items()}
        services.judgements_set(
            proposal, request.user, verdicts, conflict_reason=body.validated_data["conflict_reason"]
        )
        return _proposal_answer(request, proposal.pk)
