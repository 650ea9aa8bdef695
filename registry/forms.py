"""Forms. They validate; services write.

The proposal form is built from the GFD.191 template data (one field per
section, in template order, with its guidance) and validates by turning its
input into the interchange format, so the browser and JSON imports obey one
set of rules and messages.
"""

from __future__ import annotations

import re

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from . import interchange
from .enums import DocumentStatus
from .gfd191 import SECTIONS, SECTIONS_BY_KEY
from .grammar import EQUIVALENCE_STEPS

_MONO = {"class": "mono", "spellcheck": "false", "autocapitalize": "off", "autocomplete": "off"}


class SignUpForm(UserCreationForm):
    email = forms.EmailField(help_text="For notices about your proposals and password resets.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


def _prose_field(section) -> forms.CharField:
    return forms.CharField(
        label=f"{section.number} {section.title}", required=False, help_text=section.guidance,
        max_length=interchange.MAX_TEXT, widget=forms.Textarea(attrs={"rows": 6}),
    )


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


class ProposalForm(forms.Form):
    """Every part of a proposal. ``cleaned_proposal`` holds the validated ProposalData."""

    snid = forms.CharField(label="1.1 Namespace Identifier (SNID)", max_length=32,
                           help_text=SECTIONS_BY_KEY["snid"].guidance,
                           widget=forms.TextInput(attrs={**_MONO, "pattern": "[A-Za-z0-9][A-Za-z0-9-]{0,31}"}))
    title = forms.CharField(label="Title", max_length=interchange.MAX_LINE, required=False,
                            help_text="A short name for the registration, shown in the registry.")
    version = forms.IntegerField(label="Registration version", min_value=1, max_value=interchange.MAX_VERSION,
                                 initial=1,
                                 help_text=SECTIONS_BY_KEY["version"].guidance)
    document_reference = forms.CharField(label="Registering document", max_length=interchange.MAX_LINE,
                                         required=False, help_text="The GFD or working draft, e.g. GFD.202.")
    document_url = forms.CharField(label="Document URL", max_length=interchange.MAX_LINE, required=False)
    document_status = forms.ChoiceField(label="Document status", required=False,
                                        choices=[("", "—")] + list(DocumentStatus.choices))
    registrant_name = forms.CharField(label="Contact person", max_length=interchange.MAX_LINE, required=False,
                                      help_text=SECTIONS_BY_KEY["registrant"].guidance)
    registrant_organisation = forms.CharField(label="Organisation", max_length=interchange.MAX_LINE,
                                              required=False)
    registrant_email = forms.CharField(label="E-mail", max_length=interchange.MAX_LINE, required=False)
    registrant_address = forms.CharField(label="Postal address", max_length=interchange.MAX_LINE * 4,
                                         required=False, widget=forms.Textarea(attrs={"rows": 3}))
    registrant_public_contact = forms.CharField(
        label="Public contact", max_length=interchange.MAX_LINE, required=False,
        help_text="Published on the SNID's page, in the API and in the exports. A role address that "
                  "outlives any one person (urn-registry@example.org) or a web page is best.")
    registrant_published = forms.MultipleChoiceField(
        label="Also publish", required=False, widget=forms.CheckboxSelectMultiple,
        choices=[("name", "Contact person"), ("organisation", "Organisation"), ("email", "E-mail"),
                 ("address", "Postal address")],
        help_text="What is public once approved: the SNID, title, every template section, the "
                  "registering document, the public contact and the details ticked here. Details "
                  "not ticked are seen only by GFD editors.")
    grammar_abnf = forms.CharField(
        label="Formal syntax (ABNF, RFC 5234)", required=False, max_length=interchange.MAX_TEXT,
        help_text="The grammar may describe the whole URN (starting with \"urn:ogf:\") or only the "
                  "string after urn:ogf:<snid>:. Quoted strings are case-insensitive; use %s\"…\" "
                  "for case-sensitive ones.",
        widget=forms.Textarea(attrs={**_MONO, "rows": 12}))
    grammar_rule = forms.CharField(label="Top rule", required=False, max_length=interchange.MAX_LINE,
                                   help_text="Default: the first rule.", widget=forms.TextInput(attrs=_MONO))
    max_length = forms.IntegerField(label="Maximum URN length (characters)", required=False, min_value=1,
                                    max_value=4096, help_text="Needed when the grammar does not bound it.")
    equivalence = forms.MultipleChoiceField(
        label="Executable equivalence rule", required=False, widget=forms.CheckboxSelectMultiple,
        choices=[(step, f"{step}: {words}") for step, words in EQUIVALENCE_STEPS.items()],
        help_text="urn:ogf: and the SNID are always case-insensitive (RFC 6453).")
    examples_valid = forms.CharField(label="Valid example URNs", required=False,
                                     widget=forms.Textarea(attrs={**_MONO, "rows": 4}),
                                     help_text="One URN per line.")
    examples_invalid = forms.CharField(label="Invalid example URNs", required=False,
                                       widget=forms.Textarea(attrs={**_MONO, "rows": 4}),
                                       help_text="One URN per line; say in section 6 why each is invalid.")
    examples_equivalent = forms.CharField(
        label="Equivalent URNs", required=False, widget=forms.Textarea(attrs={**_MONO, "rows": 3}),
        help_text="One group per line: URNs that must be equivalent, separated by spaces.")

    #: The structured fields shown under each template section, after its prose.
    SECTION_FIELDS = {
        "snid": ["snid", "title"],
        "version": ["version", "document_reference", "document_url", "document_status"],
        "registrant": ["registrant_name", "registrant_organisation", "registrant_email", "registrant_address",
                       "registrant_public_contact", "registrant_published"],
        "syntactic_structure": ["grammar_abnf", "grammar_rule", "max_length"],
        "lexical_equivalence": ["equivalence", "examples_equivalent"],
        "examples": ["examples_valid", "examples_invalid"],
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for section in SECTIONS:
            if section.kind == "prose":
                self.fields[f"section_{section.key}"] = _prose_field(section)
        self.cleaned_proposal: interchange.ProposalData | None = None

    def fields_for(self, section) -> list:
        names = ([f"section_{section.key}"] if section.kind == "prose" else []) + \
            self.SECTION_FIELDS.get(section.key, [])
        return [self[name] for name in names]

    @staticmethod
    def initial_from(data: interchange.ProposalData) -> dict:
        initial = {
            "snid": data.snid, "title": data.title, "version": data.version,
            "document_reference": data.document.reference, "document_url": data.document.url,
            "document_status": data.document.status,
            "registrant_name": data.registrant.name, "registrant_organisation": data.registrant.organisation,
            "registrant_email": data.registrant.email, "registrant_address": data.registrant.address,
            "registrant_public_contact": data.registrant.public_contact,
            "registrant_published": list(data.registrant.published),
            "grammar_abnf": data.grammar.abnf, "grammar_rule": data.grammar.rule,
            "max_length": data.max_length, "equivalence": list(data.equivalence),
            "examples_valid": "\n".join(data.examples.valid),
            "examples_invalid": "\n".join(data.examples.invalid),
            "examples_equivalent": "\n".join(" ".join(group) for group in data.examples.equivalent),
        }
        initial.update({f"section_{key}": text for key, text in data.sections.items()})
        return initial

    def clean(self):
        # Validate the rest even when a field failed on its own, so every problem shows at once.
        cleaned = super().clean()
        raw = {
            "snid": cleaned.get("snid", ""), "title": cleaned.get("title", ""),
            "version": cleaned.get("version") or 1,
            "registrant": {
                **{k: cleaned.get(f"registrant_{k}", "") for k in ("name", "organisation", "email", "address",
                                                                   "public_contact")},
                "published": list(cleaned.get("registrant_published") or []),
            },
            "document": {k: cleaned.get(f"document_{k}", "") for k in ("reference", "url", "status")},
            "sections": {s.key: cleaned.get(f"section_{s.key}", "") for s in SECTIONS if s.kind == "prose"},
            "grammar": {"abnf": cleaned.get("grammar_abnf", ""), "rule": cleaned.get("grammar_rule", "")},
            "examples": {
                "valid": _lines(cleaned.get("examples_valid")),
                "invalid": _lines(cleaned.get("examples_invalid")),
                "equivalent": [line.replace(" = ", " ").split() for line in _lines(cleaned.get("examples_equivalent"))],
            },
            "equivalence": list(cleaned.get("equivalence") or []),
            "max_length": cleaned.get("max_length"),
        }
        try:
            proposal = interchange.load(raw)
        except interchange.InterchangeError as exc:
            for error in exc.errors:
                key, _, message = error.partition(": ")
                field = _field_for(key)
                if field not in self.errors:
                    self.add_error(field if field in self.fields else None, message or error)
            return cleaned
        if not self.errors:
            self.cleaned_proposal = proposal
        return cleaned


def _field_for(key: str) -> str:
    """Interchange key path (``sections.scope``, ``examples.valid[2]``) -> form field name."""
    key = re.sub(r"\[\d+\]", "", key)
    if key.startswith("sections."):
        return "section_" + key.split(".", 1)[1]
    return key.replace(".", "_")


class NewProposalForm(forms.Form):
    START_CHOICES = [
        ("blank", "A new SNID, starting from an empty template"),
        ("example", "A new SNID, starting from the GFD.191 worked example (urn:ogf:example:)"),
        ("version", "A new version of an SNID registered to me"),
    ]
    start = forms.ChoiceField(choices=START_CHOICES, widget=forms.RadioSelect, initial="blank")
    snid = forms.CharField(label="SNID", max_length=32, required=False,
                           help_text="For a new SNID; you can change it while writing.",
                           widget=forms.TextInput(attrs=_MONO))
    namespace = forms.ChoiceField(label="SNID to revise", required=False)

    def __init__(self, *args, own_snids=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["namespace"].choices = [("", "—")] + [(s, s) for s in own_snids]

    def clean(self):
        cleaned = super().clean()
        start = cleaned.get("start")
        if start == "blank" and not cleaned.get("snid"):
            self.add_error("snid", "Give the SNID you want to register.")
        if start == "version" and not cleaned.get("namespace"):
            self.add_error("namespace", "Choose which of your SNIDs to revise.")
        return cleaned


class CommentForm(forms.Form):
    section = forms.ChoiceField(required=False, choices=[("", "General")] + [
        (s.key, s.heading) for s in SECTIONS])
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=20_000)


class ReservationRequestForm(forms.Form):
    reason = forms.CharField(required=False, max_length=2_000, widget=forms.Textarea(attrs={"rows": 2}),
                             help_text="Why you need the name reserved before approval.")


class ImportDocumentForm(forms.Form):
    ALLOWED = (".txt", ".md", ".tex")
    text = forms.CharField(label="Paste the document", required=False,
                           widget=forms.Textarea(attrs={**_MONO, "rows": 14}), max_length=1_000_000)
    file = forms.FileField(label="…or upload it (.txt, .md or .tex, up to 1 MB)", required=False)

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("file")
        if upload:
            if not upload.name.lower().endswith(self.ALLOWED):
                self.add_error("file", "Upload a .txt, .md or .tex file.")
            elif upload.size > 1_000_000:
                self.add_error("file", f"The file is {upload.size:,} bytes; the limit is 1,000,000.")
            else:
                raw = upload.read()
                try:
                    cleaned["text"] = raw.decode("utf-8")
                except UnicodeDecodeError:
                    cleaned["text"] = raw.decode("latin-1")
        if not self.errors and not (cleaned.get("text") or "").strip():
            raise forms.ValidationError("Paste the document's text or upload a file.")
        return cleaned
