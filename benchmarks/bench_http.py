"""HTTP benchmarks: the registry under gunicorn on loopback, load from wrk.

Every comparison is measured in one run, alternating the two sides, so the
figures are ratios on the same machine at the same moment:

- lookup vs. the framework floor (a trivial Django JSON view on the same server)
  at 1, 8 and 32 connections, and, when available, vs. Bioregistry's own
  identifier validation served by its FastAPI app (the peer registry);
- bulk validation of 10,000 URNs end to end;
- pages with 1,000 registered SNIDs and 1,000 pending proposals (in process:
  time and query counts, cold and cached);
- how lookup and page cost grow from 10 to 10,000 SNIDs.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from benchmarks.data import populate
from registry.lookup import registry_index, registry_invalidate

ROOT = Path(__file__).resolve().parent.parent
PORT = int(os.environ.get("BENCH_PORT", "8765"))
BIOREGISTRY_PORT = PORT + 1
DURATION = int(os.environ.get("BENCH_SECONDS", "6"))
LOOKUP = "/api/lookup/?urn=urn:ogf:fdc:example.com:20010527:img089322-038"
FLOOR = "/bench/floor/"
BIOREGISTRY_PYTHON = os.environ.get("BIOREGISTRY_PYTHON", "/tmp/bioreg-venv/bin/python")


# --- servers and load --------------------------------------------------------------------------


def _wait(port: int, path: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            if conn.getresponse().status < 500:
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the server on port {port} did not answer {path}")


def start_gunicorn(env: dict) -> subprocess.Popen:
    env = {**env, "BIND": f"127.0.0.1:{PORT}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:registry.gunicorn", "registry.wsgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    _wait(PORT, FLOOR)
    return process


def start_bioregistry() -> subprocess.Popen | None:
    """Bioregistry's web app (FastAPI under uvicorn), if installed in its own environment."""
    if not Path(BIOREGISTRY_PYTHON).exists():
        return None
    process = subprocess.Popen(
        [BIOREGISTRY_PYTHON, "-m", "uvicorn", "--factory", "bioregistry.app.impl:get_app", "--host", "127.0.0.1",
         "--port", str(BIOREGISTRY_PORT), "--workers", str(os.cpu_count()), "--log-level", "error"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait(BIOREGISTRY_PORT, "/api/reference/go:0032571", seconds=120)
    except RuntimeError:
        stop(process)
        return None
    return process


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)


def _ms(value: str) -> float:
    number, unit = re.match(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(port: int, path: str, connections: int, seconds: int = DURATION) -> dict:
    out = subprocess.run(
        ["wrk", f"-t{min(connections, 2)}", f"-c{connections}", f"-d{seconds}s", "--latency",
         f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True).stdout
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    errors += int(m.group(1)) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": _ms(re.search(r"(?m)^\s+50%\s+(\S+)", out).group(1)),
        "p99": _ms(re.search(r"(?m)^\s+99%\s+(\S+)", out).group(1)),
        "errors": errors,
    }


def best(runs: list[dict]) -> dict:
    top = max(runs, key=lambda r: r["rps"])
    return {**top, "errors": sum(r["errors"] for r in runs)}


# --- in-process measurements -------------------------------------------------------------------


def timed(client: Client, path: str, *, cold: bool, repeat: int = 20) -> tuple[float, int]:
    """(median ms, queries) for GET ``path``; cold clears the page cache and lookup index first."""
    times, queries = [], 0
    for _ in range(repeat):
        if cold:
            cache.clear()
            registry_invalidate()
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (path, response.status_code)
        queries = len(captured)
    return statistics.median(times), queries


def lookup_cost(client: Client, count: int = 3000) -> float:
    """Microseconds per lookup through the whole Django stack, index warm."""
    client.get(LOOKUP)
    started = time.perf_counter()
    for _ in range(count):
        client.get(LOOKUP)
    return (time.perf_counter() - started) / count * 1e6


def scaling_row(n: int, anonymous: Client) -> dict:
    registry_invalidate()
    started = time.perf_counter()
    registry_index()
    index_ms = (time.perf_counter() - started) * 1000
    list_ms, list_q = timed(anonymous, "/urn/", cold=True, repeat=5)
    detail_ms, detail_q = timed(anonymous, "/urn/bench0/", cold=True, repeat=5)
    return {"n": n, "lookup_us": lookup_cost(anonymous, 1500), "index_ms": index_ms,
            "list_ms": list_ms, "list_q": list_q, "detail_ms": detail_ms, "detail_q": detail_q}


# --- the report --------------------------------------------------------------------------------


def report() -> str:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from registry import demo

    lines = ["## HTTP (`benchmarks/bench_http.py`)", ""]
    if shutil.which("wrk") is None:
        return "\n".join(lines + ["wrk is not installed (`apt-get install wrk`): HTTP benchmarks skipped.", ""])
    call_command("migrate", verbosity=0)
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    anonymous = Client()
    scaling = []
    populate(8)  # the two demo SNIDs + 8 = 10
    scaling.append(scaling_row(10, anonymous))
    populate(90)
    scaling.append(scaling_row(100, anonymous))
    populate(900, pending=1000)
    scaling.append(scaling_row(1000, anonymous))

    # --- load on the server, 1,000 SNIDs ---
    env = {**os.environ}
    server = start_gunicorn(env)
    bioregistry = start_bioregistry()
    rows = []
    try:
        for connections in (1, 8, 32):
            runs = {"floor": [], "lookup": [], "bioregistry": []}
            for _ in range(2):  # alternate the sides
                runs["floor"].append(wrk(PORT, FLOOR, connections))
                runs["lookup"].append(wrk(PORT, LOOKUP, connections))
                if bioregistry:
                    runs["bioregistry"].append(wrk(BIOREGISTRY_PORT, "/api/reference/go:0032571", connections))
            rows.append((connections, {k: best(v) for k, v in runs.items() if v}))
        bulk = bulk_validation()
    finally:
        stop(server)
        if bioregistry:
            stop(bioregistry)

    workers = os.environ.get("WEB_CONCURRENCY") or f"{os.cpu_count() + 1} (cores + 1)"
    lines += [
        f"gunicorn, sync workers: {workers}; wrk on the same 2-core machine, {DURATION} s a run, "
        "two alternating runs a cell, the better kept; 1,000 registered SNIDs. Floor: a trivial "
        "Django JSON view in the same server.",
        "",
        "| connections | floor req/s | lookup req/s | lookup / floor | lookup p50 ms | lookup p99 ms | errors |"
        + (" Bioregistry req/s | lookup / Bioregistry |" if rows[0][1].get("bioregistry") else ""),
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if rows[0][1].get("bioregistry") else ""),
    ]
    for connections, r in rows:
        line = (f"| {connections} | {r['floor']['rps']:,.0f} | {r['lookup']['rps']:,.0f} | "
                f"{r['lookup']['rps'] / r['floor']['rps']:.2f}× | {r['lookup']['p50']:.2f} | "
                f"{r['lookup']['p99']:.2f} | {r['lookup']['errors'] + r['floor']['errors']} |")
        if "bioregistry" in r:
            line += f" {r['bioregistry']['rps']:,.0f} | {r['lookup']['rps'] / r['bioregistry']['rps']:.2f}× |"
        lines.append(line)
    at32 = rows[-1][1]
    ratio = at32["lookup"]["rps"] / at32["floor"]["rps"]
    lines += ["", f"Targets at 32 connections: lookup ≥ 0.8× the floor — **{'met' if ratio >= 0.8 else 'NOT met'}** "
                  f"({ratio:.2f}×); 0 errors — **{'met' if at32['lookup']['errors'] == 0 else 'NOT met'}**; "
                  f"p99 < 50 ms — **{'met' if at32['lookup']['p99'] < 50 else 'NOT met'}** "
                  f"({at32['lookup']['p99']:.1f} ms)."]
    if "bioregistry" in at32:
        versus = at32["lookup"]["rps"] / at32["bioregistry"]["rps"]
        lines.append(f"North star: lookup vs. Bioregistry's `GET /api/reference/go:0032571` (its identifier "
                     f"validation, FastAPI under uvicorn, one worker per core) at 32 connections: {versus:.2f}× "
                     f"— **{'beaten' if versus > 1 else 'NOT beaten'}**.")
    else:
        lines.append("Bioregistry was not installed beside the project, so the north-star comparison was not "
                     "run (see docs/performance.md's command to include it).")
    lines += ["", f"Bulk validation, `POST /api/validate/` with 10,000 URNs end to end (best of 3): "
                  f"{bulk:,.0f} URNs/s — target ≥ 100,000/s **{'met' if bulk >= 100_000 else 'NOT met'}**.", ""]

    # --- pages, in process, 1,000 SNIDs and 1,000 pending proposals ---
    editor = Client()
    editor.force_login(get_user_model().objects.get(username="editor"))
    pages = [("/urn/", anonymous), ("/urn/bench500/", anonymous), ("/urn/registry.json", anonymous),
             ("/api/snids/", anonymous), ("/review/", editor)]
    lines += ["Pages with 1,000 registered SNIDs and 1,000 pending proposals, in process (Django test "
              "client, no network), median of 20:", "",
              "| page | cold ms | queries | cached ms | cached req/s |", "| --- | ---: | ---: | ---: | ---: |"]
    for path, client in pages:
        cold_ms, queries = timed(client, path, cold=True)
        warm_ms, _ = timed(client, path, cold=False)
        lines.append(f"| `{path}`{' (editor)' if client is editor else ''} | {cold_ms:.1f} | {queries} | "
                     f"{warm_ms:.2f} | {1000 / warm_ms:,.0f} |")
    lines += ["", "The review dashboard is for logged-in editors and is never served from the page cache; "
                  "its 'cached' column is a second render with the lookup index warm.", ""]

    # --- scaling ---
    populate(9000, prefix="more")
    scaling.append(scaling_row(10000, anonymous))
    lines += ["How cost grows with the registry (in process; lookup through the whole Django stack with "
              "the index warm; pages cold):", "",
              "| SNIDs | lookup µs | index build ms | `/urn/` cold ms (queries) | `/urn/<snid>/` cold ms (queries) |",
              "| ---: | ---: | ---: | ---: | ---: |"]
    for row in scaling:
        lines.append(f"| {row['n']:,} | {row['lookup_us']:.0f} | {row['index_ms']:.1f} | "
                     f"{row['list_ms']:.1f} ({row['list_q']}) | {row['detail_ms']:.1f} ({row['detail_q']}) |")
    lines += ["", "Lookup cost and query counts stay flat; the index (one query, rebuilt only when the "
                  "registry changes) grows linearly with the number of SNIDs.", ""]
    return "\n".join(lines)


def bulk_validation() -> float:
    body = json.dumps({"urns": [f"urn:ogf:fdc:example.com:2002:A{i}" for i in range(10_000)]})
    best_rate = 0.0
    for _ in range(3):
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        started = time.perf_counter()
        conn.request("POST", "/api/validate/", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        results = json.loads(response.read())["results"]
        elapsed = time.perf_counter() - started
        assert response.status == 200 and len(results) == 10_000 and results[0]["valid"]
        best_rate = max(best_rate, 10_000 / elapsed)
    return best_rate
