"""Run every benchmark and write docs/performance.md.

Usage (from the repository root, with the requirements installed):

    python -m benchmarks.run

Figures are ratios measured in one run on one machine; the machine, versions,
date and command are written with them.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
    wanted = ("Django", "google-re2", "abnf", "djangorestframework")
    pins = [line for line in versions.splitlines() if line.split("==")[0] in wanted]
    return (f"- Date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC\n"
            f"- Machine: {os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}\n"
            f"- Python {platform.python_version()}; {', '.join(pins)}\n"
            f"- Command: `python -m benchmarks.run`\n")


def main() -> None:
    results = ROOT / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    database = results / "bench.sqlite3"
    database.unlink(missing_ok=True)
    os.environ["DJANGO_SETTINGS_MODULE"] = "benchmarks.settings"
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{database}")
    import django

    django.setup()
    from benchmarks import bench_engine, bench_http, bench_position

    text = ["# Performance", "",
            "Written by `python -m benchmarks.run`; do not edit by hand. Every figure of a table "
            "comes from one run on one machine, so compare the ratios, not the absolute numbers.",
            "", machine(), bench_engine.report(), bench_position.report(), bench_http.report()]
    out = ROOT / "docs" / "performance.md"
    out.write_text("\n".join(text))
    print(out.read_text())


if __name__ == "__main__":
    main()
