"""Row-chunk parallelism for the compiled program's big kernels.

numpy's OpenBLAS threads busy-wait for each other; on a loaded machine (more runnable threads
than cores) one descheduled BLAS thread stalls a whole matmul for a scheduler time slice, and
small matmuls become 10-50x slower. The compiled program therefore runs BLAS single-threaded
while it executes (see :func:`blas_single_threaded`) and parallelizes its large kernels itself:
a kernel splits its output rows into chunks, and the calling thread plus the pool's workers grab
chunks from a shared counter. The caller never waits for a chunk nobody started, so a
descheduled worker delays at most the one chunk it holds; numpy releases the GIL inside
matmul, copies and ufunc loops, so chunks really run in parallel.

``HYBRIDIZE_THREADS`` sets the number of threads (default: the CPUs in the process's affinity
mask, at most 16; 1 disables the pool and leaves BLAS alone).
"""
from __future__ import annotations

import itertools
import os
import queue
import threading
from typing import Callable

__all__ = ["run_chunks", "num_threads", "blas_single_threaded", "chunks_for"]


def num_threads() -> int:
    """``HYBRIDIZE_THREADS``, else the CPUs this process may run on (its affinity mask, which
    containers and ``taskset`` restrict; ``os.cpu_count()`` counts the host's), at most 16."""
    try:
        n = int(os.environ.get("HYBRIDIZE_THREADS", "0"))
    except ValueError:
        n = 0
    if n > 0:
        return n
    try:
        avail = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        avail = os.cpu_count() or 1
    return max(1, min(avail, 16))


class _Task:
    __slots__ = ("fn", "n", "counter", "done", "lock", "event", "error")

    def __init__(self, fn: Callable[[int], None], n: int):
        self.fn, self.n = fn, n
        self.counter = itertools.count()
        self.done = 0
        self.lock = threading.Lock()
        self.event = threading.Event()
        self.error: BaseException | None = None

    def work(self) -> None:
        n, fn = self.n, self.fn
        while True:
            i = next(self.counter)          # atomic under the GIL
            if i >= n:
                return
            try:
                fn(i)
            except BaseException as e:      # re-raised in the caller
                self.error = e
            with self.lock:
                self.done += 1
                if self.done == n:
                    self.event.set()


class _Pool:
    def __init__(self, workers: int):
        self.q: queue.SimpleQueue = queue.SimpleQueue()
        self.workers = workers
        for i in range(workers):
            threading.Thread(target=self._loop, name=f"hybridize-worker-{i}", daemon=True).start()

    def _loop(self) -> None:
        while True:
            self.q.get().work()


_pool: _Pool | None = None
_pool_lock = threading.Lock()


def _get_pool() -> _Pool | None:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                n = num_threads()
                if n <= 1:
                    return None
                _pool = _Pool(n - 1)
    return _pool


def run_chunks(fn: Callable[[int], None], n: int) -> None:
    """Runs ``fn(0) ... fn(n - 1)``, in parallel on the pool (the caller takes part)."""
    pool = _get_pool() if n > 1 else None
    if pool is None:
        for i in range(n):
            fn(i)
        return
    task = _Task(fn, n)
    for _ in range(min(pool.workers, n - 1)):
        pool.q.put(task)
    task.work()
    task.event.wait()
    if task.error is not None:
        raise task.error


def matmul_chunks(work: float, rows: int, min_work: float) -> int:
    """Row (or batch) chunks for the pool to split a matmul into: one per thread (each chunk packs
    the other operand again in BLAS: more chunks cost more than their balancing gains)."""
    return min(chunks_for(work, rows, min_work), num_threads())


def chunks_for(work: float, rows: int, min_work: float = 4e6) -> int:
    """How many row chunks a kernel doing ``work`` (multiply-adds or element ops) should use."""
    t = num_threads()
    if t <= 1 or work < min_work or rows < 2:
        return 1
    return int(min(rows, 2 * t if work < 8 * min_work else 4 * t))


# -- BLAS thread count while a compiled program runs ------------------------------------------------
_blas_lock = threading.Lock()
_blas_users = 0
_blas_saved: int | None = None
_blas_fns: tuple | None = None


def _blas_functions() -> tuple:
    """``(set_num_threads(n), get_num_threads())`` of the OpenBLAS numpy loaded, process-wide, or
    ``(None, None)``. The library is the one a numpy wheel bundles (``numpy.libs``, where
    ``kernels/blas.py`` finds it too), else whatever threadpoolctl finds among the loaded libraries
    (whatever its file is called): threadpoolctl's import and library scan cost 10-30 ms of the first
    compile, so the bundled file is tried first. The two functions are called directly:
    threadpoolctl's own OpenBLAS controller lets only the first Python thread that used it change
    the count, and a compiled program is entered from any thread (the first one in sets one thread,
    the last one out restores the count)."""
    global _blas_fns
    if _blas_fns is None:
        found = _blas_functions_in(_bundled_openblas())
        if found[0] is None:
            try:
                import numpy  # noqa: F401  (loads its BLAS, which threadpoolctl finds among loaded libraries)
                from threadpoolctl import threadpool_info
                found = _blas_functions_in([i["filepath"] for i in threadpool_info()
                                            if i.get("internal_api") == "openblas"])
            except Exception:  # noqa: BLE001  (no BLAS threadpoolctl knows: run as numpy does)
                pass
        _blas_fns = found
    return _blas_fns


def _bundled_openblas() -> list[str]:
    import glob

    import numpy as np
    here = os.path.dirname(np.__file__)
    return glob.glob(os.path.join(os.path.dirname(here), "numpy.libs", "*openblas*")) + \
        glob.glob(os.path.join(here, ".libs", "*openblas*"))


def _blas_functions_in(paths: list[str]) -> tuple:
    import ctypes
    for path in paths:
        try:
            dll = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_openblas", "64_"), ("scipy_openblas", ""), ("openblas", "64_"),
                               ("openblas", "")):
            setter = getattr(dll, f"{prefix}_set_num_threads{suffix}", None)
            getter = getattr(dll, f"{prefix}_get_num_threads{suffix}", None)
            if setter is not None and getter is not None:
                getter.restype = ctypes.c_int
                return (setter, getter)
    return (None, None)


_entries = [0]                   # blas_single_threaded entries outside the background tuner
_tuner = threading.local()


def program_entries() -> int:
    """A counter that moves whenever a compiled program call (or a compile's prologue or timing)
    starts: the background tuner's sign that a sample was disturbed (``conv/background.py``)."""
    return _entries[0]


def programs_running() -> bool:
    return _blas_users > 0


class tuning:
    """Context of the background tuner's own samples: they do not count as program entries."""

    def __enter__(self) -> None:
        _tuner.on = True

    def __exit__(self, *exc: object) -> None:
        _tuner.on = False


class blas_single_threaded:
    """Context: BLAS runs single-threaded (first entering thread saves the count, last one out
    restores it). A no-op when the pool is disabled or OpenBLAS is not found."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _blas_users, _blas_saved
        if not getattr(_tuner, "on", False):
            _entries[0] += 1
        setter, getter = _blas_functions()
        if setter is None:
            return
        with _blas_lock:
            if _blas_users == 0:
                _blas_saved = getter()
                setter(1)
            _blas_users += 1

    def __exit__(self, *exc: object) -> None:
        global _blas_users
        setter, _ = _blas_functions()
        if setter is None:
            return
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0 and _blas_saved is not None:
                setter(_blas_saved)
