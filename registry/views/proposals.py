"""The applicant's pages: my proposals, new, read, edit (with live checks), actions."""

from __future__ import annotations

import json
from collections import defaultdict

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from .. import rules, services
from ..demo import FIXTURES
from ..enums import FindingStatus, ProposalAction, actions_from
from ..documents import document_export, document_import
from ..forms import ImportDocumentForm, NewProposalForm, ProposalForm, ReservationRequestForm, SignUpForm
from ..gfd191 import SECTIONS_BY_KEY, sections_by_part
from ..grammar import UrnSyntaxError, grammar_compile, parse_urn
from ..interchange import ProposalData, load
from ..diagram_cache import cached_diagrams
from ..models import Namespace, Proposal, ProposalEvent
from ..selectors import data_findings, proposal_findings, proposals_for

STATUS_ORDER = [FindingStatus.FAIL, FindingStatus.WARNING, FindingStatus.EDITOR, FindingStatus.PASS]


def home(request):
    return redirect("registry:namespace_list")


def signup(request):
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}. Start your first proposal below.")
        return redirect("registry:proposal_new")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def my_proposals(request):
    last = ProposalEvent.objects.filter(proposal=OuterRef("pk")).order_by("-created_at", "-id")
    proposals = (proposals_for(request.user)
                 .annotate(last_action=Subquery(last.values("action")[:1]),
                           last_kind=Subquery(last.values("kind")[:1]),
                           last_at=Subquery(last.values("created_at")[:1]))
                 .order_by("-updated_at", "-id"))
    return render(request, "registry/proposals/list.html", {"proposals": proposals})


@login_required
def proposal_new(request):
    own = sorted(Namespace.objects.registered().filter(current__submitter=request.user)
                 .values_list("snid", flat=True))
    form = NewProposalForm(request.POST or None, own_snids=own)
    if request.method == "POST" and form.is_valid():
        start = form.cleaned_data["start"]
        if start == "example":
            data = load(json.loads((FIXTURES / "proposals" / "example.json").read_text(encoding="utf-8")))
        elif start == "version":
            namespace = Namespace.objects.by_snid(form.cleaned_data["namespace"]).select_related("current").get()
            data = namespace.current.to_data()
            data.version = namespace.current.version + 1
            data.registration_date = None
        else:
            data = ProposalData(snid=form.cleaned_data["snid"].strip())
        proposal = services.proposal_create(data, request.user)
        messages.success(request, "Draft created. Save it at any time; nothing is submitted until you say so.")
        return redirect("registry:proposal_edit", pk=proposal.pk)
    return render(request, "registry/proposals/new.html", {"form": form})


def _visible_proposal(request, pk) -> Proposal:
    proposal = get_object_or_404(Proposal.objects.select_related("submitter", "namespace"), pk=pk)
    if not rules.can_view_proposal(request.user, proposal):
        raise Http404("No such proposal.")
    return proposal


def _grouped(findings) -> list[tuple[str, list]]:
    groups = defaultdict(list)
    for finding in findings:
        groups[finding.status].append(finding)
    return [(status.label, [*groups[status.value]]) for status in STATUS_ORDER if groups[status.value]]


def _comments_by_section(proposal) -> dict[str, list]:
    by_section = defaultdict(list)
    for comment in proposal.comments.select_related("author"):
        by_section[comment.section or ""].append(comment)
    return dict(by_section)


def _workbench(data: ProposalData, submitter_id: int) -> dict:
    """What the applicant sees beside the form: findings, diagrams, example results."""
    findings = data_findings(data, submitter_id)
    context = {"findings": findings, "finding_groups": _grouped(findings), "diagrams": [], "examples": []}
    if data.grammar.abnf.strip():
        compiled = grammar_compile(data.grammar.abnf, data.grammar.rule,
                                   examples=tuple(data.examples.valid) + tuple(data.examples.invalid))
        context["diagrams"] = cached_diagrams(data.grammar.abnf, lambda: compiled.parsed.rules)
        for kind, urns in (("valid", data.examples.valid), ("invalid", data.examples.invalid)):
            for urn in urns:
                try:
                    errors = compiled.check(parse_urn(urn)) if compiled.ok else None
                except UrnSyntaxError as exc:
                    errors = [exc.message]
                context["examples"].append({"urn": urn, "kind": kind, "checked": errors is not None,
                                            "accepted": errors == [], "errors": errors or []})
    return context


def proposal_detail(request, pk):
    proposal = _visible_proposal(request, pk)
    context = {
        "proposal": proposal, "parts": sections_by_part(),
        "findings": proposal_findings(proposal),
        "events": proposal.events.select_related("actor"),
        "comments": _comments_by_section(proposal),
        "actions": [t for t in actions_from(proposal.state) if rules.can_perform(request.user, proposal, t)
                    and t.actor == "submitter"],
        "can_edit": rules.can_edit_proposal(request.user, proposal),
        "reservation_form": ReservationRequestForm(),
        "reservation_requests": proposal.reservation_requests.all() if rules.is_submitter(request.user, proposal) else [],
    }
    context["finding_groups"] = _grouped(context["findings"])
    return render(request, "registry/proposals/detail.html", context)


@login_required
def proposal_edit(request, pk):
    proposal = _visible_proposal(request, pk)
    if not rules.can_edit_proposal(request.user, proposal):
        return HttpResponseForbidden(
            f"This proposal is {proposal.get_state_display().lower()}; only its submitter can edit it, "
            "and only as a draft or when changes were requested.")
    if request.method == "POST":
        form = ProposalForm(request.POST)
        intent = request.POST.get("intent", "save")
        if form.is_valid():
            data = form.cleaned_proposal
            if intent == "check":
                messages.info(request, "Checked without saving. Save the draft to keep your changes.")
                return _edit_page(request, proposal, form, data, unsaved=True)
            try:
                proposal = services.proposal_update(proposal, data, request.user)
                if intent == "submit":
                    services.proposal_transition(proposal, ProposalAction.SUBMIT, request.user)
                    messages.success(request, "Submitted for review. The GFD editor has been told.")
                    return redirect("registry:proposal_detail", pk=proposal.pk)
            except services.ServiceError as exc:
                messages.error(request, exc.message)
                return redirect("registry:proposal_edit", pk=proposal.pk)
            messages.success(request, "Draft saved.")
            return redirect("registry:proposal_edit", pk=proposal.pk)
        messages.error(request, "Nothing was saved: please correct the fields marked below. Your input is kept.")
        return _edit_page(request, proposal, form, proposal.to_data(), unsaved=True, status=400)
    form = ProposalForm(initial=ProposalForm.initial_from(proposal.to_data()))
    return _edit_page(request, proposal, form, proposal.to_data())


def _edit_page(request, proposal, form, data, *, unsaved=False, status=200):
    context = {
        "proposal": proposal, "form": form, "unsaved": unsaved, "parts": sections_by_part(),
        "comments": _comments_by_section(proposal), "reservation_form": ReservationRequestForm(),
        **_workbench(data, proposal.submitter_id),
    }
    return render(request, "registry/proposals/edit.html", context, status=status)


@login_required
@require_POST
def proposal_check(request, pk):
    """The checklist panel for unsaved input (used by the page's script; nothing is stored)."""
    proposal = _visible_proposal(request, pk)
    if not rules.can_edit_proposal(request.user, proposal):
        return HttpResponseForbidden("You cannot edit this proposal.")
    form = ProposalForm(request.POST)
    data = form.cleaned_proposal if form.is_valid() else proposal.to_data()
    context = {"proposal": proposal, "form": form, **_workbench(data, proposal.submitter_id)}
    return render(request, "registry/proposals/_workbench.html", context)


@login_required
@require_POST
def proposal_action(request, pk, action):
    proposal = _visible_proposal(request, pk)
    if action not in (ProposalAction.SUBMIT, ProposalAction.WITHDRAW):
        raise Http404("Unknown action.")
    try:
        services.proposal_transition(proposal, action, request.user, comment=request.POST.get("comment", ""))
        messages.success(request, {"submit": "Submitted for review.", "withdraw": "Proposal withdrawn."}[action])
    except services.ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("registry:proposal_detail", pk=proposal.pk)


@login_required
@require_POST
def reservation_request(request, pk):
    proposal = _visible_proposal(request, pk)
    form = ReservationRequestForm(request.POST)
    if form.is_valid():
        try:
            services.reservation_request_create(proposal.snid, request.user, proposal=proposal,
                                                reason=form.cleaned_data["reason"])
            messages.success(request, f"Reservation of urn:ogf:{proposal.snid}: requested; an editor will answer.")
        except services.ServiceError as exc:
            messages.error(request, exc.message)
    return redirect("registry:proposal_detail", pk=proposal.pk)


@login_required
def proposal_import(request):
    """Start a draft from an existing registration text (paste or upload)."""
    form = ImportDocumentForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        result = document_import(form.cleaned_data["text"])
        data = result.data
        if not data.snid:
            data.snid = "unnamed"
        proposal = services.proposal_create(data, request.user)
        mapped = ", ".join(f"{SECTIONS_BY_KEY[k].number}" for k in result.mapped)
        messages.success(request, f"Draft created from the document. Sections recognised: {mapped or 'none'}.")
        for note in result.notes:
            messages.warning(request, note)
        return redirect("registry:proposal_edit", pk=proposal.pk)
    return render(request, "registry/proposals/import.html", {"form": form})


def proposal_export(request, pk, fmt):
    """The proposal as a GFD.191 template document (any state, for whoever may see it)."""
    return document_response(_visible_proposal(request, pk), fmt)


def document_response(proposal, fmt) -> HttpResponse:
    markdown = fmt == "md"
    text = document_export(proposal.to_data(), markdown=markdown)
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8" if markdown
                            else "text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="urn-ogf-{proposal.snid}-v{proposal.version}.{fmt}"'
    return response
