"""Run every benchmark and write docs/performance.md.

Usage (from the repository root, with the requirements installed):

    BIOREGISTRY_VENV=/path/to/venv python -m benchmarks.run

``BIOREGISTRY_VENV`` names a virtualenv holding Bioregistry for the peer rows
(docs/performance.md, "Reproduce"); without it those rows are skipped and the
report says why. ``BENCH_ROUNDS`` (default 3) and ``BENCH_PORT`` (default 8700;
the run uses it and the next five ports) adjust the HTTP part.

Figures are ratios measured in one run on one machine; the machine, versions,
date and commands are written with them. The section between the
``<!-- hostile:start -->`` and ``<!-- hostile:end -->`` markers of the existing
file is kept as it is, and so are the transparency log's (``tlog``, written by
``python -m benchmarks.bench_tlog --write``), the page weight's (``weight``, written by
``python -m benchmarks.bench_weight --write``), command start-up's (``startup``, written by
``python -m benchmarks.bench_startup --before <commit> --write``) and the review's resolution
figure against the measured cost (``estimate``, ``python -m benchmarks.bench_estimate --write``).
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "performance.md"
HOSTILE = re.compile(r"<!-- hostile:start -->.*?<!-- hostile:end -->", re.S)
TLOG = re.compile(r"<!-- tlog:start -->.*?<!-- tlog:end -->", re.S)
WEIGHT = re.compile(r"<!-- weight:start -->.*?<!-- weight:end -->", re.S)
STARTUP = re.compile(r"<!-- startup:start -->.*?<!-- startup:end -->", re.S)
ESTIMATE = re.compile(r"<!-- estimate:start -->.*?<!-- estimate:end -->", re.S)

REPRODUCE = """## Reproduce

```sh
apt-get install wrk nginx            # Debian packages: wrk 4.1, nginx 1.22
python3 -m venv /opt/biovenv         # Bioregistry in a virtualenv of its own
/opt/biovenv/bin/pip install 'bioregistry[web]==0.15.6' gunicorn==27.0.1 \\
    'uvicorn[standard]==0.54.0' uvicorn-worker==0.4.0
pip install -r requirements-bench.txt   # gunicorn, measured beside granian (optional)
BIOREGISTRY_VENV=/opt/biovenv python -m benchmarks.run   # writes this file
```

The run builds a SQLite database in `benchmarks/results/` with the demo data plus generated data
(`benchmarks/data.py`: 1,000 registered SNIDs, 1,000 pending proposals), times the pages in
process, then starts the servers on ports 8700–8705 and stops them when done. Without gunicorn, its
rows are skipped and the report says why; without `BIOREGISTRY_VENV`, the peer rows.
`python -m benchmarks.bench_http --write` rewrites the HTTP section alone (the same database, built afresh).
"""


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = subprocess.run([sys.executable, "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    wanted = ("Django", "google-re2", "abnf", "djangorestframework", "granian", "gunicorn", "orjson", "whitenoise")
    pins = [line for line in versions.splitlines() if line.split("==")[0] in wanted]
    load = os.getloadavg()
    return (
        f"- Date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC\n"
        f"- Machine: {os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}; load average "
        f"at the start {load[0]:.1f}"
        f"{' (the machine is shared: other work ran beside this benchmark)' if load[0] >= 0.5 else ''}\n"
        f"- Python {platform.python_version()}; {', '.join(pins)}\n"
        f"- Command: `python -m benchmarks.run`\n"
    )


def kept_section(marked: re.Pattern = HOSTILE, name: str = "hostile") -> str:
    """A section run on its own (hostile corpus, transparency log, page weight) kept verbatim (or empty markers)."""
    if OUT.exists() and (match := marked.search(OUT.read_text())):
        return match.group(0)
    return f"<!-- {name}:start -->\n<!-- {name}:end -->"


def main() -> None:
    results = ROOT / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    database = results / "bench.sqlite3"
    database.unlink(missing_ok=True)
    os.environ["DJANGO_SETTINGS_MODULE"] = "benchmarks.settings"
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{database}")
    import django

    django.setup()
    from benchmarks import bench_engine, bench_first_request, bench_http, bench_pages, bench_position, bench_resolution

    hostile, tlog, weight = kept_section(), kept_section(TLOG, "tlog"), kept_section(WEIGHT, "weight")
    startup, estimate = kept_section(STARTUP, "startup"), kept_section(ESTIMATE, "estimate")
    text = [
        "# Performance",
        "",
        "Written by `python -m benchmarks.run`; do not edit by hand. Every figure of a table "
        "comes from one run on one machine, so compare the ratios, not the absolute numbers.",
        "",
        machine(),
        REPRODUCE,
        bench_engine.report(),
        bench_position.report(),
        bench_pages.report(),
        bench_resolution.report(),
        estimate,
        bench_first_request.report(),
        bench_http.report(),
        hostile,
        tlog,
        weight,
        startup,
        "",
    ]
    OUT.write_text("\n".join(text))
    print(OUT.read_text())


if __name__ == "__main__":
    main()
