"""Test data built through the real services (no mocks)."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

from django.contrib.auth import get_user_model

from registry import interchange, services
from registry.checklist import MANUAL_CHECKS

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_counter = itertools.count(1)


def user_factory(username: str | None = None, *, editor: bool = False, password: str = "pw-for-tests-1"):
    user = get_user_model().objects.create_user(
        username=username or f"user{next(_counter)}",
        password=password,
        email=f"{username or 'user'}@example.org",
    )
    if editor:
        user.groups.add(services.editors_group())
    return user


def expired_reservation(snid: str, editor, *, days_ago: int = 1, **kwargs):
    """A reservation made through the service, whose date has since passed."""
    import datetime as dt

    from django.utils import timezone

    from registry.models import Namespace

    namespace = services.namespace_reserve(snid, editor, until=timezone.localdate(), **kwargs)
    Namespace.objects.filter(pk=namespace.pk).update(reserved_until=timezone.localdate() - dt.timedelta(days=days_ago))
    return namespace


def demo_raw(name: str) -> dict:
    """A demo proposal's interchange JSON (fixtures/proposals/NAME.json), as a fresh dict."""
    return copy.deepcopy(json.loads((FIXTURES / "proposals" / f"{name}.json").read_text(encoding="utf-8")))


def data_factory(name: str = "example", **changes) -> interchange.ProposalData:
    raw = demo_raw(name)
    raw.update(changes)
    return interchange.load(raw)


def proposal_factory(submitter=None, *, name: str = "example", state: str = "draft", editor=None, **changes):
    """A proposal moved through the services into ``state``."""
    submitter = submitter or user_factory()
    proposal = services.proposal_create(data_factory(name, **changes), submitter)
    if state == "draft":
        return proposal
    if state == "withdrawn":
        return services.proposal_transition(proposal, "withdraw", submitter)
    proposal = services.proposal_transition(proposal, "submit", submitter)
    if state == "submitted":
        return proposal
    editor = editor or user_factory(editor=True)
    if state == "changes_requested":
        return services.proposal_transition(proposal, "request_changes", editor, comment="Please fix.")
    if state == "rejected":
        return services.proposal_transition(proposal, "reject", editor, comment="Out of scope.")
    if state == "approved":
        return approve(proposal, editor, override_reason="test data")
    raise ValueError(state)


def judge_all(proposal, editor, *, ok: bool = True) -> None:
    """The four judgements of GFD.191 §5 recorded by ``editor`` (all satisfied by default)."""
    services.judgements_set(proposal, editor, {check: (ok, "") for check in MANUAL_CHECKS})


def approve(proposal, editor, **options):
    """Approve as an editor does who judged the four questions satisfied first (the approval rule asks
    for them); ``options`` go to the service (an ``override_reason`` where a check fails)."""
    judge_all(proposal, editor)
    return services.proposal_transition(proposal, "approve", editor, **options)


def api_decide(client, pk: int, action: str, **body):
    """An editor's decision through the API as a client makes it: read the proposal, then decide with
    the token of what it read (``decision_basis.seen``). ``client`` is signed in as the editor."""
    basis = client.get(f"/api/proposals/{pk}/").json().get("decision_basis") or {}
    return client.post(
        f"/api/proposals/{pk}/actions/{action}/",
        {"seen": basis.get("seen", ""), **body},
        content_type="application/json",
    )
