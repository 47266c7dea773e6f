"""Optimizer-state files that execute nothing when read.

MXNet's ``Updater.get_states`` (and so ``Trainer.save_states`` / ``KVStore.save_optimizer_states``) writes
a pickle: loading one runs whatever the file says. The runtime writes MXNet's ``.params`` format instead
(the NDArray-list bytes :mod:`..graph.params` reads with every size checked), holding each state array
under ``s<i>`` and a JSON header under :data:`HEADER_KEY` (a uint8 array) that describes the nesting:
``{"format": ..., "states": [[index, value], ...], "optimizer": {...} | null, "params": [...]}`` with
values encoded by :func:`encode` (numbers, strings, lists, tuples, dicts with typed keys, ``None``,
arrays by reference). The optimizer is rebuilt from its registered class name and attributes; nothing
else is looked up by name, so a hostile file can at worst fail to load.

Reading an MXNet pickle is possible only when asked for explicitly (``allow_pickle=True`` or the
environment variable :data:`PICKLE_ENV` = ``1``), because that runs the pickle.
"""
from __future__ import annotations

import importlib
import io
import json
import os
import pickle
from typing import Any

import numpy as np

from ..base import LoadError
from ..ndarray import NDArray

FORMAT = "hybridize-optimizer-states/1"
HEADER_KEY = "__hybridize_optimizer_states__"
PICKLE_ENV = "HYBRIDIZE_ALLOW_PICKLE_STATES"

__all__ = ["FORMAT", "HEADER_KEY", "PICKLE_ENV", "StatesFormatError", "dumps", "loads"]


class StatesFormatError(LoadError, ValueError):
    """An optimizer-states file that cannot be read as such (not ours, a refused pickle, corrupt)."""


def encode(value: Any, arrays: list) -> Any:
    """A JSON-able form of ``value``; NDArrays/numpy arrays go to ``arrays`` and are referenced."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return f if np.isfinite(f) else {"float": repr(f)}
    if isinstance(value, (NDArray, np.ndarray)):
        arrays.append(value.asnumpy() if isinstance(value, NDArray) else value)
        return {"array": len(arrays) - 1, "nd": isinstance(value, NDArray)}
    if isinstance(value, tuple):
        return {"tuple": [encode(v, arrays) for v in value]}
    if isinstance(value, list):
        return [encode(v, arrays) for v in value]
    if isinstance(value, dict):
        return {"dict": [[encode(k, arrays), encode(v, arrays)] for k, v in value.items()]}
    if hasattr(value, "__dict__") and type(value).__name__ in _scheduler_classes():
        return {"lr_scheduler": type(value).__name__, "attrs": encode(dict(vars(value)), arrays)}
    raise TypeError(f"cannot store a {type(value).__name__} in an optimizer-states file")


def decode(value: Any, arrays: list) -> Any:
    if isinstance(value, list):
        return [decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if "float" in value:
        return float(value["float"])
    if "array" in value:
        a = np.array(arrays[int(value["array"])])
        return NDArray(a) if value.get("nd", True) else a
    if "tuple" in value:
        return tuple(decode(v, arrays) for v in value["tuple"])
    if "dict" in value:
        return {_key(decode(k, arrays)): decode(v, arrays) for k, v in value["dict"]}
    if "lr_scheduler" in value:
        classes = _scheduler_classes()
        if value["lr_scheduler"] not in classes:
            raise ValueError(f"unknown lr_scheduler class {value['lr_scheduler']!r}")
        obj = object.__new__(classes[value["lr_scheduler"]])
        obj.__dict__.update(decode(value["attrs"], arrays))
        return obj
    raise ValueError(f"unknown entry {sorted(value)!r}")


def _key(k: Any) -> Any:
    return tuple(k) if isinstance(k, list) else k


def _scheduler_classes() -> dict:
    from .. import lr_scheduler
    return {c.__name__: c for c in vars(lr_scheduler).values()
            if isinstance(c, type) and issubclass(c, lr_scheduler.LRScheduler)}


def _optimizer_state(optimizer: Any, arrays: list) -> dict:
    attrs = {k: v for k, v in vars(optimizer).items() if k not in ("param_dict", "sym_info", "_index_update_count")}
    # _index_update_count is one of _all_index_update_counts' dicts: stored as the device id it is
    current = next((d for d, counts in optimizer._all_index_update_counts.items()
                    if counts is optimizer._index_update_count), 0)
    return {"class": type(optimizer).__name__.lower(), "attrs": encode(attrs, arrays), "current_device": current}


def _optimizer_from(state: dict, arrays: list) -> Any:
    from .optimizer import Optimizer
    name = state["class"]
    if name not in Optimizer.opt_registry:
        raise ValueError(f"unknown optimizer {name!r}")
    opt = object.__new__(Optimizer.opt_registry[name])
    opt.__dict__.update(decode(state["attrs"], arrays))
    opt.__dict__.setdefault("_all_index_update_counts", {0: {}})
    opt._index_update_count = opt._all_index_update_counts.setdefault(state.get("current_device", 0), {})
    opt.sym_info = ()
    opt.param_dict = {}
    return opt


class _MXNetUnpickler(pickle.Unpickler):
    """Unpickles an MXNet states file with the runtime's classes: ``mxnet.optimizer.optimizer.Adam`` is
    ``hybridize.runtime.optimizer.optimizer.Adam``, ``mxnet.ndarray.ndarray.NDArray`` the runtime's
    NDArray (which reads MXNet's pickled array bytes), ``mxnet.lr_scheduler.*`` the runtime's schedulers."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "mxnet" or module.startswith("mxnet."):
            parts = ["hybridize.runtime"] + module.split(".")[1:]
            while parts:
                try:
                    mod = importlib.import_module(".".join(parts))
                except ImportError:
                    parts.pop()
                    continue
                if hasattr(mod, name):
                    return getattr(mod, name)
                parts.pop()
            raise pickle.UnpicklingError(f"{module}.{name} has no counterpart in hybridize.runtime")
        return super().find_class(module, name)


def dumps(states: dict, optimizer: Any = None, params: list | None = None) -> bytes:
    """The bytes of a states file: ``states`` (index -> state), the optimizer if given, and the
    names/shapes of the parameters (``params``: ``[[name, shape], ...]`` by index) when known."""
    from ..graph import params as _params
    arrays: list = []
    header = {"format": FORMAT, "states": [[encode(k, arrays), encode(v, arrays)] for k, v in states.items()],
              "optimizer": None if optimizer is None else _optimizer_state(optimizer, arrays),
              "params": params}
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    return _params.dumps({HEADER_KEY: blob, **{f"s{i}": a for i, a in enumerate(arrays)}})


def is_pickle(data: bytes) -> bool:
    return len(data) > 1 and data[:1] == b"\x80"


def loads(data: bytes, path: Any = None, allow_pickle: bool | None = None) -> tuple[dict, Any, list | None]:
    """(states, optimizer or None, params or None) from the bytes :func:`dumps` writes; an MXNet pickle
    only with ``allow_pickle`` (default: the :data:`PICKLE_ENV` environment variable)."""
    if is_pickle(data):
        if allow_pickle is None:
            allow_pickle = os.environ.get(PICKLE_ENV, "") == "1"
        if not allow_pickle:
            raise StatesFormatError(path, "is a pickled MXNet optimizer-states file: loading it would run the "
                                          f"pickle; pass allow_pickle=True or set {PICKLE_ENV}=1 if you trust it")
        states = _MXNetUnpickler(io.BytesIO(data)).load()  # explicitly allowed by the caller
        if isinstance(states, tuple) and len(states) == 2:
            return states[0], states[1], None
        return states, None, None
    from ..graph import params as _params
    try:
        loaded = _params.loads(bytes(data), path)
    except LoadError as e:
        raise StatesFormatError(path, f"is not an optimizer-states file ({e.problem})") from None
    if not isinstance(loaded, dict) or HEADER_KEY not in loaded:
        raise StatesFormatError(path, "is an MXNet parameter file, not an optimizer-states file")
    try:
        header = json.loads(bytes(np.asarray(loaded[HEADER_KEY], dtype=np.uint8)).decode("utf-8"))
        if header.get("format") != FORMAT:
            raise ValueError(f"unknown format {header.get('format')!r}")
        arrays = [loaded[f"s{i}"] for i in range(sum(1 for k in loaded if k != HEADER_KEY))]
        states = {_key(decode(k, arrays)): decode(v, arrays) for k, v in header["states"]}
        opt = None if header.get("optimizer") is None else _optimizer_from(header["optimizer"], arrays)
    except (ValueError, KeyError, TypeError, IndexError) as e:
        raise StatesFormatError(path, f"is a damaged optimizer-states file ({e})") from None
    return states, opt, header.get("params")
