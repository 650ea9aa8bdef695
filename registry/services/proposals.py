"""Proposals: create, edit, move through the workflow, register."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from functools import partial

from django.db import IntegrityError, transaction
from django.utils import timezone

from .. import markdown, notify, rules
from ..checklist import SUBMITTED, unchecked
from ..conversation import CONTENT_CHAIN_MAX, content_changes
from ..conversation import submitted_content as submitted_content_of
from ..enums import (
    EDITABLE_STATES,
    FINAL_STATES,
    EventKind,
    FindingStatus,
    NamespaceStatus,
    ProposalAction,
    ProposalKind,
    ProposalState,
    action_done,
    transition_for,
)
from ..errors import Conflict, NotAllowed, SeenChanged, ServiceError
from ..grammar import grammar_compile, snid_error
from ..grammar.cost import Cost
from ..interchange import ProposalData
from ..interchange import dump as interchange_dump
from ..lookup import registry_invalidate
from ..models import Namespace, Proposal, ProposalEvent, ValidatorCost
from ..resolution.services import ResolutionFault, resolvers_install_approved
from ..selectors import latest_version, namespace_get, proposal_findings, reservation_active
from ..signals import registry_changed_send
from ..stewardship.models import Deprecation
from ..stewardship.registration import steward_first
from ..transparency.records import log_version_registered
from ..verdicts import approval_blockers, review_summary


def _snid_refuse_invalid(snid: str) -> None:
    """Refuse, before any write, an SNID that is not RFC 6453 syntax (CR, '/', NUL, ...)."""
    if problem := snid_error(snid or ""):
        raise ServiceError(f"The SNID {snid[:40]!r} cannot be used: {problem}")


def _conflict_of_interest(actor, proposal, doing: str, reason: str = "") -> dict:
    """Refuse an editor acting on their own proposal or SNID; a superuser may, with a reason.

    Returns what to record in the event (the override and its reason), or {}.
    """
    if not rules.is_own_case(actor, proposal):
        return {}
    reason = (reason or "").strip()
    if getattr(actor, "is_superuser", False) and reason:
        return {"conflict_override": reason}
    raise NotAllowed(
        f"Editors cannot {doing} their own proposals or SNIDs; another editor must. "
        "(A superuser may override, giving a written reason that is recorded.)"
    )


def _findings_refresh(proposal: Proposal, stage: str | None = None) -> dict:
    """Run the checklist and keep its result on the (unsaved) proposal; return the snapshot.

    ``stage`` SUBMITTED judges the proposal as submitted (unwritten sections fail); by
    default a draft is checked as a draft (see selectors.checklist_stage)."""
    findings = proposal_findings(proposal, stage=stage)
    proposal.findings = [f.as_dict() for f in findings]
    proposal.findings_summary = review_summary(findings, _judgements(proposal))
    return {"findings": proposal.findings, "summary": proposal.findings_summary}


def _judgements(proposal: Proposal) -> dict:
    """check id -> Judgement; none for a proposal not saved yet."""
    return {j.check_id: j for j in proposal.judgements.all()} if proposal.pk else {}


def summary_refresh(proposal: Proposal) -> None:
    """Count the stored findings again with the judgements recorded now (after a judgement)."""
    proposal.findings_summary = review_summary(proposal.findings or [], _judgements(proposal))
    proposal.save(update_fields=["findings_summary"])


def _event(
    proposal, actor, *, kind=EventKind.TRANSITION, action="", from_state="", to_state="", comment="", data=None
) -> ProposalEvent:
    return ProposalEvent.objects.create(
        proposal=proposal,
        actor=actor if actor and actor.is_authenticated else None,
        kind=kind,
        action=action,
        from_state=from_state,
        to_state=to_state,
        comment=comment,
        data=data or {},
    )


@transaction.atomic
def proposal_create(data: ProposalData, submitter, *, is_demo: bool = False) -> Proposal:
    """A new draft from interchange data. A proposal for an SNID registered to the
    submitter becomes a new version of it."""
    _snid_refuse_invalid(data.snid)
    markdown.prerender(data.sections.values())  # pages then only look the HTML up
    proposal = Proposal(submitter=submitter, is_demo=is_demo)
    proposal.apply_data(data)
    namespace = namespace_get(data.snid)
    deprecated = Conflict(
        f"urn:ogf:{(namespace.snid if namespace else data.snid)}: is deprecated: it is never "
        "proposed, reserved or registered again. Choose another SNID."
    )
    if namespace is not None and Deprecation.objects.of(namespace) is not None:
        raise deprecated
    if namespace is not None and namespace.current and rules.is_steward(submitter, namespace):
        proposal.namespace = namespace
    try:
        proposal.save()  # the checklist needs the primary key to leave the proposal out of the facts
    except IntegrityError as exc:
        # Deprecated between the check above and this insert (PostgreSQL, read committed): the
        # database's guard (migration 0009) refused it.
        if "deprecated" in str(exc):
            raise deprecated from None
        raise
    _findings_refresh(proposal)
    proposal.save(update_fields=["findings", "findings_summary"])
    _event(proposal, submitter, kind=EventKind.CREATED, to_state=proposal.state)
    return proposal


@transaction.atomic
def proposal_update(proposal: Proposal, data: ProposalData, actor) -> Proposal:
    """Save new content into a draft (or a proposal sent back for changes)."""
    _snid_refuse_invalid(data.snid)
    markdown.prerender(data.sections.values())  # before the row lock: pages only look it up
    locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
    if not rules.can_edit_proposal(actor, locked):
        if locked.state not in EDITABLE_STATES:
            raise Conflict(f"This proposal is {locked.get_state_display().lower()} and can no longer be edited.")
        raise NotAllowed("Only the submitter can edit this proposal.")
    locked.apply_data(data)
    _findings_refresh(locked)
    locked.save()
    return locked


@transaction.atomic
def proposal_transition(
    proposal: Proposal,
    action: str,
    actor,
    *,
    comment: str = "",
    override_reason: str = "",
    conflict_reason: str = "",
    public_note: str = "",
    today: dt.date | None = None,
    seen_blockers: list[str] | None = None,
    seen_updated_at: dt.datetime | None = None,
) -> Proposal:
    """Move ``proposal`` along the workflow, or refuse with a clear reason.

    The row is locked first, so of two simultaneous decisions exactly one wins and
    the other sees the state the first one left ("already decided"). ``seen_blockers``: what
    the editor's confirmation page listed as standing in the way of an approval (their
    sentences); the approval is refused (``SeenChanged``) when the checklist run here finds
    other ones, so a written reason never covers what the editor did not see.
    ``seen_updated_at``: when the proposal the editor read was last written; a decision is
    refused (``SeenChanged``) when the locked row was written since (the applicant pulled it
    back, edited and resubmitted it after the page's token was compared), so an editor never
    decides on a text they did not read.
    """
    locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
    transition = transition_for(locked.state, action)
    if transition is None:
        label = ProposalAction(action).label.lower() if action in ProposalAction.values else action
        state = locked.get_state_display().lower()
        if locked.state in FINAL_STATES:
            raise Conflict(f"This proposal is already {state}; it cannot be {_undone(action)} now.")
        raise Conflict(f"A proposal that is {state} cannot {label}.")
    conflict = {}
    if transition.actor == "editor" and rules.is_editor(actor):
        conflict = _conflict_of_interest(actor, locked, "decide on", conflict_reason)
    if not (conflict or rules.can_perform(actor, locked, transition)):
        if transition.actor == "editor" and rules.is_submitter(actor, locked):
            raise NotAllowed("Editors cannot decide on their own proposals.")
        raise NotAllowed(f"You may not {ProposalAction(action).label.lower()} this proposal.")
    if seen_updated_at is not None and locked.updated_at != seen_updated_at:
        raise SeenChanged(
            "Nothing was decided: the proposal was changed (pulled back, edited or resubmitted) after "
            "what the decision rests on was shown. Read it again as it is now, then decide."
        )
    comment = (comment or "").strip()
    if transition.needs_comment and not comment:
        raise ServiceError(f"{ProposalAction(action).label} needs a comment saying why.")
    override_reason = (override_reason or "").strip()

    data: dict = {}
    if action == ProposalAction.SUBMIT or transition.actor == "editor":
        # Every submission and decision keeps the findings it was made on (with the event), so a
        # decided proposal shows the verdict it was decided on (registry/verdicts.py).
        data = _findings_refresh(locked, SUBMITTED)
        failed = [f for f in data["findings"] if f["status"] == "fail"]
        if action == ProposalAction.SUBMIT:
            missing = [f["message"] for f in failed if f["id"] == "required-sections"]
            if missing:
                raise ServiceError("Cannot submit yet: " + " ".join(missing))
            leftover = [f["message"] for f in data["findings"] if f["id"] == "unplaced-text"]
            if leftover:
                raise ServiceError("Cannot submit yet: " + leftover[0])
        elif action == ProposalAction.APPROVE and unchecked(data["findings"]):
            # Not a failure to override: nothing is known yet, and a fresh check gives the verdict.
            found = unchecked(data["findings"])
            cause = next((f for f in found if f["status"] != FindingStatus.NOT_RUN), found[0])
            raise ServiceError(
                f"Cannot approve yet: {cause['message']} Nothing was decided; confirm again in a moment "
                "to check afresh."
            )
        elif action == ProposalAction.APPROVE:
            # The one approval rule (verdicts.approval_blockers), for the web, the API and the command.
            blockers = approval_blockers(data["findings"], _judgements(locked))
            if seen_blockers is not None and [b.sentence for b in blockers] != list(seen_blockers):
                raise SeenChanged(
                    "Nothing was decided: the checks run now give other reasons to withhold approval than the "
                    "confirmation page showed ("
                    + ("; ".join(b.sentence for b in blockers) or "none")
                    + "). Read the page again as it is now, then confirm."
                )
            if blockers and not override_reason:
                raise ServiceError(
                    "Cannot approve: "
                    + "; ".join(b.sentence for b in blockers)
                    + ". Give a written reason to approve anyway."
                )
            if blockers:
                locked.override_reason = override_reason
                locked.overridden = [b.as_dict() for b in blockers]
                data["override_reason"] = override_reason
                data["overridden"] = locked.overridden

    if action == ProposalAction.SUBMIT:
        # Each submission is a review round; keep what was submitted so the editor can
        # see what changed since the previous round: a copy only when it differs from the
        # last one kept, otherwise its hash and the event that holds it (a pull-back and
        # resubmission of the same text adds no copy).
        data.update(submitted_content(locked, interchange_dump(locked.to_data())))
        data["round"] = locked.events.filter(action=ProposalAction.SUBMIT).count() + 1
        if not locked.kind:  # fixed at the first submission, never recomputed
            current = locked.namespace.current_id if locked.namespace_id else None
            locked.kind = ProposalKind.NEW_VERSION if current is not None else ProposalKind.NEW_SNID

    data.update(conflict)
    now = timezone.now()
    source = locked.state
    if action == ProposalAction.APPROVE:
        cost = _register(locked, today or timezone.localdate(now), data)
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
        if cost is not None:
            validator_cost_store(locked, cost)
        log_version_registered(locked)  # the transparency log, in this transaction
        if locked.version == 1:  # the registrant becomes the first steward (logged after the version)
            steward_first(locked.namespace, locked.submitter)
        try:
            resolvers_install_approved(locked, actor)  # section 3.2's resolvers become the SNID's
        except ResolutionFault as exc:
            raise ServiceError(str(exc)) from None
    _event(locked, actor, action=action, from_state=source, to_state=locked.state, comment=comment, data=data)
    context = {
        "proposal": locked,
        "actor": actor,
        "comment": comment,
        "transition": transition,
        "summary": locked.findings_summary,
        "resubmitted": source == ProposalState.CHANGES_REQUESTED,
        "open_threads": locked.comments.open_threads().count(),
    }
    if action == ProposalAction.SUBMIT:
        notify.later("submitted", notify.editors_emails, context)
    elif action == ProposalAction.PULL_BACK:
        notify.later("pulled_back", notify.editors_emails, context)
    elif transition.actor == "editor":
        notify.later("decision", [locked.submitter.email], context)
    return locked


def submitted_content(proposal: Proposal, content: dict) -> dict:
    """What a submit event keeps of the submitted content (conversation.submitted_content reads it).

    Its SHA-256 always; the changes from the previous round's content when that can be rebuilt
    (nothing more for an unchanged resubmission), else a full copy, at least every
    ``CONTENT_CHAIN_MAX`` rounds so rebuilding one never reads a long chain."""
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    previous = proposal.events.filter(action=ProposalAction.SUBMIT).order_by("-created_at", "-id").first()
    base = submitted_content_of(previous) if previous is not None else None
    depth = previous.data.get("content_depth", 0) + 1 if previous is not None else 0
    if base is None or depth > CONTENT_CHAIN_MAX:
        return {"content_sha256": digest, "content": content, "content_depth": 0}
    changes, removed = content_changes(base, content)
    kept = {"content_sha256": digest, "content_base": previous.pk, "content_depth": depth, "content_changes": changes}
    if removed:
        kept["content_removed"] = removed
    return kept


def _undone(action: str) -> str:
    """ "sent back", "approved": the end of "it cannot be … now"."""
    return "sent back" if action == ProposalAction.REQUEST_CHANGES else action_done(action).lower()


def _register(proposal: Proposal, today: dt.date, data: dict) -> dict | None:
    """Register the SNID or add the next version to it (inside the approval's transaction).

    Returns the stored validator's measured cost (None without a validator)."""
    _snid_refuse_invalid(proposal.snid)  # a stored draft may predate the check
    namespace = Namespace.objects.select_for_update().by_snid(proposal.snid).first()
    if namespace is None:
        try:
            with transaction.atomic():
                namespace = Namespace.objects.create(
                    snid=proposal.snid, status=NamespaceStatus.REGISTERED, registered_at=timezone.now()
                )
        except IntegrityError:
            raise Conflict(f"urn:ogf:{proposal.snid}: was registered by another proposal a moment ago.") from None
        version = 1
    elif namespace.status == NamespaceStatus.RESERVED:
        if reservation_active(namespace, today) and namespace.reserved_for_id not in (None, proposal.submitter_id):
            raise Conflict(f"urn:ogf:{namespace.snid}: is reserved for someone else until {namespace.reserved_until}.")
        namespace.status = NamespaceStatus.REGISTERED
        namespace.registered_at = timezone.now()
        namespace.reserved_until = None
        namespace.save()
        version = 1
    else:
        if Deprecation.objects.of(namespace) is not None:
            raise Conflict(f"urn:ogf:{namespace.snid}: is deprecated: it is never registered again.")
        if proposal.namespace_id != namespace.pk:
            raise Conflict(
                f"urn:ogf:{namespace.snid}: is already registered; only its stewards can propose a new version."
            )
        version = (latest_version(namespace) or 0) + 1
    if proposal.version != version:
        data["version_assigned"] = {"proposed": proposal.version, "assigned": version}
    proposal.namespace = namespace
    proposal.version = version
    proposal.registration_date = today
    proposal.validator, cost = _validator_of(proposal)
    # Once committed, the registry changed for this SNID: lookups in this process see the new version at
    # once (others within a second), and its other open proposals are checked again (services.findings).
    transaction.on_commit(partial(registry_changed_send, namespace.snid))
    return cost


def _validator_of(proposal: Proposal) -> tuple[dict | None, dict | None]:
    """(the validator to store, its measured cost); a grammar over the matching budget has none."""
    if not proposal.grammar_abnf.strip():
        return None, None
    compiled = grammar_compile(
        proposal.grammar_abnf,
        proposal.grammar_rule,
        examples=tuple(proposal.examples_valid) + tuple(proposal.examples_invalid),
    )
    if compiled.not_checked:  # a fault must not become the approved version's validator
        raise ServiceError(compiled.issues[0].message)
    if compiled.validator is None:
        return None, None
    cost = compiled.validator.cost
    return compiled.validator.as_dict(), cost.as_dict() if cost else None


def validator_cost_store(proposal: Proposal, figures: dict, *, touch: bool = True) -> ValidatorCost:
    """Store a validator's measured cost; lookups everywhere reload it when its verdict changed.

    ``touch=False`` for a restore, which measures what it restored before any server reads it
    (its SNIDs' rows must stay as the backup has them)."""
    slow = not (Cost.from_dict(figures) or Cost(float("inf"), "", 0, False)).cheap
    record = ValidatorCost.objects.filter(proposal=proposal).first()
    changed = record is None or record.slow != slow
    record, _ = ValidatorCost.objects.update_or_create(
        proposal=proposal, defaults={"figures": figures, "slow": slow, "measured_at": timezone.now()}
    )
    if touch and changed and proposal.namespace_id and record is not None:
        # The lookup index of every process is stamped by the namespace table: touching the row
        # makes each reload this SNID's validator with its new cost within a second.
        Namespace.objects.filter(pk=proposal.namespace_id, current=proposal).update(updated_at=timezone.now())
        transaction.on_commit(registry_invalidate)
    return record
