"""Import a registration document: upload, review side by side, then create the draft.

Nothing is stored until the applicant presses "Create draft" on the review
page: the review shows the source text (line-numbered) beside every extracted
part, each linked to its source lines and marked found, uncertain or not
found; the applicant corrects what is wrong and confirms the uncertain items.
The review carries the source text in the form, so it works without
JavaScript and without server-side state.
"""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import DatabaseError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from .. import fairshare, sandbox, services
from ..documents import FOUND, MISSING, UNCERTAIN, DocumentError, Report, document_import
from ..forms import ImportDocumentForm, ImportReviewForm
from ..gfd191 import SECTIONS, UNPLACED_LABEL
from ..resolving.lines import resolvers_to_lines
from ..storage import RETRY_AFTER_SECONDS, storage_fault


def _import_bounded(text: str, fmt: str, notes=()):
    """Read a document within the document-import CPU budget (docs/security.md, "Limits")."""
    return sandbox.run_bounded(
        partial(document_import, format=fmt, notes=list(notes)),
        text,
        what="document",
        expected=(DocumentError,),
        seconds=sandbox.import_cpu_seconds(),
    )


# Review rows: the form field the applicant edits and the report items it shows.
_ROWS = (
    [
        ("snid", ["snid"]),
        ("title", ["title"]),
        ("version", ["version"]),
        ("registration_date", ["registration_date"]),
        ("document_type", ["document.type"]),
        ("registrant_name", ["registrant.name"]),
        ("registrant_organisation", ["registrant.organisation"]),
        ("registrant_email", ["registrant.email"]),
        ("registrant_address", ["registrant.address"]),
        ("abnf", ["grammar.abnf", "grammar.rules"]),
        ("rule", ["grammar.rule"]),
        ("examples_valid", ["examples.valid"]),
        ("examples_invalid", ["examples.invalid"]),
    ]
    + [(f"section_{s.key}", [f"sections.{s.key}"]) for s in SECTIONS if s.kind == "prose"]
    + [("unplaced", ["unmapped"]), ("resolvers", ["resolvers"])]
)
#: Rows shown only when the document has them (our own export's section 3.2 resolvers).
_OPTIONAL_ROWS = {"resolvers"}


def _initial(result) -> dict:
    data = result.data
    initial = {
        "source": result.source,
        "format": result.report.format,
        "snid": data.snid,
        "title": data.title,
        "version": data.version,
        "registration_date": data.registration_date,
        "document_type": data.document.type,
        "registrant_name": data.registrant.name,
        "registrant_organisation": data.registrant.organisation,
        "registrant_email": data.registrant.email,
        "registrant_address": data.registrant.address,
        "abnf": data.grammar.abnf,
        "rule": data.grammar.rule,
        "examples_valid": "\n".join(data.examples.valid),
        "examples_invalid": "\n".join(data.examples.invalid),
        "unplaced": data.unplaced,
        "resolvers": resolvers_to_lines(data.resolvers),
    }
    for key, text in data.sections.items():
        initial[f"section_{key}"] = text
    return initial


def _items_label(items) -> str:
    """What the list of a row's report items holds, in words: the grammar's rules are counted as
    rules (its report has the whole text and the list of rules: two items, whatever the grammar)."""
    rules = next((item for item in items if item.field == "grammar.rules"), None)
    if rules is not None:
        count = len([name for name in str(rules.value).split(",") if name.strip()])
        return f"The grammar's {count} rule{'' if count == 1 else 's'}, with their lines"
    return f"{len(items)} items, each with its line"


def _rows(form, report) -> list[dict]:
    """One row per editable field: the field, its report items, its status (the worst of its items)."""
    rows = []
    for name, fields in _ROWS:
        if name in _OPTIONAL_ROWS and not form[name].value():
            continue
        items = [item for item in report.items if item.field in fields]
        statuses = {item.status for item in items}
        status = UNCERTAIN if UNCERTAIN in statuses else FOUND if FOUND in statuses else MISSING
        lines = sorted({n for item in items for n in item.lines})
        rows.append(
            {
                "field": form[name],
                "items": items,
                "items_label": _items_label(items),
                "status": status,
                "lines": lines,
                "first_line": lines[0] if lines else None,
                "why": [item.why for item in items if item.why and item.status != FOUND],
            }
        )
    return rows


def _kept_review(request, form, refused: fairshare.Refusal):
    """The review form with everything corrected in it, when the registry is too busy to read the
    document again and create the draft now: the source and the fields as sent, without the
    import's report (that needs the import); "Create draft" sends them again."""
    report = Report(format=request.POST.get("format", "text") or "text")
    messages.error(request, refused.message)
    return refused.apply(
        render(
            request,
            "registry/proposals/import_review.html",
            {
                "form": form,
                "report": report,
                "rows": _rows(form, report),
                "unmapped": [],
                "kept": True,
                "uncertain": 1 if request.POST.get("confirmed") else 0,  # keeps the tick, if given
                "source_lines": [
                    (n, text, "") for n, text in enumerate(request.POST.get("source", "").split("\n"), start=1)
                ],
            },
        )
    )


def _review(request, form, result, status=200):
    unmapped = [item for item in result.report.items if item.field == "unmapped"]
    source_lines = result.source.split("\n")
    marked = {}
    for item in result.report.items:
        for number in item.lines:
            if item.status == UNCERTAIN or number not in marked:
                marked[number] = item.status
    return render(
        request,
        "registry/proposals/import_review.html",
        {
            "form": form,
            "result": result,
            "report": result.report,
            "rows": _rows(form, result.report),
            "unmapped": unmapped,
            "unplaced_label": UNPLACED_LABEL,
            "source_lines": [(n, text, marked.get(n, "")) for n, text in enumerate(source_lines, start=1)],
            "uncertain": len(result.report.uncertain),
            "found": sum(1 for item in result.report.items if item.status == FOUND),
            "missing": sum(1 for item in result.report.items if item.status == MISSING),
        },
        status=status,
    )


@login_required
def proposal_import(request):
    """Step 1: paste or upload a document; a valid one goes straight to the review (nothing stored)."""
    form = ImportDocumentForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            result = _import_bounded(
                form.cleaned_data["text"], form.cleaned_data["format"], form.cleaned_data.get("notes", ())
            )
        except DocumentError as exc:
            form.add_error(None, str(exc))
        except sandbox.BudgetExceeded as exc:
            form.add_error(None, exc.message + " Nothing was imported.")
            return render(request, "registry/proposals/import.html", {"form": form}, status=400)
        else:
            review = ImportReviewForm(initial=_initial(result), uncertain=len(result.report.uncertain))
            return _review(request, review, result)
    return render(request, "registry/proposals/import.html", {"form": form})


@login_required
@require_POST
def proposal_import_create(request):
    """Step 2: the reviewed and corrected parts become a draft."""
    source = request.POST.get("source", "")
    if (refused := fairshare.refusal(request)) is not None:
        return _kept_review(request, ImportReviewForm(request.POST), refused)
    try:
        result = _import_bounded(source, request.POST.get("format", "text") or "text")
    except (DocumentError, sandbox.BudgetExceeded) as exc:
        messages.error(request, getattr(exc, "message", None) or str(exc))
        return redirect("registry:proposal_import")
    form = ImportReviewForm(request.POST, uncertain=len(result.report.uncertain))
    if not form.is_valid():
        return _review(request, form, result, status=400)
    try:
        proposal = services.proposal_create(form.cleaned_data["data"], request.user)
    except services.ServiceError as exc:
        form.add_error(None, exc.message)
        return _review(request, form, result, status=400)
    except DatabaseError as exc:
        # A full disk or a lost database: say so, and give every corrected field back.
        if (fault := storage_fault(exc)) is None:
            raise
        messages.error(request, f"{fault} Everything you corrected is kept below: press “Create draft” again then.")
        response = _review(request, form, result, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    messages.success(request, "Draft created from the document. Check the automated review below.")
    return redirect("registry:proposal_edit", pk=proposal.pk)
