"""Key-value stores, as ``mxnet.kvstore`` / ``mx.kv``: the single-process ``local`` and ``device`` stores.

MXNet's KVStore (``src/kvstore/kvstore_local.h``) keeps one copy of each key's value; ``push`` sums
the values pushed for a key (one per device) and, when an optimizer was set, runs the updater
``updater(key, summed_grad, stored_weight)`` on the stored copy, else stores the sum; ``pull`` copies the
stored value into every output. Everything runs in one process on the CPU here, so ``local`` and
``device`` behave alike (``type`` tells them apart) and ``rank`` is 0 of ``num_workers`` 1. The
distributed types (``dist_sync``, ``dist_device_sync``, ``dist_async``) run on Dask (``dist.py``);
``nccl`` and ``horovod`` are refused.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base import HybridizeError
from ..ndarray import NDArray

__all__ = ["KVStore", "KVStoreBase", "create"]


class KVStoreBase:
    """The interface MXNet's trainers use (``mxnet.kvstore.base.KVStoreBase``)."""

    OPTIMIZER = "optimizer"
    kv_registry: dict = {}

    @staticmethod
    def register(klass: type) -> type:
        """Registers a KVStore class under its lower-cased name, so that :func:`create` finds it."""
        KVStoreBase.kv_registry[klass.__name__.lower()] = klass
        return klass


def _pairs(key: Any, value: Any) -> list[tuple[Any, list]]:
    """(key, [values]) pairs from MXNet's key/value forms: one key with an NDArray or a list (one per
    device), or a list of keys with a list of such values."""
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            raise ValueError("key and value must be lists of the same length")
        return [p for k, v in zip(key, value) for p in _pairs(k, v)]
    vals = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in vals:
        if not isinstance(v, NDArray):
            raise TypeError(f"value for key {key!r} must be an NDArray or a list of NDArrays, got {type(v).__name__}")
    return [(key, vals)]


class KVStore(KVStoreBase):
    """A single-process key-value store (``mx.kv.create('local')``)."""

    def __init__(self, kv_type: str = "local"):
        self._type = kv_type
        self._store: dict = {}
        self._updater: Any = None
        self._updater_func: Any = None
        self._key_type: type | None = None
        self._compression: dict | None = None

    # -- MXNet's API ------------------------------------------------------------------------
    @property
    def type(self) -> str:
        return self._type

    @property
    def rank(self) -> int:
        return 0

    @property
    def num_workers(self) -> int:
        return 1

    def is_capable(self, capability: str) -> bool:
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError(f"Unknown capability: {capability}")

    def _check_key(self, key: Any) -> Any:
        kt = str if isinstance(key, str) else int
        if self._key_type is not None and kt is not self._key_type:
            raise HybridizeError("Mixed key types are not allowed")
        self._key_type = kt
        return key if kt is str else int(key)

    def init(self, key: Any, value: Any) -> None:
        """Stores a copy of each key's (first) value; a key may be initialized once."""
        for k, vals in _pairs(key, value):
            k = self._check_key(k)
            if k in self._store:
                raise HybridizeError(f"duplicate init of key {k}. Please double check if you called kv.init or "
                                     "kv.broadcast with this key multiple times")
            self._store[k] = NDArray(np.array(vals[0]._data, copy=True))

    def push(self, key: Any, value: Any, priority: int = 0) -> None:
        """Sums the values pushed for each key, then updates the stored value with the optimizer's
        updater (``set_optimizer``) or replaces it by the sum."""
        for k, vals in _pairs(key, value):
            k = self._check_key(k)
            merged = vals[0]._data.copy()
            for v in vals[1:]:
                merged = merged + v._data
            if self._updater is not None:
                if k not in self._store:
                    raise HybridizeError(f"key {k} has not been inited")
                self._updater(k, NDArray(merged.astype(vals[0]._data.dtype, copy=False)), self._store[k])
            else:
                self._store[k] = NDArray(merged)

    def pull(self, key: Any, out: Any = None, priority: int = 0, ignore_sparse: bool = True) -> None:
        """Copies each key's stored value into every output array."""
        assert out is not None
        for k, outs in _pairs(key, out):
            k = self._check_key(k)
            if k not in self._store:
                raise HybridizeError(f"key {k} has not been inited")
            for o in outs:
                o[:] = self._store[k]._data

    def pushpull(self, key: Any, value: Any, out: Any = None, priority: int = 0) -> None:
        """``push`` then ``pull`` (into ``value`` itself when ``out`` is None)."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key: Any, value: Any, out: Any, priority: int = 0) -> None:
        """``init`` with ``value`` then ``pull`` into ``out``."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key: Any, out: Any = None, priority: int = 0, row_ids: Any = None) -> None:
        """All rows (values are dense in this runtime)."""
        assert out is not None
        assert row_ids is not None
        self.pull(key, out, priority)

    def set_gradient_compression(self, compression_params: dict) -> None:
        if "device" in self.type or "dist" in self.type:
            self._compression = dict(compression_params)
        else:
            raise Exception("Gradient compression is not supported for this type of kvstore")

    def set_optimizer(self, optimizer: Any) -> None:
        """Updates stored values with ``optimizer`` on every push from now on."""
        from .. import optimizer as opt
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater: Any) -> None:
        self._updater = updater
        self._updater_func = updater

    def _barrier(self) -> None:
        pass

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        """Writes the updater's states (the runtime's states format, see ``optimizer/_states.py``)."""
        assert self._updater is not None, "Cannot save states for distributed training"
        from ...atomic import open_for_write
        with open_for_write(fname) as fout:
            fout.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname: str, allow_pickle: bool | None = None) -> None:
        """Reads states :meth:`save_optimizer_states` wrote (an MXNet pickle only with ``allow_pickle``)."""
        assert self._updater is not None, "Cannot load states for distributed training"
        from ..optimizer import _states
        with open(fname, "rb") as f:
            data = f.read()
        try:
            self._updater.set_states(data, allow_pickle=allow_pickle)
        except _states.StatesFormatError as e:
            raise _states.StatesFormatError(fname, e.problem) from None


@KVStoreBase.register
class TestStore(KVStoreBase):
    """MXNet's ``teststore`` (``mxnet/kvstore/base.py``): sums on ``pushpull``, no optimizer."""

    def broadcast(self, key: Any, value: Any, out: Any, priority: int = 0) -> None:
        for o in out if isinstance(out, list) else [out]:
            o[:] = value

    def pushpull(self, key: Any, value: Any, out: Any = None, priority: int = 0) -> None:
        if isinstance(value, NDArray):
            if out is not None:
                for o in out if isinstance(out, list) else [out]:
                    o[:] = value
            return
        reduced = value[0]._data.copy()
        for v in value[1:]:
            reduced = reduced + v._data
        for o in (value if out is None else out if isinstance(out, list) else [out]):
            o[:] = reduced

    @staticmethod
    def is_capable(capability: str) -> bool:
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    @property
    def type(self) -> str:
        return "teststore"

    @property
    def rank(self) -> int:
        return 0

    @property
    def num_workers(self) -> int:
        return 1

    def set_optimizer(self, optimizer: Any) -> None:
        raise NotImplementedError()

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        raise NotImplementedError()

    def load_optimizer_states(self, fname: str) -> None:
        raise NotImplementedError()


def create(name: str = "local") -> KVStoreBase:
    """A new KVStore: ``'local'`` or ``'device'`` (one process), or ``'dist_sync'``/``'dist_async'``
    inside a data-parallel job started by ``kvstore.dist.run`` (Dask)."""
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if name.startswith("dist"):
        from . import dist
        return dist.create(name)
    if name not in ("local", "device", "local_update_cpu", "local_allreduce_cpu", "local_allreduce_device"):
        raise HybridizeError(f"KVStore type {name!r} is not supported by the hybridize runtime ('local', 'device', "
                             "'dist_sync', 'dist_async')")
    return KVStore(name)
