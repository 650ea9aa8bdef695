"""The first pages: the registry list, one SNID, one proposal.

They are deliberately plain; the submission, review and public-registry issues
build the full pages on the same selectors and predicates.
"""

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

from .. import rules
from ..enums import NamespaceStatus
from ..gfd191 import sections_by_part
from ..models import Namespace, Proposal
from ..selectors import pending_proposals, proposal_findings


def home(request):
    return redirect("registry:namespace_list")


def namespace_list(request):
    namespaces = Namespace.objects.select_related("current", "current__submitter")
    context = {
        "registered": [ns for ns in namespaces if ns.status == NamespaceStatus.REGISTERED],
        "reserved": [ns for ns in namespaces if ns.status == NamespaceStatus.RESERVED],
        "pending_count": pending_proposals().count(),
    }
    return render(request, "registry/namespace_list.html", context)


def namespace_detail(request, snid):
    namespace = Namespace.objects.by_snid(snid).select_related("current").first()
    if namespace is None or namespace.current is None:
        raise Http404(f"urn:ogf:{snid}: is not registered.")
    if namespace.snid != snid:
        return redirect(namespace, permanent=True)
    return render(request, "registry/proposal_detail.html", _proposal_context(namespace.current))


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
