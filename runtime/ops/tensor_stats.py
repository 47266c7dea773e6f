"""``_histogram``, ``all_finite`` and ``multi_all_finite`` with MXNet 1.9.1's semantics.

``_histogram`` (``src/operator/tensor/histogram.cc``) has two forms, chosen by its attributes:

- ``bin_cnt`` and ``range`` given: one input ``data``; the bin edges are
  ``DType((max * i + (bin_cnt - i) * min) / bin_cnt)`` (an empty range is widened by 0.5 each
  side); a value in ``[min, max]`` goes to ``int((x - min) * bin_cnt / (max - min))``, clamped to
  the last bin and corrected by one against the rounded edges, as MXNet's kernel does.
- neither given: inputs ``data`` and ``bins`` (the edges, rightmost included); a value in
  ``[bins[0], bins[-1]]`` goes to the last edge not above it (the last bin is closed).

Outputs: the counts (int64) and the edges (the data's dtype). ``all_finite`` /
``multi_all_finite`` return ``[1.0]`` (float32) when every value is finite, ``[0.0]`` otherwise
(MXNet casts each value to float32 first: a float64 value beyond float32's range counts as inf).
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from .attrs import Bool, Int, Param
from ._tuple_attrs import OptFloatTuple
from ._nnutil import OptInt
from .registry import OpDef, register


def _hist_mode(attrs) -> bool:
    """True for the (bin_cnt, range) form; raises when only one of the two is given."""
    has_cnt, has_range = attrs.bin_cnt is not None, attrs.range is not None
    if has_cnt != has_range:
        raise ShapeError("_histogram: cnt and range should both or neither specified")
    return has_cnt


def _hist_inputs(attrs) -> list:
    return ["data"] if attrs.bin_cnt is not None else ["data", "bins"]


def _uniform_bins(x: np.ndarray, cnt: int, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(cnt + 1, dtype=np.float64)
    edges = ((hi * i + (cnt - i) * lo) / cnt).astype(x.dtype)
    v = x.reshape(-1)
    vd = v.astype(np.float64)
    with np.errstate(invalid="ignore"):
        inside = (vd >= lo) & (vd <= hi)
        t = np.where(inside, (vd - lo) * cnt / (hi - lo), 0.0)
    t = np.minimum(cnt - 1, np.trunc(t).astype(np.int64))
    t = t - (v < edges[t])
    t = t + ((v >= edges[np.clip(t + 1, 0, cnt)]) & (t != cnt - 1))
    return np.where(inside, t, -1), edges


def _given_bins(x: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    nb = bounds.size - 1
    b = bounds.astype(x.dtype, copy=False).reshape(-1)
    v = x.reshape(-1)
    with np.errstate(invalid="ignore"):
        inside = (v >= b[0]) & (v <= b[nb])
        if np.all(b[1:] >= b[:-1]):
            t = np.searchsorted(b, v, side="right")           # first edge above the value
        else:  # MXNet's linear scan: the first edge with value - edge < 0
            below = (v[:, None] - b[None, :]) < 0
            t = np.where(below.any(axis=1), np.argmax(below, axis=1), nb + 1)
    t = np.minimum(t - 1, nb - 1)
    return np.where(inside, t, -1)


def _histogram(attrs, data, bins=None):
    """_histogram: counts of ``data`` (flattened) per bin, and the bin edges."""
    if _hist_mode(attrs):
        rng = attrs.range
        if len(rng) != 2:
            raise ShapeError("_histogram: range should be a tuple with only 2 elements")
        lo, hi = float(rng[0]), float(rng[1])
        if lo > hi:
            raise ShapeError(f"_histogram: left hand side of range({lo})should be less than or equal to "
                             f"right hand side({hi})")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        cnt = attrs.bin_cnt
        target, edges = _uniform_bins(data, cnt, lo, hi)
    else:
        if bins.ndim != 1 or bins.size < 2:
            raise ShapeError(f"_histogram: bins should be a 1-D vector of at least 2 edges, got shape {bins.shape}")
        cnt = bins.size - 1
        target = _given_bins(data, bins)
        edges = bins.astype(data.dtype, copy=True)
    counts = np.bincount(target[target >= 0], minlength=cnt).astype(np.int64)
    return counts, edges


def _histogram_shape(attrs, in_shapes):
    if _hist_mode(attrs):
        return list(in_shapes), [(attrs.bin_cnt,), (attrs.bin_cnt + 1,)]
    b = in_shapes[1]
    if b is None or len(b) == 0:
        return list(in_shapes), [None, None]
    if len(b) != 1:
        raise ShapeError(f"_histogram: bins argument should be an 1D vector, got shape {tuple(b)}")
    if b[0] and b[0] < 2:
        raise ShapeError("_histogram: number of bounds should be >= 2")
    return list(in_shapes), [(b[0] - 1,) if b[0] else None, tuple(b)]


def _histogram_type(attrs, in_dtypes):
    d = in_dtypes[0] if in_dtypes and in_dtypes[0] is not None else np.float32
    return [np.dtype(np.int64), np.dtype(d)]


register(OpDef("_histogram", _histogram, inputs=_hist_inputs,
               params=(Param("bin_cnt", OptInt, None), Param("range", OptFloatTuple, None)),
               num_outputs=2, infer_shape=_histogram_shape, infer_type=_histogram_type,
               aliases=("_npi_histogram",)))


# -- all_finite / multi_all_finite --------------------------------------------------------------------------
def _finite(arrays) -> np.ndarray:
    for a in arrays:
        if a.dtype.kind not in "f":
            raise ShapeError(f"all_finite: expects floating-point arrays, got {a.dtype.name}")
    with np.errstate(over="ignore", invalid="ignore"):
        ok = all(bool(np.isfinite(a.astype(np.float32, copy=False)).all()) for a in arrays)
    return np.array([1.0 if ok else 0.0], dtype=np.float32)


def _all_finite(attrs, data):
    """all_finite: ``[1.]`` if every value (as float32) is finite, else ``[0.]`` (float32)."""
    return _finite([data])


def _multi_all_finite(attrs, *arrays):
    """multi_all_finite: ``[1.]`` if every value of every array (as float32) is finite, else ``[0.]``."""
    return _finite(arrays)


def _scalar_shape(attrs, in_shapes):
    return list(in_shapes), [(1,)]


def _f32(attrs, in_dtypes):
    return [np.dtype(np.float32)]


register(OpDef("all_finite", _all_finite, params=(Param("init_output", Bool, True),),
               infer_shape=_scalar_shape, infer_type=_f32))
register(OpDef("multi_all_finite", _multi_all_finite,
               params=(Param("num_arrays", Int, 1), Param("init_output", Bool, True)),
               inputs=lambda attrs: [f"array_{i}" for i in range(attrs.num_arrays)],  # num_arrays is not implied
               infer_shape=_scalar_shape, infer_type=_f32))
