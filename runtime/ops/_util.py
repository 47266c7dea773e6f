"""Helpers shared by the tensor operator families (axes, shapes, dtypes, extra attribute types)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base import ShapeError
from .attrs import AttrError, AttrType, format_value, parse_literal

__all__ = ["known", "ndim_known", "dim_known", "unknown_dim", "np_shape_semantics", "set_np_shape_semantics", "norm_axis", "norm_axes", "reduce_axes", "OptIntTuple",
           "shape_fn", "dtype_of", "const_type", "first_type", "prod"]


_NP_SHAPE = {"on": False}


def np_shape_semantics() -> bool:
    """Are NumPy shape semantics on (``npx.set_np()``)? Then -1 marks an unknown dimension, 0 is a real
    (zero-size) one and ``()`` a real zero-dim shape; off (MXNet 1.x), 0 marks an unknown dimension."""
    return _NP_SHAPE["on"]


def set_np_shape_semantics(active: bool) -> bool:
    """Turns NumPy shape semantics on or off (``mx.util.set_np_shape`` is the public switch); returns
    the previous state."""
    prev = _NP_SHAPE["on"]
    _NP_SHAPE["on"] = bool(active)
    return prev


def unknown_dim() -> int:
    """The dimension that means "unknown": -1 with NumPy shape semantics on, else 0."""
    return -1 if _NP_SHAPE["on"] else 0


def dim_known(d: Any) -> bool:
    """Is dimension ``d`` known: positive, or 0 with NumPy shape semantics on (a zero-size axis)?"""
    d = int(d)
    return d > 0 or (d == 0 and _NP_SHAPE["on"])


def known(s: Any, *, scalar: bool = True) -> bool:
    """Is shape ``s`` fully known: not ``None``, no unknown dimension (0 in MXNet 1.x, -1 with NumPy
    shape semantics on, where 0 is a zero-size axis)? The one definition, used by the operators' shape
    rules, graph inference, Gluon and the compiler.

    A 0-d shape ``()`` is a known scalar shape; ``scalar=False`` reads it as MXNet 1.x's legacy
    shape functions do for operators that only take tensors (linalg, detection): ndim 0 = unknown
    (with NumPy shape semantics on ``()`` is always a real 0-d shape).
    """
    if s is None:
        return False
    np_on = _NP_SHAPE["on"]
    if not (scalar or np_on or len(s) > 0):
        return False
    return all(int(d) > 0 or (np_on and int(d) == 0) for d in s)


def ndim_known(s: Any) -> bool:
    """Is the rank of shape ``s`` known (its dimensions may not be)? ndim 0 = unknown in MXNet 1.x;
    with NumPy shape semantics on ``()`` is a real 0-d shape."""
    return s is not None and (len(s) > 0 or _NP_SHAPE["on"])


def prod(dims: Any) -> int:
    out = 1
    for d in dims:
        out *= int(d)
    return out


def norm_axis(axis: int, ndim: int, what: str = "axis") -> int:
    """``axis`` in ``[0, ndim)``; negative counts from the end; raises ShapeError when out of range."""
    a = int(axis)
    if a < 0:
        a += ndim
    if not 0 <= a < max(ndim, 1):
        raise ShapeError(f"{what} {axis} is out of range for an input with {ndim} dimension(s)")
    return a


def norm_axes(axes: Any, ndim: int) -> tuple:
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, (int, np.integer)):
        axes = (axes,)
    return tuple(norm_axis(a, ndim) for a in axes)


def reduce_axes(axis: Any, ndim: int, exclude: bool = False) -> tuple:
    """The axes an MXNet reduction works on: ``None``/``()`` is every axis; ``exclude`` complements."""
    if axis is None or (isinstance(axis, tuple) and len(axis) == 0):
        return tuple(range(ndim))
    axes = norm_axes(axis, ndim)
    if len(set(axes)) != len(axes):
        raise ShapeError(f"duplicate axes in {axis}")
    if exclude:
        return tuple(i for i in range(ndim) if i not in axes)
    return tuple(sorted(axes))


def reduced_shape(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    """Output shape of a reduction over ``axes``; MXNet never returns a 0-d array: ``()`` -> ``(1,)``."""
    if keepdims:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return out if out else (1,)


# -- attribute types ------------------------------------------------------------------------------
def _opt_int_tuple(v: Any) -> tuple:
    """A tuple whose items are ints or None (``slice``'s begin/end/step): ``(None, 3)``."""
    if isinstance(v, str):
        v = parse_literal(v)
    if v is None:
        return ()
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v),)
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            if x is None or (isinstance(x, str) and x.strip() == "None"):
                out.append(None)
            elif isinstance(x, (int, np.integer)) and not isinstance(x, bool):
                out.append(int(x))
            elif isinstance(x, (float, np.floating)) and float(x).is_integer():
                out.append(int(x))
            else:
                raise AttrError(f"expected an integer or None, got {x!r}")
        return tuple(out)
    raise AttrError(f"expected a tuple of integers or None, got {v!r}")


OptIntTuple = AttrType("tuple-of-int-or-None", _opt_int_tuple, format_value)
OptStr = AttrType("str-or-None", lambda v: None if v is None or (isinstance(v, str) and v == "None") else str(v))


# -- inference helpers ------------------------------------------------------------------------------
def shape_fn(fn, n=1):
    """Wraps ``fn(attrs, *shapes) -> out_shape(s)`` into an ``infer_shape``; unknown inputs give unknown outputs.

    ``fn`` sees only fully known input shapes; when some input is unknown the outputs are reported
    as unknown (``None``) so that inference can continue elsewhere.
    """
    def infer(attrs, in_shapes):
        if not all(known(s) or (s is not None and len(s) == 0) for s in in_shapes):
            return list(in_shapes), [None] * (n(attrs) if callable(n) else n)
        out = fn(attrs, *[tuple(int(d) for d in s) for s in in_shapes])
        outs = list(out) if isinstance(out, list) else [out]
        return list(in_shapes), outs
    return infer


def dtype_of(name: Any) -> np.dtype:
    return np.dtype(name)


def const_type(attr: str | None = None, default: str = "float32", n: int = 1):
    """``infer_type`` giving every output the dtype named by attribute ``attr`` (or ``default``)."""
    def infer(attrs, in_dtypes):
        d = getattr(attrs, attr, None) if attr else None
        if d is None or d == "None":
            d = default
        return [np.dtype(d)] * n
    return infer


def first_type(n: int = 1):
    def infer(attrs, in_dtypes):
        d = in_dtypes[0] if in_dtypes and in_dtypes[0] is not None else np.dtype(np.float32)
        return [np.dtype(d)] * n
    return infer
