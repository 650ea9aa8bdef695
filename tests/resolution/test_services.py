"""Resolvers at approval and replaced afterwards: checked as at registration, logged, public."""

from __future__ import annotations

import json

import pytest

from registry.enums import EventKind
from registry.models import ProposalEvent
from registry.resolution.models import Resolver
from registry.resolution.services import ResolutionError, resolvers_replace, resolvers_validate
from registry.transparency.models import LogEntry
from tests.confirming import seen_of
from tests.factories import user_factory
from tests.resolution.helpers import registered

pytestmark = pytest.mark.django_db

GOOD = [{"name": "main", "template": "https://data.example.org/{DOMAIN}/{INDEX}"}]


def test_approval_installs_resolvers_and_logs_them(editor):
    registered(GOOD, editor=editor)
    resolver = Resolver.objects.current().get()
    assert resolver.primary and resolver.program["groups"] == ["domain", "index"]
    leaf = json.loads(LogEntry.objects.filter(kind="snid-resolvers").get().leaf)
    assert leaf["how"] == "approved" and leaf["resolvers"][0]["template"] == GOOD[0]["template"]


def test_resolvers_replace_by_editor_writes_history_and_log(editor):
    registered(GOOD, editor=editor)
    other = user_factory("ed2", editor=True)
    rows = resolvers_replace(
        "example", [{"name": "new", "template": "https://n.example.org/{nss}"}], other, "The provider moved."
    )
    assert [r.name for r in rows] == ["new"]
    assert list(Resolver.objects.current().values_list("name", flat=True)) == ["new"]
    assert Resolver.objects.filter(retired_at__isnull=False).count() == 1  # kept, not deleted
    event = ProposalEvent.objects.get(kind=EventKind.RESOLVERS)
    assert event.comment == "The provider moved." and event.data["before"][0]["name"] == "main"
    assert LogEntry.objects.filter(kind="snid-resolvers").count() == 2


def test_resolvers_replace_refuses_bad_templates_and_stores_nothing(editor):
    registered(GOOD, editor=editor)
    for bad in (
        [{"name": "x", "template": "javascript:alert(1)"}],
        [{"name": "x", "template": "//evil.example/{nss}"}],
        [{"name": "x", "template": "https://ok.example/{Nope}"}],
        [{"name": "x", "template": "https://ok.example/" + "{nss}" * 10_000}],
        [{"name": "x", "template": "https://ok.example/" + "{" * 10_000}],
        [{"name": "x", "template": "https://ok.example/a\r\nSet-Cookie: x"}],
    ):
        with pytest.raises(ResolutionError):
            resolvers_replace("example", bad, editor, "try")
        assert resolvers_validate("example", bad)
    assert list(Resolver.objects.current().values_list("name", flat=True)) == ["main"]
    assert LogEntry.objects.filter(kind="snid-resolvers").count() == 1


def test_resolvers_replace_needs_an_editor_and_a_reason(editor, applicant):
    registered(GOOD, editor=editor)
    with pytest.raises(ResolutionError, match="editors"):
        resolvers_replace("example", GOOD, applicant, "why")
    with pytest.raises(ResolutionError, match="why"):
        resolvers_replace("example", GOOD, editor, "")
    assert resolvers_validate("example", GOOD) == []
    assert resolvers_validate("nosuch", GOOD)


def test_editor_form_replaces_resolvers_and_permissions(client, editor, applicant):
    registered(GOOD, editor=editor)
    url = "/urn/example/resolvers/edit/"
    assert client.get(url).status_code == 302  # anonymous: log in
    client.force_login(applicant)
    assert client.get(url).status_code == 403
    client.force_login(editor)
    assert b"data.example.org" in client.get(url).content
    bad = client.post(url, {"resolvers": "x | javascript:alert(1)", "reason": "r"})
    assert bad.status_code == 400 and b"https://" in bad.content
    asked = {"resolvers": "new | https://n.example.org/{INDEX}", "reason": "Moved."}
    shown = client.post(url, asked)  # the confirmation page first: what changes, who is told
    assert shown.status_code == 200 and b"What changes" in shown.content and b"n.example.org/{INDEX}" in shown.content
    assert b"n.example.org" not in client.get("/urn/example/").content
    skipped = client.post(url, {**asked, "confirm": "yes"})
    assert skipped.status_code == 409 and b"n.example.org" not in client.get("/urn/example/").content
    good = client.post(url, {**asked, "confirm": "yes", "seen": seen_of(shown)})
    assert good.status_code == 302
    page = client.get("/urn/example/")
    assert b"n.example.org/{INDEX}" in page.content and b"Moved." in page.content


def test_snid_page_shows_resolver_status(client, editor):
    registered(GOOD, editor=editor)
    page = client.get("/urn/example/")
    assert b"Resolvers" in page.content and b"not yet" in page.content


def test_demo_data_has_resolvers_for_two_snids_one_with_a_rule_placeholder(editor, applicant):
    from registry import demo

    demo.demo_load(applicant, editor)
    by_snid = {}
    for resolver in Resolver.objects.current().select_related("namespace"):
        by_snid.setdefault(resolver.namespace.snid, []).append(resolver)
    assert set(by_snid) == {"example", "fdc"}
    assert any(r.program for r in by_snid["example"])  # {DOMAIN}/{INDEX}


def test_resolvers_functions_take_a_change_requests_lines(editor):
    """The stewards' change request passes its form's data: bare templates, one per line."""
    registered(GOOD, editor=editor)
    data = {"resolvers": "https://a.example.org/{INDEX}\nhttps://a.example.org/x/{nss}"}
    assert resolvers_validate("example", data) == []
    assert resolvers_validate("example", {"resolvers": "javascript:alert(1)"})
    rows = resolvers_replace("example", data["resolvers"], editor, "Moved by a steward's request.")
    assert [r.name for r in rows] == ["a.example.org", "a.example.org (2)"] and rows[0].primary


def test_an_editor_who_is_a_steward_cannot_change_their_snids_resolvers(client, editor):
    from registry.stewardship import services as stewardship

    approved = registered(GOOD, editor=editor)
    conflicted = user_factory("conflicted", editor=True)
    stewardship.steward_add(approved.namespace, conflicted, editor, reason="Also maintains it.")
    with pytest.raises(ResolutionError, match="another editor"):
        resolvers_replace(
            "example", [{"name": "new", "template": "https://n.example.org/{nss}"}], conflicted, "Moving my own SNID."
        )
    client.force_login(conflicted)
    assert b"Change the resolvers" not in client.get("/urn/example/").content
    refused = client.post(
        "/urn/example/resolvers/edit/",
        {"resolvers": "new | https://n.example.org/{nss}", "reason": "Moving my own SNID."},
    )
    assert refused.status_code == 403 and b"another GFD editor" in refused.content
    assert list(Resolver.objects.current().values_list("name", flat=True)) == ["main"]
    client.force_login(editor)
    assert b"Change the resolvers" in client.get("/urn/example/").content


def test_snid_page_shows_what_a_resolver_change_changed(client, editor):
    registered(GOOD, editor=editor)
    resolvers_replace(
        "example", [{"name": "new", "template": "https://n.example.org/{nss}"}], editor, "The provider moved."
    )
    page = client.get("/urn/example/").content.decode()
    history = page[page.index("Resolver changes") :]
    assert "The provider moved." in history
    assert "Before: main <code>https://data.example.org/{DOMAIN}/{INDEX}</code>." in history
    assert "After: new <code>https://n.example.org/{nss}</code>." in history


def test_approval_over_a_failing_resolver_leaves_it_out_and_the_log_says_so(editor):
    registered([{"name": "broken", "template": "https://a.example.org/{Nope}"}, *GOOD], editor=editor)
    assert list(Resolver.objects.current().values_list("name", flat=True)) == ["main"]
    leaf = json.loads(LogEntry.objects.filter(kind="snid-resolvers").get().leaf)
    assert [r["name"] for r in leaf["resolvers"]] == ["main"]
    assert leaf["reason"].startswith("Left out, as the approval overrode their failing check: broken (")
    assert "{Nope}" in leaf["reason"]


def test_resolver_status_reads_the_last_check_without_the_history(editor, django_assert_num_queries):
    import datetime as dt

    from django.utils import timezone

    from registry.resolution.models import ResolverCheck
    from registry.resolution.selectors import resolver_status

    approved = registered(GOOD, editor=editor)
    resolver = Resolver.objects.current().get()
    start = timezone.now() - dt.timedelta(days=400)
    ResolverCheck.objects.bulk_create(
        ResolverCheck(
            resolver=resolver,
            checked_at=start + dt.timedelta(hours=6 * n),
            ok=n % 2 == 0,
            http_code=200 if n % 2 == 0 else 503,
            latency_ms=n,
            error="" if n % 2 == 0 else "HTTP 503",
        )
        for n in range(1600)
    )  # a year and more of six-hourly runs
    with django_assert_num_queries(1):
        [status] = resolver_status(approved.namespace)
    assert (status["last_http_code"], status["last_latency_ms"], status["last_error"]) == (503, 1599, "HTTP 503")
