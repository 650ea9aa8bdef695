"""A hard time and memory budget for work on untrusted text.

Grammar checks, Markdown rendering and document import read text anyone can
send. The size limits of each stage (registry/grammar/limits.py, markdown.py)
keep the common case small; this module is the backstop for what they miss:
``run_bounded`` runs a function in a separate worker process (a pebble
process pool) whose address space is capped with RLIMIT_AS and whose job is
killed, and the worker replaced, when it runs past the wall-clock limit (the
memory limit counts what a job adds to the worker's address space at start). The
web worker that asked is never at risk: it waits at most the time limit and
gets a ``BudgetExceeded`` with a message for people.

Defaults: 2 s and 512 MB per job (settings REGISTRY_JOB_SECONDS and
REGISTRY_JOB_MEMORY_MB). A job started from inside a worker runs inline there,
already under the worker's limits.

A leaf module: Django settings are read only if configured, so the grammar
engine (which has no Django dependency) can use it from scripts and
benchmarks too.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import resource
import sys
import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

import pebble
import pebble.common.types

#: A job inside C code (an RE2 match) runs its SIGTERM handler only when the call returns,
#: so pebble's stop (SIGTERM, then SIGKILL after this many seconds; its default is 3)
#: would add that wait to every job over its budget.
pebble.common.types.CONSTS.term_timeout = 0.2

DEFAULT_SECONDS = 2.0
DEFAULT_MEMORY_MB = 512
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
    """A bounded job ran out of time or memory, or its worker died.

    ``limit`` is ``"time"``, ``"memory"`` or ``"crash"``; ``message`` is for people.
    """

    def __init__(self, what: str, limit: str, seconds: float, memory_mb: int):
        self.what, self.limit, self.seconds, self.memory_mb = what, limit, seconds, memory_mb
        reason = {
            "time": f"it needed more than {seconds:g} s",
            "memory": f"it needed more than {memory_mb} MB of memory",
            "crash": "the worker checking it stopped unexpectedly",
        }[limit]
        self.message = (f"This {what} is too complex to check within the registry's limits "
                        f"({seconds:g} s / {memory_mb} MB): {reason}. Simplify it, or split "
                        "it into smaller parts.")
        super().__init__(self.message)


def budget() -> tuple[float, int]:
    """(seconds, megabytes) per job, from settings when Django is configured."""
    seconds, memory_mb = DEFAULT_SECONDS, DEFAULT_MEMORY_MB
    try:
        from django.conf import settings

        if settings.configured:
            seconds = float(getattr(settings, "REGISTRY_JOB_SECONDS", seconds))
            memory_mb = int(getattr(settings, "REGISTRY_JOB_MEMORY_MB", memory_mb))
    except ImportError:  # pragma: no cover - Django is always installed here
        pass
    return seconds, memory_mb


def _workers() -> int:
    try:
        from django.conf import settings

        if settings.configured:
            return int(getattr(settings, "REGISTRY_JOB_WORKERS", DEFAULT_WORKERS))
    except ImportError:  # pragma: no cover
        pass
    return DEFAULT_WORKERS


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


def _initialize(memory_bytes: int) -> None:
    """Runs first in every worker: cap the memory the job may take, on top of what the
    worker already maps when it starts (a fork of a threaded web process inherits the
    address space its threads reserved, most of it never touched)."""
    global _in_worker
    _in_worker = True
    limit = _address_space() + memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.setrecursionlimit(WORKER_RECURSION_LIMIT)


#: Imported once by the fork server, so a new worker (after one was killed) starts at once.
PRELOAD = ["registry.sandbox", "registry.grammar", "registry.markdown", "registry.documents"]


def _context():
    """Workers are forked from a small server process, not from the web process: a plain
    fork would hand every worker the web process's open files and sockets (a browser
    driver's pipes, a listening socket) and keep them open after the web process closed
    them."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _get_pool(memory_mb: int) -> pebble.ProcessPool:
    """This process's pool, made on first use (and again after a fork or a new limit)."""
    global _pool, _pool_owner
    owner = (os.getpid(), memory_mb, _workers())
    with _lock:
        if _pool is None or _pool_owner != owner or not _pool.active:
            if _pool is not None and _pool_owner[0] == owner[0]:
                _pool.stop()
            _pool = pebble.ProcessPool(max_workers=owner[2], initializer=_initialize,
                                       initargs=(memory_mb << 20,), context=_context())
            _pool_owner = owner
        return _pool


def _ready() -> bool:
    return True


def warm() -> threading.Thread | None:
    """Start this process's worker now, in the background, so the first check does not wait for it.

    Starting the pool (its fork server importing the engine, then one worker)
    takes about a third of a second, which would otherwise fall on the first
    person whose grammar is checked after a restart. It runs in a daemon thread
    as one trivial job under the usual budget, so a web worker starts serving
    at once and a slow start can cost nothing but that thread. Called from
    gunicorn's ``post_worker_init`` (registry/gunicorn.py); not in tests or
    commands, which start the pool when they need it.
    """
    if _in_worker:
        return None

    def start() -> None:
        try:
            run_bounded(_ready, what="warm-up")
        except BudgetExceeded:  # the first real job starts a worker again
            logger.warning("the bounded worker did not start in time at warm-up")

    thread = threading.Thread(target=start, name="sandbox-warm-up", daemon=True)
    thread.start()
    return thread


def shutdown() -> None:
    """Stop this process's workers (at exit, and in tests that change the limits)."""
    global _pool, _pool_owner
    with _lock:
        if _pool is not None and _pool_owner and _pool_owner[0] == os.getpid():
            _pool.stop()
            _pool.join(timeout=5)
        _pool, _pool_owner = None, None


atexit.register(shutdown)


def run_bounded(func: Callable[..., T], *args, what: str = "text",
                expected: tuple[type[BaseException], ...] = ()) -> T:
    """``func(*args)`` in a bounded worker process; its result, or BudgetExceeded.

    ``func`` must be a module-level function and its arguments and result
    picklable. Any failure of the job — out of time, out of memory, its worker
    killed, or an exception in ``func`` itself (logged) — is a BudgetExceeded, so
    a caller has one thing to handle and the person who asked one clear answer.
    Exceptions listed in ``expected`` are answers, not faults (e.g. "this file is
    not a PDF"): they are raised as they are.
    """
    seconds, memory_mb = budget()
    if _in_worker:
        return func(*args)
    future = _get_pool(memory_mb).schedule(func, args=args, timeout=seconds)
    try:
        # The pool enforces ``seconds`` once the job starts; the extra wait only
        # covers starting a replacement worker.
        return future.result(timeout=seconds + 10)
    except expected:
        raise
    except FutureTimeout:
        future.cancel()
        raise BudgetExceeded(what, "time", seconds, memory_mb) from None
    except MemoryError:
        raise BudgetExceeded(what, "memory", seconds, memory_mb) from None
    except pebble.ProcessExpired as exc:
        # Killed by the kernel or aborted by a failed allocation under RLIMIT_AS.
        limit = "memory" if exc.exitcode in (-9, -6, 1) else "crash"
        raise BudgetExceeded(what, limit, seconds, memory_mb) from None
    except RecursionError:
        raise BudgetExceeded(what, "crash", seconds, memory_mb) from None
    except Exception:
        # A fault in the job's own code: logged for us, a clear answer (not a 500) for them.
        logger.exception("bounded job %s failed", getattr(func, "__qualname__", func))
        raise BudgetExceeded(what, "crash", seconds, memory_mb) from None
