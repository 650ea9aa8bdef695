"""All writes. Every state change goes through ``proposal_transition``.

Each service runs in one transaction and records what it did in the same
transaction (the append-only ``ProposalEvent``), so the history can never
disagree with the data. Permission predicates come from ``rules``; a service
refuses what its caller may not do even if a view forgot to check.
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import Group, Permission
from django.db import IntegrityError, transaction
from django.utils import timezone

from django.conf import settings

from . import notify, rules
from .checklist import MANUAL_CHECKS, has_failures, summarize
from .enums import (
    EDITABLE_STATES,
    FINAL_STATES,
    EventKind,
    NamespaceStatus,
    ProposalAction,
    ProposalState,
    ReservationRequestState,
    transition_for,
)
from .gfd191 import SECTIONS_BY_KEY
from .grammar import snid_error
from .interchange import ProposalData
from .lookup import registry_invalidate
from .models import Comment, Judgement, Namespace, Proposal, ProposalEvent, ReservationRequest
from .grammar import grammar_compile
from .selectors import latest_version, namespace_get, proposal_findings, reservation_active


class ServiceError(Exception):
    """A refused write, with a message meant for the person who asked for it."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotAllowed(ServiceError):
    """The actor may not do this (maps to 403)."""


class Conflict(ServiceError):
    """The proposal is not in a state that allows this (maps to 409), e.g. already decided."""


def _findings_refresh(proposal: Proposal) -> dict:
    """Run the checklist and keep its result on the (unsaved) proposal; return the snapshot."""
    findings = proposal_findings(proposal)
    proposal.findings = [f.as_dict() for f in findings]
    proposal.findings_summary = summarize(findings)
    return {"findings": proposal.findings, "summary": proposal.findings_summary}


def _event(proposal, actor, *, kind=EventKind.TRANSITION, action="", from_state="", to_state="",
           comment="", data=None) -> ProposalEvent:
    return ProposalEvent.objects.create(
        proposal=proposal, actor=actor if actor and actor.is_authenticated else None, kind=kind,
        action=action, from_state=from_state, to_state=to_state, comment=comment, data=data or {},
    )


@transaction.atomic
def proposal_create(data: ProposalData, submitter, *, is_demo: bool = False) -> Proposal:
    """A new draft from interchange data. A proposal for an SNID registered to the
    submitter becomes a new version of it."""
    proposal = Proposal(submitter=submitter, is_demo=is_demo)
    proposal.apply_data(data)
    namespace = namespace_get(data.snid)
    if namespace is not None and namespace.current and namespace.current.submitter_id == submitter.pk:
        proposal.namespace = namespace
    proposal.save()  # the checklist needs the primary key to leave the proposal out of the facts
    _findings_refresh(proposal)
    proposal.save(update_fields=["findings", "findings_summary"])
    _event(proposal, submitter, kind=EventKind.CREATED, to_state=proposal.state)
    return proposal


@transaction.atomic
def proposal_update(proposal: Proposal, data: ProposalData, actor) -> Proposal:
    """Save new content into a draft (or a proposal sent back for changes)."""
    locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
    if not rules.can_edit_proposal(actor, locked):
        if locked.state not in EDITABLE_STATES:
            raise Conflict(f"This proposal is {locked.get_state_display().lower()} and can no "
                           "longer be edited.")
        raise NotAllowed("Only the submitter can edit this proposal.")
    locked.apply_data(data)
    _findings_refresh(locked)
    locked.save()
    return locked


@transaction.atomic
def proposal_transition(proposal: Proposal, action: str, actor, *, comment: str = "",
                        override_reason: str = "", public_note: str = "",
                        today: dt.date | None = None) -> Proposal:
    """Move ``proposal`` along the workflow, or refuse with a clear reason.

    The row is locked first, so of two simultaneous decisions exactly one wins and
    the other sees the state the first one left ("already decided").
    """
    locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
    transition = transition_for(locked.state, action)
    if transition is None:
        label = ProposalAction(action).label.lower() if action in ProposalAction.values else action
        state = locked.get_state_display().lower()
        if locked.state in FINAL_STATES:
            raise Conflict(f"This proposal is already {state}; it cannot be {_past(action)} now.")
        raise Conflict(f"A proposal that is {state} cannot {label}.")
    if not rules.can_perform(actor, locked, transition):
        if transition.actor == "editor" and rules.is_submitter(actor, locked):
            raise NotAllowed("Editors cannot decide on their own proposals.")
        raise NotAllowed(f"You may not {ProposalAction(action).label.lower()} this proposal.")
    comment = (comment or "").strip()
    if transition.needs_comment and not comment:
        raise ServiceError(f"{ProposalAction(action).label} needs a comment saying why.")
    override_reason = (override_reason or "").strip()

    data: dict = {}
    if action in (ProposalAction.SUBMIT, ProposalAction.APPROVE):
        data = _findings_refresh(locked)
        failed = [f for f in data["findings"] if f["status"] == "fail"]
        if action == ProposalAction.SUBMIT:
            missing = [f["message"] for f in failed if f["id"] == "required-sections"]
            if missing:
                raise ServiceError("Cannot submit yet: " + " ".join(missing))
        elif has_failures(data["findings"]):
            if not override_reason:
                raise ServiceError(
                    f"Cannot approve: {len(failed)} check(s) fail ("
                    + ", ".join(sorted({f['id'] for f in failed}))
                    + "). Give a written reason to override.")
            data["override_reason"] = override_reason

    now = timezone.now()
    source = locked.state
    if action == ProposalAction.APPROVE:
        _register(locked, today or timezone.localdate(now), data)
        # Shown on the public page: readers learn why checks that failed were overridden.
        locked.public_note = (public_note or "").strip()
        if locked.public_note:
            data["public_note"] = locked.public_note
    locked.state = transition.target
    if transition.target == ProposalState.SUBMITTED:
        locked.submitted_at = now
    if transition.target in (ProposalState.APPROVED, ProposalState.REJECTED):
        locked.decided_at = now
    locked.save()
    if action == ProposalAction.APPROVE:
        Namespace.objects.filter(pk=locked.namespace_id).update(current=locked, updated_at=now)
    _event(locked, actor, action=action, from_state=source, to_state=locked.state, comment=comment,
           data=data)
    context = {"proposal": locked, "actor": actor, "comment": comment, "base_url": settings.SITE_URL,
               "summary": locked.findings_summary}
    if action == ProposalAction.SUBMIT:
        notify.later("submitted", notify.editors_emails, context)
    elif transition.actor == "editor":
        notify.later("decision", [locked.submitter.email], context)
    return locked


def _past(action: str) -> str:
    return {"submit": "submitted", "withdraw": "withdrawn", "request_changes": "sent back",
            "approve": "approved", "reject": "rejected"}.get(action, action)


def _register(proposal: Proposal, today: dt.date, data: dict) -> None:
    """Register the SNID or add the next version to it (inside the approval's transaction)."""
    namespace = Namespace.objects.select_for_update().by_snid(proposal.snid).first()
    if namespace is None:
        try:
            with transaction.atomic():
                namespace = Namespace.objects.create(
                    snid=proposal.snid, status=NamespaceStatus.REGISTERED, registered_at=timezone.now()
                )
        except IntegrityError:
            raise Conflict(f"urn:ogf:{proposal.snid}: was registered by another proposal a moment "
                           "ago.") from None
        version = 1
    elif namespace.status == NamespaceStatus.RESERVED:
        if reservation_active(namespace, today) and namespace.reserved_for_id not in (
                None, proposal.submitter_id):
            raise Conflict(f"urn:ogf:{namespace.snid}: is reserved for someone else until "
                           f"{namespace.reserved_until}.")
        namespace.status = NamespaceStatus.REGISTERED
        namespace.registered_at = timezone.now()
        namespace.reserved_until = None
        namespace.save()
        version = 1
    else:
        if proposal.namespace_id != namespace.pk:
            raise Conflict(f"urn:ogf:{namespace.snid}: is already registered; only its registrant "
                           "can propose a new version.")
        version = (latest_version(namespace) or 0) + 1
    if proposal.version != version:
        data["version_assigned"] = {"proposed": proposal.version, "assigned": version}
    proposal.namespace = namespace
    proposal.version = version
    proposal.registration_date = today
    proposal.validator = _validator_of(proposal)
    # Lookups in this process see the new version at once; others within a second.
    transaction.on_commit(registry_invalidate)


def _validator_of(proposal: Proposal) -> dict | None:
    if not proposal.grammar_abnf.strip():
        return None
    compiled = grammar_compile(
        proposal.grammar_abnf, proposal.grammar_rule,
        examples=tuple(proposal.examples_valid) + tuple(proposal.examples_invalid),
    )
    return compiled.validator.as_dict() if compiled.validator else None


@transaction.atomic
def namespace_reserve(snid: str, actor, *, until: dt.date | None, reason: str, reserved_for=None) -> Namespace:
    """Reserve an SNID for a limited time before approval (GFD.191 §4)."""
    if not rules.is_editor(actor):
        raise NotAllowed("Only GFD editors can reserve SNIDs.")
    snid = snid.strip()
    if problem := snid_error(snid):
        raise ServiceError(problem)
    if until is None or until < timezone.localdate():
        raise ServiceError("Give the date until which the SNID stays reserved (today or later).")
    namespace = Namespace.objects.select_for_update().by_snid(snid).first()
    if namespace is not None and namespace.status == NamespaceStatus.REGISTERED:
        raise Conflict(f"urn:ogf:{namespace.snid}: is already registered.")
    if namespace is not None and reservation_active(namespace) and \
            namespace.reserved_for_id not in (None, getattr(reserved_for, "pk", None)):
        raise Conflict(f"urn:ogf:{namespace.snid}: is already reserved until {namespace.reserved_until}.")
    if namespace is None:
        namespace = Namespace(snid=snid, status=NamespaceStatus.RESERVED)
    namespace.reserved_until = until
    namespace.reservation_reason = reason
    namespace.reserved_for = reserved_for
    namespace.save()
    transaction.on_commit(registry_invalidate)
    return namespace


def namespace_release(snid: str, actor, note: str = "") -> Namespace:
    """End a reservation now. The row stays (SNIDs are never deleted), no longer blocking anyone."""
    if not rules.is_editor(actor):
        raise NotAllowed("Only GFD editors can release reservations.")
    with transaction.atomic():
        namespace = Namespace.objects.select_for_update().by_snid(snid).first()
        if namespace is None or namespace.status != NamespaceStatus.RESERVED:
            raise Conflict(f"urn:ogf:{snid}: is not reserved.")
        namespace.reserved_until = timezone.localdate() - dt.timedelta(days=1)
        namespace.reservation_reason = (namespace.reservation_reason + f"\nReleased by {actor.get_username()}"
                                        + (f": {note}" if note else ".")).strip()
        namespace.save()
        transaction.on_commit(registry_invalidate)
    return namespace


@transaction.atomic
def reservation_request_create(snid: str, requester, *, reason: str = "", proposal=None) -> ReservationRequest:
    """An applicant asks the editor to reserve an SNID while they write."""
    snid = snid.strip()
    if problem := snid_error(snid):
        raise ServiceError(problem)
    if proposal is not None and not rules.is_submitter(requester, proposal):
        raise NotAllowed("You can only ask for a reservation for your own proposal.")
    namespace = namespace_get(snid)
    if namespace is not None and namespace.status == NamespaceStatus.REGISTERED:
        raise Conflict(f"urn:ogf:{namespace.snid}: is already registered.")
    if namespace is not None and reservation_active(namespace):
        if namespace.reserved_for_id == requester.pk:
            raise Conflict(f"urn:ogf:{namespace.snid}: is already reserved for you until {namespace.reserved_until}.")
        raise Conflict(f"urn:ogf:{namespace.snid}: is reserved for someone else.")
    if ReservationRequest.objects.filter(snid__lower=snid.lower(), requester=requester,
                                         state=ReservationRequestState.PENDING).exists():
        raise Conflict(f"You have already asked to reserve urn:ogf:{snid}:; an editor will answer.")
    request = ReservationRequest.objects.create(snid=snid, requester=requester, proposal=proposal,
                                                reason=reason.strip())
    notify.later("reservation_requested", notify.editors_emails, {"request": request, "base_url": settings.SITE_URL})
    return request


@transaction.atomic
def reservation_request_decide(request: ReservationRequest, editor, *, grant: bool,
                               until: dt.date | None = None, note: str = "") -> ReservationRequest:
    if not rules.is_editor(editor):
        raise NotAllowed("Only GFD editors decide on reservation requests.")
    locked = ReservationRequest.objects.select_for_update().get(pk=request.pk)
    if locked.state != ReservationRequestState.PENDING:
        raise Conflict(f"This request was already {locked.get_state_display().lower()}.")
    if grant:
        namespace_reserve(locked.snid, editor, until=until, reason=locked.reason or "Reservation request",
                          reserved_for=locked.requester)
    locked.state = ReservationRequestState.GRANTED if grant else ReservationRequestState.DECLINED
    locked.decided_by, locked.decision_note, locked.decided_at = editor, note.strip(), timezone.now()
    locked.save()
    notify.later("reservation_decided", [locked.requester.email],
                 {"request": locked, "until": until if grant else None, "base_url": settings.SITE_URL})
    return locked


@transaction.atomic
def comment_add(proposal: Proposal, author, text: str, *, section: str = "") -> Comment:
    """A remark on a proposal, general or on one section; editors' comments reach the applicant."""
    text = (text or "").strip()
    if not text:
        raise ServiceError("Write the comment first.")
    if len(text) > 20_000:
        raise ServiceError(f"The comment is {len(text):,} characters long; the limit is 20,000.")
    if section and section not in SECTIONS_BY_KEY:
        raise ServiceError(f"There is no template section {section!r}.")
    if not (rules.is_editor(author) or rules.is_submitter(author, proposal)):
        raise NotAllowed("Only the submitter and GFD editors can comment on this proposal.")
    comment = Comment.objects.create(proposal=proposal, author=author, section=section, text=text)
    if not rules.is_submitter(author, proposal):
        notify.later("comment", [proposal.submitter.email],
                     {"comment": comment, "section": SECTIONS_BY_KEY.get(section), "base_url": settings.SITE_URL})
    return comment


@transaction.atomic
def judgement_set(proposal: Proposal, editor, check_id: str, *, ok: bool, note: str = "") -> Judgement:
    """Record the editor's judgement on a check the machine cannot decide."""
    if not rules.is_editor(editor):
        raise NotAllowed("Only GFD editors record judgements.")
    if check_id not in MANUAL_CHECKS:
        raise ServiceError(f"{check_id!r} is not one of the editor's judgements ({', '.join(MANUAL_CHECKS)}).")
    judgement, _ = Judgement.objects.update_or_create(
        proposal=proposal, check_id=check_id,
        defaults={"ok": ok, "note": (note or "").strip()[:20_000], "editor": editor})
    return judgement


def editors_group() -> Group:
    """The "GFD editors" group with the review permission (created by a migration too)."""
    group, _ = Group.objects.get_or_create(name=rules.EDITOR_GROUP)
    app_label, codename = rules.EDITOR_PERMISSION.split(".")
    group.permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return group
