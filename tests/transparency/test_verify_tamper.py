"""The tamper drill, verifier side: the database owner rewrites what the log holds, guards off, and the
verifier says NOT VERIFIED naming the change — with the state of an earlier clean run, and from fresh.
After each, the signer makes its next pass: it signs nothing of a rewritten log and the site keeps
serving the checkpoint signed before (test_tamper_drill.py is the signer's side of the drill).

Each rewrite is one the log exists to catch: a leaf and its stored hash changed; the last leaf deleted
(with and without moving the head); a resolver re-pointed at another host; a deprecation slipped in; an
earlier version's title and grammar rewritten; the current version's public prose rewritten. The
server is real (a live server on the loopback); the verifier reads it as a mirror would.
"""

import datetime as dt
import json

import pytest
from django.utils import timezone

from registry import services
from registry.gfd191 import SECTIONS
from registry.logcore.merkle import leaf_hash
from registry.resolution.services import resolvers_replace
from registry.stewardship import services as stewardship
from registry.transparency.models import LogEntry
from registry.transparency.signer import log_sign

from ..factories import proposal_factory, user_factory
from .test_verify import _run, guards_off

TITLE = "Example-URN: supercomputers and clusters (the GFD.191 worked example)"


@pytest.fixture
def site(transactional_db, live_server):
    """alpha (two versions, a resolver), beta (a second steward), a reservation, and gamma's approval last."""
    applicant, editor = user_factory("alice"), user_factory("erin", editor=True)
    other_editor = user_factory("otto", editor=True)
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha", version=2, title="Alpha, second")
    resolvers_replace(
        "alpha", [{"name": "main", "template": "https://a.example.org/{nss}"}], other_editor, "The resolver."
    )
    proposal_factory(applicant, state="approved", editor=editor, snid="beta")
    stewardship.steward_add(services.namespace_get("beta"), user_factory("sam"), editor, reason="Maintainer.")
    services.namespace_reserve(
        "held", editor, until=timezone.localdate() + dt.timedelta(days=9), reason="r", reserved_for=applicant
    )
    proposal_factory(applicant, state="approved", editor=editor, snid="gamma")
    return live_server


def _last_index() -> int:
    return LogEntry.objects.order_by("-index").values_list("index", flat=True).first()


def _index(kind: str, snid: str, version=None) -> int:
    entries = LogEntry.objects.filter(kind=kind, snid=snid)
    if version is not None:
        entries = entries.filter(version=version)
    return entries.order_by("index").values_list("index", flat=True).first()


def leaf_and_hash_changed():
    with guards_off() as cursor:
        cursor.execute('SELECT leaf FROM registry_logentry WHERE "index" = 0')
        leaf = cursor.fetchone()[0].replace(TITLE, "A title the log never had")
        cursor.execute(
            'UPDATE registry_logentry SET leaf = %s, leaf_hash = %s WHERE "index" = 0',
            [leaf, leaf_hash(leaf.encode()).hex()],
        )
    saved = [
        "DIFFERS: the entries served do not hash to the signed root",
        "DIFFERS: entry 0 (urn:ogf:alpha: version 1) seen before was changed: it now reads urn:ogf:alpha: "
        f'version 1; record.title: was "{TITLE}", now "A title the log never had"',
    ]
    fresh = [
        "DIFFERS: the entries served do not hash to the signed root",
        "DIFFERS: urn:ogf:alpha: version 1 (log entry 0): its record does not match its own record_sha256",
        'DIFFERS: urn:ogf:alpha: version 1 (log entry 0): title: the log says "A title the log never had", '
        f'the site publishes "{TITLE}"',
    ]
    return saved, fresh


def last_leaf_deleted(move_head: bool):
    def rewrite():
        last = _last_index()
        with guards_off() as cursor:
            cursor.execute('DELETE FROM registry_logentry WHERE "index" = %s', [last])
            if move_head:
                cursor.execute("UPDATE registry_loghead SET size = size - 1")
        # The site keeps serving its checkpoint of 10 entries; the last is gone (HTTP 410).
        covered = f", which its signed checkpoint of {last + 1} entries covers (http"
        saved = [
            f"DIFFERS: the site does not serve entry {last} (steward-changed urn:ogf:gamma: when last verified)"
            + covered,
            "HTTP 410 The transparency log is damaged",
        ]
        fresh = [f"DIFFERS: the site does not serve entry {last}" + covered, "HTTP 410"]
        return saved, fresh

    return rewrite


def resolver_template_changed():
    with guards_off() as cursor:
        cursor.execute(
            "UPDATE registry_resolver SET template = 'https://elsewhere.example.net/{nss}' WHERE retired_at IS NULL"
        )
    said = (
        f"urn:ogf:alpha: resolver 1 in registry-full.json (log entry {_index('snid-resolvers', 'alpha')}): "
        'template: the log says "https://a.example.org/{nss}", the site publishes '
        '"https://elsewhere.example.net/{nss}"'
    )
    both = ["DIFFERS: " + said, "DIFFERS: " + said.replace("registry-full.json", "registry.json")]
    return both, both


def deprecation_inserted():
    beta, editor = services.namespace_get("beta"), user_factory("mallory", editor=True)
    with guards_off() as cursor:
        cursor.execute(
            "INSERT INTO registry_deprecation (namespace_id, reason, deprecated_by_id, deprecated_at, "
            "end_reason) VALUES (%s, 'Slipped in.', %s, %s, '')",
            [beta.pk, editor.pk, timezone.now()],
        )
    both = [
        'DIFFERS: urn:ogf:beta: is published as deprecated ({"since": "',
        '"reason": "Slipped in.", "successor": null}), but the log never deprecated it',
        'DIFFERS: urn:ogf:beta: registry.json says status "deprecated", successor null, but the log never '
        "deprecated it",
    ]
    return both, both


def earlier_version_rewritten():
    with guards_off() as cursor:
        cursor.execute(
            "UPDATE registry_proposal SET title = 'Rewritten', grammar_abnf = 'x = \"y\"\n' "
            "WHERE snid = 'alpha' AND version = 1 AND state = 'approved'"
        )
    both = [
        'DIFFERS: urn:ogf:alpha: version 1 (log entry 0): title: the log says "' + TITLE + '", the site '
        'publishes "Rewritten"',
        'DIFFERS: urn:ogf:alpha: version 1 (log entry 0): grammar.abnf: the log says "',
        "DIFFERS: urn:ogf:alpha: version 1 (log entry 0): the registration document the site holds no longer "
        "hashes to the logged document_sha256",
    ]
    return both, both


def current_prose_rewritten():
    with guards_off() as cursor:
        cursor.execute("SELECT id, sections FROM registry_proposal WHERE snid = 'beta' AND state = 'approved'")
        pk, sections = cursor.fetchone()
        sections = json.loads(sections) if isinstance(sections, str) else sections
        key = sorted(k for k, v in sections.items() if v)[0]
        sections[key] = "Quietly rewritten prose."
        cursor.execute("UPDATE registry_proposal SET sections = %s WHERE id = %s", [json.dumps(sections), pk])
    index = _index("snid-version", "beta", 1)
    said = (
        f"DIFFERS: urn:ogf:beta: version 1 (log entry {index}): the registration document the site holds no "
        "longer hashes to the logged document_sha256: its prose sections or its unpublished registrant details "
        "were changed"
    )
    heading = next(s.heading for s in SECTIONS if s.key == key)
    return [said + f"; changed since the last run: section {heading}"], [said]


REWRITES = {
    "leaf-and-hash": leaf_and_hash_changed,
    "last-leaf-deleted": last_leaf_deleted(move_head=False),
    "last-leaf-deleted-head-moved": last_leaf_deleted(move_head=True),
    "resolver-template": resolver_template_changed,
    "deprecation-inserted": deprecation_inserted,
    "earlier-version": earlier_version_rewritten,
    "current-prose": current_prose_rewritten,
}


@pytest.mark.parametrize("rewrite", list(REWRITES))
def test_verify_tamper_drill_names_each_rewrite_with_state_and_fresh(site, log_key, tmp_path, rewrite):
    state = tmp_path / "state.json"
    status, out = _run(site.url, "--key", log_key.verifier(), "--state", state)
    assert status == 0 and "the checkpoint of 10 entries" in out, out
    kept = state.read_text()
    saved, fresh = REWRITES[rewrite]()
    log_sign()  # the signer's next pass signs nothing of a rewritten log
    for path, expected in ((state, saved), (tmp_path / "fresh.json", fresh)):
        status, out = _run(site.url, "--key", log_key.verifier(), "--state", path)
        assert status == 1 and "NOT VERIFIED" in out, out
        for sentence in expected:
            assert sentence in out, f"{sentence!r} not in:\n{out}"
    assert state.read_text() == kept  # the last good state is kept as evidence
    assert not (tmp_path / "fresh.json").exists()
