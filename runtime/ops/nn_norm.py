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

import numpy as np

from ..base import ShapeError
from .attrs import Bool, Enum, Float, Int, Param, Str
from .registry import OpDef, register, same_shape
from ._nnutil import OptFloat, is_training, merge_shape


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
    if relu:
        np.maximum(out, 0, out=out)
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

register(OpDef("BatchNorm", _batch_norm, params=_BN_PARAMS, inputs=_BN_INPUTS, aux=_BN_AUX,
               num_outputs=_bn_nout, infer_shape=_bn_shape, infer_type=_bn_type, mode_dependent=True))
register(OpDef("_contrib_BatchNormWithReLU", _batch_norm_relu, params=_BN_PARAMS, inputs=_BN_INPUTS,
               aux=_BN_AUX, num_outputs=_bn_nout, infer_shape=_bn_shape, infer_type=_bn_type,
               mode_dependent=True))


register(OpDef(
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
    mean = xa.mean(axis=ax, keepdims=True, dtype=acc)
    xc = xa - mean
    var = np.square(xc).mean(axis=ax, keepdims=True, dtype=acc)
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
