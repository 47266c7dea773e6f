"""Dense layers: ``FullyConnected`` and ``Embedding`` (MXNet 1.9.1 semantics).

Shape rules complete deferred parameter shapes: a ``FullyConnected`` weight given as
``(256, 0)`` or unknown becomes ``(256, in_units)`` from the data; an ``Embedding`` weight
is ``(input_dim, output_dim)`` from the attributes.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from .attrs import Bool, Dtype, Int, Param, PositiveInt
from .registry import OpDef, register
from ._nnutil import matmul, merge_shape
from ._util import dim_known, known, unknown_dim


# -- FullyConnected ------------------------------------------------------------------------------
def _fc_inputs(attrs):
    return ("data", "weight") if attrs.no_bias else ("data", "weight", "bias")


def _fc_shape(attrs, in_shapes):
    ins = list(in_shapes)
    nh = attrs.num_hidden
    d = ins[0]
    out = None
    in_units = unknown_dim()
    if d is not None and len(d) > 0:
        if attrs.flatten:
            rest = d[1:]
            in_units = int(np.prod(rest)) if known(rest) else unknown_dim()
            out = (d[0], nh)
        else:
            in_units = d[-1]
            out = tuple(d[:-1]) + (nh,)
    ins[1] = merge_shape(ins[1], (nh, in_units), "FullyConnected weight")
    if not attrs.no_bias:
        ins[2] = merge_shape(ins[2], (nh,), "FullyConnected bias")
    if out is not None and dim_known(in_units) and ins[1][1] != in_units:
        raise ShapeError(f"weight shape {ins[1]} does not match input units {in_units}")
    if d is not None and len(d) > 0 and not dim_known(in_units) and dim_known(ins[1][1]):
        # the data's feature size is known from the weight (reverse inference)
        if not attrs.flatten:
            ins[0] = tuple(d[:-1]) + (ins[1][1],)
        elif len(d) == 2:
            ins[0] = (d[0], ins[1][1])
    return ins, [out]


def _fc_shape_backward(attrs, in_shapes, out_shapes):
    """MXNet's FullyConnectedShape: the data's batch (leading) dimensions come from the output."""
    ins = list(in_shapes)
    d, out = ins[0], out_shapes[0]
    if d is None or out is None or not len(d):
        return ins
    if attrs.flatten:
        ins[0] = (d[0] if dim_known(d[0]) else out[0],) + tuple(d[1:])
    elif len(out) == len(d):
        ins[0] = tuple(a if dim_known(a) else b for a, b in zip(d[:-1], out[:-1])) + (d[-1],)
    return ins


def _fc(attrs, x, w, b=None):
    """FullyConnected: ``y = x W^T + b``; ``flatten`` collapses all but the first axis of ``x``."""
    if attrs.flatten:
        x2 = x.reshape(x.shape[0], w.shape[1])   # not -1: a batch of no rows has no size to divide
        out = matmul(x2, w.T)
    else:
        out = matmul(x.reshape(-1, x.shape[-1]), w.T).reshape(x.shape[:-1] + (w.shape[0],))
    if b is not None:
        out += b
    return out if out.dtype == x.dtype else out.astype(x.dtype)


register(OpDef(
    "FullyConnected", _fc, same_dtype="all",
    params=(Param("num_hidden", PositiveInt), Param("no_bias", Bool, False), Param("flatten", Bool, True)),
    inputs=_fc_inputs, infer_shape=_fc_shape, infer_shape_backward=_fc_shape_backward,
    infer_type=lambda attrs, dts: [np.dtype(dts[0] or np.float32)],
))


# -- Embedding -------------------------------------------------------------------------------------
def _emb_shape(attrs, in_shapes):
    ins = list(in_shapes)
    ins[1] = merge_shape(ins[1], (attrs.input_dim, attrs.output_dim), "Embedding weight")
    d = ins[0]
    out = None if d is None or len(d) == 0 else tuple(d) + (attrs.output_dim,)
    return ins, [out]


def _embedding(attrs, data, weight):
    """Embedding: rows of ``weight`` picked by ``data`` (indices clipped to ``[0, input_dim)``)."""
    idx = data if data.dtype.kind in "iu" else data.astype(np.int64)
    idx = np.clip(idx, 0, weight.shape[0] - 1)
    out = weight[idx]
    dt = np.dtype(attrs.dtype)
    return out if out.dtype == dt else out.astype(dt)


register(OpDef(
    "Embedding", _embedding,
    params=(Param("input_dim", Int), Param("output_dim", Int), Param("dtype", Dtype, "float32"),
            Param("sparse_grad", Bool, False)),
    inputs=("data", "weight"), infer_shape=_emb_shape,
    infer_type=lambda attrs, dts: [np.dtype(attrs.dtype)],
))


# -- gradients ---------------------------------------------------------------------------------------
from .registry import defgrad


def _backward_fc(attrs, g, x, w):
    """(d data, d weight[, d bias]) of FullyConnected, as MXNet's ``_backward_FullyConnected``."""
    x2 = x.reshape(x.shape[0], w.shape[1]) if attrs.flatten else x.reshape(-1, x.shape[-1])
    g2 = g.reshape(-1, g.shape[-1])
    dx = matmul(g2, w).reshape(x.shape).astype(x.dtype, copy=False)
    dw = matmul(g2.T, x2).astype(w.dtype, copy=False)
    if attrs.no_bias:
        return dx, dw
    return dx, dw, g2.sum(axis=0, dtype=g.dtype)


register(OpDef("_backward_FullyConnected", _backward_fc, inputs=("ograd", "data", "weight"),
               params=(Param("num_hidden", Int), Param("no_bias", Bool, False), Param("flatten", Bool, True)),
               num_outputs=lambda a: 2 if a.no_bias else 3,
               infer_shape=lambda a, s: (list(s), [s[1], s[2]] + ([] if a.no_bias else [(a.num_hidden,)]))))


@defgrad("FullyConnected")
def _fc_grad(F, attrs, inputs, outputs, out_grads):
    grads = F._internal._backward_FullyConnected(out_grads[0], inputs[0], inputs[1], num_hidden=attrs.num_hidden,
                                       no_bias=attrs.no_bias, flatten=attrs.flatten)
    return list(grads)


def _backward_embedding(attrs, g, data):
    """The weight's gradient of Embedding: each output row's gradient added to the row it was read from."""
    idx = data if data.dtype.kind in "iu" else data.astype(np.int64)
    idx = np.clip(idx, 0, attrs.input_dim - 1).reshape(-1)
    dw = np.zeros((attrs.input_dim, attrs.output_dim), dtype=g.dtype)
    np.add.at(dw, idx, g.reshape(-1, attrs.output_dim))
    return dw


register(OpDef("_backward_Embedding", _backward_embedding, inputs=("ograd", "data"),
               params=(Param("input_dim", Int), Param("output_dim", Int)),
               infer_shape=lambda a, s: (list(s), [(a.input_dim, a.output_dim)])))


@defgrad("Embedding")
def _embedding_grad(F, attrs, inputs, outputs, out_grads):
    return [None, F._internal._backward_Embedding(out_grads[0], inputs[0], input_dim=attrs.input_dim,
                                        output_dim=attrs.output_dim)]
