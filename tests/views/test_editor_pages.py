"""What an editor meets on the review page: round 2 first, judgements in the history and final once decided,
confirmation pages that say what they confirm."""

import re

import pytest
from django.utils import timezone
from django.utils.html import escape

from registry import services
from registry.checklist import CHECK_TITLES

from ..factories import proposal_factory, user_factory


@pytest.fixture
def people(db):
    return {"applicant": user_factory("ann"), "editor": user_factory("eve", editor=True)}


def _round_two(people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    services.proposal_transition(proposal, "request_changes", people["editor"], comment="See 4.1.")
    data = proposal.to_data()
    data.sections["scope"] += "\n\nThe WG chair assigns the index."
    services.proposal_update(proposal, data, people["applicant"])
    return services.proposal_transition(proposal, "submit", people["applicant"])


@pytest.mark.django_db
def test_review_round_two_leads_with_the_changes_since_round_one(client, people):
    proposal = _round_two(people)
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    assert page.index('id="round-changes"') < page.index('id="workbench"') < page.index('id="section-snid"')


@pytest.mark.django_db
def test_review_diff_lines_are_blocks_with_no_blank_line_between(client, people):
    proposal = _round_two(people)
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    changes = page[page.index('id="round-changes"') :]
    diff = changes[changes.index('<pre class="diff">') : changes.index("</pre>")]
    assert "<ins>+ The WG chair assigns the index.</ins>" in diff
    assert "</ins>\n" not in diff and "</span>\n" not in diff


@pytest.mark.django_db
def test_review_history_gives_each_judgement_its_own_sentence(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    services.judgement_set(proposal, people["editor"], "scope", ok=True)
    services.judgement_set(proposal, people["editor"], "subdelegation", ok=False, note="Unclear.")
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    history = page[page.index('id="history"') :]
    assert "Editor eve judged “Within the OGF&#x27;s scope”: satisfied." in history
    assert "Editor eve judged “Sub-delegation”: not satisfied. “Unclear.”" in history
    assert "changed the proposal" not in history


@pytest.mark.django_db
def test_review_of_a_decided_proposal_shows_the_judgements_read_only(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    services.judgement_set(proposal, people["editor"], "scope", ok=True, note="Clear.")
    client.force_login(people["editor"])
    assert f'action="/review/{proposal.pk}/judgement/"' in client.get(f"/review/{proposal.pk}/").content.decode()
    services.proposal_transition(proposal, "approve", people["editor"], override_reason="Demo.")
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    assert f'action="/review/{proposal.pk}/judgement/"' not in page and 'name="verdict-scope"' not in page
    assert "Approved: the judgements are final." in page
    assert (
        '<li data-check="scope"><strong>Within the OGF&#x27;s scope</strong>: satisfied (eve,' in page
        and "“Clear.”" in page
    )


def _panel_and_findings(page: str) -> tuple[str, str]:
    findings = page[page.index('<section class="checklist"') : page.index('id="finding-threads-title"')]
    return page[page.index('<aside class="side decision-panel"') : page.index("</aside>")], findings


def _judge_all(proposal, editor, ok=True):
    services.judgements_set(
        proposal, editor, {c: (ok, "") for c in ("scope", "snid-durable", "subdelegation", "immutability")}
    )


@pytest.mark.django_db
@pytest.mark.parametrize("decided", [False, True])
def test_judged_questions_are_shown_as_judged_before_and_after_the_decision(client, people, decided):
    """All four judged satisfied (then approved): no finding still says it needs the editor's judgement;
    each says who judged it and when, on the editor's page and on the applicant's."""
    proposal = proposal_factory(people["applicant"], state="submitted")
    _judge_all(proposal, people["editor"])
    if decided:
        services.proposal_transition(proposal, "approve", people["editor"], override_reason="Demo.")
    today = timezone.localdate().isoformat()
    for who, path in (("editor", f"/review/{proposal.pk}/"), ("applicant", f"/proposals/{proposal.pk}/")):
        client.force_login(people[who])
        panel, findings = (
            _panel_and_findings(client.get(path).content.decode())
            if who == "editor"
            else ("", client.get(path).content.decode())
        )
        if who == "applicant":
            findings = findings[findings.index('<section class="checklist"') :]
            findings = findings[: findings.index("</section>")]
        for check_id in ("scope", "snid-durable", "subdelegation", "immutability"):
            item = findings[findings.index(f'data-check="{check_id}"') :]
            item = item[: item.index("</li>")]
            assert f"Judged satisfied by eve on {today}." in item, (who, check_id)
        assert "Needs the editor" not in findings and "needs the editor" not in findings, who
        assert (
            re.findall(
                r'<li class="finding (\w+)" data-check="(?:scope|snid-durable|subdelegation|immutability)"', findings
            )
            == ["pass"] * 4
        )
        if who == "editor" and not decided:
            assert "All 4 judgements are recorded." in panel and "not yet recorded" not in panel


@pytest.mark.django_db
def test_a_decided_proposal_keeps_its_snapshot_and_its_recheck_apart_from_the_judgements(client, people):
    """The decision's findings are shown judged; the re-check compares the checklist's own answers, so
    the judgements never appear as something that changed since the decision."""
    proposal = proposal_factory(people["applicant"], state="submitted")
    _judge_all(proposal, people["editor"], ok=False)
    services.proposal_transition(proposal, "approve", people["editor"], override_reason="Demo.")
    client.force_login(people["editor"])
    page = client.get(f"/review/{proposal.pk}/?recheck=1").content.decode()
    assert "Judged not satisfied by eve on" in page
    recheck = page[page.index('id="recheck"') :]
    assert "Nothing changed since the decision." in recheck and "Judged" not in recheck


@pytest.mark.django_db
def test_the_panel_counts_the_judgements_recorded(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    panel, _ = _panel_and_findings(client.get(f"/review/{proposal.pk}/").content.decode())
    assert "None of the 4 judgements is recorded yet." in panel
    services.judgement_set(proposal, people["editor"], "scope", ok=True)
    panel, _ = _panel_and_findings(client.get(f"/review/{proposal.pk}/").content.decode())
    assert "1 of the 4 judgements recorded; 3 still open." in panel


@pytest.mark.django_db
def test_a_new_version_is_called_so_before_and_after_its_approval(client, people):
    from ..factories import data_factory

    first = proposal_factory(people["applicant"], state="approved", editor=people["editor"])
    second = services.proposal_create(data_factory(version=2), people["applicant"])
    second = services.proposal_transition(second, "submit", people["applicant"])
    client.force_login(people["editor"])
    assert "New version 2 of a registered SNID" in client.get(f"/review/{second.pk}/").content.decode()
    services.proposal_transition(second, "approve", people["editor"], override_reason="Demo.")
    page = client.get(f"/review/{second.pk}/").content.decode()
    assert "New version 2 of a registered SNID" in page and "New SNID" not in page
    assert "New SNID" in client.get(f"/review/{first.pk}/").content.decode()


@pytest.mark.django_db
def test_confirm_decision_is_titled_for_what_it_confirms(client, people):
    proposal = proposal_factory(people["applicant"], state="submitted")
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "reject", "comment": "No."}).content.decode()
    assert "<title>Confirm: reject urn:ogf:example: — urn:ogf registry</title>" in page
    assert '<h1 id="confirm-title">Confirm: reject <code>urn:ogf:example:</code></h1>' in page
    approve = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}).content.decode()
    for title in ("Within the OGF&#x27;s scope", "SNID durable", "Sub-delegation", "Identifier immutability"):
        assert f"{title}: not judged" in approve


@pytest.mark.django_db
def test_confirm_approval_with_failing_checks_lists_them_and_asks_for_a_written_reason(client, people):
    proposal = proposal_factory(people["applicant"], name="urn-5", state="submitted")
    failing = [f for f in proposal.findings if f["status"] == "fail"]
    assert failing
    client.force_login(people["editor"])
    page = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"}).content.decode()
    listed = page[page.index('<ul class="failing-checks">') :]
    listed = listed[: listed.index("</ul>")]
    for finding in failing:
        title = escape(CHECK_TITLES[finding["id"]])
        assert f'<li data-check="{finding["id"]}" data-kind="fail">{title}: fails' in listed
    assert re.search(r'<textarea id="confirm-override" name="override_reason" rows="[5-9]"[^>]*required>', page)


@pytest.mark.django_db
def test_confirm_approval_with_a_reason_typed_in_the_panel_still_lists_what_it_overrides(client, people):
    proposal = proposal_factory(people["applicant"], name="urn-5", state="submitted")
    failing = [f for f in proposal.findings if f["status"] == "fail"]
    client.force_login(people["editor"])
    page = client.post(
        f"/review/{proposal.pk}/decide/", {"action": "approve", "override_reason": "As published in RFC."}
    ).content.decode()
    listed = page[page.index('<ul class="failing-checks">') :]
    assert all(
        f'<li data-check="{finding["id"]}" data-kind="fail">' in listed[: listed.index("</ul>")] for finding in failing
    )
    assert re.search(r'<textarea id="confirm-override"[^>]*>As published in RFC\.</textarea>', page)
    assert page.count('name="override_reason"') == 1
