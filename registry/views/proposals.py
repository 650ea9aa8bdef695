"""The applicant's pages: my proposals, new, read, edit (with live checks), actions."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import DatabaseError
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from .. import fairshare, rules, services
from ..checklist import DRAFT, SUBMITTED, progress
from ..conversation import latest_decision, threads_of
from ..demo import FIXTURES
from ..documents import document_export
from ..enums import EventKind, FindingStatus, ProposalAction, ProposalState, action_done, actions_from, transition_for
from ..forms import NewProposalForm, ProposalForm, ReservationRequestForm
from ..gfd191 import sections_by_part
from ..interchange import ProposalData, load, rebased
from ..models import Comment, Namespace, Proposal, ProposalEvent
from ..selectors import next_version_data, proposal_findings, proposals_for
from ..stewardship.selectors import snids_stewarded_by
from ..storage import RETRY_AFTER_SECONDS, storage_fault
from ..verdicts import judgements_of, proposal_verdict, with_judgements
from .errors import NextStep, conflict, forbidden
from .threads import thread_act
from .workbench import diagram_page, finding_lines, grouped, markdown_ready, recheck_context, workbench

#: The columns a row of "My proposals" shows; the big ones (sections, grammar, findings) stay unread.
LIST_COLUMNS = ("id", "snid", "title", "version", "state", "updated_at", "findings_summary")
#: A save this long after a proposal's last event is shown as its last change.
SAVE_AFTER_EVENT = dt.timedelta(seconds=1)


def home(request):
    return redirect("registry:namespace_list")


@login_required
def my_proposals(request):
    last = ProposalEvent.objects.filter(proposal=OuterRef("pk")).order_by("-created_at", "-id")
    proposals = (
        proposals_for(request.user)
        .select_related(None)
        .only(*LIST_COLUMNS)
        .annotate(
            last_action=Subquery(last.values("action")[:1]),
            last_kind=Subquery(last.values("kind")[:1]),
            last_at=Subquery(last.values("created_at")[:1]),
        )
        .order_by("-updated_at", "-id")
    )
    proposals = list(proposals)
    for proposal in proposals:
        # Saving a draft writes no event; a save after the last event is the last change.
        if proposal.last_at is None or proposal.updated_at - proposal.last_at > SAVE_AFTER_EVENT:
            proposal.last_label, proposal.last_at = "Saved", proposal.updated_at
        elif proposal.last_action:
            proposal.last_label = action_done(proposal.last_action)
        else:
            proposal.last_label = "Created"
    return render(request, "registry/proposals/list.html", {"proposals": proposals})


@login_required
def proposal_new(request):
    own = snids_stewarded_by(request.user)
    form = NewProposalForm(request.POST or None, own_snids=own, submitter=request.user)
    if request.method == "POST" and (refused := fairshare.refusal(request)) is not None:
        messages.error(request, refused.message)
        return refused.apply(render(request, "registry/proposals/new.html", {"form": form}))
    if request.method == "POST" and form.is_valid():
        start = form.cleaned_data["start"]
        if start == "example":
            example = load(json.loads((FIXTURES / "proposals" / "example.json").read_text(encoding="utf-8")))
            # The example's text to start from, under the applicant's SNID; its title names the example, not
            # their registration, so the draft starts without one.
            data = dataclasses.replace(rebased(example, form.cleaned_data["snid"].strip()), title="")
        elif start == "version":
            namespace = Namespace.objects.by_snid(form.cleaned_data["namespace"]).select_related("current").get()
            data = next_version_data(namespace)
        else:
            data = ProposalData(snid=form.cleaned_data["snid"].strip())
        try:
            proposal = services.proposal_create(data, request.user)
        except services.Conflict as exc:
            # Deprecated or taken since the form was checked (a decision a moment ago): a form error too.
            form.add_error("namespace" if start == "version" else "snid", str(exc))
            return render(request, "registry/proposals/new.html", {"form": form}, status=409)
        except DatabaseError as exc:
            # A full disk or a lost database: say so, and show the form again as it was filled in.
            if (fault := storage_fault(exc)) is None:
                raise
            messages.error(request, f"{fault} What you chose is kept below: create the draft again then.")
            response = render(request, "registry/proposals/new.html", {"form": form}, status=503)
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return response
        messages.success(request, "Draft created. Save it at any time; nothing is submitted until you say so.")
        return redirect("registry:proposal_edit", pk=proposal.pk)
    return render(request, "registry/proposals/new.html", {"form": form})


def _visible_proposal(request, pk) -> Proposal:
    proposal = get_object_or_404(Proposal.objects.select_related("submitter", "namespace"), pk=pk)
    if not rules.can_view_proposal(request.user, proposal):
        raise Http404("No such proposal.")
    return proposal


def _conversation(request, proposal) -> dict:
    """Threads and the editor's latest decision, for the applicant and editors only."""
    if not rules.can_see_review(request.user, proposal):
        return {"threads": None, "decision": None}
    threads = threads_of(proposal)
    return {
        "threads": threads,
        "decision": latest_decision(proposal, threads),
        "thread_next": request.get_full_path(),
        "finding_threads": [t for t in threads.all if t.finding and not t.section],
    }


def proposal_detail(request, pk):
    proposal = _visible_proposal(request, pk)
    see_review = rules.can_see_review(request.user, proposal)
    verdict = proposal_verdict(proposal)
    rechecked = recheck_context(request, proposal, verdict)
    shown = with_judgements(verdict, judgements_of(proposal)) if see_review else verdict  # as on the review page
    # A re-check's new findings link to their lines as the decision's do.
    marked = [*verdict.findings, *(rechecked["recheck"].new if rechecked["recheck"] else [])]
    context = {
        "proposal": proposal if rules.can_see_registrant(request.user, proposal) else proposal.public_copy(),
        "parts": sections_by_part(),
        "findings": shown.findings,
        "verdict": verdict,
        "line_marks": finding_lines(marked, proposal.to_data()),
        **rechecked,
        "events": proposal.events.select_related("actor")
        if see_review
        else proposal.events.exclude(kind=EventKind.JUDGEMENT).only(
            "created_at", "kind", "action", "from_state", "to_state", "proposal"
        ),
        "see_review": see_review,
        "show_event_comments": see_review,
        "actions": [
            t
            for t in actions_from(proposal.state)
            if rules.can_perform(request.user, proposal, t) and t.actor == "submitter"
        ],
        "can_edit": rules.can_edit_proposal(request.user, proposal),
        "reservation_form": ReservationRequestForm(),
        "reservation_requests": proposal.reservation_requests.all()
        if rules.is_submitter(request.user, proposal)
        else [],
        **_conversation(request, proposal),
    }
    context["finding_groups"] = grouped(context["findings"], decided=verdict.decided)
    markdown_ready(proposal.sections, context["threads"])
    return render(request, "registry/proposals/detail.html", context)


def _cannot_edit(request, proposal):
    """The 403 page for the edit page of a proposal that cannot be edited now, with the way out."""
    detail = reverse("registry:proposal_detail", args=[proposal.pk])
    if not rules.is_submitter(request.user, proposal):
        return forbidden(
            request, "Only the applicant who wrote this proposal can edit it.", [NextStep("Read the proposal", detail)]
        )
    if proposal.state == ProposalState.SUBMITTED:
        return forbidden(
            request,
            "This proposal is submitted and under review by the GFD editors, so it cannot be edited now. "
            "If you need to change it, pull it back to draft: it leaves the review queue, you can edit it, "
            "and you submit it again when ready.",
            [
                NextStep(
                    "Pull it back to draft",
                    reverse("registry:proposal_action", args=[proposal.pk, "pull_back"]),
                    post=True,
                    note="no editor has decided yet, so nothing is lost",
                ),
                NextStep("Read the proposal and the review so far", detail),
            ],
        )
    return forbidden(
        request,
        f"This proposal is {proposal.get_state_display().lower()}; that is final, so it can no longer be edited. "
        "To change a registration, propose a new version of it; to try again, start a new proposal.",
        [
            NextStep("Read the proposal and its history", detail),
            NextStep("Start a new proposal", reverse("registry:proposal_new")),
        ],
    )


@login_required
def proposal_edit(request, pk):
    proposal = _visible_proposal(request, pk)
    if not rules.can_edit_proposal(request.user, proposal):
        return _cannot_edit(request, proposal)
    if request.method == "POST":
        form = ProposalForm(request.POST)
        intent = request.POST.get("intent", "save")
        if (refused := fairshare.refusal(request)) is not None:
            return _kept_page(request, proposal, form, refused)
        if in_thread := THREAD_INTENT.fullmatch(intent):
            return _thread_from_edit(request, proposal, form, in_thread["act"], int(in_thread["pk"]))
        if form.is_valid():
            data = form.cleaned_proposal
            if intent == "check":
                messages.info(request, "Checked without saving. Save the draft to keep your changes.")
                return _edit_page(request, proposal, form, data, unsaved=True)
            try:
                proposal = services.proposal_update(proposal, data, request.user)
                if intent == "submit":
                    return _submit(request, proposal)
            except services.ServiceError as exc:
                messages.error(request, exc.message)
                return redirect("registry:proposal_edit", pk=proposal.pk)
            except DatabaseError as exc:
                # A full disk or a lost database: say so, and give everything typed back.
                if (fault := storage_fault(exc)) is None:
                    raise
                messages.error(request, f"{fault} Your text is kept below: copy it or save again.")
                response = _edit_page(request, proposal, form, data, unsaved=True, status=503)
                response["Retry-After"] = str(RETRY_AFTER_SECONDS)
                return response
            messages.success(request, "Draft saved.")
            return redirect("registry:proposal_edit", pk=proposal.pk)
        messages.error(request, "Nothing was saved: please correct the fields marked below. Your input is kept.")
        return _edit_page(request, proposal, form, form.posted_proposal(), unsaved=True, status=400)
    form = ProposalForm(initial=ProposalForm.initial_from(proposal.to_data()))
    return _edit_page(request, proposal, form, proposal.to_data(), source="saved")


#: A thread's button in the edit form: "reply-12", "resolve-12", "reopen-12" (thread 12).
THREAD_INTENT = re.compile(r"(?P<act>reply|resolve|reopen)-(?P<pk>[0-9]{1,12})")


def _reply_drafts(request) -> dict[int, str]:
    """Replies typed in the edit form's threads (``reply-<thread>``), to show again when the page is
    drawn from what was posted."""
    return {
        int(name[6:]): text
        for name, text in request.POST.items()
        if name.startswith("reply-") and name[6:].isdigit() and len(name) < 20 and text.strip()
    }


def _thread_from_edit(request, proposal, form, act: str, pk: int):
    """A thread's Reply, Mark resolved or Reopen pressed in the edit page's form, which holds the
    draft as typed: that is kept first — saved as the draft when the form is valid, drawn again with
    its fields to correct when it is not — then the thread action is done. Nothing typed is lost,
    with JavaScript or without (the buttons belong to the proposal form; docs/findings.md)."""
    thread = get_object_or_404(Comment, pk=pk, proposal=proposal, parent__isnull=True)
    text = request.POST.get(f"reply-{pk}", "")
    if not form.is_valid():
        done = thread_act(request, thread, act, text)
        messages.error(
            request, "Nothing in the form was saved: please correct the fields marked below. Your input is kept."
        )
        drafts = _reply_drafts(request)
        if done and act == "reply":
            drafts.pop(pk, None)
        return _edit_page(
            request, proposal, form, form.posted_proposal(), unsaved=True, status=400, reply_drafts=drafts
        )
    data = form.cleaned_proposal
    saved = False
    if data != proposal.to_data():
        try:
            proposal = services.proposal_update(proposal, data, request.user)
            saved = True
        except services.ServiceError as exc:
            messages.error(request, f"{exc.message} Nothing was saved and nothing sent; your text is kept below.")
            return _edit_page(
                request, proposal, form, data, unsaved=True, status=409, reply_drafts=_reply_drafts(request)
            )
        except DatabaseError as exc:
            if (fault := storage_fault(exc)) is None:
                raise
            messages.error(request, f"{fault} Your text is kept below: copy it or save again.")
            response = _edit_page(
                request, proposal, form, data, unsaved=True, status=503, reply_drafts=_reply_drafts(request)
            )
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return response
    done = thread_act(request, thread, act, text)
    if saved:
        messages.info(request, "Your changes to the draft were saved first.", extra_tags=f"thread-{thread.pk}")
    if not done and act == "reply":  # the reply was refused: show it again, to correct
        saved_form = ProposalForm(initial=ProposalForm.initial_from(proposal.to_data()))
        return _edit_page(
            request,
            proposal,
            saved_form,
            proposal.to_data(),
            source="saved",
            status=400,
            reply_drafts=_reply_drafts(request),
        )
    return redirect(reverse("registry:proposal_edit", args=[proposal.pk]) + f"#thread-{thread.pk}")


def _kept_page(request, proposal, form, refused: fairshare.Refusal):
    """The edit page with everything typed in it when the registry is too busy to check or
    save it now: none of that work is done (no checklist, no Markdown of the typed text); the
    findings panel says it was not checked."""
    form.is_valid()  # the form's own field checks only: cheap, and they show what to correct
    messages.error(request, refused.message)
    context = {
        "proposal": proposal,
        "form": form,
        "unsaved": True,
        "parts": sections_by_part(),
        "reservation_form": ReservationRequestForm(),
        **_conversation(request, proposal),
        "findings": [],
        "finding_groups": [],
        "diagrams": [],
        "examples": [],
        "line_marks": {},
        "field_errors": form.error_list(),
        "no_previews": True,
        "not_checked": "Not checked: the registry was too busy to check this request. Send it again to check it.",
        "progress": progress(form.posted_proposal()),
        "reply_drafts": _reply_drafts(request),
    }
    markdown_ready({}, context["threads"])
    return refused.apply(render(request, "registry/proposals/edit.html", context))


def _edit_page(request, proposal, form, data, *, unsaved=False, status=200, source="form", reply_drafts=None):
    # The saved draft's diagrams have their own URL; unsaved input's are drawn with its check.
    diagrams_url = reverse("registry:proposal_diagrams", args=[proposal.pk]) if source == "saved" else ""
    context = {
        "proposal": proposal,
        "form": form,
        "unsaved": unsaved,
        "parts": sections_by_part(),
        "reservation_form": ReservationRequestForm(),
        **_conversation(request, proposal),
        **workbench(
            data, proposal_findings(proposal, data, stage=DRAFT), form, source=source, diagrams_url=diagrams_url
        ),
        "progress": progress(data),
        "reply_drafts": reply_drafts
        if reply_drafts is not None
        else (_reply_drafts(request) if request.method == "POST" else {}),
    }
    markdown_ready(data.sections, context["threads"])
    return render(request, "registry/proposals/edit.html", context, status=status)


@login_required
def proposal_diagrams(request, pk):
    """The saved draft's railroad diagrams, for its edit page: whoever may edit it may see them."""
    proposal = _visible_proposal(request, pk)
    if not rules.can_edit_proposal(request.user, proposal):
        return _cannot_edit(request, proposal)
    return diagram_page(
        request,
        proposal.to_data(),
        title=f"urn:ogf:{proposal.snid}:",
        back=reverse("registry:proposal_edit", args=[proposal.pk]),
    )


@login_required
@require_POST
def proposal_check(request, pk):
    """The checklist panel for unsaved input (used by the page's script; nothing is stored)."""
    proposal = _visible_proposal(request, pk)
    if not rules.can_edit_proposal(request.user, proposal):
        return HttpResponseForbidden("You cannot edit this proposal.")
    form = ProposalForm(request.POST)
    form.is_valid()
    data = form.posted_proposal()
    context = {
        "proposal": proposal,
        "form": form,
        **workbench(data, proposal_findings(proposal, data, stage=DRAFT), form),
        "progress": progress(data),
        "fresh_marks": True,
    }
    return render(request, "registry/proposals/_workbench.html", context)


#: What an applicant's action does, said on its confirmation page.
APPLICANT_CONSEQUENCES = {
    ProposalAction.WITHDRAW: "Withdrawing is final: the proposal can never be edited or submitted again, and "
    "the editors stop reviewing it. To register urn:ogf:{snid}: later you would have to "
    "start a new proposal.",
    ProposalAction.PULL_BACK: "The proposal leaves the review queue and becomes a draft you can edit; the editors "
    "are told. Comments stay. Submit it again when it is ready.",
    ProposalAction.SUBMIT: "The GFD editors are told and review the proposal; you cannot edit it while they do "
    "(you can pull it back to draft until they decide).",
}


@login_required
@require_POST
def proposal_action(request, pk, action):
    """Submit, pull back or withdraw. Without ``confirm=yes`` only the confirmation page is shown."""
    proposal = _visible_proposal(request, pk)
    if action not in APPLICANT_CONSEQUENCES:
        raise Http404("There is no such action on a proposal.")
    detail = reverse("registry:proposal_detail", args=[proposal.pk])
    transition = transition_for(proposal.state, action)
    if transition is None:
        done = {"withdraw": "withdrawn", "pull_back": "pulled back", "submit": "submitted"}[action]
        return conflict(
            request,
            f"This proposal is {proposal.get_state_display().lower()}, so it cannot be {done} now.",
            [NextStep("Read the proposal and its history", detail)],
        )
    if not rules.can_perform(request.user, proposal, transition):
        return forbidden(
            request, "Only the applicant who wrote this proposal can do this.", [NextStep("Read the proposal", detail)]
        )
    if action == ProposalAction.SUBMIT:
        try:
            return _submit(request, proposal, confirmed=request.POST.get("confirm") == "yes")
        except services.Conflict as exc:
            return conflict(request, exc.message, [NextStep("Read the proposal and its history", detail)])
        except services.ServiceError as exc:
            messages.error(request, exc.message)
            return redirect(detail)
    if request.POST.get("confirm") != "yes":
        return render(
            request,
            "registry/proposals/confirm_action.html",
            {
                "proposal": proposal,
                "action": action,
                "label": ProposalAction(action).label,
                "consequence": APPLICANT_CONSEQUENCES[action].format(snid=proposal.snid),
                "back": detail,
            },
        )
    try:
        services.proposal_transition(proposal, action, request.user, comment=request.POST.get("comment", ""))
    except services.Conflict as exc:
        return conflict(request, exc.message, [NextStep("Read the proposal and its history", detail)])
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect(detail)
    messages.success(
        request,
        {
            ProposalAction.SUBMIT: "Submitted for review. The GFD editors have been told.",
            ProposalAction.WITHDRAW: "Proposal withdrawn. It stays in your list, read-only.",
            ProposalAction.PULL_BACK: "Pulled back to draft: you can edit it now and submit it again when ready.",
        }[action],
    )
    if action == ProposalAction.PULL_BACK:
        return redirect("registry:proposal_edit", pk=proposal.pk)
    return redirect(detail)


def _submit(request, proposal, *, confirmed: bool = False):
    """Submit, but first show the failing checks and ask (the editor decides, so "submit
    anyway" stays possible)."""
    if not rules.is_submitter(request.user, proposal):
        failing = []  # the service refuses; nothing to ask
    else:
        failing = [f for f in proposal_findings(proposal, stage=SUBMITTED) if f.status == FindingStatus.FAIL]
    # Empty required sections are refused by the service whatever the answer: no question then.
    blocked = any(f.id == "required-sections" for f in failing)
    if failing and not confirmed and not blocked:
        return render(
            request,
            "registry/proposals/submit_confirm.html",
            {"proposal": proposal, "failing": failing, "comment": request.POST.get("comment", "")[:20_000]},
        )
    services.proposal_transition(proposal, ProposalAction.SUBMIT, request.user, comment=request.POST.get("comment", ""))
    if failing:
        messages.warning(
            request,
            f"Submitted for review with {len(failing)} failing check"
            f"{'s' if len(failing) != 1 else ''}; the GFD editor has been told and "
            "will see them.",
        )
    else:
        messages.success(request, "Submitted for review. The GFD editor has been told.")
    return redirect("registry:proposal_detail", pk=proposal.pk)


@login_required
@require_POST
def reservation_request(request, pk):
    proposal = _visible_proposal(request, pk)
    form = ReservationRequestForm(request.POST)
    if form.is_valid():
        try:
            services.reservation_request_create(
                proposal.snid, request.user, proposal=proposal, reason=form.cleaned_data["reason"]
            )
            messages.success(request, f"Reservation of urn:ogf:{proposal.snid}: requested; an editor will answer.")
        except services.ServiceError as exc:
            messages.error(request, exc.message)
    return redirect("registry:proposal_detail", pk=proposal.pk)


def proposal_export(request, pk, fmt):
    """The proposal as a GFD.191 template document (any state, for whoever may see it)."""
    proposal = _visible_proposal(request, pk)
    if not rules.can_see_registrant(request.user, proposal):
        proposal = proposal.public_copy()
    return document_response(proposal, fmt)


def document_response(proposal, fmt, resolver_status: list[dict] | None = None) -> HttpResponse:
    markdown = fmt == "md"
    text = document_export(proposal.to_data(), markdown=markdown, resolver_status=resolver_status)
    response = HttpResponse(
        text, content_type="text/markdown; charset=utf-8" if markdown else "text/plain; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="urn-ogf-{proposal.snid}-v{proposal.version}.{fmt}"'
    return response
