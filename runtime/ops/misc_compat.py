"""Operators MXNet 1.9.1 registers under other names for old code and graphs:
``_contrib_SparseEmbedding`` (Embedding with row-sparse gradients: the same forward pass),
``_grad_add`` (the elementwise sum MXNet's gradient aggregation writes into graphs) and
``_CrossDeviceCopy`` (the copy between devices a ``ctx_group`` graph contains: on one CPU, the
identity).
"""
from __future__ import annotations

import numpy as np

from . import nn_dense
from .attrs import Bool, Enum, Int, Param
from .registry import (
    OpDef,
    all_same_shape_backward,
    defgrad,
    get_op,
    register,
    same_shape,
)


def _sparse_embedding(attrs, data, weight):
    """_contrib_SparseEmbedding: rows of ``weight`` picked by ``data`` (as Embedding)."""
    return nn_dense._embedding(attrs, data, weight)


register(OpDef(
    "_contrib_SparseEmbedding", _sparse_embedding,
    params=(Param("input_dim", Int), Param("output_dim", Int),
            Param("dtype", Enum("float32", "float64", "float16", "uint8", "int32"), "float32"),
            Param("deterministic", Bool, False)),
    inputs=("data", "weight"), infer_shape=nn_dense._emb_shape,
    infer_type=lambda attrs, dts: [np.dtype(attrs.dtype)],
))


def _grad_add(attrs, lhs, rhs):
    """_grad_add: MXNet registers it with elemwise_add's kernel and shape rule
    (``MXNET_OPERATOR_REGISTER_BINARY_WITH_SPARSE_CPU(_grad_add, plus)``): one definition here too."""
    return get_op("elemwise_add").compute(attrs, lhs, rhs)


def _grad_add_shape(attrs, in_shapes):
    return get_op("elemwise_add").infer_shape(attrs, in_shapes)


register(OpDef("_grad_add", _grad_add, inputs=("lhs", "rhs"), infer_shape=_grad_add_shape,
               infer_shape_backward=all_same_shape_backward, traits=("elementwise",)))
register(OpDef("_CrossDeviceCopy", lambda attrs, x: x.copy(), infer_shape=same_shape,
               doc="_CrossDeviceCopy: a copy of the data (between devices in MXNet; one CPU here)."))



# -- gradients (MXNet 1.9.1: cross_device_copy.cc is a legacy operator whose gradient is the copy back;
# indexing_op.cc gives _contrib_SparseEmbedding Embedding's gradient (row-sparse there, dense here);
# _grad_add has no FGradient) ----------------------------------------------------------------------------------
@defgrad("_CrossDeviceCopy")
def _cross_device_copy_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._copy(out_grads[0])]


@defgrad("_contrib_SparseEmbedding")
def _sparse_embedding_grad(F, attrs, inputs, outputs, out_grads):
    emb = get_op("Embedding")
    if emb.gradient is None:
        from ..base import NonDifferentiableError
        raise NonDifferentiableError("_contrib_SparseEmbedding needs Embedding's gradient rule")
    ea = emb.resolve(emb.coerce_attrs({"input_dim": attrs.input_dim, "output_dim": attrs.output_dim,
                                       "dtype": attrs.dtype}))
    return emb.gradient(F, ea, inputs, outputs, out_grads)
