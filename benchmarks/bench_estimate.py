"""The review's figure for resolving one URN against what resolving the costliest URN costs.

For each grammar of the hostile corpus (``tests/hostile/cases.json``) that compiles, with one
template naming its top rule, and for the capture-heavy ladder (``benchmarks/capture.py``, ten
templates): the review's figure (``measure_resolution``, as the ``resolvers`` check gives it:
validation and resolution, "about" or "at least"), then the measured cost — every one of the
review's long valid inputs (URNs of the grammar's own shape with every repetition pumped to the
maximum length, the adversarial strings it accepts, URNs to be percent-encoded) resolved whole,
parsing, validating, capturing and filling as a resolution does, the costliest's median of three
runs — in CPU time of this thread. No early stop: a grammar costing seconds costs the benchmark
seconds (the inputs of one grammar are given at most ``PER_GRAMMAR_SECONDS``, then the table
says so).

Run: ``python -m benchmarks.bench_estimate`` (prints the section) or with ``--write`` to replace
the section between the ``<!-- estimate:start -->`` markers of docs/performance.md.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "performance.md"
CASES = ROOT / "tests" / "hostile" / "cases.json"
PER_GRAMMAR_SECONDS = 3.0


def _expand(value) -> str:
    if isinstance(value, dict):
        return value.get("prefix", "") + value["repeat"] * value["times"] + value.get("suffix", "")
    return value


def _grammars() -> list[tuple[str, str, list[str]]]:
    """(label, ABNF, templates) of every grammar to measure."""
    from benchmarks.capture import CAPTURE_TEMPLATES, LADDER, capture_heavy

    ten = [t["template"] for t in CAPTURE_TEMPLATES]
    out = [(f"capture-heavy, {count} alternatives × {rep}", capture_heavy(count, rep), ten) for count, rep in LADDER]
    out += [("capture-heavy, 10 alternatives × 20", capture_heavy(10, 20), ten)]
    out += [("capture-heavy, 10 alternatives × 50", capture_heavy(10, 50), ten)]
    for case in json.loads(CASES.read_text())["grammars"]:
        abnf = _expand(case["abnf"])
        shown = abnf if len(abnf) <= 40 else f"{abnf[:28]}… ({len(abnf):,} chars)"
        out.append((f"hostile `{shown!r}`".replace("|", "\\|"), abnf, []))
    return out


def _measured(compiled, templates, program) -> tuple[float, int, bool]:
    """(ms, inputs, whole): the costliest of the review's inputs resolved whole, median of 3 runs."""
    from registry.grammar.limits import URN_MAX_LENGTH
    from registry.resolving.cost import _candidates, _prepared, _valid
    from registry.resolving.expand import urls_for

    def once(urn: str) -> float | None:
        before = time.thread_time()
        parts = _prepared(urn, ())
        if parts is None or not _valid(compiled, *parts):
            return None
        urls_for(templates, program, *parts)
        return (time.thread_time() - before) * 1000

    started, timed, whole = time.thread_time(), [], True
    for _label, urn in _candidates(compiled, "x", URN_MAX_LENGTH, ()):
        if time.thread_time() - started > PER_GRAMMAR_SECONDS:
            whole = False
            break
        spent = once(urn)
        if spent is not None:
            timed.append((spent, urn))
    worst = 0.0
    for spent, urn in sorted(timed, reverse=True)[:3]:
        runs = sorted([spent, once(urn) or 0.0, once(urn) or 0.0])
        worst = max(worst, runs[1])
    return worst, len(timed), whole


def measure() -> list[dict]:
    from registry.grammar import grammar_compile
    from registry.resolving.cost import measure_resolution
    from registry.resolving.expand import ExpandError, program_of

    rows = []
    for label, abnf, templates in _grammars():
        compiled = grammar_compile(abnf)
        if not compiled.ok or compiled.validator is None or compiled.analysis.top is None:
            rows.append({"label": label, "refused": True})
            continue
        if not templates:
            templates = [f"https://example.org/{{{compiled.parsed.rules[compiled.analysis.top].name}}}"]
        try:
            program = program_of(compiled, templates)
        except ExpandError:
            rows.append({"label": label, "refused": True})
            continue
        cost = measure_resolution(compiled, templates, program)
        measured, inputs, whole = _measured(compiled, templates, program)
        total = cost.match_ms + measured
        rows.append(
            {
                "label": label,
                "figure": cost.figure,
                "estimate": cost.total_ms,
                "complete": cost.complete,
                "measured": total,
                "inputs": inputs,
                "whole": whole,
            }
        )
    return rows


def section(rows: list[dict], load: tuple[float, float]) -> str:
    lines = [
        "<!-- estimate:start -->",
        "## The review's figure against the measured cost (`benchmarks/bench_estimate.py`)",
        "",
        "For every grammar of the hostile corpus that compiles (one template naming its top rule) and the "
        "capture-heavy ladder (ten templates): the review's figure for one URN (`measure_resolution`, as the "
        "`resolvers` check shows it) and the measured cost — every long valid input of the review resolved "
        "whole (parsed, validated, captured, every template filled), the costliest's median of 3 runs, plus "
        "the validator's measured worst case as the figure adds it — in CPU time of this thread. Ratio: "
        'figure ÷ measured (within 0.5–2 is the target where the figure is an "about"; an "at least" '
        f"figure is a lower bound by design). Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on "
        f"{os.cpu_count()} cores, load average {load[0]:.1f} at the start and {load[1]:.1f} at the end; "
        "`python -m benchmarks.bench_estimate --write`. Held without timing by "
        "`tests/resolution/test_estimate.py`, which counts work.",
        "",
        "| grammar | review's figure | measured ms | figure ÷ measured | inputs |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    refused = [row for row in rows if row.get("refused")]
    rows = [row for row in rows if not row.get("refused")]
    within = []
    for row in rows:
        ratio = row["estimate"] / row["measured"] if row["measured"] > 0.001 else None
        shown = "—" if ratio is None else f"{ratio:.2f}"
        lines.append(
            f"| {row['label']} | {row['figure']} | {row['measured']:.3f}{'' if row['whole'] else ' (stopped)'} "
            f"| {shown} | {row['inputs']} |"
        )
        if row["complete"] and ratio is not None and row["measured"] >= 0.05:
            within.append((0.5 <= ratio <= 2.0, row["label"], ratio))
    lines.append("")
    lines.append(
        f"- {len(refused)} grammars of the corpus have no validator (refused by the grammar check: too large, "
        "too costly, no rules) or no rule a template can capture, so nothing of theirs is resolved: not listed."
    )
    missed = [(label, ratio) for ok, label, ratio in within if not ok]
    lines.append(
        f'- Figures said "about" within 2× of the measured cost (of {len(within)} measured above 0.05 ms): '
        + ("**met**." if not missed else "**NOT met** for " + "; ".join(f"{lb} ({r:.2f})" for lb, r in missed) + ".")
    )
    lower = [row for row in rows if not row["complete"]]
    if lower:
        lines.append(
            '- "At least" figures (measuring stopped once over the budget): '
            + "; ".join(f"{row['label']}: {row['estimate']:.1f} ms against {row['measured']:.1f} ms" for row in lower)
            + "."
        )
    lines.append("<!-- estimate:end -->")
    return "\n".join(lines)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.settings")
    import django

    django.setup()
    start = os.getloadavg()[0]
    rows = measure()
    text = section(rows, (start, os.getloadavg()[0]))
    print(text)
    if "--write" in sys.argv[1:]:
        current = OUT.read_text(encoding="utf-8")
        marked = re.compile(r"<!-- estimate:start -->.*?<!-- estimate:end -->", re.S)
        OUT.write_text(
            marked.sub(lambda _: text, current)
            if marked.search(current)
            else current.rstrip("\n") + "\n\n" + text + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
