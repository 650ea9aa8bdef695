"""The hostile-input corpus (tests/hostile/cases.json, 244 cases) against every way in.

Expected for each: a clear 4xx or an answer (never a 500), within a second, and
nothing stored half-way: a rejected save leaves the proposal exactly as it was,
an accepted one stores exactly what was sent.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from registry import interchange
from registry.forms import ProposalForm
from registry.models import Proposal

from .factories import proposal_factory

CASES = json.loads((Path(__file__).parent / "hostile" / "cases.json").read_text())
LIMIT = 1.0  # seconds per request


def expand(value):
    if isinstance(value, dict) and "repeat" in value:
        return value.get("prefix", "") + value["repeat"] * value["times"]
    return value


def body_of(case) -> bytes:
    if isinstance(case, str):
        return case.encode("utf-8", "surrogatepass")
    if "hex" in case:
        return bytes.fromhex(case["hex"])
    if "urns_repeat" in case:
        return json.dumps({"urns": [case["urns_repeat"]] * case["times"]}).encode()
    return (case["raw_prefix"] + case["repeat"] * case["times"]).encode()


def timed(call):
    started = time.perf_counter()
    response = call()
    elapsed = time.perf_counter() - started
    assert elapsed < LIMIT, f"took {elapsed:.2f} s"
    assert response.status_code < 500, response.status_code
    return response


def test_the_corpus_has_at_least_200_cases():
    assert sum(len(v) for v in CASES.values() if isinstance(v, list)) >= 200


@pytest.fixture
def registry(db):
    from registry import demo
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    return accounts


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES["lookup"], ids=lambda c: repr(c)[:40])
def test_hostile_lookups(client, registry, case, settings):
    settings.REGISTRY_ANON_RATE = "off"
    urn = expand(case)
    response = timed(lambda: client.get("/api/lookup/?urn=" + quote(urn, safe="", errors="surrogatepass")))
    body = response.json()
    assert response.status_code in (200, 400)
    assert body["detail"] if response.status_code == 400 else set(body) >= {"valid", "errors"}
    page = timed(lambda: client.get("/urn/search/?urn=" + quote(urn, safe="", errors="surrogatepass")))
    assert page.status_code == 200 and b"<script>alert" not in page.content


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES["validate_bodies"], ids=lambda c: repr(c)[:40])
def test_hostile_validate_bodies(client, registry, case, settings):
    settings.REGISTRY_ANON_RATE = "off"
    response = timed(lambda: client.generic("POST", "/api/validate/", body_of(case),
                                            content_type="application/json"))
    assert response.status_code in (200, 400, 413, 415)
    assert response.json()


@pytest.mark.django_db
@pytest.mark.parametrize("snid", CASES["snid_paths"], ids=lambda c: repr(c)[:30])
def test_hostile_snid_paths(client, registry, snid):
    path = quote(snid, safe="%")
    for url in (f"/urn/{path}/", f"/api/snids/{path}/", f"/urn/{path}/1/", f"/review/snid/{path}/"):
        response = timed(lambda url=url: client.get(url))
        assert response.status_code in (200, 301, 302, 404), (url, response.status_code)
    # look-alikes never resolve to the registered SNID they imitate
    if snid.lower() != "example" and snid.lower().startswith(("\u212a", "\uff45", "exampl\u0435", "example\u200b")):
        assert client.get(f"/urn/{path}/").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES["form_fields"], ids=lambda c: f"{c['field']}:{repr(c['value'])[:30]}")
def test_hostile_form_input_is_saved_whole_or_not_at_all(client, case):
    proposal = proposal_factory()
    before = list(Proposal.objects.filter(pk=proposal.pk).values())
    data = ProposalForm.initial_from(proposal.to_data())
    data = {key: value for key, value in data.items() if value is not None}
    data[case["field"]] = expand(case["value"])
    data["intent"] = "save"
    client.force_login(proposal.submitter)
    response = timed(lambda: client.post(f"/proposals/{proposal.pk}/edit/", data))
    stored = Proposal.objects.get(pk=proposal.pk)
    if response.status_code == 400:
        assert list(Proposal.objects.filter(pk=proposal.pk).values()) == before
        assert b'class="errors"' in response.content
    else:
        assert response.status_code == 302
        form = ProposalForm(data)
        assert form.is_valid()
        assert stored.to_data() == form.cleaned_proposal
    page = timed(lambda: client.get(f"/proposals/{proposal.pk}/")).content.lower()
    assert b"<script>alert" not in page and b"<img" not in page and b'href="javascript:' not in page


@pytest.mark.parametrize("case", CASES["interchange"], ids=lambda c: repr(c)[:40])
def test_hostile_interchange_is_refused_by_key(case):
    with pytest.raises(interchange.InterchangeError) as caught:
        interchange.load(case)
    assert all(": " in error for error in caught.value.errors)
