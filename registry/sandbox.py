"""A hard budget of work — CPU time and memory — for jobs on untrusted text.

Grammar checks, Markdown rendering and document import read text anyone can
send. The size limits of each stage (registry/grammar/limits.py, markdown.py)
keep the common case small; this module is the backstop for what they miss:
``run_bounded`` runs a function in a separate worker process (a pebble process
pool) whose address space is capped with RLIMIT_AS: each job may map its memory
budget beyond what the worker maps when it starts, so what one job may use never
depends on what earlier jobs left in the worker's caches.

The budget measures the job's own work, not the machine's load: the job may use
REGISTRY_JOB_SECONDS of CPU time (an ITIMER_PROF timer stops it in Python code,
a watchdog thread and RLIMIT_CPU stop the worker if native code does not return),
so the same text gets the same answer on an idle and on a busy server. A generous
wall-clock ceiling (REGISTRY_JOB_WALL_SECONDS) only guards against a stuck worker.

Faults are not verdicts. Running past the CPU or memory budget is a property of
the text (``deterministic``: the answer may be kept). A worker killed from
outside (kill -9, the OOM killer), a crash, or the wall-clock ceiling says nothing
about the text: the job is retried once in a fresh worker, and if that fails too
the caller gets a BudgetExceeded with ``fault`` set and a message saying the text
could not be checked — try again. Such an answer is never cached or stored as a
verdict.

Defaults: 2 s of CPU, 512 MB, 30 s wall clock per job (settings
REGISTRY_JOB_SECONDS, REGISTRY_JOB_MEMORY_MB, REGISTRY_JOB_WALL_SECONDS). Reading a
document is a bigger job by nature (pdfminer needs 6.5 to 20 s of CPU for 200 dense
pages, the documented limit, by how fast the machine's cores are: CPU time measures work
only on one machine), so document import has its own CPU budget,
REGISTRY_IMPORT_CPU_SECONDS (30 s; ``import_cpu_seconds``), which its callers pass as
``run_bounded(..., seconds=...)``; grammar checks and Markdown keep theirs. A job
started from inside a worker runs inline there, already under the worker's limits.

An engine with no Django dependency, like the grammar engine that uses it, so both run
from scripts and benchmarks too: the settings above are read through registry/engineconfig.py
(or ``settings_from``), which the app's ``ready`` (registry/apps.py) points at Django's settings; until then
(and outside Django) the defaults hold.
"""

from __future__ import annotations

import atexit
import logging
import math
import multiprocessing
import os
import resource
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

import pebble
import pebble.common.types

from . import engineconfig

#: A job inside C code (an RE2 match) runs its SIGTERM handler only when the call returns,
#: so pebble's stop (SIGTERM, then SIGKILL after this many seconds; its default is 3)
#: would add that wait to every job over its budget.
pebble.common.types.CONSTS.term_timeout = 0.2

DEFAULT_SECONDS = 2.0  # CPU seconds
#: CPU seconds for reading one document (a PDF of up to 200 dense pages, with room to spare).
DEFAULT_IMPORT_SECONDS = 30.0
DEFAULT_MEMORY_MB = 512
DEFAULT_WALL_SECONDS = 30.0
#: Tries of a job whose worker stopped for a reason that says nothing about its text.
ATTEMPTS = 2
#: Worker processes per web process. Sync web workers ask for one job at a time.
DEFAULT_WORKERS = 1
#: Deeper Python recursion is allowed in a worker than in the web process: a
#: stack overflow there only costs the worker, which is replaced.
WORKER_RECURSION_LIMIT = 6_000

T = TypeVar("T")
logger = logging.getLogger(__name__)

_in_worker = False
_pool: pebble.ProcessPool | None = None
_pool_owner: tuple[int, int, int] | None = None  # (pid, memory MB, workers) the pool was made for
_lock = threading.Lock()


class BudgetExceeded(Exception):
    """A bounded job ran out of CPU time or memory, or could not be run to its end.

    ``limit`` is ``"time"`` (CPU time), ``"memory"`` or ``"depth"`` — properties of the text
    (``deterministic``) — or ``"stopped"``: the worker was killed, crashed, failed, or hit the
    wall-clock ceiling (``fault``; ``reason`` says which). ``message`` is for people.
    """

    def __init__(self, what: str, limit: str, seconds: float, memory_mb: int, reason: str = ""):
        self.what, self.limit, self.seconds, self.memory_mb = what, limit, seconds, memory_mb
        self.reason = reason
        if limit == "stopped":
            self.message = f"This {what} could not be checked (the checker stopped: {reason}) — try again."
        else:
            why = "it nests too deeply" if limit == "depth" else f"it needed {self.needed}"
            self.message = (
                f"This {what} is too complex to check within the registry's limits "
                f"({seconds:g} s CPU / {memory_mb} MB): {why}. Simplify it, or split "
                "it into smaller parts."
            )
        super().__init__(self.message)

    @property
    def needed(self) -> str:
        """What the job needed past its limit, for a caller's own sentence ("more than 2 s of CPU time")."""
        return {
            "time": f"more than {self.seconds:g} s of CPU time",
            "memory": f"more than {self.memory_mb} MB of memory",
            "depth": "deeper nesting than a check may follow",
        }.get(self.limit, "")

    @property
    def fault(self) -> bool:
        """True when the answer says nothing about the text: never cache or store it."""
        return self.limit == "stopped"

    @property
    def deterministic(self) -> bool:
        return not self.fault


#: (setting's name, default) -> its value: Django's settings once the app is ready (``settings_from``).
_settings_reader: Callable[[str, object], object] | None = None


def settings_from(reader: Callable[[str, object], object] | None) -> None:
    """Read the budget's settings through ``reader`` (name, default) -> value; None: the defaults."""
    global _settings_reader
    _settings_reader = reader


def _setting(name: str, default, kind):
    reader = _settings_reader or engineconfig.settings_reader  # the app's settings (registry/engineconfig.py)
    if reader is None:
        return default
    return kind(reader(name, default))


def budget() -> tuple[float, int]:
    """(CPU seconds, megabytes) per job, from settings when Django is configured."""
    return (
        _setting("REGISTRY_JOB_SECONDS", DEFAULT_SECONDS, float),
        _setting("REGISTRY_JOB_MEMORY_MB", DEFAULT_MEMORY_MB, int),
    )


def import_cpu_seconds() -> float:
    """CPU seconds for reading one document (extraction and import), from settings when
    Django is configured: what callers pass as ``run_bounded(..., seconds=...)``."""
    return _setting("REGISTRY_IMPORT_CPU_SECONDS", DEFAULT_IMPORT_SECONDS, float)


def wall_ceiling(seconds: float | None = None) -> float:
    """Wall-clock seconds after which a job's worker is taken for stuck (never less than
    four times the job's CPU budget, ``seconds`` or the default one)."""
    cpu = budget()[0] if seconds is None else seconds
    return max(_setting("REGISTRY_JOB_WALL_SECONDS", DEFAULT_WALL_SECONDS, float), 4 * cpu)


def _workers() -> int:
    return _setting("REGISTRY_JOB_WORKERS", DEFAULT_WORKERS, int)


def in_worker() -> bool:
    """Whether this process is a bounded worker (its limits are already in force)."""
    return _in_worker


def _address_space() -> int:
    """Bytes of address space this process has mapped now (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except OSError:  # pragma: no cover - not Linux
        return 0


#: What a worker may map beyond its size at start, in job budgets: every job gets its whole budget
#: (REGISTRY_JOB_MEMORY_MB) on top of what the worker maps when the job starts, and a worker whose
#: caches leave less than that under this ceiling is replaced before the job runs (``RECYCLE_EXIT``).
WORKER_CEILING_BUDGETS = 2
#: A worker's exit code when it leaves a job to a fresh worker (not a fault: the job is run again).
RECYCLE_EXIT = 75
_job_memory = 0  # bytes a job may map beyond what its worker maps when it starts
_ceiling = 0  # bytes of address space this worker may ever map (its hard RLIMIT_AS)
_jobs_started = 0  # jobs this worker has started: a fresh worker never hands its job on


def _initialize(memory_bytes: int) -> None:
    """Runs first in every worker: start its CPU watchdog, then cap the address space the worker may
    ever map at its size now (a fork of a threaded web process inherits the address space its threads
    reserved, most of it never touched) plus ``WORKER_CEILING_BUDGETS`` budgets; each job then gets its
    own limit (``_job``)."""
    global _in_worker, _job_memory, _ceiling
    _in_worker = True
    _watchdog_start()
    _job_memory = memory_bytes
    _ceiling = _address_space() + WORKER_CEILING_BUDGETS * memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (_ceiling, _ceiling))
    sys.setrecursionlimit(WORKER_RECURSION_LIMIT)


#: Imported once by a server's fork server (``warm``), so a new worker (after one was killed) starts at once.
PRELOAD = ["registry.sandbox", "registry.grammar.compiler", "registry.markdown", "registry.documents.importer"]
#: A command or a test, which never warms: its worker imports what its jobs use, nothing more.
PRELOAD_UNWARMED = ["registry.sandbox"]
_warmed = False


def _context():
    """Workers are forked from a small server process, not from the web process: a plain
    fork would hand every worker the web process's open files and sockets (a browser
    driver's pipes, a listening socket) and keep them open after the web process closed
    them."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD if _warmed else PRELOAD_UNWARMED)
    return context


def _get_pool(memory_mb: int) -> pebble.ProcessPool:
    """This process's pool, made on first use (and again after a fork or a new limit)."""
    global _pool, _pool_owner
    owner = (os.getpid(), memory_mb, _workers())
    with _lock:
        if _pool is None or _pool_owner != owner or not _pool.active:
            if _pool is not None and _pool_owner[0] == owner[0]:
                _pool.stop()
            _pool = pebble.ProcessPool(
                max_workers=owner[2], initializer=_initialize, initargs=(memory_mb << 20,), context=_context()
            )
            _pool_owner = owner
        return _pool


def _ready() -> bool:
    return True


class _CpuTimeUp(BaseException):
    """Raised in a worker by the CPU-time timer (a BaseException: no ``except Exception`` in
    the job's code can swallow it)."""


class CpuBudgetExceeded(Exception):
    """The job used its CPU time: what the worker answers (picklable)."""


_cpu_exhausted = False


def _cpu_time_up(signum, frame):
    global _cpu_exhausted
    _cpu_exhausted = True
    raise _CpuTimeUp


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


#: CPU seconds past the budget before the watchdog ends the worker (the timer's turn first).
WATCHDOG_GRACE = 0.05
WATCHDOG_INTERVAL = 0.01
_watch = threading.Condition()
_watch_limit: float | None = None  # the running job's CPU seconds (of this process) and grace; None: idle


def _watch_cpu() -> None:
    """End the worker (SIGXCPU, as RLIMIT_CPU would) once the process has used the running job's
    limit: native code that releases the interpreter lock (an RE2 match) never returns to Python for
    the timer, and RLIMIT_CPU counts whole seconds only. The limit is read under the lock at every
    look, so a job is only ever held to its own."""
    with _watch:
        while True:
            if _watch_limit is None:
                _watch.wait()
            elif _cpu_used() >= _watch_limit:
                os.kill(os.getpid(), signal.SIGXCPU)
                return
            else:
                _watch.wait(WATCHDOG_INTERVAL)


def _watchdog_start() -> None:
    """One watchdog thread for the worker's life. A thread per job left the stacks and malloc arenas
    of the threads not yet ended behind on a busy machine (102 MB of address space grew to 454 MB in
    500 jobs beside four CPU burners), until a trivial job ran out of memory or of threads: a verdict
    that depended on the worker's past, not on the text."""
    threading.Thread(target=_watch_cpu, name="sandbox-cpu-watchdog", daemon=True).start()


def _watch_set(limit: float | None) -> None:
    global _watch_limit
    with _watch:
        _watch_limit = limit
        _watch.notify()


def _job(func, args, cpu_seconds: float):
    """Runs in the worker: ``func(*args)`` within ``cpu_seconds`` of this process's CPU time and the
    memory budget beyond what the worker maps now.

    ITIMER_PROF counts the process's CPU time (user and system) and interrupts Python code; the
    watchdog thread ends the worker (SIGXCPU) 50 ms later if native code that released the
    interpreter lock is still running, and RLIMIT_CPU (whole seconds) does the same for native
    code that holds it. Only soft limits are set: an unprivileged process could never raise a
    lowered hard limit again for its next job. A worker whose caches leave the job less than its
    whole memory budget under the worker's ceiling exits instead (``RECYCLE_EXIT``): the job runs
    in a fresh worker, so what a job may use never depends on the jobs before it.
    """
    global _jobs_started
    start = _address_space()
    if start + _job_memory > _ceiling and _jobs_started:
        os._exit(RECYCLE_EXIT)
    _jobs_started += 1
    # A fresh worker's first job gets the room left under the ceiling, less than its budget only if
    # importing the job's own code took more than a whole budget (a budget of a few MB).
    resource.setrlimit(resource.RLIMIT_AS, (min(start + _job_memory, _ceiling), _ceiling))
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    backstop = math.ceil(_cpu_used() + cpu_seconds)
    if hard != resource.RLIM_INFINITY:
        backstop = min(backstop, hard)
    global _cpu_exhausted
    _cpu_exhausted = False
    resource.setrlimit(resource.RLIMIT_CPU, (backstop, hard))
    signal.signal(signal.SIGPROF, _cpu_time_up)
    # Repeats every 50 ms of CPU: code that swallows the first interruption meets the next.
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds, 0.05)
    started = _cpu_used()
    _watch_set(started + cpu_seconds + WATCHDOG_GRACE)
    try:
        result = func(*args)
    except _CpuTimeUp:
        raise CpuBudgetExceeded from None
    else:
        if _cpu_exhausted:  # interrupted, swallowed somewhere: the result is not to be trusted
            raise CpuBudgetExceeded
        return result, _cpu_used() - started
    finally:
        _watch_set(None)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, signal.SIG_IGN)  # a late tick must not escape
        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
        resource.setrlimit(resource.RLIMIT_AS, (_ceiling, _ceiling))


def warm() -> threading.Thread | None:
    """Start this process's worker now, in the background, so the first check does not wait for it.

    Starting the pool (its fork server importing the engine, then one worker)
    takes about a third of a second, which would otherwise fall on the first
    person whose grammar is checked after a restart. It runs in a daemon thread
    as one trivial job under the usual budget, so a web worker starts serving
    at once and a slow start can cost nothing but that thread. Called from
    each web worker before it takes a connection (registry/serve.py); not in tests or
    commands, which start the pool when they need it.
    """
    global _warmed
    if _in_worker:
        return None
    _warmed = True

    def start() -> None:
        try:
            run_bounded(_ready, what="warm-up")
        except BudgetExceeded:  # the first real job starts a worker again
            logger.warning("the bounded worker did not start in time at warm-up")

    thread = threading.Thread(target=start, name="sandbox-warm-up", daemon=True)
    thread.start()
    return thread


def _discard_pool() -> None:
    """Forget a broken pool (its workers are gone); the next job starts a fresh one."""
    global _pool, _pool_owner
    with _lock:
        broken, _pool, _pool_owner = _pool, None, None
    if broken is not None:
        try:
            broken.stop()
        except Exception:  # noqa: BLE001 - it is broken already
            logger.warning("stopping a broken worker pool failed", exc_info=True)


def shutdown() -> None:
    """Stop this process's workers (at exit, and in tests that change the limits)."""
    global _pool, _pool_owner
    with _lock:
        if _pool is not None and _pool_owner and _pool_owner[0] == os.getpid():
            _pool.stop()
            _pool.join(timeout=5)
        _pool, _pool_owner = None, None


atexit.register(shutdown)


_spent = threading.local()


def jobs_cpu_seconds() -> float:
    """CPU seconds the bounded jobs this thread asked for have used so far (finished ones):
    what a request cost in the workers, whatever the machine's load."""
    return getattr(_spent, "seconds", 0.0)


def _stopped_reason(exc: pebble.ProcessExpired) -> str:
    code = exc.exitcode
    if code == RECYCLE_EXIT:
        return "a fresh worker had no room for the job's memory budget"
    if code is not None and code < 0:
        try:
            return f"its worker was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"its worker was killed by signal {-code}"
    return f"its worker exited with code {code}"


def run_bounded(
    func: Callable[..., T],
    *args,
    what: str = "text",
    expected: tuple[type[BaseException], ...] = (),
    seconds: float | None = None,
) -> T:
    """``func(*args)`` in a bounded worker process; its result, or BudgetExceeded.

    ``func`` must be a module-level function and its arguments and result
    picklable. Any failure of the job is a BudgetExceeded, so a caller has one
    thing to handle and the person who asked one clear answer: past the CPU-time
    or memory budget (deterministic), or — after one retry in a fresh worker — a
    fault (``exc.fault``: killed, crashed, stuck past the wall-clock ceiling, or an
    exception in ``func`` itself, logged). Exceptions listed in ``expected`` are
    answers, not faults (e.g. "this file is not a PDF"): they are raised as they are.
    ``seconds`` is this job's CPU budget when its kind has its own (document import:
    ``import_cpu_seconds()``); by default, REGISTRY_JOB_SECONDS.
    """
    default_seconds, memory_mb = budget()
    seconds = default_seconds if seconds is None else seconds
    if _in_worker:
        return func(*args)
    wall = wall_ceiling(seconds)
    reason, attempt, recycled = "", 0, False
    while attempt < ATTEMPTS:
        future = _get_pool(memory_mb).schedule(_job, args=(func, args, seconds), timeout=wall)
        try:
            # The pool enforces ``wall`` once the job starts; the extra wait only
            # covers starting a replacement worker.
            result, cpu_seconds = future.result(timeout=wall + 10)
            _spent.seconds = jobs_cpu_seconds() + cpu_seconds
            return result
        except expected:
            raise
        except CpuBudgetExceeded:
            _spent.seconds = jobs_cpu_seconds() + seconds
            raise BudgetExceeded(what, "time", seconds, memory_mb) from None
        except MemoryError:
            raise BudgetExceeded(what, "memory", seconds, memory_mb) from None
        except RecursionError:
            raise BudgetExceeded(what, "depth", seconds, memory_mb) from None
        except FutureTimeout:
            future.cancel()
            reason = f"no answer within the {wall:g} s wall-clock ceiling"
        except pebble.ProcessExpired as exc:
            if exc.exitcode == -signal.SIGXCPU:  # RLIMIT_CPU: the job's own CPU time
                _spent.seconds = jobs_cpu_seconds() + seconds
                raise BudgetExceeded(what, "time", seconds, memory_mb) from None
            if exc.exitcode == RECYCLE_EXIT and not recycled:
                recycled = True  # a worker full of caches handed the job on: a fresh one runs it
                continue
            reason = _stopped_reason(exc)
        except BrokenProcessPool:
            # Every worker was killed while idle: pebble gives the pool up; start a new one.
            _discard_pool()
            reason = "its workers were killed"
        except Exception:
            # A fault in the job's own code: logged for us, a clear answer (not a 500) for them.
            logger.exception("bounded job %s failed", getattr(func, "__qualname__", func))
            raise BudgetExceeded(
                what, "stopped", seconds, memory_mb, "an internal error, which has been logged"
            ) from None
        logger.warning(
            "bounded job %s stopped (%s); attempt %d of %d",
            getattr(func, "__qualname__", func),
            reason,
            attempt + 1,
            ATTEMPTS,
        )
        attempt += 1
    raise BudgetExceeded(what, "stopped", seconds, memory_mb, reason)
