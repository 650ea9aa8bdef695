from django import template

from .. import rules
from ..checklist import CHECK_TITLES
from ..enums import FindingStatus, ProposalAction
from ..enums import event_sentence as _sentence
from ..gfd191 import SECTIONS_BY_KEY
from ..markdown import render_markdown
from ..places import finding_place as _finding_place
from ..stewardship.selectors import account_name
from ..verdicts import count_parts, counts_sentence

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
    actor = account_name(event.actor) if named and event.actor else ""
    return _sentence(
        event.kind, event.action, event.from_state, actor, named=named, data=event.data, titles=CHECK_TITLES
    )


register.filter("account_name", account_name)


@register.filter
def counts(summary):
    """The review's counts as one sentence (mails, histories): verdicts.counts_sentence."""
    return counts_sentence(summary)


@register.inclusion_tag("registry/_counts.html")
def counts_badges(summary):
    """The review's counts as badges (queue, My proposals, review page), in the same words."""
    return {"parts": count_parts(summary) if summary else []}


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
def check_title(check_id):
    """What people call a check ("Grammar parses"); its id only for an id no check has."""
    return CHECK_TITLES.get(check_id, check_id)


@register.filter
def subheading(sections) -> str:
    """The heading element for the parts of a template section (its grammar, its examples): ``h4``
    under the section's own ``h3``; ``h3`` where the part's ``h2`` names its only section (as
    "6 Examples" does), so no level is skipped."""
    return "h4" if len(sections) > 1 else "h3"


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
    return messages_at(messages, f"thread-{thread.pk}")


@register.filter
def messages_at(messages, place):
    """The flash messages tagged with ``place`` (an anchor of the page): shown there, where the page lands."""
    return [m for m in messages if place in (m.extra_tags or "").split()] if messages else []


def _shown_in_place(tag: str, context) -> bool:
    """Whether the page shows messages tagged ``tag`` at their place rather than at the top."""
    if tag.startswith("thread-"):
        return bool(context.get("threads"))  # a page with threads shows each thread's messages in it
    return tag == "judgements" and "manual" in context  # the review page's judgements


@register.simple_tag(takes_context=True)
def page_messages(context):
    """The flash messages shown at the top: all but those the page shows where it lands (a thread, the judgements)."""
    messages = context.get("messages")
    if not messages:
        return []
    return [m for m in messages if not any(_shown_in_place(t, context) for t in (m.extra_tags or "").split())]


@register.filter
def equivalence_steps(proposal):
    """(step, words) of the executable equivalence rule the applicant chose, for registry/_choices.html."""
    from ..grammar import EQUIVALENCE_STEPS

    return [(step, EQUIVALENCE_STEPS.get(step, step)) for step in (proposal.equivalence or [])]
