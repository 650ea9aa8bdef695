"""What the site's forms share: the monospace inputs and the first error's focus."""

from __future__ import annotations

MONO = {"class": "mono", "spellcheck": "false", "autocapitalize": "off", "autocomplete": "off"}


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
