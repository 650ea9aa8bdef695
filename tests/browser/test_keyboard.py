"""Keyboard only: an applicant submits and an editor reviews and approves without a pointer.

Every step is Tab (or Shift+Tab) to a control, then typing, Enter or Space; no
click. On the way it checks where an editor lands after logging in and that in
round 2 the changes since round 1 come before everything else on the review page.
"""

from __future__ import annotations

import pytest

from registry import services
from registry.models import Proposal

from ..factories import data_factory, user_factory

FOCUSED = """() => {
  const e = document.activeElement;
  if (!e) return '';
  const label = e.labels && e.labels.length ? e.labels[0].innerText : '';
  return [e.tagName, e.getAttribute('name') || '', e.id || '',
          (e.innerText || '').trim().replace(/\\s+/g, ' ').slice(0, 80), label.trim()].join('|');
}"""


def tab_to(page, wanted: str, *, limit: int = 400) -> str:
    """Press Tab until the focused element's tag|name|id|text|label contains ``wanted``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if wanted in focused:
            return focused
    raise AssertionError(f"Tab never reached {wanted!r}")


def keyboard_login(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    tab_to(page, "|Username")
    page.keyboard.type(username)
    tab_to(page, "|Password")
    page.keyboard.type(password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


@pytest.mark.django_db(transaction=True)
def test_keyboard_only_submit_and_review(new_page):
    applicant = user_factory("kim", password="kim-long-pass-phrase")
    user_factory("erin", editor=True, password="erin-long-pass-phrase")
    proposal = services.proposal_create(data_factory(title="Typed, never clicked"), applicant)

    page = new_page()
    keyboard_login(page, "kim", "kim-long-pass-phrase")
    assert page.url.endswith("/proposals/")
    tab_to(page, "|urn:ogf:example:")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/proposals/{proposal.pk}/")
    tab_to(page, "Submit for review")
    page.keyboard.press("Enter")
    page.get_by_text("Submitted for review").first.wait_for()
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"

    editor = new_page()
    keyboard_login(editor, "erin", "erin-long-pass-phrase")
    assert editor.url.endswith("/review/")  # an editor lands on the queue
    tab_to(editor, "|urn:ogf:example:")
    editor.keyboard.press("Enter")
    editor.wait_for_url(f"**/review/{proposal.pk}/")
    for check in ("scope", "snid-durable", "subdelegation", "immutability"):
        tab_to(editor, f"INPUT|verdict-{check}|")  # the radio group: arrows move within it
        editor.keyboard.press("ArrowDown")  # "Not judged yet" -> "Satisfied"
    tab_to(editor, "Record judgements")
    editor.keyboard.press("Enter")
    editor.get_by_text("Judgements recorded").first.wait_for()
    tab_to(editor, "Approve and register")
    editor.keyboard.press("Enter")
    editor.get_by_role("heading", name="Confirm: approve urn:ogf:example:").wait_for()
    tab_to(editor, "Yes, approve")
    editor.keyboard.press("Enter")
    editor.get_by_text("is registered and published").wait_for()
    assert Proposal.objects.get(pk=proposal.pk).state == "approved"


@pytest.mark.django_db(transaction=True)
def test_round_two_review_opens_with_the_changes(new_page):
    applicant = user_factory("kim", password="kim-long-pass-phrase")
    editor = user_factory("erin", editor=True, password="erin-long-pass-phrase")
    proposal = services.proposal_create(data_factory(snid="second", title="Round two"), applicant)
    services.proposal_transition(proposal, "submit", applicant)
    services.proposal_transition(proposal, "request_changes", editor, comment="Who assigns the index?")
    data = proposal.to_data()
    data.sections["scope"] += "\n\nThe WG chair assigns the index."
    services.proposal_update(proposal, data, applicant)
    services.proposal_transition(proposal, "submit", applicant)

    page = new_page()
    keyboard_login(page, "erin", "erin-long-pass-phrase")
    page.goto(f"/review/{proposal.pk}/")
    changes = page.locator("#round-changes").bounding_box()
    checks = page.locator("#workbench").bounding_box()
    assert changes["y"] < checks["y"] and changes["y"] < 900  # in the first screen, before every check
    assert "+ The WG chair assigns the index." in page.locator("#round-changes ins").all_inner_texts()
