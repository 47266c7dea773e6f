"""Emitter of a dense layer's gradient (``_backward_FullyConnected``) in a training program: one GEMM
per gradient the program reads, each written into its buffer (``np.dot(..., out=)``).

The registry kernel computes all three gradients into fresh arrays; a training program often reads
fewer (the first layer's data gradient is nobody's: the input is not differentiated), and its fresh
outputs, aliasing planned inputs as far as the planner knows, were copied once more on return.
Here an unread gradient is not computed, the data gradient lands in a planned buffer, the weight
and bias gradients in the program's output arrays. Same BLAS calls and the same reduction as the
registry kernel (``np.dot`` and ``np.matmul`` run the same GEMM for 2-D float operands), so the
same numbers (in a training program a large GEMM runs in column chunks on the thread pool,
``kernels/dense.py``: the same up to the last bits).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ops.registry import find_op
from ..ir import Entry
from ..kernels.dense import split_matmul
from .registry import emitter

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _reshape(em: Any, lines: list[str], expr: str, shape: tuple, to: tuple) -> str:
    if tuple(shape) == tuple(to):
        return expr
    nm = em.names.make("flat")
    lines.append(f"{nm} = {expr}.reshape({em.bind('shape', tuple(to))})")
    return nm


def _gemm(em: Any, a: str, b: str, out: str, rows: int, inner: int, cols: int) -> str:
    """``out = a @ b``: one BLAS call, or column chunks on the thread pool in a training program
    (``kernels/dense.py``)."""
    split = split_matmul(rows, inner, cols) if em.plan.split_dense else None
    if split is None:
        return f"_dot({a}, {b}, out={out})"
    em.plan.parallel = True
    return f"{em.bind('split_matmul', split)}({a}, {b}, {out})"


@emitter(find_op("_backward_FullyConnected"))
def _emit_backward_fc(em: Any) -> list[str]:
    a = em.node.resolved
    dts = {np.dtype(d) for d in list(em.in_dtypes) + list(em.out_dtypes)}
    if len(dts) != 1 or not dts <= set(_FLOATS) or len(em.in_shapes[2]) != 2:
        k = em.bind("backward_fc", em.node.op.kernel(a, em.in_shapes, em.in_dtypes))
        return [f"{', '.join(em.outs)}, *_ = {k}({', '.join(em.args)})"]
    g, x, w = em.args[:3]
    gs, xs, ws = (tuple(s) for s in em.in_shapes[:3])
    hidden, units = ws
    rows = xs[0] if a.flatten else math.prod(xs[:-1])
    need = [em.is_output[i] or bool(em.users(Entry(em.node, i))) for i in range(len(em.outs))]
    lines: list[str] = []
    g2 = _reshape(em, lines, g, gs, (rows, hidden))
    if need[0]:                                 # d data = g W
        buf = em.out_buffer(0)
        lines.append(_gemm(em, g2, w, _reshape(em, lines, buf, xs, (rows, units)), rows, hidden, units))
        lines.append(f"{em.outs[0]} = {buf}")
    else:
        lines.append(f"{em.outs[0]} = None")
    if need[1]:                                 # d weight = g^T x
        x2 = _reshape(em, lines, x, xs, (rows, units))
        buf = em.out_buffer(1)
        lines += [_gemm(em, f"{g2}.T", x2, buf, hidden, rows, units), f"{em.outs[1]} = {buf}"]
    else:
        lines.append(f"{em.outs[1]} = None")
    if not a.no_bias:
        if need[2]:                             # d bias: the rows' sum, as the registry kernel
            buf = em.out_buffer(2)
            d = em.bind("dtype", dts.pop())
            lines += [f"{g2}.sum(axis=0, dtype={d}, out={buf})", f"{em.outs[2]} = {buf}"]
        else:
            lines.append(f"{em.outs[2]} = None")
    return lines
