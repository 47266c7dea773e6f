"""``mx.npx``: MXNet 1.9.1's NumPy extensions: the semantics switches, devices, files, seeding and the
neural-network operators on ``mx.np`` arrays (``npx.relu``, ``npx.fully_connected``, ``npx.batch_norm``,
``npx.reshape`` with MXNet's codes -2..-6, ...). The operator functions are built from the np table
(``runtime/_numpy_table.py``, entries with ``space="npx"``) by ``mx.np``'s builder, which imports
this package to fill it: the first name looked up here that ``mx.np`` has not installed yet loads
``mx.np`` (this module's ``__getattr__``), so ``mx.npx`` never imports ``mx.np`` while loading.
"""
from __future__ import annotations

import sys
import types
from typing import Any

from ..context import Context, cpu, cpu_pinned, current_context, gpu, num_gpus  # noqa: F401
from ..ops.tensor_random import seed as _seed
from ..util import (
    is_np_array,
    is_np_shape,
    np_array,
    np_shape,
    reset_np,
    set_np,
    use_np,
    use_np_array,
    use_np_shape,
)

__all__ = [
    "cpu",
    "current_context",
    "gpu",
    "is_np_array",
    "is_np_shape",
    "load",
    "np_array",
    "np_shape",
    "num_gpus",
    "reset_np",
    "save",
    "seed",
    "set_np",
    "use_np",
    "use_np_array",
    "use_np_shape",
    "waitall",
]

def seed(seed: int, ctx: Any = "all") -> None:  # noqa: A001 - MXNet's parameter name
    """Seeds the generator every sampler of mx.np.random, npx.random and mx.nd.random uses (the numbers
    are this runtime's, not MXNet's)."""
    _seed(seed, ctx)


class _Random(types.ModuleType):
    """``npx.random``: its table samplers (``uniform_n``, ``normal_n``) are installed by mx.np's builder."""

    def __getattr__(self, attr: str) -> Any:
        if not attr.startswith("__"):
            _np_pkg()
            if attr in self.__dict__:
                return self.__dict__[attr]
        raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")


random = _Random(__name__ + ".random")
random.seed = seed  # type: ignore[attr-defined]
random.__doc__ = "npx.random: seed, bernoulli, uniform_n, normal_n."
sys.modules.setdefault(__name__ + ".random", random)


def waitall() -> None:
    """Computation is synchronous here: nothing to wait for."""


def gpu_memory_info(device_id: int = 0) -> tuple:
    raise RuntimeError("no GPU: this runtime runs on the CPU only")


def save(file: str, arr: Any) -> None:
    """Saves an np array, a list or a dict of str -> np array in MXNet's binary format (as ``npx.save``);
    zero-dim and zero-size arrays are kept as they are (NumPy shape semantics)."""
    from ..graph import params as _params
    from ..numpy import ndarray
    if isinstance(arr, ndarray):
        arr = [arr]
    if isinstance(arr, dict):
        if any(not isinstance(k, str) or not isinstance(v, ndarray) for k, v in arr.items()):
            raise TypeError("Only accepts dict str->ndarray or list of ndarrays")
    elif isinstance(arr, (list, tuple)):
        if any(not isinstance(v, ndarray) for v in arr):
            raise TypeError("Only accepts dict str->ndarray or list of ndarrays")
        arr = list(arr)
    else:
        raise ValueError("data needs to either be a ndarray, dict of (str, ndarray) pairs or a list of ndarrays.")
    _params.save(file, arr)


def load(file: str) -> Any:
    """Loads a file written by ``npx.save`` (or ``nd.save``): a list or dict of np arrays."""
    from ..graph import params as _params
    from ..ndarray import NDArray
    from ..numpy import ndarray
    loaded = _params.load(file)

    def conv(v: Any) -> Any:
        data = v._data if isinstance(v, NDArray) else v
        return ndarray(data)
    if isinstance(loaded, dict):
        return {k: conv(v) for k, v in loaded.items()}
    return [conv(v) for v in loaded]


from .. import ndarray as _nd


def _np_pkg() -> types.ModuleType:
    """``mx.np`` (loaded on first use: loading it fills this namespace)."""
    from .. import numpy as np_pkg
    return np_pkg


def __getattr__(attr: str) -> Any:
    # the table's functions (npx.relu, npx.batch_norm, ...) are installed here by mx.np's builder
    if not attr.startswith("__"):
        _np_pkg()
        if attr in globals():
            return globals()[attr]
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


class _NdWithNp(types.ModuleType):
    """``mx.nd`` with ``.np``/``.npx`` being ``mx.np``/``mx.npx``: ``F`` of an imperative np-mode
    ``hybrid_forward`` (``mx.nd``'s own ``np`` attribute is the NumPy it computes with)."""

    npx = sys.modules[__name__]

    def __getattr__(self, attr: str) -> Any:
        if attr == "np":
            return _np_pkg()
        return getattr(_nd, attr)


_nd_with_np = _NdWithNp("hybridize.runtime.ndarray")


def _bernoulli(prob: Any = None, logit: Any = None, size: Any = None, dtype: Any = None, ctx: Any = None,
               out: Any = None) -> Any:
    """npx.random.bernoulli: 1 with probability ``prob`` (or sigmoid(``logit``)), one of them given."""
    if (prob is None) == (logit is None):
        raise ValueError("Either `prob` or `logit` must be specified, but not both. "
                         f"Received prob={prob}, logit={logit}")
    return _np_pkg().random.bernoulli(prob=prob, logit=logit, size=size, dtype=dtype, ctx=ctx, out=out)


random.bernoulli = _bernoulli  # type: ignore[attr-defined]
# uniform_n / normal_n come from the np table (runtime/_numpy_table.py), as their symbolic twins
