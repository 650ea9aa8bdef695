"""Forms of an SNID's life after approval. Forms validate; ``stewardship.services`` writes.

Each change kind has its form here (``stewardship.changes`` maps kinds to them); none has a
field for the syntax, the equivalence rules, the examples or the meaning, which only a new
version changes. Every form on a page has its own prefix, so no two fields of one page share
an id (``id_reason`` once per page, never twice).
"""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from .. import interchange

REASON_MAX = 2000
#: The resolver line format, as ``registry.resolving.lines`` reads it, with an example stewards can copy.
RESOLVER_LINE = "name | URL template | returns | media types | primary"
RESOLVER_EXAMPLE = "catalogue | https://data.example.org/{nss} | metadata | application/json | primary"


class ContactChangeForm(forms.Form):
    registrant_public_contact = forms.CharField(
        label="New public contact",
        max_length=interchange.MAX_LINE,
        help_text="Shown on the SNID's page, in the API and the exports. A role address or a web page outlives "
        "any one person.",
    )


class RegistrantChangeForm(forms.Form):
    registrant_name = forms.CharField(label="Contact person", max_length=interchange.MAX_LINE, required=False)
    registrant_organisation = forms.CharField(label="Organisation", max_length=interchange.MAX_LINE, required=False)
    registrant_email = forms.CharField(label="E-mail", max_length=interchange.MAX_LINE, required=False)
    registrant_address = forms.CharField(
        label="Postal address",
        max_length=interchange.MAX_LINE * 4,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean(self):
        data = super().clean()
        if not any((data.get(name) or "").strip() for name in self.fields):
            raise forms.ValidationError("Give at least one of the registrant's details.")
        return data


class ResolversChangeForm(forms.Form):
    resolvers = forms.CharField(
        label="Resolvers (all of them, as they should stand)",
        max_length=interchange.MAX_LINE * 20,
        widget=forms.Textarea(attrs={"rows": 5, "class": "mono", "spellcheck": "false"}),
        help_text=f"One resolver a line: {RESOLVER_LINE}. Only the name and the URL template are needed; "
        "returns is landing (the default), metadata or data; media types are separated by commas; "
        "the word primary marks the one readers are sent to (otherwise the first line). The URL "
        "template fills {nss} (everything after the SNID) or {RuleName} (what a rule of the grammar "
        f"matched). For example: {RESOLVER_EXAMPLE}. The lines start as the resolvers stand now: "
        "what you leave out is removed.",
    )


class DeprecationRequestForm(forms.Form):
    successor = forms.CharField(
        label="Successor SNID (optional)",
        max_length=32,
        required=False,
        help_text="A registered SNID that new identifiers should use instead, without urn:ogf: (e.g. example2).",
    )


class ChangeRequestReasonForm(forms.Form):
    reason = forms.CharField(
        label="Why (shown to the editors)", max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2})
    )


class NoteForm(forms.Form):
    """An editor's note with a decision: sent to everyone told of it."""

    note = forms.CharField(
        label="Note to the stewards (in the mail; optional)",
        max_length=REASON_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class AccountForm(forms.Form):
    """Names an account by its user name (case-insensitively): whom to add or invite."""

    username = forms.CharField(label="Their user name", max_length=150)
    reason = forms.CharField(label="Why (recorded)", max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2}))

    def clean_username(self):
        name = self.cleaned_data["username"].strip()
        from ..accounts.names import user_by_name  # the name rules load when a name is looked up

        user = user_by_name(name, get_user_model().objects.filter(is_active=True))
        if user is None:
            raise forms.ValidationError(f"No active account is called {name!r}.")
        self.cleaned_data["user"] = user
        return name


class StewardAddForm(AccountForm):
    reason = forms.CharField(
        label="Reason (public, in the SNID's history)", max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2})
    )


class InviteForm(AccountForm):
    reason = forms.CharField(
        label="Why (shown to the editors)", max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2})
    )


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label="Reason (public, in the SNID's history)", max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 3})
    )


class DeprecateForm(forms.Form):
    reason = forms.CharField(
        label="Why the SNID is deprecated (public)", max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 3})
    )
    successor = forms.CharField(
        label="Successor SNID (optional)",
        max_length=32,
        required=False,
        help_text="A registered SNID that new identifiers should use instead.",
    )


class OrcidDisplayForm(forms.Form):
    show_orcid = forms.BooleanField(label="Show my verified ORCID iD beside my name on the SNID's page", required=False)


class PublicNameForm(forms.Form):
    public_name = forms.CharField(
        label="Your name on public pages",
        max_length=150,
        required=False,
        help_text="How the SNID's public page and the transparency log name you as a steward. Your user name is "
        "never shown in public; without a name here you are listed as a steward without a name.",
    )
