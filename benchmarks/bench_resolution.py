"""What resolving one URN costs, in process: the costliest registration the review accepts.

The review measures the whole resolution of one URN (validation, the capture of every rule
the templates name, every template filled) against the validation budget, 5 ms for a
4,096-character URN (registry/resolving/cost.py). This takes the capture-heavy grammars of
``benchmarks/capture.py`` (ten templates naming rules under a repetition of overlapping
alternatives), from cheap to costly, registers each through the services as an editor
approves it, and times ``resolve()`` — the lookup, the capture, every template — on a
4,096-character URN in CPU time of this thread (not wall time: the machine is shared).
The figure to meet: the costliest SNID the review accepts resolves a 4 KB URN in under
5 ms; the ones it refuses are listed with the figure the review gave.
"""

from __future__ import annotations

import statistics
import time

from benchmarks.capture import CAPTURE_HEAVY, CAPTURE_TEMPLATES, LADDER, capture_heavy, long_urn

RUNS = 30


def _register(snid: str, abnf: str, editor, applicant):
    import json

    from registry import interchange, services
    from registry.demo import FIXTURES

    raw = json.loads((FIXTURES / "proposals" / "example.json").read_text())
    raw.update(
        snid=snid,
        grammar={"abnf": abnf, "rule": ""},
        resolvers=CAPTURE_TEMPLATES,
        examples={"valid": [f"urn:ogf:{snid}:" + "a" * 60], "invalid": [], "equivalent": []},
    )
    proposal = services.proposal_create(interchange.load(raw), applicant)
    proposal = services.proposal_transition(proposal, "submit", applicant)
    return services.proposal_transition(proposal, "approve", editor, override_reason="benchmark data")


def _resolve_ms(urn: str) -> tuple[float, float, str]:
    """(median, worst) CPU ms of resolve() over RUNS, after one untimed call; the outcome's kind."""
    from registry.resolution.resolve import resolve

    outcome = resolve(urn)
    spent = []
    for _ in range(RUNS):
        started = time.thread_time()
        resolve(urn)
        spent.append((time.thread_time() - started) * 1000)
    return statistics.median(spent), max(spent), outcome.kind


def measure() -> list[dict]:
    from django.contrib.auth import get_user_model

    from registry import services
    from registry.lookup import registry_invalidate
    from registry.resolution.models import Resolver
    from registry.resolving.cost import ResolutionCost

    users = get_user_model().objects
    editor = users.filter(username="bench-resolution-editor").first() or users.create_user("bench-resolution-editor")
    editor.groups.add(services.editors_group())
    applicant = users.filter(username="bench-resolution-applicant").first() or users.create_user(
        "bench-resolution-applicant"
    )
    rows = []
    for number, (count, rep) in enumerate((*LADDER, (10, 50))):
        snid = f"capture{number}"
        abnf = CAPTURE_HEAVY if (count, rep) == (10, 50) else capture_heavy(count, rep)
        approved = _register(snid, abnf, editor, applicant)
        verdict = next((f["status"] for f in approved.findings if f["id"] == "resolvers"), "none")
        registry_invalidate()
        stored = Resolver.objects.current().filter(namespace__snid=snid).first()
        cost = ResolutionCost.from_dict(stored.cost) if stored else None
        median, worst, kind = _resolve_ms(long_urn(snid))
        rows.append(
            {
                "grammar": f"{count} alternatives × {rep}",
                "verdict": verdict,
                "measured": cost.total_ms if cost else None,
                "complete": bool(cost and cost.complete),
                "median": median,
                "worst": worst,
                "kind": kind,
                "cheap": bool(cost and cost.cheap),
            }
        )
    return rows


def report() -> str:
    from registry.grammar.limits import MATCH_BUDGET_MS

    rows = measure()
    lines = [
        "## Resolution of a registered SNID (`benchmarks/bench_resolution.py`)",
        "",
        "In process, CPU time of this thread: `resolve()` (the lookup, the capture of every rule the ten "
        "templates name, every template filled) on a 4,096-character URN of capture-heavy registrations "
        "(`benchmarks/capture.py`), each registered through the services; the review's verdict on its "
        f'resolvers and the figure it measured (budget {MATCH_BUDGET_MS:g} ms per URN; "> N": at least N, '
        "measuring stopped once over the budget). A set the review refuses is resolved only in the bounded "
        "worker, within the budget its page and the API state (`REGISTRY_RESOLVE_JOB_SECONDS`, 50 ms per URN), "
        "and a URN its figure puts far past that is not tried (the in-process figure is then the landing page "
        "without placeholder values).",
        "",
        "| grammar | review | measured by the review ms | resolve() median ms | worst ms | answer |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        measured = (
            "—"
            if row["measured"] is None
            else (f"{row['measured']:.2f}" if row["complete"] else f"> {row['measured']:.1f}")
        )
        lines.append(
            f"| {row['grammar']} | {row['verdict']} | {measured} | {row['median']:.2f} | "
            f"{row['worst']:.2f} | {row['kind']} |"
        )
    accepted = [row for row in rows if row["cheap"]]
    if accepted:
        costliest = max(accepted, key=lambda row: row["measured"])
        ok = costliest["median"] < MATCH_BUDGET_MS
        lines += [
            "",
            f"- The costliest SNID the review accepts ({costliest['grammar']}, measured "
            f"{costliest['measured']:.2f} ms) resolves a 4,096-character URN in {costliest['median']:.2f} ms "
            f"(worst of {RUNS}: {costliest['worst']:.2f} ms) — < {MATCH_BUDGET_MS:g} ms "
            f"{'**met**' if ok else '**not met**'}.",
        ]
    refused = [row for row in rows if not row["cheap"]]
    if refused:
        lines.append(
            f"- Refused by the review (over the budget, approved here over the failing check): "
            f"{', '.join(row['grammar'] for row in refused)}; none of them is captured in a web thread."
        )
    return "\n".join(lines + [""])


if __name__ == "__main__":  # pragma: no cover - python -m benchmarks.bench_resolution (a database set up)
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.settings")
    django.setup()
    print(report())
