"""The editor's form to replace a registered SNID's resolvers (not a new version)."""

from __future__ import annotations

import threading
import time

from django import forms
from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from .. import rules
from ..diffs import resolver_changes
from ..grammar import grammar_compile
from ..models import Namespace, Proposal
from ..resolution import health
from ..resolution.models import Resolver
from ..resolution.services import REASON_MAX, ResolutionError, resolvers_replace, resolvers_validate
from ..resolving.lines import LINE_FORMAT, resolvers_from_lines, resolvers_to_lines
from ..resolving.review import resolvers_review
from .errors import forbidden
from .review import editor_required
from .seen import seen_matches, seen_token


class ResolversForm(forms.Form):
    resolvers = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "class": "mono"}),
        max_length=20_000,
        help_text="One resolver per line: " + LINE_FORMAT + ".",
    )
    reason = forms.CharField(
        max_length=REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Published in the SNID's history and the transparency log.",
    )


@editor_required
def resolvers_edit(request, snid):
    namespace = Namespace.objects.by_snid(snid).select_related("current").first()
    if namespace is None or namespace.current_id is None:
        raise Http404("No registered SNID of that name.")
    if not rules.can_decide_for_snid(request.user, namespace):
        return forbidden(
            request,
            f"You are a steward of urn:ogf:{namespace.snid}:, so another GFD editor changes "
            "its resolvers: ask for the change on its stewardship page.",
        )
    current = [r.as_data() for r in Resolver.objects.current().filter(namespace=namespace)]
    form = ResolversForm(request.POST or None, initial={"resolvers": resolvers_to_lines(current)})
    errors = []
    if request.method == "POST" and form.is_valid() and not request.POST.get("edit"):
        new = resolvers_from_lines(form.cleaned_data["resolvers"])
        facts = (namespace.pk, current, new, form.cleaned_data["reason"])
        confirmed = request.POST.get("confirm") == "yes"
        errors = resolvers_validate(namespace.snid, new)
        if errors:  # said on the form, before any confirmation
            return render(
                request,
                "registry/resolution/edit.html",
                {"namespace": namespace, "form": form, "errors": errors},
                status=400,
            )
        if not (confirmed and seen_matches(request.POST.get("seen", ""), request.user, *facts)):
            # A public change: first the page saying what changes (the form's POST lands here).
            return render(
                request,
                "registry/resolution/confirm_edit.html",
                {
                    "namespace": namespace,
                    "form": form,
                    "changes": resolver_changes(current, new),
                    "reason": form.cleaned_data["reason"],
                    "seen": seen_token(request.user, *facts),
                    "moved_on": confirmed,
                },
                status=409 if confirmed else 200,
            )
        try:
            resolvers_replace(namespace.snid, new, request.user, form.cleaned_data["reason"])
        except ResolutionError as exc:
            errors = exc.errors
        else:
            return redirect(reverse("registry:namespace_detail", args=[namespace.snid]) + "#resolvers")
    return render(
        request,
        "registry/resolution/edit.html",
        {"namespace": namespace, "form": form, "errors": errors},
        status=400 if errors else 200,
    )


#: The live probe an editor may run before approval: a few URLs, a short timeout each, and
#: ``settings.REGISTRY_RESOLVER_PROBE_SECONDS`` in all.
PROBE_MAX_URLS = 8
PROBE_TIMEOUT = 5.0


def probe_within(urls: list[str], seconds: float) -> list:
    """Probe ``urls`` one after the other (one host is asked one thing at a time) for at most
    ``seconds``: a ProbeResult for each URL reached, None for those the time did not reach.

    The probes run in a thread the request waits for at most ``seconds``: even a name
    lookup that hangs (a network that cannot be reached) cannot hold the page longer.
    The thread stops by the same deadline, apart from a lookup already under way."""
    deadline = time.monotonic() + seconds
    results: list = [None] * len(urls)

    def work():
        for number, url in enumerate(urls):
            if time.monotonic() >= deadline:
                return
            results[number] = health.probe(url, timeout=PROBE_TIMEOUT, deadline=deadline)

    worker = threading.Thread(target=work, name="resolver-probe", daemon=True)
    worker.start()
    worker.join(seconds + 0.5)
    return list(results)


@editor_required
@require_POST
def resolvers_probe(request, pk):
    """Probe the URLs the proposal's resolvers give for its examples (HEAD then GET, polite,
    SSRF-guarded), shown as information: a network that cannot be reached blocks nothing."""
    proposal = get_object_or_404(Proposal, pk=pk)
    compiled = (
        grammar_compile(
            proposal.grammar_abnf,
            proposal.grammar_rule,
            examples=tuple(dict.fromkeys([*proposal.examples_valid, *proposal.examples_invalid])),
        )
        if proposal.grammar_abnf.strip()
        else None
    )
    # The URLs come from the review's bounded job (the same report the checklist showed).
    report = (
        resolvers_review(
            compiled, list(proposal.resolvers or []), proposal.examples_valid, proposal.equivalence, snid=proposal.snid
        )
        if proposal.resolvers
        else None
    )
    rows, seen = [], set()
    for row in report.rows if report is not None else []:
        if row[2] and row[2] not in seen and len(rows) < PROBE_MAX_URLS:  # each URL asked once
            seen.add(row[2])
            rows.append(row)
    seconds = settings.REGISTRY_RESOLVER_PROBE_SECONDS
    found = probe_within([url for _name, _example, url, _problem in rows], seconds)
    results = [(name, example, url, result) for (name, example, url, _), result in zip(rows, found, strict=True)]
    return render(
        request, "registry/resolution/probe.html", {"proposal": proposal, "results": results, "seconds": seconds}
    )
