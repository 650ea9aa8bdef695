"""Writes of an SNID's life after approval: stewards, change requests, deprecation.

Each service runs in one transaction, checks its rule from ``registry.rules`` whatever
the caller checked, writes the append-only ``StewardshipEvent`` and, for a public change,
the transparency log's leaf in the same transaction. Public changes move the namespace's
``updated_at``, so the lookup index, cached pages and exports see them at once.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import notify, rules
from ..lookup import registry_invalidate
from ..models import Namespace
from ..services import Conflict, NotAllowed, ServiceError
from ..transparency.kinds import ADMINISTRATIVE_CHANGE, SNID_DEPRECATED, SNID_UNDEPRECATED, STEWARD_CHANGED, sha256_hex
from ..transparency.log import log_append
from ..transparency.records import version_record
from .changes import CHANGE_KINDS, OVERLAY_FIELDS
from .models import (
    CHANGE_TRANSITIONS,
    STEWARD_TRANSITIONS,
    ChangeRequest,
    ChangeState,
    Deprecation,
    Steward,
    StewardshipEvent,
    StewardshipEventKind as K,
    StewardState,
)
from .selectors import current_with_overlay, deprecation_of

REASON_MAX = 2000


def _reason(text: str, what: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ServiceError(f"{what} needs a reason; it is recorded in the SNID's history.")
    if len(text) > REASON_MAX:
        raise ServiceError(f"The reason is {len(text):,} characters long; the limit is {REASON_MAX:,}.")
    return text


def _registered(namespace) -> Namespace:
    locked = Namespace.objects.select_for_update(of=("self",)).select_related("current").get(pk=namespace.pk)
    if locked.status != "registered" or locked.current is None:
        raise Conflict(f"urn:ogf:{locked.snid}: is not registered; only a registered SNID has stewards.")
    return locked


def _editor_for(actor, namespace, doing: str) -> None:
    if not rules.is_editor(actor):
        raise NotAllowed(f"Only GFD editors can {doing}.")
    if not rules.can_decide_for_snid(actor, namespace):
        raise NotAllowed(f"You are a steward of urn:ogf:{namespace.snid}:, so another editor must {doing}.")


def _event(namespace, actor, kind, summary, *, public=False, reason="", data=None) -> StewardshipEvent:
    return StewardshipEvent.objects.create(namespace=namespace, actor=actor, kind=kind, public=public,
                                           summary=summary, reason=reason, data=data or {})


def _touch(namespace) -> None:
    """Public views of the SNID changed: move the registry stamp (lookup, page cache, exports)."""
    Namespace.objects.filter(pk=namespace.pk).update(updated_at=timezone.now())
    transaction.on_commit(registry_invalidate)


def _name(user) -> str:
    return user.get_full_name() or user.get_username()


# --- stewards ------------------------------------------------------------------------------------


@transaction.atomic
def steward_add(namespace, user, editor, *, reason: str) -> Steward:
    """An editor makes ``user`` a steward of the SNID (with a recorded reason)."""
    namespace = _registered(namespace)
    _editor_for(editor, namespace, "add stewards")
    reason = _reason(reason, "Adding a steward")
    if not user.is_active:
        raise ServiceError(f"The account {user.get_username()!r} is deactivated.")
    live = Steward.objects.filter(namespace=namespace, user=user,
                                  state__in=(StewardState.ACTIVE, StewardState.INVITED)).first()
    if live is not None and live.state == StewardState.ACTIVE:
        raise Conflict(f"{user.get_username()} is already a steward of urn:ogf:{namespace.snid}:.")
    if live is not None:  # an open invitation: adding confirms it
        return steward_invitation_decide(live, editor, confirm=True, note=reason)
    steward = Steward.objects.create(namespace=namespace, user=user, state=StewardState.ACTIVE, reason=reason,
                                     confirmed_at=timezone.now())
    _event(namespace, editor, K.STEWARD_ADDED, "A steward was added by an editor.", public=True, reason=reason,
           data={"user": user.get_username()})
    log_append(STEWARD_CHANGED.name, {"snid": namespace.snid, "change": "added", "steward": _name(user),
                                      "reason": reason})
    _touch(namespace)
    return steward


@transaction.atomic
def steward_remove(steward: Steward, editor, *, reason: str) -> Steward:
    """An editor ends a stewardship. An SNID keeps at least one steward: add the next one first."""
    namespace = _registered(steward.namespace)
    _editor_for(editor, namespace, "remove stewards")
    reason = _reason(reason, "Removing a steward")
    others = Steward.objects.filter(namespace=namespace, state=StewardState.ACTIVE).exclude(pk=steward.pk)
    if Steward.objects.filter(pk=steward.pk, state=StewardState.ACTIVE).exists() and not others.exists():
        raise Conflict(f"{steward.user.get_username()} is the only steward of urn:ogf:{namespace.snid}:; add "
                       "another steward before removing this one.")
    steward = steward_set_state(steward, StewardState.REMOVED, editor, "A steward was removed by an editor.",
                                public=True, reason=reason, refused="This account is not a steward of the SNID.")
    log_append(STEWARD_CHANGED.name, {"snid": namespace.snid, "change": "removed",
                                      "steward": _name(steward.user), "reason": reason})
    _touch(namespace)
    return steward


@transaction.atomic
def steward_invite(namespace, user, inviter, *, reason: str) -> Steward:
    """A steward invites another account; an editor confirms it (``steward_invitation_decide``)."""
    namespace = _registered(namespace)
    if not rules.can_request_change(inviter, namespace):
        raise NotAllowed(f"Only stewards of urn:ogf:{namespace.snid}: can invite another steward.")
    reason = _reason(reason, "An invitation")
    if not user.is_active:
        raise ServiceError(f"The account {user.get_username()!r} is deactivated.")
    if Steward.objects.filter(namespace=namespace, user=user,
                              state__in=(StewardState.ACTIVE, StewardState.INVITED)).exists():
        raise Conflict(f"{user.get_username()} is already a steward of urn:ogf:{namespace.snid}: or invited.")
    steward = Steward.objects.create(namespace=namespace, user=user, state=StewardState.INVITED, reason=reason,
                                     invited_by=inviter)
    _event(namespace, inviter, K.STEWARD_INVITED, "A steward invited another steward.", reason=reason,
           data={"user": user.get_username()})
    notify.later("steward_invited", notify.editors_emails, {"namespace": namespace, "steward": steward})
    return steward


@transaction.atomic
def steward_invitation_decide(steward: Steward, editor, *, confirm: bool, note: str = "") -> Steward:
    namespace = _registered(steward.namespace)
    _editor_for(editor, namespace, "confirm stewards")
    note = (note or "").strip()[:REASON_MAX]
    refused = "This invitation has already been decided."
    if confirm:
        steward = steward_set_state(steward, StewardState.ACTIVE, editor,
                                    "A steward was added by an editor at a steward's invitation.", public=True,
                                    reason=steward.reason, data={"note": note}, refused=refused)
        log_append(STEWARD_CHANGED.name, {"snid": namespace.snid, "change": "confirmed",
                                          "steward": _name(steward.user), "reason": steward.reason})
        _touch(namespace)
    else:
        steward = steward_set_state(steward, StewardState.DECLINED, editor, "An editor declined a steward's invitation.",
                                    reason=note, refused=refused)
    return steward


@transaction.atomic
def steward_set_state(steward: Steward, to: str, actor, summary: str, *, public: bool = False, reason: str = "",
                      data: dict | None = None, refused: str = "") -> Steward:
    """The one place a steward's state changes: only along ``STEWARD_TRANSITIONS``, with its event written
    in the same transaction (callers check who may act; ``refused`` is the Conflict's message)."""
    locked = Steward.objects.select_for_update().select_related("user").get(pk=steward.pk)
    kind = STEWARD_TRANSITIONS.get((locked.state, to))
    if kind is None:
        raise Conflict(refused or f"A steward cannot go from {locked.get_state_display().lower()} to "
                                  f"{StewardState(to).label.lower()}.")
    now = timezone.now()
    locked.state = to
    if to == StewardState.ACTIVE:
        locked.confirmed_at = now
    else:
        locked.ended_at = now
    locked.save()
    _event(locked.namespace, actor, kind, summary, public=public, reason=reason,
           data={"user": locked.user.get_username(), **(data or {})})
    return locked


@transaction.atomic
def steward_show_orcid(steward: Steward, user, show: bool) -> Steward:
    """A steward chooses whether their verified ORCID iD is shown beside their name."""
    if steward.user_id != user.pk:
        raise NotAllowed("Only the steward themselves chooses what is shown beside their name.")
    Steward.objects.filter(pk=steward.pk).update(show_orcid=bool(show))
    _touch(steward.namespace)
    steward.show_orcid = bool(show)
    return steward


def steward_account_deactivated(user) -> list[Namespace]:
    """An account was deactivated: SNIDs left without an active steward stay registered; editors are told."""
    orphaned = []
    with transaction.atomic():
        for steward in Steward.objects.filter(user=user, state=StewardState.ACTIVE).select_related("namespace"):
            namespace = steward.namespace
            live = Steward.objects.filter(namespace=namespace, state=StewardState.ACTIVE,
                                          user__is_active=True).exclude(user=user)
            if not live.exists():
                orphaned.append(namespace)
                _event(namespace, None, K.STEWARD_DEACTIVATED,
                       "The only steward's account was deactivated; the SNID stays registered.",
                       data={"user": user.get_username()})
        if orphaned:
            notify.later("steward_orphaned", notify.editors_emails, {"namespaces": orphaned, "user": user})
    return orphaned


# --- administrative change requests -------------------------------------------------------------


def _clean(kind, namespace, data: dict) -> dict:
    form = kind.form(data=data)
    if not form.is_valid():
        problems = "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items())
        raise ServiceError(f"The {kind.label.lower()} change cannot be made: {problems}")
    cleaned = {k: v for k, v in form.cleaned_data.items() if v not in ("", None)}
    if kind.validate is not None:
        try:
            cleaned = kind.validate(namespace, cleaned)
        except ValueError as exc:
            raise ServiceError(f"The {kind.label.lower()} change cannot be made: {exc}") from None
    return cleaned


@transaction.atomic
def change_request_create(namespace, kind: str, data: dict, requester, *, reason: str) -> ChangeRequest:
    """A steward asks for an administrative change. Only the kinds of ``CHANGE_KINDS`` exist, and each takes
    only its own fields: the syntax, equivalence, examples and meaning change by a new version alone."""
    namespace = _registered(namespace)
    if not rules.can_request_change(requester, namespace):
        raise NotAllowed(f"Only stewards of urn:ogf:{namespace.snid}: can ask to change it.")
    change = CHANGE_KINDS.get(kind)
    if change is None or not change.available():
        raise ServiceError(f"{kind!r} is not something a change request can change; the syntax, equivalence "
                           "rules, examples and meaning of an SNID change only by a new version.")
    unknown = sorted(set(data) - set(change.form.base_fields))
    if unknown:
        raise ServiceError(f"A {change.label.lower()} change cannot set {', '.join(unknown)}; the syntax, "
                           "equivalence rules, examples and meaning of an SNID change only by a new version.")
    reason = _reason(reason, "A change request")
    cleaned = _clean(change, namespace, data)
    request = ChangeRequest.objects.create(namespace=namespace, kind=kind, data=cleaned, reason=reason,
                                           requested_by=requester)
    _event(namespace, requester, K.CHANGE_REQUESTED, f"A steward asked to change the {change.what}.", reason=reason,
           data={"request": request.pk, "kind": kind})
    notify.later("change_requested", notify.editors_emails, {"namespace": namespace, "request": request,
                                                             "change": change})
    return request


@transaction.atomic
def change_request_decide(request: ChangeRequest, editor, *, approve: bool, note: str = "") -> ChangeRequest:
    """An editor approves (the change is applied, recorded and logged) or declines a change request."""
    namespace = _registered(request.namespace)
    _editor_for(editor, namespace, "decide on change requests")
    locked = ChangeRequest.objects.select_for_update().get(pk=request.pk)
    to = ChangeState.APPROVED if approve else ChangeState.DECLINED
    if (locked.state, to) not in CHANGE_TRANSITIONS:
        raise Conflict(f"This change request was already {locked.get_state_display().lower()}.")
    change = CHANGE_KINDS.get(locked.kind)
    if change is None or not change.available():
        raise Conflict(f"{locked.kind!r} changes can no longer be made here.")
    note = (note or "").strip()[:REASON_MAX]
    if not approve:
        locked = change_request_set_state(locked, to, editor, f"An editor declined a change of the {change.what}.",
                                          note=note, reason=note)
        notify.later("change_decided", [locked.requested_by.email], {"namespace": namespace, "request": locked})
        return locked
    before = change.apply(namespace, locked.data, editor, locked.reason)
    locked = change_request_set_state(locked, to, editor, f"{change.what[0].upper()}{change.what[1:]} changed by an "
                                      "editor at the steward's request.", note=note, reason=locked.reason,
                                      public=True, before=before)
    _log_change(namespace, change, locked)
    _touch(namespace)
    notify.later("change_decided", [locked.requested_by.email], {"namespace": namespace, "request": locked})
    return locked


@transaction.atomic
def change_request_set_state(request: ChangeRequest, to: str, editor, summary: str, *, note: str = "",
                             reason: str = "", public: bool = False, before: dict | None = None) -> ChangeRequest:
    """The one place a change request's state changes: only along ``CHANGE_TRANSITIONS``, with the decision
    recorded and its event written in the same transaction (callers check who may act and apply the change)."""
    locked = ChangeRequest.objects.select_for_update().get(pk=request.pk)
    kind = CHANGE_TRANSITIONS.get((locked.state, to))
    if kind is None:
        raise Conflict(f"This change request was already {locked.get_state_display().lower()}.")
    locked.state, locked.decided_by, locked.decided_at, locked.decision_note = to, editor, timezone.now(), note
    if before is not None:
        locked.before = before
    locked.save()
    data = {"request": locked.pk, "kind": locked.kind}
    if to == ChangeState.APPROVED:
        data["on"] = timezone.localdate(locked.decided_at).isoformat()
    _event(locked.namespace, editor, kind, summary, public=public, reason=reason, data=data)
    return locked


def _log_change(namespace, change, request) -> None:
    current = current_with_overlay(Namespace.objects.select_related("current").get(pk=namespace.pk))
    fields = {}
    leaf = {"snid": namespace.snid, "version": current.version, "change": change.name, "fields": fields}
    touches_record = any(name in OVERLAY_FIELDS for name in request.data)
    if touches_record:
        current.namespace = namespace
        public = current.registrant_public()
        published = {"registrant_public_contact": "contact", **{f"registrant_{k}": k for k in public}}
        for name in request.data:
            key = published.get(name)
            if key and public.get(key, ""):  # only what the public record shows is logged in the clear
                fields[key] = public[key]
        record = version_record(current)
        leaf["registrant"] = record["registrant"]
        leaf["record_sha256"] = sha256_hex(record)
    else:
        fields.update({k: str(v) for k, v in request.data.items()})
    log_append(ADMINISTRATIVE_CHANGE.name, leaf)


# --- deprecation ---------------------------------------------------------------------------------


@transaction.atomic
def snid_deprecate(namespace, editor, *, reason: str, successor: str = "") -> Deprecation:
    """Mark a registered SNID deprecated. It stays registered, its URNs stay valid, and it is never
    reassigned, reserved or registered again while the mark stands."""
    namespace = _registered(namespace)
    _editor_for(editor, namespace, "deprecate an SNID")
    reason = _reason(reason, "Deprecating an SNID")
    if deprecation_of(namespace) is not None:
        raise Conflict(f"urn:ogf:{namespace.snid}: is already deprecated.")
    heir = None
    successor = (successor or "").strip()
    if successor:
        heir = Namespace.objects.by_snid(successor).first()
        if heir is None or heir.status != "registered" or heir.current_id is None:
            raise ServiceError(f"The successor urn:ogf:{successor[:40]}: is not a registered SNID.")
        if heir.pk == namespace.pk:
            raise ServiceError("An SNID cannot be its own successor.")
        if deprecation_of(heir) is not None:
            raise ServiceError(f"The successor urn:ogf:{heir.snid}: is itself deprecated; name a current SNID.")
    deprecation = Deprecation.objects.create(namespace=namespace, reason=reason, successor=heir,
                                             deprecated_by=editor)
    sentence = "Deprecated by an editor" + (f"; its successor is urn:ogf:{heir.snid}:." if heir else ".")
    _event(namespace, editor, K.DEPRECATED, sentence, public=True, reason=reason,
           data={"successor": heir.snid if heir else None})
    log_append(SNID_DEPRECATED.name, {"snid": namespace.snid, "reason": reason,
                                      "successor": heir.snid if heir else None})
    _touch(namespace)
    return deprecation


@transaction.atomic
def snid_undeprecate(namespace, editor, *, reason: str) -> Deprecation:
    namespace = _registered(namespace)
    _editor_for(editor, namespace, "withdraw a deprecation")
    reason = _reason(reason, "Withdrawing a deprecation")
    deprecation = Deprecation.objects.select_for_update().in_force().filter(namespace=namespace).first()
    if deprecation is None:
        raise Conflict(f"urn:ogf:{namespace.snid}: is not deprecated.")
    deprecation.ended_at, deprecation.ended_by, deprecation.end_reason = timezone.now(), editor, reason
    deprecation.save()
    _event(namespace, editor, K.UNDEPRECATED, "An editor withdrew the deprecation.", public=True, reason=reason)
    log_append(SNID_UNDEPRECATED.name, {"snid": namespace.snid, "reason": reason})
    _touch(namespace)
    return deprecation
