"""Writes of an SNID's life after approval: stewards, change requests, deprecation.

A stewardship and a change request move only along their tables of moves
(``models.STEWARD_MOVES``, ``models.CHANGE_MOVES``), each through one service —
``steward_transition`` and ``change_request_transition`` (with ``change_request_create`` for the
request itself) — that runs in one transaction, checks the rule of ``registry.rules`` for the
move whatever the caller checked, writes the append-only ``StewardshipEvent`` and, for a public
move, the transparency log's leaf, and mails everyone concerned once the transaction commits.
Public changes move the namespace's ``updated_at``, so the lookup index, cached pages and exports
see them at once.

Rows are locked in one order: the SNIDs concerned by id (a deprecation locks its successor too),
then the stewardship or request, then the log's head (``log_append``, last). Two editors
deprecating A in favour of B and B in favour of A at once therefore queue instead of deadlocking,
and the second is told that naming its successor would close a cycle. Should the database still report a
deadlock, the service is tried again and then refused as a conflict (409), never a 500.
"""

from __future__ import annotations

from functools import partial

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from .. import notify, rules
from ..accounts.names import public_name_problem, public_name_record
from ..errors import Conflict, NotAllowed, ServiceError
from ..logcore.kinds import ADMINISTRATIVE_CHANGE, STEWARD_CHANGED, STEWARD_RENAMED, sha256_hex
from ..models import Namespace
from ..signals import registry_changed_send
from ..transparency.log import log_append
from ..transparency.records import version_record
from .changes import CHANGE_KINDS, OVERLAY_FIELDS

# Deprecation has its own module; the pages and the tests reach every stewardship service here.
from .deprecation import (  # noqa: F401 - re-exported
    deprecation_check,
    deprecation_write,
    snid_deprecate,
    snid_undeprecate,
    successor_snid,
)
from .models import (
    CHANGE_MOVE_BY_KEY,
    STEWARD_MOVE_BY_KEY,
    ChangeRequest,
    ChangeState,
    Steward,
    StewardState,
)
from .models import (
    StewardshipEventKind as K,
)
from .selectors import current_with_overlay, logged_name
from .writes import _ask_editors, _event, _locked, _note, _reason, _retried, _tell, _touch

# --- stewards ------------------------------------------------------------------------------------


def steward_refusal(action: str, actor, namespace, user, steward) -> str:
    """Why ``actor`` may not take ``action`` ("" if they may); the rules are ``registry.rules``'."""
    snid = f"urn:ogf:{namespace.snid}:"
    if action == "invite":
        if not rules.can_request_change(actor, namespace):
            return f"Only stewards of {snid} can invite another steward."
        return "" if rules.can_invite_steward(actor, namespace, user) else "You are a steward already."
    if not rules.is_editor(actor):
        return "Only GFD editors decide who acts for an SNID."
    if not rules.can_decide_for_snid(actor, namespace):
        return f"You are a steward of {snid}, so another editor decides who acts for it."
    allowed = {
        "add": lambda: rules.can_add_steward(actor, namespace, user),
        "remove": lambda: rules.can_remove_steward(actor, steward),
        "confirm": lambda: rules.can_decide_invitation(actor, steward),
        "decline": lambda: rules.can_decide_invitation(actor, steward),
    }[action]()
    if allowed:
        return ""
    if action == "add":
        return f"Editors do not make themselves stewards: another editor adds you as a steward of {snid}."
    if action == "remove":
        return "Editors do not remove themselves as stewards: another editor does."
    if steward.user_id == getattr(actor, "pk", None):
        return "This invitation is for you, so another editor decides it."
    return "You made this invitation, so another editor decides it."


def _steward_move(namespace, action: str, actor, user, steward):
    """The move ``actor`` takes, or the refusal (NotAllowed, Conflict, ServiceError); writes nothing."""
    source = steward.state if steward is not None else ""
    refusal = steward_refusal(action, actor, namespace, user, steward)
    if refusal:
        raise NotAllowed(refusal)
    move = STEWARD_MOVE_BY_KEY.get((source, action))
    if move is None:
        state = StewardState(source).label.lower() if source else "new"
        raise Conflict(
            f"This invitation has already been decided ({state})."
            if action in ("confirm", "decline")
            else f"This account is not a steward of the SNID ({state})."
            if action == "remove"
            else f"A stewardship that is {state} cannot be {action}ed."
        )
    who = user.get_username()
    if source == "":
        if not user.is_active:
            raise ServiceError(f"The account {who!r} is deactivated.")
        live = Steward.objects.filter(
            namespace=namespace, user=user, state__in=(StewardState.ACTIVE, StewardState.INVITED)
        ).first()
        if live is not None and not (action == "add" and live.state == StewardState.INVITED):
            raise Conflict(
                f"{who} is already a steward of urn:ogf:{namespace.snid}:."
                if live.state == StewardState.ACTIVE
                else f"{who} is invited to act for urn:ogf:{namespace.snid}: already; an editor decides."
            )
    if (
        action == "remove"
        and not Steward.objects.filter(namespace=namespace, state=StewardState.ACTIVE).exclude(pk=steward.pk).exists()
    ):
        raise Conflict(
            f"{who} is the only steward of urn:ogf:{namespace.snid}:; add another steward before removing this one."
        )
    return move


def steward_check(namespace, action: str, actor, *, user=None, steward: Steward | None = None) -> None:
    """Refuse as ``steward_transition`` would, without writing: what a preview checks before it shows
    what the step will do."""
    _steward_move(namespace, action, actor, steward.user if steward is not None else user, steward)


@_retried
@transaction.atomic
def steward_transition(
    namespace, action: str, actor, *, user=None, steward: Steward | None = None, reason: str = "", note: str = ""
) -> Steward:
    """The one service that makes, ends or decides a stewardship: ``action`` is a move of
    ``STEWARD_MOVES`` — ``add`` and ``invite`` (``user``, with a reason), ``confirm``, ``decline`` and
    ``remove`` (``steward``; confirming and declining take an optional note, removing a reason).

    Refused: a move not in the table from the stewardship's state (Conflict, 409), a move the rule
    does not allow the actor (NotAllowed), an SNID left without stewards (Conflict)."""
    namespace = _locked(steward.namespace if steward is not None else namespace)
    if steward is not None:
        steward = (
            Steward.objects.select_for_update(of=("self",))
            .select_related("user", "invited_by")
            .get(pk=steward.pk, namespace=namespace)
        )
        user = steward.user
    move = _steward_move(namespace, action, actor, user, steward)
    if action == "add":
        invited = Steward.objects.filter(namespace=namespace, user=user, state=StewardState.INVITED).first()
        if invited is not None:  # an open invitation: adding confirms it
            return steward_transition(namespace, "confirm", actor, steward=invited, note=reason)
    if action in ("add", "invite", "remove"):
        reason = _reason(
            reason, {"add": "Adding a steward", "invite": "An invitation", "remove": "Removing a steward"}[action]
        )
    note = _note(note)
    who = user.get_username()

    now = timezone.now()
    if steward is None:
        steward = Steward.objects.create(
            namespace=namespace,
            user=user,
            state=move.target,
            reason=reason,
            invited_by=actor if action == "invite" else None,
            confirmed_at=now if move.target == StewardState.ACTIVE else None,
        )
    else:
        steward.state = move.target
        if move.target == StewardState.ACTIVE:
            steward.confirmed_at = now
        else:
            steward.ended_at = now
        steward.save()
    # What the history and the log give as the reason: the invitation's for its confirmation.
    recorded = steward.reason if action == "confirm" else (reason or note)
    _event(
        namespace,
        actor,
        move.event,
        move.summary,
        public=move.public,
        reason=recorded,
        data={"user": who, "steward": steward.pk, **({"note": note} if note else {})},
    )
    if move.public:
        _touch(namespace)
    if move.log:
        log_append(
            STEWARD_CHANGED.name,
            {"snid": namespace.snid, "change": move.log, "steward": logged_name(user), "reason": recorded},
        )
    context = {"steward": steward, "move": move, "actor": actor, "reason": recorded, "note": note}
    _tell(move.mail, namespace, context, user, steward.invited_by)
    if action == "invite":  # a new request: the editors decide it
        _ask_editors("steward_invited", namespace, {"steward": steward}, user, steward.invited_by)
    return steward


def steward_add(namespace, user, editor, *, reason: str) -> Steward:
    """An editor makes ``user`` a steward of the SNID (with a public reason); never of themselves."""
    return steward_transition(namespace, "add", editor, user=user, reason=reason)


def steward_remove(steward: Steward, editor, *, reason: str) -> Steward:
    """An editor ends a stewardship. An SNID keeps at least one steward: add the next one first."""
    return steward_transition(steward.namespace, "remove", editor, steward=steward, reason=reason)


def steward_invite(namespace, user, inviter, *, reason: str) -> Steward:
    """A steward invites another account; an editor confirms it (``steward_invitation_decide``)."""
    return steward_transition(namespace, "invite", inviter, user=user, reason=reason)


def steward_invitation_decide(steward: Steward, editor, *, confirm: bool, note: str = "") -> Steward:
    return steward_transition(
        steward.namespace, "confirm" if confirm else "decline", editor, steward=steward, note=note
    )


@transaction.atomic
def steward_show_orcid(steward: Steward, user, show: bool) -> Steward:
    """A steward chooses whether their verified ORCID iD is shown beside their name."""
    if steward.user_id != user.pk:
        raise NotAllowed("Only the steward themselves chooses what is shown beside their name.")
    Steward.objects.filter(pk=steward.pk).update(show_orcid=bool(show))
    _touch(steward.namespace)
    steward.show_orcid = bool(show)
    return steward


@transaction.atomic
def steward_public_name(user, name: str):
    """A steward chooses the name public pages and the log give them (their login name never shows)."""
    if not Steward.objects.filter(user_id=user.pk, state=StewardState.ACTIVE).exists():
        raise NotAllowed("Only stewards are named on public pages.")
    name = " ".join((name or "").split())
    if len(name) > 150:
        raise ServiceError(f"The name is {len(name):,} characters long; the limit is 150.")
    if problem := public_name_problem(name, user=user):
        raise ServiceError(problem)
    previous = logged_name(user)
    get_user_model().objects.filter(pk=user.pk).update(first_name=name, last_name="")
    user.first_name, user.last_name = name, ""
    public_name_record(user)
    stewarded = list(
        Namespace.objects.filter(stewards__user_id=user.pk, stewards__state=StewardState.ACTIVE)
        .order_by("pk")
        .values_list("pk", "snid")
    )
    for namespace_id, _ in stewarded:
        Namespace.objects.filter(pk=namespace_id).update(updated_at=timezone.now())
    if logged_name(user) != previous:  # the log names stewards: it says so, SNID by SNID (its head last)
        for _, snid in stewarded:
            log_append(STEWARD_RENAMED.name, {"snid": snid, "steward": logged_name(user), "previous": previous})
    transaction.on_commit(partial(registry_changed_send, *(snid for _, snid in stewarded)))
    return user


def steward_account_deactivated(user) -> list[Namespace]:
    """An account was deactivated: SNIDs left without an active steward stay registered; editors are told."""
    orphaned = []
    with transaction.atomic():
        for steward in Steward.objects.filter(user=user, state=StewardState.ACTIVE).select_related("namespace"):
            namespace = steward.namespace
            live = Steward.objects.filter(namespace=namespace, state=StewardState.ACTIVE, user__is_active=True).exclude(
                user=user
            )
            if not live.exists():
                orphaned.append(namespace)
                _event(
                    namespace,
                    None,
                    K.STEWARD_DEACTIVATED,
                    "The only steward's account was deactivated; the SNID stays registered.",
                    data={"user": user.get_username()},
                )
        if orphaned:
            notify.later("steward_orphaned", notify.editors_emails, {"namespaces": orphaned, "user": user})
    return orphaned


# --- change requests ----------------------------------------------------------------------------


def _clean(kind, namespace, data: dict) -> dict:
    form = kind.form(data=kind.initial(data))
    if not form.is_valid():
        problems = "; ".join(
            f"{form.fields[name].label if name in form.fields else 'the request'}: {' '.join(errors)}"
            for name, errors in form.errors.items()
        )
        raise ServiceError(f"The {kind.label.lower()} request cannot be made: {problems}")
    cleaned = {k: v for k, v in form.cleaned_data.items() if v not in ("", None)}
    if kind.validate is not None:
        try:
            cleaned = kind.validate(namespace, cleaned)
        except ValueError as exc:
            raise ServiceError(f"The {kind.label.lower()} request cannot be made: {exc}") from None
    return cleaned


def change_request_check(namespace, kind: str, data: dict, requester, *, reason: str):
    """What ``change_request_create`` would record, without writing anything: (kind, cleaned data, reason).
    The steward's preview shows exactly this; a refusal raises as the service would."""
    if not rules.can_request_change(requester, namespace):
        raise NotAllowed(f"Only stewards of urn:ogf:{namespace.snid}: can ask to change it.")
    change = CHANGE_KINDS.get(kind)
    if change is None or not change.available():
        raise ServiceError(
            f"{kind!r} is not something a change request can change; the syntax, equivalence "
            "rules, examples and meaning of an SNID change only by a new version."
        )
    unknown = sorted(set(data) - set(change.form.base_fields))
    if unknown:
        raise ServiceError(
            f"A {change.label.lower()} request cannot set {', '.join(unknown)}; the syntax, "
            "equivalence rules, examples and meaning of an SNID change only by a new version."
        )
    reason = _reason(reason, "A change request")
    return change, _clean(change, namespace, data), reason


@transaction.atomic
def change_request_create(namespace, kind: str, data: dict, requester, *, reason: str) -> ChangeRequest:
    """A steward asks for a change (the ``request`` move). Only the kinds of ``CHANGE_KINDS`` exist, and
    each takes only its own fields: the syntax, equivalence, examples and meaning change by a new version
    alone. What stands now is kept with the request's event, so the editor sees if it moved since."""
    namespace = _locked(namespace)
    change, cleaned, reason = change_request_check(namespace, kind, data, requester, reason=reason)
    move = CHANGE_MOVE_BY_KEY[("", "request")]
    request = ChangeRequest.objects.create(
        namespace=namespace, kind=kind, data=cleaned, reason=reason, requested_by=requester, state=move.target
    )
    _event(
        namespace,
        requester,
        move.event,
        change.summary(move),
        reason=reason,
        data={"request": request.pk, "kind": kind, "base": change.current(namespace)},
    )
    context = {"request": request, "change": change, "move": move}
    _ask_editors("change_requested", namespace, context, requester)
    _tell(move.mail, namespace, context, requester)
    return request


def change_refusal(editor, request) -> str:
    """Why ``editor`` may not decide ``request`` ("" if they may), in words; the rule is ``rules.can_decide_change``."""
    snid = f"urn:ogf:{request.namespace.snid}:"
    if not rules.is_editor(editor):
        return "Only GFD editors decide change requests."
    if rules.can_decide_change(editor, request):
        return ""
    if request.requested_by_id == editor.pk:
        return "You asked for this change yourself, so another editor decides it."
    if rules.is_steward(editor, request.namespace):
        return f"You are a steward of {snid}, so another editor decides its change requests."
    return f"You were a steward of {snid} when this change was asked for, so another editor decides it."


@_retried
@transaction.atomic
def change_request_transition(request: ChangeRequest, action: str, editor, *, note: str = "") -> ChangeRequest:
    """The one service that decides a change request: ``approve`` (the change is applied exactly as
    recorded, the history and the log say so) or ``decline``; the stewards and the requester are mailed
    with the editor's note."""
    change = CHANGE_KINDS.get(request.kind)
    namespace = _locked(request.namespace, *(change.also_locks(request.data) if change else ()))
    locked = ChangeRequest.objects.select_for_update(of=("self",)).select_related("requested_by").get(pk=request.pk)
    locked.namespace = namespace
    refusal = change_refusal(editor, locked)
    if refusal:
        raise NotAllowed(refusal)
    move = CHANGE_MOVE_BY_KEY.get((locked.state, action))
    if move is None:
        raise Conflict(f"This change request was already {locked.get_state_display().lower()}.")
    if change is None or not change.available():
        raise Conflict(f"{locked.kind!r} changes can no longer be made here.")
    note = _note(note)
    approved = move.target == ChangeState.APPROVED
    if approved:
        locked.before = change.apply(namespace, locked.data, editor, locked.reason)
    locked.state, locked.decided_by, locked.decided_at, locked.decision_note = move.target, editor, timezone.now(), note
    locked.save()
    data = {"request": locked.pk, "kind": locked.kind}
    if approved:
        data["on"] = timezone.localdate(locked.decided_at).isoformat()
    _event(
        namespace,
        editor,
        move.event,
        change.summary(move),
        public=move.public and change.public,
        reason=locked.reason if approved else note,
        data=data,
    )
    if approved and change.public:
        _touch(namespace)
    if approved and change.logged:
        _log_change(namespace, change, locked)
    _tell(
        move.mail, namespace, {"request": locked, "change": change, "move": move, "actor": editor}, locked.requested_by
    )
    return locked


def change_request_decide(request: ChangeRequest, editor, *, approve: bool, note: str = "") -> ChangeRequest:
    return change_request_transition(request, "approve" if approve else "decline", editor, note=note)


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
        fields.update({k: str(v) for k, v in change.initial(request.data).items()})
    log_append(ADMINISTRATIVE_CHANGE.name, leaf)
