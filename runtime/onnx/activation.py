"""Activations, softmax family, dropout and the loss outputs (forward pass = inference)."""
from __future__ import annotations

import math

import numpy as np

from .registry import converter

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def log_sigmoid(n, x: str) -> str:
    return n.op("Neg", n.op("Softplus", n.op("Neg", x)))


def mish(n, x: str) -> str:
    return n.op("Mul", x, n.op("Tanh", n.op("Softplus", x)))


_ACT = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus", "softsign": "Softsign"}


@converter("Activation")
def activation(n):
    t = n.attrs.act_type
    x = n.inputs[0]
    return [n.op(_ACT[t], x)]  # MXNet 1.9.1's act_types (log_sigmoid, mish are standalone ops)


def gelu(n, x: str) -> str:
    """0.5 x (1 + erf(x / sqrt 2)): MXNet's erf GELU."""
    inner = n.op("Erf", n.op("Mul", x, n.scalar(1.0 / math.sqrt(2.0))))
    return n.op("Mul", n.op("Mul", x, n.scalar(0.5)), n.op("Add", inner, n.scalar(1.0)))


@converter("LeakyReLU")
def leaky_relu(n):
    a = n.attrs
    x = n.inputs[0]
    t = a.act_type
    if t == "leaky":
        return [n.op("LeakyRelu", x, alpha=float(a.slope))]
    if t == "rrelu":   # inference: the mean slope
        return [n.op("LeakyRelu", x, alpha=float((a.lower_bound + a.upper_bound) / 2.0))]
    if t == "elu":
        return [n.op("Elu", x, alpha=float(a.slope))]
    if t == "selu":
        return [n.op("Selu", x, alpha=_SELU_ALPHA, gamma=_SELU_LAMBDA)]
    if t == "gelu":
        return [gelu(n, x)]
    # prelu: gamma (C,) broadcast along axis 1 (or the sole axis)
    g = n.inputs[1]
    gshape = n.in_shape(1)
    nd = n.ndim
    if nd > 1 and (len(gshape) != 1 or gshape[0] != 1):
        g = n.unsqueeze(g, list(range(1, nd - 1)))  if nd > 2 else g
    if n.in_dtype(1) != n.in_dtype(0):
        g = n.cast(g, n.in_dtype(0))
    return [n.op("PRelu", x, g)]


def _length_mask(n, axis: int) -> str:
    """``use_length``: True where the position along ``axis`` is below that row's length."""
    nd = n.ndim
    steps = n.squeeze(n.dim(n.inputs[0], axis), [0])
    pos = n.op("Range", n.const(np.asarray(0, np.int64)), steps, n.const(np.asarray(1, np.int64)))
    if nd - 1 - axis:
        pos = n.unsqueeze(pos, list(range(1, nd - axis)))
    lens = n.inputs[1] if n.in_dtype(1) == np.int64 else n.cast(n.inputs[1], np.int64)
    return n.op("Less", pos, n.unsqueeze(lens, [axis]))


def _softmax(n, onnx_op: str, negate: bool = False):
    a = n.attrs
    x = n.inputs[0]
    axis = int(a.axis) % n.ndim
    if negate:
        x = n.op("Neg", x)
    if a.temperature is not None and float(a.temperature) != 1.0:
        x = n.op("Div", x, n.scalar(float(a.temperature)))
    mask = None
    if a.use_length:     # only the first `length` entries take part; the others come out 0
        mask = _length_mask(n, axis)
        x = n.op("Where", mask, x, n.scalar(-np.inf))
    y = n.op(onnx_op, x, axis=axis)
    if mask is not None:
        y = n.op("Where", mask, y, n.scalar(0.0))
    if n.out_dtype(0) != n.in_dtype(0):
        y = n.cast(y, n.out_dtype(0))
    return [y]


@converter("softmax")
def softmax(n):
    return _softmax(n, "Softmax")


@converter("log_softmax")
def log_softmax(n):
    return _softmax(n, "LogSoftmax")


@converter("softmin")
def softmin(n):
    return _softmax(n, "Softmax", negate=True)


def _softmax_flat(n, x: str) -> str:
    """Softmax over all axes but the first, shaped back as the input."""
    if n.ndim == 2:
        return n.op("Softmax", x, axis=1)
    flat = n.op("Flatten", x, axis=1)
    return n.op("Reshape", n.op("Softmax", flat, axis=1), n.target_shape(0))


@converter("SoftmaxActivation")
def softmax_activation(n):
    if n.attrs.mode == "channel":
        return [n.op("Softmax", n.inputs[0], axis=1)]
    return [_softmax_flat(n, n.inputs[0])]


@converter("SoftmaxOutput", ignore_inputs=("label",))
def softmax_output(n):
    a = n.attrs
    x = n.inputs[0]
    if a.multi_output:
        return [n.op("Softmax", x, axis=1)]
    if a.preserve_shape:
        return [n.op("Softmax", x, axis=-1)]
    return [_softmax_flat(n, x)]


@converter("Dropout")
def dropout(n):
    if n.attrs.mode == "always":
        n.fail("mode='always' drops at inference too, which an ONNX inference graph does not do")
    return [n.op("Identity", n.inputs[0])]


@converter("LinearRegressionOutput", "MAERegressionOutput", "SVMOutput", ignore_inputs=("label",))
def regression_output(n):
    return [n.op("Identity", n.inputs[0])]


@converter("LogisticRegressionOutput", ignore_inputs=("label",))
def logistic_output(n):
    return [n.op("Sigmoid", n.inputs[0])]


@converter("MakeLoss", "IdentityAttachKLSparseReg")
def make_loss(n):
    return [n.op("Identity", n.inputs[0])]
