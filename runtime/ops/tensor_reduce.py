"""Reductions (sum, mean, prod, max, min, nansum, nanprod, norm), arg-reductions and ordering ops.

MXNet's rules: ``axis=None`` or ``()`` reduces everything; a result with no dimension left has
shape ``(1,)`` (never 0-d); ``exclude=True`` reduces the axes *not* listed; results keep the input
dtype (``argmax`` too: indices come back as float32 for a float32 input).
"""
from __future__ import annotations

import numpy as np

from ._util import const_type, norm_axis, reduce_axes, reduced_shape, shape_fn
from .attrs import Axis, Bool, DtypeOrNone, Enum, Int, IntOrNone, Param
from .registry import OpDef, register

_REDUCE_PARAMS = (Param("axis", Axis, None), Param("keepdims", Bool, False), Param("exclude", Bool, False))


def _reduce_shape(attrs, in_shapes):
    (s,) = in_shapes
    if s is None:
        return list(in_shapes), [None]
    axes = reduce_axes(attrs.axis, len(s), getattr(attrs, "exclude", False))
    return list(in_shapes), [reduced_shape(tuple(s), axes, attrs.keepdims)]


def _finish(out, x, axes_shape):
    out = np.asarray(out)
    if out.dtype != x.dtype:
        out = out.astype(x.dtype)
    return out.reshape(axes_shape)


def _reducer(name, fn, aliases=(), doc=""):
    def compute(attrs, x):
        axes = reduce_axes(attrs.axis, x.ndim, attrs.exclude)
        with np.errstate(all="ignore"):
            out = fn(x, axes)
        return _finish(out, x, reduced_shape(x.shape, axes, attrs.keepdims))
    compute.__doc__ = doc or f"{name}: reduction over ``axis`` (all axes by default)."
    register(OpDef(name, compute, params=_REDUCE_PARAMS, infer_shape=_reduce_shape, aliases=aliases,
                   fluent=True))


def _mean(x, axes):
    if x.dtype.kind in "iub":
        return np.sum(x, axis=axes, dtype=np.int64) // max(1, int(np.prod([x.shape[a] for a in axes])))
    return np.mean(x, axis=axes, dtype=x.dtype)


_reducer("sum", lambda x, ax: np.sum(x, axis=ax, dtype=x.dtype), aliases=("sum_axis",))
_reducer("mean", _mean)
_reducer("prod", lambda x, ax: np.prod(x, axis=ax, dtype=x.dtype))
_reducer("nansum", lambda x, ax: np.nansum(x, axis=ax, dtype=x.dtype))
_reducer("nanprod", lambda x, ax: np.nanprod(x, axis=ax, dtype=x.dtype))
_reducer("max", lambda x, ax: np.max(x, axis=ax) if x.size else np.full(
    [d for i, d in enumerate(x.shape) if i not in ax], -np.inf), aliases=("max_axis",))
_reducer("min", lambda x, ax: np.min(x, axis=ax) if x.size else np.full(
    [d for i, d in enumerate(x.shape) if i not in ax], np.inf), aliases=("min_axis",))


# -- norm ------------------------------------------------------------------------------------------
def _norm(attrs, x):
    """norm: L1 (``ord=1``) or L2 (``ord=2``) norm over ``axis`` (all elements by default)."""
    axes = reduce_axes(attrs.axis, x.ndim)
    xf = x if x.dtype.kind == "f" else x.astype(np.float64)
    if attrs.ord == 1:
        out = np.sum(np.abs(xf), axis=axes)
    elif attrs.ord == 2:
        out = np.sqrt(np.sum(np.square(xf), axis=axes))
    else:
        raise ValueError(f"norm: ord={attrs.ord} is not supported (1 or 2)")
    dt = np.dtype(attrs.out_dtype) if attrs.out_dtype else x.dtype
    return np.asarray(out).astype(dt, copy=False).reshape(reduced_shape(x.shape, axes, attrs.keepdims))


register(OpDef("norm", _norm, params=(Param("ord", Int, 2), Param("axis", Axis, None),
                                      Param("out_dtype", DtypeOrNone, None), Param("keepdims", Bool, False)),
               infer_shape=lambda a, s: _reduce_shape(a, s),
               infer_type=lambda a, d: [np.dtype(a.out_dtype) if a.out_dtype else (d[0] or np.dtype(np.float32))],
               fluent=True))


# -- argmax / argmin -----------------------------------------------------------------------------
def _arg_shape_impl(shape, axis, keepdims):
    if axis is None or len(shape) == 1:
        return tuple(1 for _ in shape) if keepdims else (1,)
    a = norm_axis(axis, len(shape))
    if keepdims:
        return tuple(1 if i == a else d for i, d in enumerate(shape))
    out = tuple(d for i, d in enumerate(shape) if i != a)
    return out if out else (1,)


def _arg(fn):
    def compute(attrs, x):
        if attrs.axis is None:
            idx = fn(x.reshape(-1))
        else:
            idx = fn(x, axis=norm_axis(attrs.axis, x.ndim))
        return np.asarray(idx).astype(x.dtype).reshape(_arg_shape_impl(x.shape, attrs.axis, attrs.keepdims))
    compute.__doc__ = "index of the extreme value along ``axis`` (in the input's dtype, as MXNet)."
    return compute


_ARG_PARAMS = (Param("axis", IntOrNone, None), Param("keepdims", Bool, False))
for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    register(OpDef(_name, _arg(_fn), params=_ARG_PARAMS, fluent=True,
                   infer_shape=shape_fn(lambda a, s: _arg_shape_impl(s, a.axis, a.keepdims))))


def _argmax_channel(attrs, x):
    """argmax_channel: argmax over the last axis."""
    return np.argmax(x, axis=-1).astype(x.dtype).reshape(_arg_shape_impl(x.shape, -1, False))


register(OpDef("argmax_channel", _argmax_channel, fluent=True,
               infer_shape=shape_fn(lambda a, s: _arg_shape_impl(s, -1, False))))


# -- ordering -------------------------------------------------------------------------------------
def _sort_axis(x, axis):
    if axis is None:
        return x.reshape(-1), 0
    return x, norm_axis(axis, x.ndim)


def _sort_key(x, ascend):
    """What an ascending stable sort orders by: ``x``, or its reverse for descending."""
    if ascend:
        return x
    if x.dtype.kind == "u":
        return -x.astype(np.int64)
    if x.dtype.kind == "b":
        return ~x
    return -x


def _order(x, axis, ascend):
    """Stable argsort along ``axis`` (descending keeps ties in index order, as MXNet's CPU sort)."""
    return np.argsort(_sort_key(x, ascend), axis=axis, kind="stable")


def _first_k(x, axis, ascend, k):
    """The first ``k`` of :func:`_order` along ``axis``. For a few of many (topk's k=5 of 300096)
    the k-th key is found by a partition, and only the entries up to it are sorted: the same
    indices, ties in index order, without sorting every row."""
    n = x.shape[axis]
    if n < 64 or k * 8 > n:
        return np.take(_order(x, axis, ascend), np.arange(k), axis=axis)
    key = np.moveaxis(_sort_key(x, ascend), axis, -1)
    lead = key.shape[:-1]
    rows = key.reshape(-1, n)
    kth = np.partition(rows, k - 1, axis=1)[:, k - 1:k]
    if kth.dtype.kind in "fc" and np.isnan(kth).any():  # NaN sorts last: fewer than k numbers in a row
        return np.take(_order(x, axis, ascend), np.arange(k), axis=axis)
    picked = rows <= kth          # at least k per row: everything up to the k-th key, ties included
    counts = picked.sum(axis=1)
    r, c = np.nonzero(picked)      # row by row, columns ascending
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pos = np.arange(r.size) - start[r]
    width = int(counts.max())
    keys = np.repeat(kth, width, axis=1)   # padding sorts after every picked entry of its row
    keys[r, pos] = rows[r, c]
    cols = np.zeros((rows.shape[0], width), dtype=np.intp)
    cols[r, pos] = c
    first = np.take_along_axis(cols, np.argsort(keys, axis=1, kind="stable")[:, :k], axis=1)
    return np.moveaxis(first.reshape(lead + (k,)), -1, axis)


def _topk_k(attrs, n):
    k = attrs.k
    if k < 1 or k > n:
        k = n
    return k


def _topk(attrs, x):
    """topk: the ``k`` largest (or smallest) entries along ``axis``: values, indices, a mask or both."""
    data, ax = _sort_axis(x, attrs.axis)
    n = data.shape[ax]
    k = _topk_k(attrs, n)
    order = _first_k(data, ax, attrs.is_ascend, k)
    if attrs.ret_typ == "mask":
        mask = np.zeros(data.shape, dtype=x.dtype)
        np.put_along_axis(mask, order, 1, axis=ax)
        return mask.reshape(x.shape)
    values = np.take_along_axis(data, order, axis=ax)
    idx = order.astype(np.dtype(attrs.dtype))
    if attrs.ret_typ == "value":
        return values
    if attrs.ret_typ == "indices":
        return idx
    return values, idx


def _topk_shape(attrs, s):
    if attrs.axis is None:
        n = 1
        for d in s:
            n *= d
        kshape = (_topk_k(attrs, n),)
    else:
        ax = norm_axis(attrs.axis, len(s))
        kshape = tuple(_topk_k(attrs, s[ax]) if i == ax else d for i, d in enumerate(s))
    if attrs.ret_typ == "mask":
        return tuple(s)
    if attrs.ret_typ == "both":
        return [kshape, kshape]
    return kshape


def _topk_type(attrs, dts):
    x = dts[0] if dts and dts[0] is not None else np.dtype(np.float32)
    if attrs.ret_typ in ("value", "mask"):
        return [x]
    if attrs.ret_typ == "indices":
        return [np.dtype(attrs.dtype)]
    return [x, np.dtype(attrs.dtype)]


_IDX_DTYPES = Enum("float16", "float32", "float64", "uint8", "int32", "int64", "int8")
register(OpDef("topk", _topk,
               params=(Param("axis", IntOrNone, -1), Param("k", Int, 1),
                       Param("ret_typ", Enum("value", "indices", "mask", "both"), "indices"),
                       Param("is_ascend", Bool, False), Param("dtype", _IDX_DTYPES, "float32")),
               num_outputs=lambda a: 2 if a.ret_typ == "both" else 1,
               infer_shape=shape_fn(_topk_shape, n=lambda a: 2 if a.ret_typ == "both" else 1),
               infer_type=_topk_type, fluent=True))


def _sort(attrs, x):
    """sort: values sorted along ``axis`` (flattened when None)."""
    data, ax = _sort_axis(x, attrs.axis)
    return np.take_along_axis(data, _order(data, ax, attrs.is_ascend), axis=ax)


def _argsort(attrs, x):
    """argsort: indices that sort along ``axis`` (flattened when None), in ``dtype``."""
    data, ax = _sort_axis(x, attrs.axis)
    return _order(data, ax, attrs.is_ascend).astype(np.dtype(attrs.dtype))


def _flat_or_same(attrs, s):
    if attrs.axis is None:
        n = 1
        for d in s:
            n *= d
        return (n,)
    norm_axis(attrs.axis, len(s))
    return tuple(s)


register(OpDef("sort", _sort, params=(Param("axis", IntOrNone, -1), Param("is_ascend", Bool, True)),
               infer_shape=shape_fn(_flat_or_same), fluent=True))
register(OpDef("argsort", _argsort, params=(Param("axis", IntOrNone, -1), Param("is_ascend", Bool, True),
                                            Param("dtype", _IDX_DTYPES, "float32")),
               infer_shape=shape_fn(_flat_or_same), infer_type=const_type("dtype"), fluent=True))


# -- gradients ---------------------------------------------------------------------------------------
from .registry import ZERO_GRAD, defgrad


def _spread(g, x, axes, keepdims):
    """``g`` (a reduction's output gradient) with the reduced axes restored, broadcast to ``x``'s shape."""
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return np.broadcast_to(g.reshape(kept), x.shape)


def _backward_reduce(attrs, g, x, y):
    """Gradient of a reduction (``kind``) w.r.t. its input, as MXNet's ReduceAxesBackwardUseInOut:
    sum/mean spread the output gradient (divided by the count for mean); prod multiplies by
    ``out / x``; max/min send it to every element equal to the extreme; nansum/nanprod drop NaNs;
    norm: ``x / norm`` (ord 2) or ``sign(x)`` (ord 1)."""
    kind = attrs.kind
    axes = reduce_axes(attrs.axis, x.ndim, attrs.exclude)
    gs = _spread(g, x, axes, attrs.keepdims)
    with np.errstate(all="ignore"):
        if kind == "sum":
            out = gs.copy()
        elif kind == "mean":
            out = gs / x.dtype.type(max(1, int(np.prod([x.shape[a] for a in axes]))))
        elif kind == "nansum":
            out = np.where(np.isnan(x), 0, gs)
        elif kind in ("prod", "nanprod"):
            out = gs * _spread(y, x, axes, attrs.keepdims) / x
            if kind == "nanprod":
                out = np.where(np.isnan(x), 0, out)
        elif kind in ("max", "min"):
            out = gs * (x == _spread(y, x, axes, attrs.keepdims))
        elif kind == "norm2":
            out = gs * x / _spread(y, x, axes, attrs.keepdims)
        elif kind == "norm1":
            out = gs * np.sign(x)
        else:
            raise ValueError(f"_backward_reduce: unknown kind {kind!r}")
    return out.astype(x.dtype, copy=False)


register(OpDef("_backward_reduce", _backward_reduce, inputs=("ograd", "data", "output"),
               params=_REDUCE_PARAMS + (Param("kind", Enum("sum", "mean", "prod", "nansum", "nanprod", "max", "min",
                                                            "norm1", "norm2"), "sum"),),
               infer_shape=lambda attrs, s: (list(s), [s[1]])))


def _reduce_rule(kind):
    def rule(F, attrs, inputs, outputs, out_grads):
        return [F._internal._backward_reduce(out_grads[0], inputs[0], outputs[0], axis=attrs.axis, keepdims=attrs.keepdims,
                                   exclude=attrs.exclude, kind=kind)]
    return rule


for _k in ("sum", "mean", "prod", "nansum", "nanprod", "max", "min"):
    defgrad(_k)(_reduce_rule(_k))


@defgrad("norm")
def _norm_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._backward_reduce(out_grads[0], inputs[0], outputs[0], axis=attrs.axis, keepdims=attrs.keepdims,
                               kind="norm1" if attrs.ord == 1 else "norm2")]


defgrad("argmax", "argmin", "argmax_channel", "argsort")(ZERO_GRAD)


def _backward_topk(attrs, g, x):
    """Gradient of topk's values (and of sort): the output gradient scattered back to the positions
    the values came from, zero elsewhere."""
    data, ax = _sort_axis(x, attrs.axis)
    n = data.shape[ax]
    k = _topk_k(attrs, n)
    order = _first_k(data, ax, attrs.is_ascend, k)
    out = np.zeros(data.shape, dtype=x.dtype)
    np.put_along_axis(out, order, g.reshape(order.shape), axis=ax)
    return out.reshape(x.shape)


register(OpDef("_backward_topk", _backward_topk, inputs=("ograd", "data"),
               params=(Param("axis", IntOrNone, -1), Param("k", Int, 1), Param("is_ascend", Bool, False)),
               infer_shape=lambda attrs, s: (list(s), [s[1]])))


@defgrad("topk")
def _topk_grad(F, attrs, inputs, outputs, out_grads):
    if attrs.ret_typ not in ("value", "both"):
        return [None]
    return [F._internal._backward_topk(out_grads[0], inputs[0], axis=attrs.axis, k=attrs.k, is_ascend=attrs.is_ascend)]


@defgrad("sort")
def _sort_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._backward_topk(out_grads[0], inputs[0], axis=attrs.axis, k=0, is_ascend=attrs.is_ascend)]
