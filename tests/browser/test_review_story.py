"""One grammar mistake, one finding: the dependent checks wait, and the finding's link, which says where
it goes ("2.1 Syntactic Structure: ABNF, line 2, column 37"), puts the cursor there."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from ..factories import proposal_factory
from ..test_checklist import ALICEGRID_EXAMPLES, ALICEGRID_MISSING_PAREN
from .conftest import login

PASSWORD = "a-long-pass-phrase-42"
FIXED = ALICEGRID_MISSING_PAREN.replace('"-"\n', '"-" )\n')


@pytest.mark.django_db(transaction=True)
def test_missing_paren_one_finding_dependents_not_run_cursor_at_the_error(new_page, live_server):
    user = get_user_model().objects.create_user("dana", "dana@example.org", PASSWORD)
    proposal = proposal_factory(
        user, snid="alicegrid", grammar={"abnf": FIXED, "rule": ""}, examples=ALICEGRID_EXAMPLES
    )
    page = new_page()
    login(page, "dana", PASSWORD)
    page.goto(f"/proposals/{proposal.pk}/edit/")
    grammar = page.locator("#id_grammar_abnf")
    grammar.fill(ALICEGRID_MISSING_PAREN)
    page.get_by_role("button", name="Check without saving").click()
    failing = page.locator("#workbench .finding.fail")
    expect(failing).to_have_count(1)
    assert "Line 2, column 37, in rule 'SITE'" in failing.inner_text()
    waiting = page.locator("#workbench .finding.not_run")
    expect(waiting).to_have_count(1)  # one cause, one line, naming the checks that wait for it
    expect(waiting).to_contain_text("Not run: the grammar must parse first (line 2, column 37).")
    for check_id in ("grammar-complete", "max-length", "equivalence", "examples-valid"):
        expect(page.locator(f'#workbench .finding.not_run[data-check~="{check_id}"]')).to_have_count(1)
    assert "grammar-parses" not in page.locator("#workbench").inner_text()
    # Checked without saving, the line is marked under the field as a save marks it.
    expect(page.locator("#field-grammar_abnf + ol.line-marks li#grammar-line-2")).to_contain_text(
        'Line 2, column 37: SITE = ALPHA *31( ALPHA / DIGIT / "-"'
    )
    assert grammar.get_attribute("aria-invalid") == "true"
    failing.get_by_role("link", name="2.1 Syntactic Structure: ABNF, line 2, column 37", exact=True).click()
    offset = len(ALICEGRID_MISSING_PAREN.split("\n")[0]) + 1 + 36
    assert grammar.evaluate("el => document.activeElement === el")
    assert grammar.evaluate("el => [el.selectionStart, el.selectionEnd]") == [offset, offset]
    assert grammar.evaluate("el => el.value.slice(0, el.selectionStart).split('\\n').length") == 2
    assert grammar.get_attribute("aria-invalid") == "true"
    assert "marked-line" in grammar.get_attribute("class")
    expect(page.locator("#field-grammar_abnf .go-to-mark li.marked")).to_have_text(
        '\u25b6 Line 2, column 37: SITE = ALPHA *31( ALPHA / DIGIT / "-"'
    )
    # Fixed: everything is checked again, nothing left "not run" or failing.
    grammar.fill(FIXED)
    page.get_by_role("button", name="Check without saving").click()
    expect(page.locator("#workbench .finding.fail")).to_have_count(0)
    expect(page.locator("#workbench .finding.not_run")).to_have_count(0)
    expect(page.locator("#workbench")).to_contain_text("All 2 valid examples check out against the grammar")
    expect(page.locator(".go-to-mark")).to_have_count(0)
    expect(page.locator("#proposal-form ol.line-marks")).to_have_count(0)
    assert grammar.get_attribute("aria-invalid") is None


@pytest.mark.django_db(transaction=True)
def test_a_check_clears_the_old_field_error_beside_the_fixed_field(new_page, live_server):
    """SNID "-bad" refused on save, then fixed while Version holds 0: after "Check without saving"
    nothing on the page still says the SNID must start with a letter or digit."""
    user = get_user_model().objects.create_user("eli", "eli@example.org", PASSWORD)
    proposal = proposal_factory(user)
    page = new_page()
    login(page, "eli", PASSWORD)
    page.goto(f"/proposals/{proposal.pk}/edit/")
    snid = page.get_by_label("SNID", exact=True)
    snid.fill("-bad")
    page.get_by_role("button", name="Save draft").click()
    page.get_by_text("Nothing was saved").wait_for()
    expect(page.locator("#field-snid ul.errors")).to_have_count(1)
    snid.fill("uuid-demo")
    page.get_by_label("Registration version").fill("0")
    page.get_by_role("button", name="Check without saving").click()
    expect(page.locator("#workbench")).to_contain_text("Not checked: fix the Registration version field first.")
    expect(page.locator("#field-snid ul.errors")).to_have_count(0)
    assert "must start with a letter or digit" not in page.locator("main").inner_text()
    expect(page.locator("#field-version ul.errors")).to_contain_text("greater than or equal to 1")
    assert page.get_by_label("Registration version").get_attribute("aria-invalid") == "true"
