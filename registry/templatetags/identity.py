"""``{% identity_providers as providers %}``: the configured sign-in providers, for the log-in page."""

from django import template

from ..identity import identity_providers as configured

register = template.Library()


@register.simple_tag
def identity_providers():
    return configured()
