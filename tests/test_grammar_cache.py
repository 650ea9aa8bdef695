"""Compiled grammars are checked once per text: per process, across processes, per request."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from registry.forms import ProposalForm
from registry.grammar import cache_clear, compiler, grammar_compile

from .factories import demo_raw, proposal_factory

pytestmark = pytest.mark.budget  # run again beside CPU burners (.ci/run)


@pytest.fixture
def compiles(monkeypatch):
    """Count the grammar checks that really run (each is a bounded job)."""
    cache_clear()
    cache.clear()
    calls = []
    real = compiler._compile_bounded

    def counting(abnf, rule, examples):
        calls.append(abnf)
        return real(abnf, rule, examples)

    monkeypatch.setattr(compiler, "_compile_bounded", counting)
    yield calls
    cache_clear()
    cache.clear()


def test_compiled_grammar_is_taken_from_the_shared_cache_by_another_process(compiles):
    raw = demo_raw("example")
    first = grammar_compile(raw["grammar"]["abnf"], raw["grammar"]["rule"], examples=raw["examples"]["valid"])
    cache_clear()  # another process, or this one after a restart: only the shared cache is left
    second = grammar_compile(raw["grammar"]["abnf"], raw["grammar"]["rule"], examples=raw["examples"]["valid"])
    assert len(compiles) == 1
    assert (second.ok, second.pattern, second.crosscheck, [i.message for i in second.issues]) == (
        True,
        first.pattern,
        first.crosscheck,
        [i.message for i in first.issues],
    )
    urn = raw["examples"]["valid"][0]
    assert (second.matches(urn), second.matches(urn + "!")) == (True, False)


def test_shared_key_depends_on_the_text_and_the_engine_version():
    one, other = compiler._content_key("a = %x61\n", None, ()), compiler._content_key("a = %x62\n", None, ())
    assert one != other
    assert compiler.shared_key(one) == f"registry:grammar:{compiler.ENGINE_VERSION}:{one}"


def test_cross_check_cut_short_by_its_step_limit_is_shared(compiles):
    grammar, examples = 'a = *(*"x" *"x" *"x") "y"\n', ("x" * 150 + "z",)
    assert grammar_compile(grammar, examples=examples).crosscheck.cut_short
    cache_clear()
    assert grammar_compile(grammar, examples=examples).crosscheck.cut_short
    assert len(compiles) == 1  # counted work: an idle machine answers the same


def test_grammar_over_the_job_budget_is_shared_under_that_budget_only(settings, compiles):
    settings.REGISTRY_JOB_SECONDS = 0.1
    grammar, examples = 'a = *(*"x" *"x" *"x") "y"\n', ("x" * 150 + "z",)
    assert not grammar_compile(grammar, examples=examples).ok
    cache_clear()
    assert not grammar_compile(grammar, examples=examples).ok
    assert len(compiles) == 1
    settings.REGISTRY_JOB_SECONDS = 2
    cache_clear()
    assert grammar_compile(grammar, examples=examples).ok  # a larger budget is asked again
    assert len(compiles) == 2


@pytest.mark.django_db
def test_check_without_saving_compiles_the_grammar_once(client, compiles):
    proposal = proposal_factory()
    client.force_login(proposal.submitter)
    data = {k: v for k, v in ProposalForm.initial_from(proposal.to_data()).items() if v is not None}
    data["intent"] = "check"
    cache_clear()
    cache.clear()
    compiles.clear()  # creating the draft checked its stored text; the page checks what is posted
    response = client.post(f"/proposals/{proposal.pk}/edit/", data)
    assert response.status_code == 200 and b"grammar-parses" in response.content
    assert len(compiles) == 1
