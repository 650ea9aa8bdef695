"""Where-it-goes-wrong answers (registry/grammar/position.py): what an invalid URN costs.

A valid URN costs one RE2 match whether or not positions exist: the position is
computed only after the validator has said no. For an invalid URN the locator
runs a binary search of anchored RE2 matches over the grammar's prefix language,
one match per printable character to list what was expected, and one match with
capture groups to name the rule. Measured per URN on one core, locator warm.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from registry.grammar import grammar_compile, parse_urn, position

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ["example", "fdc", "img", "newsml", "urn-5"]
#: One short invalid URN per seed grammar, and a 4 KiB one that fails at its last character.
SHORT = {
    "example": "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1",
    "fdc": "urn:ogf:fdc:example.com:200213:x",
    "img": "urn:ogf:img:a.b:20101301:x",
    "newsml": "urn:ogf:newsml:iptc.org:20001006:NewsMLv1.0:0",
    "urn-5": "urn:ogf:urn-5:abc",
}
VALID = {
    "example": "urn:ogf:example:cluster:2009:example.net:42",
    "fdc": "urn:ogf:fdc:example.com:2002:A572007",
    "img": "urn:ogf:img:a.b:20101231:x",
    "newsml": "urn:ogf:newsml:iptc.org:20001006:NewsMLv1.0:1",
    "urn-5": "urn:ogf:urn-5:JtTCacwJ1e1N0yqTULRG7C1GLq8:4",
}


def _per_call(function, seconds=0.2) -> float:
    function()  # warm: compiles the locator on first use
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        function()
        count += 1
    return (time.perf_counter() - started) / count


def bench() -> list[tuple[str, float, float, float]]:
    # Measure the work itself: no budget, no kept answers.
    position.BUDGET = position.Budget(rate=float("inf"), burst=float("inf"))
    position.Locator.RECENT = 0
    rows = []
    for name in SEEDS:
        data = json.loads((ROOT / "fixtures" / "proposals" / f"{name}.json").read_text(encoding="utf-8"))
        validator = grammar_compile(data["grammar"]["abnf"], data["grammar"].get("rule")).validator
        valid, short = parse_urn(VALID[name]), parse_urn(SHORT[name])
        long = parse_urn(VALID[name] + "x" * (4095 - len(VALID[name])) + "/")
        assert validator.check(valid) == [] and validator.position(short) and validator.position(long)
        check = validator.check
        rows.append(
            (
                name,
                _per_call(lambda check=check, urn=valid: check(urn)) * 1e6,
                _per_call(lambda check=check, urn=short: check(urn)) * 1e3,
                _per_call(lambda check=check, urn=long: check(urn)) * 1e3,
            )
        )
    return rows


def report() -> str:
    rows = bench()
    worst = max(row[3] for row in rows)
    lines = [
        "## Where an invalid URN goes wrong (`benchmarks/bench_position.py`)",
        "",
        "Per URN on one core: a valid URN (one RE2 match, no position work), a short invalid "
        "one and a 4 KiB one failing at its last character (position, expected characters and "
        "rule). In service a process spends at most a quarter of a second per second on this "
        "(`position.BUDGET`, bursts of 0.3 s); past it, answers leave the position out.",
        "",
        "| grammar | valid µs | invalid, short ms | invalid, 4 KiB ms |",
        "| --- | ---: | ---: | ---: |",
    ]
    lines += [f"| {name} | {valid:.1f} | {short:.2f} | {long:.2f} |" for name, valid, short, long in rows]
    lines += [
        "",
        f"Target: the worst 4 KiB invalid URN located in under 20 ms — "
        f"**{'met' if worst < 20 else 'NOT met'}** (worst {worst:.2f} ms).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
