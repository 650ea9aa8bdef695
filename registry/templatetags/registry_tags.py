from django import template

from .. import rules
from ..enums import FindingStatus, ProposalAction
from ..enums import event_sentence as _sentence
from ..gfd191 import SECTIONS_BY_KEY
from ..markdown import render_markdown
from ..places import finding_place as _finding_place

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


@register.filter
def event_sentence(event, named=True):
    """A History entry as a sentence ("Editor erin requested changes."), from the transition table.

    ``named=False`` leaves out who acted, for readers who may not see the review
    (``rules.can_see_review``).
    """
    if not named:
        return _sentence(event.kind, event.action, event.from_state, "", named=False, data=event.data)
    return _sentence(event.kind, event.action, event.from_state, event.actor.get_username() if event.actor else "",
                     data=event.data)


@register.filter
def action_label(action):
    """The label of a workflow action value ("request_changes" -> "Request changes")."""
    return ProposalAction(action).label if action in ProposalAction.values else action


@register.filter
def section_heading(key):
    """ "4.1 Scope" for a template section key; "the whole proposal" for none."""
    section = SECTIONS_BY_KEY.get(key or "")
    return section.heading if section else "the whole proposal"


@register.filter
def finding_place(item):
    """Where a finding's ``item`` points, as a link's words and anchor (places.finding_place)."""
    return _finding_place(item)


@register.filter
def finding_status(status):
    """A finding status in words ("not_run" -> "Not run")."""
    return FindingStatus(status).label if status in FindingStatus.values else status


@register.filter
def thread_messages(messages, thread):
    """The flash messages about one thread: shown in it, where the page lands after the action."""
    tag = f"thread-{thread.pk}"
    return [m for m in messages if tag in (m.extra_tags or "").split()] if messages else []


@register.simple_tag(takes_context=True)
def page_messages(context):
    """The flash messages shown at the top: all, but those about a thread when the page shows threads."""
    messages = context.get("messages")
    if not messages:
        return []
    if not context.get("threads"):
        return list(messages)
    return [m for m in messages if not any(t.startswith("thread-") for t in (m.extra_tags or "").split())]


@register.filter
def equivalence_steps(proposal):
    """(step, words) of the executable equivalence rule the applicant chose, for registry/_choices.html."""
    from ..grammar import EQUIVALENCE_STEPS
    return [(step, EQUIVALENCE_STEPS.get(step, step)) for step in (proposal.equivalence or [])]
