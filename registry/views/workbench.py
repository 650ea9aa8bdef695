"""What sits beside a proposal on the applicant's and the editor's pages: the checklist by status,
the lines its findings point at, the examples against the grammar, the railroad diagrams, a decided
proposal's re-check. Shared by the proposal pages (views/proposals.py) and the review (views/review.py)."""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone

from .. import markdown
from ..checklist import example_subjects, one_line_per_cause
from ..diagram_cache import cached_diagrams
from ..enums import FindingStatus
from ..grammar import UrnSyntaxError, grammar_compile, parse_urn
from ..interchange import ProposalData
from ..verdicts import recheck

STATUS_ORDER = [
    FindingStatus.FAIL,
    FindingStatus.WARNING,
    FindingStatus.EDITOR,
    FindingStatus.NOT_RUN,
    FindingStatus.PASS,
]


#: What a decided proposal calls the findings left to the editor without a judgement to record:
#: the decision was made, so they no longer "need" anything.
DECIDED_LABELS = {FindingStatus.EDITOR: "Left to the editor's judgement"}


def grouped(findings, *, decided: bool = False) -> list[tuple[str, list]]:
    """The findings by status, in the panel's order; the checks waiting for one cause on one line."""
    groups = defaultdict(list)
    for finding in one_line_per_cause(findings):
        groups[finding.status].append(finding)
    labels = DECIDED_LABELS if decided else {}
    return [
        (labels.get(status, status.label), [*groups[status.value]]) for status in STATUS_ORDER if groups[status.value]
    ]


def markdown_ready(sections: dict, threads=None) -> None:
    """Format the page's sections and thread messages in one bounded job (``prerender_page``)."""
    texts = list((sections or {}).values())
    for thread in threads.all if threads is not None else ():
        texts += [thread.text, *(reply.text for reply in thread.replies.all())]
    markdown.prerender_page(texts)


def diagram_page(request, data: ProposalData, *, title: str, back: str) -> HttpResponse:
    """The railroad diagrams of a grammar, served on their own so the page they belong to
    need not draw them first.

    ``?fragment=1`` gives only the figures (what the page's script puts into its closed
    "Railroad diagrams" panel); without it, a page of its own (the link without JavaScript).
    The grammar is compiled as the checklist compiles it (same arguments, so the same cached
    compilation), inside the registry's budget.
    """
    diagrams = []
    if data.grammar.abnf.strip():
        compiled = grammar_compile(data.grammar.abnf, data.grammar.rule, examples=example_subjects(data))
        diagrams = cached_diagrams(data.grammar.abnf, lambda: compiled.parsed.rules)
    context = {"diagrams": diagrams, "title": title, "back": back}
    if request.GET.get("fragment") == "1":
        return render(request, "registry/proposals/_diagrams.html", context)
    return render(request, "registry/proposals/diagrams.html", context)


def field_section(name: str) -> str:
    """The template section (finding ``item.section``) a form field belongs to."""
    if name.startswith("section_"):
        return name[len("section_") :]
    for prefix, section in (
        ("registrant_", "registrant"),
        ("document_", "document"),
        ("examples_", "examples"),
        ("grammar_", "grammar"),
    ):
        if name.startswith(prefix):
            return section
    return name


def not_checked(findings, field_errors) -> list:
    """Findings about a field whose input the form refused are replaced by "not checked: fix
    that field first": the panel never shows a verdict on a value that is not the one on screen."""
    refused = {field_section(e["name"]): e["label"] for e in field_errors}
    out = []
    for finding in findings:
        section = (finding.item or {}).get("section")
        if finding.id == "max-length" and "max_length" in refused:
            section = "max_length"  # its verdict is about the declared length, whatever it points at
        if section in refused and finding.status != FindingStatus.NOT_RUN:
            finding = dataclasses.replace(
                finding, status=FindingStatus.NOT_RUN, message=f"Not checked: fix the {refused[section]} field first."
            )
        out.append(finding)
    return out


def finding_lines(findings, data: ProposalData) -> dict[str, list[dict]]:
    """The field lines findings point at, by form field name: the grammar's (line, column) and the
    examples' lines. Pages put an anchor and a visible marker on each, so a finding's link to its line
    (places.finding_place) lands there without JavaScript (with it, the page's script also puts the
    cursor there)."""
    texts = {
        "grammar_abnf": data.grammar.abnf.replace("\r\n", "\n").split("\n"),
        "examples_valid": list(data.examples.valid),
        "examples_invalid": list(data.examples.invalid),
    }
    marks: dict[str, dict[int, dict]] = {name: {} for name in texts}
    for finding in findings:
        item = finding.item or {}
        if item.get("section") == "grammar" and item.get("line"):
            name, line, column = "grammar_abnf", item["line"], item.get("column")
        elif item.get("example_line") and item.get("list") in ("valid", "invalid"):
            name, line, column = f"examples_{item['list']}", item["example_line"], None
        else:
            continue
        lines = texts[name]
        if 1 <= line <= len(lines) and line not in marks[name]:
            marks[name][line] = {
                "line": line,
                "column": column,
                "text": lines[line - 1][:200],
                "prefix": "grammar" if name == "grammar_abnf" else name,
            }
    return {name: [marks[name][n] for n in sorted(marks[name])] for name in marks if marks[name]}


def workbench(data: ProposalData, findings, form=None, *, source: str = "form", diagrams_url: str = "") -> dict:
    """What the applicant sees beside the form: findings, diagrams, example results.

    ``data`` is always what the form shows (posted or saved), never a mix; the
    form's own field errors are listed with the findings, and the panel says when
    it was computed (``source``: "form" for posted input, "saved" for the stored draft).
    ``findings`` are the checklist's on ``data`` (or a decided proposal's verdict).
    With ``diagrams_url`` (saved data, which that URL draws) the diagrams are not drawn
    here: the panel links to them and its script loads them when opened.
    """
    field_errors = form.error_list() if form is not None and form.is_bound else []
    findings = not_checked(findings, field_errors)
    line_marks = finding_lines(findings, data)
    if form is not None:
        for name in line_marks:
            form.fields[name].widget.attrs["aria-invalid"] = "true"
    context = {
        "findings": findings,
        "finding_groups": grouped(findings),
        "diagrams": [],
        "examples": [],
        "field_errors": field_errors,
        "line_marks": line_marks,
        "checked_at": timezone.now(),
        "checked_source": source,
        "diagrams_url": diagrams_url,
    }
    if data.grammar.abnf.strip():
        compiled = grammar_compile(data.grammar.abnf, data.grammar.rule, examples=example_subjects(data))
        if not diagrams_url:
            context["diagrams"] = cached_diagrams(data.grammar.abnf, lambda: compiled.parsed.rules)
        for kind, urns in (("valid", data.examples.valid), ("invalid", data.examples.invalid)):
            for urn in urns:
                try:
                    errors = compiled.check(parse_urn(urn)) if compiled.ok else None
                except UrnSyntaxError as exc:
                    errors = [exc.message]
                context["examples"].append(
                    {
                        "urn": urn,
                        "kind": kind,
                        "checked": errors is not None,
                        "accepted": errors == [],
                        "errors": errors or [],
                    }
                )
    return context


def recheck_context(request, proposal, verdict) -> dict:
    """A decided proposal's live re-check, on request (``?recheck=1``): shown apart from the
    decision's findings, with what changed since."""
    if not (verdict.decided and request.GET.get("recheck") == "1"):
        return {"recheck": None}
    return {"recheck": recheck(proposal, verdict, timezone.now())}
