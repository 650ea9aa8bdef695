"""The GFD editor's dashboard (GFD.191 §5): queue, one proposal, decisions, reservations.

The review page puts the proposal first (findings, what changed since the
previous round, the sections with their threads) and keeps the decision panel
in view beside it: the four judgements in one form, then the decision, which
asks for confirmation saying what will happen and who is told.
"""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce, Lower
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from .. import rules, services
from ..checklist import MANUAL_CHECKS, has_failures
from ..conversation import latest_decision, round_changes, threads_of
from ..diffs import proposal_diff
from ..enums import (
    DECISIONS,
    FINAL_STATES,
    FindingStatus,
    ProposalKind,
    ProposalState,
    ReservationRequestState,
)
from ..gfd191 import sections_by_part
from ..grammar import is_valid_snid
from ..grammar.limits import MATCH_BUDGET_MS
from ..models import Comment, Namespace, Proposal, ReservationRequest
from ..selectors import registration_kind, search_text, slow_validators, with_registration_kind
from ..verdicts import approval_blockers, judged, judgements_of, proposal_verdict, review_summary
from .errors import forbidden
from .workbench import diagram_page, finding_lines, grouped, markdown_ready, recheck_context, workbench

#: Rows per page of the queue: an editor reads one screenful at a time, and the page costs
#: the same whether 10 or 10,000 proposals wait.
QUEUE_PAGE_SIZE = 50
#: Open threads of each proposal, counted in a subquery (no join, no GROUP BY over the row).
OPEN_THREADS = Coalesce(
    Subquery(
        Comment.objects.filter(proposal=OuterRef("pk"), parent__isnull=True, resolved_at__isnull=True)
        .order_by()
        .values("proposal")
        .annotate(n=Count("id"))
        .values("n")[:1]
    ),
    0,
)
#: The columns a queue row shows; the big ones (sections, grammar, findings, validator) stay in the table.
QUEUE_COLUMNS = (
    "id",
    "snid",
    "title",
    "version",
    "namespace_id",
    "state",
    "submitted_at",
    "findings_summary",
    "kind",
    "submitter__username",
    # How the queue names the applicant (stewardship.selectors.account_name, script_warning): a closed
    # account by its public name, a name mixing scripts with a warning; no query per row.
    "submitter__is_active",
    "submitter__first_name",
    "submitter__last_name",
    "submitter__account__closed_at",
)
#: The queue's orders: (label, ordering); every one ends on the primary key, so pages never overlap.
QUEUE_SORTS = {
    "oldest": ("Oldest first", ("submitted_at", "id")),
    "newest": ("Newest first", ("-submitted_at", "-id")),
    "snid": ("SNID, A to Z", (Lower("snid"), "id")),
    "applicant": ("Applicant, A to Z", ("submitter__username", "submitted_at", "id")),
    "threads": ("Most open threads", ("-open_threads", "submitted_at", "id")),
}


def editor_required(view):
    """Anonymous: log in first. Logged in without the editor permission: a 403 page saying so."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not rules.is_editor(request.user):
            return forbidden(
                request,
                "Only GFD editors can use the review dashboard. Your own proposals, "
                "with the editors' comments and decisions, are on your proposals page.",
            )
        return view(request, *args, **kwargs)

    return wrapper


@editor_required
def review_queue(request):
    """The queue, one page at a time: filtered by state and search, in the chosen order."""
    state = request.GET.get("state", ProposalState.SUBMITTED)
    text = search_text(request.GET.get("q"))
    sort = request.GET.get("sort", "oldest")
    if sort not in QUEUE_SORTS:
        sort = "oldest"
    proposals = (
        Proposal.objects.select_related("submitter__account")
        .only(*QUEUE_COLUMNS)
        .exclude(state=ProposalState.DRAFT)
        .annotate(open_threads=OPEN_THREADS)
    )
    if state in ProposalState.values:
        proposals = proposals.filter(state=state)
    if text:
        proposals = proposals.filter(
            Q(snid__icontains=text) | Q(title__icontains=text) | Q(submitter__username__icontains=text)
        )
    proposals = with_registration_kind(proposals).order_by(*QUEUE_SORTS[sort][1])
    page = Paginator(proposals, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    counts = dict(Proposal.objects.values_list("state").annotate(n=Count("id")).order_by())
    now = timezone.now()
    rows = [
        {
            "proposal": p,
            "days": (now - p.submitted_at).days if p.submitted_at else None,
            "kind": registration_kind(p),
            # Stored by verdicts.review_summary at each check and judgement: the review page's counts.
            "summary": p.findings_summary,
        }
        for p in page
    ]
    pending_reservations = ReservationRequest.objects.filter(state=ReservationRequestState.PENDING).count()
    context = {
        "rows": rows,
        "page": page,
        "state": state,
        "q": text,
        "sort": sort,
        "slow_validators": slow_validators(),
        "match_budget_ms": MATCH_BUDGET_MS,
        "sorts": [(key, label) for key, (label, _) in QUEUE_SORTS.items()],
        "sort_label": QUEUE_SORTS[sort][0],
        "pending_reservations": pending_reservations,
        "counts": [
            (value, label, counts.get(value, 0))
            for value, label in ProposalState.choices
            if value != ProposalState.DRAFT
        ],
    }
    return render(request, "registry/review/queue.html", context)


def _stored_counts(proposal, live: dict) -> dict | None:
    stored = proposal.findings_summary
    if proposal.state != ProposalState.SUBMITTED or not stored:
        return None
    shown = ("fail", "warning", "editor", "not_run")
    return stored if any(stored.get(k, 0) != live.get(k, 0) for k in shown) else None


def _review_context(request, proposal) -> dict:
    judgements = judgements_of(proposal)
    verdict = proposal_verdict(proposal)
    data = proposal.to_data()
    bench = workbench(
        data, verdict.findings, source="submitted", diagrams_url=reverse("registry:review_diagrams", args=[proposal.pk])
    )
    rechecked = recheck_context(request, proposal, verdict)
    if rechecked["recheck"]:  # a re-check's new findings link to their lines as the decision's do
        bench["line_marks"] = finding_lines([*bench["findings"], *rechecked["recheck"].new], data)
    machine = bench["findings"]
    # Decided or not, what the editor judged is shown as judged (verdicts.judged): a decided
    # proposal shows the findings it was decided on with the judgements it was decided with.
    findings = judged(machine, judgements)
    manual = [
        {"id": check_id, "judgement": judgements.get(check_id), "findings": [f for f in machine if f.id == check_id]}
        for check_id in MANUAL_CHECKS
    ]
    # Findings that ask the editor to judge without one of the four judgements to record (the
    # wording of 2.4, say): weighed in the decision itself.
    weigh = [f for f in machine if f.status == FindingStatus.EDITOR and f.id not in MANUAL_CHECKS]
    previous = _approved_before(proposal)
    # A new version stays one once approved (then it is the namespace's current version, not "previous").
    new_version = (
        (proposal.kind == ProposalKind.NEW_VERSION)
        if proposal.kind
        else previous is not None
        or bool(
            proposal.namespace_id
            and proposal.namespace.proposals.approved().filter(version__lt=proposal.version).exists()
        )
    )
    threads = threads_of(proposal)
    counts = review_summary(machine, judgements)
    return {
        "proposal": proposal,
        "parts": sections_by_part(),
        "manual": manual,
        "open_judgements": [m["id"] for m in manual if m["judgement"] is None],
        "recorded_judgements": [m["id"] for m in manual if m["judgement"] is not None],
        "weigh": weigh,
        "checks_fail": has_failures(machine),
        "blockers": approval_blockers(machine, judgements) if proposal.state == ProposalState.SUBMITTED else [],
        "review_counts": counts,
        # The queue, My proposals and the mails give the counts stored with the last check; when the
        # checks run now give others (a check that could not be made then, a checklist changed since),
        # the page says both rather than disagree silently.
        "stored_counts": _stored_counts(proposal, counts),
        "judgements_final": proposal.state in FINAL_STATES,
        "threads": threads,
        "can_start_threads": True,
        "thread_next": request.get_full_path(),
        "finding_threads": [t for t in threads.all if t.finding and not t.section],
        "discussable": [f for f in machine if f.status != FindingStatus.PASS],
        "events": proposal.events.select_related("actor"),
        "decisions": [d for d in DECISIONS if proposal.state == ProposalState.SUBMITTED],
        "own": rules.is_own_case(request.user, proposal),
        "may_override_conflict": request.user.is_superuser,
        "previous": previous,
        "new_version": new_version,
        "round": round_changes(proposal, threads),
        "decision": latest_decision(proposal, threads),
        **bench,
        "findings": findings,
        "finding_groups": grouped(findings, decided=verdict.decided),
        "verdict": verdict,
        **rechecked,
    }


def _approved_before(proposal) -> Proposal | None:
    """The SNID's current approved version, when ``proposal`` proposes a later one (what it changes)."""
    current = proposal.namespace.current if proposal.namespace_id else None
    if current is None or current.pk == proposal.pk or current.version >= proposal.version:
        return None
    return current


def _reviewable(pk) -> Proposal:
    proposal = get_object_or_404(Proposal.objects.select_related("submitter", "namespace__current"), pk=pk)
    if proposal.state == ProposalState.DRAFT:
        raise Http404(
            "This proposal is a draft: its applicant has not submitted it (or pulled it back), "
            "so it is not open for review."
        )
    return proposal


@editor_required
def review_detail(request, pk):
    proposal = _reviewable(pk)
    context = _review_context(request, proposal)
    markdown_ready(proposal.sections, context["threads"])
    return render(request, "registry/review/detail.html", context)


@editor_required
def review_diagrams(request, pk):
    """The railroad diagrams of the proposal under review, loaded when the editor opens them."""
    proposal = _reviewable(pk)
    return diagram_page(
        request,
        proposal.to_data(),
        title=f"urn:ogf:{proposal.snid}:",
        back=reverse("registry:review_detail", args=[proposal.pk]),
    )


@editor_required
def review_diff(request, pk):
    """What a new version changes from the approved one, section by section; loaded when opened
    (a long section makes the comparison costly, and the editor reads the proposal first)."""
    proposal = _reviewable(pk)
    previous = _approved_before(proposal)
    if previous is None:
        raise Http404("This proposal is not a new version of a registered SNID: there is nothing to compare.")
    context = {
        "proposal": proposal,
        "previous": previous,
        "diff": proposal_diff(previous, proposal),
        "back": reverse("registry:review_detail", args=[proposal.pk]),
    }
    if request.GET.get("fragment") == "1":
        return render(request, "registry/review/_diff.html", context)
    return render(request, "registry/review/diff.html", context)


@editor_required
@require_POST
def review_comment(request, pk):
    """Start a thread on a section, a finding or the whole proposal."""
    proposal = get_object_or_404(Proposal.objects.select_related("namespace__current"), pk=pk)
    if not rules.can_review(request.user, proposal):
        messages.error(
            request,
            "Editors cannot comment as editor on their own proposals or SNIDs; "
            "another editor must. (As its applicant you can reply to the editors' threads.)",
        )
        return redirect("registry:review_detail", pk=pk)
    try:
        thread = services.thread_start(
            proposal,
            request.user,
            request.POST.get("text", ""),
            section=request.POST.get("section", ""),
            finding=request.POST.get("finding", ""),
        )
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("registry:review_detail", pk=pk)
    # Tagged with the thread: the page lands on it, so the confirmation is shown there, not above the fold.
    messages.success(
        request,
        f"Comment added; {proposal.submitter.get_username()} can see it beside the section and reply.",
        extra_tags=f"thread-{thread.pk}",
    )
    return redirect(reverse("registry:review_detail", args=[pk]) + f"#thread-{thread.pk}")


@editor_required
@require_POST
def review_judgement(request, pk):
    """All four judgements in one form: ``verdict-<check>`` is "ok", "not-ok" or "" (not yet)."""
    proposal = get_object_or_404(Proposal, pk=pk)
    verdicts = {}
    for check_id in MANUAL_CHECKS:
        verdict = request.POST.get(f"verdict-{check_id}", "")
        if verdict in ("ok", "not-ok"):
            verdicts[check_id] = (verdict == "ok", request.POST.get(f"note-{check_id}", ""))
    if not verdicts:
        messages.error(
            request,
            "Nothing recorded: choose Satisfied or Not satisfied for at least one judgement.",
            extra_tags="judgements",
        )
        return redirect(reverse("registry:review_detail", args=[pk]) + "#judgements")
    try:
        services.judgements_set(
            proposal, request.user, verdicts, conflict_reason=request.POST.get("conflict_reason", "")
        )
        open_left = len(MANUAL_CHECKS) - proposal.judgements.count()
        recorded = f"{len(verdicts)} judgement{'s' if len(verdicts) != 1 else ''} recorded"
        said = f"{recorded}; {open_left} still open." if open_left else f"{recorded}: none is left to judge."
        messages.success(request, said, extra_tags="judgements")
    except services.ServiceError as exc:
        messages.error(request, exc.message, extra_tags="judgements")
    # The page lands on the judgements, which show these messages (the top of the page is out of view).
    return redirect(reverse("registry:review_detail", args=[pk]) + "#judgements")


@editor_required
def snid_history(request, snid):
    """Every proposal ever made for one SNID, with its events: the SNID's full history."""
    if not is_valid_snid(snid):
        raise Http404("There is no such SNID: an SNID has letters, digits and hyphens only.")
    proposals = (
        Proposal.objects.filter(snid__lower=snid.lower())
        .exclude(state=ProposalState.DRAFT)
        .select_related("submitter")
        .prefetch_related("events__actor")
        .order_by("created_at")
    )
    namespace = Namespace.objects.by_snid(snid).first()
    if namespace is None and not proposals:
        raise Http404(f"Nobody has submitted a proposal for urn:ogf:{snid}: and it is not reserved.")
    return render(
        request,
        "registry/review/snid_history.html",
        {"snid": namespace.snid if namespace else snid, "namespace": namespace, "proposals": proposals},
    )
