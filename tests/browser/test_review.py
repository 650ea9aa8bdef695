"""Two full review rounds in Chromium, as the editor and the applicant would play them.

Round 1: the editor comments on section 2.4 and requests changes; the applicant
finds the decision first and the thread beside 2.4 on the edit page, replies,
fixes the section and submits again. Round 2: the editor sees what changed and
the reply, resolves the thread, records the judgements and approves; the SNID
is then in the public registry.
"""

import pytest
from django.contrib.auth import get_user_model

from registry import services
from registry.models import Comment, Proposal

from ..factories import data_factory, user_factory
from .conftest import login

REMARK = "Say whether the index in 2.4 is compared case-sensitively."
REQUEST = "Please settle the case rule for the index (see the thread on 2.4)."
REPLY = "Indexes are digits only, so case never matters; now said in 2.4."
FIX = "Indexes are digits only, so the case of the index never matters."


@pytest.mark.django_db(transaction=True)
def test_two_rounds_of_review_as_a_conversation(new_page, screenshot):
    applicant = get_user_model().objects.create_user("carl", "carl@example.org", "carl-long-pass-phrase")
    user_factory("erin", editor=True, password="erin-long-pass-phrase")
    proposal = services.proposal_create(data_factory(title="Historic supercomputers"), applicant)
    services.proposal_transition(proposal, "submit", applicant)

    # Round 1, the editor: a thread on 2.4, then "request changes", confirmed.
    editor_page = new_page()
    login(editor_page, "erin", "erin-long-pass-phrase")
    editor_page.goto("/review/")
    screenshot(editor_page, "review-queue")
    editor_page.get_by_role("link", name="urn:ogf:example:").click()
    screenshot(editor_page, "review-proposal")
    section = editor_page.locator("#section-lexical_equivalence")
    section.locator("summary", has_text="Comment on 2.4 Rules for Lexical Equivalence").click()
    section.get_by_label("Your comment on 2.4 Rules for Lexical Equivalence").fill(REMARK)
    section.get_by_role("button", name="Start thread").click()
    editor_page.get_by_text("Comment added").wait_for()
    assert editor_page.locator("#section-lexical_equivalence .thread").get_by_text(REMARK).is_visible()
    editor_page.get_by_label("Message to the applicant").fill(REQUEST)
    editor_page.get_by_role("button", name="Request changes…").click()
    editor_page.get_by_text("carl, the applicant, gets an e-mail").wait_for()
    editor_page.get_by_role("button", name="Yes, request changes").click()
    editor_page.get_by_text("Changes requested; carl has been told").wait_for()

    # The applicant: the decision first, the thread beside 2.4; reply, fix, resubmit.
    applicant_page = new_page()
    login(applicant_page, "carl", "carl-long-pass-phrase")
    applicant_page.goto(f"/proposals/{proposal.pk}/edit/")
    banner = applicant_page.locator("#decision")
    banner.get_by_text("Editor erin requested changes.").wait_for()
    assert banner.get_by_text(REQUEST).is_visible()
    screenshot(applicant_page, "review-banner")
    banner.get_by_role("link", name="2.4 Rules for Lexical Equivalence").click()
    thread = applicant_page.locator("#section-lexical_equivalence .thread").first
    assert thread.get_by_text(REMARK).is_visible()
    thread.get_by_label("Reply to this thread").fill(REPLY)
    thread.get_by_role("button", name="Reply").click()
    applicant_page.get_by_text("Reply added").wait_for()
    thread = applicant_page.locator("#section-lexical_equivalence .thread").first
    assert thread.get_by_text(REPLY).is_visible()
    applicant_page.locator("#section-lexical_equivalence").evaluate("node => node.scrollIntoView()")
    screenshot(applicant_page, "review-thread")
    field = applicant_page.get_by_label("2.4 Rules for Lexical Equivalence", exact=True)
    field.fill(field.input_value() + "\n\n" + FIX)
    applicant_page.get_by_role("button", name="Save and submit for review").click()
    applicant_page.get_by_text("Submitted for review.").wait_for()
    assert applicant_page.locator("#decision").count() == 0

    # Round 2, the editor: the changes since round 1 and the reply; resolve, judge, approve.
    editor_page.goto(f"/review/{proposal.pk}/")
    changes = editor_page.locator("#round-changes")
    changes.get_by_text("Changes since round 1").wait_for()
    assert changes.locator("ins", has_text=FIX).is_visible()
    assert changes.get_by_text("The applicant answered 1 thread since then").is_visible()
    changes.evaluate("node => node.scrollIntoView()")
    screenshot(editor_page, "review-round-diff")
    thread = editor_page.locator("#section-lexical_equivalence .thread").first
    assert thread.get_by_text(REPLY).is_visible()
    thread.get_by_role("button", name="Mark resolved").click()
    editor_page.get_by_text("Thread marked resolved").wait_for()
    panel = editor_page.locator(".decision-panel")
    for check_id in ("scope", "snid-durable", "subdelegation", "immutability"):
        panel.locator(f'input[name="verdict-{check_id}"][value="ok"]').check()
    panel.get_by_role("button", name="Record judgements").click()
    editor_page.get_by_text("4 judgements recorded: none is left to judge.").wait_for()
    editor_page.get_by_role("button", name="Approve and register…").click()
    editor_page.get_by_role("button", name="Yes, approve").click()
    editor_page.get_by_text("Approved: urn:ogf:example: is registered and published").wait_for()

    assert Proposal.objects.get(pk=proposal.pk).state == "approved"
    root = Comment.objects.get(parent=None)
    assert root.resolved_by.username == "erin" and root.replies.get().text == REPLY
    editor_page.goto("/urn/")
    editor_page.get_by_role("link", name="urn:ogf:example:").click()
    editor_page.get_by_text(FIX).wait_for()
    screenshot(editor_page, "registry-snid", full_page=False)
    editor_page.goto("/urn/")
    screenshot(editor_page, "registry-list")
