"""Gradient rules of the neural-network operators that reuse another operator's backward: ``im2col`` /
``col2im`` (each the other's adjoint: MXNet's ``_backward_im2col`` / ``_backward_col2im``),
``_contrib_SyncBatchNorm`` (on one device, BatchNorm's gradient) and ``_contrib_BatchNormWithReLU``
(BatchNorm's gradient of the output gradient masked where the ReLU cut). MXNet 1.9.1:
``src/operator/nn/im2col.cc``, ``contrib/sync_batch_norm.cc``, ``contrib/batch_norm_relu.cc``.
"""
from __future__ import annotations

from ..base import NonDifferentiableError
from . import nn_conv, nn_norm  # noqa: F401  (their operators are registered first)
from ._grad import backward_op, internal
from .attrs import Param, Shape
from .registry import defgrad, get_op


def _backward_im2col(attrs, og, x):
    col2im = get_op("col2im")
    a = col2im.resolve({**{k: v for k, v in attrs.as_dict().items() if col2im.param(k)},
                        "output_size": tuple(x.shape[2:])})
    return col2im.compute(a, og).astype(x.dtype, copy=False)


backward_op("_backward_im2col", _backward_im2col, ("ograd", "data"), params=get_op("im2col").params)
backward_op("_backward_col2im", lambda a, og, cols: nn_conv._im2col(a, og).astype(cols.dtype, copy=False),
            ("ograd", "data"), params=(Param("output_size", Shape),) + tuple(get_op("im2col").params))


@defgrad("im2col")
def _im2col_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_im2col")(out_grads[0], inputs[0], **attrs.as_dict())]


@defgrad("col2im")
def _col2im_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_col2im")(out_grads[0], inputs[0], **attrs.as_dict())]


def _batch_norm_rule():
    bn = get_op("BatchNorm")
    if bn.gradient is None:
        raise NonDifferentiableError("BatchNorm's gradient rule is missing")
    return bn


def _as_batch_norm(attrs):
    bn = get_op("BatchNorm")
    return bn.resolve({k: v for k, v in attrs.as_dict().items() if bn.param(k)})


@defgrad("_contrib_SyncBatchNorm")
def _sync_batch_norm_grad(F, attrs, inputs, outputs, out_grads):
    """On one device SyncBatchNorm's statistics are BatchNorm's: BatchNorm's gradient."""
    return _batch_norm_rule().gradient(F, _as_batch_norm(attrs), inputs, outputs, out_grads)


@defgrad("_contrib_BatchNormWithReLU")
def _batch_norm_relu_grad(F, attrs, inputs, outputs, out_grads):
    """relu(BatchNorm(x)): the output gradient where the output is positive, then BatchNorm's gradient."""
    mask = F._internal._greater_scalar(outputs[0], scalar=0.0)
    masked = [F.elemwise_mul(out_grads[0], mask)] + list(out_grads[1:])
    return _batch_norm_rule().gradient(F, _as_batch_norm(attrs), inputs, outputs, masked)
