"""The hostile corpus against the deployed server (granian): wall time per case and the peak memory it caused.

Usage (from the repository root; uses ports 8150-8151 and a scratch SQLite database):

    python -m benchmarks.bench_hostile

Each untrusted-text case of tests/hostile/cases.json (grammars through "Check
without saving", Markdown through save and the proposal page, documents through
import, SNIDs through save, search text through the three search boxes) is sent
to the deployed server (registry/serve.py) with two workers. While it runs, the peak resident memory of
the web workers and of their job workers (registry.sandbox) is sampled from
/proc, and a second client keeps asking the lookup API, so the table also shows
that the server answered others meanwhile. The table is written into
docs/performance.md between the hostile markers, leaving the rest of the file.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

from registry import serve

ROOT = Path(__file__).resolve().parent.parent
PORT = int(os.environ.get("BENCH_HOSTILE_PORT", "8150"))
BASE = f"http://127.0.0.1:{PORT}"
START, END = "<!-- hostile:start -->", "<!-- hostile:end -->"
LOOKUP = "/api/lookup/?urn=urn:ogf:example:cluster:2009:example.net:42"
PASSWORD = "bench-hostile-pw-1"


def expand(value):
    if isinstance(value, dict) and "repeat" in value:
        return value.get("prefix", "") + value["repeat"] * value["times"] + value.get("suffix", "")
    return value


def label(text: str) -> str:
    shown = text[:28].replace("\n", "\\n").replace("\r", "\\r").replace("|", "\\|")
    shown = "".join(
        c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in shown
    )
    return f"`{shown}`" + (f" … ({len(text):,} chars)" if len(text) > 28 else "")


# --- processes and memory ----------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Sampler(threading.Thread):
    """Peak RSS of the web workers and of their job workers while a case runs."""

    def __init__(self, master: int):
        super().__init__(daemon=True)
        self.master, self.running = master, True
        self.web = self.jobs = 0.0

    def run(self):
        while self.running:
            for worker in _children(self.master):
                self.web = max(self.web, _rss_mb(worker))
                # worker -> fork server -> job workers (and the server itself)
                stack = _children(worker)
                while stack:
                    job = stack.pop()
                    self.jobs = max(self.jobs, _rss_mb(job))
                    stack.extend(_children(job))
            time.sleep(0.01)


class Bystander(threading.Thread):
    """Another client asking the lookup API and the public list during a case: its slowest answer."""

    def __init__(self):
        super().__init__(daemon=True)
        self.running, self.slowest, self.failures = True, 0.0, 0

    def run(self):
        session = requests.Session()
        turn = 0
        while self.running:
            started = time.perf_counter()
            turn += 1
            try:
                ok = session.get(BASE + (LOOKUP if turn % 2 else "/urn/"), timeout=10).status_code == 200
            except requests.RequestException:
                ok = False
            self.slowest = max(self.slowest, time.perf_counter() - started)
            self.failures += not ok
            time.sleep(0.05)


# --- set-up ----------------------------------------------------------------------------------


def prepare(env: dict) -> tuple[int, dict]:
    """Migrate a scratch database, load the demo data; a draft proposal's id and form data."""
    script = (
        "from registry import demo, services\n"
        "from registry.models import Proposal\n"
        "from django.contrib.auth import get_user_model\n"
        "accounts = demo.demo_accounts()\n"
        "demo.demo_load(accounts['applicant'][0], accounts['editor'][0])\n"
        "user = get_user_model().objects.create_user('hostile', password='" + PASSWORD + "')\n"
        "user.groups.add(services.editors_group())  # an editor, to reach every search box\n"
        "from tests.factories import data_factory\n"
        "from registry.forms import ProposalForm\n"
        "import json\n"
        "proposal = services.proposal_create(data_factory(), user)\n"
        "form = ProposalForm.initial_from(proposal.to_data())\n"
        "print(json.dumps({'pk': proposal.pk, 'form': {k: v for k, v in form.items() if v is not None}}))\n"
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    prepared = json.loads(out.strip().splitlines()[-1])
    return prepared["pk"], prepared["form"]


def start(env: dict) -> subprocess.Popen:
    process = subprocess.Popen(
        serve.command(),
        cwd=ROOT,
        env={**env, "BIND": f"127.0.0.1:{PORT}", "WEB_CONCURRENCY": "2"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(BASE + LOOKUP, timeout=2).status_code == 200:
                return process
        except requests.RequestException:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError("the server did not start")


def login() -> requests.Session:
    session = requests.Session()
    page = session.get(BASE + "/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    session.post(
        BASE + "/accounts/login/",
        data={"username": "hostile", "password": PASSWORD, "csrfmiddlewaretoken": token},
        headers={"Referer": BASE + "/accounts/login/"},
    )
    return session


# --- the cases ---------------------------------------------------------------------------------


def cases(pk: int):
    corpus = json.loads((ROOT / "tests" / "hostile" / "cases.json").read_text())
    for case in corpus["grammars"]:
        abnf = expand(case["abnf"])
        examples = "\n".join(case["examples"]) or "urn:ogf:example:x"
        yield (
            "grammar: check",
            abnf,
            ("check", {"grammar_abnf": abnf, "grammar_rule": "", "examples_valid": examples, "examples_invalid": ""}),
        )
    for number, case in enumerate(corpus["grammars"]):
        abnf = expand(case["abnf"])
        yield "grammar: approve", abnf, ("approve", (f"hostile-{number}", abnf))
        yield "grammar: lookups", abnf, ("lookups", f"hostile-{number}")
        yield "grammar: bulk validation", abnf, ("bulk", f"hostile-{number}")
    for case in corpus["form_fields"] + corpus["huge_bodies"]:
        value = expand(case["value"])
        if len(value) > 100_000:
            yield f"field {case['field']}: check", value, ("check", {case["field"]: value})
    for text in corpus["markdown"]:
        text = expand(text)
        yield "Markdown: save + page", text, ("save", {"section_scope": text})
    for text in corpus["documents"]:
        text = expand(text)
        yield "document: import", text, ("import", text)
    for snid in corpus["snid_inputs"]:
        yield "SNID: save", snid, ("save", {"snid": snid})
    for text in corpus["searches"]:
        yield "search: 3 boxes", text, ("search", text)


def send(session: requests.Session, pk: int, action, base_form: dict) -> tuple[int, str]:
    kind, payload = action
    headers = {"Referer": BASE + "/"}
    token = session.cookies.get("csrftoken", "")
    if kind in ("check", "save"):
        data = {**base_form, **payload, "intent": "save", "csrfmiddlewaretoken": token}
        url = f"{BASE}/proposals/{pk}/{'check' if kind == 'check' else 'edit'}/"
        response = session.post(url, data=data, headers=headers, allow_redirects=False, timeout=60)
        statuses = [response.status_code]
        if kind == "save":
            statuses.append(session.get(f"{BASE}/proposals/{pk}/", timeout=60).status_code)
        return max(statuses), "/".join(map(str, statuses))
    if kind == "approve":
        snid, abnf = payload
        return approve(snid, abnf)
    if kind == "lookups":
        urns = [f"urn:ogf:{payload}:" + "a" * 4000, f"urn:ogf:{payload}:aaaa!", f"urn:ogf:{payload}:" + "ab" * 2000]
        statuses = [session.get(BASE + "/api/lookup/", params={"urn": urn}, timeout=60).status_code for urn in urns]
        return max(statuses), "/".join(map(str, statuses))
    if kind == "bulk":
        urns = [
            f"urn:ogf:{payload}:" + "a" * 4000,
            f"urn:ogf:{payload}:" + "ab" * 2000,
            f"urn:ogf:{payload}:aaaa!",
        ] * 10
        response = session.post(BASE + "/api/validate/", json={"urns": urns}, timeout=120)
        return response.status_code, str(response.status_code)
    if kind == "import":
        response = session.post(
            BASE + "/proposals/import/",
            data={"text": payload, "csrfmiddlewaretoken": token},
            headers=headers,
            allow_redirects=False,
            timeout=60,
        )
        return response.status_code, str(response.status_code)
    statuses = [
        session.get(BASE + url, params={"q": payload}, timeout=60).status_code
        for url in ("/urn/", "/api/snids/", "/review/")
    ]
    return max(statuses), "/".join(map(str, statuses))


_ENV: dict = {}


def approve(snid: str, abnf: str) -> tuple[int, str]:
    """An editor approves a proposal with this grammar (overriding failing checks): import_proposal."""
    raw = json.loads((ROOT / "fixtures" / "proposals" / "example.json").read_text(encoding="utf-8"))
    raw.update(
        {
            "snid": snid,
            "grammar": {"abnf": abnf, "rule": ""},
            "examples": {"valid": [], "invalid": [], "equivalent": []},
        }
    )
    path = Path(tempfile.mkstemp(suffix=".json")[1])
    path.write_text(json.dumps(raw), encoding="utf-8")
    try:
        done = subprocess.run(
            [
                sys.executable,
                "manage.py",
                "import_proposal",
                str(path),
                "--submitter",
                "hostile",
                "--approve",
                "--editor",
                "editor",
                "--override-reason",
                "hostile corpus",
            ],
            cwd=ROOT,
            env=_ENV,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        path.unlink()
    # 0: approved; 1: refused with a message (a grammar over a size limit is never stored).
    return (200 if done.returncode == 0 else 400), f"exit {done.returncode}"


def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "registry.settings",
        "DATABASE_URL": f"sqlite:///{scratch / 'db.sqlite3'}",
        "REGISTRY_ANON_RATE": "off",
        "DJANGO_LOG_LEVEL": "CRITICAL",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("REDIS_URL", None)
    _ENV.update(env)
    pk, base_form = prepare(env)
    server = start(env)
    rows = []
    try:
        session = login()
        for kind, text, action in cases(pk):
            sampler, bystander = Sampler(server.pid), Bystander()
            sampler.start()
            bystander.start()
            started = time.perf_counter()
            worst, statuses = send(session, pk, action, base_form)
            elapsed = time.perf_counter() - started
            sampler.running = bystander.running = False
            sampler.join()
            bystander.join()
            rows.append(
                (kind, text, statuses, worst, elapsed, sampler.web, sampler.jobs, bystander.slowest, bystander.failures)
            )
            print(
                f"{elapsed:6.2f} s  {sampler.web:6.0f} MB web  {sampler.jobs:6.0f} MB jobs  "
                f"{statuses:>11}  {kind}: {label(text)}",
                flush=True,
            )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    write(rows)


def write(rows) -> None:
    worst_time = max(r[4] for r in rows)
    worst_web = max(r[5] for r in rows)
    worst_job = max(r[6] for r in rows)
    errors = sum(1 for r in rows if r[3] >= 500)
    lines = [
        START,
        "## Hostile input (`benchmarks/bench_hostile.py`)",
        "",
        f"Every untrusted-text case of `tests/hostile/cases.json` ({len(rows)} cases) sent to the deployed server "
        "(2 workers, job budget 2 s / 512 MB) on loopback, one at a time; every grammar is also "
        "approved by an editor (overriding failing checks, `import_proposal --approve`), then looked "
        "up (a 4,000-character URN, a short invalid one, a long one that stays alive) and validated in "
        "bulk (30 URNs); wall time of the request(s), the peak resident memory of the web workers "
        "and of their job workers while it ran, and the slowest answer another client got from the "
        "lookup API and `/urn/` meanwhile. An approve row is the wall time of the `import_proposal` "
        "command, the start of Python and Django included; a 413 row includes the client's upload of "
        "the whole body (the server refuses it from its Content-Length). "
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} cores; "
        "`python -m benchmarks.bench_hostile`.",
        "",
        f"**Worst case: {worst_time:.2f} s, web worker {worst_web:.0f} MB, job worker {worst_job:.0f} MB; "
        f"{errors} answers of 500 or more.**",
        "",
        "| Case | Input | Status | Wall time (s) | Web worker peak RSS (MB) | Job worker peak RSS (MB) "
        "| Slowest lookup meanwhile (s) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for kind, text, statuses, _, elapsed, web, jobs, slowest, failures in rows:
        lines.append(
            f"| {kind} | {label(text)} | {statuses} | {elapsed:.2f} | {web:.0f} | {jobs:.0f} "
            f"| {slowest:.2f}{' (' + str(failures) + ' failed)' if failures else ''} |"
        )
    lines.append(END)
    section = "\n".join(lines)
    path = ROOT / "docs" / "performance.md"
    text = path.read_text(encoding="utf-8")
    if START in text and END in text:
        text = text[: text.index(START)] + section + text[text.index(END) + len(END) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
