"""GET /api/lookup/ and POST /api/validate/."""

import time

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils.http import parse_http_date

from registry import services
from registry.lookup import STAMP_TTL, registry_index, registry_invalidate

from ..conftest import database_lost
from ..factories import approve, proposal_factory, user_factory

LOOKUP_KEYS = {"urn", "normalized", "snid", "registered", "valid", "grammar_checked", "errors", "registration"}


def lookup(client, urn, **headers):
    return client.get("/api/lookup/", {"urn": urn}, **headers)


@pytest.mark.django_db
def test_lookup_contract_for_a_valid_urn(client, demo_registry):
    response = lookup(client, "URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42")
    assert response.status_code == 200
    assert response.json() == {
        "urn": "URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42",
        "normalized": "urn:ogf:example:cluster:2009:example.net:42",
        "snid": "example",
        "registered": True,
        "valid": True,
        "grammar_checked": True,
        "errors": [],
        "registration": {
            "snid": "example",
            "version": 1,
            "url": f"{settings.SITE_URL}/urn/example/",
            "status": "registered",
            "successor": None,
            "successors": [],
            "successor_current": None,
        },
    }


@pytest.mark.django_db
def test_lookup_of_an_invalid_urn_says_why(client, demo_registry):
    body = lookup(client, "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1").json()
    assert (body["registered"], body["valid"]) == (True, False)
    assert body["errors"] == [
        "The URN does not match the grammar's rule 'EXAMPLE-URN'. At character 66 ('m'): expected a digit (rule INDEX)."
    ]


@pytest.mark.django_db
def test_lookup_normalises_with_the_snids_equivalence_rule(client, demo_registry):
    # fdc: RFC 6453 plus percent-hex case-insensitivity; the rest stays case-sensitive
    body = lookup(client, "urn:ogf:FDC:example.com:2002:A%2fb").json()
    assert body["normalized"] == "urn:ogf:fdc:example.com:2002:A%2Fb"
    assert body["valid"] is True


@pytest.mark.django_db
def test_unregistered_and_pending_snids_are_invalid(client, demo_registry):
    for urn in ("urn:ogf:nothing:x", "urn:ogf:img:example.com:20040101:root"):
        body = lookup(client, urn).json()
        assert (body["registered"], body["valid"], body["registration"]) == (False, False, None)
        assert "RFC 6453 §2.12" in body["errors"][0]


@pytest.mark.django_db
def test_lookup_syntax_error_is_located(client, demo_registry):
    body = lookup(client, "urn:ogf:example:a%zz").json()
    assert (body["registered"], body["valid"], body["normalized"]) == (True, False, None)
    assert body["errors"] == [
        "'%' at character 18 must be followed by two hexadecimal digits (a percent-encoded octet)."
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({}, "Give the URN to look up"),
        ({"urn": ""}, "Give the URN to look up"),
        ({"urn": "urn:isbn:0451450523"}, "is not a urn:ogf: URN"),
        ({"urn": "http://example.org/"}, "is not a urn:ogf: URN"),
        ({"urn": "urn:ogf:example:" + "a" * 5000}, "the limit is 4,096"),
    ],
)
def test_lookup_400s_say_what_is_wrong(client, query, message):
    response = client.get("/api/lookup/", query)
    assert response.status_code == 400
    assert message in response.json()["detail"]


@pytest.mark.django_db
def test_lookup_carries_etag_and_answers_304(client, demo_registry):
    first = lookup(client, "urn:ogf:example:cluster:2009:example.net:42")
    assert first["Cache-Control"] == "public, max-age=60"
    again = lookup(client, "urn:ogf:example:cluster:2009:example.net:42", HTTP_IF_NONE_MATCH=first["ETag"])
    assert (again.status_code, again.content) == (304, b"")


@pytest.mark.django_db
def test_lookup_is_usable_from_other_origins(client, demo_registry):
    response = lookup(client, "urn:ogf:fdc:a.b:2002:x", HTTP_ORIGIN="https://nsi.example.org")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response


@pytest.mark.django_db
def test_lookup_preflight_lets_a_script_revalidate_with_if_none_match(client, demo_registry):
    preflight = client.options(
        "/api/lookup/",
        {"urn": "urn:ogf:fdc:a.b:2002:x"},
        HTTP_ORIGIN="https://nsi.example.org",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="if-none-match",
    )
    assert preflight.status_code == 200
    assert "if-none-match" in preflight["Access-Control-Allow-Headers"].lower()


@pytest.mark.django_db
def test_lookup_runs_no_query_once_warm(client, demo_registry, django_assert_num_queries):
    with django_assert_num_queries(4):  # stamp, index, this SNID's validator, the published checkpoint (once)
        lookup(client, "urn:ogf:example:cluster:2009:example.net:42")
    with django_assert_num_queries(1):  # another SNID's validator, on its first lookup
        lookup(client, "urn:ogf:fdc:example.com:2002:A572007")
    with django_assert_num_queries(0):
        lookup(client, "urn:ogf:fdc:example.org:20010527:img089322-038")
        lookup(client, "urn:ogf:example:cluster:2010:example.net:7")


@pytest.mark.django_db
def test_validators_preloaded_at_start_answer_every_snids_first_lookup_without_a_query(
    client, demo_registry, django_assert_num_queries
):
    from registry.lookup import registry_index, validators_preload

    index = registry_index()
    with django_assert_num_queries(1):  # one batch
        assert validators_preload(index) == len(index.entries) >= 2
    with django_assert_num_queries(0):
        for urn in ("urn:ogf:example:cluster:2009:example.net:42", "urn:ogf:fdc:example.com:2002:A572007"):
            assert lookup(client, urn).json()["valid"]
    assert validators_preload(index) == 0  # nothing left to read


@pytest.mark.django_db
def test_validators_preload_stops_at_its_deadline(demo_registry, django_assert_num_queries):
    import time

    from registry.lookup import registry_index, validators_preload

    index = registry_index()
    with django_assert_num_queries(0):
        assert validators_preload(index, deadline=time.monotonic() - 1) == 0
    assert not any(entry._loaded for entry in index.entries.values())


@pytest.mark.django_db
def test_index_is_invalidated_when_a_version_is_approved(client, django_capture_on_commit_callbacks):
    applicant, editor = user_factory(), user_factory(editor=True)
    urn = "urn:ogf:example:cluster:2009:example.net:42"
    assert lookup(client, urn).json()["registered"] is False
    proposal = proposal_factory(applicant, state="submitted")
    with django_capture_on_commit_callbacks(execute=True):
        approve(proposal, editor)
    assert lookup(client, urn).json()["valid"] is True


@pytest.mark.django_db
def test_other_processes_see_a_new_version_through_the_stamp(client, monkeypatch):
    import registry.lookup as lookup_module

    urn = "urn:ogf:example:cluster:2009:example.net:42"
    assert lookup(client, urn).json()["registered"] is False
    proposal_factory(state="approved")  # on_commit does not run here: like another process
    assert lookup(client, urn).json()["registered"] is False  # within STAMP_TTL: still the old index
    monkeypatch.setattr(lookup_module, "_checked_at", lookup_module._checked_at - STAMP_TTL - 1)
    assert lookup(client, urn).json()["registered"] is True
    assert "example" in registry_index().entries


@pytest.mark.django_db
@override_settings(REGISTRY_ANON_RATE="3/min")
def test_anonymous_lookups_are_throttled_with_retry_after(client):
    from django.core.cache import cache

    cache.clear()
    codes = [lookup(client, "urn:ogf:x:y").status_code for _ in range(4)]
    response = lookup(client, "urn:ogf:x:y")
    assert codes == [200, 200, 200, 429]
    assert int(response["Retry-After"]) > 0
    assert "throttled" in response.json()["detail"].lower()
    cache.clear()


# --- bulk -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_validate_keeps_order_and_answers_like_lookup(client, demo_registry):
    urns = [
        "urn:ogf:fdc:example.com:2002:A572007",
        "not-a-urn",
        "urn:ogf:example:cluster:2009:example.net:42",
        "urn:ogf:urn-5:x",
    ]
    response = client.post("/api/validate/", {"urns": urns}, content_type="application/json")
    results = response.json()["results"]
    assert [r["urn"] for r in results] == urns
    assert [r["valid"] for r in results] == [True, False, True, False]
    assert all(set(r) == LOOKUP_KEYS for r in results)
    assert results[0] == lookup(client, urns[0]).json()


@pytest.mark.django_db
def test_validate_accepts_10000_and_refuses_more(client, demo_registry):
    batch = [f"urn:ogf:fdc:example.com:2002:A{i}" for i in range(10_000)]
    response = client.post("/api/validate/", {"urns": batch}, content_type="application/json")
    assert response.status_code == 200 and len(response.json()["results"]) == 10_000
    response = client.post("/api/validate/", {"urns": batch + ["one more"]}, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["detail"] == "10,001 URNs sent; at most 10,000 per request."


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"urns": "urn:ogf:a:b"}', 'Send a JSON object {"urns"'),
        ("[]", 'Send a JSON object {"urns"'),
        ('{"urns": [1]}', "urns[0] must be a string."),
        ("{not json", "JSON parse error"),
    ],
)
def test_validate_400s_say_what_is_wrong(client, body, message):
    response = client.post("/api/validate/", body, content_type="application/json")
    assert response.status_code == 400
    assert message in response.json()["detail"]


@pytest.mark.django_db
def test_lookups_never_compile_a_grammar(client, demo_registry, monkeypatch):
    import registry.grammar.compiler as compiler

    compiler.cache_clear()

    def refuse(*args, **kwargs):
        raise AssertionError("a lookup compiled a grammar")

    monkeypatch.setattr(compiler, "_compile", refuse)
    for urn in ("urn:ogf:example:cluster:2009:example.net:42", "urn:ogf:fdc:example.com:2002:A572007"):
        assert lookup(client, urn).json()["valid"] is True
    response = client.post("/api/validate/", {"urns": ["urn:ogf:fdc:a.b:2002:x"] * 3}, content_type="application/json")
    assert [r["valid"] for r in response.json()["results"]] == [True] * 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        "urn=urn:ogf:example:%00abc",
        "urn=urn:ogf:example:%FF%FE",
        "urn=urn:ogf:%E2%84%AAelvin:x",  # KELVIN SIGN, a look-alike of K
        "urn=urn:ogf:%EF%BD%85xample:x",  # fullwidth e
        "urn=urn:ogf:..%2F..:x",
        "urn=" + "urn:ogf:a:" + "b" * 100_000,
        "urn=urn:ogf:example:x&urn=urn:ogf:other:y",
    ],
)
def test_hostile_lookups_get_a_clear_answer_never_a_500(client, demo_registry, query):
    response = client.get("/api/lookup/?" + query)
    assert response.status_code in (200, 400)
    body = response.json()
    assert body.get("detail") or body["valid"] is False or body["registered"] is True


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("[" * 5000 + "]" * 5000, "application/json"),
        ('{"urns": ' + "[" * 3000 + "]" * 3000 + "}", "application/json"),
        ("urns=urn:ogf:a:b", "application/x-www-form-urlencoded"),
        (b"\xff\xfe\x00", "application/json"),
        ('{"urns": null}', "application/json"),
    ],
)
def test_hostile_bodies_get_a_4xx_never_a_500(client, body, content_type):
    response = client.post("/api/validate/", body, content_type=content_type)
    assert 400 <= response.status_code < 500
    assert response.json()["detail"]


# --- the WSGI fast path answers exactly as the full stack ---------------------------------------

HOT_CORPUS = [  # (query string, answered by the fast path)
    ("urn=URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42", True),  # valid, normalised
    ("urn=urn:ogf:fdc:example.com:2002:A%252fb", True),  # valid, percent-encoding normalised
    ("urn=urn%3Aogf%3Afdc%3Aexample.org%3A20010527%3Aimg089322-038", True),  # escaped colons
    ("urn=urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1", True),  # grammar says no
    ("urn=urn:ogf:example:a%25zz", True),  # syntax error, located
    ("urn=urn:ogf:example:a+b", True),  # '+' is a space, as in request.GET
    ("urn=urn:ogf:nothing:x", True),  # not registered
    ("urn=urn:ogf:img:example.com:20040101:root", True),  # pending, not registered
    ("urn=urn:ogf:held:x", True),  # reserved
    ("urn=urn:ogf:%E2%84%AAelvin:x", True),  # look-alike SNID
    ("urn=urn:ogf:example:%FF%FE", True),  # bad UTF-8 escapes
    ("urn=urn:isbn:0451450523", False),  # foreign: 400 through Django
    ("urn=http://example.org/", False),
    ("urn=", False),
    ("", False),
    ("urn=urn:ogf:example:" + "a" * 5000, False),  # over the length cap
    ("urn=urn:ogf:example:x&urn=urn:ogf:fdc:y", False),  # two parameters: request.GET decides
    ("other=1", False),
]


def wsgi_environ(query: str, **extra) -> dict:
    from django.test import RequestFactory

    environ = RequestFactory().get("/api/lookup/").environ
    return {**environ, "QUERY_STRING": query, "HTTP_HOST": "testserver", **extra}


def full_stack(environ: dict) -> tuple[str, dict, bytes]:
    from django.core.handlers.wsgi import WSGIHandler

    seen = {}
    body = b"".join(WSGIHandler()(dict(environ), lambda status, headers: seen.update(s=status, h=headers)))
    return seen["s"], _header_map(seen["h"]), body


def _header_map(headers) -> dict:
    return {name.lower(): value for name, value in headers}


@pytest.fixture
def hot_registry(demo_registry, editor):
    import datetime as dt

    services.namespace_reserve("held", editor, until=dt.date.today() + dt.timedelta(days=30), reason="tests")
    registry_invalidate()
    return demo_registry


def fast_answer(environ):
    from registry.api.hotpath import fast_lookup

    answer = fast_lookup(dict(environ))
    return answer and (answer[0], _header_map(answer[1]), answer[2])


@pytest.mark.django_db
@pytest.mark.parametrize(("query", "answered"), HOT_CORPUS)
def test_fast_lookup_answers_exactly_as_the_full_stack(hot_registry, keep_connection, query, answered):
    for warm in ("urn=urn:ogf:example:cluster:2009:example.net:42", "urn=urn:ogf:fdc:example.com:2002:A1"):
        full_stack(wsgi_environ(warm))  # as on a running server: index and validators loaded
    environ = wsgi_environ(query)
    expected = full_stack(environ)
    registry_index().answers.clear()  # the fast path computes its own answer
    assert fast_answer(environ) == (expected if answered else None)
    assert fast_answer(environ) == (expected if answered else None)  # and again from its table


@pytest.mark.django_db
@pytest.mark.parametrize("query", [q for q, answered in HOT_CORPUS if answered][:3])
def test_fast_lookup_304_and_https_headers_equal_the_full_stack(hot_registry, keep_connection, settings, query):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS, settings.SECURE_HSTS_PRELOAD = 3600, True
    environ = wsgi_environ(query, HTTP_X_FORWARDED_PROTO="https")
    first = full_stack(environ)
    assert first[1]["strict-transport-security"] == "max-age=3600; preload"
    assert fast_answer(environ) == first
    conditional = {**environ, "HTTP_IF_NONE_MATCH": f'"other", W/{first[1]["etag"]}'}
    expected = full_stack(conditional)
    assert expected[0].startswith("304") and expected[2] == b""
    assert fast_answer(conditional) == expected


@pytest.mark.django_db
def test_fast_lookup_leaves_cold_indexes_cors_and_foreign_hosts_to_django(hot_registry, keep_connection):
    query = "urn=urn:ogf:fdc:example.com:2002:A572007"
    assert fast_answer(wsgi_environ(query)) is None  # no index yet: Django builds it
    full_stack(wsgi_environ("urn=urn:ogf:nothing:x"))
    assert fast_answer(wsgi_environ(query)) is None  # fdc's validator not loaded: Django reads it
    full_stack(wsgi_environ(query))
    assert fast_answer(wsgi_environ(query))[0] == "200 OK"
    assert fast_answer(wsgi_environ(query, HTTP_ORIGIN="https://nsi.example.org")) is None
    assert fast_answer(wsgi_environ(query, HTTP_HOST="evil.example")) is None
    assert full_stack(wsgi_environ(query, HTTP_HOST="evil.example"))[0].startswith("400")
    assert fast_answer({**wsgi_environ(query), "REQUEST_METHOD": "HEAD"}) is None


@pytest.mark.django_db
def test_fast_lookup_throttles_like_the_drf_view(hot_registry, keep_connection, settings):
    from django.core.cache import cache

    from registry.wsgi import application

    settings.REGISTRY_ANON_RATE = "3/min"
    cache.clear()
    environ = wsgi_environ("urn=urn:ogf:nothing:x")
    full_stack(environ)  # 1: Django (and the index is warm now)
    assert fast_answer(environ)[0] == "200 OK"  # 2
    assert fast_answer(environ)[0] == "200 OK"  # 3
    assert fast_answer(environ) is None  # 4: over the limit, Django answers 429
    seen = {}
    body = b"".join(application(dict(environ), lambda status, headers: seen.update(s=status, h=headers)))
    assert seen["s"].startswith("429") and b"throttled" in body
    assert int(_header_map(seen["h"])["retry-after"]) > 0
    cache.clear()


@pytest.mark.django_db
def test_fast_lookup_sees_an_approval_through_the_stamp(hot_registry, keep_connection, monkeypatch):
    import registry.lookup as lookup_module

    query = "urn=urn:ogf:example:cluster:2009:example.net:42"
    full_stack(wsgi_environ(query))
    before = fast_answer(wsgi_environ(query))
    proposal_factory(name="fdc", state="approved", snid="later")  # as another process would
    monkeypatch.setattr(lookup_module, "_checked_at", lookup_module._checked_at - STAMP_TTL - 1)
    assert fast_answer(wsgi_environ(query)) is None  # stale: Django checks the stamp
    after = full_stack(wsgi_environ(query))
    assert after[1]["etag"] != before[1]["etag"]
    assert fast_answer(wsgi_environ(query)) == after


@pytest.mark.django_db
def test_snids_with_the_same_grammar_share_one_validator(client):
    from benchmarks.data import populate

    populate(3)
    answers = [lookup(client, f"urn:ogf:bench{n}:example.com:2002:x").json() for n in range(3)]
    assert [a["grammar_checked"] for a in answers] == [True, True, True]
    entries = registry_index().entries
    assert entries["bench0"].validator is entries["bench2"].validator


# --- the database lost: the index in memory keeps answering, for a bounded time ---------------------

REGISTERED = "urn:ogf:example:cluster:2009:example.net:42"


def _stamp_checked_long_ago(monkeypatch):
    import registry.lookup as lookup_module

    monkeypatch.setattr(lookup_module, "_checked_at", lookup_module._checked_at - STAMP_TTL - 1)


@pytest.mark.django_db
def test_lookups_are_answered_from_the_index_while_the_database_is_lost(client, demo_registry, monkeypatch):
    assert lookup(client, REGISTERED).json()["registered"] is True  # the index and example's validator
    confirmed = time.time()
    assert "Registry-As-Of" not in lookup(client, REGISTERED)
    _stamp_checked_long_ago(monkeypatch)
    with database_lost():
        answer = lookup(client, REGISTERED)
        assert answer.status_code == 200 and answer.json()["valid"] is True
        # The answer says it is the registry as the database last confirmed it, and is not cached as fresh.
        as_of = parse_http_date(answer["Registry-As-Of"])
        assert confirmed - 5 <= as_of <= confirmed + 1
        assert answer["Cache-Control"] == "public, max-age=60, no-cache"
        assert lookup(client, "urn:ogf:nosuchsnid:x").json()["registered"] is False
        batch = client.post(
            "/api/validate/", {"urns": [REGISTERED, "urn:ogf:nosuchsnid:x"]}, content_type="application/json"
        )
        assert [item["registered"] for item in batch.json()["results"]] == [True, False]
        not_loaded = lookup(client, "urn:ogf:fdc:a")  # fdc's validator needs a query
    assert (not_loaded.status_code, not_loaded["Retry-After"]) == (503, "30")
    assert "could not reach its database" in not_loaded.json()["detail"]
    still = lookup(client, REGISTERED)  # the database is asked again once per stamp interval
    assert still.json()["registered"] is True and still["Registry-As-Of"]
    import registry.lookup as lookup_module

    monkeypatch.setattr(lookup_module, "_unreachable_at", lookup_module._unreachable_at - STAMP_TTL - 1)
    back = lookup(client, REGISTERED)
    assert back.json()["registered"] is True and "Registry-As-Of" not in back  # the database back
    assert back["Cache-Control"] == "public, max-age=60"


@pytest.mark.django_db
def test_the_lost_database_is_asked_again_once_per_stamp_interval(client, demo_registry, monkeypatch):
    from django.db import OperationalError, connection

    lookup(client, REGISTERED)
    _stamp_checked_long_ago(monkeypatch)
    tries = []

    def refuse(execute, sql, params, many, context):
        tries.append(sql)
        raise OperationalError("server closed the connection unexpectedly")

    with connection.execute_wrapper(refuse):
        answers = [lookup(client, REGISTERED).status_code for _ in range(5)]
    assert answers == [200] * 5 and len(tries) == 1


@pytest.mark.django_db
def test_the_index_answers_no_longer_than_the_stale_limit(client, demo_registry, monkeypatch, settings):
    lookup(client, REGISTERED)
    _stamp_checked_long_ago(monkeypatch)
    settings.REGISTRY_LOOKUP_STALE_SECONDS = STAMP_TTL  # the index was checked longer ago than that
    with database_lost():
        answer = lookup(client, REGISTERED)
    assert answer.status_code == 503 and "could not reach its database" in answer.json()["detail"]


@pytest.mark.django_db
def test_other_database_errors_are_never_hidden_behind_the_index(demo_registry, monkeypatch):
    from django.db import OperationalError, connection

    registry_index()
    _stamp_checked_long_ago(monkeypatch)

    def broken(execute, sql, params, many, context):
        raise OperationalError("no such table: registry_namespace")

    with connection.execute_wrapper(broken), pytest.raises(OperationalError, match="no such table"):
        registry_index()


@pytest.mark.django_db
def test_an_answer_from_memory_keeps_what_was_private_private(rf, demo_registry, monkeypatch):
    from django.http import HttpResponse

    from registry.lookup import AnsweredFromMemoryMiddleware

    registry_index()
    _stamp_checked_long_ago(monkeypatch)

    def view(request):
        registry_index()  # from memory: the database is lost
        response = HttpResponse("a landing page for a signed-in person")
        response["Cache-Control"] = "private, max-age=60"
        return response

    with database_lost():
        response = AnsweredFromMemoryMiddleware(view)(rf.get("/resolve/"))
    assert response["Registry-As-Of"]
    assert set(response["Cache-Control"].split(", ")) == {"private", "max-age=60", "no-cache"}
    fresh = AnsweredFromMemoryMiddleware(lambda request: HttpResponse("x"))(rf.get("/"))
    assert "Registry-As-Of" not in fresh  # a request that did not use the index says nothing


@pytest.mark.django_db
def test_lookup_page_url_is_the_url_configurations_own(client, demo_registry):
    """The answer's page link is written without reversing (the lookup imports no URL configuration):
    it must still be the URL Django routes to the SNID's page."""
    from django.urls import resolve, reverse

    url = lookup(client, "urn:ogf:example:cluster:2009:example.net:42").json()["registration"]["url"]
    path = reverse("registry:namespace_detail", args=["example"])
    assert url == settings.SITE_URL + path
    assert resolve(path).url_name == "namespace_detail"
