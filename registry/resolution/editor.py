"""The editor's form to replace a registered SNID's resolvers (not a new version)."""

from __future__ import annotations

from django import forms
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from django.urls import reverse

from ..grammar import grammar_compile
from ..models import Namespace, Proposal
from . import health
from .expand import preview
from ..views.review import editor_required
from .lines import LINE_FORMAT, resolvers_from_lines, resolvers_to_lines
from .models import Resolver
from .services import REASON_MAX, ResolutionError, resolvers_replace


class ResolversForm(forms.Form):
    resolvers = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 5, "class": "mono"}),
                                max_length=20_000, help_text="One resolver per line: " + LINE_FORMAT + ".")
    reason = forms.CharField(max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="Published in the SNID's history and the transparency log.")


@editor_required
def resolvers_edit(request, snid):
    namespace = Namespace.objects.by_snid(snid).select_related("current").first()
    if namespace is None or namespace.current_id is None:
        raise Http404("No registered SNID of that name.")
    current = [r.as_data() for r in Resolver.objects.current().filter(namespace=namespace)]
    form = ResolversForm(request.POST or None, initial={"resolvers": resolvers_to_lines(current)})
    errors = []
    if request.method == "POST" and form.is_valid():
        try:
            resolvers_replace(namespace.snid, resolvers_from_lines(form.cleaned_data["resolvers"]), request.user,
                              form.cleaned_data["reason"])
        except ResolutionError as exc:
            errors = exc.errors
        else:
            return redirect(reverse("registry:namespace_detail", args=[namespace.snid]) + "#resolvers")
    return render(request, "registry/resolution/edit.html",
                  {"namespace": namespace, "form": form, "errors": errors}, status=400 if errors else 200)


#: The live probe an editor may run before approval: a few URLs, a short timeout.
PROBE_MAX_URLS = 8
PROBE_TIMEOUT = 5.0


@editor_required
@require_POST
def resolvers_probe(request, pk):
    """Probe the URLs the proposal's resolvers give for its examples (HEAD then GET, polite,
    SSRF-guarded), shown as information: a network that cannot be reached blocks nothing."""
    proposal = get_object_or_404(Proposal, pk=pk)
    compiled = grammar_compile(proposal.grammar_abnf, proposal.grammar_rule) if proposal.grammar_abnf.strip() else None
    rows = [row for row in preview(list(proposal.resolvers or []), compiled, proposal.examples_valid,
                                   proposal.equivalence) if row[2]][:PROBE_MAX_URLS]
    results = [(name, example, health.probe(url, timeout=PROBE_TIMEOUT)) for name, example, url, _ in rows]
    return render(request, "registry/resolution/probe.html", {"proposal": proposal, "results": results})
