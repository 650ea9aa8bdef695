"""HTTP benchmarks: the registry as deployed (granian), the same under gunicorn, Bioregistry as it ships,
nginx's cache, wrk.

All targets are measured in one run, in alternating rounds (the order rotates
each round), on the same machine at the same moment: the figures to compare
are the ratios. The lookup is compared with Bioregistry's reference API, the
resolver redirect (``/urn:ogf:…``, 302) with Bioregistry's own resolver redirect
(``/<prefix>:<id>``, 302); the same application under gunicorn (as deployed
before granian) is measured beside it on the same hot paths, the comparison that
chose the server. Also: Python calls per lookup (cProfile, in process), bulk
validation end to end, and worker memory over 20,000 mixed requests.

``python -m benchmarks.bench_http --write`` builds its own database (as
``benchmarks.run`` does) and replaces only the HTTP section of docs/performance.md
(between ``<!-- http:start -->`` and ``<!-- http:end -->``); ``benchmarks.run`` writes
it with the rest.
"""

from __future__ import annotations

import cProfile
import http.client
import json
import os
import pstats
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from benchmarks import servers

ROOT = Path(__file__).resolve().parent.parent
PORT = int(os.environ.get("BENCH_PORT", "8700"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
LOOKUP = "/api/lookup/?urn=urn:ogf:fdc:example.com:20010527:img089322-038"
RESOLVE = "/resolve/?urn=urn:ogf:fdc:example.com:20010527:img089322-038"  # 302 to the demo's fdc resolver
RESOLVE_PATH = "/urn:ogf:fdc:example.com:20010527:img089322-038"  # the same, as a link to the URN itself
FLOOR = "/bench/floor/"
STATIC = "/static/registry/site.css"
#: Bioregistry's resolver redirect, the peer of ours: ``/<prefix>:<id>`` answers 302 to the provider.
BIOREGISTRY_RESOLVE = "/chebi:24867"
BIOREGISTRY_RESOLVE_GO = "/go:0032571"
TARGET_RATIO, TARGET_P99 = 3.0, 20.0
DISTINCT_LUA = """-- a new URN on every request: no answer is ever reused
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/api/lookup/?urn=urn:ogf:fdc:example.com:2002:A" .. counter .. "-"
    .. math.random(1, 999999999))
end
"""
DISTINCT_RESOLVE_LUA = DISTINCT_LUA.replace("/api/lookup/?urn=", "/")  # /urn:ogf:fdc:…: a new URN each time


def redis_up(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), timeout=2) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    response = conn.getresponse()
    return response.status, response.read()


# --- the peer table -------------------------------------------------------------------------------


def _resolve_lines(results: dict) -> list[str]:
    """Resolution against the lookup, like for like (repeated, and a new URN each request), per round."""
    lines = []
    for resolve, lookup in (
        ("resolve", "lookup"),
        ("resolve, path form", "lookup"),
        ("resolve, a new URN each request", "lookup, a new URN each request"),
    ):
        r, k = results[resolve], results[lookup]
        per_round = [a / b for a, b in zip(r["runs"], k["runs"], strict=True)]
        ratio = r["rps"] / k["rps"]
        lines.append(
            f"- {resolve} vs. {lookup} (as fast as the lookup: ≥ 0.9×) — {_met(ratio >= 0.9)}: "
            f"{ratio:.2f}× req/s (rounds: {', '.join(f'{x:.2f}×' for x in per_round)}), p99 "
            f"{r['p99']:.2f} ms vs. {k['p99']:.2f} ms, {r['errors']} errors."
        )
    return lines


def _peer_line(results: dict, ours: str, peer: str) -> str:
    per_round = [a / b for a, b in zip(results[ours]["runs"], results[peer]["runs"], strict=True)]
    ratio = results[ours]["rps"] / results[peer]["rps"]
    return (
        f"- {ours} ≥ {TARGET_RATIO:g}× {peer} — {_met(ratio >= TARGET_RATIO)}: {ratio:.2f}× (rounds: "
        f"{', '.join(f'{r:.2f}×' for r in per_round)})."
    )


def peer_rounds(targets: list[tuple[str, str, Path | None]]) -> dict[str, dict]:
    runs: dict[str, list[dict]] = {name: [] for name, _, _ in targets}
    for round_number in range(ROUNDS):
        shift = round_number % len(targets)
        for name, url, script in targets[shift:] + targets[:shift]:
            runs[name].append(servers.wrk(url, script=script))
    return {name: servers.summary(r) for name, r in runs.items()}


def python_calls_per_lookup() -> list[tuple[str, float, float]]:
    """(path, Python calls per lookup, µs per lookup) through the full Django stack and the fast path."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory

    from registry.wsgi import application

    environ = {
        **RequestFactory().get("/api/lookup/").environ,
        "QUERY_STRING": LOOKUP.split("?", 1)[1],
        "HTTP_HOST": "127.0.0.1",
    }
    out = []
    for name, app in (("full Django stack (DRF view)", WSGIHandler()), ("WSGI fast path", application)):
        for _ in range(200):
            b"".join(app(dict(environ), lambda status, headers: None))
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(200):
            b"".join(app(dict(environ), lambda status, headers: None))
        profile.disable()
        calls = pstats.Stats(profile).total_calls / 200
        started = time.perf_counter()
        for _ in range(3000):
            b"".join(app(dict(environ), lambda status, headers: None))
        out.append((name, calls, (time.perf_counter() - started) / 3000 * 1e6))
    return out


def bulk_validation(port: int) -> tuple[float, float, int]:
    """URNs/s of ``POST /api/validate/`` with 10,000 URNs, best of 3: (until the answer's last byte
    has arrived, the same with this client's own ``json.loads`` of the answer, its size in bytes).
    Parsing 2.7 MB of JSON is the client's work, and costs Python's json module about as much as
    the server's whole answer: both figures are reported."""
    body = json.dumps({"urns": [f"urn:ogf:fdc:example.com:2002:A{i}" for i in range(10_000)]})
    best_received = best_parsed = 0.0
    size = 0
    for _ in range(3):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        started = time.perf_counter()
        conn.request("POST", "/api/validate/", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        answer = response.read()
        received = time.perf_counter() - started
        results = json.loads(answer)["results"]
        parsed = time.perf_counter() - started
        assert response.status == 200 and len(results) == 10_000 and results[0]["valid"]
        best_received, best_parsed = max(best_received, 10_000 / received), max(best_parsed, 10_000 / parsed)
        size = len(answer)
        conn.close()
    return best_received, best_parsed, size


# --- memory -----------------------------------------------------------------------------------------


def mixed_paths(count: int, seed: int) -> list[str]:
    """Lookups (repeated and new), list and SNID pages, search, API reads, exports, misses."""
    rng = random.Random(seed)
    kinds = [
        lambda: LOOKUP,
        lambda: f"/api/lookup/?urn=urn:ogf:fdc:example.com:2002:M{rng.randrange(10**9)}",
        lambda: f"/api/lookup/?urn=urn:ogf:bench{rng.randrange(1000)}:example.com:2002:x",
        lambda: f"/urn/?page={rng.randrange(1, 11)}",
        lambda: f"/urn/bench{rng.randrange(1000)}/",
        lambda: f"/urn/search/?urn=urn:ogf:bench{rng.randrange(1000)}:a.b:2002:{rng.randrange(10**6)}",
        lambda: f"/api/snids/?page={rng.randrange(1, 11)}",
        lambda: f"/api/snids/bench{rng.randrange(1000)}/",
        lambda: "/urn/registry.json",
        lambda: f"/urn/missing{rng.randrange(10**6)}/",
    ]
    return [rng.choice(kinds)() for _ in range(count)]


def drive(port: int, paths: list[str], threads: int = 4) -> int:
    """Send every path over keep-alive connections; the number of 5xx answers."""
    failures = [0]

    def worker(chunk):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for path in chunk:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            failures[0] += response.status >= 500
            if response.getheader("Connection", "").lower() == "close":
                conn.close()

    pool = [threading.Thread(target=worker, args=(paths[i::threads],)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return failures[0]


def memory(env: dict) -> dict:
    server = servers.start_ours(PORT + 5, env)
    try:
        failures = drive(PORT + 5, mixed_paths(1_000, seed=1))
        after_1k = servers.rss_kib(server.worker_pids())
        failures += drive(PORT + 5, mixed_paths(9_000, seed=2))
        after_10k = servers.rss_kib(server.worker_pids())
        failures += drive(PORT + 5, mixed_paths(10_000, seed=3))
        after_20k = servers.rss_kib(server.worker_pids())
    finally:
        server.stop()
    return {"after_1k": after_1k, "after_10k": after_10k, "after_20k": after_20k, "failures": failures}


# --- the report -------------------------------------------------------------------------------------


def _row(name: str, how: str, s: dict) -> str:
    return (
        f"| {name} | {how} | {s['rps']:,.0f} | {s['min']:,.0f}–{s['max']:,.0f} | {s['p50']:.2f} | "
        f"{s['p99']:.2f} ({s['p99_worst']:.2f}) | {s['errors']} |"
    )


def _met(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


def report() -> str:
    lines = ["<!-- http:start -->", "## HTTP (`benchmarks/bench_http.py`)", ""]
    if shutil.which("wrk") is None:
        return "\n".join(
            lines + ["wrk is not installed (`apt-get install wrk`): HTTP benchmarks skipped.", "", "<!-- http:end -->"]
        )
    static_root = Path(tempfile.mkdtemp(prefix="registry-static-"))
    env = {**os.environ, "DJANGO_STATIC_ROOT": str(static_root)}
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
    if redis_up(redis_url):
        env["REDIS_URL"] = redis_url  # the page and throttle cache shared by the workers, as deployed
        cache_note = f"page cache in Redis, `REDIS_URL={redis_url}`, as deployed"
    else:
        cache_note = "no Redis reachable: each worker's page cache in its own memory (bounded at 300 pages)"
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    ours = servers.start_ours(PORT, env)
    why_no_peer = servers.bioregistry_missing()
    why_no_gunicorn = servers.gunicorn_missing()
    bioregistry = nginx = gunicorn = None
    try:
        if why_no_gunicorn is None:
            try:
                gunicorn = servers.start_gunicorn(PORT + 3, env)
            except RuntimeError as exc:
                why_no_gunicorn = str(exc)
        if why_no_peer is None:
            try:
                bioregistry = servers.start_bioregistry(PORT + 1)
            except RuntimeError as exc:
                why_no_peer = str(exc)
        nginx, nginx_dir = servers.start_nginx(PORT + 2, [PORT], FLOOR) if shutil.which("nginx") else (None, None)
        script = Path(tempfile.mkdtemp(prefix="registry-wrk-")) / "distinct.lua"
        script.write_text(DISTINCT_LUA)
        resolve_script = script.with_name("distinct-resolve.lua")
        resolve_script.write_text(DISTINCT_RESOLVE_LUA)
        ours_url = f"http://127.0.0.1:{PORT}"
        targets = [
            ("lookup", ours_url + LOOKUP, None),
            ("resolve", ours_url + RESOLVE, None),
            ("resolve, path form", ours_url + RESOLVE_PATH, None),
            ("lookup, a new URN each request", ours_url, script),
            ("resolve, a new URN each request", ours_url, resolve_script),
        ]
        if bioregistry:
            bio = f"http://127.0.0.1:{PORT + 1}"
            targets += [
                ("Bioregistry reference", bio + servers.BIOREGISTRY_PATH, None),
                ("Bioregistry reference (go)", bio + "/api/reference/go:0032571", None),
                ("Bioregistry resolve", bio + BIOREGISTRY_RESOLVE, None),
                ("Bioregistry resolve (go)", bio + BIOREGISTRY_RESOLVE_GO, None),
            ]
        if gunicorn:
            other = f"http://127.0.0.1:{PORT + 3}"
            targets += [
                ("lookup, gunicorn", other + LOOKUP, None),
                ("resolve, path form, gunicorn", other + RESOLVE_PATH, None),
                ("static file, gunicorn", other + STATIC, None),
            ]
        targets += [("Django floor", ours_url + FLOOR, None), ("static file", ours_url + STATIC, None)]
        if nginx:
            targets += [
                ("lookup through nginx's cache", f"http://127.0.0.1:{PORT + 2}{LOOKUP}", None),
                ("static file from nginx", f"http://127.0.0.1:{PORT + 2}{STATIC}", None),
            ]
        for _, url, script in targets:  # warm every worker's index, validators, answers and connections
            parts = urlsplit(url)
            for _ in range(8):
                _get(parts.port, (parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
            servers.warm_up(url, script=script)
        results = peer_rounds(targets)
        bulk = bulk_validation(PORT)
    finally:
        if gunicorn:
            gunicorn.stop()
        if nginx:
            servers.stop_nginx(nginx, nginx_dir)
        if bioregistry:
            bioregistry.stop()
        ours.stop()
    mem = memory(env)
    shutil.rmtree(static_root, ignore_errors=True)

    how = {
        "lookup": f"ours, `GET {LOOKUP}`",
        "resolve": f"ours, `GET {RESOLVE}` (302 to the SNID's resolver)",
        "resolve, path form": f"ours, `GET {RESOLVE_PATH}` (the same 302, the URN as the path)",
        "resolve, a new URN each request": "ours, `GET /urn:ogf:fdc:example.com:2002:A<n>-<random>` (302; wrk Lua "
        "script: never a repeated answer)",
        "lookup, a new URN each request": "ours, `GET /api/lookup/?urn=urn:ogf:fdc:example.com:2002:A<n>-<random>` "
        "(wrk Lua script: never a repeated answer)",
        "Bioregistry reference": f"Bioregistry, `GET {servers.BIOREGISTRY_PATH}`",
        "Bioregistry reference (go)": "Bioregistry, `GET /api/reference/go:0032571`",
        "Bioregistry resolve": f"Bioregistry, `GET {BIOREGISTRY_RESOLVE}` (302 to the provider: its resolver)",
        "Bioregistry resolve (go)": f"Bioregistry, `GET {BIOREGISTRY_RESOLVE_GO}` (302 to the provider)",
        "lookup, gunicorn": f"ours under gunicorn, `GET {LOOKUP}`",
        "resolve, path form, gunicorn": f"ours under gunicorn, `GET {RESOLVE_PATH}` (302)",
        "static file, gunicorn": f"ours under gunicorn, `GET {STATIC}` (WhiteNoise: gunicorn's floor)",
        "Django floor": f"ours, `GET {FLOOR}` (a view returning `JsonResponse({{'ok': True}})` through "
        "the whole middleware stack)",
        "static file": f"ours, `GET {STATIC}` (WhiteNoise, before Django: the server's floor)",
        "lookup through nginx's cache": "nginx 127.0.0.1 → ours, `proxy_cache` hit (docs/nginx.conf)",
        "static file from nginx": f"nginx, `GET {STATIC}` from disk",
    }
    lines += [
        f"{ROUNDS} alternating rounds of `{' '.join(servers.WRK)} <url>` per target (the order rotates "
        "each round), after one unmeasured warm-up of "
        f"`{' '.join(servers.WARM_UP)}` per target (every server is then in its steady state: imports done, "
        "indexes and answers built, both sides alike); medians over the rounds, the spread of req/s, p99 as "
        "the median (worst) round. "
        "Every server runs "
        f"{servers.WORKERS} worker processes on this 2-core machine, shared with wrk and with the other servers "
        "of the run, idle while another is measured (and, during this run, possibly with other work on the "
        "shared machine: absolute figures are noisy, ratios within a round less so). "
        "1,000 registered SNIDs, 1,000 pending proposals.",
        "",
        f"- Ours, as deployed: `WEB_CONCURRENCY={servers.WORKERS} DJANGO_SETTINGS_MODULE=benchmarks.settings "
        f"python -m registry.serve` — granian {servers.granian_version()} (its WSGI interface; 2 threads per "
        "worker, `registry/serve.py`), production settings (`DJANGO_DEBUG=0`), throttling off "
        "(wrk is one client address), a SQLite database.",
    ]
    if gunicorn:
        lines.append(
            f"- The same application under gunicorn {servers.gunicorn_version()} as deployed before: "
            f"`{' '.join(['gunicorn'] + servers.gunicorn_command()[3:])}` (gthread workers, the same "
            "worker processes, threads and warm-up), beside granian on the same hot paths."
        )
    else:
        lines.append(f"- gunicorn rows skipped: {why_no_gunicorn}.")
    if bioregistry:
        lines.append(
            f"- Bioregistry, as it ships: `{' '.join(['gunicorn'] + servers.bioregistry_command(PORT + 1)[1:])}` "
            f"from its own virtualenv (`BIOREGISTRY_VENV`): {servers.bioregistry_versions()}."
        )
    else:
        lines.append(f"- Bioregistry rows skipped: {why_no_peer}.")
    if nginx:
        lines.append(
            f"- nginx {servers.nginx_version()} (Debian package) with docs/nginx.conf, one upstream "
            "(the same granian instance)."
        )
    else:
        lines.append("- nginx rows skipped: nginx is not installed (`apt-get install nginx`).")
    lines += [
        f"- wrk {servers.wrk_version()}.",
        "",
        "| target | what | req/s (median) | req/s min–max | p50 ms | p99 ms median (worst) | errors |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [_row(name, how[name], s) for name, s in results.items()]
    lookup = results["lookup"]
    lines += ["", "Targets at 32 connections, equal workers:", ""]
    if bioregistry:
        for ours_name, peer in (
            ("lookup", "Bioregistry reference"),
            ("lookup", "Bioregistry reference (go)"),
            ("resolve, path form", "Bioregistry resolve"),
            ("resolve, path form", "Bioregistry resolve (go)"),
        ):
            lines.append(_peer_line(results, ours_name, peer))
        for ours_name, peer in (
            ("lookup, a new URN each request", "Bioregistry reference"),
            ("resolve, a new URN each request", "Bioregistry resolve"),
        ):
            ratio_new = results[ours_name]["rps"] / results[peer]["rps"]
            lines.append(
                f"- {ours_name} (nothing reused): {ratio_new:.2f}× {peer} — {_met(ratio_new >= TARGET_RATIO)}."
            )
        if gunicorn:
            for ours_name, peer in (
                ("lookup, gunicorn", "Bioregistry reference"),
                ("resolve, path form, gunicorn", "Bioregistry resolve"),
            ):
                ratio = results[ours_name]["rps"] / results[peer]["rps"]
                lines.append(
                    f"- For comparison, under gunicorn: {ours_name.split(',')[0]} "
                    f"{ratio:.2f}× {peer} ({'met' if ratio >= TARGET_RATIO else 'not met'} under gunicorn)."
                )
    else:
        lines.append(
            f"- `/api/lookup/` and `/urn:ogf:…` ≥ {TARGET_RATIO:g}× Bioregistry: not measured ({why_no_peer})."
        )
    errors = sum(results[name]["errors"] for name in ("lookup", "resolve", "resolve, path form"))
    lines.append(f"- 0 errors on the lookup and the resolver — {_met(errors == 0)} ({errors}).")
    # What the machine itself adds to the tail: nginx sending a small file from disk, in the same rounds.
    tail = results.get("static file from nginx")
    machine = (
        f"; in the same rounds nginx sent a file from disk with a p99 of {tail['p99']:.2f} ms, the shared "
        "machine's own tail"
        if tail
        else ""
    )
    for name in ("lookup", "resolve, path form"):
        s = results[name]
        lines.append(
            f"- {name}: p99 < {TARGET_P99:.0f} ms — {_met(s['p99'] < TARGET_P99)} (median round "
            f"{s['p99']:.2f} ms, worst round {s['p99_worst']:.2f} ms{machine})."
        )
    if gunicorn:
        for name in ("lookup", "resolve, path form", "static file"):
            a, b = results[name], results[f"{name}, gunicorn"]
            per_round = [x / y for x, y in zip(a["runs"], b["runs"], strict=True)]
            lines.append(
                f"- {name}, granian vs. gunicorn: {a['rps'] / b['rps']:.2f}× req/s (rounds: "
                f"{', '.join(f'{r:.2f}×' for r in per_round)}), p99 {a['p99']:.2f} ms vs. {b['p99']:.2f} ms"
                f"{' (the servers’ own floor)' if name == 'static file' else ''}."
            )
    lines += [
        *_resolve_lines(results),
        f"- Lookup vs. the Django floor: {lookup['rps'] / results['Django floor']['rps']:.2f}×; vs. the "
        f"static-file floor: {lookup['rps'] / results['static file']['rps']:.2f}×.",
    ]
    if nginx:
        cached = results["lookup through nginx's cache"]
        lines.append(
            f"- Through nginx's cache: {cached['rps']:,.0f} req/s, {cached['rps'] / lookup['rps']:.2f}× "
            "the direct lookup (nginx shares the two cores with wrk and granian here)."
        )
    calls = python_calls_per_lookup()
    lines += [
        "",
        "Where a lookup's time goes (in process, no network; cProfile call counts, then µs per lookup "
        "without the profiler):",
        "",
        "| path | Python calls per lookup | µs per lookup |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {name} | {n:.0f} | {us:.0f} |" for name, n, us in calls]
    received, parsed, size = bulk
    lines += [
        "",
        f"Bulk validation, `POST /api/validate/` with 10,000 URNs end to end, from sending the request "
        f"to the answer's last byte (best of 3): {received:,.0f} URNs/s — target ≥ 100,000/s "
        f"{_met(received >= 100_000)}. With this Python client's own `json.loads` of the "
        f"{size / 1e6:.1f} MB answer added: {parsed:,.0f} URNs/s.",
        "",
    ]
    growth = (mem["after_20k"] - mem["after_1k"]) / mem["after_1k"]
    lines += [
        f"Worker memory: a fresh server ({servers.WORKERS} workers; {cache_note}), mixed GETs over 4 "
        "keep-alive connections (lookups repeated and new, list and SNID pages, URN search, API reads, the JSON "
        "export, unknown SNIDs). RSS summed over the workers:",
        "",
        "| after 1,000 requests | after 10,000 | after 20,000 | growth 1,000 → 20,000 | 5xx answers |",
        "| ---: | ---: | ---: | ---: | ---: |",
        f"| {mem['after_1k'] / 1024:.1f} MiB | {mem['after_10k'] / 1024:.1f} MiB | {mem['after_20k'] / 1024:.1f} MiB "
        f"| {growth:+.1%} | {mem['failures']} |",
        "",
        f"Target: RSS after 20,000 within 10 % of RSS after 1,000 — {_met(abs(growth) <= 0.10)}.",
        "",
        "<!-- http:end -->",
    ]
    return "\n".join(lines)


HTTP_SECTION = re.compile(r"<!-- http:start -->.*?<!-- http:end -->", re.S)
UNMARKED_SECTION = re.compile(r"## HTTP \(`benchmarks/bench_http.py`\)\n.*?(?=\n<!-- hostile:start -->)", re.S)


def main() -> None:
    """The HTTP section alone, over a database built as ``benchmarks.run`` builds it; ``--write`` puts it
    in docs/performance.md in place of the one there."""
    with tempfile.TemporaryDirectory(prefix="registry-bench-http-") as scratch:
        os.environ["DJANGO_SETTINGS_MODULE"] = "benchmarks.settings"
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(scratch) / 'bench.sqlite3'}"
        import django

        django.setup()
        from benchmarks import bench_pages

        bench_pages.setup()
        from django.db import connections

        connections.close_all()
        text = report()
    print(text)
    if "--write" in sys.argv[1:]:
        out = ROOT / "docs" / "performance.md"
        current = out.read_text(encoding="utf-8")
        for marked in (HTTP_SECTION, UNMARKED_SECTION):
            if marked.search(current):
                out.write_text(marked.sub(lambda _: text, current, count=1), encoding="utf-8")
                break
        else:
            out.write_text(current.rstrip("\n") + "\n\n" + text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
