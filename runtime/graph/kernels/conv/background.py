"""Convolution tuning off the critical path: what a compile could not afford to time is timed later,
in a background thread, while no compiled program runs.

A compile times candidates for at most ``tune.TUNE_BUDGET_SECONDS`` (blocking: the first call
waits for it); shapes past the budget, or too big to time within a compile
(``tune.TUNE_MAX_FLOPS`` < work <= ``BACKGROUND_MAX_FLOPS``), get the fixed rule's algorithm now and
a job here. The tuner thread (daemon, lowest scheduling priority where the OS allows per-thread
priorities) waits until the process has been idle for a moment (no program call entered for
``IDLE_SECONDS``), times one candidate, and throws the sample away if a program call started
meanwhile (the process's CPU time would include it); the verdict goes into the in-process memo and
the persistent tuning cache. A program already compiled keeps its algorithms (its outputs never
change under it); the next compile (a new batch size, another block, the next process) uses
the verdict. ``HYBRIDIZE_TUNE_BACKGROUND=0`` turns the tuner off (then those shapes wait for a
later compile's budget).

A job that raises is a bug, not a slow shape: it is logged (``hybridize.tune``, with its traceback)
and its shape keeps the fixed rule. A forked child (a multiprocessing data loader) starts with an
empty tuner: the parent's thread does not exist there, its queue and lock are not inherited.
"""
from __future__ import annotations

import atexit
import collections
import logging
import os
import threading
import time
from typing import Any, Callable

__all__ = ["schedule", "wait", "enabled", "pending"]

BACKGROUND_MAX_FLOPS = 2e10     # bigger single convolutions are never timed (each sample: seconds)
IDLE_SECONDS = 0.05             # no program call for this long before a sample
MAX_RETRIES = 50                # samples disturbed by program calls, per job, before giving up

_lock = threading.Condition()
_jobs: "collections.deque[tuple[Any, Callable[[], None]]]" = collections.deque()
_pending: set = set()
_running = [0]
_thread: list[threading.Thread] = []
_stopping = [False]
_LOG = logging.getLogger("hybridize.tune")


@atexit.register
def _stop() -> None:
    """At exit no new sample starts (a daemon thread is cut wherever it is when the interpreter ends)."""
    _stopping[0] = True


def _after_fork_in_child() -> None:
    """The child has no tuner thread: a job the parent had queued or running would never finish
    (``wait`` would block forever), and ``_lock`` may have been held by the parent's thread."""
    global _lock
    _lock = threading.Condition()
    _jobs.clear()
    _pending.clear()
    _running[0] = 0
    _thread.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def enabled() -> bool:
    return os.environ.get("HYBRIDIZE_TUNE_BACKGROUND", "1") != "0"


def schedule(key: Any, job: Callable[[Callable[[Callable[[], float]], float | None]], None]) -> bool:
    """Queues ``job(sample)`` once per ``key``; ``sample(fn)`` runs ``fn`` (one timing) when the
    process is idle and returns its result, or None when a program call disturbed it too often.
    False when the tuner is off."""
    if not enabled():
        return False
    with _lock:
        if key in _pending:
            return True
        _pending.add(key)
        _jobs.append((key, job))
        if not _thread or not _thread[0].is_alive():
            _thread[:] = [threading.Thread(target=_loop, name="hybridize-tuner", daemon=True)]
            _thread[0].start()
        _lock.notify_all()
    return True


def pending() -> int:
    with _lock:
        return len(_jobs) + _running[0]


def wait(timeout: float | None = None) -> bool:
    """Blocks until every scheduled job is done (True) or ``timeout`` seconds passed (False)."""
    end = None if timeout is None else time.monotonic() + timeout
    with _lock:
        while _jobs or _running[0]:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                return False
            _lock.wait(left)
    return True


def _lower_priority() -> None:
    try:                          # Linux: a thread is a task with its own nice value
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError, PermissionError):
        pass


def _sample(fn: Callable[[], float]) -> float | None:
    from .. import parallel
    for _ in range(MAX_RETRIES):
        if _stopping[0]:
            return None
        seen = parallel.program_entries()
        time.sleep(IDLE_SECONDS)
        if parallel.program_entries() != seen or parallel.programs_running():
            continue
        with parallel.tuning():
            value = fn()
        if parallel.program_entries() == seen:
            return value
    return None


def _loop() -> None:
    _lower_priority()
    while True:
        with _lock:
            while not _jobs:
                _lock.wait()
            key, job = _jobs.popleft()
            _running[0] += 1
        try:
            job(_sample)
        except Exception:         # noqa: BLE001 - the tuner only saves time: its shape keeps the fixed rule
            _LOG.warning("background convolution tuning failed for %r; the shape keeps the fixed rule", key,
                         exc_info=True)
        finally:
            with _lock:
                _running[0] -= 1
                _pending.discard(key)
                _lock.notify_all()
