"""Who is a GFD editor, and the admin's door: make_editor, and no log-in loop for a non-staff account."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from registry import rules

from .factories import user_factory


def _fresh(user):
    return get_user_model().objects.get(pk=user.pk)


@pytest.mark.django_db
def test_make_editor_grants_review_and_remove_takes_it_away():
    user = user_factory("erin")
    out = io.StringIO()
    call_command("make_editor", "erin", stdout=out)
    assert rules.is_editor(_fresh(user)) and not _fresh(user).is_staff
    assert "erin is a GFD editor (not staff: --staff opens the admin)." in out.getvalue()
    call_command("make_editor", "erin", "--staff", stdout=out)
    assert _fresh(user).is_staff and _fresh(user).has_perm("registry.view_proposal")
    call_command("make_editor", "erin", "--remove", stdout=out)
    assert not rules.is_editor(_fresh(user)) and not _fresh(user).is_staff
    assert not _fresh(user).has_perm("registry.view_proposal")


@pytest.mark.django_db
def test_make_editor_of_an_unknown_user_says_so():
    with pytest.raises(CommandError, match="There is no user named 'nobody'."):
        call_command("make_editor", "nobody")


@pytest.mark.django_db
def test_admin_anonymous_goes_to_the_login_form(client):
    response = client.get("/admin/", follow=True)
    assert response.status_code == 200 and response.redirect_chain[-1][0].startswith("/accounts/login/")


@pytest.mark.django_db
def test_admin_signed_in_editor_without_staff_is_told_why_not_sent_round(client):
    user = user_factory("eve")
    call_command("make_editor", "eve", stdout=io.StringIO())
    client.force_login(user)
    response = client.get("/admin/", follow=True)
    page = response.content.decode()
    assert response.status_code == 403 and len(response.redirect_chain) == 1
    assert "The admin is for staff accounts" in page
    assert "python manage.py make_editor eve --staff" in page


@pytest.mark.django_db
def test_admin_staff_editor_sees_the_registry_models(client):
    user = user_factory("eve")
    call_command("make_editor", "eve", "--staff", stdout=io.StringIO())
    client.force_login(user)
    page = client.get("/admin/").content.decode()
    assert "Proposals" in page and "Namespaces" in page
    assert client.get("/admin/registry/proposal/").status_code == 200


@pytest.mark.django_db
def test_admin_demo_editor_is_staff():
    call_command("start", "--no-serve", stdout=io.StringIO())
    editor = get_user_model().objects.get(username="editor")
    assert editor.is_staff and rules.is_editor(editor)


@pytest.mark.django_db
@pytest.mark.parametrize(("is_editor", "landing"), [(True, "/review/"), (False, "/proposals/")])
def test_login_lands_an_editor_on_the_queue_and_an_applicant_on_their_proposals(client, is_editor, landing):
    user_factory("pat", editor=is_editor)
    response = client.post("/accounts/login/", {"username": "pat", "password": "pw-for-tests-1"})
    assert response.status_code == 302 and response["Location"] == landing


@pytest.mark.django_db
def test_login_of_an_editor_returns_to_the_page_asked_for(client):
    user_factory("pat", editor=True)
    response = client.post(
        "/accounts/login/?next=/urn/", {"username": "pat", "password": "pw-for-tests-1", "next": "/urn/"}
    )
    assert response["Location"] == "/urn/"
