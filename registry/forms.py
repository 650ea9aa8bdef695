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
from django.utils.html import format_html

from . import documents, interchange, sandbox
from .enums import DocumentStatus, DocumentType
from .gfd191 import SECTIONS, SECTIONS_BY_KEY, UNPLACED_LABEL, place_name
from .grammar import EQUIVALENCE_STEPS, snid_error
from .resolving import lines as resolution_lines
from .selectors import snid_refusal

_MONO = {"class": "mono", "spellcheck": "false", "autocapitalize": "off", "autocomplete": "off"}


class FocusFirstErrorMixin:
    """After a failed submission the page opens with the cursor in the first field in error.

    Django's user forms put ``autofocus`` on the username field, which sent the cursor
    back there even when only the password was wrong.
    """

    def full_clean(self):
        super().full_clean()
        first = next((name for name in self.fields if name in self._errors), None)
        if first is None:
            return
        for field in self.fields.values():
            field.widget.attrs.pop("autofocus", None)
        self.fields[first].widget.attrs["autofocus"] = True


class SignUpForm(FocusFirstErrorMixin, UserCreationForm):
    """A new account, confirmed by a link mailed to its address before it can sign in.

    The form never says that a user name or an address is taken (that would tell anyone which
    accounts exist): the sign-up service mails the address what happened instead
    (registry.accounts.services.signup_register).
    """

    email = forms.EmailField(
        help_text="We mail you a link: the account can sign in once you follow it. "
        "Also for notices about your proposals and password resets."
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip()

    def validate_unique(self):
        """Uniqueness is the service's business (see the class docstring), not an error shown here."""

    def clean_username(self):
        # UserCreationForm says "A user with that username already exists."; the service decides instead.
        return self.cleaned_data.get("username")


def _prose_field(section) -> forms.CharField:
    return forms.CharField(
        label=f"{section.number} {section.title}",
        required=False,
        # The backticks as code: written as they are typed, not as text Markdown left unformatted.
        help_text=format_html(
            "{} Markdown; grammar and URNs in the text are shown as code (for a block of "
            "ABNF, put it between two lines of <code>```</code>).",
            section.guidance,
        ),
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 6}),
    )


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _snid_checked(value: str) -> str:
    """An SNID in RFC 6453 syntax, or a ValidationError saying what is wrong."""
    value = (value or "").strip()
    if value and (problem := snid_error(value)):
        raise forms.ValidationError(problem)
    return value


class ProposalForm(forms.Form):
    """Every part of a proposal. ``cleaned_proposal`` holds the validated ProposalData."""

    snid = forms.CharField(
        label="SNID",
        max_length=32,
        help_text=SECTIONS_BY_KEY["snid"].guidance,
        widget=forms.TextInput(attrs={**_MONO, "pattern": "[A-Za-z0-9][A-Za-z0-9-]{0,31}"}),
    )
    title = forms.CharField(
        label="Title",
        max_length=interchange.MAX_LINE,
        required=False,
        help_text="A short name for the registration, shown in the registry.",
    )
    version = forms.IntegerField(
        label="Registration version",
        min_value=1,
        max_value=interchange.MAX_VERSION,
        initial=1,
        help_text=SECTIONS_BY_KEY["version"].guidance,
    )
    document_reference = forms.CharField(
        label="Registering document",
        max_length=interchange.MAX_LINE,
        required=False,
        help_text="The GFD or working draft, e.g. GFD.202.",
    )
    document_url = forms.CharField(label="Document URL", max_length=interchange.MAX_LINE, required=False)
    document_status = forms.ChoiceField(
        label="Document status", required=False, choices=[("", "—")] + list(DocumentStatus.choices)
    )
    document_type = forms.ChoiceField(
        label="Document type",
        required=False,
        choices=[("", "—")] + list(DocumentType.choices),
        help_text="The GFD type; GFD.191 §4: the registering document SHOULD be Informational.",
    )
    registrant_name = forms.CharField(
        label="Contact person",
        max_length=interchange.MAX_LINE,
        required=False,
        help_text=SECTIONS_BY_KEY["registrant"].guidance,
    )
    registrant_organisation = forms.CharField(label="Organisation", max_length=interchange.MAX_LINE, required=False)
    registrant_email = forms.CharField(label="E-mail", max_length=interchange.MAX_LINE, required=False)
    registrant_address = forms.CharField(
        label="Postal address",
        max_length=interchange.MAX_LINE * 4,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    registrant_public_contact = forms.CharField(
        label="Public contact",
        max_length=interchange.MAX_LINE,
        required=False,
        help_text="Published on the SNID's page, in the API and in the exports. A role address that "
        "outlives any one person (urn-registry@example.org) or a web page is best.",
    )
    registrant_published = forms.MultipleChoiceField(
        label="Also publish",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[
            ("name", "Contact person"),
            ("organisation", "Organisation"),
            ("email", "E-mail"),
            ("address", "Postal address"),
        ],
        help_text="What is public once approved: the SNID, title, every template section, the "
        "registering document, the public contact and the details ticked here. Details "
        "not ticked are seen only by GFD editors.",
    )
    grammar_abnf = forms.CharField(
        label="Formal syntax (ABNF, RFC 5234)",
        required=False,
        max_length=interchange.MAX_TEXT,
        help_text='The grammar may describe the whole URN (starting with "urn:ogf:") or only the '
        'string after urn:ogf:<snid>:. Quoted strings are case-insensitive; use %s"…" '
        "for case-sensitive ones.",
        widget=forms.Textarea(attrs={**_MONO, "rows": 12}),
    )
    grammar_rule = forms.CharField(
        label="Top rule",
        required=False,
        max_length=interchange.MAX_LINE,
        help_text="Default: the first rule.",
        widget=forms.TextInput(attrs=_MONO),
    )
    max_length = forms.IntegerField(
        label="Maximum URN length (characters)",
        required=False,
        min_value=1,
        max_value=4096,
        help_text="Needed when the grammar does not bound it.",
    )
    equivalence = forms.MultipleChoiceField(
        label="Executable equivalence rule",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[(step, f"{step}: {words}") for step, words in EQUIVALENCE_STEPS.items()],
        help_text="urn:ogf: and the SNID are always case-insensitive (RFC 6453).",
    )
    resolvers = forms.CharField(
        label="Resolvers",
        required=False,
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={**_MONO, "rows": 3}),
        help_text="One resolver per line: " + resolution_lines.LINE_FORMAT + ". Example: "
        "Provider | https://data.example.org/{nss} — https only (http with a warning), the "
        "host written out, {nss} or a rule of the grammar as {RuleName}.",
    )
    examples_valid = forms.CharField(
        label="Valid example URNs",
        required=False,
        max_length=interchange.MAX_EXAMPLES_CHARS + interchange.MAX_EXAMPLES * 2,
        widget=forms.Textarea(attrs={**_MONO, "rows": 4}),
        help_text="One URN per line.",
    )
    examples_invalid = forms.CharField(
        label="Invalid example URNs",
        required=False,
        max_length=interchange.MAX_EXAMPLES_CHARS + interchange.MAX_EXAMPLES * 2,
        widget=forms.Textarea(attrs={**_MONO, "rows": 4}),
        help_text="One URN per line; say in section 6 why each is invalid.",
    )
    examples_equivalent = forms.CharField(
        label="Equivalent URNs",
        required=False,
        widget=forms.Textarea(attrs={**_MONO, "rows": 3}),
        max_length=interchange.MAX_EXAMPLES_CHARS + interchange.MAX_EQUIVALENT_GROUPS * interchange.MAX_GROUP_URNS,
        help_text="One group per line: URNs that must be equivalent, separated by spaces.",
    )

    unplaced = forms.CharField(
        label=UNPLACED_LABEL,
        required=False,
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="Text of the imported document that fits no template section. Move what belongs to a "
        "section into it and delete the rest: the proposal cannot be submitted while text is left here.",
    )

    #: The structured fields shown under each template section, after its prose.
    SECTION_FIELDS = {
        "snid": ["snid", "title"],
        "version": ["version", "document_reference", "document_url", "document_status", "document_type"],
        "registrant": [
            "registrant_name",
            "registrant_organisation",
            "registrant_email",
            "registrant_address",
            "registrant_public_contact",
            "registrant_published",
        ],
        "syntactic_structure": ["grammar_abnf", "grammar_rule", "max_length"],
        "lexical_equivalence": ["equivalence", "examples_equivalent"],
        "resolution": ["resolvers"],
        "examples": ["examples_valid", "examples_invalid"],
    }

    #: Findings name what they concern by these keys (``item.section``); the editor page
    #: puts an anchor ``#section-<key>`` around the field, beside the template sections' own.
    FIELD_ANCHORS = {
        "document_reference": "document",
        "grammar_abnf": "grammar",
        "max_length": "max_length",
        "examples_equivalent": "examples_equivalent",
        "unplaced": "unplaced",
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for section in SECTIONS:
            if section.kind == "prose":
                self.fields[f"section_{section.key}"] = _prose_field(section)
        self.cleaned_proposal: interchange.ProposalData | None = None
        self.oversize: dict[str, int] = {}
        if self.is_bound:
            self._cut_oversize()

    def _cut_oversize(self) -> None:
        """Keep what the page shows back bounded: a field posted past its limit is cut to it.

        The form still fails on it (``clean`` names the field, its length and the limit), so
        nothing cut is ever saved; the page echoes at most each field's limit, never the
        megabytes that were sent.
        """
        data = None
        for name, field in self.fields.items():
            limit = getattr(field, "max_length", None)
            value = self.data.get(self.add_prefix(name))
            if limit and isinstance(value, str) and len(value) > limit:
                if data is None:
                    data = self.data.copy()
                data[self.add_prefix(name)] = value[:limit]
                self.oversize[name] = len(value)
        if data is not None:
            self.data = data

    def fields_for(self, section) -> list:
        names = ([f"section_{section.key}"] if section.kind == "prose" else []) + self.SECTION_FIELDS.get(
            section.key, []
        )
        return [self[name] for name in names]

    @staticmethod
    def initial_from(data: interchange.ProposalData) -> dict:
        initial = {
            "snid": data.snid,
            "title": data.title,
            "version": data.version,
            "document_reference": data.document.reference,
            "document_url": data.document.url,
            "document_status": data.document.status,
            "document_type": data.document.type,
            "registrant_name": data.registrant.name,
            "registrant_organisation": data.registrant.organisation,
            "registrant_email": data.registrant.email,
            "registrant_address": data.registrant.address,
            "registrant_public_contact": data.registrant.public_contact,
            "registrant_published": list(data.registrant.published),
            "grammar_abnf": data.grammar.abnf,
            "grammar_rule": data.grammar.rule,
            "max_length": data.max_length,
            "equivalence": list(data.equivalence),
            "unplaced": data.unplaced,
            "examples_valid": "\n".join(data.examples.valid),
            "examples_invalid": "\n".join(data.examples.invalid),
            "examples_equivalent": "\n".join(" ".join(group) for group in data.examples.equivalent),
            "resolvers": resolution_lines.resolvers_to_lines(data.resolvers),
        }
        initial.update({f"section_{key}": text for key, text in data.sections.items()})
        return initial

    def clean_snid(self):
        return _snid_checked(self.cleaned_data.get("snid"))

    def clean(self):
        # Validate the rest even when a field failed on its own, so every problem shows at once.
        cleaned = super().clean()
        for name, length in self.oversize.items():
            limit = self.fields[name].max_length
            self.add_error(
                name,
                f"This field was {length:,} characters long; the limit is {limit:,}. Only the "
                f"first {limit:,} are shown here: shorten it and save again.",
            )
        total = sum(len(value) for value in cleaned.values() if isinstance(value, str))
        if total > interchange.MAX_PROPOSAL_CHARS:
            self.add_error(
                None,
                f"The proposal is {total:,} characters in all; the limit for one proposal "
                f"is {interchange.MAX_PROPOSAL_CHARS:,}. Shorten the longest sections or "
                "examples.",
            )
            return cleaned
        raw = {
            "snid": cleaned.get("snid", ""),
            "title": cleaned.get("title", ""),
            "version": cleaned.get("version") or 1,
            "registrant": {
                **{
                    k: cleaned.get(f"registrant_{k}", "")
                    for k in ("name", "organisation", "email", "address", "public_contact")
                },
                "published": list(cleaned.get("registrant_published") or []),
            },
            "document": {k: cleaned.get(f"document_{k}", "") for k in ("reference", "url", "status", "type")},
            "sections": {s.key: cleaned.get(f"section_{s.key}", "") for s in SECTIONS if s.kind == "prose"},
            "grammar": {"abnf": cleaned.get("grammar_abnf", ""), "rule": cleaned.get("grammar_rule", "")},
            "examples": {
                "valid": _lines(cleaned.get("examples_valid")),
                "invalid": _lines(cleaned.get("examples_invalid")),
                "equivalent": [line.replace(" = ", " ").split() for line in _lines(cleaned.get("examples_equivalent"))],
            },
            "equivalence": list(cleaned.get("equivalence") or []),
            "max_length": cleaned.get("max_length"),
            "resolvers": resolution_lines.resolvers_from_lines(cleaned.get("resolvers", "")),
            "unplaced": cleaned.get("unplaced", ""),
        }
        try:
            proposal = interchange.load(raw)
        except interchange.InterchangeError as exc:
            for error in exc.errors:
                key, _, message = error.partition(": ")
                field = _field_for(key)
                if field == "resolvers" and "[" in key:
                    number = int(key.split("[", 1)[1].split("]", 1)[0]) + 1
                    message = f"Line {number} ({key.rsplit('.', 1)[-1] if '.' in key else 'resolver'}): {message}"
                if field not in self.errors:
                    self.add_error(field if field in self.fields else None, message or error)
            return cleaned
        if not self.errors:
            self.cleaned_proposal = proposal
        return cleaned

    def posted_proposal(self) -> interchange.ProposalData:
        """Exactly what was posted, as proposal data, even when the form is invalid.

        The automated review must be about what is on screen: a field that failed
        validation contributes what was typed (cut to its size limit, NUL characters
        removed), never the saved value. Call after ``is_valid()``.
        """
        if self.cleaned_proposal is not None:
            return self.cleaned_proposal

        def text(name: str, limit: int = interchange.MAX_LINE) -> str:
            value = self.cleaned_data.get(name) if name in self.cleaned_data else self.data.get(name, "")
            return str(value or "").replace("\x00", "")[:limit]

        def number(name: str) -> int | None:
            if name in self.cleaned_data:
                return self.cleaned_data[name]
            raw = text(name, 12).strip()
            return int(raw) if re.fullmatch(r"-?[0-9]{1,9}", raw) else None

        def choice(name: str, values) -> str:
            value = text(name)
            return value if value in values else ""

        def lines(name: str) -> list[str]:
            return [line[: interchange.MAX_EXAMPLE_LENGTH] for line in _lines(text(name, interchange.MAX_TEXT))][
                : interchange.MAX_EXAMPLES
            ]

        steps = self.data.getlist("equivalence") if hasattr(self.data, "getlist") else []
        version, max_length = number("version"), number("max_length")
        return interchange.ProposalData(
            snid=text("snid", 64).strip(),
            title=text("title").strip(),
            version=version if version is not None else 0,
            registrant=interchange.Registrant(
                *(
                    text(f"registrant_{k}", interchange.MAX_LINE * 4)
                    for k in ("name", "organisation", "email", "address")
                )
            ),
            document=interchange.Document(
                text("document_reference"),
                text("document_url"),
                choice("document_status", DocumentStatus.values),
                choice("document_type", DocumentType.values),
            ),
            sections={
                s.key: text(f"section_{s.key}", interchange.MAX_TEXT)
                for s in SECTIONS
                if s.kind == "prose" and text(f"section_{s.key}", interchange.MAX_TEXT).strip()
            },
            grammar=interchange.Grammar(text("grammar_abnf", interchange.MAX_TEXT), text("grammar_rule").strip()),
            examples=interchange.Examples(
                lines("examples_valid"),
                lines("examples_invalid"),
                [line.replace(" = ", " ").split() for line in lines("examples_equivalent")],
            ),
            equivalence=[step for step in EQUIVALENCE_STEPS if step in steps],
            max_length=max_length if max_length and 1 <= max_length <= 4096 else None,
            resolvers=resolution_lines.resolvers_from_lines(text("resolvers", interchange.MAX_TEXT)),
            unplaced=text("unplaced", interchange.MAX_TEXT) if text("unplaced", interchange.MAX_TEXT).strip() else "",
        )

    def error_list(self) -> list[dict]:
        """Field errors for the findings panel: label, the field's anchor, messages."""
        out = []
        for name, errors in self.errors.items():
            field = self.fields.get(name)
            out.append(
                {
                    "name": name,
                    "label": field.label if field else "The form",
                    "anchor": f"id_{name}" if field else "proposal-form",
                    "messages": list(errors),
                }
            )
        return out


def _field_for(key: str) -> str:
    """Interchange key path (``sections.scope``, ``examples.valid[2]``) -> form field name."""
    key = re.sub(r"\[\d+\]", "", key)
    if key.startswith("resolvers"):
        return "resolvers"
    if key.startswith("sections."):
        return "section_" + key.split(".", 1)[1]
    return key.replace(".", "_")


class NewProposalForm(forms.Form):
    START_CHOICES = [
        ("blank", "A new SNID, starting from an empty template"),
        (
            "example",
            "A new SNID, starting from the GFD.191 worked example (urn:ogf:example:), moved to the SNID you give",
        ),
        ("version", "A new version of an SNID registered to me"),
    ]
    start = forms.ChoiceField(choices=START_CHOICES, widget=forms.RadioSelect, initial="blank")
    snid = forms.CharField(
        label="SNID",
        max_length=32,
        required=False,
        help_text="For a new SNID; you can change it while writing.",
        widget=forms.TextInput(attrs=_MONO),
    )
    namespace = forms.ChoiceField(label="SNID to revise", required=False)

    def __init__(self, *args, own_snids=(), submitter=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.submitter = submitter
        if not own_snids:  # nothing to revise: no third choice, no empty list to choose from
            self.fields["start"].choices = [c for c in self.START_CHOICES if c[0] != "version"]
            del self.fields["namespace"]
            return
        self.fields["namespace"].choices = [("", "—")] + [(s, s) for s in own_snids]

    def clean_snid(self):
        return _snid_checked(self.cleaned_data.get("snid"))

    def clean(self):
        cleaned = super().clean()
        start = cleaned.get("start")
        snid = (cleaned.get("snid") or "").strip()
        if start in ("blank", "example") and "snid" not in self.errors:  # one error per mistake
            if not snid:
                self.add_error("snid", "Give the SNID you want to register.")
            elif problem := snid_error(snid) or self._refusal(snid):
                self.add_error("snid", problem)
        if start == "version":
            if not cleaned.get("namespace"):
                self.add_error("namespace", "Choose which of your SNIDs to revise.")
            elif problem := self._refusal(cleaned["namespace"]):
                self.add_error("namespace", problem)
        return cleaned

    def _refusal(self, snid: str) -> str | None:
        """A deprecated SNID, or one registered or reserved for someone else, never gets a draft:
        the form says so, naming the SNID (a draft could never be approved anyway)."""
        return snid_refusal(snid, getattr(self.submitter, "pk", None))


class CommentForm(forms.Form):
    section = forms.ChoiceField(required=False, choices=[("", "General")] + [(s.key, s.heading) for s in SECTIONS])
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=20_000)


class ReservationRequestForm(forms.Form):
    reason = forms.CharField(
        required=False,
        max_length=2_000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why you need the name reserved before approval.",
    )


class ImportDocumentForm(forms.Form):
    """A registration document, pasted or uploaded; the file's bytes are checked, not only its name."""

    text = forms.CharField(
        label="Paste the document",
        required=False,
        widget=forms.Textarea(attrs={**_MONO, "rows": 14}),
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
    snid = forms.CharField(label=f"{place_name('snid')} (SNID)", max_length=64, widget=forms.TextInput(attrs=_MONO))
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
        widget=forms.Textarea(attrs={**_MONO, "rows": 10}),
    )
    rule = forms.CharField(label="Top rule", required=False, max_length=200, widget=forms.TextInput(attrs=_MONO))
    examples_valid = forms.CharField(
        label=f"{place_name('examples_valid')} (one per line)",
        required=False,
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={**_MONO, "rows": 5}),
    )
    examples_invalid = forms.CharField(
        label=f"{place_name('examples_invalid')} (one per line)",
        required=False,
        max_length=interchange.MAX_TEXT,
        widget=forms.Textarea(attrs={**_MONO, "rows": 3}),
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
        widget=forms.Textarea(attrs={**_MONO, "rows": 2}),
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
                "valid": _lines(cleaned.get("examples_valid", "")),
                "invalid": _lines(cleaned.get("examples_invalid", "")),
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
