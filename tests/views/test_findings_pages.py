"""How pages tell the automated review: one error per mistake, progress for drafts."""

from __future__ import annotations

import csv
import io
import re

import pytest

from registry.models import Proposal

from ..factories import data_factory, user_factory


@pytest.mark.django_db
def test_start_page_gives_one_error_for_a_malformed_snid(client):
    client.force_login(user_factory())
    page = client.post("/proposals/new/", {"start": "blank", "snid": "Alice_Grid"}).content.decode()
    assert "Give the SNID you want to register." not in page
    errors = page[page.index('id="id_snid_errors"') :]
    errors = errors[: errors.index("</ul>")]
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
@pytest.mark.parametrize(
    ("refused", "changed", "expect_shown", "not_shown"),
    [
        # The SNID fixed while the Version field holds 0: the new SNID's result, version not checked.
        (
            {"version": "0"},
            {"snid": "example"},
            "Not checked: fix the Registration version field first.",
            "The SNID must start with a letter or digit",
        ),
        # The version fixed while the SNID is refused: the SNID's error once, nothing about the old version.
        ({"snid": "-example"}, {"version": "1"}, "Not checked: fix the SNID field first.", "The version should be"),
        # The maximum length refused while the grammar changed: the grammar is checked, max length is not.
        (
            {"max_length": "0"},
            {"grammar_abnf": 'urn = "urn:ogf:example:" 1*5DIGIT\n', "grammar_rule": ""},
            "Not checked: fix the Maximum URN length (characters) field first.",
            "length bound 255",
        ),
        # The document's address refused while the registrant changed: the registrant is checked.
        (
            {"document_url": "ftp://example.org/gfd"},
            {"registrant_name": "", "registrant_organisation": ""},
            "Not checked: fix the Document URL field first.",
            "documented in GFD.191",
        ),
    ],
)
def test_panel_checks_what_is_on_screen_when_another_field_is_refused(
    client, refused, changed, expect_shown, not_shown
):
    from ..factories import proposal_factory

    owner = user_factory()
    proposal = proposal_factory(owner)
    client.force_login(owner)
    _panel(client, proposal, snid="-example")  # an earlier check with an error, now out of date
    panel = _panel(client, proposal, **refused, **changed)
    assert expect_shown in panel, re.findall(r'data-check="max-length">[^<]*', panel)
    assert not_shown not in panel


@pytest.mark.django_db
def test_what_the_applicant_chose_is_shown_on_every_page_of_the_proposal(client):
    from ..factories import proposal_factory

    owner, editor = user_factory(), user_factory(editor=True)
    proposal = proposal_factory(
        owner,
        state="approved",
        editor=editor,
        equivalence=["case-insensitive"],
        max_length=255,
        document={"reference": "GFD.191", "status": "published", "type": "Informational"},
    )
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
        ["case-insensitive"],
        255,
        "Informational",
    )
    csv_text = client.get("/urn/registry.csv").content.decode()
    row = next(r for r in csv.DictReader(io.StringIO(csv_text)) if r["snid"] == proposal.snid)
    assert (row["document_type"], row["equivalence"], row["max_length"]) == ("Informational", "case-insensitive", "255")
    document = client.get(f"/proposals/{proposal.pk}/export.md").content.decode()
    assert "Executable rule: case-insensitive." in document and "MUST NOT exceed 255 characters" in document
    for page in pages:
        choices = page[page.index('id="choices"') :]
        choices = choices[: choices.index("</dl>")]
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
    part = edit[edit.index('id="section-unplaced"') :]
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
    proposal = proposal_factory(
        owner, snid="alicegrid", grammar={"abnf": ALICEGRID_MISSING_PAREN, "rule": ""}, examples=ALICEGRID_EXAMPLES
    )
    client.force_login(owner)
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    assert (
        'href="#grammar-line-2" data-field="id_grammar_abnf" data-line="2" data-column="37">'
        "2.1 Syntactic Structure: ABNF, line 2, column 37</a>"
    ) in page
    marked = page[page.index('id="grammar-line-2"') :]
    assert 'class="marked"' in page[page.index('id="grammar-line-2"') - 60 : page.index('id="grammar-line-2"') + 40]
    assert "Line 2, column 37: <code>SITE = ALPHA *31( ALPHA / DIGIT / &quot;-&quot;</code>" in marked[:300]
    textarea = page[page.index('name="grammar_abnf"') - 200 : page.index('name="grammar_abnf"') + 200]
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
def test_a_grammar_that_does_not_parse_gives_one_failure_and_one_line_of_checks_waiting(client):
    from ..factories import proposal_factory
    from ..test_checklist import ALICEGRID_EXAMPLES, ALICEGRID_MISSING_PAREN

    owner = user_factory()
    proposal = proposal_factory(
        owner, snid="alicegrid", grammar={"abnf": ALICEGRID_MISSING_PAREN, "rule": ""}, examples=ALICEGRID_EXAMPLES
    )
    client.force_login(owner)
    for path in (f"/proposals/{proposal.pk}/edit/", f"/proposals/{proposal.pk}/"):
        page = client.get(path).content.decode()
        assert page.count("the grammar must parse first") == 1, path
        assert "Not run (1)" in page and "7 checks wait for it: " in page, path


@pytest.mark.django_db
def test_queue_and_my_proposals_count_checks_not_run(client):
    from ..factories import proposal_factory
    from ..test_checklist import ALICEGRID_EXAMPLES, ALICEGRID_MISSING_PAREN

    owner, editor = user_factory(), user_factory(editor=True)
    proposal_factory(
        owner,
        snid="alicegrid",
        grammar={"abnf": ALICEGRID_MISSING_PAREN, "rule": ""},
        examples=ALICEGRID_EXAMPLES,
        state="submitted",
    )
    client.force_login(editor)
    assert "7 not run" in client.get("/review/").content.decode()
    client.force_login(owner)
    assert "7 not run" in client.get("/proposals/").content.decode()


# --- the panel speaks to people: no check ids, links that say where they go ---------------------


class _Panel:
    """What the "Automated review" panel of a page shows: its text as read (no attributes), its
    <code> texts, its links (words and target) and the check of each finding (``data-check``)."""

    def __init__(self, html: str):
        from html.parser import HTMLParser

        self.text, self.codes, self.links, self.checks = [], [], [], []
        panel = self
        depth, code, link = [0], [None], [None]

        class Reader(HTMLParser):
            def handle_starttag(self, tag, attrs):
                attrs = dict(attrs)
                if tag == "section" and (depth[0] or "checklist" in (attrs.get("class") or "").split()):
                    depth[0] += 1
                if not depth[0]:
                    return
                if tag == "code":
                    code[0] = []
                if tag == "a":
                    link[0] = (attrs, [])
                if tag == "li" and "finding" in (attrs.get("class") or "").split():
                    panel.checks += (attrs.get("data-check") or "").split()  # one line may name several

            def handle_endtag(self, tag):
                if not depth[0]:
                    return
                if tag == "code" and code[0] is not None:
                    panel.codes.append("".join(code[0]).strip())
                    code[0] = None
                if tag == "a" and link[0] is not None:
                    attrs, words = link[0]
                    panel.links.append(("".join(words).strip(), attrs))
                    link[0] = None
                if tag == "section":
                    depth[0] -= 1

            def handle_data(self, data):
                if depth[0]:
                    panel.text.append(data)
                    for open_ in (code[0], link[0] and link[0][1]):
                        if open_ is not None:
                            open_.append(data)

        Reader(convert_charrefs=True).feed(html)
        self.text = " ".join(" ".join(self.text).split())


#: A draft wrong in many places: the SNID, the document, the grammar (a line), the
#: examples (a line of each list), an equivalence group.
MANY_PLACES = {
    "snid": "x-places",
    "document": {"reference": "", "url": "", "status": ""},
    "grammar": {"abnf": 'urn = "urn:ogf:x-places:" 1*(DIGIT / "%" / HEXDIG / ALPHA)\nunused = DIGIT\n', "rule": "urn"},
    "max_length": 20,
    "examples": {
        "valid": ["urn:ogf:x-places:1", "urn:ogf:x-places:much-too-long-for-it!"],
        "invalid": ["urn:ogf:x-places:2"],
        "equivalent": [["urn:ogf:x-places:1", "urn:ogf:x-places:2"]],
    },
}


def _pages(client, kind: str) -> str:
    """The page ``kind`` shows the findings panel on, for a proposal wrong in many places."""
    from registry.models import Proposal as Stored

    from ..factories import proposal_factory

    owner, editor = user_factory(), user_factory(editor=True)
    if kind in ("edit", "detail"):
        proposal = proposal_factory(owner, **MANY_PLACES)
        client.force_login(owner)
        return client.get(f"/proposals/{proposal.pk}/{'edit/' if kind == 'edit' else ''}").content.decode()
    if kind == "review":
        proposal = proposal_factory(owner, state="submitted", **MANY_PLACES)
        client.force_login(editor)
        return client.get(f"/review/{proposal.pk}/").content.decode()
    # A decided proposal re-checked after a newer version was approved: the re-check's lists too.
    from registry import services

    first = proposal_factory(owner, state="approved", editor=editor)
    second = services.proposal_create(data_factory(version=2), owner)
    services.proposal_transition(second, "submit", owner)
    services.proposal_transition(Stored.objects.get(pk=second.pk), "approve", editor, override_reason="t")
    client.force_login(owner)
    return client.get(f"/proposals/{first.pk}/?recheck=1").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["edit", "detail", "review", "recheck"])
def test_findings_panel_shows_no_check_id_as_text(client, kind):
    from registry.checklist import CHECK_IDS

    html = _pages(client, kind)
    panel = _Panel(html)
    assert len(panel.checks) > 5 and set(panel.checks) <= set(CHECK_IDS)  # kept for machines, as data-check
    shown = [check_id for check_id in CHECK_IDS if "-" in check_id and check_id in panel.text]
    assert shown == [], panel.text
    assert [code for code in panel.codes if code in CHECK_IDS] == []
    if kind == "recheck":  # the re-check lists say each status in words, as no heading above them does
        recheck = html[html.index('id="recheck"') :]
        assert "<strong>Fail:</strong> The version should be 3" in recheck
        assert "<strong>Pass:</strong> Version 1 follows the registry" in recheck


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["edit", "detail", "review"])
def test_findings_panel_link_texts_are_distinct_per_target(client, kind):
    from registry.gfd191 import SECTIONS, UNPLACED_LABEL

    panel = _Panel(_pages(client, kind))
    targets: dict[str, set] = {}
    for words, attrs in panel.links:
        if attrs.get("href", "").startswith("?recheck"):
            continue
        targets.setdefault(words, set()).add((attrs["href"], attrs.get("data-line"), attrs.get("data-column")))
    assert {words: where for words, where in targets.items() if len(where) > 1} == {}
    assert not [words for words in targets if words.lower().startswith("go to")]
    headings = tuple(s.heading for s in SECTIONS) + (UNPLACED_LABEL,)
    assert [words for words in targets if not words.startswith(headings)] == []
    for expected in (
        "1.1 Namespace Identifier",
        "1.2 Document Version: registering document",
        "2.1 Syntactic Structure: ABNF",
        "6 Examples: valid examples, line 2",
        "2.4 Rules for Lexical Equivalence: equivalent URNs, group 1",
    ):
        assert expected in targets, (expected, sorted(targets))
    assert [w for w in targets if w.startswith("2.1 Syntactic Structure: ABNF, line 2")], sorted(targets)


@pytest.mark.django_db
def test_findings_panel_section_labels_come_from_the_template_data(client, monkeypatch):
    """The GFD.191 template is data: the panel's links read their words from it, they hold no copy."""
    import dataclasses

    from registry import gfd191

    renamed = dataclasses.replace(gfd191.SECTIONS_BY_KEY["scope"], title="Scope of the Namespace")
    monkeypatch.setitem(gfd191.SECTIONS_BY_KEY, "scope", renamed)
    panel = _Panel(_pages(client, "edit"))
    assert ("4.1 Scope of the Namespace", "#section-scope") in [(w, a["href"]) for w, a in panel.links]
    assert "4.1 Scope" not in [w for w, _ in panel.links]


@pytest.mark.django_db
def test_draft_panel_names_the_sections_still_to_write_once(client):
    client.force_login(user_factory())
    client.post("/proposals/new/", {"start": "blank", "snid": "alicegrid"})
    proposal = Proposal.objects.get(snid="alicegrid")
    panel = _Panel(client.get(f"/proposals/{proposal.pk}/edit/").content.decode())
    assert "2 of 17 sections written. 5 required sections still to write before you submit" in panel.text
    assert panel.text.lower().count("still to write before you submit: 2.1 syntactic structure") == 1
