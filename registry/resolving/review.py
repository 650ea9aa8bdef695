"""The review of a resolver set, in one bounded job: its capture program, its measured cost, its URLs.

Everything the registry does with a set of resolver templates before trusting it — build
one capture program for the whole set, measure what resolving one URN costs
(``resolution.cost``) and fill every template for every valid example (the preview the
review shows) — reads untrusted text and runs untrusted patterns, so it runs in the
bounded worker (registry/sandbox.py) like the grammar's own check, never in a web
thread. The checklist's ``resolvers`` check asks for it (at "Check without saving", on
every save and at approval), and so do approval and every resolver change
(``resolution.services``) and the editors' probe.

The measurement runs first (it stops itself past ``MEASURE_MAX_MS``); the preview then
fills templates until the job's time is nearly spent and says how many pairs of resolver
and example it did not reach, so a costly set gets its measured figure and a clear
"not run" for the rest rather than nothing at all. A job that runs out of its CPU time
anyway (the program too large to compile in it) is a verdict on the set; a worker that
was killed is a fault, never kept.

Reports are kept in this process by content (the grammar, the templates, the examples,
the budget), faults never: the approval that follows a review stores the very figure the
review showed (a second measurement of a set close to the budget could say otherwise).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from .. import sandbox
from .cost import measure_resolution
from .expand import ExpandError, program_of, urls_for, urn_parts
from .templates import rule_placeholders

#: Share of the job's CPU time the preview may use before it stops (the rest is the margin
#: for returning the report).
PREVIEW_SHARE = 0.8
#: Seconds a report job gets at least, whatever the checks before it used.
MIN_SECONDS = 0.5
CACHE_SIZE = 64
_cache: OrderedDict[str, Report] = OrderedDict()
_lock = threading.Lock()


@dataclass(slots=True)
class Report:
    """What the review knows of a resolver set. ``not_run``: why nothing was examined (then
    ``fault`` says whether that is a verdict on the set or a stopped worker)."""

    program: dict | None = None
    cost: dict | None = None  # ResolutionCost.as_dict()
    errors: list[tuple[int, str]] = field(default_factory=list)  # (resolver index, why it gives no URL)
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)  # (name, example, url, problem)
    unpreviewed: int = 0  # pairs of resolver and example the preview's time did not reach
    not_run: str = ""
    fault: bool = False
    cpu_seconds: float = 0.0
    seconds: float = 0.0  # the CPU time the job was given

    @property
    def cut_short(self) -> bool:
        return bool(self.unpreviewed) or (bool(self.not_run) and not self.fault)


def _key(compiled, resolvers, examples, steps, snid) -> str:
    digest = hashlib.sha256(repr(sandbox.budget()).encode())
    grammar = (compiled.abnf, compiled.rule or "") if compiled is not None else ("", "")
    templates = [r.get("template", "") for r in resolvers]
    digest.update(
        json.dumps(
            [grammar, templates, [r.get("name", "") for r in resolvers], list(examples), list(steps), snid.lower()]
        ).encode("utf-8", "surrogatepass")
    )
    return digest.hexdigest()


def resolvers_review(
    compiled, resolvers: list[dict], examples, steps=(), *, snid: str = "x", seconds: float | None = None
) -> Report:
    """The report of ``resolvers`` under the compiled grammar (or None: no grammar), from the
    bounded worker; ``examples`` are the valid examples the preview fills the templates for."""
    budget = sandbox.budget()[0]
    seconds = max(MIN_SECONDS, min(budget, budget if seconds is None else seconds))
    examples, steps = tuple(examples), tuple(steps)
    key = _key(compiled, resolvers, examples, steps, snid)
    with _lock:
        found = _cache.get(key)
        # A report cut short by its time serves only a request given no more time than it had.
        if found is not None and (not found.cut_short or seconds <= found.seconds):
            _cache.move_to_end(key)
            return found
    usable = compiled if compiled is not None and compiled.ok else None
    started = sandbox.jobs_cpu_seconds()
    try:
        report = sandbox.run_bounded(
            review_job, usable, list(resolvers), examples, steps, snid, seconds, what="resolver check", seconds=seconds
        )
    except sandbox.BudgetExceeded as exc:
        why = exc.message
        if not exc.fault:
            why = (
                f"Checking these resolvers needed {exc.needed}, past what a check may use (building the "
                "program that captures the rules they name, and measuring it), so "
                "the registry cannot trust them to resolve URNs in its web server. Name fewer rules, "
                "or rules outside long repetitions, or use {nss}."
            )
        report = Report(not_run=why, fault=exc.fault)
    report.cpu_seconds = sandbox.jobs_cpu_seconds() - started
    report.seconds = seconds
    if not report.fault:
        # Kept in this process even when the figure is close to the budget: the approval that
        # follows a review stores the figure that review showed, not a second measurement's.
        with _lock:
            _cache[key] = report
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return report


def review_job(compiled, resolvers: list[dict], examples, steps, snid: str, seconds: float) -> Report:
    """In the bounded worker: the program, its measured cost, then the preview until the time is spent."""
    started = time.thread_time()
    report = Report()
    templates = [r["template"] for r in resolvers]
    good: list[int] = []
    for index, template in enumerate(templates):
        if rule_placeholders(template) and compiled is None:
            report.errors.append((index, "The grammar cannot validate URNs, so its rules cannot fill a template."))
        else:
            good.append(index)
    try:
        report.program = program_of(compiled, [templates[i] for i in good]) if compiled is not None else None
    except ExpandError:
        # Say which resolvers name the rule that cannot be captured; the others share a program.
        alone = []
        for index in good:
            try:
                program_of(compiled, [templates[index]])
                alone.append(index)
            except ExpandError as exc:
                report.errors.append((index, str(exc)))
        good = alone
        report.program = program_of(compiled, [templates[i] for i in good]) if good else None
    chosen = [templates[i] for i in good]
    if chosen:
        cost = measure_resolution(compiled, chosen, report.program, snid=snid, examples=examples, steps=steps)
        report.cost = cost.as_dict()
    deadline = started + seconds * PREVIEW_SHARE
    for index, problem in report.errors:
        report.rows.append((resolvers[index]["name"], "", "", problem))
    filled: list[tuple[str, list]] = []  # (example, its (url, problem) per chosen template)
    for number, example in enumerate(examples):
        if time.thread_time() >= deadline:
            report.unpreviewed = (len(examples) - number) * len(chosen)
            break
        parts = urn_parts(example, steps)
        if parts is not None and chosen:
            filled.append((example, urls_for(chosen, report.program, *parts)))
    for position, index in enumerate(good):  # by resolver, then example, as the review lists them
        for example, results in filled:
            url, problem = results[position]
            report.rows.append((resolvers[index]["name"], example, url, problem))
    return report


def cache_clear() -> None:
    with _lock:
        _cache.clear()
