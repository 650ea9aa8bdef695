"""The stored counts of open proposals follow the registry (registry/services/findings.py): when
another editor approves, reserves or releases an SNID, or deprecates it, the queue's counts for every
other open proposal of that SNID are those its review page gives, without anyone opening it."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.core import mail
from django.utils import timezone

from registry import services
from registry.checklist import REGISTRY_CHECKS
from registry.models import Proposal
from registry.services.findings import findings_follow
from registry.stewardship import services as stewardship
from registry.verdicts import review_summary

from .confirming import reservation_act
from .factories import approve, judge_all, proposal_factory, user_factory


def _failing(page: str, pk: int) -> int:
    """The queue row's failing count for proposal ``pk``."""
    row = re.search(rf'href="/review/{pk}/".*?</tr>', page, re.S)
    assert row, f"no queue row for proposal {pk}"
    return int(re.search(r'count fail">(\d+) failing', row.group(0)).group(1))


def _page_failing(client, pk: int) -> int:
    return int(re.search(r'count fail">(\d+) failing', client.get(f"/review/{pk}/").content.decode()).group(1))


@pytest.fixture
def rivals(db):
    """Two applicants who both proposed urn:ogf:example:, and an editor."""
    ann, bob, eve = user_factory("ann"), user_factory("bob"), user_factory("eve", editor=True)
    return {
        "first": proposal_factory(ann, state="submitted"),
        "second": proposal_factory(bob, state="submitted"),
        "editor": eve,
    }


@pytest.mark.django_db
def test_approving_an_snid_recounts_the_other_open_proposals_of_it_on_the_queue(
    client, rivals, django_capture_on_commit_callbacks
):
    second, editor = rivals["second"], rivals["editor"]
    client.force_login(editor)
    assert _failing(client.get("/review/").content.decode(), second.pk) == 0
    judge_all(rivals["first"], editor)
    with django_capture_on_commit_callbacks(execute=True):
        approve(rivals["first"], editor)
    queue = client.get("/review/").content.decode()
    assert _failing(queue, second.pk) == 1 == _page_failing(client, second.pk)
    stored = Proposal.objects.get(pk=second.pk)
    assert any(f["id"] == "snid-unique" and f["status"] == "fail" for f in stored.findings)
    assert stored.findings_summary == review_summary(stored.findings, {})


@pytest.mark.django_db
def test_reserving_and_releasing_an_snid_recount_its_open_proposals(client, rivals, django_capture_on_commit_callbacks):
    second, editor = rivals["second"], rivals["editor"]
    client.force_login(editor)
    until = (timezone.localdate() + dt.timedelta(days=30)).isoformat()
    with django_capture_on_commit_callbacks(execute=True):
        done = reservation_act(client, action="reserve", snid="example", until=until, reason="For the WG.")
    assert done.status_code == 302
    assert _failing(client.get("/review/").content.decode(), second.pk) == 1 == _page_failing(client, second.pk)
    with django_capture_on_commit_callbacks(execute=True):
        reservation_act(client, action="release", snid="example", note="Not needed.")
    assert _failing(client.get("/review/").content.decode(), second.pk) == 0 == _page_failing(client, second.pk)


@pytest.mark.django_db
def test_a_deprecation_recounts_the_open_new_versions_of_the_snid(db, django_capture_on_commit_callbacks):
    steward, editor, deciding = user_factory("stella"), user_factory("ed", editor=True), user_factory("di", editor=True)
    approved = proposal_factory(steward, state="approved", editor=editor)
    draft = proposal_factory(steward, state="submitted", version=2)
    before = Proposal.objects.get(pk=draft.pk).findings_summary["fail"]
    with django_capture_on_commit_callbacks(execute=True):
        stewardship.snid_deprecate(approved.namespace, deciding, reason="Superseded.")
    after = Proposal.objects.get(pk=draft.pk)
    assert after.findings_summary["fail"] == before + 1
    assert any("deprecated" in f["message"] for f in after.findings if f["id"] == "snid-unique")


@pytest.mark.django_db
def test_findings_follow_leaves_decided_proposals_and_unchanged_ones_alone(rivals):
    judge_all(rivals["first"], rivals["editor"])
    approve(rivals["first"], rivals["editor"])
    approved = Proposal.objects.get(pk=rivals["first"].pk)
    assert findings_follow(["EXAMPLE"]) == 1  # the rival's counts changed; compared case-insensitively
    assert findings_follow(["example"]) == 0  # nothing moved since
    assert Proposal.objects.get(pk=approved.pk).findings == approved.findings  # decided: as approved


@pytest.mark.django_db
def test_only_the_checks_that_read_the_registry_run_again(rivals):
    """The rest of a proposal's findings depend on its text alone: kept as stored, never recomputed (so
    following the registry costs no grammar, however hostile the proposals naming the SNID)."""
    second = rivals["second"]
    stored = Proposal.objects.get(pk=second.pk).findings
    marked = [{**f, "message": "As stored."} if f["id"] == "grammar-parses" else f for f in stored]
    Proposal.objects.filter(pk=second.pk).update(findings=marked)
    until = timezone.localdate() + dt.timedelta(days=9)
    services.namespace_reserve("example", rivals["editor"], until=until, reason="For the WG.")
    assert findings_follow(["example"]) == 2  # both rivals: it is reserved for neither
    after = Proposal.objects.get(pk=second.pk).findings
    assert [f["id"] for f in after] == [f["id"] for f in stored]  # each finding in its place
    assert next(f for f in after if f["id"] == "grammar-parses")["message"] == "As stored."
    unique = next(f for f in after if f["id"] == "snid-unique")
    assert unique["status"] == "fail" and "reserved" in unique["message"]
    assert set(REGISTRY_CHECKS) == {"snid-unique", "version"}


@pytest.mark.django_db
def test_a_renewed_reservation_tells_its_rivals_the_new_date_and_that_the_counts_stand(
    rivals, django_capture_on_commit_callbacks
):
    """A renewal changes what a failing finding says (its date), not whether it fails: the mail says
    the finding still fails and what it says now, and that the counts are unchanged."""
    today = timezone.localdate()
    with django_capture_on_commit_callbacks(execute=True):
        services.namespace_reserve("example", rivals["editor"], until=today + dt.timedelta(days=9), reason="WG.")
    mail.outbox.clear()
    later = today + dt.timedelta(days=30)
    with django_capture_on_commit_callbacks(execute=True):
        services.namespace_renew("example", rivals["editor"], until=later)
    for proposal in (rivals["first"], rivals["second"]):
        (message,) = [m for m in mail.outbox if m.to == [proposal.submitter.email]]
        line = next(line for line in message.body.splitlines() if line.startswith("- SNID free to register"))
        assert line.startswith("- SNID free to register, still failing, now says: ") and later.isoformat() in line
        assert "The review's counts are unchanged: 1 failing," in message.body and "they were" not in message.body


@pytest.mark.django_db
def test_the_rival_applicant_is_told_once_why_the_review_changed(rivals, django_capture_on_commit_callbacks):
    second, editor = rivals["second"], rivals["editor"]
    judge_all(rivals["first"], editor)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        approve(rivals["first"], editor)
    told = [m for m in mail.outbox if m.to == [second.submitter.email]]
    assert len(told) == 1, [(m.to, m.subject) for m in mail.outbox]
    (message,) = told
    assert message.subject == "[urn:ogf] The review of your proposal for urn:ogf:example: changed"
    assert "- SNID free to register: " in message.body and "urn:ogf:example:" in message.body
    assert "The review's counts: 1 failing," in message.body and "(they were: 0 failing," in message.body
    assert f"/proposals/{second.pk}/" in message.body
    assert not [m for m in mail.outbox if m.to == [rivals["first"].submitter.email] and "changed" in m.subject]
    mail.outbox.clear()
    findings_follow(["example"])  # nothing moved since: nobody is told again
    assert mail.outbox == []
