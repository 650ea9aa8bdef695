"""Forms of an SNID's life after approval. Forms validate; ``stewardship.services`` writes.

Each administrative change kind has its form here (``stewardship.changes`` maps kinds to
them); none has a field for the syntax, the equivalence rules, the examples or the meaning,
which only a new version changes.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from .. import interchange
from ..accounts.names import user_by_name

REASON_MAX = 2000


class ContactChangeForm(forms.Form):
    registrant_public_contact = forms.CharField(
        label="New public contact", max_length=interchange.MAX_LINE,
        help_text="Shown on the SNID's page, in the API and the exports. A role address or a web page outlives "
                  "any one person.")


class RegistrantChangeForm(forms.Form):
    registrant_name = forms.CharField(label="Contact person", max_length=interchange.MAX_LINE, required=False)
    registrant_organisation = forms.CharField(label="Organisation", max_length=interchange.MAX_LINE,
                                              required=False)
    registrant_email = forms.CharField(label="E-mail", max_length=interchange.MAX_LINE, required=False)
    registrant_address = forms.CharField(label="Postal address", max_length=interchange.MAX_LINE * 4,
                                         required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def clean(self):
        data = super().clean()
        if not any((data.get(name) or "").strip() for name in self.fields):
            raise forms.ValidationError("Give at least one of the registrant's details.")
        return data


class ResolversChangeForm(forms.Form):
    resolvers = forms.CharField(
        label="Resolvers", max_length=interchange.MAX_LINE * 20, widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One resolver URL template per line, as the resolution page describes.")


class ChangeRequestReasonForm(forms.Form):
    reason = forms.CharField(label="Why (shown to the editors)", max_length=REASON_MAX,
                             widget=forms.Textarea(attrs={"rows": 2}))


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("decline", "Decline")])
    note = forms.CharField(label="Note to the steward", max_length=REASON_MAX, required=False,
                           widget=forms.Textarea(attrs={"rows": 2}))


class StewardAddForm(forms.Form):
    username = forms.CharField(label="Account (user name)", max_length=150)
    reason = forms.CharField(label="Reason (recorded)", max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2}))

    def clean_username(self):
        name = self.cleaned_data["username"].strip()
        user = user_by_name(name, get_user_model().objects.filter(is_active=True))
        if user is None:
            raise forms.ValidationError(f"No active account is called {name!r}.")
        self.cleaned_data["user"] = user
        return name


class ReasonForm(forms.Form):
    reason = forms.CharField(label="Reason (recorded)", max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2}))


class DeprecateForm(forms.Form):
    reason = forms.CharField(label="Why the SNID is deprecated (public)", max_length=REASON_MAX,
                             widget=forms.Textarea(attrs={"rows": 3}))
    successor = forms.CharField(label="Successor SNID (optional)", max_length=32, required=False)


class OrcidDisplayForm(forms.Form):
    show_orcid = forms.BooleanField(label="Show my verified ORCID iD beside my name on the SNID's page",
                                    required=False)
