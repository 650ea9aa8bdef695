"""API representations. Content uses the interchange format's keys (docs/proposal-format.md).

State is read-only everywhere: it changes only through the explicit action
endpoints, which call the same service as the site.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .. import interchange, rules
from ..checklist import MANUAL_CHECKS
from ..enums import EventKind, FindingStatus, NamespaceStatus, ProposalAction, ProposalState, actions_from
from ..gfd191 import PROSE_KEYS, SECTIONS_BY_KEY
from ..grammar import EQUIVALENCE_STEPS
from ..grammar.portable import published_pattern
from ..models import Proposal, ProposalEvent
from ..stewardship.selectors import current_with_overlay, deprecation_of
from ..verdicts import decision_snapshot, judgements_of, review_summary
from .decisions import decision_basis
from .resolution_serializers import DeclaredResolverSerializer, ResolutionBudgetSerializer, ResolverStatusSerializer

#: What the API says of an SNID: reserved, registered, or deprecated (registered, no longer recommended).
SNID_STATUS_CHOICES = [*NamespaceStatus.choices, ("deprecated", "Deprecated")]
#: What a lookup says of the SNID it found.
REGISTRATION_STATUS_CHOICES = [("registered", "Registered"), ("deprecated", "Deprecated")]


class RegistrantSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="empty unless the registrant chose to publish it")
    organisation = serializers.CharField(help_text="empty unless the registrant chose to publish it")
    email = serializers.CharField(help_text="empty unless the registrant chose to publish it")
    address = serializers.CharField(help_text="empty unless the registrant chose to publish it")
    public_contact = serializers.CharField(help_text="the contact the registrant chose to publish")


class DocumentSerializer(serializers.Serializer):
    reference = serializers.CharField(help_text="e.g. GFD.202")
    url = serializers.CharField()
    status = serializers.CharField()


class GrammarSerializer(serializers.Serializer):
    abnf = serializers.CharField()
    rule = serializers.CharField()


class ExamplesSerializer(serializers.Serializer):
    valid = serializers.ListField(child=serializers.CharField())
    invalid = serializers.ListField(child=serializers.CharField())
    equivalent = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))


SectionsSerializer = type(
    "SectionsSerializer",
    (serializers.Serializer,),
    {key: serializers.CharField(required=False, help_text=SECTIONS_BY_KEY[key].heading) for key in PROSE_KEYS},
)


class VersionLinkSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    registration_date = serializers.DateField(allow_null=True)
    api_url = serializers.CharField()


def absolute(name: str, *args) -> str:
    """An absolute URL on the configured site (settings.SITE_URL), as every API answer gives."""
    return settings.SITE_URL + reverse(name, args=args)


def _content(proposal: Proposal) -> dict:
    """The public content of an approved version: registrant details follow the applicant's choice."""
    data = interchange.dump(proposal.public_copy().to_data())
    data.pop("format")
    data["registrant"].pop("published", None)
    return data


def _pattern(proposal: Proposal) -> str | None:
    return published_pattern(proposal.namespace.snid, proposal.validator)


class VersionSerializer(serializers.Serializer):
    """One approved version of a registered SNID, every template section included."""

    snid = serializers.CharField()
    status = serializers.ChoiceField(choices=SNID_STATUS_CHOICES)
    title = serializers.CharField()
    version = serializers.IntegerField()
    registration_date = serializers.DateField(allow_null=True)
    registrant = RegistrantSerializer()
    document = DocumentSerializer()
    sections = SectionsSerializer()
    grammar = GrammarSerializer()
    examples = ExamplesSerializer()
    equivalence = serializers.ListField(child=serializers.ChoiceField(choices=list(EQUIVALENCE_STEPS)))
    max_length = serializers.IntegerField(allow_null=True)
    pattern = serializers.CharField(
        allow_null=True,
        help_text="A regular expression that matches exactly the URNs this version accepts (anchored, "
        "whole URN, in the syntax RE2, JavaScript, Python, Go and PCRE share), so you can "
        "validate without calling the API. URNs are also limited to 4096 characters.",
    )
    url = serializers.URLField(help_text="the SNID's page in the registry")
    api_url = serializers.URLField(help_text="this version in the API")
    resolvers = DeclaredResolverSerializer(
        many=True,
        help_text=(
            "the resolvers declared in this version's section 3.2; the SNID's current resolvers, with "
            "status, are the SNID's `resolvers`"
        ),
    )

    def to_representation(self, proposal: Proposal) -> dict:
        namespace = proposal.namespace
        return {
            **_content(proposal),
            "resolvers": list(proposal.resolvers or []),
            "snid": namespace.snid,
            "status": namespace.status,
            "pattern": _pattern(proposal),
            "url": absolute("registry:namespace_version", namespace.snid, proposal.version),
            "api_url": absolute("api:snid_version", namespace.snid, proposal.version),
        }


class DeprecationSerializer(serializers.Serializer):
    since = serializers.DateField()
    reason = serializers.CharField()
    successor = serializers.CharField(allow_null=True, help_text="the SNID new identifiers should use, if named")


class SnidSerializer(serializers.Serializer):
    """A registered SNID (its current version and version list) or a reserved one (no content).

    ``current`` shows the administrative details in force today (a contact changed at a steward's
    request since approval); ``/api/snids/<snid>/<version>/`` shows a version exactly as approved."""

    snid = serializers.CharField()
    status = serializers.ChoiceField(choices=SNID_STATUS_CHOICES)
    deprecation = DeprecationSerializer(allow_null=True, help_text="null unless the SNID is deprecated")
    reserved_until = serializers.DateField(allow_null=True)
    current = VersionSerializer(allow_null=True, help_text="null while only reserved")
    versions = VersionLinkSerializer(many=True)
    url = serializers.CharField(allow_null=True)
    api_url = serializers.CharField()
    resolvers = ResolverStatusSerializer(
        many=True,
        required=False,
        help_text=(
            "registered SNIDs only: the current resolvers (they may have changed since the version was "
            "approved) with each one's health status (unknown, up, failing, down), last check, HTTP code and latency"
        ),
    )

    resolution_budget = ResolutionBudgetSerializer(
        allow_null=True,
        required=False,
        help_text=(
            "registered SNIDs only: null when resolving a URN is proven within the review's budget (or needs no "
            "capture); for resolvers an editor approved over that budget, the CPU time the registry gives each "
            "URN and the figure the review measured"
        ),
    )

    def to_representation(self, namespace) -> dict:
        from ..resolution.selectors import resolvers_and_budget

        registered = namespace.status == NamespaceStatus.REGISTERED and namespace.current_id
        versions = list(self.context.get("versions", []))
        resolvers = {}
        if registered:
            rows, budget = resolvers_and_budget(namespace)
            resolvers = {"resolvers": rows, "resolution_budget": budget.as_dict() if budget else None}
        deprecation = deprecation_of(namespace) if registered else None
        current = VersionSerializer(current_with_overlay(namespace)).data if registered else None
        if current is not None and deprecation is not None:
            current["status"] = "deprecated"
        return {
            **resolvers,
            "snid": namespace.snid,
            "status": "deprecated" if deprecation is not None else namespace.status,
            "deprecation": {
                "since": deprecation.deprecated_at.date().isoformat(),
                "reason": deprecation.reason,
                "successor": deprecation.successor.snid if deprecation.successor else None,
            }
            if deprecation is not None
            else None,
            "reserved_until": namespace.reserved_until.isoformat() if namespace.reserved_until else None,
            "current": current,
            "versions": [
                {
                    "version": p.version,
                    "registration_date": p.registration_date.isoformat() if p.registration_date else None,
                    "api_url": absolute("api:snid_version", namespace.snid, p.version),
                }
                for p in versions
            ],
            "url": absolute("registry:namespace_detail", namespace.snid) if registered else None,
            "api_url": absolute("api:snid_detail", namespace.snid),
        }


class SnidListItemSerializer(serializers.Serializer):
    #: The columns an item reads, so a page of the list loads nothing else (``QuerySet.only``).
    FIELDS = (
        "snid",
        "current",
        "current__title",
        "current__version",
        "current__registration_date",
        "current__document_reference",
        "current__document_url",
        "current__document_status",
    )

    snid = serializers.CharField()
    title = serializers.CharField()
    version = serializers.IntegerField()
    registration_date = serializers.DateField(allow_null=True)
    document = DocumentSerializer()
    status = serializers.ChoiceField(
        choices=REGISTRATION_STATUS_CHOICES,
        help_text="deprecated: still valid, new identifiers should use its successor",
    )
    url = serializers.URLField(help_text="the SNID's page in the registry")
    api_url = serializers.URLField(help_text="the SNID in the API")
    snippet = serializers.CharField(
        required=False, help_text="with ?q=: where the text matched (plain text, results are best first)"
    )

    def to_representation(self, item) -> dict:
        namespace = getattr(item, "namespace", item)  # a search hit or a namespace
        current = namespace.current
        extra = {"snippet": item.snippet} if item is not namespace else {}
        return {
            "snid": namespace.snid,
            "status": "deprecated" if getattr(namespace, "deprecated", False) else "registered",
            "title": current.title,
            "version": current.version,
            "registration_date": current.registration_date.isoformat() if current.registration_date else None,
            "document": {
                "reference": current.document_reference,
                "url": current.document_url,
                "status": current.document_status,
            },
            "url": absolute("registry:namespace_detail", namespace.snid),
            "api_url": absolute("api:snid_detail", namespace.snid),
            **extra,
        }


class RegistrationRefSerializer(serializers.Serializer):
    snid = serializers.CharField()
    version = serializers.IntegerField(help_text="the current version, whose grammar was applied")
    url = serializers.URLField(help_text="the SNID's page in the registry")
    status = serializers.ChoiceField(
        choices=REGISTRATION_STATUS_CHOICES,
        help_text="deprecated: URNs already issued stay valid, new ones should use the successor",
    )
    successor = serializers.CharField(allow_null=True, help_text="the successor SNID of a deprecated SNID, if named")
    successors = serializers.ListField(
        child=serializers.CharField(),
        help_text="the chain of successors, nearest first: the successor, its own successor once it is itself "
        "deprecated, and so on ([] if none is named)",
    )
    successor_current = serializers.CharField(
        allow_null=True,
        help_text="the live end of the chain: the SNID new identifiers should use (null if none is named, or if "
        "the last successor is itself deprecated with none named)",
    )


class LookupResultSerializer(serializers.Serializer):
    """The answer about one URN."""

    urn = serializers.CharField(help_text="as given")
    normalized = serializers.CharField(allow_null=True, help_text="normal form for lexical equivalence")
    snid = serializers.CharField(allow_null=True)
    registered = serializers.BooleanField()
    valid = serializers.BooleanField(help_text="false for an unregistered SNID (RFC 6453 §2.12)")
    grammar_checked = serializers.BooleanField(help_text="the SNID's registered grammar was applied")
    errors = serializers.ListField(child=serializers.CharField())
    registration = RegistrationRefSerializer(allow_null=True)
    log = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text="with proof=1 only: the registration's transparency-log entry and "
        "inclusion proof (as /api/snids/{snid}/versions/{version}/proof), or "
        "null when it is not in the log",
    )


class ValidateRequestSerializer(serializers.Serializer):
    urns = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False), max_length=10_000
    )


class ValidateResponseSerializer(serializers.Serializer):
    results = LookupResultSerializer(many=True)


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


# --- proposals -------------------------------------------------------------------------------


class ProposalSummarySerializer(serializers.ModelSerializer):
    state = serializers.ChoiceField(choices=ProposalState.choices, read_only=True)
    submitter = serializers.CharField(source="submitter.get_username", read_only=True)
    findings_summary = serializers.DictField(child=serializers.IntegerField(), read_only=True)
    api_url = serializers.SerializerMethodField()

    class Meta:
        model = Proposal
        fields = [
            "id",
            "snid",
            "title",
            "version",
            "state",
            "submitter",
            "created_at",
            "updated_at",
            "submitted_at",
            "decided_at",
            "findings_summary",
            "api_url",
        ]
        read_only_fields = fields

    def get_api_url(self, proposal) -> str:
        return absolute("api:proposal_detail", proposal.pk)


class FindingSerializer(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.ChoiceField(choices=FindingStatus.choices)
    message = serializers.CharField()
    reference = serializers.CharField()
    item = serializers.DictField(allow_null=True)


class EventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.get_username", allow_null=True, default=None)
    kind = serializers.ChoiceField(choices=EventKind.choices)
    action = serializers.CharField(allow_blank=True, help_text="empty for the creation event")
    from_state = serializers.ChoiceField(choices=ProposalState.choices, allow_blank=True)
    to_state = serializers.ChoiceField(choices=ProposalState.choices, allow_blank=True)

    class Meta:
        model = ProposalEvent
        fields = ["created_at", "actor", "kind", "action", "from_state", "to_state", "comment"]
        read_only_fields = fields

    def to_representation(self, event):
        """The editor's messages belong to the review: only the applicant and editors read them."""
        data = super().to_representation(event)
        request = self.context.get("request")
        if data.get("comment") and not rules.can_see_review(getattr(request, "user", None), event.proposal):
            data["comment"] = ""
        return data


class BlockerSerializer(serializers.Serializer):
    check = serializers.CharField(help_text="the check or judgement (GFD.191 §5) that stands in the way")
    kind = serializers.ChoiceField(choices=["fail", "not-satisfied", "not-recorded"])
    sentence = serializers.CharField(help_text="as the confirmation page, the public page and the mails say it")


class DecisionBasisSerializer(serializers.Serializer):
    seen = serializers.CharField(help_text="send it back as `seen` with request_changes, approve or reject")
    approval_blockers = BlockerSerializer(
        many=True, help_text="what an approval needs an override_reason for (the approval rule, run now)"
    )


class DecisionRefusedSerializer(ErrorSerializer):
    decision_basis = DecisionBasisSerializer(
        required=False, help_text="a decision refused for its `seen`: what it rests on now, and its token"
    )


class ProposalDetailSerializer(ProposalSummarySerializer):
    content = serializers.SerializerMethodField()
    findings = FindingSerializer(many=True, read_only=True)
    events = EventSerializer(many=True, read_only=True)
    actions = serializers.SerializerMethodField()
    decision_basis = serializers.SerializerMethodField()

    class Meta(ProposalSummarySerializer.Meta):
        fields = ProposalSummarySerializer.Meta.fields + ["content", "findings", "events", "actions", "decision_basis"]
        read_only_fields = fields

    def to_representation(self, proposal):
        """Who acted and what they wrote stays with the submitter and editors (rules.can_see_review)."""
        data = super().to_representation(proposal)
        snapshot = decision_snapshot(proposal)
        if snapshot is not None:
            # A decided proposal's findings are those it was decided on (registry/verdicts.py).
            data["findings"] = [f.as_dict() for f in snapshot.findings]
            # Counted as every page counts them: with the judgements it was decided with.
            data["findings_summary"] = review_summary(snapshot.findings, judgements_of(proposal))
        if not rules.can_see_review(self.context["request"].user, proposal):
            data["events"] = [
                {**event, "actor": None, "comment": ""}
                for event in data["events"]
                if event["kind"] != EventKind.JUDGEMENT
            ]
        return data

    def get_content(self, proposal) -> dict:
        return interchange.dump(proposal.to_data())

    def get_actions(self, proposal) -> list[str]:
        """The actions the requesting user may take now (POST .../actions/<action>/)."""
        user = self.context["request"].user
        return [t.action for t in actions_from(proposal.state) if rules.can_perform(user, proposal, t)]

    @extend_schema_field(DecisionBasisSerializer(allow_null=True))
    def get_decision_basis(self, proposal) -> dict | None:
        """Editors, while the proposal awaits a decision: what a decision rests on (api/decisions.py)."""
        return decision_basis(self.context["request"].user, proposal)


class ActionSerializer(serializers.Serializer):
    seen = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=128,
        help_text="editors' decisions: the proposal's decision_basis.seen, as last read (required)",
    )
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=20_000)
    override_reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=20_000)
    conflict_reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=20_000,
        help_text="superusers only: why they decide a proposal or SNID of their own (recorded)",
    )
    public_note = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=5_000,
        help_text="approve only: a note shown on the public page, e.g. why failing checks were overridden",
    )


class JudgementSerializer(serializers.Serializer):
    ok = serializers.BooleanField(help_text="true: satisfied; false: not satisfied")
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=20_000)


class JudgementsSerializer(serializers.Serializer):
    """The editor's judgements of GFD.191 §5, as the review page's one form records them."""

    judgements = serializers.DictField(
        child=JudgementSerializer(),
        help_text="check id (scope, snid-durable, subdelegation, immutability) -> {ok, note}",
    )
    conflict_reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=20_000,
        help_text="superusers only: why they judge a proposal or SNID of their own (recorded)",
    )

    def validate_judgements(self, value: dict) -> dict:
        unknown = sorted(set(value) - set(MANUAL_CHECKS))
        if unknown:
            raise serializers.ValidationError(
                f"Unknown judgement(s) {', '.join(unknown)}; the four are {', '.join(MANUAL_CHECKS)}."
            )
        if not value:
            raise serializers.ValidationError("Give at least one judgement.")
        return value


ACTIONS = list(ProposalAction.values)
