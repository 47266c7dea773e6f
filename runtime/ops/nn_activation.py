"""Activations, softmax family, Dropout and BlockGrad, with MXNet 1.9.1 semantics.

- ``Activation``: relu, sigmoid, tanh, softrelu, softsign (MXNet 1.9.1's choices: log_sigmoid and
  mish are act_types of MXNet 2 only, refused as 1.9.1 refuses them).
- ``LeakyReLU``: leaky, prelu (``gamma`` input, per channel on axis 1), elu, selu, gelu (erf
  form), rrelu (slope ``(lower_bound + upper_bound) / 2`` at inference, random per element in
  training mode).
- ``softmax`` / ``log_softmax`` / ``softmin`` (axis, temperature, dtype, use_length with a
  ``length`` input), ``SoftmaxActivation``, ``SoftmaxOutput`` (alias ``Softmax``; forward only).
- ``Dropout``: identity at inference (``mode='training'``), inverted dropout with a mask
  broadcast over ``axes`` in training mode or with ``mode='always'``.

Kernels compute in the input's dtype (float32 stays float32).
"""
from __future__ import annotations

import math

import numpy as np

from ..base import ShapeError
from .attrs import Bool, Enum, Float, Int, Param, Shape
from .registry import OpDef, register, same_shape
from ._nnutil import OptBool, OptEnum, OptFloat, is_training, merge_shape


def _erf(x: np.ndarray) -> np.ndarray:
    try:
        from ._special import erf
    except ImportError:  # pragma: no cover - fallback when the special-function module is absent
        erf = np.vectorize(math.erf, otypes=[np.float64])
    return erf(x)


def _sigmoid(x):
    # exp of -|x| only: no overflow warnings, exact at both tails
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def _softrelu(x):
    # log(1 + exp(x)), stable for large |x|
    return (np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))).astype(x.dtype, copy=False)


_ACT = {
    "relu": lambda x: np.maximum(x, x.dtype.type(0)),
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "softrelu": _softrelu,
    "softsign": lambda x: (x / (1 + np.abs(x))).astype(x.dtype, copy=False),
}


def _activation(attrs, x):
    """Elementwise activation chosen by ``act_type``."""
    return _ACT[attrs.act_type](x)


register(OpDef("Activation", _activation,
               params=(Param("act_type", Enum("relu", "sigmoid", "softrelu", "softsign", "tanh")),),
               infer_shape=same_shape))


# -- LeakyReLU -----------------------------------------------------------------------------------
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def _leaky_inputs(attrs):
    return ("data", "gamma") if attrs.act_type == "prelu" else ("data",)


def _prelu_gamma_shape(gshape, dshape) -> tuple:
    """MXNet's ``expand_shape``: gamma's dimensions, from its last, land on the data's axes 1 and 0
    only (equal size, or 1); every other axis broadcasts. So gamma is one slope ``(1,)``, one per
    channel ``(C,)``, or per (sample, channel) ``(N, C)`` for any data rank."""
    out = [1] * len(dshape)
    s = len(gshape) - 1
    for i in range(len(dshape) - 1, -1, -1):
        if s >= 0 and i <= 1 and (dshape[i] == gshape[s] or gshape[s] == 1 or not dshape[i]):
            out[i] = gshape[s]
            s -= 1
    if s != -1:
        raise ShapeError(f"LeakyReLU: cannot broadcast gamma to data. gamma: {tuple(gshape)}, data: {tuple(dshape)}")
    return tuple(out)


def _leaky_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if attrs.act_type == "prelu":
        if d is not None and len(d) > 0:
            g = ins[1]
            if g is None or len(g) == 0 or (len(g) == 1 and g[0] == 0):
                ins[1] = (d[1] if len(d) > 1 else d[0],)   # MXNet: unknown gamma is (data.shape[1],)
            elif all(g):
                _prelu_gamma_shape(g, d)
    return ins, [None if d is None else tuple(d)]


def _leaky_relu(attrs, x, gamma=None):
    """LeakyReLU family: leaky, prelu, elu, selu, gelu, rrelu."""
    t = attrs.act_type
    dt = x.dtype
    if t == "leaky":
        return np.where(x > 0, x, x * dt.type(attrs.slope))
    if t == "prelu":
        g = gamma.astype(dt, copy=False).reshape(_prelu_gamma_shape(gamma.shape, x.shape))
        return np.where(x > 0, x, x * g)
    if t == "elu":
        return np.where(x > 0, x, dt.type(attrs.slope) * np.expm1(np.minimum(x, 0)))
    if t == "selu":
        return (dt.type(_SELU_LAMBDA) * np.where(x > 0, x, dt.type(_SELU_ALPHA) * np.expm1(np.minimum(x, 0)))).astype(dt)
    if t == "gelu":
        return (0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))).astype(dt)
    # rrelu
    if is_training():
        slope = np.random.uniform(attrs.lower_bound, attrs.upper_bound, size=x.shape).astype(dt)
    else:
        slope = dt.type((attrs.lower_bound + attrs.upper_bound) / 2.0)
    return np.where(x > 0, x, x * slope)


register(OpDef(
    "LeakyReLU", _leaky_relu,
    params=(Param("act_type", Enum("elu", "gelu", "leaky", "prelu", "rrelu", "selu"), "leaky"),
            Param("slope", Float, 0.25), Param("lower_bound", Float, 0.125), Param("upper_bound", Float, 0.334)),
    inputs=_leaky_inputs, infer_shape=_leaky_shape, mode_dependent=True,
))


# -- softmax family ------------------------------------------------------------------------------
def _softmax_inputs(attrs):
    return ("data", "length") if attrs.use_length else ("data",)


def _softmax_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is not None and len(d) > 0 and attrs.use_length:
        ax = attrs.axis % len(d)
        ins[1] = merge_shape(ins[1], tuple(n for i, n in enumerate(d) if i != ax), "softmax length")
    return ins, [None if d is None else tuple(d)]


def _softmax_type(attrs, dts):
    if attrs.dtype is not None:
        return [np.dtype(attrs.dtype)]
    return [np.dtype(dts[0] or np.float32)]


def _softmax_core(attrs, x, length, *, log: bool, negate: bool):
    ax = attrs.axis % x.ndim
    out_dt = np.dtype(attrs.dtype) if attrs.dtype is not None else x.dtype
    work_dt = np.promote_types(x.dtype, out_dt) if out_dt.kind == "f" else x.dtype
    z = x.astype(work_dt, copy=True)
    if negate:
        np.negative(z, out=z)
    if attrs.temperature is not None and attrs.temperature != 1.0:
        z /= work_dt.type(attrs.temperature)
    mask = None
    if length is not None:
        n = x.shape[ax]
        idx = np.arange(n).reshape((n,) + (1,) * (x.ndim - 1 - ax))
        mask = idx < np.expand_dims(length.astype(np.int64), ax)
        z = np.where(mask, z, -np.inf)
    z -= z.max(axis=ax, keepdims=True)
    if log:
        with np.errstate(divide="ignore"):
            z -= np.log(np.exp(z).sum(axis=ax, keepdims=True))
    else:
        np.exp(z, out=z)
        z /= z.sum(axis=ax, keepdims=True)
    if mask is not None:
        z = np.where(mask, z, 0)
    return z.astype(out_dt, copy=False)


def _softmax(attrs, x, length=None):
    """Softmax along ``axis`` of ``data / temperature``; with ``use_length`` only the first
    ``length`` entries take part and the rest are 0."""
    return _softmax_core(attrs, x, length, log=False, negate=False)


def _log_softmax(attrs, x, length=None):
    """Log of softmax along ``axis``."""
    return _softmax_core(attrs, x, length, log=True, negate=False)


def _softmin(attrs, x, length=None):
    """Softmax of the negated input."""
    return _softmax_core(attrs, x, length, log=False, negate=True)


_SOFTMAX_PARAMS = (Param("axis", Int, -1), Param("temperature", OptFloat, None),
                   Param("dtype", OptEnum("float16", "float32", "float64"), None),
                   Param("use_length", OptBool, False))

for _name, _fn in (("softmax", _softmax), ("log_softmax", _log_softmax), ("softmin", _softmin)):
    register(OpDef(_name, _fn, params=_SOFTMAX_PARAMS, inputs=_softmax_inputs, infer_shape=_softmax_shape,
                   infer_type=_softmax_type, fluent=True))


def _softmax_lastaxis(x2):
    z = x2 - x2.max(axis=-1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=-1, keepdims=True)
    return z


def _softmax_activation(attrs, x):
    """SoftmaxActivation: ``instance`` = softmax over all but the first axis, ``channel`` = over axis 1."""
    if attrs.mode == "instance":
        return _softmax_lastaxis(x.reshape(x.shape[0], -1)).reshape(x.shape)
    z = x - x.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


register(OpDef("SoftmaxActivation", _softmax_activation,
               params=(Param("mode", Enum("instance", "channel"), "instance"),), infer_shape=same_shape))


def _softmax_output_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None]
    if attrs.multi_output:
        lshape = (d[0],) + tuple(d[2:])
    elif attrs.preserve_shape:
        lshape = tuple(d[:-1])
    else:
        lshape = (d[0],) if len(d) == 2 else tuple(d[:-1])
    lab = ins[1]
    if lab is None or len(lab) == 0:
        ins[1] = lshape
    elif len(lab) == len(lshape):
        ins[1] = merge_shape(lab, lshape, "SoftmaxOutput label")
    return ins, [tuple(d)]


def _softmax_output(attrs, x, label=None):
    """SoftmaxOutput's forward pass: softmax over axis 1 (``multi_output``), the last axis
    (``preserve_shape``) or all but the first axis; the label only matters for gradients."""
    if attrs.multi_output:
        z = x - x.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)
        return z
    if attrs.preserve_shape:
        return _softmax_lastaxis(x.astype(x.dtype, copy=True))
    return _softmax_lastaxis(x.reshape(x.shape[0], -1)).reshape(x.shape)


register(OpDef(
    "SoftmaxOutput", _softmax_output,
    params=(Param("grad_scale", Float, 1.0), Param("ignore_label", Float, -1.0), Param("multi_output", Bool, False),
            Param("use_ignore", Bool, False), Param("preserve_shape", Bool, False),
            Param("normalization", Enum("batch", "null", "valid"), "null"), Param("out_grad", Bool, False),
            Param("smooth_alpha", Float, 0.0)),
    inputs=("data", "label"), infer_shape=_softmax_output_shape, aliases=("Softmax",),
))


# -- Dropout ---------------------------------------------------------------------------------------
def _dropout(attrs, x):
    """Dropout: identity at inference; in training mode (or ``mode='always'``) zeroes elements with
    probability ``p`` and scales the rest by ``1/(1-p)``; ``axes`` share one mask value."""
    active = attrs.mode == "always" or is_training()
    p = attrs.p
    if not active or p <= 0:
        return x.copy()
    if p >= 1:
        return np.zeros_like(x)
    mshape = list(x.shape)
    for a in attrs.axes:
        mshape[a % x.ndim] = 1
    keep = np.random.random_sample(mshape) >= p
    return (x * (keep.astype(x.dtype) / x.dtype.type(1.0 - p))).astype(x.dtype, copy=False)


register(OpDef(
    "Dropout", _dropout,
    params=(Param("p", Float, 0.5), Param("mode", Enum("training", "always"), "training"),
            Param("axes", Shape, ()), Param("cudnn_off", OptBool, False)),
    infer_shape=same_shape, mode_dependent=True, traits=("random", "identity"),
    identity_if=lambda a, training, shape: not training and a.mode == "training",   # inference: a no-op
))
