"""The form renderer: Django's Jinja2 widget templates, and the Django-language ones where Django ships no Jinja2 copy.

Widgets are drawn with Jinja2 for speed (settings.FORM_RENDERER says why). Django ships Jinja2
copies of the form library's own widgets only; the admin's widgets (the related-object wrapper,
the raw-id input) and auth's password-hash summary exist only as Django templates, so under the
Jinja2 renderer alone every admin page using them was a 500. Those few are looked up with the
Django template language instead, from the same places Django's own renderer looks.
"""

from __future__ import annotations

from django.forms import renderers
from django.template import TemplateDoesNotExist
from django.utils.functional import cached_property


class Jinja2WithDjangoFallback(renderers.Jinja2):
    @cached_property
    def django_templates(self) -> renderers.DjangoTemplates:
        return renderers.DjangoTemplates()

    def get_template(self, template_name):
        try:
            return super().get_template(template_name)
        except TemplateDoesNotExist:
            return self.django_templates.get_template(template_name)
