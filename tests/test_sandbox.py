"""The hard budget: jobs run in a worker process, are killed past their time or memory, and the
caller gets a message naming the limit while the next job runs normally."""

from __future__ import annotations

import os
import time

import pytest

from registry import sandbox

pytestmark = pytest.mark.budget  # run again beside CPU burners (.ci/run)


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


def _burn(seconds):
    """Busy for ``seconds`` of this process's CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "done"


def test_job_past_its_cpu_time_is_stopped_with_a_message_naming_it(settings):
    settings.REGISTRY_JOB_SECONDS = 0.5
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_burn, 30, what="grammar")  # stopped after 0.5 of its 30 s, however long that takes
    assert (caught.value.limit, caught.value.deterministic) == ("time", True)
    assert caught.value.message == (
        "This grammar is too complex to check within the registry's limits (0.5 s CPU / 512 MB): "
        "it needed more than 0.5 s of CPU time. Simplify it, or split it into smaller parts."
    )
    # The next job runs normally.
    assert sandbox.run_bounded(_pid_and_sum, [4])[1] == 4


def test_a_job_kind_with_its_own_budget_passes_it_per_call(settings):
    settings.REGISTRY_JOB_SECONDS = 0.2
    # More than the default budget, within its own: it finishes.
    assert sandbox.run_bounded(_burn, 0.5, what="document", seconds=3) == "done"
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_burn, 30, what="document", seconds=0.4)
    assert caught.value.limit == "time"
    assert "(0.4 s CPU / 512 MB): it needed more than 0.4 s of CPU time" in caught.value.message
    # The next job without its own budget has the default one again.
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_burn, 30, what="grammar")
    assert "(0.2 s CPU / 512 MB)" in caught.value.message


def test_document_import_budget_is_its_own_setting(settings):
    settings.REGISTRY_JOB_SECONDS = 2
    settings.REGISTRY_IMPORT_CPU_SECONDS = 15
    assert (sandbox.budget()[0], sandbox.import_cpu_seconds()) == (2, 15)
    assert sandbox.wall_ceiling(sandbox.import_cpu_seconds()) == 60  # four times its CPU budget


def _native_burn():
    """CPU in native code that never returns to the interpreter (no Python-level timer fires)."""
    return sum(range(10**13))


def test_native_code_past_its_cpu_time_is_ended_by_the_cpu_rlimit(settings):
    settings.REGISTRY_JOB_SECONDS = 0.2
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_native_burn, what="grammar")
    assert (caught.value.limit, caught.value.deterministic) == ("time", True)
    assert sandbox.run_bounded(_pid_and_sum, [4])[1] == 4


def test_waiting_is_not_work_a_sleeping_job_is_not_charged_cpu_time(settings):
    settings.REGISTRY_JOB_SECONDS = 0.3
    assert sandbox.run_bounded(_sleep, 0.6) == "woke up"


def test_a_stuck_job_meets_the_wall_clock_ceiling_and_is_a_fault_not_a_verdict(settings):
    settings.REGISTRY_JOB_SECONDS = 0.1
    settings.REGISTRY_JOB_WALL_SECONDS = 0.1  # raised to 4 x the CPU budget: 0.4 s
    started = time.perf_counter()
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_sleep, 600, what="grammar")
    # Two tries of 0.4 s and fresh workers, however slowly a busy machine starts them; not the 600 s sleep.
    assert time.perf_counter() - started < 300
    assert (caught.value.limit, caught.value.fault) == ("stopped", True)
    assert caught.value.message == (
        "This grammar could not be checked (the checker stopped: no answer "
        "within the 0.4 s wall-clock ceiling) — try again."
    )
    assert sandbox.run_bounded(_pid_and_sum, [4])[1] == 4


def _die_once(marker):
    """Killed (SIGKILL) the first time, as by an operator or the OOM killer; fine the next."""
    import signal
    from pathlib import Path

    if not Path(marker).exists():
        Path(marker).write_text("killed once")
        os.kill(os.getpid(), signal.SIGKILL)
    return "checked"


def _die_always():
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_job_is_retried_once_in_a_fresh_worker(tmp_path):
    assert sandbox.run_bounded(_die_once, str(tmp_path / "marker")) == "checked"


def test_a_job_killed_twice_could_not_be_checked(caplog):
    with pytest.raises(sandbox.BudgetExceeded) as caught:
        sandbox.run_bounded(_die_always, what="grammar")
    assert (caught.value.limit, caught.value.fault) == ("stopped", True)
    assert caught.value.message == (
        "This grammar could not be checked (the checker stopped: its worker was killed by SIGKILL) — try again."
    )
    assert "attempt 2 of 2" in caplog.text
    assert sandbox.run_bounded(_pid_and_sum, [4])[1] == 4


def test_job_past_the_memory_limit_is_stopped_with_a_message_naming_it(settings):
    settings.REGISTRY_JOB_MEMORY_MB = 256
    try:
        with pytest.raises(sandbox.BudgetExceeded) as caught:
            sandbox.run_bounded(_allocate, 400, what="document")
        assert caught.value.limit == "memory"
        assert "(2 s CPU / 256 MB): it needed more than 256 MB of memory" in caught.value.message
        assert caught.value.deterministic
        assert sandbox.run_bounded(_allocate, 10) == 10 << 20
    finally:
        sandbox.shutdown()  # the next test gets a pool with the default limit


_kept: list[bytearray] = []


def _keep(megabytes):
    """Keep ``megabytes`` in the worker after the job, as a cache would."""
    _kept.append(bytearray(megabytes << 20))
    return os.getpid()


def _allocate_in(megabytes):
    return os.getpid(), len(bytearray(megabytes << 20))


def test_a_job_gets_its_whole_memory_budget_whatever_the_jobs_before_it_kept(settings):
    """What a job may use never depends on what the worker's earlier jobs left behind: a worker
    whose caches leave less than a whole budget under its ceiling hands the job to a fresh one."""
    settings.REGISTRY_JOB_MEMORY_MB = 128
    try:
        keeper = sandbox.run_bounded(_keep, 100)
        assert sandbox.run_bounded(_allocate_in, 120) == (keeper, 120 << 20)  # 100 kept + 120 > 128
        assert sandbox.run_bounded(_keep, 100) == keeper
        pid, size = sandbox.run_bounded(_allocate_in, 120)  # 200 kept: a fresh worker runs it
        assert (size, pid != keeper) == (120 << 20, True)
        with pytest.raises(sandbox.BudgetExceeded) as caught:
            sandbox.run_bounded(_allocate, 200, what="document")  # past the job's own budget: a verdict
        assert (caught.value.limit, caught.value.deterministic) == ("memory", True)
    finally:
        sandbox.shutdown()  # the next test gets a pool with the default limit


def _watchdogs():
    import threading

    return [thread.name for thread in threading.enumerate() if thread is not threading.main_thread()]


def test_every_job_of_a_worker_is_watched_by_one_thread_for_its_life():
    """A watchdog thread per job left stacks and malloc arenas behind on a busy machine, until a
    trivial job ran out of memory (a false "too complex") or of threads."""
    seen = {tuple(sandbox.run_bounded(_watchdogs)) for _ in range(20)}
    assert seen == {("sandbox-cpu-watchdog",)}


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
    assert (caught.value.limit, caught.value.fault) == ("stopped", True)
    assert caught.value.message == (
        "This grammar could not be checked (the checker stopped: an internal error, which has been logged) — try again."
    )
    assert "bounded job _fail failed" in caplog.text


def test_warm_starts_the_worker_pool_in_the_background():
    sandbox.shutdown()
    thread = sandbox.warm()
    thread.join(timeout=15)
    assert (thread.is_alive(), sandbox._pool is not None and sandbox._pool.active) == (False, True)
    pid, total = sandbox.run_bounded(_pid_and_sum, [1, 2])
    assert (total, pid != os.getpid()) == (3, True)
