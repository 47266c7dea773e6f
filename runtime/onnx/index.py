"""Indexing: take, pick, one_hot, gather_nd (index tensors are cast to int64 and clipped or wrapped
as MXNet's ``mode`` says)."""
from __future__ import annotations

import numpy as np

from .dense import clip_index
from .registry import converter


def _size(n, i: int, axis: int):
    """The size of input ``i`` along ``axis``: a Python int when static, else a 0-d tensor."""
    if not n.in_dyn(i)[axis]:
        return int(n.in_shape(i)[axis])
    return n.squeeze(n.dim(n.inputs[i], axis), [0])


@converter("take")
def take(n):
    a = n.attrs
    nd = n.ndim
    ax = int(a.axis) % nd
    idx = clip_index(n, n.inputs[1], n.in_dtype(1), _size(n, 0, ax), a.mode)
    return [n.op("Gather", n.inputs[0], idx, axis=ax)]


@converter("pick")
def pick(n):
    a = n.attrs
    x = n.inputs[0]
    if a.axis is None:
        flat = n.reshape(x, [-1])
        idx = clip_index(n, n.inputs[1], n.in_dtype(1), int(np.prod(n.in_shape(0))), a.mode)
        return [n.op("Gather", flat, idx, axis=0)]
    nd = n.ndim
    ax = int(a.axis) % nd
    idx = clip_index(n, n.inputs[1], n.in_dtype(1), _size(n, 0, ax), a.mode)
    if len(n.in_shape(1)) == nd - 1:
        idx = n.unsqueeze(idx, [ax])
    y = n.op("GatherElements", x, idx, axis=ax)
    return [y if a.keepdims else n.squeeze(y, [ax])]


@converter("one_hot")
def one_hot(n):
    a = n.attrs
    dt = n.out_dtype(0)
    idx = n.inputs[0]
    if n.in_dtype(0) != np.int64:
        idx = n.cast(idx, np.int64)
    # MXNet leaves a row of off_value for an index outside [0, depth); ONNX OneHot would wrap
    # negative ones, so compare against a range instead
    depth = int(a.depth)
    hit = n.op("Equal", n.unsqueeze(idx, [-1]), n.const(np.arange(depth, dtype=np.int64)))
    return [n.op("Where", hit, n.const(np.asarray(a.on_value, dt)), n.const(np.asarray(a.off_value, dt)))]


@converter("gather_nd")
def gather_nd(n):
    # MXNet: indices (M, ...) index the first M axes; ONNX GatherND wants them last
    idx = n.inputs[1]
    m = len(n.in_shape(1))
    perm = list(range(1, m)) + [0]
    idx = n.op("Transpose", n.cast(idx, np.int64) if n.in_dtype(1) != np.int64 else idx, perm=perm)
    return [n.op("GatherND", n.inputs[0], idx)]
