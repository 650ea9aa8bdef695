"""The admin is read-mostly: nothing recorded can be changed or deleted through it."""

import pytest

from registry.models import Proposal

from .factories import proposal_factory, user_factory


@pytest.fixture
def superuser(db):
    user = user_factory("root")
    user.is_staff = user.is_superuser = True
    user.save()
    return user


@pytest.mark.django_db
def test_admin_cannot_change_or_delete_an_approved_proposal(client, superuser):
    proposal = proposal_factory(state="approved")
    client.force_login(superuser)
    page = client.get(f"/admin/registry/proposal/{proposal.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    response = client.post(f"/admin/registry/proposal/{proposal.pk}/change/", {"title": "changed"})
    assert response.status_code == 403
    assert client.post(f"/admin/registry/proposal/{proposal.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Proposal.objects.get(pk=proposal.pk).title == proposal.title


@pytest.mark.django_db
@pytest.mark.parametrize(
    "model", ["proposal", "namespace", "proposalevent", "comment", "reservationrequest", "judgement"]
)
def test_admin_lists_every_model_and_adds_none(client, superuser, model):
    proposal_factory(state="approved")
    client.force_login(superuser)
    assert client.get(f"/admin/registry/{model}/").status_code == 200
    assert client.get(f"/admin/registry/{model}/add/").status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize("state", ["draft", "submitted", "approved"])
def test_admin_refuses_every_write_with_403_never_500(client, superuser, state):
    from registry.models import Comment, ProposalEvent, ReservationRequest

    proposal = proposal_factory(state=state)
    Comment.objects.create(proposal=proposal, author=proposal.submitter, text="a comment")
    ReservationRequest.objects.create(snid="wanted", requester=proposal.submitter, reason="a reason")
    client.force_login(superuser)
    objects = [
        ("namespace", proposal.namespace),
        ("proposal", proposal),
        ("proposalevent", ProposalEvent.objects.filter(proposal=proposal).first()),
        ("comment", Comment.objects.first()),
        ("reservationrequest", ReservationRequest.objects.first()),
    ]
    for model, obj in objects:
        if obj is None:
            continue
        change = f"/admin/registry/{model}/{obj.pk}/change/"
        assert client.get(change).status_code == 200  # shown, read-only
        assert client.post(change, {"comment": "rewritten", "_save": "Save"}).status_code == 403, model
        assert client.post(f"/admin/registry/{model}/{obj.pk}/delete/", {"post": "yes"}).status_code == 403
        assert client.post(
            f"/admin/registry/{model}/", {"action": "delete_selected", "_selected_action": [obj.pk]}
        ).status_code in (200, 302)
    assert ProposalEvent.objects.filter(proposal=proposal, comment="rewritten").count() == 0


@pytest.mark.django_db
def test_admin_pages_are_titled_for_the_registry_not_django(client, superuser):
    client.force_login(superuser)
    page = client.get("/admin/").content.decode()
    assert "<title>Site administration | urn:ogf registry admin</title>" in page and "Django site admin" not in page


# --- every page of the admin renders --------------------------------------------------------------


def _one_of_each(superuser):
    """A row of every model the admin shows, made through the services where there is one."""
    from allauth.account.models import EmailAddress
    from allauth.socialaccount.models import SocialAccount, SocialApp, SocialToken
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from registry import services
    from registry.models import Comment, ReservationRequest

    editor = user_factory("editor", editor=True)
    draft = proposal_factory(snid="draft-one")
    services.judgement_set(draft, editor, "scope", ok=True, note="Clear.")
    proposal_factory(state="approved", editor=editor)
    Comment.objects.create(proposal=draft, author=draft.submitter, text="A comment.")
    ReservationRequest.objects.create(snid="wanted", requester=draft.submitter, reason="A reason.")
    Token.objects.create(user=editor)
    EmailAddress.objects.create(user=editor, email=editor.email, verified=True, primary=True)
    account = SocialAccount.objects.create(user=editor, provider="orcid", uid="0000-0002-1825-0097")
    app = SocialApp.objects.create(provider="openid_connect", provider_id="orcid", name="ORCID", client_id="id")
    SocialToken.objects.create(app=app, account=account, token="t")
    common = {"ip_address": "127.0.0.1", "user_agent": "test", "http_accept": "*/*", "path_info": "/accounts/login/"}
    AccessAttempt.objects.create(username="editor", failures_since_start=1, get_data="", post_data="", **common)
    AccessFailureLog.objects.create(username="editor", attempt_time=timezone.now(), **common)
    AccessLog.objects.create(username="editor", attempt_time=timezone.now(), **common)


@pytest.mark.django_db
def test_every_admin_list_add_and_change_page_renders_for_a_superuser(client, superuser):
    """Each registered model's list, add page (or 403 where the admin adds nothing by design) and the
    change page of a row: never a 500 (admin and auth widgets under the Jinja2 form renderer)."""
    from django.contrib import admin

    _one_of_each(superuser)
    client.force_login(superuser)
    client.raise_request_exception = False
    walked = []
    for model, model_admin in admin.site._registry.items():
        meta, base = model._meta, f"/admin/{model._meta.app_label}/{model._meta.model_name}"
        sample = model._default_manager.order_by("pk").first()
        assert sample is not None, f"{meta.label} is in the admin: give _one_of_each a row of it"
        can_add = model_admin.has_add_permission(type("R", (), {"user": superuser})())
        for url, expected in (
            (f"{base}/", 200),
            (f"{base}/add/", 200 if can_add else 403),
            (f"{base}/{sample.pk}/change/", 200),
        ):
            status = client.get(url).status_code
            assert status == expected, f"{url}: {status}"
            walked.append(url)
    assert {
        "/admin/auth/user/add/",
        "/admin/auth/group/add/",
        "/admin/authtoken/tokenproxy/add/",
        "/admin/account/emailaddress/add/",
        "/admin/socialaccount/socialaccount/add/",
        "/admin/socialaccount/socialtoken/add/",
    } <= set(walked)


def _form_fields(html: str) -> dict:
    """What a browser would send from the page's form as it stands (inputs, checked boxes, selected options)."""
    import html5lib

    fields: dict = {}
    form = html5lib.parse(html, namespaceHTMLElements=False).find(".//form[@id='user_form']")
    for element in (e for e in form.iter() if e.tag in ("input", "select", "textarea")):
        name = element.get("name")
        if not name or element.get("type") in ("submit", "button"):
            continue
        if element.tag == "select":
            values = [o.get("value") for o in element.iter("option") if o.get("selected") is not None]
        elif element.get("type") == "checkbox":
            values = [element.get("value", "on")] if element.get("checked") is not None else []
        else:
            values = [element.get("value", "") if element.tag == "input" else (element.text or "")]
        fields.setdefault(name, []).extend(values)
    return fields


@pytest.mark.django_db
def test_admin_adds_a_user_to_the_gfd_editors_group_as_docs_deployment_says(client, superuser):
    """docs/deployment.md: admin → Users → the user → Groups: "GFD editors" → Save."""
    from registry import rules, services

    person = user_factory("newcomer")
    group = services.editors_group()
    client.force_login(superuser)
    page = client.get(f"/admin/auth/user/{person.pk}/change/")
    assert page.status_code == 200 and rules.EDITOR_GROUP in page.content.decode()
    assert "Made by an administrator or a command" in page.content.decode()  # how the account came to be
    fields = _form_fields(page.content.decode())
    fields["groups"] = [str(group.pk)]
    response = client.post(f"/admin/auth/user/{person.pk}/change/", {**fields, "_save": "Save"})
    assert response.status_code == 302, response.context["adminform"].form.errors
    person.refresh_from_db()
    assert rules.is_editor(person)


@pytest.mark.django_db
@pytest.mark.parametrize("role, expected", [("anonymous", 302), ("staff editor", 403), ("superuser", 200)])
def test_the_admins_user_pages_are_for_administrators_only(client, superuser, role, expected):
    """Who may change accounts (and see how they came to be): an administrator, not a staff editor."""
    from registry import services

    person = user_factory("person")
    if role == "staff editor":
        editor = user_factory("staff-editor")
        services.editor_grant(editor, staff=True)
        client.force_login(editor)
        assert client.get("/admin/registry/proposal/").status_code == 200  # what they may see
    elif role == "superuser":
        client.force_login(superuser)
    for url in ("/admin/auth/user/", f"/admin/auth/user/{person.pk}/change/", "/admin/auth/user/add/"):
        assert client.get(url).status_code == expected, url
