"""The log on the web: page, checkpoint, tiles, bundles, proofs, the lookup's proof and the SNID page."""

import base64
import datetime as dt

import orjson
import pytest
from django.utils import timezone

from registry import services
from registry.transparency.kinds import leaf_decode
from registry.transparency.merkle import leaf_hash, verify_consistency, verify_inclusion
from registry.transparency.note import Verifier, checkpoint_open
from registry.transparency.signer import log_sign
from registry.transparency.tiles import bundle_entries

from ..factories import proposal_factory

pytestmark = pytest.mark.django_db


def _checkpoint(client):
    response = client.get("/log/checkpoint")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert "no-cache" in response["Cache-Control"]
    verifier = Verifier.parse(client.get("/log/key").content.decode())
    return checkpoint_open(response.content.decode(), verifier)


@pytest.fixture
def logged(applicant, editor):
    for name in ("alpha", "beta", "gamma"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    log_sign()  # the signer's pass (in a test's transaction, the one after the commit never runs)
    return applicant


def test_log_checkpoint_is_signed_by_the_published_key(client, logged, log_key):
    checkpoint = _checkpoint(client)
    assert checkpoint.origin == "registry.test/log" and checkpoint.size == 3
    assert client.get("/log/key").content.decode().strip() == str(log_key.verifier())


def test_log_empty_log_has_a_checkpoint_of_size_zero(client):
    log_sign()
    checkpoint = _checkpoint(client)
    assert checkpoint.size == 0 and checkpoint.root.hex().startswith("e3b0c442")


def test_log_page_publishes_the_verifier_key_and_checkpoint(client, logged, log_key):
    response = client.get("/log/")
    assert response.status_code == 200
    page = response.content.decode()
    assert str(log_key.verifier()) in page
    assert "3</strong> entries" in page and "snid-version" in page and "reservation-ended" in page


def test_log_entries_bundle_holds_the_leaves_in_order(client, logged):
    response = client.get("/log/tile/entries/000.p/3")
    assert response.status_code == 200 and response["Content-Type"] == "application/octet-stream"
    assert response["Cache-Control"] == "public, max-age=60"
    leaves = [leaf_decode(leaf) for leaf in bundle_entries(response.content)]
    assert [leaf["snid"] for leaf in leaves] == ["alpha", "beta", "gamma"]


def test_log_hash_tile_holds_the_leaf_hashes(client, logged):
    bundle = bundle_entries(client.get("/log/tile/entries/000.p/3").content)
    tile = client.get("/log/tile/0/000.p/3").content
    assert tile == b"".join(leaf_hash(leaf) for leaf in bundle)
    assert client.get("/log/tile/0/000.p/2").content == tile[:64]


def test_log_full_tiles_are_immutable_for_a_year(client, applicant, editor):
    for day in range(256):
        services.namespace_reserve(f"r{day}", editor, until=timezone.localdate() + dt.timedelta(days=1),
                                   reason="x", reserved_for=applicant)
    response = client.get("/log/tile/0/000")
    assert response.status_code == 200 and len(response.content) == 256 * 32
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert client.get("/log/tile/entries/000")["Cache-Control"] == "public, max-age=31536000, immutable"
    assert client.get("/log/tile/1/000.p/1").status_code == 200


@pytest.mark.parametrize("path", ["/log/tile/0/000.p/4", "/log/tile/0/001.p/1", "/log/tile/0/000",
                                  "/log/tile/entries/000.p/9", "/log/tile/1/000.p/1", "/log/tile/0/12",
                                  "/log/tile/0/000.p/300"])
def test_log_tiles_the_log_does_not_have_are_404(client, logged, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "text/plain; charset=utf-8"


def test_log_version_proof_verifies_against_the_checkpoint(client, logged):
    checkpoint = _checkpoint(client)
    response = client.get("/api/snids/beta/versions/1/proof")
    assert response.status_code == 200
    answer = orjson.loads(response.content)
    assert (answer["snid"], answer["version"], answer["index"], answer["tree_size"]) == ("beta", 1, 1, 3)
    hashed = leaf_hash(answer["leaf"].encode())
    assert base64.b64decode(answer["leaf_hash"]) == hashed
    proof = [base64.b64decode(p) for p in answer["proof"]]
    assert verify_inclusion(1, 3, hashed, proof, checkpoint.root)
    assert answer["checkpoint"] == client.get("/log/checkpoint").content.decode()


def test_log_version_proof_against_an_earlier_size(client, logged):
    answer = orjson.loads(client.get("/api/snids/alpha/versions/1/proof?size=2").content)
    assert answer["tree_size"] == 2 and answer["checkpoint"] is None
    assert verify_inclusion(0, 2, base64.b64decode(answer["leaf_hash"]),
                            [base64.b64decode(p) for p in answer["proof"]], base64.b64decode(answer["root_hash"]))


@pytest.mark.parametrize(("path", "status", "says"), [
    ("/api/snids/alpha/versions/2/proof", 404, "not in the transparency log"),
    ("/api/snids/nothere/versions/1/proof", 404, "not in the transparency log"),
    ("/api/snids/gamma/versions/1/proof?size=1", 400, "not in a tree of size 1"),
    ("/api/snids/gamma/versions/1/proof?size=x", 400, "must be a tree size"),
])
def test_log_version_proof_refusals_say_why(client, logged, path, status, says):
    response = client.get(path)
    assert response.status_code == status
    assert says in orjson.loads(response.content)["detail"]


def test_log_consistency_proof_verifies(client, logged, applicant, editor):
    old = _checkpoint(client)
    proposal_factory(applicant, state="approved", editor=editor, snid="delta")
    log_sign()
    new = _checkpoint(client)
    answer = orjson.loads(client.get(f"/api/log/consistency/?first={old.size}").content)
    assert (answer["first"], answer["second"]) == (3, 4)
    assert verify_consistency(3, 4, old.root, new.root, [base64.b64decode(p) for p in answer["proof"]])


@pytest.mark.parametrize("query", ["", "?first=5", "?first=2&second=1", "?first=-1"])
def test_log_consistency_refusals_say_why(client, logged, query):
    response = client.get(f"/api/log/consistency/{query}")
    assert response.status_code == 400 and orjson.loads(response.content)["detail"]


def test_log_lookup_carries_the_proof_only_when_asked(client, logged):
    urn = "urn:ogf:beta:sub:value"
    plain = orjson.loads(client.get("/api/lookup/", {"urn": urn}).content)
    assert "log" not in plain
    answer = orjson.loads(client.get("/api/lookup/", {"urn": urn, "proof": "1"}).content)
    assert {k: v for k, v in answer.items() if k != "log"} == plain
    log = answer["log"]
    assert (log["snid"], log["version"], log["index"]) == ("beta", 1, 1)
    assert verify_inclusion(1, log["tree_size"], leaf_hash(log["leaf"].encode()),
                            [base64.b64decode(p) for p in log["proof"]], base64.b64decode(log["root_hash"]))


def test_log_lookup_of_an_unregistered_snid_has_no_entry(client, logged):
    answer = orjson.loads(client.get("/api/lookup/", {"urn": "urn:ogf:zeta:x", "proof": "1"}).content)
    assert answer["log"] is None and answer["valid"] is False


def test_log_snid_page_says_which_entry_and_checkpoint(client, logged):
    page = client.get("/urn/gamma/").content.decode()
    assert "in the log as entry 2, verified against checkpoint of size 3" in page
    assert 'href="/api/snids/gamma/versions/1/proof"' in page


def test_log_snid_page_says_when_a_version_is_not_signed_yet(client, applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor, snid="gamma")  # no signer pass yet
    page = client.get("/urn/gamma/").content.decode()
    assert "in the log as entry 0, not yet in a signed checkpoint" in page and "could <strong>not</strong>" not in page
