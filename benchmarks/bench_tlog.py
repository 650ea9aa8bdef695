"""The transparency log at 10,000 leaves: what an approval pays for its entry, and proofs per second.

In process (Django's test client, production-like settings, a SQLite file of its own):
10,000 registered SNIDs are generated and put in the log by ``log_backfill``; then

- approvals through the service, alternately with and without the log append (the
  same work otherwise), median and p95 of each;
- ``log_append`` alone in its transaction;
- the signer (``log_sign``): its first pass over the whole log; its pass after each approval
  (the quick check: the stored hashes of the signed entries against its record, the new leaves
  re-hashed), without and with a witness (ours, ``registry.witness``, over HTTP on the
  loopback) — what signing and witnessing cost per approval —; the full check (every leaf read
  and re-hashed, made at least once a minute) after an approval; and the witness's own handling
  of one checkpoint;
- the cold load of the tree cache (a process's first proof) and a proof computed from it;
- requests per second, one client in process, for an inclusion proof of a random
  version, a consistency proof, the checkpoint (and its bytes per second), a full hash
  tile and a lookup with ``proof=1`` beside the same lookup without.
- what the mirror's verifier costs on that log: a first run, a run with its state and
  a run over the static copy it wrote, and building ``registry-full.json``.

Run: ``python -m benchmarks.bench_tlog`` (prints the section) or with ``--write`` to
replace the section between the ``<!-- tlog:start -->`` markers of docs/performance.md.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "performance.md"
LEAVES = 10_000


def _setup_django(scratch: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch / 'tlog.sqlite3'}"
    os.environ["REGISTRY_LOG_STATE_DIR"] = str(scratch / "signer")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.settings")
    import django

    django.setup()


def _rate(function, seconds: float = 2.0) -> float:
    done, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        function()
        done += 1
    return done / elapsed


def _ms(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values):.1f} ms (p95 {values[int(0.95 * (len(values) - 1))]:.1f})"


def measure() -> dict:
    from django.core.management import call_command
    from django.db import transaction
    from django.test import Client

    from benchmarks.data import populate
    from registry.demo import demo_accounts
    from registry.services import proposals as services
    from registry.transparency import log as tlog
    from registry.transparency import records
    from tests.factories import data_factory

    call_command("migrate", verbosity=0)
    accounts = demo_accounts()
    applicant, editor = accounts["applicant"][0], accounts["editor"][0]
    populate(LEAVES)
    started = time.perf_counter()
    call_command("log_backfill", verbosity=0, stdout=io.StringIO())
    backfill = time.perf_counter() - started
    tlog.log_cache_clear()
    started = time.perf_counter()
    tree, size = tlog.log_tree()
    cold_load = time.perf_counter() - started
    assert size == LEAVES, size

    # Approvals with and without the append, alternately.
    with_log, without_log, unlogged = [], [], []
    real = records.log_version_registered
    for i in range(40):
        proposal = services.proposal_create(data_factory(snid=f"timed{i}"), applicant)
        proposal = services.proposal_transition(proposal, "submit", applicant)
        logging = i % 2 == 0
        services.log_version_registered = real if logging else (lambda proposal: None)
        started = time.perf_counter()
        approved = services.proposal_transition(proposal, "approve", editor, override_reason="benchmark")
        (with_log if logging else without_log).append((time.perf_counter() - started) * 1000)
        if not logging:
            unlogged.append(approved)
    services.log_version_registered = real
    with transaction.atomic():  # what the timing left out: the log holds every approval again
        for proposal in unlogged:
            real(proposal)

    appends = []
    for i in range(200):
        started = time.perf_counter()
        with transaction.atomic():
            tlog.log_append("reservation-granted", {"snid": f"bench{i}", "reserved_until": None, "renewal": False})
        appends.append((time.perf_counter() - started) * 1000)

    from registry.transparency.signer import log_sign

    started = time.perf_counter()
    first_pass = log_sign()
    first_sign = time.perf_counter() - started
    assert first_pass.signed and not first_pass.damage, first_pass
    signing, full_check, witnessed, witness_alone = _signing_per_approval(applicant, editor, log_sign)

    tree, size = tlog.log_tree()
    proof_rate = _rate(lambda: tree.inclusion_proof(random.randrange(size), size))
    client = Client()
    checkpoint_bytes = len(client.get("/log/checkpoint").content)
    snids = [f"bench{i}" for i in range(LEAVES)]
    rates = {
        "inclusion proof `/api/snids/<snid>/versions/1/proof`": _rate(
            lambda: client.get(f"/api/snids/{random.choice(snids)}/versions/1/proof")
        ),
        "consistency proof `/api/log/consistency/?first=<random>`": _rate(
            lambda: client.get(f"/api/log/consistency/?first={random.randrange(1, size)}")
        ),
        "checkpoint `/log/checkpoint`": _rate(lambda: client.get("/log/checkpoint")),
        "full hash tile `/log/tile/0/<n>`": _rate(
            lambda: client.get(f"/log/tile/0/{random.randrange(size // 256):03d}")
        ),
        "entry bundle `/log/tile/entries/<n>`": _rate(
            lambda: client.get(f"/log/tile/entries/{random.randrange(size // 256):03d}")
        ),
        "lookup `/api/lookup/?urn=…&proof=1`": _rate(
            lambda: client.get("/api/lookup/", {"urn": f"urn:ogf:{random.choice(snids)}:x", "proof": "1"})
        ),
        "lookup `/api/lookup/?urn=…` (no proof, for comparison)": _rate(
            lambda: client.get("/api/lookup/", {"urn": f"urn:ogf:{random.choice(snids)}:x"})
        ),
    }
    response = client.get(f"/api/snids/{snids[0]}/versions/1/proof")
    assert response.status_code == 200, response.content
    return {
        "size": size,
        "backfill": backfill,
        "cold_load": cold_load,
        "with_log": with_log,
        "without_log": without_log,
        "appends": appends,
        "proof_rate": proof_rate,
        "rates": rates,
        "first_sign": first_sign,
        "signing": signing,
        "full_check": full_check,
        "witnessed": witnessed,
        "witness_alone": witness_alone,
        "checkpoint_bytes": checkpoint_bytes,
        "verifier": measure_verifier(),
    }


def measure_verifier() -> dict:
    """``python -m registry.verify`` against the site served over HTTP on the loopback (wsgiref, one thread):
    a first run, a run with the state it saved, and a run reading the static copy it wrote (no server)."""
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from django.core.cache import cache
    from django.core.wsgi import get_wsgi_application

    from registry import verify
    from registry.exports_full import full_document

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = make_server("127.0.0.1", 0, get_wsgi_application(), handler_class=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    directory = tempfile.TemporaryDirectory(prefix="bench-verify-")
    scratch = Path(directory.name)
    out: dict = {}
    try:
        started = time.perf_counter()
        full_document()
        out["full_export"] = time.perf_counter() - started
        cache.clear()  # the site builds both exports during the first run, as after a change
        for name, args in (("first", ["--mirror", str(scratch / "mirror")]), ("again", [])):
            report = io.StringIO()
            started = time.perf_counter()
            status = verify.main([url, "--state", str(scratch / "state.json"), *args], out=report)
            out[name] = time.perf_counter() - started
            assert status == 0, report.getvalue()
        started = time.perf_counter()
        status = verify.main([str(scratch / "mirror"), "--state", str(scratch / "mirror.json")], out=io.StringIO())
        out["mirror"] = time.perf_counter() - started
        assert status == 0
        out["bundles"] = sum(p.stat().st_size for p in (scratch / "mirror/log/tile/entries").rglob("*") if p.is_file())
        out["full_bytes"] = (scratch / "mirror/urn/registry-full.json").stat().st_size
    finally:
        server.shutdown()
        directory.cleanup()
    return out


def _signing_per_approval(applicant, editor, log_sign) -> tuple[list[float], list[float], list[float], list[float]]:
    """Milliseconds of the signer's pass after each approval (the quick check, as the watching signer makes it
    between full checks), of its full check after an approval, of the quick pass with one witness (ours, over
    HTTP on the loopback), and of the witness's own handling of a checkpoint (its core, no HTTP)."""
    import threading

    from django.conf import settings

    from registry import services
    from registry.logcore.witness import Witness, WitnessStore
    from registry.witness import witness_init, witness_server
    from tests.factories import data_factory

    def approve(name: str) -> None:
        proposal = services.proposal_create(data_factory(snid=name), applicant)
        proposal = services.proposal_transition(proposal, "submit", applicant)
        services.proposal_transition(proposal, "approve", editor, override_reason="benchmark")

    signing, full_check, witnessed = [], [], []
    for i in range(20):
        approve(f"signed{i}")
        started = time.perf_counter()
        outcome = log_sign(full=False)
        signing.append((time.perf_counter() - started) * 1000)
        assert outcome.signed and not outcome.full, outcome
    for i in range(10):
        approve(f"checked{i}")
        started = time.perf_counter()
        outcome = log_sign(full=True)
        full_check.append((time.perf_counter() - started) * 1000)
        assert outcome.signed and outcome.full, outcome
    directory = Path(settings.REGISTRY_LOG_STATE_DIR).parent / "witness"
    cosigner = witness_init(directory, "bench.invalid/witness")
    from registry.transparency.log import log_verifier

    server = witness_server(directory, [log_verifier()], "127.0.0.1:0")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.REGISTRY_LOG_WITNESSES = [
        {"key": str(cosigner.verifier()), "url": f"http://127.0.0.1:{server.server_address[1]}/"}
    ]
    try:
        for i in range(20):
            approve(f"witnessed{i}")
            started = time.perf_counter()
            outcome = log_sign(full=False)
            witnessed.append((time.perf_counter() - started) * 1000)
            assert outcome.cosigned_by == ["bench.invalid/witness"], outcome
    finally:
        settings.REGISTRY_LOG_WITNESSES = []
        server.shutdown()
    # The witness's own work for one checkpoint: a note and a consistency proof checked, a cosignature made.
    import base64

    from registry.logcore.note import Checkpoint
    from registry.transparency.log import log_checkpoint, log_signer, log_tree

    tree, size = log_tree()
    checkpoint, note = log_checkpoint()
    core = Witness(cosigner, [log_verifier()], WitnessStore(directory / "alone.sqlite3"))
    first = log_signer().sign(Checkpoint(checkpoint.origin, size - 30, tree.root(size - 30)).text())
    core.add_checkpoint(f"old 0\n\n{first}".encode())
    alone, old = [], size - 30
    for step in range(old + 1, size + 1):
        text = log_signer().sign(Checkpoint(checkpoint.origin, step, tree.root(step)).text())
        body = (
            f"old {old}\n"
            + "".join(base64.b64encode(h).decode() + "\n" for h in tree.consistency_proof(old, step))
            + "\n"
            + text
        )
        started = time.perf_counter()
        assert core.add_checkpoint(body.encode()).status == 200
        alone.append((time.perf_counter() - started) * 1000)
        old = step
    return signing, full_check, witnessed, alone


def section(result: dict) -> str:
    with_log, without_log = statistics.median(result["with_log"]), statistics.median(result["without_log"])
    lines = [
        "<!-- tlog:start -->",
        "## Transparency log (`benchmarks/bench_tlog.py`)",
        "",
        f"In process, one client, SQLite, production-like settings; {LEAVES:,} versions logged by `log_backfill`, "
        f"then timed on a log of about {result['size']:,} leaves. Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC "
        f"on {os.cpu_count()} cores (load {os.getloadavg()[0]:.1f}); `python -m benchmarks.bench_tlog --write`.",
        "",
        "| What | Time |",
        "|---|---:|",
        f"| approval through the service, with the log append | {_ms(result['with_log'])} |",
        f"| approval through the service, without it | {_ms(result['without_log'])} |",
        f"| the append's share of an approval (difference of medians) | {with_log - without_log:+.1f} ms |",
        f"| `log_append` alone, in its own transaction | {_ms(result['appends'])} |",
        f"| `log_backfill` of {LEAVES:,} versions | {result['backfill']:.1f} s |",
        f"| a process's first tree load ({LEAVES:,} leaf hashes) | {result['cold_load'] * 1000:.0f} ms |",
        f"| the signer's first pass ({result['size']:,} leaves read, re-hashed and signed) | "
        f"{result['first_sign'] * 1000:.0f} ms |",
        f"| signing per approval: the signer's pass after one approval (the quick check: stored hashes against "
        f"its record, the new leaves re-hashed) | {_ms(result['signing'])} |",
        f"| the full check after one approval (every leaf read and re-hashed; at least once a minute) | "
        f"{_ms(result['full_check'])} |",
        f"| signing and witnessing per approval: the quick pass with one witness over HTTP | "
        f"{_ms(result['witnessed'])} |",
        f"| witnessing's share (difference of medians) | "
        f"{statistics.median(result['witnessed']) - statistics.median(result['signing']):+.1f} ms |",
        f"| the witness's own work per checkpoint (signature, proof, cosignature, SQLite commit) | "
        f"{_ms(result['witness_alone'])} |",
        "",
        "The signer runs in a process of its own (`log_sign --watch`): an approval never waits for it; its "
        "checkpoint follows within the signer's poll (1 s) plus one pass. The pass after an approval reads the "
        "signed entries' stored hashes (one column, compared with its own record) and only the new leaves; the "
        "full check, which also reads and re-hashes every leaf (so a leaf changed behind its stored hash is "
        "caught), runs on the signer's start, at least once a minute and whenever the quick check finds anything "
        "odd. Both write the record with `fsync` before publishing, so their cost grows with the log and with the "
        "disk's sync latency; figures taken on a shared, loaded machine are an upper bound. "
        f"Taken together, as here, the pass after an approval costs "
        f"{statistics.median(result['full_check']) / statistics.median(result['signing']):.1f} times less than the "
        "full check on this log; compare rows of one run only (the machine's load changes from run to run).",
        "",
        "| Requests per second (one client, in process) | req/s |",
        "|---|---:|",
        f"| inclusion proof computed from the cached tree (no HTTP) | {result['proof_rate']:,.0f} |",
    ]
    lines += [f"| {name} | {rate:,.0f} |" for name, rate in result["rates"].items()]
    verifier = result["verifier"]
    lines += [
        "",
        f"| The verifier, `python -m registry.verify`, on the log of {result['size']:,} entries | Time |",
        "|---|---:|",
        f"| first run over HTTP (one-thread wsgiref server on the loopback; the site builds its exports), "
        f"with `--mirror` | {verifier['first']:.1f} s |",
        f"| next run, with the state file (every leaf read and re-hashed again) | {verifier['again']:.1f} s |",
        f"| a run over the static copy `--mirror` wrote (no server: the verifier's own work) | "
        f"{verifier['mirror']:.1f} s |",
        f"| building `registry-full.json` alone ({verifier['full_bytes'] / 1e6:.1f} MB) | "
        f"{verifier['full_export']:.1f} s |",
        f"| entry bundles read each run (uncompressed; gzipped on the wire when offered) | "
        f"{verifier['bundles'] / 1e6:.1f} MB |",
    ]
    checkpoint_rate = result["rates"]["checkpoint `/log/checkpoint`"]
    lines += [
        "",
        f"Checkpoint bytes served per second (one client, in process): "
        f"{checkpoint_rate * result['checkpoint_bytes'] / 1e6:,.2f} MB/s "
        f"({result['checkpoint_bytes']} bytes a checkpoint, every worker the same bytes).",
    ]
    lines += ["<!-- tlog:end -->"]
    return "\n".join(lines)


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        _setup_django(Path(scratch))
        text = section(measure())
    print(text)
    if "--write" in sys.argv[1:]:
        import re

        current = OUT.read_text(encoding="utf-8")
        marked = re.compile(r"<!-- tlog:start -->.*?<!-- tlog:end -->", re.S)
        OUT.write_text(
            marked.sub(lambda _: text, current)
            if marked.search(current)
            else current.rstrip("\n") + "\n\n" + text + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
