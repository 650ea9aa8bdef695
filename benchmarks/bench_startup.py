"""What a command costs from the first keystroke: ``manage.py`` start-up, wall and CPU, before and after.

Each command runs as a person or a cron job runs it — a fresh ``python manage.py …`` — on a
scratch SQLite database with the demo registrations (development settings, no Redis):

- ``help``: Django and the app loaded, nothing done;
- ``validate_urn --snid example <a benign URN>``: one lookup of a registered SNID;
- ``check_proposal fixtures/proposals/example.json``: the whole automated review of a proposal
  (the grammar compiled in the bounded worker);
- ``import_document tests/seeds/urn-5-registration.txt --dry-run``: a registration document read
  in the bounded worker and reported.

"Wall" is what the person waits for (until the command exits). "CPU" is every process the
command started, in all: the command, the bounded worker's fork server and its workers, which
outlive it by a moment. They are counted exactly: this process makes itself the child
subreaper (``PR_SET_CHILD_SUBREAPER``), so orphaned descendants are reparented to it, waits for
every one, and reads the CPU time of its reaped children (``RUSAGE_CHILDREN``) before and after.

Each command is measured twice: with Python's bytecode cache written first (one unmeasured run
of each command, without ``PYTHONDONTWRITEBYTECODE``), as an installed package has it; and
without it (``PYTHONDONTWRITEBYTECODE=1``, the checkout's ``__pycache__`` removed), as this
machine's development checkouts and test runs start, compiling every module of the registry a
command imports at every start. "Before" is another commit's tree
(``--before <commit>``, extracted with ``git archive`` into a scratch directory), measured the
same way with the same interpreter, database and packages, in the same run.

Run: ``python -m benchmarks.bench_startup [--before <commit>] [--runs N] [--write]``; with
``--write`` the section between the ``<!-- startup:start -->`` markers of docs/performance.md
is replaced.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "performance.md"
PR_SET_CHILD_SUBREAPER = 36
BENIGN_URN = "urn:ogf:example:cluster:2009:example.net:42"
COMMANDS = [
    ("help", ["help"]),
    ("validate_urn", ["validate_urn", "--snid", "example", BENIGN_URN]),
    ("check_proposal", ["check_proposal", "fixtures/proposals/example.json"]),
    ("import_document", ["import_document", "tests/seeds/urn-5-registration.txt", "--dry-run"]),
]
#: "cached": the bytecode cache written, as an installed package has it; "compiled": without it
#: (PYTHONDONTWRITEBYTECODE=1, no __pycache__ in the checkout: a development checkout and the tests
#: run this way here, and every start compiles each of the registry's modules it imports).
MODES = ("cached", "compiled")
#: The issue's targets: CPU seconds in all.
TARGETS = {"help": 0.5, "validate_urn": 1.0, "check_proposal": 1.0}


def _subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_all(deadline_seconds: float = 20.0) -> None:
    """Wait for every descendant reparented to this process (the fork server, its workers)."""
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.005)
    raise RuntimeError("a descendant of the command did not exit within 20 s")


def run_once(tree: Path, args: list[str], env: dict) -> tuple[float, float, int]:
    """(wall seconds until the command exits, CPU seconds of every process it started, exit code)."""
    before = _children_cpu()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _out, err = process.communicate()
    wall = time.perf_counter() - started
    if process.returncode not in (0, 1):
        raise RuntimeError(f"manage.py {' '.join(args)} in {tree} failed:\n{err.decode()[-2000:]}")
    _reap_all()
    return wall, _children_cpu() - before, process.returncode


def _environment(database: Path) -> dict:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "DJANGO_SETTINGS_MODULE": "registry.settings"}
    for name in ("PYTHONDONTWRITEBYTECODE", "REDIS_URL", "DJANGO_DEBUG"):
        env.pop(name, None)
    return env


def _demo_database(database: Path, env: dict) -> None:
    subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
    load = "from registry import demo; a = demo.demo_accounts(); demo.demo_load(a['applicant'][0], a['editor'][0])"
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", load], cwd=ROOT, env=env, check=True, capture_output=True
    )


def _tree_of(commit: str, scratch: Path) -> Path:
    tree = scratch / f"tree-{commit[:12]}"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def measure(before: str | None, runs: int) -> dict:
    _subreaper()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as scratch:
        scratch = Path(scratch)
        database = scratch / "db.sqlite3"
        env = _environment(database)
        env["REGISTRY_LOG_STATE_DIR"] = str(scratch / "log-state")
        _demo_database(database, env)
        trees = [("after", ROOT, _head())]
        if before:
            trees.insert(0, ("before", _tree_of(before, scratch), before[:12]))
        for _label, tree, _commit in trees:  # the bytecode cache, as an installed package has it
            for _name, args in COMMANDS:
                run_once(tree, args, env)
        figures: dict = {
            (mode, label): {name: {"wall": [], "cpu": []} for name, _ in COMMANDS}
            for mode in MODES
            for label, _, _ in trees
        }
        load = os.getloadavg()[0]
        for mode in MODES:
            mode_env = env if mode == "cached" else {**env, "PYTHONDONTWRITEBYTECODE": "1"}
            if mode == "compiled":  # the checkout's own modules compiled at every start
                for _label, tree, _commit in trees:
                    for cache in tree.rglob("__pycache__"):
                        shutil.rmtree(cache, ignore_errors=True)
            for _ in range(runs):  # alternating: both trees see the same moments of a shared machine
                for label, tree, _commit in trees:
                    for name, args in COMMANDS:
                        wall, cpu, _code = run_once(tree, args, mode_env)
                        figures[(mode, label)][name]["wall"].append(wall)
                        figures[(mode, label)][name]["cpu"].append(cpu)
        return {
            "figures": figures,
            "commits": {label: commit for label, _tree, commit in trees},
            "runs": runs,
            "load_start": load,
            "load_end": os.getloadavg()[0],
        }


def _head() -> str:
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True)
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def section(result: dict) -> str:
    figures, commits = result["figures"], result["commits"]
    labels = list(commits)
    command = f" --before {commits['before']}" if "before" in commits else ""
    lines = [
        "<!-- startup:start -->",
        "## Command start-up (`benchmarks/bench_startup.py`)",
        "",
        f"A fresh `python manage.py …` per run, as a person or a cron job runs it: a scratch SQLite "
        f"database with the demo registrations, development settings, Python's bytecode cache written. "
        f"Wall: until the command exits. CPU: every process it started, in all (the command, the bounded "
        f"worker's fork server and workers), counted exactly (this process is their subreaper and reads "
        f"the CPU time of each once reaped). Median of {result['runs']} alternating runs; run "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} cores, load average "
        f"{result['load_start']:.1f} at the start and {result['load_end']:.1f} at the end; "
        f"`python -m benchmarks.bench_startup{command} --write`.",
        "",
    ]
    lines += [f"- {label}: `{commits[label]}`" for label in labels]
    titles = {
        "cached": "Bytecode cache written (as an installed package has it)",
        "compiled": "Without the bytecode cache (`PYTHONDONTWRITEBYTECODE=1`, no `__pycache__` in the checkout: "
        "every start compiles the registry's modules it imports; this machine's development and test runs)",
    }
    for mode in MODES:
        lines += ["", f"{titles[mode]}:", ""]
        lines += ["| command | " + " | ".join(f"{label} wall s | {label} CPU s" for label in labels) + " |"]
        lines += ["| --- | " + " | ".join("---: | ---:" for _ in labels) + " |"]
        for name, args in COMMANDS:
            cells = []
            for label in labels:
                row = figures[(mode, label)][name]
                cells += [f"{statistics.median(row['wall']):.2f}", f"{statistics.median(row['cpu']):.2f}"]
            lines.append(f"| `{' '.join(args)}` | " + " | ".join(cells) + " |")
    lines.append("")
    for name, target in TARGETS.items():
        cpu = {mode: statistics.median(figures[(mode, "after")][name]["cpu"]) for mode in MODES}
        verdict = "**met**" if cpu["cached"] <= target else "**NOT met**"
        lines.append(
            f"- `{name}` ≤ {target:g} s of CPU in all, with the bytecode cache — {verdict} ({cpu['cached']:.2f} s; "
            f"without it {cpu['compiled']:.2f} s). The machine's load during the run inflates CPU time too."
        )
    lines += [
        "- Held by counting, not timing: `tests/test_startup.py` runs `help`, `validate_urn` and "
        "`check_proposal` in a fresh interpreter and names the modules each must not import (the "
        "grammar compiler, the bounded worker's pool, the log's JSON schemas, the URL configuration "
        "with every view and the API, Markdown, the document readers), and checks that `help` "
        "opens no database and makes no template engine.",
        "<!-- startup:end -->",
    ]
    return "\n".join(lines)


def main() -> None:
    args = sys.argv[1:]
    before = args[args.index("--before") + 1] if "--before" in args else None
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 5
    if before:
        before = subprocess.run(
            ["git", "rev-parse", before], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    text = section(measure(before, runs))
    print(text)
    if "--write" in args:
        current = OUT.read_text(encoding="utf-8")
        marked = re.compile(r"<!-- startup:start -->.*?<!-- startup:end -->", re.S)
        OUT.write_text(
            marked.sub(lambda _: text, current)
            if marked.search(current)
            else current.rstrip("\n") + "\n\n" + text + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
