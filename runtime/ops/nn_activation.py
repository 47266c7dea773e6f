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
import weakref

import numpy as np

from ..base import ShapeError
from ._nnutil import OptBool, OptEnum, OptFloat, is_training, merge_shape
from .attrs import Bool, Enum, Float, Int, Param, Shape
from .registry import OpDef, register, same_shape


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


def onednn(x: np.ndarray) -> bool:
    """Does MXNet 1.9.1's CPU build run this array's Activation/LeakyReLU through oneDNN? float32 of
    1 to 5 dimensions (``SupportMKLDNNAct``); other dtypes and ranks take the native kernels. They
    differ at NaN: oneDNN's relu is ``x > 0 ? x : 0`` (NaN gives 0, ``np.fmax``), its leaky/elu
    gradients pass the head gradient through at NaN; the native kernels keep NaN."""
    return x.dtype == np.float32 and 1 <= x.ndim <= 5


def _relu(x):
    return np.fmax(x, x.dtype.type(0)) if onednn(x) else np.maximum(x, x.dtype.type(0))


_ACT = {
    "relu": _relu,
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
        if attrs.slope == 0 and onednn(x):  # oneDNN's relu without a slope: NaN and -inf give 0
            return np.fmax(x, dt.type(0))
        with np.errstate(invalid="ignore"):   # -inf * 0 is NaN, as in MXNet's native kernel
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
    if z.size == 0:   # no element to normalize (NumPy's max has no identity)
        return z.astype(out_dt, copy=False)
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
    """SoftmaxActivation: ``instance`` = softmax over the last axis (MXNet 1.9.1's CPU kernel: for 2-D
    data that is every axis but the first), ``channel`` = over axis 1."""
    if attrs.mode == "instance":
        return _softmax_lastaxis(x.astype(x.dtype, copy=True))
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
    mask = keep.astype(x.dtype) / x.dtype.type(1.0 - p)
    out = (x * mask).astype(x.dtype, copy=False)
    _remember_mask(out, mask)
    return out


# id(output) -> (weak reference to the output, its mask): what a recorded Dropout's gradient multiplies
# by (MXNet keeps the mask as a hidden output); an entry lives as long as its output array
_MASKS: dict = {}


def _remember_mask(out: np.ndarray, mask: np.ndarray) -> None:
    key = id(out)
    _MASKS[key] = (weakref.ref(out), mask)
    weakref.finalize(out, _MASKS.pop, key, None)


register(OpDef(
    "Dropout", _dropout,
    params=(Param("p", Float, 0.5), Param("mode", Enum("training", "always"), "training"),
            Param("axes", Shape, ()), Param("cudnn_off", OptBool, False)),
    infer_shape=same_shape, mode_dependent=True, traits=("random", "identity"),
    identity_if=lambda a, training, shape: not training and a.mode == "training",   # inference: a no-op
))


# -- gradients ---------------------------------------------------------------------------------------
from .registry import defgrad


def _backward_activation(attrs, g, x, y):
    """Activation's input gradient (MXNet's ``_backward_Activation``)."""
    t = attrs.act_type
    with np.errstate(all="ignore"):
        if t == "relu":  # oneDNN's relu outputs no NaN; the native relu_grad is NaN at NaN
            d = (y > 0).astype(g.dtype) if onednn(x) else np.where(np.isnan(y), y, y > 0)
        elif t == "sigmoid":
            d = y * (1 - y)
        elif t == "tanh":
            d = 1 - y * y
        elif t == "softrelu":
            d = -np.expm1(-y)
        else:  # softsign
            d = 1 / np.square(1 + np.abs(x))
    return (g * d).astype(g.dtype, copy=False)


register(OpDef("_backward_Activation", _backward_activation, inputs=("ograd", "data", "output"),
               params=(Param("act_type", Enum("relu", "sigmoid", "softrelu", "softsign", "tanh")),),
               infer_shape=same_shape))


@defgrad("Activation")
def _activation_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._backward_Activation(out_grads[0], inputs[0], outputs[0], act_type=attrs.act_type)]


def _backward_leaky(attrs, g, x, y, gamma=None):
    """LeakyReLU's input gradients (and prelu's gamma gradient, summed over the broadcast axes)."""
    t = attrs.act_type
    dt = g.dtype
    # oneDNN (float32) passes the head gradient through at NaN: ``x <= 0 ? slope : 1``
    keep = t in ("leaky", "elu") and onednn(x)
    with np.errstate(all="ignore"):
        if t == "leaky":
            d = np.where(x <= 0, dt.type(attrs.slope), 1) if keep else np.where(x > 0, 1, dt.type(attrs.slope))
        elif t == "prelu":
            gs = _prelu_gamma_shape(gamma.shape, x.shape)
            gb = gamma.astype(dt, copy=False).reshape(gs)
            dx = (g * np.where(x > 0, 1, gb)).astype(dt, copy=False)
            dg_full = g * np.where(x > 0, 0, x)
            axes = tuple(i for i, n in enumerate(gs) if n == 1 and x.shape[i] != 1)
            dg = dg_full.sum(axis=axes, keepdims=True) if axes else dg_full
            return dx, dg.reshape(gamma.shape).astype(gamma.dtype, copy=False)
        elif t == "elu":
            d = np.where(x <= 0, y + dt.type(attrs.slope), 1) if keep else np.where(x > 0, 1, y + dt.type(attrs.slope))
        elif t == "selu":
            d = _SELU_LAMBDA * np.where(y > 0, 1, _SELU_ALPHA + y)  # MXNet's selu_grad(out), as written
        elif t == "gelu":
            xf = x.astype(np.float64)
            d = 0.5 * (1.0 + _erf(xf / math.sqrt(2.0))) + xf * np.exp(-0.5 * xf * xf) / math.sqrt(2 * math.pi)
        else:  # rrelu: the slope each element got, read back from the output
            mean = dt.type((attrs.lower_bound + attrs.upper_bound) / 2.0)
            d = np.where(x > 0, 1, np.where(x != 0, y / np.where(x != 0, x, 1), mean))
    return (g * d).astype(dt, copy=False)


register(OpDef("_backward_LeakyReLU", _backward_leaky,
               inputs=lambda a: ("ograd", "data", "output", "gamma") if a.act_type == "prelu" else ("ograd", "data",
                                                                                                    "output"),
               params=(Param("act_type", Enum("elu", "gelu", "leaky", "prelu", "rrelu", "selu"), "leaky"),
                       Param("slope", Float, 0.25), Param("lower_bound", Float, 0.125),
                       Param("upper_bound", Float, 0.334)),
               num_outputs=lambda a: 2 if a.act_type == "prelu" else 1,
               infer_shape=lambda a, s: (list(s), [s[1], s[3]] if a.act_type == "prelu" else [s[1]])))


@defgrad("LeakyReLU")
def _leaky_grad(F, attrs, inputs, outputs, out_grads):
    kw = {"act_type": attrs.act_type, "slope": attrs.slope, "lower_bound": attrs.lower_bound,
          "upper_bound": attrs.upper_bound}
    if attrs.act_type == "prelu":
        return list(F._internal._backward_LeakyReLU(out_grads[0], inputs[0], outputs[0], inputs[1], **kw))
    return [F._internal._backward_LeakyReLU(out_grads[0], inputs[0], outputs[0], **kw)]


def _backward_softmax(attrs, g, x, y, length=None):
    """softmax/log_softmax/softmin input gradient from the output (MXNet's ``_backward_softmax``...):
    ``y * (g - sum(g * y))`` (softmax), ``g - exp(y) * sum(g)`` (log), negated for softmin; divided by
    the temperature; zero beyond ``length``."""
    ax = attrs.axis % y.ndim
    work = np.promote_types(g.dtype, y.dtype)
    gw, yw = g.astype(work, copy=False), y.astype(work, copy=False)
    if length is not None:
        n = y.shape[ax]
        idx = np.arange(n).reshape((n,) + (1,) * (y.ndim - 1 - ax))
        mask = idx < np.expand_dims(length.astype(np.int64), ax)
        gw = np.where(mask, gw, 0)
    if attrs.kind == "log":
        ey = np.exp(yw)
        if length is not None:
            ey = np.where(mask, ey, 0)
        d = gw - ey * gw.sum(axis=ax, keepdims=True)
    else:
        d = yw * (gw - (gw * yw).sum(axis=ax, keepdims=True))
        if attrs.kind == "softmin":
            d = -d
    if attrs.temperature is not None and attrs.temperature != 1.0:
        d = d / work.type(attrs.temperature)
    if length is not None:
        d = np.where(mask, d, 0)
    return d.astype(x.dtype, copy=False)


register(OpDef("_backward_softmax", _backward_softmax,
               inputs=lambda a: ("ograd", "data", "output", "length") if a.use_length else ("ograd", "data", "output"),
               params=_SOFTMAX_PARAMS + (Param("kind", Enum("softmax", "log", "softmin"), "softmax"),),
               infer_shape=lambda a, s: (list(s), [s[1]])))


def _softmax_rule(kind):
    def rule(F, attrs, inputs, outputs, out_grads):
        kw = {"axis": attrs.axis, "temperature": attrs.temperature, "use_length": attrs.use_length, "kind": kind}
        dx = F._internal._backward_softmax(out_grads[0], *inputs[:1], outputs[0], *inputs[1:], **kw)
        return [dx] + [None] * (len(inputs) - 1)
    return rule


defgrad("softmax")(_softmax_rule("softmax"))
defgrad("log_softmax")(_softmax_rule("log"))
defgrad("softmin")(_softmax_rule("softmin"))


@defgrad("SoftmaxActivation")
def _softmax_activation_grad(F, attrs, inputs, outputs, out_grads):
    # MXNet 1.9.1's backward reduces over axis 1 in both modes (for instance mode on data of more than
    # two axes that is not the axis its forward normalized: recorded as MXNet computes it)
    return [F._internal._backward_softmax(out_grads[0], inputs[0], outputs[0], axis=1)]


def _backward_softmax_output(attrs, g, y, label):
    """SoftmaxOutput's data gradient (MXNet's softmax_output-inl.h): ``out - one_hot(label)``
    (label smoothing, ignored labels zeroed), times ``grad_scale`` over the normalization count; the
    incoming gradient is used only with ``out_grad``."""
    dt = y.dtype
    if label.shape == y.shape:
        d = (y - label) * dt.type(attrs.grad_scale)
        return (d * g if attrs.out_grad else d).astype(dt, copy=False)
    if attrs.multi_output:
        n, k = y.shape[0], y.shape[1]
        y3 = y.reshape(n, k, -1)
        lab = label.reshape(n, -1)
        lab_i = lab.astype(np.int64)
        oh = (np.arange(k).reshape(1, k, 1) == lab_i.reshape(n, 1, -1))
        d = y3 - oh.astype(dt)
        if attrs.use_ignore:
            d = d * (lab != attrs.ignore_label).reshape(n, 1, -1)
        valid = lab.size
        if attrs.normalization == "batch":
            valid = n
        elif attrs.normalization == "valid":
            valid = max(1, int(np.sum(lab_i != int(attrs.ignore_label))))
        else:
            valid = 1
        spatial = 1 if attrs.normalization == "valid" else y3.shape[2]
        d = d * dt.type(attrs.grad_scale / spatial / valid)
        d = d.reshape(y.shape)
        return (d * g if attrs.out_grad else d).astype(dt, copy=False)
    y2 = y.reshape(-1, y.shape[-1]) if attrs.preserve_shape else y.reshape(y.shape[0], -1)
    lab = label.reshape(-1)
    lab_i = lab.astype(np.int64)
    k = y2.shape[1]
    oh = (np.arange(k)[None, :] == lab_i[:, None]).astype(dt)
    if attrs.smooth_alpha:
        target = oh * dt.type(1 - attrs.smooth_alpha) + (1 - oh) * dt.type(attrs.smooth_alpha / (k - 1))
    else:
        target = oh
    d = y2 - target
    if attrs.use_ignore:
        d = d * (lab != attrs.ignore_label)[:, None]
    if attrs.normalization == "batch":
        valid = lab.size
    elif attrs.normalization == "valid":
        valid = max(1, int(np.sum(lab_i != int(attrs.ignore_label))))
    else:
        valid = 1
    d = (d * dt.type(attrs.grad_scale / valid)).reshape(y.shape)
    return (d * g if attrs.out_grad else d).astype(dt, copy=False)


_SOFTMAX_OUTPUT_PARAMS = (Param("grad_scale", Float, 1.0), Param("ignore_label", Float, -1.0),
                          Param("multi_output", Bool, False), Param("use_ignore", Bool, False),
                          Param("preserve_shape", Bool, False),
                          Param("normalization", Enum("batch", "null", "valid"), "null"),
                          Param("out_grad", Bool, False), Param("smooth_alpha", Float, 0.0))
register(OpDef("_backward_SoftmaxOutput", _backward_softmax_output, inputs=("ograd", "output", "label"),
               params=_SOFTMAX_OUTPUT_PARAMS, infer_shape=lambda a, s: (list(s), [s[1]])))


@defgrad("SoftmaxOutput")
def _softmax_output_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._backward_SoftmaxOutput(out_grads[0], outputs[0], inputs[1], **attrs.as_dict()), None]


def _dropout_mask_of(x, y, p):
    """The mask a Dropout call used, read back from its input and output: ``y / x`` where the input is
    nonzero; where it is zero the output says nothing, so the mask saved by the kernel is used."""
    saved = _MASKS.get(id(y))
    if saved is not None and saved[0]() is y:
        return saved[1]
    with np.errstate(all="ignore"):
        return np.where(x != 0, y / np.where(x != 0, x, 1), 0).astype(y.dtype)


def _backward_dropout(attrs, g, x, y):
    """Dropout's input gradient: the output gradient through the same mask (scaled by 1/(1-p)); the
    forward's mode (``is_train``) says whether a mask was drawn."""
    active = attrs.mode == "always" or attrs.is_train
    if not active or attrs.p <= 0:
        return g.copy()
    if attrs.p >= 1:
        return np.zeros_like(g)
    return (g * np.broadcast_to(_dropout_mask_of(x, y, attrs.p), g.shape)).astype(g.dtype, copy=False)


register(OpDef("_backward_Dropout", _backward_dropout, inputs=("ograd", "data", "output"),
               params=(Param("p", Float, 0.5), Param("mode", Enum("training", "always"), "training"),
                       Param("axes", Shape, ()), Param("cudnn_off", OptBool, False), Param("is_train", Bool, True)),
               infer_shape=lambda a, s: (list(s), [s[1]])))


@defgrad("Dropout")
def _dropout_grad(F, attrs, inputs, outputs, out_grads):
    kw = {k: v for k, v in attrs.as_dict().items() if not k.startswith("__")}
    return [F._internal._backward_Dropout(out_grads[0], inputs[0], outputs[0], is_train=attrs.get("__is_train__", True),
                                          **kw)]
