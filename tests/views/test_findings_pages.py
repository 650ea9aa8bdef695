"""How pages tell the automated review: one error per mistake, progress for drafts."""

from __future__ import annotations

import csv
import io

import pytest

from registry.models import Proposal

from ..factories import data_factory, user_factory


@pytest.mark.django_db
def test_start_page_gives_one_error_for_a_malformed_snid(client):
    client.force_login(user_factory())
    page = client.post("/proposals/new/", {"start": "blank", "snid": "Alice_Grid"}).content.decode()
    assert "Give the SNID you want to register." not in page
    errors = page[page.index('id="id_snid_errors"'):]
    errors = errors[:errors.index("</ul>")]
    assert errors.count("<li>") == 1 and "Character 6 of the SNID, &#x27;_&#x27;, is not allowed" in errors


@pytest.mark.django_db
def test_blank_draft_shows_progress_not_red_failures(client):
    client.force_login(user_factory())
    response = client.post("/proposals/new/", {"start": "blank", "snid": "alicegrid"})
    proposal = Proposal.objects.get(snid="alicegrid")
    assert response.status_code == 302
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    assert "2 of 17 sections written." in page
    assert "Fail (" not in page
    assert proposal.findings_summary["fail"] == 0


def _form_data(proposal, **changes):
    from registry.forms import ProposalForm
    initial = ProposalForm.initial_from(proposal.to_data())
    data = {key: value for key, value in initial.items() if value is not None and key != "equivalence"}
    data["equivalence"] = initial["equivalence"]
    data.update(changes)
    return data


def _panel(client, proposal, **changes) -> str:
    return client.post(f"/proposals/{proposal.pk}/check/", _form_data(proposal, **changes)).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(("refused", "changed", "expect_shown", "not_shown"), [
    # The SNID fixed while the Version field holds 0: the new SNID's result, version not checked.
    ({"version": "0"}, {"snid": "example"}, "Not checked: fix the Registration version field first.",
     "The SNID must start with a letter or digit"),
    # The version fixed while the SNID is refused: the SNID's error once, nothing about the old version.
    ({"snid": "-example"}, {"version": "1"}, "Not checked: fix the SNID field first.",
     "The version should be"),
    # The maximum length refused while the grammar changed: the grammar is checked, max length is not.
    ({"max_length": "0"}, {"grammar_abnf": 'urn = "urn:ogf:example:" 1*5DIGIT\n', "grammar_rule": ""},
     "Not checked: fix the Maximum URN length (characters) field first.", "length bound 255"),
    # The document's address refused while the registrant changed: the registrant is checked.
    ({"document_url": "ftp://example.org/gfd"}, {"registrant_name": "", "registrant_organisation": ""},
     "Not checked: fix the Document URL field first.", "documented in GFD.191"),
])
def test_panel_checks_what_is_on_screen_when_another_field_is_refused(client, refused, changed, expect_shown,
                                                                      not_shown):
    from ..factories import proposal_factory
    owner = user_factory()
    proposal = proposal_factory(owner)
    client.force_login(owner)
    _panel(client, proposal, snid="-example")  # an earlier check with an error, now out of date
    panel = _panel(client, proposal, **refused, **changed)
    assert expect_shown in panel, re.findall(r"<code>max-length</code>[^<]*", panel)
    assert not_shown not in panel


@pytest.mark.django_db
def test_what_the_applicant_chose_is_shown_on_every_page_of_the_proposal(client):
    from ..factories import proposal_factory
    owner, editor = user_factory(), user_factory(editor=True)
    proposal = proposal_factory(owner, state="approved", editor=editor, equivalence=["case-insensitive"],
                                max_length=255, document={"reference": "GFD.191", "status": "published",
                                                          "type": "Informational"})
    pages = []
    client.force_login(owner)
    pages.append(client.get(f"/proposals/{proposal.pk}/").content.decode())
    client.force_login(editor)
    pages.append(client.get(f"/review/{proposal.pk}/").content.decode())
    client.logout()
    pages.append(client.get(f"/urn/{proposal.snid}/").content.decode())
    exported = client.get("/urn/registry.json").json()
    (record,) = [r for r in exported["snids"] if r["snid"] == proposal.snid]
    assert (record["equivalence"], record["max_length"], record["document"]["type"]) == (
        ["case-insensitive"], 255, "Informational")
    csv_text = client.get("/urn/registry.csv").content.decode()
    row = next(r for r in csv.DictReader(io.StringIO(csv_text)) if r["snid"] == proposal.snid)
    assert (row["document_type"], row["equivalence"], row["max_length"]) == ("Informational", "case-insensitive",
                                                                             "255")
    document = client.get(f"/proposals/{proposal.pk}/export.md").content.decode()
    assert "Executable rule: case-insensitive." in document and "MUST NOT exceed 255 characters" in document
    for page in pages:
        choices = page[page.index('id="choices"'):]
        choices = choices[:choices.index("</dl>")]
        assert "<code>case-insensitive</code>" in choices
        assert "255 characters" in choices and "Informational" in choices


UNPLACED_DOCUMENT = "Preface that fits nowhere.\n\nScope:\n   Grid clusters.\n\nAcknowledgments\n\nThanks to all.\n"


@pytest.mark.django_db
def test_imported_leftovers_are_their_own_part_a_warning_and_block_submission(client):
    from registry import services
    user = user_factory()
    client.force_login(user)
    review = client.post("/proposals/import/", {"text": UNPLACED_DOCUMENT})
    form = review.context["form"]
    assert "Thanks to all." in form["unplaced"].value()
    fields = {name: ("" if form[name].value() is None else form[name].value()) for name in form.fields}
    fields.update(snid="leftovers", confirmed="on")
    client.post("/proposals/import/create/", fields)
    proposal = Proposal.objects.get(submitter=user)
    assert "Thanks to all." in proposal.unplaced_text
    assert "Thanks to all." not in proposal.sections.get("changes", "")
    (warning,) = [f for f in proposal.findings if f["id"] == "unplaced-text"]
    assert warning["status"] == "warning" and "(source lines 1, 6–8)" in warning["message"]
    edit = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    part = edit[edit.index('id="section-unplaced"'):]
    assert "Unplaced text from the imported document" in part[:300] and "Thanks to all." in part
    detail = client.get(f"/proposals/{proposal.pk}/").content.decode()
    assert 'id="section-unplaced"' in detail
    data = proposal.to_data()
    data.sections = {**data_factory().sections, **data.sections}  # every required section written
    data.grammar = data_factory().grammar
    proposal = services.proposal_update(proposal, data, user)
    with pytest.raises(services.ServiceError, match="Cannot submit yet: “Unplaced text from the imported"):
        services.proposal_transition(proposal, "submit", user)
    data.unplaced = ""  # moved or deleted: now it can go
    proposal = services.proposal_update(proposal, data, user)
    assert services.proposal_transition(proposal, "submit", user).state == "submitted"


@pytest.mark.django_db
def test_go_to_the_place_without_javascript_lands_on_a_marked_line(client):
    from ..factories import proposal_factory
    from ..test_checklist import ALICEGRID_EXAMPLES, ALICEGRID_MISSING_PAREN
    owner = user_factory()
    proposal = proposal_factory(owner, snid="alicegrid", grammar={"abnf": ALICEGRID_MISSING_PAREN, "rule": ""},
                                examples=ALICEGRID_EXAMPLES)
    client.force_login(owner)
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    assert 'href="#grammar-line-2" data-field="id_grammar_abnf" data-line="2" data-column="37"' in page
    marked = page[page.index('id="grammar-line-2"'):]
    assert 'class="marked"' in page[page.index('id="grammar-line-2"') - 60:page.index('id="grammar-line-2"') + 40]
    assert "Line 2, column 37: <code>SITE = ALPHA *31( ALPHA / DIGIT / &quot;-&quot;</code>" in marked[:300]
    textarea = page[page.index('name="grammar_abnf"') - 200:page.index('name="grammar_abnf"') + 200]
    assert 'aria-invalid="true"' in textarea


@pytest.mark.django_db
def test_go_to_an_example_on_the_review_page_lands_on_its_line(client):
    from ..factories import proposal_factory
    owner, editor = user_factory(), user_factory(editor=True)
    proposal = proposal_factory(owner, name="urn-5", state="submitted")
    client.force_login(editor)
    page = client.get(f"/review/{proposal.pk}/").content.decode()
    line = proposal.examples_valid.index("urn:ogf:urn-5:Od4rB2QNOLt1e5wITWSJ+9U2Ve+Zon6N3d:17") + 1
    assert f'href="#examples_valid-line-{line}"' in page
    assert f'id="examples_valid-line-{line}" class="marked"' in page


@pytest.mark.django_db
def test_queue_and_my_proposals_count_checks_not_run(client):
    from ..factories import proposal_factory
    from ..test_checklist import ALICEGRID_EXAMPLES, ALICEGRID_MISSING_PAREN
    owner, editor = user_factory(), user_factory(editor=True)
    proposal_factory(owner, snid="alicegrid", grammar={"abnf": ALICEGRID_MISSING_PAREN, "rule": ""},
                     examples=ALICEGRID_EXAMPLES, state="submitted")
    client.force_login(editor)
    assert "7 not run" in client.get("/review/").content.decode()
    client.force_login(owner)
    assert "7 not run" in client.get("/proposals/").content.decode()
