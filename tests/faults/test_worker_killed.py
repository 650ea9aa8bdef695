"""The bounded worker killed (kill -9) in the middle of checks: never a verdict, never cached,
never stored; the next check gives the true verdict."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest
from django.core.cache import cache

from registry import sandbox, services
from registry.checklist import could_not_check, run_checklist
from registry.grammar import cache_clear
from registry.models import Proposal

from ..confirming import decide, seen_of
from ..factories import data_factory, judge_all, proposal_factory

pytestmark = [pytest.mark.faults]


def _workers() -> set[int]:
    """Process ids of this process's bounded workers."""
    pool = sandbox._pool
    if pool is None:
        return set()
    return {pid for pid in pool._pool_manager.worker_manager.workers if pid}


class Killer:
    """kill -9 every bounded worker, as often as one appears, until stopped."""

    def __init__(self):
        self.stopped = threading.Event()
        self.kills = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stopped.is_set():
            for pid in _workers():
                try:
                    os.kill(pid, signal.SIGKILL)
                    self.kills += 1
                except ProcessLookupError:
                    pass
            time.sleep(0.002)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.thread.join(timeout=5)


@pytest.fixture
def fresh():
    cache_clear()
    cache.clear()
    sandbox.run_bounded(sandbox._ready)  # a pool and a worker to kill
    yield
    cache_clear()
    cache.clear()


#: A grammar whose check takes the reference parser its whole budget of steps: every try of it
#: is still running when the killer looks, however loaded the machine. Its true verdict is a
#: warning naming that limit.
SLOW_GRAMMAR = 'a = *(*"x" *"x" *"x") "y"\n'
SLOW_EXAMPLE = "urn:ogf:example:" + "x" * 150 + "z"
TRUE_VERDICT = "could not be fully compared with the reference parser"


def _slow(data):
    data.grammar.abnf, data.grammar.rule = SLOW_GRAMMAR, ""
    data.examples.valid, data.examples.invalid, data.examples.equivalent = [SLOW_EXAMPLE], [], []
    return data


def _grammar_parses(data):
    return [(f.status, f.message) for f in run_checklist(data) if f.id == "grammar-parses"]


@pytest.mark.django_db
def test_a_killed_checker_says_try_again_and_the_next_check_gives_the_true_verdict(fresh):
    data = _slow(data_factory())
    with Killer() as killer:
        killed = _grammar_parses(data)
    assert killer.kills >= 2
    assert [status for status, _ in killed] == ["warning"]
    # Killed while checking; killed before the job reached it (pebble gives the pool up and a
    # fresh one is started); or the job lost with its killed worker (the wall-clock ceiling).
    assert re.fullmatch(
        r"This grammar could not be checked \(the checker stopped: (its worker was killed by "
        r"SIGKILL|its workers were killed|no answer within the [0-9.]+ s wall-clock ceiling)"
        r"\) — try again\.",
        killed[0][1],
    ), killed
    # Nothing was kept: the same grammar, checked again, gets its true verdict.
    status, message = _grammar_parses(data)[0]
    assert status == "warning" and TRUE_VERDICT in message


@pytest.mark.django_db
def test_saving_while_the_checker_is_killed_never_stores_a_failure(fresh):
    proposal = proposal_factory()
    data = _slow(proposal.to_data())
    data.title = "Saved while the checker was killed"
    cache_clear()
    cache.clear()
    with Killer():
        services.proposal_update(proposal, data, proposal.submitter)
    stored = Proposal.objects.get(pk=proposal.pk)
    parses = [f for f in stored.findings if f["id"] == "grammar-parses"]
    assert [f["status"] for f in parses] == ["warning"]
    assert "try again" in parses[0]["message"]
    # Saved again once the checker runs: the true verdict replaces the warning.
    services.proposal_update(stored, stored.to_data(), stored.submitter)
    stored = Proposal.objects.get(pk=proposal.pk)
    parses = [f for f in stored.findings if f["id"] == "grammar-parses"]
    assert [f["status"] for f in parses] == ["warning"] and TRUE_VERDICT in parses[0]["message"]


@pytest.mark.django_db
def test_an_approval_while_the_checker_is_killed_is_refused_not_stored_without_validator(fresh, editor):
    proposal = proposal_factory(
        state="submitted",
        grammar={"abnf": SLOW_GRAMMAR, "rule": ""},
        examples={"valid": [SLOW_EXAMPLE], "invalid": [], "equivalent": []},
    )
    cache_clear()
    cache.clear()
    with Killer(), pytest.raises(services.ServiceError, match="try again") as refused:
        services.proposal_transition(proposal, "approve", editor, override_reason="drill")
    # Not a failure to override: the same words whatever reason is given, and nothing decided.
    assert "Nothing was decided; confirm again in a moment to check afresh." in str(refused.value)
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
    approved = services.proposal_transition(
        Proposal.objects.get(pk=proposal.pk), "approve", editor, override_reason="drill"
    )
    assert approved.state == "approved" and approved.validator


@pytest.mark.django_db
def test_checks_that_need_the_grammar_are_not_run_while_its_checker_is_killed(fresh):
    data = _slow(data_factory())
    with Killer():
        findings = run_checklist(data)
    needing = {f.id: f for f in findings if f.id in ("grammar-complete", "grammar-charset", "max-length")}
    assert needing and {f.status for f in needing.values()} == {"not_run"}
    assert all("could not be checked this time" in f.message for f in needing.values())


@pytest.mark.django_db
def test_what_could_not_be_checked_is_marked_so_and_only_that(fresh):
    data = _slow(data_factory())
    with Killer():
        killed = run_checklist(data)
    marked = {f.id: f.status for f in killed if could_not_check(f)}
    assert marked["grammar-parses"] == "warning" and "grammar-complete" in marked
    assert set(marked.values()) == {"warning", "not_run"}  # neither a pass nor a failure
    # Checks that need nothing of the grammar still give their verdict: it stands in the way of nothing else.
    assert {f.id for f in killed if not could_not_check(f)} >= {"snid-syntax", "required-sections"}
    assert not [f for f in run_checklist(data) if could_not_check(f)]  # checked again: every verdict


@pytest.mark.django_db
def test_the_approval_page_asks_for_a_fresh_check_not_an_override(client, fresh, editor):
    proposal = proposal_factory(
        state="submitted",
        grammar={"abnf": SLOW_GRAMMAR, "rule": ""},
        examples={"valid": [SLOW_EXAMPLE], "invalid": [], "equivalent": []},
    )
    judge_all(proposal, editor)  # only the checks are in question here
    cache_clear()  # creating it checked it; the checks below must run
    cache.clear()
    client.force_login(editor)
    with Killer():  # the confirmation page checks afresh while the checker is killed
        shown = client.post(f"/review/{proposal.pk}/decide/", {"action": "approve"})
    page = shown.content.decode()
    assert "Not checked yet:" in page and "confirming checks everything afresh" in page
    assert 'data-check="grammar-parses"' in page
    assert 'name="override_reason" rows' not in page  # no reason is asked for: nothing failed
    # Confirmed on a machine whose checker runs: the fresh check gives the true verdict (here, failures
    # the stopped check had hidden, which need a written reason), and the decision rests on it: the page
    # is shown again with them, and nothing is decided.
    answer = client.post(
        f"/review/{proposal.pk}/decide/", {"action": "approve", "confirm": "yes", "seen": seen_of(shown)}
    )
    again = answer.content.decode()
    assert answer.status_code == 409 and "Nothing was decided" in again and "Not checked yet:" not in again
    assert 'name="override_reason" rows' in again
    assert Proposal.objects.get(pk=proposal.pk).state == "submitted"
    decide(client, proposal.pk, "approve", override_reason="drill")
    assert Proposal.objects.get(pk=proposal.pk).state == "approved"
