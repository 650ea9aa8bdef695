from django import template

from .. import rules
from ..markdown import render_markdown

register = template.Library()


@register.filter
def markdown(text):
    return render_markdown(text)


@register.filter
def section_text(proposal, key):
    return (proposal.sections or {}).get(key, "")


@register.filter
def is_editor(user):
    return rules.is_editor(user)


@register.filter
def fields_for(form, section):
    return form.fields_for(section)


@register.filter
def get_item(mapping, key):
    return mapping.get(key, []) if mapping else []
