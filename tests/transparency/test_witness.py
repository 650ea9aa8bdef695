"""Witnesses (C2SP tlog-witness, tlog-cosignature): ours, and one nobody here wrote.

The witness core answers every case of ``add-checkpoint`` as the specification says and keeps
its state across restarts; the site's signer sends each checkpoint with its consistency proof
to the witnesses ``REGISTRY_LOG_WITNESSES`` names and publishes their cosignatures. The other
witness is ``aics-witness`` from PyPI (stand-alone: standard library, ``cryptography`` and its
``aics-tlog``), whose ``aics_tlog.verify_checkpoint`` also checks the quorum independently.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import pytest

from registry.logcore.cosignature import (
    CosignatureVerifier,
    Cosigner,
    checkpoint_witnessed,
    cosignature_message,
    cosignatures_valid,
)
from registry.logcore.merkle import Tree, leaf_hash
from registry.logcore.note import Checkpoint, NoteError, Signer
from registry.logcore.witness import (
    SIZE_TYPE,
    Witness,
    WitnessAhead,
    WitnessRefused,
    WitnessStore,
    origin_hash,
    witness_cosign,
)
from registry.transparency.signer import log_sign

from ..factories import proposal_factory
from .conftest import AICS, ORIGIN, ROOT, _wait_listening


def _tree(n: int) -> Tree:
    return Tree([leaf_hash(b"leaf %d" % i) for i in range(n)])


def _note(log: Signer, tree: Tree, size: int, *extensions: str) -> str:
    return log.sign(Checkpoint(log.name, size, tree.root(size), extensions).text())


def _body(old: int, proof: list[bytes], note: str) -> bytes:
    return (f"old {old}\n" + "".join(base64.b64encode(h).decode() + "\n" for h in proof) + "\n" + note).encode()


@pytest.fixture
def witness(tmp_path, log_key):
    cosigner = Cosigner.generate("witness.test/w1")
    return Witness(cosigner, [log_key.verifier()], WitnessStore(tmp_path / "witness.sqlite3"))


# --- the witness core, case by case ----------------------------------------------------------------


def test_witness_cosigns_a_first_checkpoint_and_its_extension(witness, log_key):
    tree = _tree(9)
    first = _note(log_key, tree, 4, "time 2026-11-27T10:00:00Z")
    answer = witness.add_checkpoint(_body(0, [], first))
    assert answer.status == 200 and answer.body.startswith("\u2014 witness.test/w1 ")
    stamped = cosignatures_valid(first + answer.body, [witness.cosigner.verifier()])
    assert set(stamped) == {"witness.test/w1"} and stamped["witness.test/w1"] > 0
    second = _note(log_key, tree, 9)
    answer = witness.add_checkpoint(_body(4, tree.consistency_proof(4, 9), second))
    assert answer.status == 200
    assert witness.store.latest(ORIGIN)[0] == 9


def test_witness_cosignature_is_over_the_specified_message(witness, log_key):
    """tlog-cosignature: Ed25519 over "cosignature/v1\\ntime <t>\\n" and the checkpoint's text, key id type 0x04."""
    note = _note(log_key, _tree(3), 3, "time 2026-11-27T10:00:00Z")
    line = witness.add_checkpoint(_body(0, [], note)).body
    raw = base64.b64decode(line.split()[-1])
    key = witness.cosigner.verifier()
    assert raw[:4] == key.key_id
    timestamp = int.from_bytes(raw[4:12], "big")
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    text = note.split("\n\n")[0] + "\n"
    Ed25519PublicKey.from_public_bytes(key.public).verify(raw[12:], cosignature_message(text, timestamp))
    assert cosignature_message(text, timestamp).startswith(f"cosignature/v1\ntime {timestamp}\n{ORIGIN}\n3\n".encode())


@pytest.mark.parametrize(
    ("case", "status"),
    [
        ("wrong old size", 409),
        ("unknown origin", 404),
        ("signed by another key", 403),
        ("old larger", 400),
        ("malformed", 400),
        ("leading zero", 400),
        ("non-ASCII digits", 400),
        ("proof with old 0", 422),
        ("empty tree, wrong root", 422),
    ],
)
def test_witness_refuses_what_the_specification_refuses(witness, log_key, case, status):
    tree = _tree(8)
    assert witness.add_checkpoint(_body(0, [], _note(log_key, tree, 5))).status == 200
    bodies = {
        "wrong old size": _body(3, tree.consistency_proof(3, 8), _note(log_key, tree, 8)),
        "unknown origin": _body(
            5, [], Signer.generate("elsewhere.test/log").sign(Checkpoint("elsewhere.test/log", 5, tree.root(5)).text())
        ),
        "signed by another key": _body(
            5, tree.consistency_proof(5, 8), Signer(ORIGIN, bytes(32)).sign(Checkpoint(ORIGIN, 8, tree.root(8)).text())
        ),
        "old larger": _body(9, [], _note(log_key, tree, 8)),
        "malformed": b"old 5\nnot base64!\n\n" + _note(log_key, tree, 8).encode(),
        "leading zero": _body(5, [], _note(log_key, tree, 8)).replace(b"old 5", b"old 05"),
        "non-ASCII digits": _body(5, [], _note(log_key, tree, 8)).replace(b"old 5", "old \u0665".encode()),
        "proof with old 0": _body(0, [tree.root(1)], _note(log_key, tree, 8)),
        "empty tree, wrong root": _body(0, [], log_key.sign(Checkpoint(ORIGIN, 0, tree.root(1)).text())),
    }
    if case in ("proof with old 0", "empty tree, wrong root"):
        fresh = Witness(witness.cosigner, [log_key.verifier()], WitnessStore(witness.store.path.with_suffix(".b")))
        answer = fresh.add_checkpoint(bodies[case])
    else:
        answer = witness.add_checkpoint(bodies[case])
    assert answer.status == status, answer
    if status == 409:
        assert answer.body == "5\n" and answer.content_type == SIZE_TYPE
    assert witness.store.latest(ORIGIN)[0] == 5  # nothing cosigned


def test_witness_that_saw_a_fork_refuses_it_and_keeps_the_evidence(witness, log_key):
    honest, forked = _tree(8), Tree([*_tree(5).levels[0], leaf_hash(b"other 5"), leaf_hash(b"other 6")])
    assert witness.add_checkpoint(_body(0, [], _note(log_key, honest, 6))).status == 200
    # The same size with another root, and a larger tree that does not extend what it cosigned.
    same_size = witness.add_checkpoint(_body(6, [], _note(log_key, forked, 6)))
    assert same_size.status == 422 and "not consistent" in same_size.body
    wider = Tree([*forked.levels[0], leaf_hash(b"other 7")])
    grown = witness.add_checkpoint(_body(6, wider.consistency_proof(6, 8), _note(log_key, wider, 8)))
    assert grown.status == 422
    assert witness.store.latest(ORIGIN)[:2] == (6, honest.root(6))
    assert len(witness.store.evidence(ORIGIN)) == 2  # log-signed proof of misbehaviour


def test_witness_state_and_cosignatures_survive_a_restart(tmp_path, witness, log_key):
    tree = _tree(10)
    first = _note(log_key, tree, 7)
    line = witness.add_checkpoint(_body(0, [], first)).body
    restarted = Witness(witness.cosigner, [log_key.verifier()], WitnessStore(tmp_path / "witness.sqlite3"))
    assert restarted.add_checkpoint(_body(0, [], _note(log_key, tree, 10))).body == "7\n"  # 409: it remembers
    monitored = restarted.checkpoint_of(origin_hash(ORIGIN))
    assert monitored.status == 200 and monitored.body == first + line
    assert checkpoint_witnessed(monitored.body, log_key.verifier(), [witness.cosigner.verifier()], 1)[0].size == 7
    assert restarted.add_checkpoint(_body(7, tree.consistency_proof(7, 10), _note(log_key, tree, 10))).status == 200


def test_cosignature_checks_say_what_is_missing(witness, log_key):
    note = _note(log_key, _tree(3), 3)
    line = witness.add_checkpoint(_body(0, [], note)).body
    other = Cosigner.generate("witness.test/w2").verifier()
    with pytest.raises(NoteError, match="1 valid cosignature of the 2 required \\(none from witness.test/w2\\)"):
        checkpoint_witnessed(note + line, log_key.verifier(), [witness.cosigner.verifier(), other], 2)
    forged = line[:-10] + ("A" if line[-10] != "A" else "B") + line[-9:]
    with pytest.raises(NoteError, match="does not verify"):
        cosignatures_valid(note + forged, [witness.cosigner.verifier()])
    assert CosignatureVerifier.parse(str(other)) == other
    with pytest.raises(NoteError, match="not an Ed25519 cosigner key"):
        CosignatureVerifier.parse(str(log_key.verifier()))  # a log key (type 0x01) is not a witness key


# --- two witnesses over HTTP, one of them not ours (the ``witnesses`` fixture: conftest.py) -----------


def _aics_verifies(note: str, log_key, keys, quorum: int):
    """The other implementation's verdict: aics_tlog.verify_checkpoint with a quorum policy."""
    code = (
        "import json, sys\nfrom aics_tlog import parse_vkey\nfrom aics_tlog.note import parse_note\n"
        "from aics_tlog.checkpoint import verify_checkpoint, WitnessPolicy\n"
        "req = json.load(sys.stdin)\n"
        "policy = WitnessPolicy(quorum=req['quorum'], witnesses=tuple(parse_vkey(k) for k in req['witnesses']))\n"
        "r = verify_checkpoint(parse_note(req['note']), parse_vkey(req['log']), policy=policy)\n"
        "print(json.dumps({'ok': r.ok, 'witnesses': sorted(r.witnesses), 'error': r.error}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(
            {"note": note, "log": str(log_key.verifier()), "witnesses": [str(k) for k in keys], "quorum": quorum}
        ),
        env={**os.environ, "PYTHONPATH": str(AICS)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _served(client) -> str:
    response = client.get("/log/checkpoint")
    assert response.status_code == 200, response.content
    return response.content.decode()


def test_witnesses_cosign_each_checkpoint_and_a_quorum_of_two_verifies(witnesses, log_key, client, applicant, editor):
    for name in ("alpha", "beta"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
        outcome = log_sign()
        assert outcome.signed and sorted(outcome.cosigned_by) == ["aics.test/w2", "ours.test/w1"], outcome
    note = _served(client)
    checkpoint, cosigned = checkpoint_witnessed(note, log_key.verifier(), witnesses.keys, 2)
    assert checkpoint.size == 4 and set(cosigned) == {"ours.test/w1", "aics.test/w2"}  # versions and stewards
    verdict = _aics_verifies(note, log_key, witnesses.keys, 2)
    assert verdict == {"ok": True, "witnesses": ["aics.test/w2", "ours.test/w1"], "error": None}


def test_a_witness_that_saw_a_fork_refuses_to_cosign_it(witnesses, log_key, applicant, editor):
    for name in ("alpha", "beta", "gamma"):
        proposal_factory(applicant, state="approved", editor=editor, snid=name)
    assert len(log_sign().cosigned_by) == 2
    # A second history of the same size, signed with the log's key (a stolen key, or a signer that
    # lost its record): neither witness cosigns it, whatever old size it is sent with.
    fork = Tree([leaf_hash(bytes([n])) for n in range(6)])  # the six entries of three approvals, others
    note = log_key.sign(Checkpoint(ORIGIN, 6, fork.root(), ("time 2026-11-27T10:00:00Z",)).text())
    for endpoint in witnesses.endpoints():
        with pytest.raises(WitnessRefused, match="HTTP 422"):
            witness_cosign(endpoint, note, 6, lambda old: [] if old == 6 else None)
        with pytest.raises(WitnessRefused):
            witness_cosign(endpoint, note, 0, lambda old: [] if old in (0, 6) else None)


def test_cosignatures_survive_a_witness_restart(witnesses, log_key, client, applicant, editor):
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
    assert len(log_sign().cosigned_by) == 2
    before = _served(client)
    witnesses.stop()
    witnesses.start()
    assert _served(client) == before  # what they cosigned is still served, and still verifies
    assert checkpoint_witnessed(before, log_key.verifier(), witnesses.keys, 2)
    proposal_factory(applicant, state="approved", editor=editor, snid="beta")
    outcome = log_sign()  # both remember size 2: the proof from it is accepted
    assert sorted(outcome.cosigned_by) == ["aics.test/w2", "ours.test/w1"] and not outcome.witness_problems
    after = _served(client)
    assert checkpoint_witnessed(after, log_key.verifier(), witnesses.keys, 2)[0].size == 4
    assert _aics_verifies(after, log_key, witnesses.keys, 2)["ok"] is True
    # And a restarted witness never goes back: the size-2 checkpoint again is refused.
    text, signatures = before.split("\n\n")
    log_signed_only = f"{text}\n\n{signatures.splitlines()[0]}\n"
    for endpoint in witnesses.endpoints():
        with pytest.raises(WitnessAhead, match="holds a checkpoint of size 4, larger than this one of size 2"):
            witness_cosign(endpoint, log_signed_only, 0, lambda old: [] if old == 0 else None)


def test_a_checkpoint_without_the_quorum_of_cosignatures_is_not_published_until_it_has_it(
    witnesses, log_key, client, applicant, editor
):
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
    log_sign()
    before = _served(client)
    witnesses.processes["aics"].terminate()
    witnesses.processes["aics"].wait(timeout=30)
    proposal_factory(applicant, state="approved", editor=editor, snid="beta")
    outcome = log_sign()  # the quorum is every witness (REGISTRY_LOG_WITNESS_QUORUM unset)
    assert outcome.signed and outcome.cosigned_by == ["ours.test/w1"]
    assert "could not be reached" in outcome.witness_problems[0]
    assert "not published: it carries 1 of the 2 witnesses' cosignatures required" in outcome.unpublished
    assert _served(client) == before  # the last witnessed checkpoint stays published
    witnesses.processes["aics"] = subprocess.Popen(
        [sys.executable, "-m", "aics_witness", "serve", "--listen", f"127.0.0.1:{witnesses.ports['aics']}"],
        env=witnesses._aics_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_listening(witnesses.ports["aics"], witnesses.processes["aics"])
    again = log_sign()  # nothing new to sign: the missing witness is asked again
    assert not again.signed and again.cosigned_by == ["aics.test/w2"] and not again.unpublished
    note = _served(client)
    assert checkpoint_witnessed(note, log_key.verifier(), witnesses.keys, 2)[0].size == 4


def test_with_a_quorum_of_one_a_witness_that_does_not_answer_is_left_out(
    witnesses, log_key, client, applicant, editor, settings
):
    settings.REGISTRY_LOG_WITNESS_QUORUM = 1
    proposal_factory(applicant, state="approved", editor=editor, snid="alpha")
    log_sign()
    witnesses.processes["aics"].terminate()
    witnesses.processes["aics"].wait(timeout=30)
    proposal_factory(applicant, state="approved", editor=editor, snid="beta")
    outcome = log_sign()
    assert outcome.signed and outcome.cosigned_by == ["ours.test/w1"] and not outcome.unpublished
    note = _served(client)
    assert checkpoint_witnessed(note, log_key.verifier(), witnesses.keys, 1)
    with pytest.raises(NoteError, match="none from aics.test/w2"):
        checkpoint_witnessed(note, log_key.verifier(), witnesses.keys, 2)
    witnesses.processes["aics"] = subprocess.Popen(["true"])  # stop() waits for it


def test_the_witness_and_the_signers_check_run_without_django(tmp_path):
    code = (
        "import sys, registry.witness, registry.logcore.signer_state, registry.logcore.cosignature; "
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    init = subprocess.run(
        [sys.executable, "-m", "registry.witness", "init", "--state", str(tmp_path / "w"), "--name", "w.test/1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert init.returncode == 0 and "Witness public key (give it to the log and to readers): w.test/1+" in init.stdout
    again = subprocess.run(
        [sys.executable, "-m", "registry.witness", "init", "--state", str(tmp_path / "w"), "--name", "w.test/1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 1 and "never overwritten" in again.stderr
    assert (tmp_path / "w" / "witness.key").stat().st_mode & 0o777 == 0o600
