"""The pages of an SNID's life after approval: every step has its page (GET) that says what it will do and
who is told, then its POST; stewards' forms start from what stands and keep what was typed; the editors'
queue shows the facts; the rules hold on every path; public pages name people as they chose."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.core import mail
from django.core.cache import cache

from registry.models import Namespace
from registry.stewardship import services as stewardship
from registry.stewardship.models import ChangeRequest, ChangeState, Deprecation, Steward, StewardState

from .confirming import step
from .factories import proposal_factory, user_factory

RESOLVERS = [
    {
        "name": "catalogue",
        "template": "https://data.example.org/{nss}",
        "returns": "metadata",
        "media_types": ["application/json"],
        "primary": True,
    },
    {
        "name": "mirror",
        "template": "https://mirror.example.org/{nss}",
        "returns": "landing",
        "media_types": [],
        "primary": False,
    },
]
NEW_CONTACT = "urn-registry@wg.example.org"


@pytest.fixture
def world(db):
    steward = user_factory("stella")
    steward.first_name, steward.last_name = "Stella", "Steward"
    steward.save()
    ed1, ed2 = user_factory("ed1", editor=True), user_factory("ed2", editor=True)
    approved = proposal_factory(steward, state="approved", editor=ed2, resolvers=RESOLVERS)
    proposal_factory(steward, state="approved", editor=ed2, snid="successor")
    return {
        "steward": steward,
        "ed1": ed1,
        "ed2": ed2,
        "approved": approved,
        "namespace": Namespace.objects.get(snid="example"),
    }


def _text(response) -> str:
    return response.content.decode()


def _ids(page: str) -> Counter:
    return Counter(re.findall(r'\bid="([^"]+)"', page))


# --- every step has its page ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path, who",
    [
        ("/urn/example/stewardship/deprecate/", "ed1"),
        ("/urn/example/stewardship/add/", "ed1"),
        ("/urn/example/stewardship/invite/", "steward"),
        ("/urn/example/stewardship/change/contact/", "steward"),
        ("/urn/example/stewardship/change/registrant/", "steward"),
        ("/urn/example/stewardship/change/resolvers/", "steward"),
        ("/urn/example/stewardship/change/deprecation/", "steward"),
    ],
)
def test_every_step_answers_get_with_its_form_and_what_it_will_do(client, world, path, who):
    client.force_login(world[who])
    response = client.get(path)
    page = _text(response)
    assert response.status_code == 200  # not a bare 405
    assert "What will happen" in page and "Who is told" in page and "In the transparency log" in page
    assert not [i for i, n in _ids(page).items() if n > 1]


@pytest.mark.django_db
def test_deprecation_is_previewed_then_confirmed_and_the_stewards_are_told(
    client, world, django_capture_on_commit_callbacks
):
    client.force_login(world["ed1"])
    form = {"deprecate-reason": "Superseded.", "deprecate-successor": "successor"}
    preview = client.post("/urn/example/stewardship/deprecate/", form)
    page = _text(preview)
    assert preview.status_code == 200 and not Deprecation.objects.exists()
    assert "Confirm: deprecate urn:ogf:example:" in page and "urn:ogf:successor:" in page
    assert "Stella Steward (stella)" in page  # who is told
    assert 'name="deprecate-reason" value="Superseded."' in page  # carried to the confirmation
    with django_capture_on_commit_callbacks(execute=True):
        done = step(client, "/urn/example/stewardship/deprecate/", form)
    assert done.status_code == 302 and Deprecation.objects.in_force().get().successor.snid == "successor"
    assert [m.to for m in mail.outbox] == [["stella@example.org"]]


@pytest.mark.django_db
def test_a_refused_step_keeps_everything_typed(client, world):
    client.force_login(world["ed1"])
    response = client.post(
        "/urn/example/stewardship/deprecate/",
        {"deprecate-reason": "A long reason typed with care.", "deprecate-successor": "nowhere", "confirm": "yes"},
    )
    page = _text(response)
    assert response.status_code == 400 and "is not a registered SNID" in page
    assert "A long reason typed with care." in page and 'value="nowhere"' in page
    assert not Deprecation.objects.exists()


@pytest.mark.django_db
def test_withdrawing_a_deprecation_and_removing_a_steward_are_confirmed_first(client, world):
    namespace, ed1, ed2 = world["namespace"], world["ed1"], world["ed2"]
    stewardship.snid_deprecate(namespace, ed2, reason="Retired.")
    partner = stewardship.steward_add(namespace, user_factory("partner"), ed2, reason="Second maintainer.")
    client.force_login(ed1)
    page = _text(client.get("/urn/example/stewardship/undeprecate/"))
    assert "Confirm: withdraw the deprecation" in page and "snid-undeprecated" in page
    assert step(client, "/urn/example/stewardship/undeprecate/", {"undeprecate-reason": ""}).status_code == 400
    assert Deprecation.objects.in_force().exists()
    assert (
        step(client, "/urn/example/stewardship/undeprecate/", {"undeprecate-reason": "Still used."}).status_code == 302
    )
    assert not Deprecation.objects.in_force().exists()
    page = _text(client.get(f"/urn/example/stewardship/remove/{partner.pk}/"))
    assert "Confirm: remove partner as a steward" in page and "steward-changed" in page
    assert step(client, f"/urn/example/stewardship/remove/{partner.pk}/", {"remove-reason": "Left."}).status_code == 302
    assert Steward.objects.get(pk=partner.pk).state == StewardState.REMOVED
    again = client.post(f"/urn/example/stewardship/remove/{partner.pk}/", {"remove-reason": "Left."})
    assert again.status_code == 409


# --- stewards' forms start from what stands ---------------------------------------------------------


@pytest.mark.django_db
def test_the_resolver_form_starts_from_the_resolvers_in_force_and_explains_the_lines(client, world):
    client.force_login(world["steward"])
    page = _text(client.get("/urn/example/stewardship/change/resolvers/"))
    assert (
        "catalogue | https://data.example.org/{nss} | metadata | application/json | primary\n"
        "mirror | https://mirror.example.org/{nss}"
    ) in page
    assert "name | URL template | returns | media types | primary" in page
    assert "For example: catalogue | https://data.example.org/{nss} | metadata | application/json" in page
    assert "catalogue | https://data.example.org/{nss}" in _text(client.get("/urn/example/stewardship/"))


@pytest.mark.django_db
def test_a_resolver_request_shows_the_old_and_new_tables_before_it_is_sent(
    client, world, django_capture_on_commit_callbacks
):
    client.force_login(world["steward"])
    lines = (
        "catalogue | https://data.example.org/{nss} | metadata | application/json | primary\n"
        "archive | https://archive.example.org/{nss}"
    )
    form = {"resolvers-resolvers": lines, "resolvers-reason": "The mirror closed."}
    page = _text(client.post("/urn/example/stewardship/change/resolvers/", form))
    assert not ChangeRequest.objects.exists()
    assert "Resolvers now (2)" in page and "Resolvers asked for (2)" in page
    assert "<strong>removed</strong>" in page and "<strong>added</strong>" in page
    assert "https://archive.example.org/{nss}" in page
    edit = _text(client.post("/urn/example/stewardship/change/resolvers/", {**form, "edit": "1"}))
    assert lines in edit  # "Change it" brings the form back as typed
    with django_capture_on_commit_callbacks(execute=True):
        assert step(client, "/urn/example/stewardship/change/resolvers/", form).status_code == 302
    request = ChangeRequest.objects.get()
    assert [r["name"] for r in request.data["resolvers"]] == ["catalogue", "archive"]


@pytest.mark.django_db
def test_a_request_with_an_error_keeps_what_was_typed(client, world):
    client.force_login(world["steward"])
    typed = "catalogue | javascript:alert(1)\nmirror | https://mirror.example.org/{nss}"
    response = client.post(
        "/urn/example/stewardship/change/resolvers/",
        {"resolvers-resolvers": typed, "resolvers-reason": "Careful words."},
    )
    page = _text(response)
    assert response.status_code == 400 and "Nothing was sent" in page
    assert "javascript:alert(1)" in page and "Careful words." in page
    missing = client.post(
        "/urn/example/stewardship/change/contact/", {"contact-registrant_public_contact": NEW_CONTACT}
    )
    assert missing.status_code == 400 and NEW_CONTACT in _text(missing)
    assert not ChangeRequest.objects.exists()


@pytest.mark.django_db
def test_the_contact_form_starts_from_the_contact_in_force(client, world):
    client.force_login(world["steward"])
    page = _text(client.get("/urn/example/stewardship/change/contact/"))
    assert f'value="{world["approved"].registrant_public_contact}"' in page


@pytest.mark.django_db
def test_a_steward_asks_for_a_deprecation_through_the_pages(client, world, django_capture_on_commit_callbacks):
    client.force_login(world["steward"])
    form = {"deprecation-successor": "successor", "deprecation-reason": "Superseded by urn:ogf:successor:."}
    preview = _text(client.post("/urn/example/stewardship/change/deprecation/", form))
    assert "Status" in preview and "deprecated" in preview and "urn:ogf:successor:" in preview
    with django_capture_on_commit_callbacks(execute=True):
        step(client, "/urn/example/stewardship/change/deprecation/", form)
    request = ChangeRequest.objects.get(kind="deprecation")
    client.force_login(world["ed1"])
    queue = _text(client.get("/review/stewardship/"))
    assert "urn:ogf:example:</code></a> — Deprecation" in queue and "Superseded by urn:ogf:successor:." in queue
    step(client, f"/review/stewardship/change/{request.pk}/", {"decision": "approve"})
    assert Deprecation.objects.in_force().get().successor.snid == "successor"


# --- the editors' queue shows the facts -------------------------------------------------------------


@pytest.fixture
def queued(world):
    namespace, steward = world["namespace"], world["steward"]
    contact = stewardship.change_request_create(
        namespace, "contact", {"registrant_public_contact": NEW_CONTACT}, steward, reason="The group's role address."
    )
    resolvers = stewardship.change_request_create(
        namespace,
        "resolvers",
        {"resolvers": "catalogue | https://data.example.org/{nss}\narchive | https://archive.example.org/{nss}"},
        steward,
        reason="The mirror closed.",
    )
    invitee = user_factory("ivan")
    invitee.first_name, invitee.last_name = "Ivan", "Invitee"
    invitee.save()
    from allauth.socialaccount.models import SocialAccount

    SocialAccount.objects.create(user=invitee, provider="orcid", uid="0000-0002-1825-0097")
    invitation = stewardship.steward_invite(namespace, invitee, steward, reason="Runs the archive.")
    return {**world, "contact": contact, "resolvers": resolvers, "invitation": invitation}


@pytest.mark.django_db
def test_the_queue_names_fields_as_the_template_does_and_shows_both_values(client, queued):
    client.force_login(queued["ed1"])
    page = _text(client.get("/review/stewardship/"))
    assert "registrant_public_contact" not in page
    assert "1.3 Declared Registrant: public contact" in page
    assert queued["approved"].registrant_public_contact in page and NEW_CONTACT in page
    assert "Resolvers now (2)" in page and "Resolvers asked for (2)" in page
    assert "The group&#x27;s role address." in page and "Asked by</dt><dd>Stella Steward (stella)" in page
    assert f'datetime="{queued["contact"].created_at.isoformat()[:19]}' in page


@pytest.mark.django_db
def test_the_queue_names_the_invited_person_with_their_verified_orcid(client, queued):
    client.force_login(queued["ed1"])
    page = _text(client.get("/review/stewardship/"))
    assert "Ivan Invitee (ivan)" in page and "0000-0002-1825-0097" in page
    assert "urn:ogf:example::" not in page


@pytest.mark.django_db
def test_the_queue_queries_do_not_grow_with_the_requests(client, queued, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(queued["ed1"])
    client.get("/review/stewardship/")
    with CaptureQueriesContext(connection) as few:
        client.get("/review/stewardship/")
    namespace, steward = queued["namespace"], queued["steward"]
    for n in range(8):
        stewardship.change_request_create(
            namespace, "contact", {"registrant_public_contact": f"c{n}@example.org"}, steward, reason="Another."
        )
        stewardship.steward_invite(namespace, user_factory(f"friend{n}"), steward, reason="Another.")
    with django_assert_max_num_queries(len(few)):
        client.get("/review/stewardship/")


@pytest.mark.django_db
def test_a_decision_is_confirmed_on_its_page_then_made(client, queued, django_capture_on_commit_callbacks):
    contact = queued["contact"]
    client.force_login(queued["ed1"])
    page = _text(client.get(f"/review/stewardship/change/{contact.pk}/?decision=approve"))
    assert "Confirm: approve the request to change the contact" in page
    assert "1.3 Declared Registrant: public contact" in page and NEW_CONTACT in page
    assert "administrative-change" in page and "Stella Steward (stella)" in page
    assert ChangeRequest.objects.get(pk=contact.pk).state == ChangeState.PENDING
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        done = step(
            client, f"/review/stewardship/change/{contact.pk}/", {"decision": "approve", "decision-note": "Thanks."}
        )
    assert done.status_code == 302 and ChangeRequest.objects.get(pk=contact.pk).state == ChangeState.APPROVED
    assert "Thanks." in mail.outbox[0].body
    assert client.post(f"/review/stewardship/change/{contact.pk}/", {"decision": "decline"}).status_code == 409


@pytest.mark.django_db
def test_an_invitation_is_confirmed_on_its_page(client, queued):
    invitation = queued["invitation"]
    client.force_login(queued["ed1"])
    page = _text(client.get(f"/review/stewardship/invitation/{invitation.pk}/?decision=confirm"))
    assert "Confirm: confirm the invitation of Ivan Invitee (ivan)" in page and "0000-0002-1825-0097" in page
    assert step(client, f"/review/stewardship/invitation/{invitation.pk}/", {"decision": "confirm"}).status_code == 302
    assert Steward.objects.get(pk=invitation.pk).state == StewardState.ACTIVE


# --- nobody decides for themselves, through the pages --------------------------------------------------


@pytest.mark.django_db
def test_an_editor_cannot_add_himself_through_the_pages(client, world):
    client.force_login(world["ed1"])
    response = client.post(
        "/urn/example/stewardship/add/", {"add-username": "ed1", "add-reason": "Me.", "confirm": "yes"}
    )
    assert response.status_code == 400 and "Editors do not make themselves stewards" in _text(response)
    assert not Steward.objects.filter(user=world["ed1"]).exists()


@pytest.mark.django_db
def test_an_editor_cannot_decide_his_own_request_through_the_pages(client, world):
    namespace, ed1, ed2 = world["namespace"], world["ed1"], world["ed2"]
    mine = stewardship.steward_add(namespace, ed1, ed2, reason="Co-maintainer.")
    request = stewardship.change_request_create(
        namespace, "contact", {"registrant_public_contact": NEW_CONTACT}, ed1, reason="Mine."
    )
    stewardship.steward_remove(mine, ed2, reason="Left.")
    client.force_login(ed1)
    queue = _text(client.get("/review/stewardship/"))
    assert "You asked for this change yourself, so another editor decides it." in queue
    assert f"/review/stewardship/change/{request.pk}/?decision=approve" not in queue
    assert client.get(f"/review/stewardship/change/{request.pk}/?decision=approve").status_code == 403
    assert client.post(f"/review/stewardship/change/{request.pk}/", {"decision": "approve"}).status_code == 403
    assert ChangeRequest.objects.get(pk=request.pk).state == ChangeState.PENDING


@pytest.mark.django_db
def test_an_invited_editor_cannot_confirm_his_own_invitation_through_the_pages(client, world):
    invitation = stewardship.steward_invite(world["namespace"], world["ed1"], world["steward"], reason="Help.")
    client.force_login(world["ed1"])
    assert "This invitation is for you" in _text(client.get("/review/stewardship/"))
    assert client.post(f"/review/stewardship/invitation/{invitation.pk}/", {"decision": "confirm"}).status_code == 403
    assert Steward.objects.get(pk=invitation.pk).state == StewardState.INVITED


@pytest.mark.django_db
@pytest.mark.parametrize(
    "role, path, status",
    [
        ("anonymous", "/urn/example/stewardship/deprecate/", 302),
        ("other", "/urn/example/stewardship/deprecate/", 403),
        ("steward", "/urn/example/stewardship/deprecate/", 403),
        ("anonymous", "/urn/example/stewardship/change/contact/", 302),
        ("other", "/urn/example/stewardship/change/contact/", 403),
        ("ed1", "/urn/example/stewardship/change/contact/", 403),
        ("other", "/urn/example/stewardship/invite/", 403),
        ("steward", "/urn/example/stewardship/add/", 403),
    ],
)
def test_each_step_refuses_the_wrong_role_on_post_too(client, world, role, path, status):
    if role == "other":
        client.force_login(user_factory("other"))
    elif role != "anonymous":
        client.force_login(world[role])
    response = client.post(path, {"confirm": "yes"})
    assert response.status_code == status
    assert not ChangeRequest.objects.exists() and not Deprecation.objects.exists()


# --- ids and names --------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["steward", "ed1"])
def test_the_stewardship_page_has_no_id_twice(client, world, who):
    client.force_login(world[who])
    page = _text(client.get("/urn/example/stewardship/"))
    assert [i for i, n in _ids(page).items() if n > 1] == []
    for target in re.findall(r'<label for="([^"]+)"', page):  # each label names its own form's field
        assert _ids(page)[target] == 1, target


@pytest.mark.django_db
def test_public_pages_name_stewards_as_they_chose_never_by_login_name(client, world):
    namespace = world["namespace"]
    stewardship.steward_add(namespace, user_factory("anon-login"), world["ed2"], reason="Helps.")
    cache.clear()
    page = _text(client.get("/urn/example/"))
    section = page[page.index('id="stewards-title"') :]
    section = section[: section.index("</section>")]
    assert "Stella Steward" in section and "stella" not in section.replace("Stella", "")
    assert "anon-login" not in page and "one steward who has chosen no public name" in section


@pytest.mark.django_db
def test_a_steward_chooses_the_name_public_pages_give_them(client, world):
    client.force_login(world["steward"])
    assert client.post("/urn/example/stewardship/name/", {"name-public_name": "The Grid WG"}).status_code == 302
    client.logout()
    cache.clear()
    assert "The Grid WG" in _text(client.get("/urn/example/"))
    other = user_factory("not-a-steward")
    client.force_login(other)
    assert client.post("/urn/example/stewardship/name/", {"name-public_name": "Me"}).status_code == 403


@pytest.mark.django_db
def test_a_resolver_change_is_one_entry_of_the_log_said_in_words(client, world, django_capture_on_commit_callbacks):
    from registry.transparency.models import LogEntry

    client.force_login(world["steward"])
    lines = (
        "catalogue | https://data.example.org/{nss} | metadata | application/json | primary\n"
        "archive | https://archive.example.org/{nss}"
    )
    form = {"resolvers-resolvers": lines, "resolvers-reason": "The mirror closed."}
    assert step(client, "/urn/example/stewardship/change/resolvers/", form).status_code == 302
    request = ChangeRequest.objects.get()
    client.force_login(world["ed1"])
    size = LogEntry.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        decided = step(
            client, f"/review/stewardship/change/{request.pk}/", {"decision": "approve", "decision-note": ""}
        )
    assert decided.status_code == 302
    assert LogEntry.objects.count() == size + 1  # one change, one entry
    page = _text(client.get("/log/"))
    assert "Resolvers changed: added “archive” (https://archive.example.org/{nss}), removed “mirror”" in page
    assert "|" not in page[page.index('id="entries"') : page.index("</table>")]


@pytest.mark.django_db
def test_the_registrant_becoming_first_steward_is_public_as_the_log_shows_it(client, world):
    client.force_login(world["ed1"])
    page = _text(client.get("/urn/example/stewardship/"))
    line = next(li for li in re.findall(r"<li>[^<]*first steward[^\n]*?</li>", page))
    assert "(not public)" not in line
    client.logout()
    cache.clear()
    assert "The registrant became the SNID&#x27;s first steward." in _text(client.get("/urn/example/"))
    from registry.transparency.models import LogEntry

    assert LogEntry.objects.filter(kind="steward-changed", snid="example", leaf__contains='"change":"added"').exists()
