"""The data model: SNIDs (namespaces), proposals (one version each) and their events.

Writes go through ``services``; the guards here are the last line that keeps a
registry of persistent identifiers honest whatever path a write takes:
approved proposals never change, namespaces and events are never deleted,
events never change.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone

from . import interchange
from .enums import (
    DocumentStatus,
    DocumentType,
    EventKind,
    NamespaceStatus,
    ProposalKind,
    ProposalState,
    ReservationRequestState,
)
from .gfd191 import PROSE_KEYS
from .grammar import is_valid_snid

models.CharField.register_lookup(Lower)


class ImmutableError(Exception):
    """A write that would change what the registry has published or recorded."""


class NamespaceQuerySet(models.QuerySet):
    def delete(self):
        raise ImmutableError("SNIDs are never deleted: an SNID, once assigned, stays assigned.")

    def registered(self):
        return self.filter(status=NamespaceStatus.REGISTERED)

    def by_snid(self, snid: str):
        """Case-insensitive match; served by the functional unique index on LOWER(snid).

        A string that cannot be an SNID matches nothing without a query, so no
        caller can send the database text it refuses (PostgreSQL: NUL bytes).
        """
        if not is_valid_snid(snid):
            return self.none()
        return self.filter(snid__lower=snid.lower())


class Namespace(models.Model):
    """An SNID: reserved for a while, or registered for good.

    SNIDs are case-insensitive (RFC 6453 §2.4): a unique index on LOWER(snid)
    keeps two spellings of one SNID out at the database level.
    """

    snid = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=NamespaceStatus.choices)
    current = models.OneToOneField(
        "Proposal",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The approved proposal that is the current version.",
    )
    reserved_until = models.DateField(null=True, blank=True)
    reservation_reason = models.TextField(blank=True)
    reserved_for = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    #: An editor's early end of a reservation: when and by whom (a released reservation did not expire).
    released_at = models.DateTimeField(null=True, blank=True)
    released_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    registered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    objects = NamespaceQuerySet.as_manager()

    class Meta:
        ordering = [Lower("snid")]
        constraints = [
            models.UniqueConstraint(Lower("snid"), name="namespace_snid_ci_unique"),
            models.CheckConstraint(
                condition=models.Q(status__in=NamespaceStatus.values), name="namespace_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.snid

    def save(self, *args, **kwargs):
        if self.pk is not None:
            stored = type(self).objects.filter(pk=self.pk).values_list("snid", flat=True).first()
            if stored is not None and stored.lower() != self.snid.lower():
                raise ImmutableError(f"SNID {stored!r} cannot be renamed; SNIDs are never reassigned.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableError("SNIDs are never deleted: an SNID, once assigned, stays assigned.")

    def get_absolute_url(self) -> str:
        return reverse("registry:namespace_detail", args=[self.snid])


class ProposalQuerySet(models.QuerySet):
    def update(self, **kwargs):
        if self.filter(state=ProposalState.APPROVED).exists():
            raise ImmutableError("Approved proposals cannot be changed; submit a new version instead.")
        return super().update(**kwargs)

    def delete(self):
        if self.filter(state=ProposalState.APPROVED).exists():
            raise ImmutableError("Approved proposals cannot be deleted.")
        return super().delete()

    def approved(self):
        return self.filter(state=ProposalState.APPROVED)


class Proposal(models.Model):
    """One application for one version of one SNID, following the GFD.191 template."""

    snid = models.CharField(max_length=32, help_text="1.1 Namespace Identifier")
    namespace = models.ForeignKey(
        Namespace,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="proposals",
        help_text="Set when the SNID is registered or the proposal is a new version of it.",
    )
    title = models.CharField(max_length=1000, blank=True)
    version = models.PositiveIntegerField(default=1)
    registration_date = models.DateField(null=True, blank=True)

    registrant_name = models.CharField(max_length=1000, blank=True)
    registrant_organisation = models.CharField(max_length=1000, blank=True)
    registrant_email = models.CharField(max_length=1000, blank=True)
    registrant_address = models.TextField(blank=True)
    registrant_public_contact = models.CharField(
        max_length=1000, blank=True, help_text="The contact the applicant chose to publish."
    )
    registrant_published = models.JSONField(
        default=interchange.default_published,
        blank=True,
        help_text="Which registrant details are public; the others are seen by editors only.",
    )

    document_reference = models.CharField(max_length=1000, blank=True)
    document_url = models.CharField(max_length=1000, blank=True)
    document_status = models.CharField(max_length=16, blank=True, choices=DocumentStatus.choices)
    document_type = models.CharField(max_length=32, blank=True, choices=DocumentType.choices)

    sections = models.JSONField(default=dict, blank=True, help_text="Markdown by section key")
    grammar_abnf = models.TextField(blank=True)
    grammar_rule = models.CharField(max_length=1000, blank=True)
    examples_valid = models.JSONField(default=list, blank=True)
    examples_invalid = models.JSONField(default=list, blank=True)
    examples_equivalent = models.JSONField(default=list, blank=True)
    equivalence = models.JSONField(default=list, blank=True)
    max_length = models.PositiveIntegerField(null=True, blank=True)
    #: Section 3.2's structured part: the declared resolvers (registry.resolution).
    resolvers = models.JSONField(default=list, blank=True)
    #: Text of an imported document that matched no template section (interchange ``unplaced``):
    #: shown as its own part until the applicant moves or deletes it; submission waits for that.
    unplaced_text = models.TextField(blank=True, default="", db_default="")  # db_default: rows written by SQL too

    #: The checklist's findings as of the last save or transition, so lists (the
    #: review queue, "my proposals") show them without re-running the checks.
    findings = models.JSONField(default=list, blank=True, editable=False)
    findings_summary = models.JSONField(default=dict, blank=True, editable=False)
    #: The compiled validator (RE2 pattern, whole-URN flag, length cap, top rule),
    #: stored on approval with the immutable record so lookups never compile ABNF.
    validator = models.JSONField(null=True, blank=True, editable=False)

    submitter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="proposals")
    state = models.CharField(max_length=24, choices=ProposalState.choices, default=ProposalState.DRAFT)
    is_demo = models.BooleanField(default=False, help_text="Demonstration data, not a real registration.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    #: Written by the editor at approval and shown on the public page, e.g. why failing
    #: checks were overridden.
    public_note = models.TextField(blank=True)
    #: The editor's written reason for approving over what the approval rule stops
    #: (verdicts.approval_blockers), and those blockers as they were: shown on the public page,
    #: logged and mailed. Empty when nothing was overridden.
    override_reason = models.TextField(blank=True, default="", db_default="")
    overridden = models.JSONField(default=list, blank=True)
    #: What the proposal asks for, fixed when it is first submitted (a later registration of the
    #: SNID, or of a later version, never changes what this proposal was).
    kind = models.CharField(max_length=16, choices=ProposalKind.choices, blank=True, default="", db_default="")

    objects = ProposalQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        permissions = [("review_proposal", "Can review proposals and decide on them (GFD editor)")]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "version"],
                condition=models.Q(state=ProposalState.APPROVED),
                name="one_approved_proposal_per_version",
            ),
            models.CheckConstraint(condition=models.Q(state__in=ProposalState.values), name="proposal_state_valid"),
        ]
        indexes = [models.Index(fields=["state", "submitted_at"])]

    def __str__(self) -> str:
        return f"urn:ogf:{self.snid}: v{self.version} ({self.get_state_display()})"

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        # Read the loaded value only: touching a deferred field would cost a query per row.
        instance._loaded_state = instance.__dict__.get("state")
        return instance

    def _stored_state(self) -> str | None:
        loaded = getattr(self, "_loaded_state", None)
        if loaded is None and self.pk is not None and not self._state.adding:
            loaded = type(self).objects.filter(pk=self.pk).values_list("state", flat=True).first()
        return loaded

    def save(self, *args, **kwargs):
        if self._stored_state() == ProposalState.APPROVED:
            raise ImmutableError(f"{self} is approved and cannot be changed; submit a new version instead.")
        super().save(*args, **kwargs)
        self._loaded_state = self.state

    def delete(self, *args, **kwargs):
        if self._stored_state() == ProposalState.APPROVED:
            raise ImmutableError("Approved proposals cannot be deleted.")
        return super().delete(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("registry:proposal_detail", args=[self.pk])

    # --- what the public sees -------------------------------------------------------

    def registrant_public(self) -> dict:
        """The registrant details the applicant chose to publish ("" for the others) and the
        public contact. Every public page, export, feed and API answer reads this."""
        chosen = set(self.registrant_published or ())
        public = {key: getattr(self, f"registrant_{key}") if key in chosen else "" for key in interchange.PUBLISHABLE}
        public["contact"] = self.registrant_public_contact
        return public

    def public_copy(self) -> Proposal:
        """An unsaved copy with unpublished registrant details blanked, for public rendering.

        It can never be saved over the record (approved proposals refuse saves)."""
        copy = Proposal.from_db(self._state.db, ["id", "state"], [self.pk, self.state])
        copy.__dict__.update({k: v for k, v in self.__dict__.items() if k != "_state"})
        copy._state.fields_cache = dict(self._state.fields_cache)  # related objects already loaded
        for key, value in self.registrant_public().items():
            if key != "contact":
                setattr(copy, f"registrant_{key}", value)
        return copy

    # --- the interchange format: the one mapping between model and data ---------------

    def to_data(self) -> interchange.ProposalData:
        return interchange.ProposalData(
            snid=self.snid,
            title=self.title,
            version=self.version,
            registration_date=self.registration_date,
            registrant=interchange.Registrant(
                self.registrant_name,
                self.registrant_organisation,
                self.registrant_email,
                self.registrant_address,
                self.registrant_public_contact,
                list(self.registrant_published or []),
            ),
            document=interchange.Document(
                self.document_reference, self.document_url, self.document_status, self.document_type
            ),
            sections={key: self.sections[key] for key in PROSE_KEYS if self.sections.get(key)},
            grammar=interchange.Grammar(self.grammar_abnf, self.grammar_rule),
            examples=interchange.Examples(
                list(self.examples_valid),
                list(self.examples_invalid),
                [list(group) for group in self.examples_equivalent],
            ),
            equivalence=list(self.equivalence),
            max_length=self.max_length,
            resolvers=[dict(r) for r in self.resolvers or []],
            unplaced=self.unplaced_text,
        )

    def apply_data(self, data: interchange.ProposalData) -> None:
        """Copy content from interchange data (never state, submitter or namespace)."""
        self.snid = data.snid
        self.title = data.title
        self.version = data.version
        self.registration_date = data.registration_date
        self.registrant_name = data.registrant.name
        self.registrant_organisation = data.registrant.organisation
        self.registrant_email = data.registrant.email
        self.registrant_address = data.registrant.address
        self.registrant_public_contact = data.registrant.public_contact
        self.registrant_published = list(data.registrant.published)
        self.document_reference = data.document.reference
        self.document_url = data.document.url
        self.document_status = data.document.status
        self.document_type = data.document.type
        self.sections = dict(data.sections)
        self.grammar_abnf = data.grammar.abnf
        self.grammar_rule = data.grammar.rule
        self.examples_valid = list(data.examples.valid)
        self.examples_invalid = list(data.examples.invalid)
        self.examples_equivalent = [list(g) for g in data.examples.equivalent]
        self.equivalence = list(data.equivalence)
        self.max_length = data.max_length
        self.resolvers = [dict(r) for r in data.resolvers]
        self.unplaced_text = data.unplaced


class ProposalEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise ImmutableError("Events are append-only.")

    def delete(self):
        raise ImmutableError("Events are append-only.")


class ProposalEvent(models.Model):
    """One entry of a proposal's append-only history, written by the service that acted."""

    proposal = models.ForeignKey(Proposal, on_delete=models.PROTECT, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=EventKind.choices, default=EventKind.TRANSITION)
    action = models.CharField(max_length=24, blank=True)
    from_state = models.CharField(max_length=24, blank=True, choices=ProposalState.choices)
    to_state = models.CharField(max_length=24, blank=True, choices=ProposalState.choices)
    comment = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = ProposalEventQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.proposal_id}: {self.from_state or '—'} → {self.to_state or '—'}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ImmutableError("Events are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableError("Events are append-only.")


class CommentQuerySet(models.QuerySet):
    def threads(self):
        """Thread roots: the first comment of each conversation."""
        return self.filter(parent__isnull=True)

    def open_threads(self):
        return self.filter(parent__isnull=True, resolved_at__isnull=True)


class Comment(models.Model):
    """One message of the review conversation between the applicant and the editors.

    A comment without ``parent`` starts a thread; its replies point to it. A
    thread is anchored to a template section (``section``), to one finding of
    the automated review (``finding``, the check id, with that finding's
    section when it has one) or, with both blank, to the whole proposal.
    Resolution belongs to the thread root: either side may resolve or reopen it.
    Visible only to the applicant and editors (``rules.can_see_review``).
    """

    proposal = models.ForeignKey(Proposal, on_delete=models.PROTECT, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="replies",
        help_text="The thread this comment answers; blank for a thread's first comment.",
    )
    section = models.CharField(max_length=40, blank=True, help_text="a template section key, or blank")
    finding = models.CharField(max_length=40, blank=True, help_text="the check id of the finding discussed, or blank")
    text = models.TextField()
    #: The review round (number of submissions so far) the comment was written in.
    round = models.PositiveIntegerField(default=0)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = CommentQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["proposal", "parent", "resolved_at"])]

    def __str__(self) -> str:
        return f"Comment on {self.proposal_id} ({self.anchor or 'general'})"

    @property
    def anchor(self) -> str:
        """Where the thread is shown: ``finding:<check>``, a section key, or "" (whole proposal)."""
        return f"finding:{self.finding}" if self.finding else self.section

    @property
    def is_resolved(self) -> bool:
        return self.resolved_at is not None


class ReservationRequest(models.Model):
    """An applicant's request to reserve an SNID while writing (GFD.191 §4)."""

    snid = models.CharField(max_length=32)
    requester = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    proposal = models.ForeignKey(
        Proposal, null=True, blank=True, on_delete=models.PROTECT, related_name="reservation_requests"
    )
    reason = models.TextField(blank=True)
    state = models.CharField(
        max_length=16, choices=ReservationRequestState.choices, default=ReservationRequestState.PENDING
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decision_note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"Reservation request for {self.snid} ({self.state})"


class Judgement(models.Model):
    """The editor's tick on a check the machine cannot decide (scope, durability, ...)."""

    proposal = models.ForeignKey(Proposal, on_delete=models.PROTECT, related_name="judgements")
    check_id = models.CharField(max_length=40)
    ok = models.BooleanField(default=False)
    note = models.TextField(blank=True)
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["proposal", "check_id"], name="one_judgement_per_check")]

    def __str__(self) -> str:
        judged = "satisfied" if self.ok else "not satisfied"
        return f"Judgement of {self.check_id} on proposal {self.proposal_id}: {judged}"


class ValidatorCost(models.Model):
    """The measured worst case of an approved version's validator (registry/grammar/cost.py).

    Kept beside the immutable proposal, not in it: a new engine or RE2 release is
    re-measured (``manage.py measure_validators``) without touching the record.
    Lookups read it with the validator: only a validator measured within the budget
    is matched in the web process; editors see the slow ones on their dashboard.
    """

    proposal = models.OneToOneField(Proposal, on_delete=models.CASCADE, related_name="validator_cost")
    #: Cost.as_dict(): match_ms, worst, length, complete, fallback, locate_ms, compile_ms, budget_ms.
    figures = models.JSONField()
    #: Over the matching budget when last measured (shown to editors).
    slow = models.BooleanField(default=False, db_index=True)
    measured_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"Matching cost of proposal {self.proposal_id}: {self.figures.get('match_ms')} ms"
