"""The full public registry (registry/exports_full.py, /urn/registry-full.json): every version, resolver,
steward and deprecation as the site publishes them, in a fixed number of queries."""

import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from registry import services
from registry.exports_full import full_document
from registry.logcore.kinds import leaf_decode
from registry.resolution.services import resolvers_replace
from registry.stewardship import services as stewardship
from registry.transparency.models import LogEntry

from .factories import proposal_factory, user_factory

pytestmark = pytest.mark.django_db


@pytest.fixture
def registry(applicant, editor):
    other_editor = user_factory("otto", editor=True)
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha", version=2, title="Alpha, again")
    proposal_factory(applicant, state="approved", editor=editor, snid="beta")
    resolvers_replace(
        "alpha", [{"name": "main", "template": "https://a.example.org/{nss}"}], other_editor, "A resolver."
    )
    namespace = services.namespace_get("beta")
    stewardship.steward_add(namespace, user_factory("sam"), editor, reason="Maintainer.")
    stewardship.snid_deprecate(namespace, editor, reason="Superseded.", successor="alpha")
    services.namespace_reserve(
        "held", editor, until=timezone.localdate() + dt.timedelta(days=9), reason="r", reserved_for=applicant
    )
    return applicant


def _leaves(kind: str) -> list[dict]:
    return [leaf_decode(e.leaf.encode()) for e in LogEntry.objects.filter(kind=kind).order_by("index")]


def test_full_export_holds_every_version_as_logged(registry):
    document = full_document()
    alpha, beta = document["snids"]
    assert [v["version"] for v in alpha["versions"]] == [1, 2] and alpha["versions"][1]["title"] == "Alpha, again"
    for leaf in _leaves("snid-version"):
        snid = next(s for s in document["snids"] if s["snid"] == leaf["snid"])
        version = next(v for v in snid["versions"] if v["version"] == leaf["version"])
        assert {k: version[k] for k in leaf["record"]} == leaf["record"]
        assert version["document_sha256"] == leaf["document_sha256"]  # recomputed from the stored document
        assert set(version["sections_sha256"]) and all(len(h) == 64 for h in version["sections_sha256"].values())


def test_full_export_holds_resolvers_stewards_deprecation_and_reservations(registry):
    alpha, beta = full_document()["snids"]
    assert [r["template"] for r in alpha["resolvers"]] == ["https://a.example.org/{nss}"]
    assert alpha["resolvers"] == _leaves("snid-resolvers")[-1]["resolvers"]
    assert alpha["status"] == "registered" and alpha["deprecation"] is None
    assert beta["status"] == "deprecated"
    assert beta["deprecation"]["reason"] == "Superseded." and beta["deprecation"]["successor"] == "alpha"
    # Named as the log names them: the name each chose, never the login name.
    logged = [leaf["steward"] for leaf in _leaves("steward-changed") if leaf["snid"] == "beta"]
    assert beta["stewards"] == [{"name": logged[0], "registrant": True}, {"name": logged[1], "registrant": False}]
    assert logged == ["a steward without a public name"] * 2 and "sam" not in json.dumps(beta["stewards"])


def test_full_export_names_a_steward_by_the_public_name_they_chose(registry):
    from django.contrib.auth import get_user_model

    stewardship.steward_public_name(get_user_model().objects.get(username="sam"), "Sam Smith")
    beta = full_document()["snids"][1]
    assert beta["stewards"][1] == {"name": "Sam Smith", "registrant": False}


def test_full_export_lists_the_active_reservations(registry):
    assert full_document()["reservations"] == [
        {"snid": "held", "reserved_until": (timezone.localdate() + dt.timedelta(days=9)).isoformat()}
    ]


def test_full_export_is_served_and_cached_with_the_other_exports(client, registry):
    response = client.get("/urn/registry-full.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert [s["snid"] for s in json.loads(response.content)["snids"]] == ["alpha", "beta"]
    assert client.get("/urn/registry-full.json", HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


def test_full_export_queries_do_not_grow_with_the_registry(registry, applicant, editor):
    with CaptureQueriesContext(connection) as few:
        full_document()
    for name in ("gamma", "delta", "epsilon"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
        stewardship.steward_add(services.namespace_get(name), user_factory(f"s-{name}"), editor, reason="r")
    with CaptureQueriesContext(connection) as more:
        document = full_document()
    assert len(document["snids"]) == 5
    assert len(more.captured_queries) == len(few.captured_queries) <= 10


def test_full_export_lists_a_deactivated_accounts_stewardship_without_saying_so(registry):
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username="sam").update(is_active=False)
    beta = full_document()["snids"][1]
    assert beta["stewards"][1] == {"name": "a steward without a public name", "registrant": False}  # not ended


def test_full_export_command_prints_the_document(registry):
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("export_registry", "--format", "full", stdout=out)
    assert [s["snid"] for s in json.loads(out.getvalue())["snids"]] == ["alpha", "beta"]
