"""Data-parallel training across processes: MXNet's ``dist_sync`` / ``dist_async`` KVStore on Dask.

MXNet's distributed KVStore (ps-lite) has three roles: a scheduler that introduces the processes, a
server that holds every key's value, and the workers that run the training script. Dask's
``distributed`` provides all three here, nothing home-made on the wire: the Dask scheduler, a Dask
*actor* as the server (:class:`ParameterServer`, living in one worker process, its methods running
on that process's event loop) and one Dask task per training process (:func:`run`, the launcher,
gives each its rank). Inside a task ``mx.kv.create('dist_sync')`` (and so ``gluon.Trainer(...,
kvstore='dist_sync')`` or ``Module.fit(kvstore='dist_sync')``) returns a :class:`DistKVStore`
talking to that server.

What the server does is what MXNet's ``kvstore_dist_server.h`` does:

- ``init``: rank 0's value is stored, then every worker waits at a barrier (so ``broadcast`` gives
  every worker rank 0's initial parameters);
- ``push`` in sync mode: the server waits for one push of the key from every worker, **sums** them
  (in rank order here, so the result does not depend on arrival order) and then either runs the
  optimizer the workers sent (``set_optimizer``: the gradient's ``rescale_grad`` is the optimizer's,
  e.g. ``1/batch_size`` from ``Trainer.step(batch_size)``) on the stored weight, or stores the sum;
  in async mode every push is applied at once;
- ``pull`` returns the stored value.

A worker that raises stops the job: the server fails every waiting call, so no worker waits forever
for a peer, and :func:`run` raises one :class:`DistributedTrainingError` naming the rank.
:func:`launch` (``python -m hybridize.runtime.kvstore.dist -n 2 train.py``) runs an unchanged
script as the ranks, as MXNet's ``tools/launch.py`` does.
"""
from __future__ import annotations

import asyncio
import pickle
import uuid
from typing import Any, Callable

import numpy as np

from ..base import DistributedTrainingError
from ..ndarray import NDArray
from . import KVStoreBase, _pairs

__all__ = ["DistKVStore", "ParameterServer", "run", "launch", "current_rank"]

_ABORTED = "the data-parallel job was stopped: "


class ParameterServer:
    """The server of one data-parallel job (a Dask actor; every method is a coroutine, so it runs on
    the hosting worker's event loop even while that worker's thread trains)."""

    def __init__(self, num_workers: int, sync: bool = True):
        self._n = num_workers
        self._sync = sync
        self._store: dict = {}
        self._updater: Any = None
        self._rounds: dict = {}           # key -> (values by rank, future resolved when all pushed)
        self._barrier: tuple[set, Any] | None = None
        self._failure: str | None = None

    def _check(self) -> None:
        if self._failure is not None:
            raise DistributedTrainingError(_ABORTED + self._failure)

    def _future(self) -> asyncio.Future:
        return asyncio.get_running_loop().create_future()

    async def _wait(self, futures: list) -> None:
        for f in futures:
            await f
        self._check()

    async def init(self, keys: list, values: list) -> None:
        self._check()
        for k, v in zip(keys, values):
            self._store[k] = NDArray(np.array(v, copy=True))

    async def set_optimizer(self, blob: bytes) -> None:
        """Updates stored values with this (pickled) optimizer from now on, as MXNet's server does on
        the ``kController`` command every worker sends."""
        from .. import optimizer as opt
        self._check()
        self._updater = opt.get_updater(pickle.loads(blob))

    def _apply(self, key: Any, grad: np.ndarray) -> None:
        if self._updater is not None:
            if key not in self._store:
                raise DistributedTrainingError(f"key {key} has not been inited")
            self._updater(key, NDArray(grad), self._store[key])
        else:
            self._store[key] = NDArray(grad)

    async def push(self, keys: list, values: list, rank: int) -> None:
        """Adds this worker's values; returns when every key's round is complete (sync mode)."""
        self._check()
        waits = []
        for k, v in zip(keys, values):
            if not self._sync:
                self._apply(k, v)
                continue
            if k not in self._rounds:
                self._rounds[k] = ({}, self._future())
            got, done = self._rounds[k]
            if rank in got:
                raise DistributedTrainingError(f"rank {rank} pushed key {k} twice in one round")
            got[rank] = v
            if len(got) == self._n:
                del self._rounds[k]
                merged = got[0].copy()
                for r in range(1, self._n):
                    merged += got[r]
                try:
                    self._apply(k, merged)
                except Exception as e:
                    done.set_exception(e)
                    raise
                done.set_result(None)
            waits.append(done)
        await self._wait(waits)

    async def pull(self, keys: list) -> list:
        self._check()
        missing = [k for k in keys if k not in self._store]
        if missing:
            raise DistributedTrainingError(f"key {missing[0]} has not been inited")
        return [self._store[k]._data for k in keys]

    async def pushpull(self, keys: list, values: list, rank: int) -> list:
        await self.push(keys, values, rank)
        return await self.pull(keys)

    async def barrier(self, rank: int) -> None:
        self._check()
        if self._barrier is None:
            self._barrier = (set(), self._future())
        ranks, done = self._barrier
        ranks.add(rank)
        if len(ranks) == self._n:
            self._barrier = None
            done.set_result(None)
        await self._wait([done])

    async def abort(self, reason: str) -> None:
        """Fails every waiting call and every later one with ``reason``."""
        if self._failure is None:
            self._failure = reason
        err = DistributedTrainingError(_ABORTED + self._failure)
        waiting = [done for _, done in self._rounds.values()]
        if self._barrier is not None:
            waiting.append(self._barrier[1])
        for done in waiting:
            if not done.done():
                done.set_exception(err)
        self._rounds.clear()
        self._barrier = None


class _Job:
    """What a training process knows about its job: its rank, the number of workers, the server."""

    def __init__(self, rank: int, num_workers: int, server: Any, sync: bool):
        self.rank, self.num_workers, self.server, self.sync = rank, num_workers, server, sync


_JOB: _Job | None = None


def current_rank() -> int | None:
    """This process's rank in the running data-parallel job, or None outside one."""
    return None if _JOB is None else _JOB.rank


class DistKVStore(KVStoreBase):
    """``mx.kv.create('dist_sync')`` inside a job started by :func:`run`: MXNet's distributed KVStore
    API (``rank``, ``num_workers``, ``init``/``push``/``pull``/``pushpull``/``broadcast``,
    ``set_optimizer``, ``_barrier``) backed by the job's :class:`ParameterServer`."""

    def __init__(self, kv_type: str, job: _Job):
        self._type = kv_type
        self._job = job
        self._inited: set = set()
        self._key_type: type | None = None
        self._compression: dict | None = None
        self._updater = None   # the optimizer runs on the server, as in MXNet

    @property
    def type(self) -> str:
        return self._type

    @property
    def rank(self) -> int:
        return self._job.rank

    @property
    def num_workers(self) -> int:
        return self._job.num_workers

    def is_capable(self, capability: str) -> bool:
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError(f"Unknown capability: {capability}")

    def _call(self, method: str, *args: Any) -> Any:
        return getattr(self._job.server, method)(*args).result()

    def _keys(self, key: Any, value: Any) -> tuple[list, list]:
        keys, vals = [], []
        for k, vs in _pairs(key, value):
            kt = str if isinstance(k, str) else int
            if self._key_type is not None and kt is not self._key_type:
                raise DistributedTrainingError("Mixed key types are not allowed")
            self._key_type = kt
            keys.append(k if kt is str else int(k))
            vals.append(vs)
        return keys, vals

    def init(self, key: Any, value: Any) -> None:
        """Rank 0's values become the stored ones; every worker then waits for the others."""
        keys, vals = self._keys(key, value)
        for k in keys:
            if k in self._inited:
                raise DistributedTrainingError(f"duplicate init of key {k}")
            self._inited.add(k)
        if self.rank == 0:
            self._call("init", keys, [vs[0]._data for vs in vals])
        self._barrier()

    def push(self, key: Any, value: Any, priority: int = 0) -> None:
        """Sums this worker's values of each key (one per device), then adds them at the server."""
        keys, vals = self._keys(key, value)
        self._call("push", keys, [_local_sum(vs) for vs in vals], self.rank)

    def pull(self, key: Any, out: Any = None, priority: int = 0, ignore_sparse: bool = True) -> None:
        assert out is not None
        keys, outs = self._keys(key, out)
        for arr, os_ in zip(self._call("pull", keys), outs):
            for o in os_:
                o[:] = arr

    def pushpull(self, key: Any, value: Any, out: Any = None, priority: int = 0) -> None:
        """``push`` then ``pull`` (into ``value`` when ``out`` is None) in one call to the server."""
        keys, vals = self._keys(key, value)
        _, outs = self._keys(key, value if out is None else out)
        got = self._call("pushpull", keys, [_local_sum(vs) for vs in vals], self.rank)
        for arr, os_ in zip(got, outs):
            for o in os_:
                o[:] = arr

    def broadcast(self, key: Any, value: Any, out: Any, priority: int = 0) -> None:
        """``init`` (rank 0's value) then ``pull`` into ``out``."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key: Any, out: Any = None, priority: int = 0, row_ids: Any = None) -> None:
        """All rows (values are dense in this runtime)."""
        assert row_ids is not None
        self.pull(key, out, priority)

    def set_gradient_compression(self, compression_params: dict) -> None:
        self._compression = dict(compression_params)

    def set_optimizer(self, optimizer: Any) -> None:
        """Sends the optimizer (pickled, without its ``param_dict``, as MXNet) to the server, which
        then updates the stored weights with the summed gradients."""
        self._call("set_optimizer", pickle.dumps(optimizer))

    def _barrier(self) -> None:
        self._call("barrier", self.rank)

    def _send_command_to_servers(self, head: int, body: str) -> None:
        if head == 0:
            self._call("set_optimizer", pickle.dumps(pickle.loads(body.encode("latin-1") if isinstance(body, str)
                                                                  else body)))

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        raise AssertionError("Cannot save states for distributed training")

    def load_optimizer_states(self, fname: str, allow_pickle: bool | None = None) -> None:
        raise AssertionError("Cannot load states for distributed training")


def _local_sum(vals: list) -> np.ndarray:
    merged = np.array(vals[0]._data, copy=True)
    for v in vals[1:]:
        merged = merged + v._data
    return merged


def create(name: str) -> DistKVStore:
    """The job's store; outside a job started by :func:`run`, one clear error."""
    if _JOB is None:
        raise DistributedTrainingError(
            f"KVStore {name!r} needs a data-parallel job: start the training function with "
            "hybridize.runtime.kvstore.dist.run(fn, client=...) on a Dask cluster (pip install 'hybridize[distributed]')")
    if ("async" in name) == _JOB.sync:
        raise DistributedTrainingError(f"KVStore {name!r} in a job started with "
                                       f"kvstore={'dist_sync' if _JOB.sync else 'dist_async'!r}")
    return DistKVStore(name, _JOB)


def _rank_main(fn: Callable, rank: int, num_workers: int, server: Any, sync: bool,
               args: tuple, kwargs: dict) -> Any:
    """One training process: ``fn`` with the job set; an exception stops the other ranks."""
    global _JOB
    _JOB = _Job(rank, num_workers, server, sync)
    try:
        return fn(*args, **kwargs)
    except BaseException as e:
        if not (isinstance(e, DistributedTrainingError) and str(e).startswith(_ABORTED)):
            line = (str(e).strip().splitlines() or [""])[0]
            _abort(server, f"rank {rank} raised {type(e).__name__}: {line}")
        raise
    finally:
        _JOB = None


def run(fn: Callable, *args: Any, client: Any = None, num_workers: int | None = None,
        kvstore: str = "dist_sync", **kwargs: Any) -> list:
    """Runs ``fn(*args, **kwargs)`` as ranks 0 .. num_workers-1 of one data-parallel job, each in its
    own Dask worker process (MXNet: ``tools/launch.py -n N``), and returns their results by rank.

    ``client`` is a ``distributed.Client`` (default: the current one); ``num_workers`` defaults to
    every worker of the cluster, each rank gets a distinct worker (give them one thread each). Inside
    ``fn``, ``mx.kv.create(kvstore)`` is the job's store. ``fn`` and its arguments are pickled to
    the workers (cloudpickle: functions of the main script travel by value). When a rank raises, or
    its worker process dies, every rank is stopped and one :class:`DistributedTrainingError` says
    which rank and why (``err.rank``; ``err.__cause__`` is the rank's own exception)."""
    import distributed

    if not kvstore.startswith("dist"):
        raise ValueError(f"kvstore must be a distributed type ('dist_sync', 'dist_async'), got {kvstore!r}")
    client = client if client is not None else distributed.get_client()
    workers = sorted(client.scheduler_info()["workers"])
    n = len(workers) if num_workers is None else int(num_workers)
    if not 1 <= n <= len(workers):
        raise DistributedTrainingError(f"num_workers={n}: the Dask cluster has {len(workers)} worker(s), "
                                       "each rank needs its own worker process")
    chosen = workers[:n]
    sync = "async" not in kvstore
    tag = uuid.uuid4().hex[:8]
    server_future = client.submit(ParameterServer, n, sync, actor=True, workers=[chosen[0]],
                                  key=f"hybridize-kvstore-server-{tag}")
    server = server_future.result()
    futures = [client.submit(_rank_main, fn, rank, n, server, sync, args, kwargs, workers=[w],
                             allow_other_workers=False, pure=False, key=f"hybridize-rank{rank}-{tag}")
               for rank, w in enumerate(chosen)]
    try:
        return _gather(client, futures, chosen, server)
    except BaseException as e:           # a failure, or Ctrl-C in the driver: release the waiting ranks
        _abort(server, f"the driver stopped: {type(e).__name__}")
        raise
    finally:
        client.cancel(futures)
        del server, server_future


def _abort(server: Any, reason: str) -> None:
    try:
        server.abort(reason).result(timeout=10)
    except Exception:    # the server's process is gone: nothing waits on it
        pass


def _gather(client: Any, futures: list, workers: list, server: Any) -> list:
    """The ranks' results; the first failure (a rank's own error, not the stop it caused in the
    others) or a worker process that left the cluster becomes one DistributedTrainingError."""
    import distributed

    while True:
        pending = _wait_some(distributed, futures)
        if any(f.status == "error" for f in futures):
            _raise_first_failure(futures)
        if not pending:
            return [f.result() for f in futures]
        alive = set(client.scheduler_info()["workers"])
        for rank, (f, w) in enumerate(zip(futures, workers)):
            if f.status == "pending" and w not in alive:
                reason = f"rank {rank}'s Dask worker {w} left the cluster (its process died or was killed)"
                _abort(server, reason)
                err = DistributedTrainingError(reason)
                err.rank = rank
                raise err


def _wait_some(distributed: Any, futures: list) -> list:
    """The futures still pending after at most half a second (or as soon as one more finishes)."""
    pending = [f for f in futures if not f.done()]
    if pending:
        try:
            distributed.wait(pending, timeout=0.5, return_when="FIRST_COMPLETED")
        except (TimeoutError, distributed.TimeoutError):
            pass
    return [f for f in futures if not f.done()]


def _raise_first_failure(futures: list) -> None:
    """Waits a moment for the other ranks to stop, then raises the root failure: the lowest rank
    whose error is its own rather than the stop another rank's error caused."""
    import distributed

    try:
        distributed.wait(futures, timeout=10)
    except (TimeoutError, distributed.TimeoutError):
        pass
    errors = [(rank, f.exception()) for rank, f in enumerate(futures) if f.status == "error"]
    own = [(r, e) for r, e in errors if not (isinstance(e, DistributedTrainingError) and str(e).startswith(_ABORTED))]
    rank, exc = (own or errors)[0]
    line = (str(exc).strip().splitlines() or [""])[0]
    err = DistributedTrainingError(f"rank {rank} raised {type(exc).__name__}: {line}" if own else line)
    err.rank = rank
    raise err from exc


def _run_script(source: str, path: str, argv: list) -> None:
    """One rank of ``launch``: the script's code run as ``__main__`` with its arguments."""
    import os
    import sys

    code = compile(source, path, "exec")
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path] + list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        exec(code, {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__})
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def launch(argv: list | None = None) -> int:
    """``python -m hybridize.runtime.kvstore.dist -n N [--scheduler ADDRESS] script.py [args ...]``:
    runs an unchanged training script as the N ranks of one job, as MXNet's ``tools/launch.py -n N
    python script.py`` does; without ``--scheduler`` on a local cluster of N processes (one thread
    each) whose output is this terminal's. The script is read here and sent to the workers."""
    import argparse
    import logging
    import sys

    import distributed

    # as `python -m`, this file is __main__: reach the functions through the importable module,
    # whose globals (the job a rank runs in) are the ones mx.kv.create reads on the workers
    from . import dist as this

    parser = argparse.ArgumentParser(prog="python -m hybridize.runtime.kvstore.dist",
                                     description="Run a training script as the ranks of a data-parallel job on Dask.")
    parser.add_argument("-n", "--num-workers", type=int, required=True, help="number of ranks (worker processes)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
    parser.add_argument("--kvstore", default="dist_sync", help="dist_sync (default) or dist_async")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    opts = parser.parse_args(argv)
    try:
        with open(opts.script, encoding="utf-8") as f:
            source = f.read()
    except OSError as e:
        print(f"error: {opts.script}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        if opts.scheduler:
            with distributed.Client(opts.scheduler) as client:
                this.run(this._run_script, source, opts.script, opts.args, client=client,
                         num_workers=opts.num_workers, kvstore=opts.kvstore)
        else:   # the failing rank is reported below in one line: not by the workers' logs as well
            with distributed.LocalCluster(n_workers=opts.num_workers, threads_per_worker=1, processes=True,
                                          dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, \
                    distributed.Client(cluster) as client:
                this.run(this._run_script, source, opts.script, opts.args, client=client,
                         num_workers=opts.num_workers, kvstore=opts.kvstore)
    except DistributedTrainingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(launch())
