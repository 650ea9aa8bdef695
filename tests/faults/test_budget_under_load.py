"""Budgets measure work, not the machine's load: with four CPU-burning processes on the
machine, honest documents, grammars and Markdown pass, hostile ones are still refused
within their CPU-time budget, and the checklist gives every text the findings it gives it
on an idle machine."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest
from django.core.cache import cache

from registry import markdown, sandbox
from registry.checklist import run_checklist
from registry.documents import DocumentError, document_import, read_file
from registry.grammar import cache_clear
from registry.grammar.compiler import _compile

from ..factories import data_factory, demo_raw
from ..pdfmaker import make_pdf

pytestmark = [pytest.mark.faults, pytest.mark.serial]

TESTS = Path(__file__).resolve().parents[1]
SEEDS = sorted(p for p in (TESTS / "seeds").iterdir() if p.name != "README.md")
CASES = json.loads((TESTS / "hostile" / "cases.json").read_text())
BURNERS = 4
BURN_SECONDS = 240  # each burner stops by itself even if the test is killed


def _expand(value):
    if isinstance(value, dict) and "repeat" in value:
        return value.get("prefix", "") + value["repeat"] * int(value["times"]) + value.get("suffix", "")
    return value


@contextmanager
def burning():
    """BURNERS processes that keep every core busy while the block runs."""
    code = f"import time\nend = time.monotonic() + {BURN_SECONDS}\nwhile time.monotonic() < end:\n    pass\n"
    burners = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(BURNERS)]
    try:
        time.sleep(0.5)
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait(timeout=10)


@pytest.fixture
def busy_machine():
    with burning():
        yield


def _bounded_import(name: str, raw: bytes):
    """As the import page reads a document: within the import's own CPU budget."""
    seconds = sandbox.import_cpu_seconds()
    text, fmt = sandbox.run_bounded(read_file, name, raw, what="document", expected=(DocumentError,), seconds=seconds)
    return sandbox.run_bounded(
        partial(document_import, format=fmt), text, what="document", expected=(DocumentError,), seconds=seconds
    )


def _forty_page_pdf() -> bytes:
    """An honest 40-page PDF of RFC density (about 0.7 s of CPU to read on an idle machine)."""
    lines = (TESTS / "seeds" / "rfc4198-fdc.txt").read_text().split("\n")
    return make_pdf("\n".join((lines * 20)[: 40 * 60]))


def test_honest_documents_grammars_and_markdown_pass_on_a_busy_machine(busy_machine, settings):
    settings.REGISTRY_JOB_SECONDS = 2  # the default
    documents = [(path.name, path.read_bytes()) for path in SEEDS] + [("rfc4198-40-pages.pdf", _forty_page_pdf())]
    for name, raw in documents:
        result = _bounded_import(name, raw)  # raises BudgetExceeded if refused
        assert result.data.snid or result.report, name
    raw = demo_raw("example")
    cache_clear()
    compiled = sandbox.run_bounded(
        _compile,
        raw["grammar"]["abnf"],
        raw["grammar"]["rule"] or None,
        tuple(raw["examples"]["valid"]),
        what="grammar",
    )
    assert compiled.ok and compiled.crosscheck.checked > 0 and not compiled.crosscheck.cut_short
    sections = [text for text in raw["sections"].values() if text]
    markdown.local_clear()
    rendered = sandbox.run_bounded(markdown.render_many, tuple(sections), what="text")
    assert None not in rendered


def test_hostile_markdown_and_grammars_are_refused_within_budget_on_a_busy_machine(busy_machine, settings):
    settings.REGISTRY_JOB_SECONDS = 2
    for case in CASES["markdown"][:5]:
        started = time.perf_counter()
        rendered = sandbox.run_bounded(markdown.render_many, (_expand(case),), what="text")
        assert rendered == [None]  # cut short by its section's CPU time, shown as written
        assert time.perf_counter() - started < sandbox.wall_ceiling()
    settings.REGISTRY_JOB_SECONDS = 0.1
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_compile, 'a = *(*"x" *"x" *"x") "y"\n', None, ("x" * 150 + "z",), what="grammar")
    assert (caught.value.limit, caught.value.deterministic) == ("time", True)


DEMOS = ["example", "fdc", "img", "newsml", "urn-5"]


def _texts() -> dict:
    """The demo registrations, and the example one with each hostile grammar of tests/hostile (over
    the job's budget, over the matching budget, cut short by the cross-check's steps, refused by a
    size limit)."""
    texts = {name: data_factory(name) for name in DEMOS}
    for number, case in enumerate(CASES["grammars"]):
        data = data_factory()
        data.grammar.abnf, data.grammar.rule = _expand(case["abnf"]), ""
        data.examples.valid = [example for example in case["examples"] if example.startswith("urn:")][:5]
        texts[f"hostile grammar {number}"] = data
    slow = data_factory()  # the backtracking reference parser, cut short by its steps
    slow.grammar.abnf, slow.grammar.rule = 'a = *(*"x" *"x" *"x") "y"\n', ""
    slow.examples.valid = ["urn:ogf:example:" + "x" * 150 + "z"]
    texts["backtracking grammar"] = slow
    return texts


#: A cost finding quotes the CPU time it measured ("costs more than 22 ms"), a figure of this run;
#: the verdict, the limit it names and the input it names are the text's.
_MEASURED = re.compile(r"(about|than) [0-9][0-9,.]* ms")


def _checked(texts: dict) -> dict:
    """Every finding of every text, each text checked afresh (no cache of any kind)."""
    found = {}
    for name, data in texts.items():
        cache_clear()
        cache.clear()
        markdown.local_clear()
        found[name] = [
            (f.id, f.status, _MEASURED.sub(r"\1 … ms", f.message), f.reference, f.item) for f in run_checklist(data)
        ]
    return found


@pytest.mark.django_db
def test_the_checklist_gives_every_text_the_same_findings_on_a_busy_machine(settings):
    settings.REGISTRY_JOB_SECONDS = 2  # the default
    texts = _texts()
    idle = _checked(texts)
    with burning():
        busy = _checked(texts)
    for name in texts:
        assert busy[name] == idle[name], name
    # Not a vacuous comparison: passes, failures over a budget and a cut-short comparison are among them.
    statuses = {(f[0], f[1]) for findings in idle.values() for f in findings}
    assert {("grammar-parses", "pass"), ("grammar-parses", "fail"), ("grammar-parses", "warning")} <= statuses
    assert any("limit of 60,000 steps of work" in f[2] for f in idle["backtracking grammar"])
    assert not any("could not be checked" in f[2] for findings in busy.values() for f in findings)
