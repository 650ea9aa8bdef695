"""Template filters of an SNID's life after approval: how people are named, and the rules the pages ask.

``person`` is for pages only stewards and editors see (the chosen name with the user name);
``public_name`` is for everyone (the chosen name, never the login name). The ``may_…`` filters are
the predicates of ``registry.rules``, so a page offers a step exactly when the service would take it.
"""

from django import template

from .. import rules
from ..stewardship import selectors

register = template.Library()


@register.filter
def person(user):
    return selectors.person(user)


@register.filter
def public_name(user):
    return selectors.public_name(user)


@register.filter
def may_remove_steward(user, steward):
    return rules.can_remove_steward(user, steward)


@register.filter
def may_decide_change(user, request):
    return rules.can_decide_change(user, request)


@register.filter
def may_decide_invitation(user, steward):
    return rules.can_decide_invitation(user, steward)


@register.filter
def change_facts(request):
    """A change request's facts (``stewardship.facts.request_facts``): for its mails."""
    from ..stewardship.facts import request_facts

    return request_facts(request)


@register.filter
def resolver_line(resolver):
    """One resolver as the line format writes it (``name | URL template | returns | media types | primary``)."""
    from ..resolving.lines import resolvers_to_lines

    return resolvers_to_lines([resolver])
