"""The suite runs on every core (pytest-xdist, ``-n auto`` in pyproject.toml); tests marked
``serial`` run alone (tests/conftest.py). Checked by running a small suite of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, os, time
import pytest

def _record(name):
    started = time.monotonic()
    time.sleep(0.4)
    with open(os.environ["PROBE_LOG"], "a") as log:
        log.write(json.dumps([name, os.environ.get("PYTEST_XDIST_WORKER"), started, time.monotonic()]) + "\\n")

@pytest.mark.serial
def test_alone_first():
    _record("serial-1")

@pytest.mark.serial
def test_alone_second():
    _record("serial-2")

@pytest.mark.parametrize("n", range(6))
def test_beside(n):
    _record(f"plain-{n}")
"""


def test_suite_parallel_runs_serial_tests_alone(tmp_path):
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import pytest_collection_modifyitems, run_alone_when_serial  # noqa: F401\n"
    )
    (tmp_path / "test_probe.py").write_text(PROBE)
    log = tmp_path / "log.jsonl"
    environment = {**os.environ, "PROBE_LOG": str(log), "PYTHONPATH": str(ROOT)}
    environment.pop("PYTEST_XDIST_WORKER", None)
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--rootdir",
            str(tmp_path),
            "-c",
            str(ROOT / "pyproject.toml"),
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 8 and {worker for _, worker, _, _ in runs} == {"gw0", "gw1"}  # both cores used
    plain = [run for run in runs if run[0].startswith("plain")]
    assert any(a[2] < b[3] and b[2] < a[3] for a in plain for b in plain if a is not b)  # side by side
    for name, _, start, end in runs:
        if name.startswith("serial"):
            overlapping = [other[0] for other in runs if other[0] != name and other[2] < end and start < other[3]]
            assert overlapping == [], f"{name} ran beside {overlapping}"
