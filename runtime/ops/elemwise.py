"""Elementwise operators: unary math, binary arithmetic (same-shape and broadcasting), scalar forms.

MXNet has three spellings of each binary operation, all defined here from one table entry:
``elemwise_add`` (same shapes; what ``Symbol + Symbol`` builds), ``broadcast_add`` (numpy
broadcasting; what ``NDArray + NDArray`` calls) and ``_plus_scalar`` / ``_rminus_scalar``
(one tensor and the ``scalar`` attribute; what ``x + 1.5`` builds).
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from .attrs import Float, Param
from .registry import OpDef, register, same_shape


def unary(name: str, fn, *, aliases=(), fluent=True, doc="") -> OpDef:
    """Registers a one-input elementwise op computing ``fn(x)`` in the input's dtype."""
    def compute(attrs, x):
        return fn(x)
    return register(OpDef(name, compute, inputs=("data",), infer_shape=same_shape, aliases=aliases,
                          fluent=fluent, doc=doc))


def _broadcast_shapes(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [a if b is None else b]
    try:
        return list(in_shapes), [tuple(np.broadcast_shapes(tuple(a), tuple(b)))]
    except ValueError:
        raise ShapeError(f"shapes {tuple(a)} and {tuple(b)} cannot be broadcast together") from None


def _same_shapes(attrs, in_shapes):
    known = [s for s in in_shapes if s is not None]
    if known and any(tuple(s) != tuple(known[0]) for s in known):
        raise ShapeError("elementwise operator needs equal shapes, got "
                         + ", ".join(str(tuple(s)) for s in known))
    shape = known[0] if known else None
    return [shape] * len(in_shapes), [shape]


def _cast_like(fn):
    """Wraps a numpy ufunc so the result keeps the first input's dtype (MXNet never promotes)."""
    def run(a, b):
        out = fn(a, b)
        return out if out.dtype == a.dtype else out.astype(a.dtype, copy=False)
    return run


def binary(base: str, fn, *, elemwise: str | None, broadcast: str | None, scalar: str | None,
           rscalar: str | None = None, elemwise_aliases=(), broadcast_aliases=()) -> None:
    """Registers the same-shape, broadcasting and scalar spellings of one binary operation."""
    kern = _cast_like(fn)
    if elemwise:
        register(OpDef(elemwise, lambda attrs, a, b: kern(a, b), inputs=("lhs", "rhs"),
                       infer_shape=_same_shapes, aliases=elemwise_aliases))
    if broadcast:
        register(OpDef(broadcast, lambda attrs, a, b: kern(a, b), inputs=("lhs", "rhs"),
                       infer_shape=_broadcast_shapes, aliases=broadcast_aliases))
    scalar_param = (Param("scalar", Float, 1.0),)
    if scalar:
        register(OpDef(scalar, lambda attrs, x: kern(x, np.asarray(attrs.scalar, dtype=x.dtype)),
                       params=scalar_param, infer_shape=same_shape))
    if rscalar:
        register(OpDef(rscalar, lambda attrs, x: kern(np.asarray(attrs.scalar, dtype=x.dtype), x)
                       .astype(x.dtype, copy=False), params=scalar_param, infer_shape=same_shape))


binary("add", np.add, elemwise="elemwise_add", broadcast="broadcast_add", scalar="_plus_scalar",
       elemwise_aliases=("_plus", "_Plus", "_add"), broadcast_aliases=("broadcast_plus",))
