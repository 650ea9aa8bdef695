"""An SNID's life after approval: its stewards, administrative change requests, deprecation.

A registration's approved versions never change. What may change after approval —
who acts for the SNID, its public contact, the registrant's details — lives here,
beside the SNID, as an *overlay* on its current version (``RegistrantOverlay``) and an
append-only record of every step (``StewardshipEvent``). Deprecation is a row, not a
new status of the namespace: the SNID stays registered (and its URNs stay valid), it
is only marked as no longer recommended, and the database refuses to register,
reserve or re-point it while the mark stands (registry.dbguards, migration 0009).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import models
from django.utils import timezone


class StewardshipImmutableError(Exception):
    """A write that would change the record of an SNID's stewardship."""


class StewardState(models.TextChoices):
    INVITED = "invited", "Invited (awaiting an editor)"
    ACTIVE = "active", "Steward"
    REMOVED = "removed", "Removed"
    DECLINED = "declined", "Invitation declined"


class ChangeState(models.TextChoices):
    PENDING = "pending", "Awaiting an editor"
    APPROVED = "approved", "Approved"
    DECLINED = "declined", "Declined"


class StewardshipEventKind(models.TextChoices):
    STEWARD_ADDED = "steward-added", "Steward added"
    STEWARD_REMOVED = "steward-removed", "Steward removed"
    STEWARD_INVITED = "steward-invited", "Steward invited"
    STEWARD_CONFIRMED = "steward-confirmed", "Steward confirmed"
    STEWARD_DECLINED = "steward-declined", "Steward invitation declined"
    STEWARD_DEACTIVATED = "steward-deactivated", "Steward's account deactivated"
    CHANGE_REQUESTED = "change-requested", "Change requested"
    CHANGE_APPROVED = "change-approved", "Change approved"
    CHANGE_DECLINED = "change-declined", "Change declined"
    DEPRECATED = "deprecated", "Deprecated"
    UNDEPRECATED = "undeprecated", "Deprecation withdrawn"


class Role(models.TextChoices):
    """Who takes a move: one of the SNID's stewards, or a GFD editor (``registry.rules`` says which one)."""

    STEWARD = "steward", "Steward"
    EDITOR = "editor", "Editor"


@dataclass(frozen=True, slots=True)
class Move:
    """One move of a stewardship or a change request: the only ways their states change.

    ``source`` "" creates the row. ``public`` moves show in the SNID's public history and its pages;
    ``log`` names the change a ``steward-changed`` transparency-log leaf records ("" for none); ``mail``
    is the plain-text mail everyone concerned gets after the commit (``stewardship.services``).
    """

    action: str
    source: str
    target: str
    actor: str
    event: str
    public: bool
    #: The history's sentence, fixed when the event is written ("{what}": the change kind's subject).
    summary: str
    #: What the confirmation button says.
    label: str
    log: str = ""
    mail: str = ""


K = StewardshipEventKind

STEWARD_MOVES: tuple[Move, ...] = (
    Move(
        "add",
        "",
        StewardState.ACTIVE,
        Role.EDITOR,
        K.STEWARD_ADDED,
        True,
        "A steward was added by an editor.",
        "Add the steward",
        log="added",
        mail="steward_added",
    ),
    Move(
        "invite",
        "",
        StewardState.INVITED,
        Role.STEWARD,
        K.STEWARD_INVITED,
        False,
        "A steward invited another steward.",
        "Send the invitation",
        mail="steward_invitation",
    ),
    Move(
        "confirm",
        StewardState.INVITED,
        StewardState.ACTIVE,
        Role.EDITOR,
        K.STEWARD_CONFIRMED,
        True,
        "A steward was added by an editor at a steward's invitation.",
        "Confirm the invitation",
        log="confirmed",
        mail="steward_invitation_decided",
    ),
    Move(
        "decline",
        StewardState.INVITED,
        StewardState.DECLINED,
        Role.EDITOR,
        K.STEWARD_DECLINED,
        False,
        "An editor declined a steward's invitation.",
        "Decline the invitation",
        mail="steward_invitation_decided",
    ),
    Move(
        "remove",
        StewardState.ACTIVE,
        StewardState.REMOVED,
        Role.EDITOR,
        K.STEWARD_REMOVED,
        True,
        "A steward was removed by an editor.",
        "Remove the steward",
        log="removed",
        mail="steward_removed",
    ),
)

CHANGE_MOVES: tuple[Move, ...] = (
    Move(
        "request",
        "",
        ChangeState.PENDING,
        Role.STEWARD,
        K.CHANGE_REQUESTED,
        False,
        "A steward asked to change the {what}.",
        "Send the request",
        mail="change_filed",
    ),
    Move(
        "approve",
        ChangeState.PENDING,
        ChangeState.APPROVED,
        Role.EDITOR,
        K.CHANGE_APPROVED,
        True,
        "{What} changed by an editor at the steward's request.",
        "Approve",
        mail="change_decided",
    ),
    Move(
        "decline",
        ChangeState.PENDING,
        ChangeState.DECLINED,
        Role.EDITOR,
        K.CHANGE_DECLINED,
        False,
        "An editor declined a change of the {what}.",
        "Decline",
        mail="change_decided",
    ),
)

#: (state now, action) -> the move; a pair not here is refused (409 on the pages).
STEWARD_MOVE_BY_KEY: dict[tuple[str, str], Move] = {(m.source, m.action): m for m in STEWARD_MOVES}
CHANGE_MOVE_BY_KEY: dict[tuple[str, str], Move] = {(m.source, m.action): m for m in CHANGE_MOVES}

#: Every change of an existing row's state, and the event it writes (derived from the moves above).
STEWARD_TRANSITIONS: dict[tuple[str, str], str] = {(m.source, m.target): m.event for m in STEWARD_MOVES if m.source}
CHANGE_TRANSITIONS: dict[tuple[str, str], str] = {(m.source, m.target): m.event for m in CHANGE_MOVES if m.source}


class Steward(models.Model):
    """An account that may act for an SNID. The registrant of version 1 is the first."""

    namespace = models.ForeignKey("registry.Namespace", on_delete=models.PROTECT, related_name="stewards")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="stewardships")
    state = models.CharField(max_length=16, choices=StewardState.choices, default=StewardState.ACTIVE)
    #: The steward chose to show their verified ORCID iD beside their name on the SNID page.
    show_orcid = models.BooleanField(default=False)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(blank=True, help_text="why the steward was added or invited")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "registry"
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "user"],
                condition=models.Q(state__in=["invited", "active"]),
                name="one_live_stewardship_per_user",
            ),
            models.CheckConstraint(condition=models.Q(state__in=StewardState.values), name="steward_state_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} for {self.namespace} ({self.state})"


class ChangeRequestQuerySet(models.QuerySet):
    def update(self, **kwargs):
        if self.exclude(state=ChangeState.PENDING).exists():
            raise StewardshipImmutableError("A decided change request is part of the record and never changes.")
        return super().update(**kwargs)

    def delete(self):
        raise StewardshipImmutableError("Change requests are never deleted.")


class ChangeRequest(models.Model):
    """A steward's request to change an administrative detail of an SNID (not its meaning)."""

    namespace = models.ForeignKey("registry.Namespace", on_delete=models.PROTECT, related_name="change_requests")
    kind = models.CharField(max_length=24)
    #: The new values, as the kind's form cleaned them.
    data = models.JSONField(default=dict)
    #: The values they replace, recorded when the change is applied.
    before = models.JSONField(default=dict, blank=True)
    reason = models.TextField(blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    state = models.CharField(max_length=16, choices=ChangeState.choices, default=ChangeState.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decision_note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    decided_at = models.DateTimeField(null=True, blank=True)

    objects = ChangeRequestQuerySet.as_manager()

    class Meta:
        app_label = "registry"
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(state__in=ChangeState.values), name="change_state_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} change for {self.namespace} ({self.state})"

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance._loaded_state = instance.__dict__.get("state")
        return instance

    def save(self, *args, **kwargs):
        if getattr(self, "_loaded_state", None) not in (None, ChangeState.PENDING):
            raise StewardshipImmutableError("A decided change request is part of the record and never changes.")
        super().save(*args, **kwargs)
        self._loaded_state = self.state

    def delete(self, *args, **kwargs):
        raise StewardshipImmutableError("Change requests are never deleted.")


#: Events the public sees: those written public, and the registrant becoming the first steward, which the
#: transparency log and the SNID's list of stewards show (rows written before it was marked public too).
SHOWN_IN_PUBLIC = models.Q(public=True) | models.Q(kind=StewardshipEventKind.STEWARD_ADDED, actor__isnull=True)


class StewardshipEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise StewardshipImmutableError("An SNID's history is append-only.")

    def delete(self):
        raise StewardshipImmutableError("An SNID's history is append-only.")


class StewardshipEvent(models.Model):
    """One line of an SNID's history after approval, written by the service that acted."""

    namespace = models.ForeignKey("registry.Namespace", on_delete=models.PROTECT, related_name="stewardship_events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    kind = models.CharField(max_length=24, choices=StewardshipEventKind.choices)
    #: Shown in the SNID's public history; otherwise editors and stewards only.
    public = models.BooleanField(default=False)
    #: The public sentence, fixed when the event is written ("contact changed by an editor at the steward's
    #: request"): a later change of wording never rewrites what the history said.
    summary = models.CharField(max_length=300)
    reason = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = StewardshipEventQuerySet.as_manager()

    class Meta:
        app_label = "registry"
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["namespace", "public", "created_at"], name="stewardship_event_public")]

    def __str__(self) -> str:
        return f"{self.namespace_id}: {self.kind}"

    @property
    def shown_in_public(self) -> bool:
        """Whether the public sees this line (``SHOWN_IN_PUBLIC``)."""
        return self.public or (self.kind == StewardshipEventKind.STEWARD_ADDED and self.actor_id is None)

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise StewardshipImmutableError("An SNID's history is append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise StewardshipImmutableError("An SNID's history is append-only.")


class RegistrantOverlay(models.Model):
    """The administrative details in force for an SNID's current version, over what it was approved with.

    ``values`` maps proposal fields (``registrant_public_contact``, ``registrant_organisation`` ...) to
    their new values. It applies only while ``version`` is the SNID's current version: a new approved
    version carries its own details and the overlay steps aside.
    """

    namespace = models.OneToOneField(
        "registry.Namespace", primary_key=True, on_delete=models.PROTECT, related_name="overlay"
    )
    version = models.PositiveIntegerField()
    values = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "registry"

    def __str__(self) -> str:
        return f"Details in force for SNID {self.namespace_id}, version {self.version}"

    def delete(self, *args, **kwargs):
        raise StewardshipImmutableError("An overlay is replaced, never deleted.")


class DeprecationQuerySet(models.QuerySet):
    def in_force(self):
        """Deprecations not ended (at most one per SNID: ``one_deprecation_in_force``)."""
        return self.filter(ended_at__isnull=True)

    def of(self, namespace) -> Deprecation | None:
        """The deprecation in force of ``namespace`` (with its successor), or None."""
        if namespace is None or namespace.pk is None:
            return None
        return self.in_force().filter(namespace_id=namespace.pk).select_related("successor").first()


def deprecated_in_force() -> models.Exists:
    """For querysets of namespaces: whether a deprecation of the SNID is in force."""
    return models.Exists(Deprecation.objects.in_force().filter(namespace_id=models.OuterRef("pk")))


def successor_in_force() -> models.Subquery:
    """For querysets of namespaces: the successor SNID that the deprecation in force names."""
    return models.Subquery(
        Deprecation.objects.in_force().filter(namespace_id=models.OuterRef("pk")).values("successor__snid")[:1]
    )


class Deprecation(models.Model):
    """An editor's mark that an SNID should no longer be used for new identifiers.

    Rows are never deleted: withdrawing a deprecation ends it (``ended_at``). At most one
    deprecation of an SNID is in force at a time.
    """

    namespace = models.ForeignKey("registry.Namespace", on_delete=models.PROTECT, related_name="deprecations")
    reason = models.TextField()
    successor = models.ForeignKey(
        "registry.Namespace", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    deprecated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    deprecated_at = models.DateTimeField(default=timezone.now)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.TextField(blank=True)

    objects = DeprecationQuerySet.as_manager()

    class Meta:
        app_label = "registry"
        ordering = ["deprecated_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace"], condition=models.Q(ended_at__isnull=True), name="one_deprecation_in_force"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.namespace} deprecated {self.deprecated_at:%Y-%m-%d}"

    def delete(self, *args, **kwargs):
        raise StewardshipImmutableError("A deprecation is ended, never deleted.")
