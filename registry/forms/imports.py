"""Importing a registration document: the upload, then the applicant's corrections."""

from __future__ import annotations

from django import forms

from .. import documents, interchange, sandbox
from ..gfd191 import SECTIONS, UNPLACED_LABEL, place_name
from ..resolving import lines as resolution_lines
from .common import MONO
from .proposal import lines_of


class ImportDocumentForm(forms.Form):
    """A registration document, pasted or uploaded; the file's bytes are checked, not only its name."""

    text = forms.CharField(
        label="Paste the document",
        required=False,
        widget=forms.Textarea(attrs={**MONO, "rows": 14}),
        max_length=documents.MAX_DOCUMENT,
    )
    file = forms.FileField(
        label=f"…or upload it ({documents.ACCEPTED}, up to {documents.MAX_FILE // 1_000_000} MB)", required=False
    )

    def clean(self):
        cleaned = super().clean()
        cleaned["format"] = "text"
        upload = cleaned.get("file")
        if upload:
            if upload.size > documents.MAX_FILE:
                self.add_error("file", f"The file is {upload.size:,} bytes; the limit is {documents.MAX_FILE:,}.")
            else:
                try:
                    # PDF and Word extraction read untrusted bytes: inside the job budget.
                    cleaned["text"], cleaned["format"], cleaned["notes"] = sandbox.run_bounded(
                        documents.read_document,
                        upload.name,
                        upload.read(),
                        what="document",
                        expected=(documents.DocumentError,),
                        seconds=sandbox.import_cpu_seconds(),
                    )
                except documents.DocumentError as exc:
                    self.add_error("file", str(exc))
                except sandbox.BudgetExceeded as exc:
                    self.add_error("file", exc.message + " Nothing was imported.")
        elif "\\documentclass" in (cleaned.get("text") or ""):
            cleaned["format"] = "latex"
        if not self.errors and not (cleaned.get("text") or "").strip():
            raise forms.ValidationError("Paste the document's text or upload a file.")
        return cleaned


class ImportReviewForm(forms.Form):
    """The applicant's corrections of an import, checked as interchange data before a draft is made."""

    source = forms.CharField(widget=forms.HiddenInput, max_length=documents.MAX_DOCUMENT, required=False, strip=False)
    format = forms.CharField(widget=forms.HiddenInput, max_length=16, required=False)
    snid = forms.CharField(label=f"{place_name('snid')} (SNID)", max_length=64, widget=forms.TextInput(attrs=MONO))
    title = forms.CharField(label="Title", required=False, max_length=interchange.MAX_LINE)
    version = forms.IntegerField(
        label=f"{place_name('version')}: version", min_value=1, max_value=interchange.MAX_VERSION, initial=1
    )
    registration_date = forms.DateField(
        label=f"{place_name('version')}: registration date",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    document_type = forms.ChoiceField(
        label="Document type (GFD)",
        required=False,
        choices=[("", "(not given)")] + [(t, t) for t in interchange.DOCUMENT_TYPES],
    )
    registrant_name = forms.CharField(label="Registrant name", required=False, max_length=interchange.MAX_LINE)
    registrant_organisation = forms.CharField(
        label="Registrant organisation", required=False, max_length=interchange.MAX_LINE
    )
    registrant_email = forms.CharField(label="Registrant e-mail", required=False, max_length=interchange.MAX_LINE)
    registrant_address = forms.CharField(
        label="Registrant postal address",
        required=False,
        max_length=interchange.MAX_LINE * 4,
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    abnf = forms.CharField(
        label=place_name("grammar"),
        required=False,
        max_length=interchange.MAX_TEXT,
        strip=False,
        widget=forms.Textarea(attrs={**MONO, "rows": 10}),
    )
    rule = forms.CharField(label="Top rule", required=False, max_length=200, widget=forms.TextInput(attrs=MONO))
    examples_valid = forms.CharField(
        label=f"{place_name('examples_valid')} (one per line)",
        required=False,
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={**MONO, "rows": 5}),
    )
    examples_invalid = forms.CharField(
        label=f"{place_name('examples_invalid')} (one per line)",
        required=False,
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={**MONO, "rows": 3}),
    )
    unplaced = forms.CharField(
        label=UNPLACED_LABEL,
        required=False,
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Kept apart in the draft: move it into its sections or delete it before submitting.",
    )
    resolvers = forms.CharField(
        label="3.2 Resolvers",
        required=False,
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={**MONO, "rows": 2}),
        help_text="One resolver per line: " + resolution_lines.LINE_FORMAT + ".",
    )
    confirmed = forms.BooleanField(label="I have checked the highlighted items against the source", required=False)

    def __init__(self, *args, uncertain: int = 0, **kwargs):
        super().__init__(*args, **kwargs)
        self.uncertain = uncertain
        for section in SECTIONS:
            if section.kind == "prose":
                self.fields[f"section_{section.key}"] = forms.CharField(
                    label=section.heading,
                    required=False,
                    max_length=interchange.MAX_TEXT,
                    widget=forms.Textarea(attrs={"rows": 4}),
                )

    def clean(self):
        cleaned = super().clean()
        if self.uncertain and not cleaned.get("confirmed"):
            self.add_error(
                "confirmed",
                f"{self.uncertain} item(s) are marked uncertain: check them against the "
                "source, correct what is wrong, then tick this box.",
            )
        if self.errors:
            return cleaned
        raw = {
            "snid": cleaned["snid"],
            "title": cleaned.get("title", ""),
            "version": cleaned["version"],
            "registration_date": cleaned["registration_date"].isoformat() if cleaned.get("registration_date") else None,
            "registrant": {
                key: cleaned.get(f"registrant_{key}", "") for key in ("name", "organisation", "email", "address")
            },
            "document": {"type": cleaned.get("document_type", "")},
            "grammar": {"abnf": cleaned.get("abnf", ""), "rule": cleaned.get("rule", "")},
            "examples": {
                "valid": lines_of(cleaned.get("examples_valid", "")),
                "invalid": lines_of(cleaned.get("examples_invalid", "")),
            },
            "sections": {s.key: cleaned.get(f"section_{s.key}", "") for s in SECTIONS if s.kind == "prose"},
            "unplaced": cleaned.get("unplaced", ""),
            "resolvers": resolution_lines.resolvers_from_lines(cleaned.get("resolvers", "")),
        }
        try:
            cleaned["data"] = interchange.load(raw)
        except interchange.InterchangeError as exc:
            for error in exc.errors:
                self.add_error(None, error)
        return cleaned
