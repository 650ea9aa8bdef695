"""Proposal pages. The submission and review issues build on these."""

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

from .. import rules
from ..gfd191 import sections_by_part
from ..models import Proposal
from ..selectors import proposal_findings


def home(request):
    return redirect("registry:namespace_list")


def proposal_detail(request, pk):
    proposal = get_object_or_404(Proposal.objects.select_related("submitter", "namespace"), pk=pk)
    if not rules.can_view_proposal(request.user, proposal):
        raise Http404("No such proposal.")
    context = _proposal_context(proposal)
    context["findings"] = proposal_findings(proposal)
    context["events"] = proposal.events.select_related("actor")
    return render(request, "registry/proposal_detail.html", context)


def _proposal_context(proposal):
    return {"proposal": proposal, "parts": sections_by_part()}
