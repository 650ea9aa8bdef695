"""The hard budget: jobs run in a worker process, are killed past their time or memory, and the
caller gets a message naming the limit while the next job runs normally."""

from __future__ import annotations

import os
import time

import pytest

from registry import sandbox


def _pid_and_sum(numbers):
    return os.getpid(), sum(numbers)


def _sleep(seconds):
    time.sleep(seconds)
    return "woke up"


def _allocate(megabytes):
    return len(bytearray(megabytes << 20))


def _nested():
    return sandbox.run_bounded(_pid_and_sum, [1, 2], what="inner job")


def test_job_runs_in_another_process_and_returns_its_result():
    pid, total = sandbox.run_bounded(_pid_and_sum, [1, 2, 3])
    assert (total, pid != os.getpid()) == (6, True)


def test_job_past_the_time_limit_is_stopped_with_a_message_naming_it(settings):
    settings.REGISTRY_JOB_SECONDS = 0.5
    started = time.perf_counter()
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_sleep, 30, what="grammar")
    assert time.perf_counter() - started < 2
    assert caught.value.limit == "time"
    assert caught.value.message == (
        "This grammar is too complex to check within the registry's limits (0.5 s / 512 MB): it "
        "needed more than 0.5 s. Simplify it, or split it into smaller parts.")
    # The worker was replaced: the next job runs normally.
    assert sandbox.run_bounded(_pid_and_sum, [4])[1] == 4


def test_job_past_the_memory_limit_is_stopped_with_a_message_naming_it(settings):
    settings.REGISTRY_JOB_MEMORY_MB = 256
    try:
        with pytest.raises(sandbox.BudgetExceeded) as caught:
            sandbox.run_bounded(_allocate, 400, what="document")
        assert caught.value.limit == "memory"
        assert "(2 s / 256 MB): it needed more than 256 MB of memory" in caught.value.message
        assert sandbox.run_bounded(_allocate, 10) == 10 << 20
    finally:
        sandbox.shutdown()  # the next test gets a pool with the default limit


def test_job_within_both_limits_is_not_disturbed(settings):
    settings.REGISTRY_JOB_SECONDS = 1
    assert sandbox.run_bounded(_sleep, 0.1) == "woke up"
    assert sandbox.run_bounded(_allocate, 100) == 100 << 20


def test_a_job_started_inside_a_worker_runs_there_under_its_limits():
    outer_pid = sandbox.run_bounded(_pid_and_sum, [0])[0]
    inner_pid, total = sandbox.run_bounded(_nested)
    assert (inner_pid, total) == (outer_pid, 3)


def _fail():
    raise ValueError("a fault in the job's own code")


def test_job_that_fails_is_a_clear_answer_not_a_server_error(caplog):
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_fail, what="grammar")
    assert caught.value.limit == "crash"
    assert caught.value.message.endswith("the worker checking it stopped unexpectedly. Simplify it, "
                                         "or split it into smaller parts.")
    assert "bounded job _fail failed" in caplog.text


def test_warm_starts_the_worker_pool_in_the_background():
    sandbox.shutdown()
    thread = sandbox.warm()
    thread.join(timeout=15)
    assert (thread.is_alive(), sandbox._pool is not None and sandbox._pool.active) == (False, True)
    pid, total = sandbox.run_bounded(_pid_and_sum, [1, 2])
    assert (total, pid != os.getpid()) == (3, True)
