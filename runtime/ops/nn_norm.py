"""Normalization operators with MXNet 1.9.1 semantics.

``BatchNorm`` (also ``_contrib_BatchNormWithReLU``, ``_contrib_SyncBatchNorm``): inputs
``data, gamma, beta`` and the auxiliary states ``moving_mean, moving_var``.

- Inference (``autograd.is_training()`` false) or ``use_global_stats``: normalizes with the
  moving statistics: ``(x - moving_mean) / sqrt(moving_var + eps) * gamma + beta``.
- Training mode: normalizes with the batch statistics (mean and biased variance over every axis
  but ``axis``). The moving statistics are NOT updated in place: MXNet updates them in the
  backward pass, which this forward-only runtime does not run.
- ``fix_gamma``: gamma is taken as 1. ``output_mean_var``: also returns the mean used and, as
  MXNet does, the inverse standard deviation ``1/sqrt(var + eps)`` in the "var" output (moving
  statistics at inference, batch ones in training).

``LayerNorm``, ``InstanceNorm``, ``GroupNorm`` (gamma/beta per group, as MXNet 1.x),
``L2Normalization`` (instance/channel/spatial), ``LRN`` (across channels).
Shape rules complete parameter shapes (gamma, beta, moving stats) from the data.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import ShapeError
from ._nnutil import OptFloat, is_training, merge_shape
from .attrs import Bool, Enum, Float, Int, Param, Str
from .registry import OpDef, register, same_shape


def _acc(dt: np.dtype) -> np.dtype:
    """Accumulation dtype: float32 for half precision, the dtype itself otherwise."""
    return np.dtype(np.float32) if dt == np.float16 else dt


def _param_shapes(ins, n_params: int, shape, what: str):
    for i in range(1, 1 + n_params):
        ins[i] = merge_shape(ins[i], shape, f"{what} {i}")
    return ins


# -- BatchNorm -------------------------------------------------------------------------------------
def _bn_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None] * _bn_nout(attrs)
    ax = attrs.axis % len(d)
    C = d[ax]
    ins = _param_shapes(ins, 4, (C,), "BatchNorm parameter")
    if not C and ins[1] and ins[1][0]:
        d = tuple(ins[1][0] if i == ax else n for i, n in enumerate(d))
        ins[0] = d
    outs = [tuple(d)]
    if attrs.output_mean_var:
        outs += [(d[ax],), (d[ax],)]
    return ins, outs


def _bn_nout(attrs) -> int:
    return 3 if attrs.output_mean_var else 1


def _bn_type(attrs, dts):
    d = np.dtype(dts[0] or np.float32)
    return [d] + [np.dtype(np.float32) if d == np.float16 else d] * (_bn_nout(attrs) - 1)


def _batch_norm_core(attrs, x, gamma, beta, mean, var, relu: bool = False):
    ax = attrs.axis % x.ndim
    C = x.shape[ax]
    bshape = [1] * x.ndim
    bshape[ax] = C
    acc = _acc(x.dtype)
    if is_training() and not attrs.use_global_stats:
        red = tuple(i for i in range(x.ndim) if i != ax)
        xa = x.astype(acc, copy=False)
        m = xa.mean(axis=red, dtype=acc)
        v = np.square(xa - m.reshape(bshape)).mean(axis=red, dtype=acc)
    else:
        m = mean.astype(acc, copy=False)
        v = var.astype(acc, copy=False)
    g = np.ones(C, dtype=acc) if attrs.fix_gamma else gamma.astype(acc, copy=False)
    invstd = 1 / np.sqrt(v + acc.type(attrs.eps))
    scale = g * invstd
    shift = beta.astype(acc, copy=False) - m * scale
    out = x * scale.astype(x.dtype).reshape(bshape)
    out += shift.astype(x.dtype).reshape(bshape)
    if relu:  # oneDNN's fused relu on float32 (NaN gives 0), the native one elsewhere
        (np.fmax if out.dtype == np.float32 else np.maximum)(out, out.dtype.type(0), out=out)
    if attrs.output_mean_var:
        # MXNet's second extra output ("var") holds the inverse standard deviation
        # 1/sqrt(var + eps) (batch_norm.cc and its oneDNN path both store invstd there)
        return out, m, invstd.astype(acc, copy=False)
    return out


def _batch_norm(attrs, x, gamma, beta, moving_mean, moving_var):
    """Batch normalization over ``axis`` (see the module docstring for the training-mode rule)."""
    return _batch_norm_core(attrs, x, gamma, beta, moving_mean, moving_var)


def _batch_norm_relu(attrs, x, gamma, beta, moving_mean, moving_var):
    """BatchNorm followed by ReLU (fused in MXNet's oneDNN build)."""
    return _batch_norm_core(attrs, x, gamma, beta, moving_mean, moving_var, relu=True)


_BN_PARAMS = (
    Param("eps", Float, 1e-3), Param("momentum", Float, 0.9), Param("fix_gamma", Bool, True),
    Param("use_global_stats", Bool, False), Param("output_mean_var", Bool, False), Param("axis", Int, 1),
    Param("cudnn_off", Bool, False), Param("min_calib_range", OptFloat, None),
    Param("max_calib_range", OptFloat, None),
)
_BN_INPUTS = ("data", "gamma", "beta", "moving_mean", "moving_var")
_BN_AUX = ("moving_mean", "moving_var")

@dataclass(eq=False)
class _BatchNormOp(OpDef):
    """BatchNorm's outputs are named ``output``, ``mean``, ``var`` (the last two visible with
    ``output_mean_var`` only), as MXNet lists them (``bn_mean``, not ``bn_output1``)."""

    def output_names(self, attrs: Any) -> list[str]:
        return ["output", "mean", "var"][: _bn_nout(attrs)]


register(_BatchNormOp("BatchNorm", _batch_norm, params=_BN_PARAMS, inputs=_BN_INPUTS, aux=_BN_AUX,
               num_outputs=_bn_nout, infer_shape=_bn_shape, infer_type=_bn_type, mode_dependent=True))
register(_BatchNormOp("_contrib_BatchNormWithReLU", _batch_norm_relu, params=_BN_PARAMS, inputs=_BN_INPUTS,
               aux=_BN_AUX, num_outputs=_bn_nout, infer_shape=_bn_shape, infer_type=_bn_type,
               mode_dependent=True))


register(_BatchNormOp(
    "_contrib_SyncBatchNorm", lambda attrs, *a: _batch_norm_core(_with_axis(attrs), *a),
    params=(Param("eps", Float, 1e-3), Param("momentum", Float, 0.9), Param("fix_gamma", Bool, True),
            Param("use_global_stats", Bool, False), Param("output_mean_var", Bool, False),
            Param("ndev", Int, 1), Param("key", Str)),
    inputs=_BN_INPUTS, aux=_BN_AUX, num_outputs=_bn_nout,
    infer_shape=lambda attrs, s: _bn_shape(_with_axis(attrs), s), infer_type=_bn_type, mode_dependent=True,
    doc="SyncBatchNorm: BatchNorm whose batch statistics span devices; on one CPU it is BatchNorm (axis 1).",
))


def _with_axis(attrs):
    from .registry import Attrs
    d = attrs.as_dict()
    d.setdefault("axis", 1)
    return Attrs(d)


# -- LayerNorm -------------------------------------------------------------------------------------
def _ln_nout(attrs) -> int:
    return 3 if attrs.output_mean_var else 1


def _ln_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None] * _ln_nout(attrs)
    ax = attrs.axis % len(d)
    ins = _param_shapes(ins, 2, (d[ax],), "LayerNorm parameter")
    outs = [tuple(d)]
    if attrs.output_mean_var:
        red = tuple(1 if i == ax else n for i, n in enumerate(d))
        outs += [red, red]
    return ins, outs


def _layer_norm(attrs, x, gamma, beta):
    """Layer normalization over ``axis``: ``(x - mean) / sqrt(var + eps) * gamma + beta``."""
    ax = attrs.axis % x.ndim
    acc = _acc(x.dtype)
    xa = x.astype(acc, copy=False)
    n = acc.type(x.shape[ax])   # np.mean's sum then divide, without its per-call overhead (small inputs)
    mean = np.add.reduce(xa, axis=ax, keepdims=True, dtype=acc)
    mean /= n
    xc = xa - mean
    var = np.add.reduce(np.square(xc), axis=ax, keepdims=True, dtype=acc)
    var /= n
    std = np.sqrt(var + acc.type(attrs.eps))
    bshape = [1] * x.ndim
    bshape[ax] = x.shape[ax]
    out = xc / std
    out *= gamma.astype(acc, copy=False).reshape(bshape)
    out += beta.astype(acc, copy=False).reshape(bshape)
    out = out.astype(x.dtype, copy=False)
    if attrs.output_mean_var:
        return out, mean.astype(x.dtype, copy=False), std.astype(x.dtype, copy=False)
    return out


register(OpDef("LayerNorm", _layer_norm, same_dtype="all",
               params=(Param("axis", Int, -1), Param("eps", Float, 1e-5), Param("output_mean_var", Bool, False)),
               inputs=("data", "gamma", "beta"), num_outputs=_ln_nout, infer_shape=_ln_shape))


# -- InstanceNorm ----------------------------------------------------------------------------------
def _in_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None]
    if len(d) < 3:
        raise ShapeError(f"InstanceNorm needs data with at least 3 dimensions, got {tuple(d)}")
    ins = _param_shapes(ins, 2, (d[1],), "InstanceNorm parameter")
    return ins, [tuple(d)]


def _instance_norm(attrs, x, gamma, beta):
    """Instance normalization: per sample and channel over the spatial axes."""
    acc = _acc(x.dtype)
    xa = x.astype(acc, copy=False)
    red = tuple(range(2, x.ndim))
    mean = xa.mean(axis=red, keepdims=True, dtype=acc)
    xc = xa - mean
    var = np.square(xc).mean(axis=red, keepdims=True, dtype=acc)
    bshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    out = xc / np.sqrt(var + acc.type(attrs.eps))
    out *= gamma.astype(acc, copy=False).reshape(bshape)
    out += beta.astype(acc, copy=False).reshape(bshape)
    return out.astype(x.dtype, copy=False)


register(OpDef("InstanceNorm", _instance_norm, params=(Param("eps", Float, 1e-3),), same_dtype="all",
               inputs=("data", "gamma", "beta"), infer_shape=_in_shape))


# -- GroupNorm -------------------------------------------------------------------------------------
def _gn_nout(attrs) -> int:
    return 3 if attrs.output_mean_var else 1


def _gn_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    G = attrs.num_groups
    ins = _param_shapes(ins, 2, (G,), "GroupNorm parameter")
    if d is None or len(d) == 0:
        return ins, [None] * _gn_nout(attrs)
    if d[1] and d[1] % G:
        raise ShapeError(f"GroupNorm: {d[1]} channels are not divisible by num_groups {G}")
    outs = [tuple(d)]
    if attrs.output_mean_var:
        outs += [(d[0], G), (d[0], G)]
    return ins, outs


def _group_norm(attrs, x, gamma, beta):
    """Group normalization: channels split into ``num_groups``; gamma/beta are per group (MXNet 1.x)."""
    N, C = x.shape[:2]
    G = attrs.num_groups
    acc = _acc(x.dtype)
    xg = x.astype(acc, copy=False).reshape(N, G, -1)
    mean = xg.mean(axis=2, keepdims=True, dtype=acc)
    xc = xg - mean
    var = np.square(xc).mean(axis=2, keepdims=True, dtype=acc)
    std = np.sqrt(var + acc.type(attrs.eps))
    out = xc / std
    out *= gamma.astype(acc, copy=False).reshape(1, G, 1)
    out += beta.astype(acc, copy=False).reshape(1, G, 1)
    out = out.reshape(x.shape).astype(x.dtype, copy=False)
    if attrs.output_mean_var:
        return out, mean.reshape(N, G).astype(x.dtype), std.reshape(N, G).astype(x.dtype)
    return out


register(OpDef("GroupNorm", _group_norm, same_dtype="all",
               params=(Param("num_groups", Int, 1), Param("eps", Float, 1e-5), Param("output_mean_var", Bool, False)),
               inputs=("data", "gamma", "beta"), num_outputs=_gn_nout, infer_shape=_gn_shape))


# -- L2Normalization -------------------------------------------------------------------------------
def _l2_normalization(attrs, x):
    """``x / sqrt(sum(x^2) + eps)`` over all but axis 0 (instance), axis 1 (channel) or the axes
    after 1 (spatial)."""
    if attrs.mode == "instance":
        red = tuple(range(1, x.ndim))
    elif attrs.mode == "channel":
        red = (1,)
    else:
        red = tuple(range(2, x.ndim))
    acc = _acc(x.dtype)
    xa = x.astype(acc, copy=False)
    norm = np.sqrt(np.square(xa).sum(axis=red, keepdims=True, dtype=acc) + acc.type(attrs.eps))
    return (xa / norm).astype(x.dtype, copy=False)


register(OpDef("L2Normalization", _l2_normalization,
               params=(Param("eps", Float, 1e-10), Param("mode", Enum("channel", "instance", "spatial"), "instance")),
               infer_shape=same_shape))


# -- LRN -------------------------------------------------------------------------------------------
def _lrn(attrs, x):
    """Local response normalization across channels:
    ``x * (knorm + alpha/nsize * sum_{|c'-c| <= nsize//2} x_c'^2) ** -beta``."""
    n = attrs.nsize
    half = n // 2
    C = x.shape[1]
    acc = _acc(x.dtype)
    sq = np.square(x.astype(acc, copy=False))
    # window sums along channels: a loop over the nsize window offsets, channels zero-padded
    padded = np.zeros((x.shape[0], C + 2 * half) + x.shape[2:], dtype=acc)
    padded[:, half:half + C] = sq
    win = padded[:, 0:C].copy()
    for off in range(1, n):
        win += padded[:, off:off + C]
    norm = acc.type(attrs.knorm) + acc.type(attrs.alpha / n) * win
    return (x * np.power(norm, acc.type(-attrs.beta))).astype(x.dtype, copy=False)


register(OpDef("LRN", _lrn,
               params=(Param("alpha", Float, 1e-4), Param("beta", Float, 0.75), Param("knorm", Float, 2.0),
                       Param("nsize", Int)),
               infer_shape=same_shape))


# -- gradients ---------------------------------------------------------------------------------------
from ._grad import backward_op, internal
from .registry import defgrad


def _normalized_grad(g, xhat, invstd, red):
    """The input gradient of ``xhat = (x - mean(x)) * invstd`` over the axes ``red``, given ``g`` =
    d loss / d xhat: ``invstd * (g - mean(g) - xhat * mean(g * xhat))``."""
    return invstd * (g - g.mean(axis=red, keepdims=True) - xhat * (g * xhat).mean(axis=red, keepdims=True))


def _channel_dot(a, b, ax, red):
    """Per-channel ``sum(a * b)`` (``sum(a)`` when ``b`` is None) over the axes ``red``: for a
    channel-first contiguous array one batched BLAS dot per (sample, channel) row, no temporary."""
    if ax == 1 and a.ndim >= 3 and a.flags.c_contiguous and (b is None or b.flags.c_contiguous) \
            and a.dtype in (np.float32, np.float64):
        N, C = a.shape[:2]
        rows = a.reshape(N, C, 1, -1)
        other = np.ones((rows.shape[-1], 1), a.dtype) if b is None else b.reshape(N, C, -1, 1)
        return np.matmul(rows, other).reshape(N, C).sum(axis=0)
    return a.sum(axis=red) if b is None else (a * b).sum(axis=red)


def centered_dot(sum_gxc, sum_xc, sum_g, count):
    """``sum(g * (x - mean(x)))`` per channel from the sums over ``xc = x - m`` taken with the
    rounded mean ``m``: ``sum(g * xc) - sum(xc) / count * sum(g)`` takes out the mean's rounding
    (``mean(x) - m = mean(xc)``, exact to the roundings of sums of centered values). For a head
    gradient constant per channel the result is then 0 up to those roundings, as the mathematics
    says, rather than ``count`` times the mean's rounding: a noise that depends on every bit of
    the data and on the order of the mean's sum, which differs between the registry's kernel and
    the compiled NHWC one (``graph/kernels/train.py``), whose gradients then disagreed by 3e-6.
    MXNet 1.9.1's CPU kernel (``batch_norm.cc``) sums ``(x - mean) * g`` with its float32 mean, so
    it carries that noise; the two differ by it only."""
    return sum_gxc - sum_xc * (sum_g / count)


def update_moving_stats(attrs, mean, var, moving_mean, moving_var, acc) -> None:
    """MXNet's training-mode BatchNorm backward updates the moving statistics in place (``momentum``,
    biased variance); shared by the registry kernel and the compiled training kernels."""
    m = acc.type(attrs.momentum)
    moving_mean[...] = (moving_mean * m + mean * (1 - m)).astype(moving_mean.dtype)
    moving_var[...] = (moving_var * m + var * (1 - m)).astype(moving_var.dtype)


def bn_param_grads(attrs, sum_g, sum_gxc, invstd, gamma, beta) -> tuple:
    """(d gamma, d beta) from the per-channel sums: zero for a fixed gamma, as MXNet."""
    dgamma = np.zeros_like(gamma) if attrs.fix_gamma else (sum_gxc * invstd).astype(gamma.dtype)
    return dgamma, sum_g.astype(beta.dtype)


def _backward_batch_norm(attrs, g, x, gamma, beta, moving_mean, moving_var):
    """BatchNorm's (d data, d gamma, d beta), as MXNet's CPU kernel (and its oneDNN one): with the
    backward pass in training mode (``is_train``, ``backward(train_mode=True)``, the default) and
    without ``use_global_stats``, the batch-statistics formula with the statistics the forward saved,
    and then the moving statistics updated in place (``momentum``, biased variance). A forward in
    inference mode (``forward_train`` false: ``autograd.record(train_mode=False)``) saved the moving
    statistics (mean, 1/sqrt(var + eps)), so MXNet's backward then applies the batch formula to them
    and "updates" the moving statistics with themselves (var through 1/invstd^2 - eps)."""
    ax = attrs.axis % x.ndim
    red = tuple(i for i in range(x.ndim) if i != ax)
    bshape = [1] * x.ndim
    bshape[ax] = x.shape[ax]
    acc = _acc(x.dtype)
    xa, ga = x.astype(acc, copy=False), g.astype(acc, copy=False)
    batch = attrs.is_train and not attrs.use_global_stats
    if batch and attrs.forward_train:
        mean = xa.mean(axis=red, dtype=acc)
        xc = xa - mean.reshape(bshape)
        var = np.square(xc).mean(axis=red, dtype=acc)
        invstd = 1 / np.sqrt(var + acc.type(attrs.eps))
    else:
        mean = moving_mean.astype(acc)
        xc = xa - mean.reshape(bshape)
        invstd = 1 / np.sqrt(moving_var.astype(acc) + acc.type(attrs.eps))
        var = 1 / (invstd * invstd) - acc.type(attrs.eps)   # MXNet's INVSTD_TO_VARIANCE
    gam = np.ones_like(invstd) if attrs.fix_gamma else gamma.astype(acc, copy=False)
    # per-channel sums, then two passes over the data: dx = gamma * invstd * (g - mean(g) - xhat *
    # mean(g * xhat)) with xhat = xc * invstd, folded into per-channel coefficients
    sum_g = _channel_dot(ga, None, ax, red)
    sum_gxc = _channel_dot(ga, xc, ax, red) if batch or not attrs.fix_gamma else None
    scale = (gam * invstd).reshape(bshape)
    if batch:
        count = acc.type(x.size // x.shape[ax])
        if attrs.forward_train:   # centered on the batch mean; the moving mean is another centre
            sum_gxc = centered_dot(sum_gxc, _channel_dot(xc, None, ax, red), sum_g, count)
        dx = ga - (sum_g / count).reshape(bshape)
        dx -= xc * (invstd * invstd * sum_gxc / count).reshape(bshape)
        dx *= scale
        update_moving_stats(attrs, mean, var, moving_mean, moving_var, acc)
    else:
        dx = ga * scale
    return (dx.astype(x.dtype, copy=False),) + bn_param_grads(attrs, sum_g, sum_gxc, invstd, gamma, beta)


_BN_BACKWARD_PARAMS = tuple(p for p in _BN_PARAMS if p.name != "output_mean_var") + (
    Param("is_train", Bool, True), Param("forward_train", Bool, True))
backward_op("_backward_BatchNorm", _backward_batch_norm, ("ograd",) + _BN_INPUTS, like=(1, 2, 3), num_outputs=3,
            params=_BN_BACKWARD_PARAMS)


@defgrad("BatchNorm")
def _batch_norm_grad(F, attrs, inputs, outputs, out_grads):
    # The backward pass runs in training mode (MXNet's ``backward(train_mode=True)``, what Gluon's
    # ``loss.backward()`` does); the forward's mode decides which statistics it saved.
    kw = {p.name: getattr(attrs, p.name) for p in _BN_BACKWARD_PARAMS[:-2]}
    dx, dgamma, dbeta = internal(F, "_backward_BatchNorm")(out_grads[0], *inputs, is_train=True,
                                                          forward_train=attrs.get("__is_train__", True), **kw)
    return [dx, dgamma, dbeta, None, None]


def _backward_layer_norm(attrs, g, x, gamma, beta):
    """LayerNorm's (d data, d gamma, d beta) over ``axis``."""
    ax = attrs.axis % x.ndim
    acc = _acc(x.dtype)
    xa, ga = x.astype(acc, copy=False), g.astype(acc, copy=False)
    bshape = [1] * x.ndim
    bshape[ax] = x.shape[ax]
    mean = xa.mean(axis=ax, keepdims=True)
    invstd = 1 / np.sqrt(np.square(xa - mean).mean(axis=ax, keepdims=True) + acc.type(attrs.eps))
    xhat = (xa - mean) * invstd
    dx = _normalized_grad(ga * gamma.astype(acc).reshape(bshape), xhat, invstd, (ax,))
    other = tuple(i for i in range(x.ndim) if i != ax)
    # gamma's and beta's gradients sum over every other axis (thousands of rows in a transformer):
    # accumulated in float64, as MXNet's safe accumulation, since numpy sums a strided axis naively
    wide = np.float64 if acc == np.float32 else acc
    return (dx.astype(x.dtype, copy=False), (ga * xhat).sum(axis=other, dtype=wide).astype(gamma.dtype),
            ga.sum(axis=other, dtype=wide).astype(beta.dtype))


backward_op("_backward_LayerNorm", _backward_layer_norm, ("ograd", "data", "gamma", "beta"), like=(1, 2, 3),
            num_outputs=3, params=(Param("axis", Int, -1), Param("eps", Float, 1e-5)))


@defgrad("LayerNorm")
def _layer_norm_grad(F, attrs, inputs, outputs, out_grads):
    return list(internal(F, "_backward_LayerNorm")(out_grads[0], *inputs, axis=attrs.axis, eps=attrs.eps))


def _backward_instance_norm(attrs, g, x, gamma, beta):
    """InstanceNorm's (d data, d gamma, d beta): per sample and channel over the spatial axes."""
    acc = _acc(x.dtype)
    xa, ga = x.astype(acc, copy=False), g.astype(acc, copy=False)
    red = tuple(range(2, x.ndim))
    bshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    mean = xa.mean(axis=red, keepdims=True)
    invstd = 1 / np.sqrt(np.square(xa - mean).mean(axis=red, keepdims=True) + acc.type(attrs.eps))
    xhat = (xa - mean) * invstd
    dx = _normalized_grad(ga * gamma.astype(acc).reshape(bshape), xhat, invstd, red)
    other = (0,) + red
    return (dx.astype(x.dtype, copy=False), (ga * xhat).sum(axis=other).astype(gamma.dtype),
            ga.sum(axis=other).astype(beta.dtype))


backward_op("_backward_InstanceNorm", _backward_instance_norm, ("ograd", "data", "gamma", "beta"), like=(1, 2, 3),
            num_outputs=3, params=(Param("eps", Float, 1e-3),))


@defgrad("InstanceNorm")
def _instance_norm_grad(F, attrs, inputs, outputs, out_grads):
    return list(internal(F, "_backward_InstanceNorm")(out_grads[0], *inputs, eps=attrs.eps))


def _backward_group_norm(attrs, g, x, gamma, beta):
    """GroupNorm's (d data, d gamma, d beta), gamma and beta per group (MXNet 1.x)."""
    N = x.shape[0]
    G = attrs.num_groups
    acc = _acc(x.dtype)
    xg, gg = x.astype(acc, copy=False).reshape(N, G, -1), g.astype(acc, copy=False).reshape(N, G, -1)
    mean = xg.mean(axis=2, keepdims=True)
    invstd = 1 / np.sqrt(np.square(xg - mean).mean(axis=2, keepdims=True) + acc.type(attrs.eps))
    xhat = (xg - mean) * invstd
    dx = _normalized_grad(gg * gamma.astype(acc).reshape(1, G, 1), xhat, invstd, (2,))
    return (dx.reshape(x.shape).astype(x.dtype, copy=False), (gg * xhat).sum(axis=(0, 2)).astype(gamma.dtype),
            gg.sum(axis=(0, 2)).astype(beta.dtype))


backward_op("_backward_GroupNorm", _backward_group_norm, ("ograd", "data", "gamma", "beta"), like=(1, 2, 3),
            num_outputs=3, params=(Param("num_groups", Int, 1), Param("eps", Float, 1e-5)))


@defgrad("GroupNorm")
def _group_norm_grad(F, attrs, inputs, outputs, out_grads):
    return list(internal(F, "_backward_GroupNorm")(out_grads[0], *inputs, num_groups=attrs.num_groups,
                                                   eps=attrs.eps))


def _backward_l2_normalization(attrs, g, x):
    """L2Normalization's input gradient: ``(g - y * sum(g * y)) / norm`` over the normalized axes."""
    if attrs.mode == "instance":
        red = tuple(range(1, x.ndim))
    elif attrs.mode == "channel":
        red = (1,)
    else:
        red = tuple(range(2, x.ndim))
    acc = _acc(x.dtype)
    xa, ga = x.astype(acc, copy=False), g.astype(acc, copy=False)
    norm = np.sqrt(np.square(xa).sum(axis=red, keepdims=True) + acc.type(attrs.eps))
    y = xa / norm
    return ((ga - y * (ga * y).sum(axis=red, keepdims=True)) / norm).astype(x.dtype, copy=False)


backward_op("_backward_L2Normalization", _backward_l2_normalization, ("ograd", "data"),
            params=(Param("eps", Float, 1e-10), Param("mode", Enum("channel", "instance", "spatial"), "instance")))


@defgrad("L2Normalization")
def _l2_normalization_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_L2Normalization")(out_grads[0], inputs[0], eps=attrs.eps, mode=attrs.mode)]


def _backward_lrn(attrs, g, x):
    """LRN's input gradient: ``g * s^-beta - 2 alpha beta / nsize * x * window_sum(g * x * s^(-beta-1))``
    with ``s = knorm + alpha / nsize * window_sum(x^2)`` (windows across channels)."""
    n = attrs.nsize
    half = n // 2
    C = x.shape[1]
    acc = _acc(x.dtype)
    xa, ga = x.astype(acc, copy=False), g.astype(acc, copy=False)

    def window(v):
        padded = np.zeros((v.shape[0], C + 2 * half) + v.shape[2:], dtype=acc)
        padded[:, half:half + C] = v
        out = padded[:, 0:C].copy()
        for off in range(1, n):
            out += padded[:, off:off + C]
        return out

    s = acc.type(attrs.knorm) + acc.type(attrs.alpha / n) * window(np.square(xa))
    t = ga * xa * np.power(s, acc.type(-attrs.beta - 1))
    dx = ga * np.power(s, acc.type(-attrs.beta)) - acc.type(2 * attrs.alpha * attrs.beta / n) * xa * window(t)
    return dx.astype(x.dtype, copy=False)


backward_op("_backward_LRN", _backward_lrn, ("ograd", "data"),
            params=(Param("alpha", Float, 1e-4), Param("beta", Float, 0.75), Param("knorm", Float, 2.0),
                    Param("nsize", Int)))


@defgrad("LRN")
def _lrn_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_LRN")(out_grads[0], inputs[0], alpha=attrs.alpha, beta=attrs.beta,
                                         knorm=attrs.knorm, nsize=attrs.nsize)]
