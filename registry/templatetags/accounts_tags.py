"""Template filters about people's names: a warning beside a name that mixes scripts (``аlice``)."""

from django import template

from ..stewardship import selectors

register = template.Library()


@register.filter
def script_warning(user):
    """ " [warning: the name mixes the scripts Cyrillic, Latin]", or "" (registry.accounts.lookalike)."""
    return selectors.script_warning(user) if user is not None else ""
