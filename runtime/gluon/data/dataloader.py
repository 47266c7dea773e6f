"""``mxnet.gluon.data.DataLoader``: mini-batches from a Dataset, in order, optionally made by workers.

Follows MXNet 1.9.1 (same arguments, batches, order, ``last_batch`` handling, ``prefetch``,
``thread_pool``, ``timeout``, ``auto_reload``). Where MXNet uses ``multiprocessing.Pool`` (whose
workers, when one is killed, are silently replaced and the batch never arrives), the worker processes
here are our own so that a failure is one clear error instead of a hang:

- each worker is forked with the dataset and batchify function (nothing to pickle, lambdas work),
  receives batch indices on its own pipe and sends the pickled batch back on another;
- the parent waits on the result pipes *and* the workers' process sentinels, so a worker that raises
  gives ``DataLoaderWorkerError: DataLoader worker 1 (pid 123) raised ValueError: ...``, a worker killed
  by a signal gives ``... was killed by signal SIGKILL``, and no batch within ``timeout`` seconds
  gives ``... no batch within timeout=...``; the pool is then shut down;
- workers never outlive the parent: the kernel kills them when the parent dies (``PR_SET_PDEATHSIG``
  on Linux), they exit when their task pipe closes or their parent changes, and ``DataLoader`` shuts
  them down when it is collected or the interpreter exits.
"""
from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
import traceback
import weakref
from multiprocessing.pool import ThreadPool
from multiprocessing.reduction import ForkingPickler  # noqa: F401  # MXNet's module exposes it: gluon-nlp imports it from here

import numpy as np

from ... import context, nd
from ...base import DataLoaderWorkerError
from ...util import is_np_array, is_np_shape, set_np
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


def default_batchify_fn(data):
    """Collate samples into a batch: NDArrays are stacked, tuples batched field by field, anything
    else goes through ``numpy.asarray`` keeping its dtype (as MXNet)."""
    from ...util import is_np_array
    if isinstance(data[0], nd.NDArray):
        if is_np_array():  # np mode: an mx.np batch, as MXNet
            from ... import numpy as mx_np
            return mx_np.stack(data)
        return nd.stack(*data)
    elif isinstance(data[0], tuple):
        data = zip(*data)
        return [default_batchify_fn(i) for i in data]
    else:
        data = np.asarray(data)
        if is_np_array():
            from ... import numpy as mx_np
            return mx_np.array(data, dtype=data.dtype)
        return nd.array(data, dtype=data.dtype)


# MXNet's workers stack into shared memory; here the batch travels pickled, so collating is the same.
default_mp_batchify_fn = default_batchify_fn


def _as_in_context(data, ctx):
    """Move data into new context."""
    if isinstance(data, nd.NDArray):
        return data.as_in_context(ctx)
    elif isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


# -- worker processes -------------------------------------------------------------------------------

def _die_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux); elsewhere the worker's
    poll loop notices the parent change."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except Exception:
            pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(0)


def _worker_main(dataset, batchify_fn, task_conn, result_conn, parent_pid, np_shape, np_array):
    """A worker's life: batch indices in, pickled ``(task id, ok, batch or error)`` out."""
    _die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    set_np(shape=np_shape, array=np_array)
    while True:
        try:
            if not task_conn.poll(1.0):
                if os.getppid() != parent_pid:
                    os._exit(0)
                continue
            msg = task_conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if msg is None:
            os._exit(0)
        task_id, samples = msg
        try:
            batch = batchify_fn([dataset[i] for i in samples])
            payload = pickle.dumps((task_id, True, batch), pickle.HIGHEST_PROTOCOL)
        except BaseException as e:  # noqa: BLE001 - everything goes back to the parent
            text = str(e).strip().splitlines()
            payload = pickle.dumps((task_id, False, (type(e).__name__, text[0] if text else "",
                                                     traceback.format_exc())), pickle.HIGHEST_PROTOCOL)
        try:
            result_conn.send_bytes(payload)
        except (BrokenPipeError, OSError):
            os._exit(0)


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


class _WorkerPool:
    """``num_workers`` forked processes with one task pipe and one result pipe each.

    ``submit(samples)`` returns a task id; ``get(task_id, timeout)`` returns that batch or raises
    :class:`DataLoaderWorkerError` (a worker raised, died or was silent for ``timeout`` seconds).
    """

    _ids = itertools.count()

    def __init__(self, num_workers: int, dataset, batchify_fn):
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        self._workers = []  # (process, task sender, result receiver)
        self._done: dict = {}
        self._wanted: set = set()
        self._next = 0
        self._lock = threading.Lock()
        self.broken: str | None = None
        parent = os.getpid()
        old = signal.signal(signal.SIGINT, signal.SIG_IGN) if threading.current_thread() is threading.main_thread() else None
        try:
            for _ in range(num_workers):
                task_r, task_w = ctx.Pipe(duplex=False)
                res_r, res_w = ctx.Pipe(duplex=False)
                p = ctx.Process(target=_worker_main, daemon=True,
                                args=(dataset, batchify_fn, task_r, res_w, parent, is_np_shape(), is_np_array()))
                p.start()
                task_r.close()
                res_w.close()
                self._workers.append((p, task_w, res_r))
        finally:
            if old is not None:
                signal.signal(signal.SIGINT, old)
        self._finalizer = weakref.finalize(self, _WorkerPool._shutdown, list(self._workers))

    def submit(self, samples) -> int:
        task_id = next(self._ids)
        with self._lock:
            proc, conn, _ = self._workers[self._next % len(self._workers)]
            self._next += 1
            self._wanted.add(task_id)
            try:
                conn.send((task_id, list(samples)))
            except (BrokenPipeError, OSError):
                pass  # the worker is gone: get() reports how it died
        return task_id

    def cancel(self, task_id: int) -> None:
        with self._lock:
            self._wanted.discard(task_id)
            self._done.pop(task_id, None)

    def _fail(self, message: str, cause: str | None = None):
        self.broken = message
        self.terminate()
        err = DataLoaderWorkerError(message)
        err.worker_traceback = cause
        raise err

    def get(self, task_id: int, timeout: float):
        if self.broken:
            raise DataLoaderWorkerError(self.broken)
        import time
        deadline = time.monotonic() + timeout
        while task_id not in self._done:
            conns = {w[2]: (i, w[0]) for i, w in enumerate(self._workers)}
            sentinels = {w[0].sentinel: (i, w[0]) for i, w in enumerate(self._workers)}
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail(f"DataLoader workers sent no batch within timeout={timeout:g} s "
                           "(a slow or stuck dataset __getitem__/transform; raise `timeout` if it is just slow)")
            ready = multiprocessing.connection.wait(list(conns) + list(sentinels), min(left, 1.0))
            got = False
            for r in ready:
                if r in conns:
                    i, proc = conns[r]
                    try:
                        payload = r.recv_bytes()
                    except (EOFError, OSError):
                        continue  # the worker died: its sentinel says how
                    got = True
                    tid, ok, value = pickle.loads(payload)
                    if not ok:
                        name, msg, tb = value
                        self._fail(f"DataLoader worker {i} (pid {proc.pid}) raised {name}"
                                   + (f": {msg}" if msg else ""), tb)
                    with self._lock:
                        if tid in self._wanted:
                            self._done[tid] = value
            if got:
                continue
            for r in ready:
                if r in sentinels:
                    i, proc = sentinels[r]
                    proc.join(0.1)
                    code = proc.exitcode
                    how = (f"was killed by signal {_signal_name(-code)}" if code is not None and code < 0
                           else f"exited unexpectedly (exit code {code})")
                    self._fail(f"DataLoader worker {i} (pid {proc.pid}) {how}")
        with self._lock:
            self._wanted.discard(task_id)
            return self._done.pop(task_id)

    @staticmethod
    def _shutdown(workers) -> None:
        for p, conn, res in workers:
            try:
                conn.send(None)
            except Exception:
                pass
        for p, conn, res in workers:
            p.join(0.5)
            if p.is_alive():
                p.kill()
                p.join(1.0)
            for c in (conn, res):
                try:
                    c.close()
                except Exception:
                    pass

    def terminate(self) -> None:
        """Stops every worker now (they hold no state worth saving)."""
        for p, _, _ in self._workers:
            if p.is_alive():
                p.kill()
        self._finalizer()

    @property
    def pids(self) -> list[int]:
        return [p.pid for p, _, _ in self._workers]


def _thread_worker_initializer(active_shape, active_array):
    """Initializer for ThreadPool."""
    set_np(shape=active_shape, array=active_array)


def _thread_worker_fn(samples, batchify_fn, dataset):
    """Threadpool worker function for processing data."""
    return batchify_fn([dataset[i] for i in samples])


class _MultiWorkerIter:
    """One pass over the batch sampler with ``prefetch`` batches in flight, returned in order."""

    def __init__(self, worker_pool, batchify_fn, batch_sampler, pin_memory=False,
                 pin_device_id=0, prefetch=0, dataset=None, data_loader=None, timeout=120):
        self._worker_pool = worker_pool
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._data_buffer: dict = {}
        self._rcvd_idx = 0
        self._sent_idx = 0
        self._iter = iter(self._batch_sampler)
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._dataset = dataset
        self._data_loader = data_loader
        self._timeout = timeout
        for _ in range(prefetch):
            self._push_next()

    def __len__(self):
        return len(self._batch_sampler)

    def _push_next(self):
        """Assign next batch workload to workers."""
        r = next(self._iter, None)
        if r is None:
            return
        if isinstance(self._worker_pool, _WorkerPool):
            ret = self._worker_pool.submit(r)
        else:
            ret = self._worker_pool.apply_async(_thread_worker_fn, (r, self._batchify_fn, self._dataset))
        self._data_buffer[self._sent_idx] = ret
        self._sent_idx += 1

    def __next__(self):
        self._push_next()
        if self._rcvd_idx == self._sent_idx:
            assert not self._data_buffer, "Data buffer should be empty at this moment"
            raise StopIteration
        ret = self._data_buffer.pop(self._rcvd_idx)
        if isinstance(self._worker_pool, _WorkerPool):
            batch = self._worker_pool.get(ret, self._timeout)
        else:
            try:
                batch = ret.get(self._timeout)
            except multiprocessing.TimeoutError:
                raise DataLoaderWorkerError(f"DataLoader thread workers sent no batch within "
                                            f"timeout={self._timeout:g} s") from None
        if self._pin_memory:
            batch = _as_in_context(batch, context.cpu_pinned(self._pin_device_id))
        self._rcvd_idx += 1
        return batch

    def next(self):
        return self.__next__()

    def __iter__(self):
        return self

    def __del__(self):
        pool = self._worker_pool
        if isinstance(pool, _WorkerPool):
            for tid in self._data_buffer.values():
                pool.cancel(tid)


class DataLoader:
    """Loads data from a dataset and returns mini-batches of data (``mxnet.gluon.data.DataLoader``).

    Parameters as MXNet 1.9.1: ``dataset``, ``batch_size``, ``shuffle``, ``sampler``, ``last_batch``
    ('keep', 'discard', 'rollover'), ``batch_sampler``, ``batchify_fn``, ``num_workers`` (worker
    processes, see the module docstring), ``pin_memory``, ``pin_device_id``, ``prefetch`` (batches in
    flight, default ``2 * num_workers``), ``thread_pool`` (threads instead of processes), ``timeout``
    (seconds to wait for one batch), ``auto_reload`` (start prefetching the next epoch at once).
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None,
                 num_workers=0, pin_memory=False, pin_device_id=0,
                 prefetch=None, thread_pool=False, timeout=120, auto_reload=False):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        assert timeout > 0, f"timeout must be positive, given {timeout}"

        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless "
                                 "batch_sampler is specified")
            if sampler is None:
                if shuffle:
                    sampler = RandomSampler(len(dataset))
                else:
                    sampler = SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")

            batch_sampler = BatchSampler(
                sampler, batch_size, last_batch if last_batch else 'keep')
        elif batch_size is not None or shuffle or sampler is not None or \
                last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must "
                             "not be specified if batch_sampler is specified.")

        self._batch_sampler = batch_sampler
        self._num_workers = max(num_workers, 0)
        self._worker_pool = None
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        if batchify_fn is None:
            self._batchify_fn = default_mp_batchify_fn if num_workers > 0 else default_batchify_fn
        else:
            self._batchify_fn = batchify_fn
        if self._num_workers > 0:
            self._start_pool()
        self.auto_reload = auto_reload
        if self.auto_reload:
            self.refresh()
        else:
            self.clean()  # ensure self._iter exists.

    def _start_pool(self):
        if self._thread_pool:
            self._worker_pool = ThreadPool(self._num_workers, initializer=_thread_worker_initializer,
                                           initargs=(is_np_shape(), is_np_array()))
        else:
            self._worker_pool = _WorkerPool(self._num_workers, self._dataset, self._batchify_fn)

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        t = self._iter
        self._iter = None  # ensure a single iter would not using twice.
        for item in t:
            yield item
        if self._iter is None and self.auto_reload:
            self.refresh()

    def _prefetch_iter(self):
        if self._num_workers == 0:
            def same_process_iter():
                for batch in self._batch_sampler:
                    ret = self._batchify_fn([self._dataset[idx] for idx in batch])
                    if self._pin_memory:
                        ret = _as_in_context(ret, context.cpu_pinned(self._pin_device_id))
                    yield ret
            return same_process_iter()
        if isinstance(self._worker_pool, _WorkerPool) and self._worker_pool.broken:
            self._start_pool()  # a failed epoch does not poison the next one
        return _MultiWorkerIter(self._worker_pool, self._batchify_fn, self._batch_sampler,
                                pin_memory=self._pin_memory, pin_device_id=self._pin_device_id,
                                prefetch=self._prefetch,
                                dataset=self._dataset if self._thread_pool else None,
                                data_loader=self, timeout=self._timeout)

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pool = getattr(self, "_worker_pool", None)
        if pool is not None:
            pool.terminate()

    def refresh(self):
        """Refresh its iter, fetch data again from its dataset"""
        self._iter = self._prefetch_iter()

    def clean(self):
        """Remove its prefetched iter, the prefetch step will start after call its __iter__()"""
        self._iter = None
