"""Starting a proposal, commenting on one, asking for a reservation."""

from __future__ import annotations

from django import forms

from ..gfd191 import SECTIONS
from ..grammar import snid_error
from ..selectors import snid_refusal
from .common import MONO
from .proposal import snid_checked


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
        widget=forms.TextInput(attrs=MONO),
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
        return snid_checked(self.cleaned_data.get("snid"))

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
