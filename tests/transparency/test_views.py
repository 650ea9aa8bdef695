"""The log on the web: page, checkpoint, tiles, bundles, proofs, the lookup's proof and the SNID page."""

import base64
import datetime as dt
import gzip

import orjson
import pytest
from django.utils import timezone

from registry import services
from registry.logcore.kinds import leaf_decode
from registry.logcore.merkle import leaf_hash, verify_consistency, verify_inclusion
from registry.logcore.note import Verifier, checkpoint_open
from registry.logcore.tiles import bundle_entries
from registry.transparency.signer import log_sign

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
    assert checkpoint.origin == "registry.test/log" and checkpoint.size == 6  # each version and its first steward
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
    assert "6</strong> entries" in page and "snid-version" in page and "reservation-ended" in page


def test_log_page_names_the_site_url_in_the_verify_command_whatever_host_is_asked(client, logged, settings):
    settings.SITE_URL = "https://registry.test"
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "alpha.test"]
    page = client.get("/log/", HTTP_HOST="alpha.test").content.decode()
    assert "python -m registry.verify https://registry.test/ --key" in page
    assert "alpha.test" not in page


def test_log_page_lists_the_latest_entries_in_words(client, logged, editor):
    until = timezone.localdate() + dt.timedelta(days=9)
    services.namespace_reserve("held", editor, until=until, reason="r")
    page = client.get("/log/").content.decode()
    assert "``" not in page and "{&quot;" not in page  # no literal markup, no leaf JSON
    assert page.index("<h1") < page.index('<h2 id="entries">Latest entries</h2>') < page.index("<h2>Verifier key")
    assert "7 entries, newest first" in page  # three versions, their registrants' stewardships, the reservation
    assert page.index(f"Reserved until {until.isoformat()}") < page.index("Registered: “Example-URN")  # newest first
    assert (
        '<a href="/api/log/entries/6/proof"' in page and '<a href="/urn/held/"><code>urn:ogf:held:</code></a>' in page
    )
    assert '<th scope="col">What changed</th>' in page


def test_log_page_is_paged_in_a_fixed_number_of_queries(client, logged, editor):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from registry.transparency.log import log_published_forget

    client.get("/log/")  # the worker's first look keeps the checkpoint it serves on disk (its floor), once
    log_published_forget()  # each request reads the published checkpoint (workers reuse it for a second)
    with CaptureQueriesContext(connection) as few:
        client.get("/log/")
    until = timezone.localdate() + dt.timedelta(days=5)
    for n in range(30):
        services.namespace_reserve(f"held{n}", editor, until=until, reason="r")
    client.get("/log/")  # a larger checkpoint: checked against the table and kept on disk, once
    log_published_forget()
    with CaptureQueriesContext(connection) as many:
        first = client.get("/log/").content.decode()
    assert len(many.captured_queries) == len(few.captured_queries)
    assert "page 1 of 2" in first and "urn:ogf:held29:" in first and "urn:ogf:alpha:" not in first
    second = client.get("/log/?page=2").content.decode()
    assert "urn:ogf:alpha:" in second and "urn:ogf:held29:" not in second and "← newer" in second
    assert client.get("/log/?page=\u0662").content.decode().count("page 1 of 2") == 2  # ASCII page numbers only


@pytest.mark.parametrize(
    ("leaf", "words"),
    [
        ({"kind": "snid-version", "version": 2, "record": {"title": "T"}}, ("Version 2 registered: “T”", "")),
        (
            {"kind": "reservation-granted", "reserved_until": None, "renewal": True},
            ("Reservation renewed until further notice", ""),
        ),
        (
            {"kind": "reservation-ended", "reserved_until": "2030-01-01", "how": "expired"},
            ("Reservation expired (it ran until 2030-01-01)", ""),
        ),
        (
            {
                "kind": "snid-resolvers",
                "version": 1,
                "how": "changed",
                "reason": "Moved.",
                "resolvers": [{"name": "main", "template": "https://x.example/{nss}"}],
            },
            ("Resolvers set by an editor: “main” (https://x.example/{nss})", "Moved."),
        ),
        (
            {"kind": "steward-changed", "change": "removed", "steward": "Sam", "reason": "Left."},
            ("Steward removed: Sam", "Left."),
        ),
        (
            {"kind": "steward-renamed", "steward": "Sam Smith", "previous": "Sam"},
            ("Steward renamed: Sam is now shown as Sam Smith", ""),
        ),
        (
            {"kind": "administrative-change", "version": 1, "change": "contact", "fields": {"contact": "a@b.example"}},
            ("Public contact of version 1 changed: public contact now “a@b.example”", ""),
        ),
        (
            {"kind": "snid-deprecated", "reason": "Old.", "successor": "beta"},
            ("Deprecated; its successor is urn:ogf:beta:", "Old."),
        ),
        ({"kind": "snid-undeprecated", "reason": "Back."}, ("Deprecation withdrawn", "Back.")),
    ],
)
def test_log_every_kind_of_entry_is_said_in_words(leaf, words):
    from registry.logcore.kinds import KINDS
    from registry.transparency.entries import entry_in_words

    assert entry_in_words(leaf) == words
    assert leaf["kind"] in KINDS


@pytest.mark.parametrize(
    ("before", "after", "words"),
    [
        ([], [{"name": "a", "template": "https://a/{nss}"}], "added “a” (https://a/{nss})"),
        (
            [{"name": "a", "template": "https://a/{nss}"}, {"name": "b", "template": "https://b/{nss}"}],
            [{"name": "a", "template": "https://a2/{nss}"}, {"name": "c", "template": "https://c/{nss}"}],
            "added “c” (https://c/{nss}), removed “b”, changed “a”",
        ),
        (
            [{"name": "a", "template": "x"}, {"name": "b", "template": "y"}],
            [{"name": "b", "template": "y"}, {"name": "a", "template": "x"}],
            "put in a new order",
        ),
    ],
)
def test_log_a_resolver_change_is_said_as_what_was_added_removed_or_changed(before, after, words):
    from registry.transparency.entries import entry_in_words

    leaf = {"kind": "snid-resolvers", "version": 1, "how": "changed", "reason": "R.", "resolvers": after}
    assert entry_in_words(leaf, before) == (f"Resolvers changed: {words}", "R.")
    assert "|" not in entry_in_words(leaf, before)[0]


def test_log_any_entry_has_its_proof(client, logged):
    checkpoint = _checkpoint(client)
    answer = orjson.loads(client.get("/api/log/entries/2/proof").content)
    assert answer["index"] == 2 and answer["tree_size"] == 6 and '"snid":"beta"' in answer["leaf"]
    proof = [base64.b64decode(h) for h in answer["proof"]]
    assert verify_inclusion(2, 6, leaf_hash(answer["leaf"].encode()), proof, checkpoint.root)
    missing = client.get("/api/log/entries/6/proof")
    assert missing.status_code == 404 and "has no entry 6 (it has 6 entries)" in orjson.loads(missing.content)["detail"]


def test_log_entries_bundle_holds_the_leaves_in_order(client, logged):
    response = client.get("/log/tile/entries/000.p/6")
    assert response.status_code == 200 and response["Content-Type"] == "application/octet-stream"
    assert response["Cache-Control"] == "public, max-age=60"
    leaves = [leaf_decode(leaf) for leaf in bundle_entries(response.content)]
    assert [(leaf["kind"], leaf["snid"]) for leaf in leaves] == [
        (kind, snid) for snid in ("alpha", "beta", "gamma") for kind in ("snid-version", "steward-changed")
    ]


@pytest.mark.parametrize(
    ("accept", "compressed"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("*", True),
        ("gzip;q=0, identity", False),
        ("identity", False),
        ("", False),
        ("br;q=1, *;q=0.5", True),
        ("*;q=0", False),
    ],
)
def test_log_entry_bundles_are_gzipped_when_asked(client, logged, accept, compressed):
    plain = client.get("/log/tile/entries/000.p/3").content
    response = client.get("/log/tile/entries/000.p/3", HTTP_ACCEPT_ENCODING=accept)
    assert "Accept-Encoding" in response["Vary"]
    if compressed:
        assert response["Content-Encoding"] == "gzip"
        assert gzip.decompress(response.content) == plain and len(response.content) < len(plain)
    else:
        assert not response.has_header("Content-Encoding") and response.content == plain


def test_log_hash_tiles_are_not_compressed(client, logged):
    response = client.get("/log/tile/0/000.p/3", HTTP_ACCEPT_ENCODING="gzip")
    assert not response.has_header("Content-Encoding") and len(response.content) == 96


def test_log_hash_tile_holds_the_leaf_hashes(client, logged):
    bundle = bundle_entries(client.get("/log/tile/entries/000.p/3").content)
    tile = client.get("/log/tile/0/000.p/3").content
    assert tile == b"".join(leaf_hash(leaf) for leaf in bundle)
    assert client.get("/log/tile/0/000.p/2").content == tile[:64]


def test_log_full_tiles_are_immutable_for_a_year(client, applicant, editor):
    for day in range(256):
        services.namespace_reserve(
            f"r{day}", editor, until=timezone.localdate() + dt.timedelta(days=1), reason="x", reserved_for=applicant
        )
    response = client.get("/log/tile/0/000")
    assert response.status_code == 200 and len(response.content) == 256 * 32
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert client.get("/log/tile/entries/000")["Cache-Control"] == "public, max-age=31536000, immutable"
    assert client.get("/log/tile/1/000.p/1").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/log/tile/0/000.p/7",
        "/log/tile/0/001.p/1",
        "/log/tile/0/000",
        "/log/tile/entries/000.p/9",
        "/log/tile/1/000.p/1",
        "/log/tile/0/12",
        "/log/tile/0/000.p/300",
        "/log/tile/00/000.p/1",
        "/log/tile/0/000.p/01",
        "/log/tile/entries/0000.p/1",
        "/log/tile/0/x000/000.p/1",
    ],
)
def test_log_tiles_the_log_does_not_have_are_404(client, logged, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "text/plain; charset=utf-8"


def test_log_version_proof_verifies_against_the_checkpoint(client, logged):
    checkpoint = _checkpoint(client)
    response = client.get("/api/snids/beta/versions/1/proof")
    assert response.status_code == 200
    answer = orjson.loads(response.content)
    assert (answer["snid"], answer["version"], answer["index"], answer["tree_size"]) == ("beta", 1, 2, 6)
    hashed = leaf_hash(answer["leaf"].encode())
    assert base64.b64decode(answer["leaf_hash"]) == hashed
    proof = [base64.b64decode(p) for p in answer["proof"]]
    assert verify_inclusion(2, 6, hashed, proof, checkpoint.root)
    assert answer["checkpoint"] == client.get("/log/checkpoint").content.decode()


def test_log_version_proof_against_an_earlier_size(client, logged):
    answer = orjson.loads(client.get("/api/snids/alpha/versions/1/proof?size=2").content)
    assert answer["tree_size"] == 2 and answer["checkpoint"] is None
    assert verify_inclusion(
        0,
        2,
        base64.b64decode(answer["leaf_hash"]),
        [base64.b64decode(p) for p in answer["proof"]],
        base64.b64decode(answer["root_hash"]),
    )


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/api/snids/alpha/versions/2/proof", 404, "not in the transparency log"),
        ("/api/snids/nothere/versions/1/proof", 404, "not in the transparency log"),
        ("/api/snids/gamma/versions/1/proof?size=1", 400, "not in a tree of size 1"),
        ("/api/snids/gamma/versions/1/proof?size=x", 400, "must be a tree size"),
        ("/api/snids/gamma/versions/1/proof?size=\u0663", 400, "must be a tree size"),
        ("/api/log/consistency/?first=\u0661", 400, "must be a tree size"),
    ],
)
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
    assert (answer["first"], answer["second"]) == (6, 8)
    assert verify_consistency(6, 8, old.root, new.root, [base64.b64decode(p) for p in answer["proof"]])


@pytest.mark.parametrize("query", ["", "?first=7", "?first=2&second=1", "?first=-1"])
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
    assert (log["snid"], log["version"], log["index"]) == ("beta", 1, 2)
    assert verify_inclusion(
        2,
        log["tree_size"],
        leaf_hash(log["leaf"].encode()),
        [base64.b64decode(p) for p in log["proof"]],
        base64.b64decode(log["root_hash"]),
    )


def test_log_lookup_of_an_unregistered_snid_has_no_entry(client, logged):
    answer = orjson.loads(client.get("/api/lookup/", {"urn": "urn:ogf:zeta:x", "proof": "1"}).content)
    assert answer["log"] is None and answer["valid"] is False


def test_log_snid_page_says_which_entry_and_checkpoint(client, logged):
    page = client.get("/urn/gamma/").content.decode()
    assert "in the log as entry 4, verified against checkpoint of size 6" in page
    assert 'href="/api/snids/gamma/versions/1/proof"' in page


def test_log_snid_page_says_when_a_version_is_not_signed_yet(client, applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor, snid="gamma")  # no signer pass yet
    page = client.get("/urn/gamma/").content.decode()
    assert "in the log as entry 0, not yet in a signed checkpoint" in page and "could <strong>not</strong>" not in page


@pytest.mark.parametrize("worker", ["running", "started-after"])
def test_log_tiles_the_signed_checkpoint_covers_but_the_table_lost_are_410(client, logged, worker):
    """Entry 5 deleted behind the application: the site keeps serving its checkpoint of 6 entries but cannot
    serve entry 5, and says so (410, never cached) rather than 'not yet' (404) or a fault (503)."""
    from registry.transparency.log import log_cache_clear

    from .conftest import guards_off

    client.get("/log/tile/entries/000.p/6")  # a running worker has the tree cached
    with guards_off() as cursor:
        cursor.execute('DELETE FROM registry_logentry WHERE "index" = 5')
    if worker == "started-after":
        log_cache_clear()
    for path in ("/log/tile/entries/000.p/6", "/log/tile/0/000.p/6"):
        response = client.get(path)
        if worker == "running" and "/0/" in path:
            assert response.status_code == 200  # its cached hashes are still the signed ones
            continue
        assert response.status_code == 410, (path, response.content)
        assert response["Cache-Control"] == "no-store"
        assert (
            "The transparency log is damaged: entry 5, covered by the signed checkpoint of 6 entries, is missing "
            "from the log table"
        ) in response.content.decode()
    assert client.get("/log/tile/entries/000.p/5").status_code == 200
    assert client.get("/log/tile/entries/000.p/7").status_code == 404  # beyond what was signed: not yet


def test_log_an_entry_repeating_a_resolver_change_is_not_listed_as_a_change_of_its_own(client, logged):
    from django.db import transaction

    from registry.transparency.log import log_append

    resolvers = [
        {
            "name": "main",
            "template": "https://x.example/{nss}",
            "returns": "landing",
            "media_types": [],
            "primary": True,
        }
    ]
    with transaction.atomic():
        log_append(
            "snid-resolvers", {"snid": "alpha", "version": 1, "how": "changed", "reason": "R.", "resolvers": resolvers}
        )
        log_append(
            "administrative-change",
            {"snid": "alpha", "version": 1, "change": "resolvers", "fields": {"resolvers": "main | https://x…"}},
        )
    page = client.get("/log/").content.decode()
    assert "Resolvers changed: added “main” (https://x.example/{nss})" in page
    assert "main | https://x" not in page and "7 entries, newest first" in page
    assert "1 older entry repeats a resolver change as an administrative change" in page
