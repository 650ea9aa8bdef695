"""Template filters about people's names: a warning beside a name that mixes scripts (``аlice``)."""

from django import template

from ..stewardship import selectors

register = template.Library()


@register.filter
def script_warning(name):
    """ " [warning: the name mixes the scripts Cyrillic, Latin]", or "" (registry.accounts.lookalike).

    Given an account, its user name and public name are examined; given a name (a list that loads only
    the user names), that name alone."""
    if name is None:
        return ""
    return selectors.script_warning(name) if not isinstance(name, str) else selectors.names_warning(name)
