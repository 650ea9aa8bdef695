"""The review's conversation (threads and comments) and the editors' judgements."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import notify, rules
from ..checklist import MANUAL_CHECKS
from ..conversation import review_round
from ..enums import (
    FINAL_STATES,
    EventKind,
    ProposalState,
)
from ..errors import Conflict, NotAllowed, ServiceError
from ..gfd191 import SECTIONS_BY_KEY
from ..models import Comment, Judgement, Proposal
from .proposals import _conflict_of_interest, _event, summary_refresh

MAX_COMMENT = 20_000


def _comment_text(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ServiceError("Write the comment first.")
    if len(text) > MAX_COMMENT:
        raise ServiceError(f"The comment is {len(text):,} characters long; the limit is {MAX_COMMENT:,}.")
    return text


def _may_converse(author, proposal) -> None:
    if not rules.can_see_review(author, proposal):
        raise NotAllowed("Only the applicant and GFD editors take part in the review of this proposal.")
    if not rules.review_is_open(proposal):
        raise Conflict(
            f"This proposal is {proposal.get_state_display().lower()}; its review is closed, so "
            "its threads can no longer change."
        )


def _tell_about(comment: Comment, author) -> None:
    """The other side hears of a new comment: editors' words reach the applicant, the
    applicant's reach the editors who wrote in the thread (all editors if none has)."""
    proposal = comment.proposal
    root = comment.parent or comment
    context = {
        "comment": comment,
        "thread": root,
        "section": SECTIONS_BY_KEY.get(root.section),
        "is_reply": comment.parent_id is not None,
    }
    if not rules.is_submitter(author, proposal):
        notify.later("comment", [proposal.submitter.email], {**context, "to_applicant": True})
        return
    thread_editors = sorted(
        {
            c.author.email
            for c in [root, *root.replies.select_related("author")]
            if c.author_id != proposal.submitter_id and c.author.email
        }
    )
    notify.later("comment", thread_editors or notify.editors_emails, {**context, "to_applicant": False})


@transaction.atomic
def thread_start(proposal: Proposal, author, text: str, *, section: str = "", finding: str = "") -> Comment:
    """Start a thread on a section, on one finding of the automated review, or on the whole proposal."""
    text = _comment_text(text)
    if section and section not in SECTIONS_BY_KEY:
        raise ServiceError(f"There is no template section {section!r}.")
    finding = (finding or "").strip()
    if finding:
        known = {f["id"]: (f.get("item") or {}).get("section", "") for f in proposal.findings or []}
        if finding not in known and finding not in MANUAL_CHECKS:
            raise ServiceError(f"This proposal has no finding “{finding}” to comment on.")
        # A thread on a finding is shown beside the section the finding concerns.
        section = section or (known.get(finding) if known.get(finding) in SECTIONS_BY_KEY else "")
    _may_converse(author, proposal)
    if not rules.is_submitter(author, proposal) and rules.is_own_case(author, proposal):
        raise NotAllowed("Editors cannot comment as editor on their own SNIDs; another editor must.")
    if proposal.state == ProposalState.DRAFT and not rules.is_submitter(author, proposal):
        raise Conflict("This proposal is a draft again; comment once it is submitted.")
    comment = Comment.objects.create(
        proposal=proposal, author=author, section=section, finding=finding, text=text, round=review_round(proposal)
    )
    _tell_about(comment, author)
    return comment


def comment_add(proposal: Proposal, author, text: str, *, section: str = "") -> Comment:
    """A remark on a proposal, general or on one section: a new thread."""
    return thread_start(proposal, author, text, section=section)


@transaction.atomic
def comment_reply(thread: Comment, author, text: str) -> Comment:
    """Answer in a thread (a reply to a reply joins the same thread)."""
    root = thread.parent or thread
    text = _comment_text(text)
    _may_converse(author, root.proposal)
    reply = Comment.objects.create(
        proposal=root.proposal,
        author=author,
        parent=root,
        section=root.section,
        finding=root.finding,
        text=text,
        round=review_round(root.proposal),
    )
    _tell_about(reply, author)
    return reply


@transaction.atomic
def thread_resolve(thread: Comment, actor) -> Comment:
    """Mark a thread resolved; either side may. Resolving a resolved thread is refused."""
    root = Comment.objects.select_for_update().get(pk=(thread.parent_id or thread.pk))
    _may_converse(actor, root.proposal)
    if root.resolved_at is not None:
        raise Conflict(f"This thread was already resolved by {root.resolved_by.get_username()}.")
    root.resolved_at, root.resolved_by = timezone.now(), actor
    root.save(update_fields=["resolved_at", "resolved_by"])
    return root


@transaction.atomic
def thread_reopen(thread: Comment, actor) -> Comment:
    root = Comment.objects.select_for_update().get(pk=(thread.parent_id or thread.pk))
    _may_converse(actor, root.proposal)
    if root.resolved_at is None:
        raise Conflict("This thread is open already.")
    root.resolved_at, root.resolved_by = None, None
    root.save(update_fields=["resolved_at", "resolved_by"])
    return root


@transaction.atomic
def judgement_set(
    proposal: Proposal, editor, check_id: str, *, ok: bool, note: str = "", conflict_reason: str = ""
) -> Judgement:
    """Record the editor's judgement on a check the machine cannot decide, as an event too.

    Frozen once the proposal is decided; never on the editor's own proposal or SNID.
    """
    if not rules.is_editor(editor):
        raise NotAllowed("Only GFD editors record judgements.")
    if check_id not in MANUAL_CHECKS:
        raise ServiceError(f"{check_id!r} is not one of the editor's judgements ({', '.join(MANUAL_CHECKS)}).")
    locked = Proposal.objects.select_for_update(of=("self",)).select_related("namespace__current").get(pk=proposal.pk)
    conflict = _conflict_of_interest(editor, locked, "judge", conflict_reason)
    if locked.state in FINAL_STATES:
        raise Conflict(f"This proposal is {locked.get_state_display().lower()}; its judgements are final.")
    note = (note or "").strip()[:20_000]
    judgement, _ = Judgement.objects.update_or_create(
        proposal=locked, check_id=check_id, defaults={"ok": ok, "note": note, "editor": editor}
    )
    _event(
        locked,
        editor,
        kind=EventKind.JUDGEMENT,
        action="judge",
        comment=note,
        data={"check": check_id, "ok": ok, **conflict},
    )
    summary_refresh(locked)  # the queue and the mails count as the review page does
    return judgement


@transaction.atomic
def judgements_set(
    proposal: Proposal, editor, verdicts: dict[str, tuple[bool, str]], *, conflict_reason: str = ""
) -> list[Judgement]:
    """Record several judgements at once (the editor's one form): check id -> (ok, note).

    The proposal's counts are taken again (verdicts.review_summary), so the queue and the mails
    say what the review page says."""
    return [
        judgement_set(proposal, editor, check_id, ok=ok, note=note, conflict_reason=conflict_reason)
        for check_id, (ok, note) in verdicts.items()
    ]
