"""``mx.np.genfromtxt``: MXNet 1.9.1's wrapper of NumPy's reader (``python/mxnet/numpy/io.py``)."""
from __future__ import annotations

from typing import Any

import numpy as _onp

from .multiarray import array, ndarray

__all__ = ["genfromtxt"]


def genfromtxt(*args: Any, **kwargs: Any) -> ndarray:
    """NumPy's ``genfromtxt``, its result as an np array of the same dtype (float64 stays float64,
    as MXNet keeps it); ``ctx=`` places it, like MXNet's extra parameter."""
    ctx = kwargs.pop("ctx", None)
    ret = _onp.genfromtxt(*args, **kwargs)
    return array(ret, dtype=ret.dtype, ctx=ctx)
