"""Reductions (sum/mean/prod/max/min, nansum, norm), argmax/argmin and topk/sort/argsort.
MXNet never returns a 0-d array: reducing every axis without keepdims gives shape (1,)."""
from __future__ import annotations

import numpy as np

from ..ops._util import reduce_axes
from .registry import converter

_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "prod": "ReduceProd", "max": "ReduceMax",
           "min": "ReduceMin", "nansum": "ReduceSum"}


def _finish(n, y: str, nd: int, axes: tuple, keepdims: bool) -> str:
    if not keepdims and len(axes) == nd:
        return n.reshape(y, [1])
    return y


@converter(*_REDUCE)
def reduce(n):
    a = n.attrs
    nd = n.ndim
    axes = reduce_axes(a.axis, nd, a.exclude)
    x = n.inputs[0]
    name = n.node.op.name
    if name == "nansum":
        x = n.op("Where", n.op("IsNaN", x), n.scalar(0), x)
    if name == "mean" and n.in_dtype(0).kind in "iub":
        n.fail("the mean of an integer tensor (MXNet divides with integer floor)")
    y = n.reduce(_REDUCE[name], x, list(axes), a.keepdims)
    return [_finish(n, y, nd, axes, a.keepdims)]


@converter("norm")
def norm(n):
    a = n.attrs
    nd = n.ndim
    axes = reduce_axes(a.axis, nd)
    if a.ord not in (1, 2):
        n.fail(f"ord={a.ord}")
    y = n.reduce("ReduceL1" if a.ord == 1 else "ReduceL2", n.inputs[0], list(axes), a.keepdims)
    y = _finish(n, y, nd, axes, a.keepdims)
    if n.out_dtype(0) != n.in_dtype(0):
        y = n.cast(y, n.out_dtype(0))
    return [y]


@converter("argmax", "argmin", "argmax_channel")
def arg_extreme(n):
    name = n.node.op.name
    x = n.inputs[0]
    onnx_op = "ArgMin" if name == "argmin" else "ArgMax"
    axis = -1 if name == "argmax_channel" else n.attrs.axis
    keep = False if name == "argmax_channel" else bool(n.attrs.keepdims)
    nd = n.ndim
    if axis is None:
        y = n.op(onnx_op, n.reshape(x, [-1]), axis=0, keepdims=1)
        if keep:
            y = n.reshape(y, [1] * nd)
    else:
        y = n.op(onnx_op, x, axis=int(axis), keepdims=int(keep))
        if not keep and nd == 1:
            y = n.reshape(y, [1])
    return [n.cast(y, n.out_dtype(0))]


def _k(n, size: int) -> int:
    k = int(n.attrs.k)
    return size if k < 1 or k > size else k


@converter("topk", "sort", "argsort")
def ordering(n):
    a = n.attrs
    name = n.node.op.name
    x = n.inputs[0]
    nd = n.ndim
    if a.axis is None:
        x = n.reshape(x, [-1])
        ax = 0
        size = int(np.prod(n.in_shape(0)))
    else:
        ax = int(a.axis) % nd
        size = n.in_shape(0)[ax]
        if n.in_dyn(0)[ax]:
            n.fail("ordering along a dynamic axis")
    k = _k(n, size) if name == "topk" else size
    largest = 0 if a.is_ascend else 1
    values, idx = n.ops("TopK", [x, n.ints([k])], 2, axis=ax, largest=largest, sorted=1)
    if name == "sort":
        return [values]
    if name == "argsort":
        return [n.cast(idx, n.out_dtype(0))]
    if a.ret_typ == "value":
        return [values]
    if a.ret_typ == "indices":
        return [n.cast(idx, n.out_dtype(0))]
    if a.ret_typ == "both":
        return [values, n.cast(idx, n.out_dtype(1))]
    # mask: ones where the top k sit
    ones = n.op("ConstantOfShape", n.op("Shape", idx), value=n.b.tensor("value", np.ones(1, n.in_dtype(0))))
    zeros = n.op("ConstantOfShape", n.op("Shape", x), value=n.b.tensor("value", np.zeros(1, n.in_dtype(0))))
    y = n.op("ScatterElements", zeros, idx, ones, axis=ax)
    return [n.op("Reshape", y, n.op("Shape", n.inputs[0])) if a.axis is None else y]
