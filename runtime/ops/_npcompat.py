"""NumPy functions newer than the oldest NumPy the runtime runs on, with the same results there.

MXNet 1.9.1's own CI ran its unit tests with ``numpy>=1.16.0,<1.20.0`` (``ci/docker/install/requirements``),
and its test code relies on behaviour later NumPy removed; so that those tests can run against the
runtime in MXNet's own environment (numpy 1.19.5), the few NumPy >= 1.20 functions the runtime calls
come from here: NumPy's own where it has them, an equivalent otherwise.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["broadcast_shapes", "percentile", "qr"]


def _broadcast_shapes(*shapes: Any) -> tuple:
    """NumPy's broadcasting rule over shapes alone (``np.broadcast_shapes``, NumPy 1.20): a ValueError
    when two dimensions differ and neither is 1."""
    shapes = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        dims = {s[i] for s in shapes if len(s) >= -i} - {1}
        if len(dims) > 1:
            raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape: {shapes}")
        out.append(dims.pop() if dims else 1)
    return tuple(int(d) for d in out)


broadcast_shapes = getattr(np, "broadcast_shapes", _broadcast_shapes)

_NP122 = np.lib.NumpyVersion(np.__version__) >= "1.22.0"
# percentile's ``method=`` (NumPy 1.22) was ``interpolation=`` before, with the same five names
_METHOD_KW = "method" if _NP122 else "interpolation"


def percentile(a: np.ndarray, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False) -> Any:
    """``np.percentile(a, q, axis, method=, keepdims)`` on every NumPy the runtime supports."""
    return np.percentile(a, q, axis=axis, keepdims=keepdims, **{_METHOD_KW: method})


def qr(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.linalg.qr(a)`` (reduced) of a stack of matrices; before NumPy 1.22 it took one matrix, so
    there the stack is factored one matrix at a time (the same LAPACK call for each)."""
    if _NP122 or a.ndim == 2:
        return np.linalg.qr(a)
    flat = [np.linalg.qr(m) for m in a.reshape((-1,) + a.shape[-2:])]
    q, r = (np.stack([f[i] for f in flat]) for i in (0, 1))
    return q.reshape(a.shape[:-2] + q.shape[-2:]), r.reshape(a.shape[:-2] + r.shape[-2:])
