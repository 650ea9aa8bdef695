"""Reads for the review conversation: threads, rounds and the editor's latest decision.

A *round* is one submission: round 1 is the first submission, each
resubmission after "request changes" starts the next. The submit event keeps
the submitted content, so the editor can compare a round with the previous one
section by section (``diffs.proposal_diff``): the first round a full copy
(``data["content"]``), later ones only what changed from the round before
(``content_base``, ``content_changes``, ``content_removed``) and the content's
SHA-256, with a full copy again every ``CONTENT_CHAIN_MAX`` rounds.
Everything here is for the applicant and editors only (``rules.can_see_review``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Prefetch

from . import interchange, rules
from .diffs import Changes, SectionDiff, proposal_changes
from .enums import DECISIONS, ProposalAction
from .models import Comment, Proposal, ProposalEvent


def review_round(proposal: Proposal) -> int:
    """How many times the proposal has been submitted (0 for a draft never submitted)."""
    return proposal.events.filter(action=ProposalAction.SUBMIT).count()


@dataclass
class Threads:
    """A proposal's threads, roots with their replies, by where they are shown."""

    all: list[Comment] = field(default_factory=list)
    by_section: dict[str, list[Comment]] = field(default_factory=dict)
    #: False once the proposal is decided: the pages then offer no reply, resolve or start form.
    writable: bool = True

    @property
    def open(self) -> list[Comment]:
        return [t for t in self.all if t.resolved_at is None]

    def for_finding(self, check_id: str) -> list[Comment]:
        return [t for t in self.all if t.finding == check_id]


def threads_of(proposal: Proposal) -> Threads:
    """Every thread of the proposal in two queries, replies in order under their root."""
    roots = list(
        proposal.comments.threads()
        .select_related("author", "resolved_by")
        .prefetch_related(Prefetch("replies", queryset=Comment.objects.select_related("author")))
    )
    by_section: dict[str, list[Comment]] = defaultdict(list)
    for root in roots:
        by_section[root.section].append(root)
    return Threads(roots, dict(by_section), rules.review_is_open(proposal))


@dataclass(frozen=True)
class Decision:
    event: ProposalEvent
    label: str
    open_threads: list[Comment]


def latest_decision(proposal: Proposal, threads: Threads | None = None) -> Decision | None:
    """The editor's last decision, while it is the latest word: until the next submission."""
    last = (
        proposal.events.filter(action__in=[*DECISIONS, ProposalAction.SUBMIT])
        .select_related("actor")
        .order_by("-created_at", "-id")
        .first()
    )
    if last is None or last.action == ProposalAction.SUBMIT:
        return None
    threads = threads if threads is not None else threads_of(proposal)
    return Decision(last, ProposalAction(last.action).label, threads.open)


@dataclass(frozen=True)
class RoundChanges:
    """What changed between the round the editor last decided on and the current one."""

    number: int
    #: The round compared with: the last one an editor decided on (or, with no decision since a
    #: pull-back, the one before the current).
    base_number: int
    previous_at: object
    changes: Changes
    #: Threads the applicant wrote in since the base round.
    answered: list[Comment]

    @property
    def diff(self) -> list[SectionDiff]:
        return self.changes.sections

    @property
    def changed(self) -> list[SectionDiff]:
        return self.changes.changed_sections


def _as_proposal(content: dict) -> Proposal:
    snapshot = Proposal()
    snapshot.apply_data(interchange.load(content))
    return snapshot


#: Rounds a submitted content may be rebuilt through before a full copy is kept again.
CONTENT_CHAIN_MAX = 10


def content_changes(base: dict, content: dict) -> tuple[dict, list[str]]:
    """What changed from ``base`` to ``content`` (interchange dicts): changed keys with their new
    values (one level deeper for objects such as ``sections``), and removed keys ("a" or "a.b")."""
    changes, removed = {}, []
    for key, value in content.items():
        old = base.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            inner = {k: v for k, v in value.items() if old.get(k, object()) != v}
            removed += [f"{key}.{k}" for k in old if k not in value]
            if inner:
                changes[key] = inner
        elif key not in base or old != value:
            changes[key] = value
    removed += [key for key in base if key not in content]
    return changes, removed


def _applied(base: dict, changes: dict, removed: list[str]) -> dict:
    content = {key: (dict(value) if isinstance(value, dict) else value) for key, value in base.items()}
    for path in removed:
        key, _, inner = path.partition(".")
        if inner:
            content.get(key, {}).pop(inner, None)
        else:
            content.pop(key, None)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(content.get(key), dict):
            content[key].update(value)
        else:
            content[key] = value
    return content


def submitted_content(event, depth: int = 0) -> dict | None:
    """The content a submit event kept: its own copy, or the previous round's rebuilt with the
    changes it kept (services.submitted_content); None for events from before copies were kept."""
    if "content" in event.data:
        return event.data["content"]
    base_id = event.data.get("content_base")
    if base_id is None or depth > CONTENT_CHAIN_MAX:
        return None
    base_event = event.proposal.events.filter(pk=base_id).first()
    base = submitted_content(base_event, depth + 1) if base_event is not None else None
    if base is None:
        return None
    return _applied(base, event.data.get("content_changes", {}), event.data.get("content_removed", []))


def round_changes(proposal: Proposal, threads: Threads | None = None) -> RoundChanges | None:
    """The current round against the round the editor last decided on (title, every section,
    resolvers: ``diffs.proposal_changes``); None in round 1 or when no copy was kept."""
    events = list(proposal.events.filter(action__in=[ProposalAction.SUBMIT, *DECISIONS]).order_by("created_at", "id"))
    submits = [e for e in events if e.action == ProposalAction.SUBMIT]
    if len(submits) < 2:
        return None
    current = submits[-1]
    decided = [e for e in events if e.action in DECISIONS and e.created_at <= current.created_at]
    before = [s for s in submits[:-1] if not decided or s.created_at <= decided[-1].created_at]
    previous = before[-1] if before else submits[-2]
    older = submitted_content(previous)
    if older is None:
        return None
    newer_content = submitted_content(current)
    newer = _as_proposal(newer_content) if newer_content is not None else proposal
    threads = threads if threads is not None else threads_of(proposal)
    answered = [
        t
        for t in threads.all
        if any(r.author_id == proposal.submitter_id and r.created_at > previous.created_at for r in t.replies.all())
    ]
    return RoundChanges(
        len(submits),
        submits.index(previous) + 1,
        previous.created_at,
        proposal_changes(_as_proposal(older), newer),
        answered,
    )
