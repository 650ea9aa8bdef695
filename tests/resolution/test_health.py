"""check_resolvers against a real HTTP server on the loopback: history, down after N, mails once."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from registry.resolution import health
from registry.resolution.models import Resolver, ResolverCheck, ResolverStatus
from tests.resolution.helpers import EXAMPLE, registered

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def watched(settings, target, editor):
    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = "127.0.0.0/8"
    settings.REGISTRY_RESOLVER_DOWN_AFTER = 2
    settings.REGISTRY_RESOLVER_DOWN_SECONDS = 3600
    settings.REGISTRY_RESOLVER_TIMEOUT = 5
    registered([{"name": "main", "template": target.base + "/{INDEX}"}], editor=editor)
    return target


def _run_at(hours: float):
    return health.run(now=timezone.now() + dt.timedelta(hours=hours))


def test_check_resolvers_records_history_and_sends_user_agent(watched, capsys):
    call_command("check_resolvers")
    resolver = Resolver.objects.get()
    assert resolver.status == ResolverStatus.UP
    check = ResolverCheck.objects.get()
    assert check.ok and check.http_code == 200 and check.latency_ms is not None
    method, path, headers = watched.requests[0]
    assert method == "HEAD" and path in ("/42", "/00784505476220484608", "/1")
    assert headers["User-Agent"].startswith("urn-ogf-registry-resolver-check/")
    assert "main: up" in capsys.readouterr().out


def test_resolver_down_only_after_n_failures_over_the_span_and_mails_once_each_way(watched, client):
    watched.status = 500
    mail.outbox.clear()  # the approval's own mails
    _run_at(0)
    assert Resolver.objects.get().status == ResolverStatus.FAILING
    _run_at(0.5)  # two failures, but within the hour: still not down
    assert Resolver.objects.get().status == ResolverStatus.FAILING
    assert len(mail.outbox) == 0
    _run_at(2)
    assert Resolver.objects.get().status == ResolverStatus.DOWN
    # one mail to the registrant, one to the editors: neither sees the other's address
    assert [(m.to, "is down" in m.subject) for m in mail.outbox] == [
        (["urn@example.net"], True),
        (["erin@example.org"], True),
    ]
    _run_at(3)
    assert len(mail.outbox) == 2  # once
    # Resolution skips the down resolver: the landing page answers.
    landing = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_ACCEPT="application/json")
    assert landing.status_code == 200 and landing.json()["location"] is None
    watched.status = 200
    _run_at(4)
    assert Resolver.objects.get().status == ResolverStatus.UP
    assert [(m.to, "is back" in m.subject) for m in mail.outbox[2:]] == [
        (["urn@example.net"], True),
        (["erin@example.org"], True),
    ]
    _run_at(5)
    assert len(mail.outbox) == 4
    assert ResolverCheck.objects.count() == 6
    assert client.get("/resolve/", {"urn": EXAMPLE}).status_code == 302


def test_check_resolvers_refuses_loopback_without_the_setting(settings, target, editor):
    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = ""
    registered([{"name": "main", "template": target.base + "/{INDEX}"}], editor=editor)
    health.run()
    check = ResolverCheck.objects.get()
    assert not check.ok and check.error.startswith("refused:") and "127.0.0.1" in check.error
    assert target.requests == []


def test_check_resolvers_refuses_a_redirect_to_link_local(watched):
    watched.redirects["/42"] = "http://169.254.169.254/latest/meta-data/"
    watched.redirects["/00784505476220484608"] = "http://169.254.169.254/latest/meta-data/"
    watched.redirects["/1"] = "http://169.254.169.254/latest/meta-data/"
    health.run()
    check = ResolverCheck.objects.get()
    assert not check.ok and "169.254.169.254" in check.error


def test_check_resolvers_per_run_cap(watched):
    health.run(cap=1)
    assert len(watched.requests) == 1


def test_address_allowed_refuses_private_kinds():
    for address in (
        "127.0.0.1",
        "10.1.2.3",
        "192.168.0.1",
        "169.254.1.1",
        "::1",
        "fe80::1",
        "0.0.0.0",
        "::ffff:127.0.0.1",
        "100.64.0.1",
    ):
        assert not health.address_allowed(address, []), address
    assert health.address_allowed("93.184.216.34", [])


def test_every_block_of_the_iana_special_purpose_registries_is_refused_at_connect_time():
    from registry.resolving.addresses import SPECIAL_PURPOSE

    for block in SPECIAL_PURPOSE:
        for address in (block.network[0], block.network[-1]):
            assert not health.address_allowed(str(address), []), (address, block.name)
    # the two the old filter let through, IPv6 outside Global Unicast, and what carries an IPv4 address
    for address in (
        "fec0::1",
        "feff::1",
        "192.88.99.1",
        "::7f00:1",
        "4000::1",
        "ff02::1",
        "224.0.0.1",
        "2002:7f00:1::1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "64:ff9b::7f00:1",
        "::ffff:8.8.8.8",
    ):
        assert not health.address_allowed(address, []), address
    for address in ("93.184.216.34", "8.8.8.8", "2606:2800:220:1:248:1893:25c8:1946", "2a00:1450:4001:82a::200e"):
        assert health.address_allowed(address, []), address
    assert health.address_allowed("::ffff:127.0.0.1", [__import__("ipaddress").ip_network("127.0.0.0/8")])


def test_probe_names_the_registry_block_it_refused(settings, monkeypatch):
    import socket

    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = ""
    real = socket.getaddrinfo
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda host, *a, **k: real("fec0::1" if host == "site-local.test" else "192.88.99.1", *a, **k),
    )
    for host, says in (
        ("site-local.test", "fec0::/10 (Site-local (deprecated), RFC 3879)"),
        ("relay.test", "192.88.99.0/24 (Deprecated (6to4 Relay Anycast), RFC 7526)"),
    ):
        result = health.probe(f"https://{host}/x", timeout=2)
        assert not result.ok and result.error.startswith("refused:") and says in result.error, result.error


def test_editor_live_probe_shows_results_and_needs_an_editor(client, settings, target, editor, applicant):
    from tests.factories import proposal_factory

    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = "127.0.0.0/8"
    proposal = proposal_factory(
        applicant, state="submitted", resolvers=[{"name": "main", "template": target.base + "/{INDEX}"}]
    )
    url = f"/review/{proposal.pk}/resolvers/probe/"
    client.force_login(applicant)
    assert client.post(url).status_code == 403
    client.force_login(editor)
    assert b"Probe those URLs now" in client.get(f"/review/{proposal.pk}/").content
    page = client.post(url)
    assert page.status_code == 200 and b"HTTP 200" in page.content
    assert {path for _, path, _ in target.requests} == {"/42", "/00784505476220484608", "/1"}
    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = ""
    refused = client.post(url)
    assert refused.status_code == 200 and b"refused" in refused.content


def test_check_resolvers_bounds_a_request_that_drips_one_byte_at_a_time(watched, settings):
    settings.REGISTRY_RESOLVER_TIMEOUT = 1
    watched.drip_seconds = 8  # every byte comes well within the timeout; the whole never does
    started = time.monotonic()
    health.run(cap=1)
    assert time.monotonic() - started < 4
    check = ResolverCheck.objects.get()
    assert not check.ok and "within 1 s" in check.error


def test_check_resolvers_survives_a_malformed_redirect(watched):
    for path in ("/42", "/00784505476220484608", "/1"):
        watched.redirects[path] = "http://127.0.0.1:notaport/x"
    seen = health.run()
    assert len(seen) == 1
    check = ResolverCheck.objects.get()
    assert not check.ok and "not a well-formed URL" in check.error


def test_address_allowed_refuses_ipv4_carried_in_ipv6():
    for address in ("2002:7f00:1::1", "2002:a9fe:a9fe::1", "64:ff9b::7f00:1"):
        assert not health.address_allowed(address, []), address
    # 6to4 (2002::/16) is a block of the IPv6 special-purpose registry: refused even for a public IPv4
    assert not health.address_allowed("2002:5db8:d822::1", [])


def test_editor_live_probe_takes_at_most_its_budget_and_says_what_it_did_not_reach(
    client, settings, target, editor, applicant
):
    from tests.factories import proposal_factory

    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = "127.0.0.0/8"
    settings.REGISTRY_RESOLVER_PROBE_SECONDS = 1.5
    target.drip_seconds = 8
    proposal = proposal_factory(
        applicant, state="submitted", resolvers=[{"name": "main", "template": target.base + "/{INDEX}"}]
    )
    client.force_login(editor)
    started = time.monotonic()
    page = client.post(f"/review/{proposal.pk}/resolvers/probe/")
    assert time.monotonic() - started < 4
    assert page.status_code == 200
    assert b"within 1.5 s" in page.content  # the first URL: cut at the deadline
    assert page.content.count(b"not run: the probe stops after 1.5 s") == 2


def test_editor_live_probe_of_an_unreachable_resolver_is_information(client, settings, editor, applicant):
    import socket

    from tests.factories import proposal_factory

    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = "127.0.0.0/8"
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: the connection is refused
    proposal = proposal_factory(
        applicant, state="submitted", resolvers=[{"name": "main", "template": f"http://resolver.test:{port}/{{INDEX}}"}]
    )
    client.force_login(editor)
    page = client.post(f"/review/{proposal.pk}/resolvers/probe/")
    assert page.status_code == 200 and b"ConnectionRefusedError" in page.content
    review = client.get(f"/review/{proposal.pk}/")
    assert b'value="approve"' in review.content  # the approval is offered as before


def test_resolver_down_mail_goes_to_the_registrant_address_in_force(settings, target, editor):
    from registry.stewardship import services as stewardship

    settings.REGISTRY_RESOLVER_ALLOW_PRIVATE = "127.0.0.0/8"
    settings.REGISTRY_RESOLVER_DOWN_AFTER = 1
    settings.REGISTRY_RESOLVER_DOWN_SECONDS = 0
    approved = registered([{"name": "main", "template": target.base + "/{INDEX}"}], editor=editor)
    request = stewardship.change_request_create(
        approved.namespace,
        "registrant",
        {"registrant_email": "moved@example.net"},
        approved.submitter,
        reason="The old mailbox is closed.",
    )
    stewardship.change_request_decide(request, editor, approve=True)
    target.status = 500
    mail.outbox.clear()
    health.run()
    assert Resolver.objects.get().status == ResolverStatus.DOWN
    assert [m.to for m in mail.outbox] == [["moved@example.net"], ["erin@example.org"]]


def test_check_resolvers_asks_one_host_one_thing_at_a_time(watched, editor):
    registered([{"name": "fdc", "template": watched.base + "/fdc/{nss}"}], name="fdc", editor=editor)
    watched.delay = 0.2
    seen = health.run()
    assert len(seen) == 2 and all(result.ok for _, result in seen)
    assert len(watched.requests) >= 4  # both resolvers, several examples each
    assert watched.most_in_flight == 1  # two resolvers on one host: never two requests at once


def test_check_resolvers_cap_takes_never_checked_resolvers_first(watched, editor):
    registered([{"name": "fdc", "template": watched.base + "/fdc/{nss}"}], name="fdc", editor=editor)
    Resolver.objects.filter(namespace__snid="example").update(last_checked_at=timezone.now())
    health.run(cap=1)
    assert [path.startswith("/fdc/") for _, path, _ in watched.requests] == [True]


def test_a_resolver_that_answers_for_one_example_is_up_and_the_others_are_noted(watched):
    # The demo's valid examples give /42, /1, …: the provider does not hold every one of them.
    health.run()
    paths = sorted({path for _method, path, _headers in watched.requests})
    assert len(paths) >= 2, paths
    watched.requests.clear()
    watched.status_by_path = {paths[0]: 404}
    _run_at(1)
    check = ResolverCheck.objects.latest("checked_at")
    assert check.ok and Resolver.objects.get().status == ResolverStatus.UP
    assert f"{watched.base}{paths[0]} gave HTTP 404" in check.error and f"of {len(paths)} example URLs" in check.error
    watched.status_by_path = {path: 404 for path in paths}  # the provider moved: nothing answers
    _run_at(2)
    assert not ResolverCheck.objects.latest("checked_at").ok
    assert Resolver.objects.get().status == ResolverStatus.FAILING
