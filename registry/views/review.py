"""The GFD editor's dashboard (GFD.191 §5): queue, one proposal, decisions, reservations."""

from __future__ import annotations

import datetime as dt
from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from .. import rules, services
from ..checklist import MANUAL_CHECKS
from ..diffs import proposal_diff
from ..enums import NamespaceStatus, ProposalAction, ProposalState, ReservationRequestState
from ..forms import CommentForm
from ..gfd191 import sections_by_part
from ..grammar import is_valid_snid
from ..models import Namespace, Proposal, ReservationRequest
from ..selectors import proposal_findings, reservation_active
from .proposals import _comments_by_section, _grouped, _workbench

QUEUE_PAGE_SIZE = 100
DECISIONS = (ProposalAction.REQUEST_CHANGES, ProposalAction.APPROVE, ProposalAction.REJECT)


def editor_required(view):
    """Anonymous: log in first. Logged in without the editor permission: 403."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not rules.is_editor(request.user):
            return HttpResponseForbidden("Only GFD editors can use the review dashboard.")
        return view(request, *args, **kwargs)

    return wrapper


@editor_required
def review_queue(request):
    state = request.GET.get("state", ProposalState.SUBMITTED)
    text = request.GET.get("q", "").strip()[:200]
    proposals = Proposal.objects.select_related("submitter", "namespace").exclude(state=ProposalState.DRAFT)
    if state in ProposalState.values:
        proposals = proposals.filter(state=state)
    if text:
        proposals = proposals.filter(Q(snid__icontains=text) | Q(title__icontains=text)
                                     | Q(submitter__username__icontains=text))
    proposals = proposals.order_by("submitted_at", "id")
    page = Paginator(proposals, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    counts = dict(Proposal.objects.values_list("state").annotate(n=Count("id")).order_by())
    now = timezone.now()
    rows = [{"proposal": p, "days": (now - p.submitted_at).days if p.submitted_at else None} for p in page]
    pending_reservations = ReservationRequest.objects.filter(state=ReservationRequestState.PENDING).count()
    context = {"rows": rows, "page": page, "state": state, "q": text, "pending_reservations": pending_reservations,
               "counts": [(value, label, counts.get(value, 0)) for value, label in ProposalState.choices
                          if value != ProposalState.DRAFT]}
    return render(request, "registry/review/queue.html", context)


def _review_context(request, proposal) -> dict:
    findings = proposal_findings(proposal)
    judgements = {j.check_id: j for j in proposal.judgements.select_related("editor")}
    manual = [{"id": check_id, "judgement": judgements.get(check_id),
               "findings": [f for f in findings if f.id == check_id]} for check_id in MANUAL_CHECKS]
    previous = None
    if proposal.namespace_id and proposal.namespace.current_id and proposal.namespace.current_id != proposal.pk:
        previous = proposal.namespace.current
    return {
        "proposal": proposal, "parts": sections_by_part(), "manual": manual,
        "comments": _comments_by_section(proposal), "comment_form": CommentForm(),
        "events": proposal.events.select_related("actor"),
        "decisions": [d for d in DECISIONS if proposal.state == ProposalState.SUBMITTED],
        "own": rules.is_submitter(request.user, proposal),
        "previous": previous, "diff": proposal_diff(previous, proposal) if previous else None,
        **_workbench(proposal.to_data(), proposal.submitter_id),
        "finding_groups": _grouped(findings), "findings": findings,
    }


@editor_required
def review_detail(request, pk):
    proposal = get_object_or_404(Proposal.objects.select_related("submitter", "namespace__current"), pk=pk)
    if proposal.state == ProposalState.DRAFT:
        raise Http404("Drafts are not open for review.")
    return render(request, "registry/review/detail.html", _review_context(request, proposal))


@editor_required
@require_POST
def review_decide(request, pk):
    proposal = get_object_or_404(Proposal, pk=pk)
    action = request.POST.get("action", "")
    if action not in DECISIONS:
        messages.error(request, "Choose request changes, approve or reject.")
        return redirect("registry:review_detail", pk=pk)
    try:
        services.proposal_transition(proposal, action, request.user,
                                     comment=request.POST.get("comment", ""),
                                     override_reason=request.POST.get("override_reason", ""),
                                     public_note=request.POST.get("public_note", "")[:5000])
        messages.success(request, {"approve": "Approved and published in the registry.",
                                   "reject": "Rejected; the applicant has been told.",
                                   "request_changes": "Sent back for changes; the applicant has been told."}[action])
    except services.ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("registry:review_detail", pk=pk)


@editor_required
@require_POST
def review_comment(request, pk):
    proposal = get_object_or_404(Proposal, pk=pk)
    form = CommentForm(request.POST)
    if form.is_valid():
        try:
            services.comment_add(proposal, request.user, form.cleaned_data["text"],
                                 section=form.cleaned_data["section"])
            messages.success(request, "Comment added; the applicant can see it.")
        except services.ServiceError as exc:
            messages.error(request, exc.message)
    else:
        messages.error(request, "Write the comment first.")
    return redirect("registry:review_detail", pk=pk)


@editor_required
@require_POST
def review_judgement(request, pk):
    proposal = get_object_or_404(Proposal, pk=pk)
    try:
        services.judgement_set(proposal, request.user, request.POST.get("check_id", ""),
                               ok=request.POST.get("ok") == "on", note=request.POST.get("note", ""))
        messages.success(request, "Judgement recorded.")
    except services.ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("registry:review_detail", pk=pk)


@editor_required
def reservations(request):
    namespaces = Namespace.objects.filter(status=NamespaceStatus.RESERVED).select_related("reserved_for")
    context = {
        "pending": ReservationRequest.objects.filter(state=ReservationRequestState.PENDING)
        .select_related("requester", "proposal"),
        "active": [ns for ns in namespaces if reservation_active(ns)],
        "expired": [ns for ns in namespaces if not reservation_active(ns)],
        "default_until": timezone.localdate() + dt.timedelta(days=180),
    }
    return render(request, "registry/review/reservations.html", context)


def _date(value: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        return None


@editor_required
@require_POST
def reservation_action(request):
    action = request.POST.get("action")
    try:
        if action in ("grant", "decline"):
            reservation = get_object_or_404(ReservationRequest, pk=request.POST.get("request"))
            services.reservation_request_decide(reservation, request.user, grant=action == "grant",
                                                until=_date(request.POST.get("until")),
                                                note=request.POST.get("note", ""))
        elif action == "reserve":
            services.namespace_reserve(request.POST.get("snid", ""), request.user,
                                       until=_date(request.POST.get("until")),
                                       reason=request.POST.get("reason", ""))
        elif action == "release":
            services.namespace_release(request.POST.get("snid", ""), request.user, request.POST.get("note", ""))
        else:
            raise services.ServiceError("Unknown action.")
        messages.success(request, "Done.")
    except services.ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("registry:review_reservations")


@editor_required
def snid_history(request, snid):
    """Every proposal ever made for one SNID, with its events: the SNID's full history."""
    if not is_valid_snid(snid):
        raise Http404("No such SNID.")
    proposals = (Proposal.objects.filter(snid__lower=snid.lower()).exclude(state=ProposalState.DRAFT)
                 .select_related("submitter").prefetch_related("events__actor").order_by("created_at"))
    namespace = Namespace.objects.by_snid(snid).first()
    if namespace is None and not proposals:
        raise Http404("No such SNID.")
    return render(request, "registry/review/snid_history.html",
                  {"snid": namespace.snid if namespace else snid, "namespace": namespace, "proposals": proposals})
