"""The proposal form, built from the GFD.191 template data.

One field per section, in template order, with its guidance; it validates by turning its input into
the interchange format, so the browser and JSON imports obey one set of rules and messages.
"""

from __future__ import annotations

import re

from django import forms
from django.utils.html import format_html

from .. import interchange
from ..enums import DocumentStatus, DocumentType
from ..gfd191 import SECTIONS, SECTIONS_BY_KEY, UNPLACED_LABEL
from ..grammar import EQUIVALENCE_STEPS, snid_error
from ..resolving import lines as resolution_lines
from .common import MONO


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


def lines_of(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def snid_checked(value: str) -> str:
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
        widget=forms.TextInput(attrs={**MONO, "pattern": "[A-Za-z0-9][A-Za-z0-9-]{0,31}"}),
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
        widget=forms.Textarea(attrs={**MONO, "rows": 12}),
    )
    grammar_rule = forms.CharField(
        label="Top rule",
        required=False,
        max_length=interchange.MAX_LINE,
        help_text="Default: the first rule.",
        widget=forms.TextInput(attrs=MONO),
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
        widget=forms.Textarea(attrs={**MONO, "rows": 3}),
        help_text="One resolver per line: " + resolution_lines.LINE_FORMAT + ". Example: "
        "Provider | https://data.example.org/{nss} — https only (http with a warning), the "
        "host written out, {nss} or a rule of the grammar as {RuleName}.",
    )
    examples_valid = forms.CharField(
        label="Valid example URNs",
        required=False,
        max_length=interchange.MAX_EXAMPLES_CHARS + interchange.MAX_EXAMPLES * 2,
        widget=forms.Textarea(attrs={**MONO, "rows": 4}),
        help_text="One URN per line.",
    )
    examples_invalid = forms.CharField(
        label="Invalid example URNs",
        required=False,
        max_length=interchange.MAX_EXAMPLES_CHARS + interchange.MAX_EXAMPLES * 2,
        widget=forms.Textarea(attrs={**MONO, "rows": 4}),
        help_text="One URN per line; say in section 6 why each is invalid.",
    )
    examples_equivalent = forms.CharField(
        label="Equivalent URNs",
        required=False,
        widget=forms.Textarea(attrs={**MONO, "rows": 3}),
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
        return snid_checked(self.cleaned_data.get("snid"))

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
                "valid": lines_of(cleaned.get("examples_valid")),
                "invalid": lines_of(cleaned.get("examples_invalid")),
                "equivalent": [
                    line.replace(" = ", " ").split() for line in lines_of(cleaned.get("examples_equivalent"))
                ],
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
            return [line[: interchange.MAX_EXAMPLE_LENGTH] for line in lines_of(text(name, interchange.MAX_TEXT))][
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
