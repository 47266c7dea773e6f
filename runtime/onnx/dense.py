"""FullyConnected, Embedding and the matrix products dot / batch_dot."""
from __future__ import annotations

import numpy as np

from .registry import converter


def transposed(n, i: int) -> str:
    """Input ``i`` (a matrix) transposed: a new constant when it is a parameter, else a Transpose."""
    w = n.in_value(i)
    if w is not None and w.ndim == 2:
        return n.b.const(np.ascontiguousarray(w.T), hint=f"{n.inputs[i]}_T")
    return n.op("Transpose", n.inputs[i], perm=[1, 0])


@converter("FullyConnected")
def fully_connected(n):
    a = n.attrs
    x = n.inputs[0]
    bias = None if a.no_bias else n.inputs[2]
    if a.flatten or n.ndim <= 2:
        if n.ndim != 2:
            x = n.op("Flatten", x, axis=1)
        args = [x, n.inputs[1]] + ([bias] if bias else [])
        return [n.op("Gemm", *args, transB=1)]
    y = n.op("MatMul", x, transposed(n, 1))
    return [n.op("Add", y, bias) if bias else y]


def clip_index(n, idx: str, idx_dtype, size: int | str, mode: str = "clip") -> str:
    """Indices as int64, out-of-range ones clipped to [0, size) or wrapped (MXNet's modes; 'raise'
    cannot raise in a graph and clips)."""
    if idx_dtype != np.int64:
        idx = n.cast(idx, np.int64)
    if isinstance(size, (int, np.integer)):
        size = n.const(np.asarray(size, np.int64))
    if mode == "wrap":
        return n.op("Mod", idx, size)
    hi = n.op("Sub", size, n.const(np.asarray(1, np.int64)))
    return n.op("Clip", idx, n.const(np.asarray(0, np.int64)), hi)


@converter("Embedding")
def embedding(n):
    rows = n.in_shape(1)[0]
    idx = clip_index(n, n.inputs[0], n.in_dtype(0), rows)
    y = n.op("Gather", n.inputs[1], idx, axis=0)
    if n.out_dtype(0) != n.in_dtype(1):
        y = n.cast(y, n.out_dtype(0))
    return [y]


@converter("dot")
def dot(n):
    a = n.attrs
    ls, rs = n.in_shape(0), n.in_shape(1)
    lhs, rhs = n.inputs
    if len(ls) <= 2 and len(rs) <= 2:
        if len(ls) == 2 and a.transpose_a:
            lhs = transposed(n, 0)
        if len(rs) == 2 and a.transpose_b:
            rhs = transposed(n, 1)
        y = n.op("MatMul", lhs, rhs)
        if len(ls) == 1 and len(rs) == 1:
            y = n.reshape(y, [1])          # MXNet: a vector dot product has shape (1,)
        return [y]
    # N-d: through 2-d matrices as MXNet defines it: lhs (..., k) or, transposed, (k, ...); rhs
    # (k, ...) or, transposed, (..., k)
    k = ls[0] if a.transpose_a else ls[-1]
    l2 = n.op("Transpose", n.reshape(lhs, [k, -1]), perm=[1, 0]) if a.transpose_a else n.reshape(lhs, [-1, k])
    r2 = n.op("Transpose", n.reshape(rhs, [-1, k]), perm=[1, 0]) if a.transpose_b else n.reshape(rhs, [k, -1])
    return [n.op("Reshape", n.op("MatMul", l2, r2), n.target_shape(0))]


@converter("batch_dot")
def batch_dot(n):
    a = n.attrs
    lhs, rhs = n.inputs
    nd = n.ndim
    perm = list(range(nd - 2)) + [nd - 1, nd - 2]
    if a.transpose_a:
        lhs = n.op("Transpose", lhs, perm=perm)
    if a.transpose_b:
        rhs = n.op("Transpose", rhs, perm=perm)
    return [n.op("MatMul", lhs, rhs)]
