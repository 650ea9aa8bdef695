"""Small things people meet every day: one search box per purpose, no choice that cannot be made, focus where
the error is, a list that shows the last save, a reply's confirmation where the page lands."""

import datetime as dt
import re

import pytest
from django.utils import timezone

from registry import services
from registry.models import Proposal

from ..factories import proposal_factory, user_factory


@pytest.mark.django_db
def test_registry_list_has_one_search_box_and_one_filter(client):
    page = client.get("/urn/").content.decode()
    assert len(re.findall(r'<input [^>]*type="search"', page)) == 2
    assert 'id="header-q"' in page and 'id="filter-q"' in page and 'id="urn-search"' not in page


@pytest.mark.django_db
def test_new_proposal_offers_a_revision_only_to_a_holder_of_an_snid(client):
    newcomer = user_factory("nina")
    client.force_login(newcomer)
    page = client.get("/proposals/new/").content.decode()
    assert "SNID to revise" not in page and 'value="version"' not in page
    holder = user_factory("hal")
    proposal_factory(holder, state="approved")
    client.force_login(holder)
    page = client.get("/proposals/new/").content.decode()
    assert "SNID to revise" in page and 'value="version"' in page


@pytest.mark.django_db
def test_signup_error_puts_the_cursor_in_the_field_in_error(client):
    page = client.get("/accounts/signup/").content.decode()
    assert re.search(r'<input [^>]*name="username"[^>]*autofocus', page)
    page = client.post(
        "/accounts/signup/",
        {
            "username": "newbie",
            "email": "n@example.org",
            "password1": "a-long-pass-phrase-1",
            "password2": "another-pass-phrase",
        },
    ).content.decode()
    assert re.search(r'<input [^>]*name="password2"[^>]*autofocus', page)
    assert len(re.findall(r"autofocus", page)) == 1


@pytest.mark.django_db
def test_my_proposals_shows_a_save_after_the_last_event_and_keeps_dates_whole(client):
    applicant = user_factory("ann")
    proposal = proposal_factory(applicant)
    later = timezone.now() + dt.timedelta(minutes=5)
    Proposal.objects.filter(pk=proposal.pk).update(updated_at=later)
    client.force_login(applicant)
    page = client.get("/proposals/").content.decode()
    assert '<th scope="col">Last change</th>' in page
    assert f'Saved <span class="nowrap">{later:%Y-%m-%d}</span> <span class="nowrap">{later:%H:%M}</span>' in page
    services.proposal_transition(Proposal.objects.get(pk=proposal.pk), "submit", applicant)
    assert 'Submitted <span class="nowrap">' in client.get("/proposals/").content.decode()


@pytest.mark.django_db
def test_reply_confirmation_is_shown_in_the_thread_the_page_lands_on(client):
    applicant, editor = user_factory("ann"), user_factory("eve", editor=True)
    proposal = proposal_factory(applicant, state="submitted")
    thread = services.thread_start(proposal, editor, "Who assigns the index?", section="scope")
    client.force_login(applicant)
    response = client.post(f"/threads/{thread.pk}/reply/", {"text": "The chair.", "next": f"/proposals/{proposal.pk}/"})
    assert response["Location"] == f"/proposals/{proposal.pk}/#thread-{thread.pk}"
    page = client.get(response["Location"]).content.decode()
    in_thread = page[page.index(f'id="thread-{thread.pk}"') :]
    in_thread = in_thread[: in_thread.index("</details>")]
    assert "Reply added; the GFD editors can read it in the thread." in in_thread
    assert page.count("Reply added") == 1


@pytest.mark.django_db
def test_edit_page_names_each_section_once_and_numbers_parts_like_sections(client):
    applicant = user_factory("ann")
    proposal = proposal_factory(applicant)
    client.force_login(applicant)
    page = client.get(f"/proposals/{proposal.pk}/edit/").content.decode()
    form = page[page.index('id="proposal-form"') : page.index('id="workbench"')]
    assert form.count("1.1 Namespace Identifier") == 1  # the findings beside it link to it by that name
    assert "<legend>1 Registration</legend>" in page and "<h2>6 Examples</h2>" in page
    assert not re.search(r"<legend>\d\. ", page)
    detail = client.get(f"/proposals/{proposal.pk}/").content.decode()
    assert '<h2 id="part-1">1 Registration</h2>' in detail and not re.search(r'<h2 id="part-\d">\d\. ', detail)


@pytest.mark.django_db
def test_queue_and_my_proposals_label_every_cell_for_narrow_screens(client):
    applicant, editor = user_factory("ann"), user_factory("eve", editor=True)
    proposal_factory(applicant, state="submitted")
    for user, path, columns in ((editor, "/review/", 8), (applicant, "/proposals/", 6)):
        client.force_login(user)
        page = client.get(path).content.decode()
        body = page[page.index("<tbody>") : page.index("</tbody>")]
        cells = re.findall(r"<td[^>]*>", body)
        assert len(cells) == columns and all("data-label=" in cell for cell in cells), path


@pytest.mark.django_db
def test_started_thread_confirmation_is_shown_in_the_thread_the_page_lands_on(client):
    applicant, editor = user_factory("ann"), user_factory("eve", editor=True)
    proposal = proposal_factory(applicant, state="submitted")
    client.force_login(editor)
    response = client.post(f"/review/{proposal.pk}/comment/", {"section": "scope", "text": "Who assigns the index?"})
    thread = proposal.comments.get()
    assert response["Location"] == f"/review/{proposal.pk}/#thread-{thread.pk}"
    page = client.get(response["Location"]).content.decode()
    in_thread = page[page.index(f'id="thread-{thread.pk}"') :]
    in_thread = in_thread[: in_thread.index("</details>")]
    assert "Comment added; ann can see it beside the section and reply." in in_thread
    assert page.count("Comment added") == 1


@pytest.mark.django_db
def test_judgement_confirmation_is_shown_in_the_judgements_the_page_lands_on(client):
    applicant, editor = user_factory("ann"), user_factory("eve", editor=True)
    proposal = proposal_factory(applicant, state="submitted")
    client.force_login(editor)
    response = client.post(f"/review/{proposal.pk}/judgement/", {"verdict-scope": "ok"})
    assert response["Location"] == f"/review/{proposal.pk}/#judgements"
    page = client.get(response["Location"]).content.decode()
    judgements = page[page.index('id="judgements"') :]
    judgements = judgements[: judgements.index("</form>")]
    assert "1 judgement recorded; 3 still open." in judgements
    assert page.count("judgement recorded") == 1
    nothing = client.get(client.post(f"/review/{proposal.pk}/judgement/", {})["Location"]).content.decode()
    judgements = nothing[nothing.index('id="judgements"') :]
    assert "Nothing recorded: choose Satisfied or Not satisfied" in judgements[: judgements.index("</form>")]


@pytest.mark.django_db
def test_new_proposal_start_choices_are_one_named_group(client):
    holder = user_factory("hal")
    proposal_factory(holder, state="approved")
    client.force_login(holder)
    page = client.get("/proposals/new/").content.decode()
    group = page[page.index('id="field-start"') :]
    group = group[: group.index('id="field-snid"')]
    assert '<fieldset class="choices"><legend>Start</legend>' in group and '<label for="">' not in group
    assert '<form method="post" class="narrow start-proposal">' in page
