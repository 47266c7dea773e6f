"""Indexing operators: take, pick, one_hot, gather_nd, scatter_nd, batch_take, _contrib_index_copy.

Index inputs arrive as float arrays (MXNet's default dtype) and are truncated to integers, as
MXNet's kernels do; ``mode`` decides what out-of-range indices mean (``clip`` by default).
"""
from __future__ import annotations

import numpy as np

from ..base import OperatorIndexError, ShapeError
from ._grad import backward_op, internal
from ._util import const_type, norm_axis, shape_fn
from .attrs import Bool, Dtype, Enum, Float, Int, IntOrNone, Param, Shape
from .registry import ZERO_GRAD, OpDef, defgrad, register


def _as_index(idx: np.ndarray) -> np.ndarray:
    return idx if idx.dtype.kind in "iu" else idx.astype(np.int64)


def _fix_index(idx: np.ndarray, n: int, mode: str, op: str) -> np.ndarray:
    i = _as_index(idx)
    if mode == "clip":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return np.mod(i, n)
    if i.size and (i.min() < 0 or i.max() >= n):
        bad = i[(i < 0) | (i >= n)].reshape(-1)[0]
        raise OperatorIndexError(f"{op}: index {bad} is out of range for an axis of size {n}")
    return i


# -- take -------------------------------------------------------------------------------------------
def _take(attrs, a, indices):
    """take: slices of ``a`` along ``axis`` at ``indices`` (out-of-range: clip, wrap or raise)."""
    ax = norm_axis(attrs.axis, a.ndim)
    idx = _fix_index(indices, a.shape[ax], attrs.mode, "take")
    return np.take(a, idx, axis=ax)


def _take_shape(attrs, a, i):
    ax = norm_axis(attrs.axis, len(a))
    return tuple(a[:ax]) + tuple(i) + tuple(a[ax + 1:])


register(OpDef("take", _take, inputs=("a", "indices"),
               params=(Param("axis", Int, 0), Param("mode", Enum("raise", "wrap", "clip"), "clip")),
               infer_shape=shape_fn(_take_shape), fluent=True))


# -- pick --------------------------------------------------------------------------------------------
def _pick(attrs, data, index):
    """pick: one element per position along ``axis``, chosen by ``index``."""
    if attrs.axis is None:
        flat = data.reshape(-1)
        idx = _fix_index(index, flat.size, attrs.mode, "pick")
        return flat[idx]
    ax = norm_axis(attrs.axis, data.ndim)
    idx = _fix_index(index, data.shape[ax], attrs.mode, "pick")
    idx = idx.reshape(data.shape[:ax] + (1,) + data.shape[ax + 1:])
    out = np.take_along_axis(data, idx, axis=ax)
    return out if attrs.keepdims else out.reshape(data.shape[:ax] + data.shape[ax + 1:] or (1,))


def _pick_shape(attrs, d, i):
    if attrs.axis is None:
        return tuple(i)
    ax = norm_axis(attrs.axis, len(d))
    if attrs.keepdims:
        return tuple(1 if j == ax else n for j, n in enumerate(d))
    return tuple(n for j, n in enumerate(d) if j != ax) or (1,)


register(OpDef("pick", _pick, inputs=("data", "index"),
               params=(Param("axis", IntOrNone, -1), Param("keepdims", Bool, False),
                       Param("mode", Enum("wrap", "clip"), "clip")),
               infer_shape=shape_fn(_pick_shape), fluent=True,
               aliases=("choose_element_0index", "_npx_pick")))


# -- one_hot -----------------------------------------------------------------------------------------
def _one_hot(attrs, indices):
    """one_hot: ``on_value`` at each index along a new last axis of size ``depth``, else ``off_value``."""
    if attrs.depth < 0:
        raise ShapeError(f"one_hot: depth must be a non-negative integer, got {attrs.depth}")
    idx = _as_index(indices)
    dt = np.dtype(attrs.dtype)
    hit = idx[..., None] == np.arange(attrs.depth)
    return np.where(hit, np.asarray(attrs.on_value).astype(dt), np.asarray(attrs.off_value).astype(dt))


register(OpDef("one_hot", _one_hot, inputs=("indices",),
               params=(Param("depth", Int), Param("on_value", Float, 1.0), Param("off_value", Float, 0.0),
                       Param("dtype", Dtype, "float32")),
               infer_shape=shape_fn(lambda a, s: tuple(s) + (a.depth,)), infer_type=const_type("dtype"),
               fluent=True))


# -- gather_nd / scatter_nd ------------------------------------------------------------------------------
def _gather_nd(attrs, data, indices):
    """gather_nd: out[y...] = data[indices[0, y...], ..., indices[M-1, y...], ...]."""
    return data[tuple(_as_index(indices))]


def _gather_nd_shape(attrs, d, i):
    m = i[0]
    if m > len(d):
        raise ShapeError(f"gather_nd: indices shape {tuple(i)} addresses more axes than data {tuple(d)}")
    return tuple(i[1:]) + tuple(d[m:])


register(OpDef("gather_nd", _gather_nd, inputs=("data", "indices"), infer_shape=shape_fn(_gather_nd_shape)))


def _scatter_nd(attrs, data, indices):
    """scatter_nd: zeros of ``shape`` with ``data`` written at ``indices`` (gather_nd's inverse)."""
    out = np.zeros(attrs.shape, dtype=data.dtype)
    idx = _as_index(indices)
    out[tuple(idx)] = data
    return out


register(OpDef("scatter_nd", _scatter_nd, inputs=("data", "indices"), params=(Param("shape", Shape),),
               infer_shape=shape_fn(lambda a, d, i: tuple(a.shape))))


def _batch_take(attrs, a, indices):
    """batch_take: out[i] = a[i, indices[i]], ``a`` seen as (a.shape[0], rest); indices clipped."""
    flat = a.reshape(a.shape[0], -1)
    idx = np.clip(_as_index(indices).reshape(-1), 0, flat.shape[1] - 1)
    return flat[np.arange(idx.shape[0]), idx].reshape(indices.shape)


register(OpDef("batch_take", _batch_take, inputs=("a", "indices"),
               infer_shape=shape_fn(lambda a, s, i: tuple(i))))


def _index_copy(attrs, old, index, new):
    """_contrib_index_copy: a copy of old_tensor with the rows at index_vector replaced by new_tensor."""
    out = old.copy()
    out[_as_index(index).reshape(-1)] = new
    return out


register(OpDef("_contrib_index_copy", _index_copy, inputs=("old_tensor", "index_vector", "new_tensor"),
               infer_shape=shape_fn(lambda a, o, i, n: tuple(o))))


# -- gradients (MXNet 1.9.1: src/operator/tensor/indexing_op.cc, broadcast_reduce_op_index.cc,
# contrib/index_copy.cc); take is defined with the autograd core, batch_take has no FGradient ----------
def _backward_pick(attrs, og, data, index):
    """pick's backward: each output gradient lands on the element it picked (index mode as forward)."""
    g = np.zeros_like(data)
    if attrs.axis is None:
        flat = g.reshape(-1)
        np.add.at(flat, _fix_index(index, flat.size, attrs.mode, "pick").reshape(-1), og.reshape(-1))
        return g
    ax = norm_axis(attrs.axis, data.ndim)
    idx = _fix_index(index, data.shape[ax], attrs.mode, "pick")
    idx = idx.reshape(data.shape[:ax] + (1,) + data.shape[ax + 1:])
    np.put_along_axis(g, idx, og.reshape(idx.shape).astype(data.dtype, copy=False), axis=ax)
    return g


backward_op("_backward_pick", _backward_pick, ("ograd", "data", "index"),
            params=(Param("axis", IntOrNone, -1), Param("keepdims", Bool, False),
                    Param("mode", Enum("wrap", "clip"), "clip")))


def _backward_gather_nd(attrs, og, data, indices):
    """gather_nd's backward: output gradients added into a zero tensor at the gathered positions
    (repeated indices accumulate, as MXNet's _backward_gather_nd)."""
    g = np.zeros_like(data)
    np.add.at(g, tuple(_as_index(indices)), og.astype(data.dtype, copy=False))
    return g


backward_op("_backward_gather_nd", _backward_gather_nd, ("ograd", "data", "indices"))


def _backward_index_copy(attrs, og, old, index, new):
    """index_copy's backward: old gets the output gradient with the copied rows zeroed, new those rows."""
    idx = _as_index(index).reshape(-1)
    g_old = og.copy()
    g_old[idx] = 0
    return g_old, og[idx].reshape(new.shape)


backward_op("_contrib_backward_index_copy", _backward_index_copy, ("ograd", "old_tensor", "index_vector",
                                                                   "new_tensor"), like=(1, 3), num_outputs=2)


def _backward_take(attrs, g, a, indices):
    """The gradient of take w.r.t. ``a``: each output slice's gradient added at the index it was read from."""
    ax = norm_axis(attrs.axis, a.ndim)
    idx = _fix_index(indices, a.shape[ax], attrs.mode, "take")
    out = np.zeros(a.shape, dtype=g.dtype)
    moved = np.moveaxis(out, ax, 0)
    gi = np.moveaxis(g.reshape(a.shape[:ax] + (idx.size,) + a.shape[ax + 1:]), ax, 0)
    np.add.at(moved, idx.reshape(-1), gi)
    return out


register(OpDef("_backward_take", _backward_take, inputs=("ograd", "a", "indices"),
               params=(Param("axis", Int, 0), Param("mode", Enum("raise", "wrap", "clip"), "clip")),
               infer_shape=lambda a, s: (list(s), [s[1]])))


@defgrad("take")
def _take_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._backward_take(out_grads[0], inputs[0], inputs[1], axis=attrs.axis, mode=attrs.mode), None]


@defgrad("pick")
def _pick_grad(F, attrs, inputs, outputs, out_grads):
    data, index = inputs
    return [internal(F, "_backward_pick")(out_grads[0], data, index, axis=attrs.axis, keepdims=attrs.keepdims,
                                          mode=attrs.mode), F.zeros_like(index)]


@defgrad("gather_nd")
def _gather_nd_grad(F, attrs, inputs, outputs, out_grads):
    data, indices = inputs
    return [internal(F, "_backward_gather_nd")(out_grads[0], data, indices), F.zeros_like(indices)]


@defgrad("scatter_nd")
def _scatter_nd_grad(F, attrs, inputs, outputs, out_grads):
    return [F.gather_nd(out_grads[0], inputs[1]), F.zeros_like(inputs[1])]


@defgrad("_contrib_index_copy")
def _index_copy_grad(F, attrs, inputs, outputs, out_grads):
    old, index, new = inputs
    g = internal(F, "_contrib_backward_index_copy")(out_grads[0], old, index, new)
    return [g[0], None, g[1]]


defgrad("one_hot")(ZERO_GRAD)
