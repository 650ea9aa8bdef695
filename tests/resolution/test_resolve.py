"""The resolver endpoint, with a real HTTP server on the loopback as the resolvers' target."""

from __future__ import annotations

import urllib.request

import pytest

from registry.resolution.models import Resolver, ResolverStatus
from tests.resolution.helpers import EXAMPLE, registered

pytestmark = pytest.mark.django_db


def _follow(location: str) -> int:
    with urllib.request.urlopen(location, timeout=5) as answer:
        return answer.status


def test_resolve_redirects_with_nss_and_the_target_receives_it(client, target):
    registered([{"name": "main", "template": target.base + "/id/{nss}"}])
    response = client.get("/resolve/", {"urn": EXAMPLE})
    assert response.status_code == 302
    assert response["Location"] == target.base + "/id/cluster%3A2009%3Aexample.net%3A42"
    assert _follow(response["Location"]) == 200
    assert target.requests[-1][1] == "/id/cluster%3A2009%3Aexample.net%3A42"


def test_resolve_fills_rule_placeholders(client, target):
    registered([{"name": "main", "template": target.base + "/{DOMAIN}/{INDEX}?year={YEAR}"}])
    response = client.get("/resolve/", {"urn": EXAMPLE})
    assert response["Location"] == target.base + "/example.net/42?year=2009"
    _follow(response["Location"])
    assert target.requests[-1][1] == "/example.net/42?year=2009"


def test_resolve_normalises_by_the_equivalence_rule_first(client, target):
    registered([{"name": "main", "template": target.base + "/{TYPE}/{nss}"}])
    response = client.get("/resolve/", {"urn": "URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42"})
    assert response["Location"] == target.base + "/cluster/cluster%3A2009%3Aexample.net%3A42"


def test_resolve_percent_encodes_reserved_characters(client, target):
    registered([{"name": "main", "template": target.base + "/q?id={nss}"}])
    urn = "urn:ogf:example:cluster:2009:example.net:42?a=b%2fc"
    response = client.get("/resolve/", {"urn": urn})
    assert response.status_code == 302
    # ':' '?' '=' are encoded; the URN's own escape %2f passes as the same octet.
    assert response["Location"].endswith("/q?id=cluster%3A2009%3Aexample.net%3A42%3Fa%3Db%2Fc")


def test_resolve_path_form_redirects(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    response = client.get("/" + EXAMPLE)
    assert response.status_code == 302
    assert response["Location"] == target.base + "/42"


def test_resolve_r_and_q_components_passed_on_fragment_left_to_client(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    response = client.get("/resolve/", {"urn": EXAMPLE + "?+lang=en?=view=full#part2"})
    assert response.status_code == 302
    # the fragment is not resolved: it is handed back on the target for the client to apply
    # (a browser would lose it, as it reached the registry inside the query)
    assert response["Location"] == target.base + "/42?view=full&urn-r=lang%3Den#part2"
    _follow(response["Location"])
    assert target.requests[-1][1] == "/42?view=full&urn-r=lang%3Den"  # the resolver never sees it
    api = client.get("/api/resolve/", {"urn": EXAMPLE + "?+lang=en?=view=full#part2"}).json()
    assert api["components"] == {"r": "lang=en", "q": "view=full", "f": "part2"}
    assert api["location"] == target.base + "/42?view=full&urn-r=lang%3Den#part2"


@pytest.mark.parametrize(
    ("suffix", "bad", "says"),
    [
        ("?=a\r\nSet-Cookie: x=1", "\r", "carriage return"),
        ("?=view full", " ", "a space"),
        ("?+lang=<en>", "<", "'<'"),
        ("?=caf\u00e9", "\u00e9", "'é'"),
        ("?=100%", "%", "starts no %XX escape"),
        ("#part\r\n2", "\r", "carriage return"),
    ],
)
def test_resolve_refuses_components_outside_rfc_8141_and_follows_nothing(client, target, suffix, bad, says):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    for path in ("/resolve/", "/api/resolve/"):
        response = client.get(path, {"urn": EXAMPLE + suffix})
        assert response.status_code == 400
        assert "Location" not in response and "Set-Cookie" not in response
    page = client.get("/resolve/", {"urn": EXAMPLE + suffix})
    assert b"cannot stand in its" in page.content and b"is not a registered SNID" not in page.content
    body = client.get("/resolve/", {"urn": EXAMPLE + suffix}, HTTP_ACCEPT="application/json").json()
    assert body["errors"][0].startswith(f"Character {len(EXAMPLE) + suffix.index(bad) + 1} of the URN is")
    assert says in body["errors"][0]
    assert target.requests == []


def test_resolve_refuses_a_url_too_long_to_send_anyone_to(client, target):
    registered(
        [{"name": "main", "template": target.base + "/{nss}"}],
        grammar={"abnf": 'x = "urn:ogf:example:" 1*(ALPHA / ":")\n', "rule": "x"},
        examples={"valid": ["urn:ogf:example:a:b"], "invalid": [], "equivalent": []},
        equivalence=[],
        max_length=None,
    )
    urn = "urn:ogf:example:" + "a:" * 2000  # 4,016 characters: a URN the registry accepts
    response = client.get("/resolve/", {"urn": urn}, HTTP_ACCEPT="application/json")
    assert response.status_code == 200 and "Location" not in response  # the landing page
    body = response.json()
    assert body["location"] is None and "longer than 8,000" in body["resolvers"][0]["problem"]
    assert client.get("/resolve/", {"urn": "urn:ogf:example:" + "a:" * 1000})["Location"].startswith(target.base)
    assert len(target.requests) == 0


def test_resolve_path_form_q_component(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    response = client.get("/" + EXAMPLE + "?=view=full")
    assert response["Location"] == target.base + "/42?view=full"


def test_resolve_provider_chooses_a_named_resolver(client, target):
    registered(
        [
            {"name": "main", "template": target.base + "/a/{INDEX}"},
            {"name": "Mirror", "template": target.base + "/b/{INDEX}"},
        ]
    )
    assert client.get("/resolve/", {"urn": EXAMPLE})["Location"] == target.base + "/a/42"
    response = client.get("/resolve/", {"urn": EXAMPLE, "provider": "mirror"})
    assert response.status_code == 302 and response["Location"] == target.base + "/b/42"
    missing = client.get("/resolve/", {"urn": EXAMPLE, "provider": "nope"})
    assert missing.status_code == 404 and b"no resolver named" in missing.content


def test_resolve_negotiates_content_with_303(client, target):
    registered(
        [
            {"name": "page", "template": target.base + "/page/{INDEX}", "media_types": ["text/html"]},
            {
                "name": "meta",
                "template": target.base + "/meta/{INDEX}",
                "returns": "metadata",
                "media_types": ["application/ld+json", "application/json"],
            },
        ]
    )
    html = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_ACCEPT="text/html,*/*;q=0.8")
    assert html.status_code == 303 and html["Location"] == target.base + "/page/42"
    data = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_ACCEPT="application/ld+json")
    assert data.status_code == 303 and data["Location"] == target.base + "/meta/42"
    assert "Accept" in data["Vary"]
    assert html["ETag"] != data["ETag"]


def test_resolve_etag_revalidates_and_changes_with_the_registry(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    first = client.get("/resolve/", {"urn": EXAMPLE})
    again = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert "max-age" in first["Cache-Control"]


def test_resolve_landing_page_when_no_resolver(client):
    registered([])
    response = client.get("/resolve/", {"urn": EXAMPLE})
    assert response.status_code == 200
    assert b"declares no resolver" in response.content
    data = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_ACCEPT="application/json")
    body = data.json()
    assert body["valid"] is True and body["location"] is None and body["resolvers"] == []
    assert body["contact"] == "urn@example.net"
    assert data["Access-Control-Allow-Origin"] == "*"


def test_resolve_landing_page_when_all_resolvers_are_down(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    Resolver.objects.update(status=ResolverStatus.DOWN)
    from django.utils import timezone

    from registry.models import Namespace

    Namespace.objects.update(updated_at=timezone.now())  # as the health check does
    from registry.lookup import registry_invalidate

    registry_invalidate()
    response = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["down"] is True and body["location"] is None
    assert body["resolvers"][0]["url"] == target.base + "/42"


def test_resolve_invalid_urn_is_404_with_the_position(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    response = client.get("/resolve/", {"urn": "urn:ogf:example:cluster:2009:example.net:mark1"})
    assert response.status_code == 404
    assert b"character" in response.content.lower()
    body = client.get(
        "/resolve/", {"urn": "urn:ogf:example:cluster:2009:example.net:mark1"}, HTTP_ACCEPT="application/json"
    ).json()
    assert body["valid"] is False and body["errors"]


def test_resolve_unknown_snid_is_404_with_suggestions(client):
    registered([])
    response = client.get("/resolve/", {"urn": "urn:ogf:exampel:x"})
    assert response.status_code == 404
    assert b"urn:ogf:example:" in response.content


def test_resolve_not_a_urn_is_400_and_missing_urn_too(client):
    page = client.get("/resolve/", {"urn": "http://x"})
    assert page.status_code == 400 and b"must start with" in page.content
    assert b"is not a registered SNID" not in page.content  # it names no SNID at all
    assert client.get("/api/resolve/").status_code == 400
    refused = client.get("/api/resolve/", {"urn": "http://x"})
    assert refused.status_code == 400 and "urn:ogf:" in refused.json()["detail"]


def test_api_resolve_lists_resolvers_with_urls_and_status(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    response = client.get("/api/resolve/", {"urn": EXAMPLE})
    body = response.json()
    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == "*"
    assert body["location"] == target.base + "/42"
    assert body["resolvers"][0] == {
        "name": "main",
        "url": target.base + "/42",
        "status": "unknown",
        "primary": True,
        "returns": "landing",
        "media_types": [],
    }


def test_resolve_huge_nss_is_refused_without_following(client, target):
    registered([{"name": "main", "template": target.base + "/{nss}"}])
    response = client.get("/resolve/", {"urn": "urn:ogf:example:" + "a" * 100_000})
    assert response.status_code == 400
    assert target.requests == []


def test_resolve_crlf_in_urn_never_reaches_a_header(client, target):
    registered([{"name": "main", "template": target.base + "/{nss}"}])
    response = client.get("/resolve/", {"urn": EXAMPLE + "\r\nSet-Cookie: x=1"})
    assert response.status_code == 404
    assert "Set-Cookie" not in response


def test_resolve_without_a_urn_offers_a_form_to_people(client):
    page = client.get("/resolve/")
    assert page.status_code == 200 and b'name="urn"' in page.content
    assert client.get("/resolve/", HTTP_ACCEPT="application/json").status_code == 400


def test_resolve_path_form_reads_the_raw_uri_so_escapes_survive(client, target):
    registered(
        [{"name": "main", "template": target.base + "/q/{nss}"}],
        grammar={"abnf": 'x = "urn:ogf:example:" 1*(ALPHA / "%" 2HEXDIG)\n', "rule": "x"},
        examples={"valid": ["urn:ogf:example:a%2Fb"], "invalid": [], "equivalent": []},
        equivalence=[],
    )
    # The server passes the raw request target as RAW_URI (granian: from the proxy's X-Request-Uri);
    # PATH_INFO is decoded.
    response = client.get("/urn:ogf:example:a/b", RAW_URI="/urn:ogf:example:a%2Fb")
    assert response.status_code == 302 and response["Location"] == target.base + "/q/a%2Fb"
    assert client.get("/resolve/", {"urn": "urn:ogf:example:a%2fb"})["Location"] == target.base + "/q/a%2Fb"


def test_resolve_landing_page_for_a_signed_in_person_is_never_shared(client, applicant):
    registered([])
    anonymous = client.get("/resolve/", {"urn": EXAMPLE})
    assert "public" in anonymous["Cache-Control"] and "Cookie" in anonymous["Vary"]
    client.force_login(applicant)
    again = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_IF_NONE_MATCH=anonymous["ETag"])
    assert again.status_code == 200  # not the anonymous copy: the page shows who is signed in
    assert applicant.username.encode() in again.content
    assert "public" not in again["Cache-Control"] and "ETag" not in again
    assert "private" in again["Cache-Control"]
    unknown = client.get("/resolve/", {"urn": "urn:ogf:exampel:x"})
    assert unknown.status_code == 404 and "public" not in unknown.get("Cache-Control", "")
    data = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_ACCEPT="application/json")
    assert "public" in data["Cache-Control"]  # the JSON answer is the same for everyone


def test_resolve_landing_page_shows_the_contact_in_force(client, editor):
    from registry.stewardship import services as stewardship

    approved = registered([], editor=editor)
    request = stewardship.change_request_create(
        approved.namespace,
        "contact",
        {"registrant_public_contact": "help@example.net"},
        approved.submitter,
        reason="A role address.",
    )
    stewardship.change_request_decide(request, editor, approve=True)
    body = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_ACCEPT="application/json").json()
    assert body["contact"] == "help@example.net"
    assert b"help@example.net" in client.get("/resolve/", {"urn": EXAMPLE}).content


@pytest.mark.django_db(transaction=True)  # the change's invalidation runs on commit
def test_resolve_etag_changes_when_the_resolvers_change(client, target, editor):
    from registry.resolution.services import resolvers_replace

    registered([{"name": "main", "template": target.base + "/a/{INDEX}"}], editor=editor)
    first = client.get("/resolve/", {"urn": EXAMPLE})
    resolvers_replace("example", [{"name": "main", "template": target.base + "/b/{INDEX}"}], editor, "Moved.")
    again = client.get("/resolve/", {"urn": EXAMPLE}, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 302 and again["Location"] == target.base + "/b/42"
    assert again["ETag"] != first["ETag"]


def test_api_resolve_answers_a_cors_preflight_and_exposes_its_etag(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    origin = "https://nsi.example.org"
    preflight = client.options(
        "/api/resolve/", {"urn": EXAMPLE}, HTTP_ORIGIN=origin, HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET"
    )
    assert preflight.status_code == 200 and preflight["Access-Control-Allow-Origin"] == "*"
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    answer = client.get("/api/resolve/", {"urn": EXAMPLE}, HTTP_ORIGIN=origin)
    assert answer["Access-Control-Allow-Origin"] == "*" and "Access-Control-Allow-Credentials" not in answer
    assert "ETag" in answer["Access-Control-Expose-Headers"]


@pytest.mark.parametrize("nss", ["..", ".", "%2e%2e", "%2E.", ".%2e", "%2e"])
def test_placeholder_values_never_make_a_dot_segment(client, target, nss):
    """``/urn:ogf:example:%2e%2e`` once gave ``Location: …/id/..``: a value that would make a '.' or
    '..' path segment (as written, or decoded by the equivalence rule) gives no URL at all."""
    registered(
        [
            {"name": "main", "template": target.base + "/id/{nss}"},
            {"name": "query", "template": target.base + "/find?id={nss}", "primary": False},
        ],
        grammar={"abnf": 'x = "urn:ogf:example:" 1*("." / "%" 2HEXDIG / ALPHA)\n', "rule": "x"},
        examples={"valid": ["urn:ogf:example:a.b"], "invalid": [], "equivalent": []},
        equivalence=["percent-decode-unreserved", "case-insensitive"],
    )
    urn = "urn:ogf:example:" + nss
    for response in (client.get("/" + urn, RAW_URI="/" + urn), client.get("/resolve/", {"urn": urn})):
        location = response.get("Location", "")
        assert "/id/." not in location and "/id/%2" not in location.lower()
        # the query's value is not a path segment: that resolver answers
        assert response.status_code == 302 and "/find?id=" in location
    body = client.get("/api/resolve/", {"urn": urn}).json()
    main = body["resolvers"][0]
    assert main["url"] is None and "segment" in main["problem"]
    assert target.requests == []


def test_the_path_of_the_target_url_keeps_its_shape_for_any_value(client, target):
    registered(
        [{"name": "main", "template": target.base + "/id/{nss}/view"}],
        grammar={"abnf": 'x = "urn:ogf:example:" 1*(ALPHA / DIGIT / "." / "/" / "?" / ":" / "@" / "=")\n', "rule": "x"},
        examples={"valid": ["urn:ogf:example:a"], "invalid": [], "equivalent": []},
        equivalence=[],
    )
    from urllib.parse import urlsplit

    for nss in ("a/../../b", "@evil.example", "a?x=1", "..a", "a..", "...", "//evil.example/", ":8080"):
        location = client.get("/resolve/", {"urn": "urn:ogf:example:" + nss})["Location"]
        parts = urlsplit(location)
        assert (parts.scheme, parts.netloc) == ("http", target.base.split("//", 1)[1]), location
        assert parts.path.startswith("/id/") and parts.path.endswith("/view") and parts.path.count("/") == 3
        assert parts.query == "" and parts.fragment == ""


@pytest.mark.parametrize("path", ["/urn:ogf:", "/urn:ogf::x", "/URN:OGF:"])
def test_a_urn_naming_no_snid_gets_a_sentence_never_none(client, path):
    registered([])
    page = client.get(path)
    assert page.status_code == 404
    text = page.content.decode()
    assert "None" not in text and "names no SNID" in text and "The SNID is empty" in text
    assert 'name="urn"' in text  # a box to correct it
    body = client.get("/api/resolve/", {"urn": path[1:]}).json()
    assert not body["snid"] and body["errors"] and "None" not in body["errors"][0]


def test_the_unknown_snid_page_says_it_once_and_offers_a_box(client):
    registered([])
    page = client.get("/resolve/", {"urn": "urn:ogf:exampel:x"}).content.decode()
    assert page.count("is not a registered SNID") == 1
    assert 'name="urn"' in page and 'value="urn:ogf:exampel:x"' in page
    assert "urn:ogf:example:" in page  # the suggestion
    syntax = client.get("/resolve/", {"urn": "urn:ogf:nosuch:"}).content.decode()  # no NSS either
    assert syntax.count("is not a registered SNID") == 1 and "is empty" in syntax


def test_the_invalid_urn_page_offers_a_box_holding_what_was_typed(client, target):
    registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    urn = "urn:ogf:example:cluster:2009:example.net:mark1"
    page = client.get("/resolve/", {"urn": urn}).content.decode()
    assert f'value="{urn}"' in page and "Correct the URN" in page
    long_text = "http://" + "x" * 300
    refused = client.get("/resolve/", {"urn": long_text}).content.decode()
    assert f'value="{long_text}"' in refused  # the whole input, not the 200 characters shown


def test_a_stored_template_naming_an_address_is_never_followed(client, target):
    """Rows written before hosts had to be DNS names: no redirect, no probe, even with ?provider=."""
    approved = registered([{"name": "main", "template": target.base + "/{INDEX}"}])
    Resolver.objects.create(
        namespace=approved.namespace, name="metadata", order=1, template="http://169.254.169.254/latest/meta-data/{nss}"
    )
    Resolver.objects.create(namespace=approved.namespace, name="loopback", order=2, template="https://0x7f.1/{nss}")
    from registry.lookup import registry_invalidate

    registry_invalidate()
    for provider in ("metadata", "loopback"):
        response = client.get("/resolve/", {"urn": EXAMPLE, "provider": provider})
        assert response.status_code == 200 and "Location" not in response
        assert b"is an IP address" in response.content
    assert client.get("/resolve/", {"urn": EXAMPLE})["Location"] == target.base + "/42"
