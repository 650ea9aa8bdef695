"""A decided proposal shows the verdict it was decided on, the same on every page and in the API."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.utils import timezone

from registry import demo, services
from registry.models import Proposal
from registry.verdicts import (
    decision_snapshot,
    judged,
    judgements_of,
    proposal_verdict,
    recheck,
    review_summary,
    sentence,
)

from .factories import data_factory, proposal_factory, user_factory

FIXTURE_NAMES = ["example", "fdc", "img", "newsml", "urn-5"]


def _checklist_statuses(page: str) -> Counter:
    """Statuses of the findings listed in a page's "Automated review" (the re-check excluded)."""
    start = page.index('<section class="checklist"')
    end = page.find('<section class="recheck"', start)
    end = page.index("</section>", start) if end == -1 else end
    return Counter(re.findall(r'<li class="finding ([a-z_]+)"', page[start:end]))


def _nonzero(summary: dict) -> Counter:
    return Counter({status: n for status, n in summary.items() if n})


def _approved_everywhere(client, proposal, editor, applicant):
    """(review page, applicant's page, queue row, API) statuses of ``proposal``."""
    client.force_login(editor)
    review = _checklist_statuses(client.get(f"/review/{proposal.pk}/").content.decode())
    queue = client.get("/review/?state=approved").content.decode()
    api = client.get(f"/api/proposals/{proposal.pk}/").json()
    client.force_login(applicant)
    mine = _checklist_statuses(client.get(f"/proposals/{proposal.pk}/").content.decode())
    return review, mine, queue, api


@pytest.mark.django_db
def test_review_page_of_an_approved_demo_proposal_shows_no_phantom_version_failure(client):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    client.force_login(accounts["editor"][0])
    for proposal in Proposal.objects.filter(state="approved"):
        page = client.get(f"/review/{proposal.pk}/").content.decode()
        assert "The version should be 2" not in page
        assert "The findings this proposal was approved on" in page


@pytest.mark.django_db
def test_every_approved_demo_and_seed_proposal_reports_its_decision_snapshot_everywhere(client):
    """For every approved proposal (the demo's and each seed approved in turn), the review page,
    the applicant's page, the queue and the API agree with the decision snapshot."""
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    editor = user_factory(editor=True)
    for name in FIXTURE_NAMES:
        proposal_factory(user_factory(), name=name, snid=f"seed-{name}", state="approved", editor=editor)
    approved = list(Proposal.objects.filter(state="approved").select_related("submitter"))
    assert len(approved) == 2 + len(FIXTURE_NAMES)
    for proposal in approved:
        snapshot = decision_snapshot(proposal)
        # Every page counts the findings as judged (verdicts.review_summary): the four judgements were
        # recorded before the approval.
        expected = Counter(f.status for f in judged(snapshot.findings, judgements_of(proposal)))
        assert expected == _nonzero(review_summary(snapshot.findings, judgements_of(proposal)))
        review, mine, queue, api = _approved_everywhere(client, proposal, editor, proposal.submitter)
        assert review == expected, proposal.snid
        assert mine == expected, proposal.snid
        assert _nonzero(proposal.findings_summary) == expected, proposal.snid
        assert [(f["id"], f["status"], f["message"]) for f in api["findings"]] == [
            (f.id, f.status, f.message) for f in snapshot.findings
        ]
        assert _nonzero(api["findings_summary"]) == expected
        # The queue row shows the same counts.
        row = queue[queue.index(f'href="/review/{proposal.pk}/"') :]
        row = row[: row.index("</tr>")]
        assert f"{expected.get('fail', 0)} failing" in row, proposal.snid
        assert f"{expected.get('editor', 0)} for the editor" in row, proposal.snid


@pytest.mark.django_db
def test_every_decision_event_keeps_the_findings_it_was_made_on(applicant, editor):
    for state in ("approved", "rejected", "changes_requested"):
        proposal = proposal_factory(applicant, snid=f"kept-{state.replace('_', '-')}", state=state, editor=editor)
        event = proposal.events.order_by("-id").first()
        counted = review_summary(event.data["findings"], judgements_of(proposal))
        assert event.data["findings"] and event.data["summary"] == counted


@pytest.mark.django_db
def test_live_recheck_is_separate_and_says_what_changed_since_the_decision(client, applicant, editor):
    first = proposal_factory(applicant, state="approved", editor=editor)
    verdict = proposal_verdict(first)
    assert verdict.decided and [f.status for f in verdict.findings if f.id == "version"] == ["pass"]
    # A newer version is registered afterwards: today's checklist judges version 1 differently.
    second = services.proposal_create(data_factory(version=2), applicant)
    services.proposal_transition(second, "submit", applicant)
    services.proposal_transition(Proposal.objects.get(pk=second.pk), "approve", editor, override_reason="t")
    first = Proposal.objects.get(pk=first.pk)
    assert proposal_verdict(first).findings == verdict.findings  # the decision record never changes
    again = recheck(first, verdict, timezone.now())
    assert any(f.id == "version" and f.status == "fail" for f in again.new)
    assert any(f.id == "version" and f.status == "pass" for f in again.gone)
    client.force_login(editor)
    page = client.get(f"/review/{first.pk}/").content.decode()
    assert "The version should be 3" not in page and "Re-check now against today" in page
    rechecked = client.get(f"/review/{first.pk}/?recheck=1").content.decode()
    section = rechecked[rechecked.index('id="recheck"') :]
    assert "Found now, not at the decision" in section and "The version should be 3" in section
    assert _checklist_statuses(rechecked) == _checklist_statuses(page)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("note", "sentence_end"),
    [("Not the OGF's to name.", ": Not the OGF's to name."), ("Is it?", ": Is it?"), ("Grid", ": Grid."), ("", ".")],
)
def test_judged_finding_ends_its_sentence_once_whatever_the_note_ends_with(applicant, editor, note, sentence_end):
    proposal = proposal_factory(applicant, state="submitted")
    services.judgement_set(proposal, editor, "scope", ok=False, note=note)
    (scope,) = [f for f in judged(proposal_verdict(proposal).findings, judgements_of(proposal)) if f.id == "scope"]
    today = timezone.localdate().isoformat()
    assert scope.message.endswith(f" Judged not satisfied by {editor.get_username()} on {today}{sentence_end}")


@pytest.mark.parametrize(
    "text, closed",
    [("Fine", "Fine."), ("Fine.", "Fine."), ("Why?", "Why?"), ("As “agreed.”", "As “agreed.”"), ("Ok  ", "Ok.")],
)
def test_a_sentence_gets_a_full_stop_only_when_it_has_none(text, closed):
    assert sentence(text) == closed
