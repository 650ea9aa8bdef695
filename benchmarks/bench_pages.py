"""Pages with 1,000 registered SNIDs and 1,000 pending proposals: server time cold and warm.

In process (Django's test client, production settings, no network): the time
from request to finished response, which is the server's share of what a
browser waits for. "Cold" is a first hit after a restart or an approval: the
page cache, the lookup index, the compiled grammars and the diagram table are
all emptied before each request. "Warm" repeats the request with them filled.
"""

from __future__ import annotations

import json
import statistics
import time

from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from benchmarks.data import populate
from registry import diagram_cache, services
from registry.demo import FIXTURES
from registry.forms import ProposalForm
from registry.grammar import cache_clear
from registry.interchange import load
from registry.lookup import registry_invalidate
from registry.models import Proposal

COLD_REPEAT, WARM_REPEAT = 10, 20
WARM_TARGET, COLD_TARGET, CHECK_TARGET = 50.0, 150.0, 150.0


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def forget_everything() -> None:
    cache.clear()
    registry_invalidate()
    cache_clear()
    diagram_cache.local_clear()


def measure(client: Client, method: str, path: str, data=None, *, cold: bool, repeat: int) -> tuple[list, int]:
    times, queries = [], 0
    for _ in range(repeat):
        if cold:
            forget_everything()
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.post(path, data) if method == "POST" else client.get(path)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (path, response.status_code)
        queries = len(captured)
    return times, queries


def setup() -> dict:
    """The demo data, then enough generated data for 1,000 SNIDs and 1,000 pending proposals."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from registry import demo

    call_command("migrate", verbosity=0)
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    populate(998, pending=1000)  # + the demo's two registered SNIDs
    users = get_user_model().objects
    applicant, editor = users.get(username="applicant"), users.get(username="editor")
    example = load(json.loads((FIXTURES / "proposals" / "example.json").read_text(encoding="utf-8")))
    example.snid = "gfd191-example"
    draft = services.proposal_create(example, applicant)
    pending = Proposal.objects.filter(state="submitted").order_by("id").first()
    return {"applicant": applicant, "editor": editor, "draft": draft, "pending": pending}


def report() -> str:
    world = setup()
    anonymous, applicant, editor = Client(), Client(), Client()
    applicant.force_login(world["applicant"])
    editor.force_login(world["editor"])
    draft, pending = world["draft"], world["pending"]
    check_form = {k: ("" if v is None else v) for k, v in ProposalForm.initial_from(draft.to_data()).items()}
    check_form["intent"] = "check"
    pages = [
        ("anonymous", anonymous, "GET", "/urn/", None),
        ("anonymous", anonymous, "GET", "/urn/?page=5&sort=-date", None),
        ("anonymous", anonymous, "GET", "/urn/?q=bench12", None),
        ("anonymous", anonymous, "GET", "/urn/example/", None),
        ("anonymous", anonymous, "GET", "/urn/bench500/", None),
        ("anonymous", anonymous, "GET", "/urn/search/?urn=urn:ogf:example:cluster:2009:example.net:42", None),
        ("anonymous", anonymous, "GET", "/urn/registry.json", None),
        ("anonymous", anonymous, "GET", "/urn/registry.csv", None),
        ("anonymous", anonymous, "GET", "/urn/registry.xml", None),
        ("anonymous", anonymous, "GET", "/urn/feed.atom", None),
        ("anonymous", anonymous, "GET", "/api/snids/", None),
        ("anonymous", anonymous, "GET", "/api/snids/bench500/", None),
        ("applicant", applicant, "GET", "/proposals/", None),
        ("applicant", applicant, "GET", f"/proposals/{draft.pk}/", None),
        ("applicant", applicant, "GET", f"/proposals/{draft.pk}/edit/", None),
        ("applicant", applicant, "POST", f"/proposals/{draft.pk}/edit/", check_form),
        ("applicant", applicant, "POST", f"/proposals/{draft.pk}/check/", check_form),
        ("editor", editor, "GET", "/review/", None),
        ("editor", editor, "GET", f"/review/{pending.pk}/", None),
        ("editor", editor, "GET", "/review/reservations/", None),
    ]
    lines = ["## Pages (`benchmarks/bench_pages.py`)", "", __doc__.split("\n\n", 1)[1].strip().replace("\n", " "),
             f" p95 of {COLD_REPEAT} cold and {WARM_REPEAT} warm requests; queries of one request.", "",
             "| who | request | cold p95 ms | warm p95 ms | warm median ms | queries (warm) |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    worst_cold = worst_warm = (0.0, "")
    check_cold = None
    for who, client, method, path, data in pages:
        cold, _ = measure(client, method, path, data, cold=True, repeat=COLD_REPEAT)
        warm, queries = measure(client, method, path, data, cold=False, repeat=WARM_REPEAT)
        label = f"{method} `{path}`" + (" (Check without saving, GFD.191 example)" if data and "edit" in path else
                                         " (the live-check panel, GFD.191 example)" if data else "")
        lines.append(f"| {who} | {label} | {p95(cold):.1f} | {p95(warm):.1f} | {statistics.median(warm):.1f} | "
                     f"{queries} |")
        worst_cold = max(worst_cold, (p95(cold), label))
        worst_warm = max(worst_warm, (p95(warm), label))
        if data and "edit" in path:
            check_cold = p95(cold)
    lines += ["",
              f"- Every page p95 ≤ {WARM_TARGET:.0f} ms warm — {'**met**' if worst_warm[0] <= WARM_TARGET else '**not met**'} "
              f"(worst {worst_warm[0]:.1f} ms, {worst_warm[1]}).",
              f"- Every page p95 ≤ {COLD_TARGET:.0f} ms cold — {'**met**' if worst_cold[0] <= COLD_TARGET else '**not met**'} "
              f"(worst {worst_cold[0]:.1f} ms, {worst_cold[1]}).",
              f"- “Check without saving” on the GFD.191 example ≤ {CHECK_TARGET:.0f} ms — "
              f"{'**met**' if check_cold <= CHECK_TARGET else '**not met**'} (cold p95 {check_cold:.1f} ms).", ""]
    return "\n".join(lines)
