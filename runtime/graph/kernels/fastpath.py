"""Operands that keep numpy's binary ufuncs on their fast (SIMD, contiguous) loops.

numpy (2.x, measured here on 200k float32 elements) runs ``np.maximum(x, y)`` in 20 us when ``y`` is
an array of ``x``'s shape, but in 70 us when ``y`` is the scalar ``0`` (that loop is not
vectorized), and a short per-channel row broadcast over the last axis (``x + bias[K]``) pays the
ufunc's outer loop once every K elements (K=32: 45 us, K=512: 29 us). Activations and per-channel
affines are a third of a DenseNet's time, so the compiled kernels use:

- :func:`zeros_like_view`: a read-only zeros array of any shape, a view of one shared buffer that is
  never written. Large ``np.zeros`` come from ``calloc``, i.e. untouched zero pages: reading them
  costs neither memory nor bandwidth, so ``relu`` is ``np.maximum(x, zeros, out=x)``.
- :class:`RowTiling`: views a contiguous ``(..., K)`` buffer as rows of ``L = r * K`` elements
  (``L`` about 4096) and tiles per-channel vectors (and constants) to length ``L``, so that the
  outer loop runs once per ``L`` elements, not per ``K``.

Both are exact (same elementwise operations on the same values); only the loop shapes change.
"""
from __future__ import annotations

import threading

import numpy as np

__all__ = ["FAST_MIN_SIZE", "zeros_like_view", "relu_", "clip_", "RowTiling", "new_binding", "generation"]

FAST_MIN_SIZE = 4096          # elements below which the plain call is as fast as setting up views
ROW_TARGET = 4096             # elements per tiled row

_zeros: dict[np.dtype, np.ndarray] = {}
_zeros_lock = threading.Lock()


def zeros_like_view(shape: tuple, dtype) -> np.ndarray:
    """A read-only array of zeros with this shape and dtype (a view of a shared, never-written
    buffer that grows on demand; earlier views keep the smaller buffer alive)."""
    dtype = np.dtype(dtype)
    n = 1
    for s in shape:
        n *= int(s)
    buf = _zeros.get(dtype)
    if buf is None or buf.size < n:
        with _zeros_lock:
            buf = _zeros.get(dtype)
            if buf is None or buf.size < n:
                buf = np.zeros(max(n, 1 << 16), dtype)
                buf.flags.writeable = False
                _zeros[dtype] = buf
    return buf[:n].reshape(shape)


def relu_(buf: np.ndarray, keep_nan: bool = False) -> None:
    """``buf = max(buf, 0)`` in place, on the vectorized loop when ``buf`` is large: oneDNN's
    ``x > 0 ? x : 0`` (``np.fmax``: NaN gives 0), or with ``keep_nan`` MXNet's native relu (NaN stays)."""
    f = np.maximum if keep_nan else np.fmax
    if buf.size >= FAST_MIN_SIZE and buf.dtype.kind == "f":
        f(buf, zeros_like_view(buf.shape, buf.dtype), out=buf)
    else:
        f(buf, 0, out=buf)


_const_rows: dict[tuple, np.ndarray] = {}


def _const_row(value: float, dtype, n: int) -> np.ndarray:
    key = (float(value), np.dtype(dtype).str, n)
    row = _const_rows.get(key)
    if row is None:
        row = np.full(n, value, dtype)
        row.flags.writeable = False
        _const_rows[key] = row
    return row


def clip_(buf: np.ndarray, lo: float, hi: float) -> None:
    """``buf = min(max(buf, lo), hi)`` in place (relu6 and friends). Floats: one ``ndarray.clip`` with
    bounds of the buffer's own dtype, numpy's vectorized clip loop (one pass; 2.8x faster than a maximum
    and a minimum pass on 1.2M float32 here, and clip equals ``minimum(maximum(x, lo), hi)``, NaN
    included; the method, not ``np.clip``, whose Python wrapper costs 10 us a call). Otherwise a maximum and a minimum on vectorized loops when large: the lower bound 0
    reads the zeros view, other bounds a 1024-wide constant row."""
    if buf.dtype.kind == "f":
        t = buf.dtype.type
        buf.clip(t(lo), t(hi), out=buf)
        return
    big = buf.size >= FAST_MIN_SIZE and buf.dtype.kind == "f" and buf.flags.c_contiguous
    if big and lo == 0:
        np.maximum(buf, zeros_like_view(buf.shape, buf.dtype), out=buf)
    elif big and buf.size % 1024 == 0:
        b2 = buf.reshape(-1, 1024)
        np.maximum(b2, _const_row(lo, buf.dtype, 1024), out=b2)
    else:
        np.maximum(buf, buf.dtype.type(lo), out=buf)
    if big and buf.size % 1024 == 0:
        b2 = buf.reshape(-1, 1024)
        np.minimum(b2, _const_row(hi, buf.dtype, 1024), out=b2)
    else:
        np.minimum(buf, buf.dtype.type(hi), out=buf)


class RowTiling:
    """Per-channel updates of contiguous ``(rows, K)`` buffers as ``(rows / r, r * K)`` rows.

    ``r`` divides ``rows_unit`` (every buffer this tiling serves has a multiple of ``rows_unit``
    rows: the kernel's row chunks) and makes the tiled row about :data:`ROW_TARGET` elements.
    :meth:`tile` repeats a per-channel vector ``r`` times, cached by the vector's identity and the
    binding generation (the compiled program passes the same constant arrays every call; a
    ``bind_params`` may refill a parameter in place, so it starts a new generation).
    """

    __slots__ = ("K", "r", "L", "_cache")

    def __init__(self, K: int, rows_unit: int):
        self.K = int(K)
        r = 1
        for d in range(max(1, ROW_TARGET // max(1, self.K)), 0, -1):
            if rows_unit % d == 0:
                r = d
                break
        self.r = r
        self.L = r * self.K
        self._cache: dict[int, tuple] = {}

    def rows(self, buf: np.ndarray) -> np.ndarray:
        """``buf`` (contiguous, a multiple of ``r * K`` elements) viewed as tiled rows."""
        return buf.reshape(-1, self.L)

    def tile(self, v: np.ndarray) -> np.ndarray:
        """``v`` (K per-channel values, any shape) repeated to one tiled row (cached)."""
        hit = self._cache.get(id(v))
        if hit is not None and hit[0] is v and hit[1] == _generation[0]:
            return hit[2]
        t = np.tile(np.asarray(v).reshape(-1), self.r)
        if len(self._cache) > 8:
            self._cache.clear()
        self._cache[id(v)] = (v, _generation[0], t)
        return t

    def const(self, value: float, dtype) -> np.ndarray:
        """A constant tiled row (e.g. the upper bound of relu6)."""
        return _const_row(value, dtype, self.L)


_generation = [0]


def new_binding() -> None:
    """Invalidates every cache derived from constant values (called by ``bind_params``)."""
    _generation[0] += 1


def generation() -> int:
    return _generation[0]
