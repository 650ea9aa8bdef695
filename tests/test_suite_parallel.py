"""The suite runs on every core (pytest-xdist, ``-n auto`` in pyproject.toml, two workers per core); tests
marked ``serial`` run alone, after the others (tests/conftest.py). Checked by
running a small suite of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.long  # each runs a suite of its own: seconds apiece (tests/conftest.py)

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

@pytest.mark.long
def test_long_written_last():
    _record("long")
"""


def _probe_suite(tmp_path, *options: str, probe: str = PROBE) -> list[list]:
    """Run ``probe`` as a suite of its own with the suite's conftest hooks; (name, worker, start, end) per
    test (or pytest's output with ``--collect-only``)."""
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import (  # noqa: F401\n"
        "    pytest_addoption, pytest_collection_modifyitems, run_alone_when_serial\n"
        ")\n"
    )
    (tmp_path / "test_probe.py").write_text(probe)
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
            *options,
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
    if "--collect-only" in options:
        return finished.stdout.splitlines()
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_suite_parallel_runs_serial_tests_alone(tmp_path):
    runs = _probe_suite(tmp_path, "-n", "2")
    assert len(runs) == 9 and {worker for _, worker, _, _ in runs} == {"gw0", "gw1"}  # both cores used
    plain = [run for run in runs if run[0].startswith("plain")]
    assert any(a[2] < b[3] and b[2] < a[3] for a in plain for b in plain if a is not b)  # side by side
    for name, _, start, end in runs:
        if name.startswith("serial"):
            overlapping = [other[0] for other in runs if other[0] != name and other[2] < end and start < other[3]]
            assert overlapping == [], f"{name} ran beside {overlapping}"


def test_suite_reverse_runs_everything_backwards_long_still_first_serial_still_last(tmp_path):
    forward = [name for name, *_ in _probe_suite(tmp_path / "forward", "-n", "0")]
    backward = [name for name, *_ in _probe_suite(tmp_path / "backward", "-n", "0", "--reverse")]
    assert forward == ["long", *(f"plain-{n}" for n in range(6)), "serial-1", "serial-2"]  # long ones first
    assert backward == ["long", *(f"plain-{n}" for n in reversed(range(6))), "serial-2", "serial-1"]


DATABASE_PROBE = """
import pytest

def test_engine_alone():
    pass

@pytest.mark.django_db
def test_marked():
    pass

def test_through_db(db):
    pass

def test_through_live_server(live_server):
    pass

@pytest.mark.django_db
class TestMarkedClass:
    def test_in_class(self):
        pass
"""


def test_suite_database_tests_only_keeps_what_can_reach_the_database(tmp_path):
    everything = _probe_suite(tmp_path / "all", "-n", "0", "--collect-only", probe=DATABASE_PROBE)
    database = _probe_suite(
        tmp_path / "database", "-n", "0", "--collect-only", "--database-tests-only", probe=DATABASE_PROBE
    )
    assert any(line.endswith("::test_engine_alone") for line in everything)
    assert not any("test_engine_alone" in line for line in database)
    kept = {line.rsplit("::", 1)[1] for line in database if "::" in line}
    assert kept == {"test_marked", "test_through_db", "test_through_live_server", "test_in_class"}
    assert "4/5 tests collected (1 deselected)" in "\n".join(database)
