"""Creation operators without inputs: _zeros, _ones, _full, _arange, _linspace, _eye, _zeros_without_dtype.

``nd.zeros``/``sym.zeros`` and friends call these (one source of truth), as MXNet's do.
``ctx`` is accepted and ignored (CPU only).
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from .attrs import (
    _MX_DTYPE_CODES,
    Bool,
    Dtype,
    Float,
    FloatOrNone,
    Int,
    Param,
    Shape,
    Str,
)
from .registry import ZERO_GRAD, OpDef, defgrad, register

_CTX = Param("ctx", Str, "")


def _dt(attrs, default="float32"):
    d = getattr(attrs, "dtype", None)
    if isinstance(d, int):  # an mshadow type code (``_zeros_without_dtype``); -1 = unset
        d = _MX_DTYPE_CODES.get(d)
    return np.dtype(default if d in (None, "None") else d)


def _type_of(default="float32"):
    return lambda attrs, in_dtypes: [_dt(attrs, default)]


def _fixed(shape_of):
    """Shape rule of a creator: its ``shape`` attribute, where -1 (like 0) is a dimension left for
    inference to fill (``sym.ones(shape=(-1, -1)) + b`` takes ``b``'s shape, as in MXNet 1.x)."""
    return lambda attrs, in_shapes: ([], [tuple(max(int(d), 0) for d in shape_of(attrs))])


def _creator(name, fill, params, shape_of, *, default="float32", aliases=(), doc=""):
    def compute(attrs):
        return fill(attrs, shape_of(attrs), _dt(attrs, default))
    compute.__doc__ = doc
    register(OpDef(name, compute, params=params, inputs=(), infer_shape=_fixed(shape_of),
                   infer_type=_type_of(default), aliases=aliases))


def _shape_attr(attrs):
    return tuple(attrs.shape)


_INIT = (Param("shape", Shape, ()), _CTX, Param("dtype", Dtype, "float32"))
_creator("_zeros", lambda a, s, d: np.zeros(s, d), _INIT, _shape_attr, doc="_zeros: an array of zeros.")
_creator("_ones", lambda a, s, d: np.ones(s, d), _INIT, _shape_attr, doc="_ones: an array of ones.")
_creator("_full", lambda a, s, d: np.full(s, a.value, d), _INIT + (Param("value", Float),), _shape_attr,
         doc="_full: an array filled with ``value``.")


_creator("_zeros_without_dtype", lambda a, s, d: np.zeros(s, d),
         (Param("shape", Shape, ()), _CTX, Param("dtype", Int, -1)), _shape_attr,
         doc="_zeros_without_dtype: zeros whose dtype may be left open (-1 = float32).")


def _arange_values(attrs):
    start, stop, step = attrs.start, attrs.stop, attrs.step
    if stop is None and attrs.infer_range:
        raise ShapeError("arange: infer_range=True without stop takes its length from a consumer's shape; none gave it")
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        raise ShapeError("arange: step cannot be 0")
    if attrs.repeat <= 0:
        raise ShapeError(f"arange: repeat must be > 0, got {attrs.repeat}")
    if (step > 0 and not start < stop) or (step < 0 and not start > stop):
        # MXNet's RangeShape: an empty range is an error, not an empty array
        raise ShapeError(f"arange: invalid range (start, stop, step) = ({start:g}, {stop:g}, {step:g})")
    n = int(np.ceil((stop - start) / step))
    return start, step, max(n, 0)


def _arange_shape(attrs):
    if attrs.infer_range and attrs.stop is None:
        # MXNet's RangeShape leaves the length to the consumers' shapes; the graph passes then
        # write it in (``graph.infer.complete_shape_attrs``), so a kernel never sees it unknown
        return (0,)
    _, _, n = _arange_values(attrs)
    return (n * attrs.repeat,)


def arange_stop_for_length(attrs, length: int) -> float | None:
    """The ``stop`` that gives ``infer_range``'s ``_arange`` (no ``stop``) the inferred ``length``
    (None when ``length`` is no multiple of ``repeat``): halfway past the last value, so the
    length ``ceil((stop - start) / step)`` cannot round either way."""
    if length <= 0 or length % attrs.repeat:
        return None
    return attrs.start + (length // attrs.repeat - 0.5) * attrs.step


def _arange(attrs, shape, dt):
    """MXNet's range kernel: ``out[i] = start + (i / repeat) * step`` with ``start`` and ``step``
    first cast to the output dtype, so integer dtypes truncate them (``arange(1.3, 456.6, 1.3,
    dtype='int32')`` is 1, 2, ..., 351), integer sums run in int64 and wrap into the dtype, and
    float32 multiplies and adds in float32. The length is ``ceil((stop - start) / step)`` in double."""
    start, step, n = _arange_values(attrs)
    i = np.arange(n, dtype=np.int64)
    if dt.kind in "iub":
        first, delta = (np.array(np.trunc(v), dtype=np.int64).astype(dt).astype(np.int64) for v in (start, step))
        vals = (first + i * delta).astype(dt)
    else:
        acc = np.dtype(np.float32) if dt.itemsize < 4 else dt
        vals = (acc.type(start) + i.astype(acc) * acc.type(step)).astype(dt)
    if attrs.repeat > 1:
        vals = np.repeat(vals, attrs.repeat)
    return vals


_creator("_arange", _arange,
         (Param("start", Float), Param("stop", FloatOrNone, None), Param("step", Float, 1.0),
          Param("repeat", Int, 1), Param("infer_range", Bool, False), _CTX, Param("dtype", Dtype, "float32")),
         _arange_shape, doc="_arange: evenly spaced values in [start, stop), each ``repeat`` times.")


def _linspace(attrs, shape, dt):
    return np.linspace(attrs.start, attrs.stop, attrs.num, endpoint=attrs.endpoint).astype(dt)


_creator("_linspace", _linspace,
         (Param("start", Float), Param("stop", Float), Param("num", Int), Param("endpoint", Bool, True),
          _CTX, Param("dtype", Dtype, "float32")),
         lambda a: (a.num,), doc="_linspace: ``num`` evenly spaced values from start to stop.")


def _eye(attrs, shape, dt):
    return np.eye(shape[0], shape[1], attrs.k, dtype=dt)


_creator("_eye", _eye,
         (Param("N", Int), Param("M", Int, 0), Param("k", Int, 0), _CTX, Param("dtype", Dtype, "float32")),
         lambda a: (a.N, a.M if a.M > 0 else a.N), aliases=("eye",),
         doc="_eye: a 2-D array with ones on the k-th diagonal.")


# no inputs, nothing to differentiate: nnvm's Gradient pass accepts these without an FGradient
defgrad("_zeros", "_zeros_without_dtype", "_ones", "_full", "_eye", "_arange", "_linspace")(ZERO_GRAD)
