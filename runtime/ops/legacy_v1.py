"""MXNet 1.9.1's deprecated operators still found in old models and code: ``BatchNorm_v1``,
``Convolution_v1``, ``Pooling_v1``, ``fill_element_0index`` and ``_onehot_encode`` (``nd.onehot_encode``).

``Convolution_v1`` is Convolution restricted to 2-D NCHW. ``Pooling_v1`` is mshadow's pooling: the
zero padding takes part in max pooling too, windows reaching past the padded input (``full``
convention) are cut, ``avg`` divides by the whole kernel area, global pooling ignores ``pad``.

``BatchNorm_v1`` (``src/operator/batch_norm_v1-inl.h``) differs from ``BatchNorm``: the channel
axis is always 1 and data is 2-D or 4-D float32 (``real_t``); ``output_mean_var`` returns the
mean and the *variance* (BatchNorm returns the inverse standard deviation); at inference (or with
``use_global_stats``) the extra outputs are the moving statistics. Training mode normalizes with
the batch statistics; the moving averages are updated in MXNet's backward pass only, so a forward
pass (all this runtime runs) leaves them alone, as MXNet's forward does.

``fill_element_0index(lhs, mhs, rhs)``: a copy of the matrix ``lhs`` with ``out[i, int(rhs[i])] =
mhs[i]`` (an index outside the row leaves it alone). ``_onehot_encode(indices, out)``: rows of
``out``'s shape with a 1 at ``int(indices[i])`` (none when out of range). Both are float32-only
legacy NDArray functions in MXNet.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import ShapeError
from . import nn_conv
from ._grad import internal
from ._nnutil import is_training, merge_shape, windows
from .attrs import Bool, Enum, Float, Param, Shape
from .registry import OpDef, defgrad, get_op, register


def _float32_only(name: str, *arrays: np.ndarray) -> None:
    for a in arrays:
        if a.dtype != np.float32:
            raise ShapeError(f"{name}: only supports float32 as input/output, got {a.dtype.name}")


# -- BatchNorm_v1 ---------------------------------------------------------------------------------------
def _bn_v1_nout(attrs) -> int:
    return 3 if attrs.output_mean_var else 1


def _bn_v1(attrs, data, gamma, beta, moving_mean, moving_var):
    """BatchNorm_v1: batch normalization over axis 1 (the deprecated MXNet 0.x operator)."""
    _float32_only("BatchNorm_v1", data, gamma, beta, moving_mean, moving_var)
    if data.ndim not in (2, 4):
        raise ShapeError(f"BatchNorm_v1: data must be 2-D or 4-D, got shape {data.shape}")
    C = data.shape[1]
    bshape = (1, C) + (1,) * (data.ndim - 2)
    slope = np.ones(C, np.float32) if attrs.fix_gamma else gamma
    eps = np.float32(attrs.eps)
    if is_training() and not attrs.use_global_stats:
        red = (0,) + tuple(range(2, data.ndim))
        scale = np.float32(C / data.size)
        mean = (data.sum(axis=red, dtype=np.float32) * scale).astype(np.float32)
        centered = data - mean.reshape(bshape)
        var = (np.square(centered).sum(axis=red, dtype=np.float32) * scale).astype(np.float32)
        out = slope.reshape(bshape) * centered / np.sqrt((var + eps).reshape(bshape)) + beta.reshape(bshape)
    else:
        std = np.sqrt(moving_var + eps)
        out = (slope / std).reshape(bshape) * data + (beta - slope * moving_mean / std).reshape(bshape)
        mean, var = moving_mean.copy(), moving_var.copy()
    out = out.astype(np.float32, copy=False)
    return (out, mean, var) if attrs.output_mean_var else out


def _bn_v1_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None] * _bn_v1_nout(attrs)
    if len(d) < 2:
        raise ShapeError(f"BatchNorm_v1: data must have a channel axis, got shape {tuple(d)}")
    C = d[1]
    for i in range(1, 5):
        ins[i] = merge_shape(ins[i], (C,), "BatchNorm_v1 parameter")
    outs = [tuple(d)] + [(C,), (C,)][: _bn_v1_nout(attrs) - 1]
    return ins, outs


def _bn_v1_type(attrs, in_dtypes):
    d = np.dtype(in_dtypes[0] if in_dtypes and in_dtypes[0] is not None else np.float32)
    p = np.dtype(np.float32) if d == np.float16 else d
    return [d] + [p] * (_bn_v1_nout(attrs) - 1)


@dataclass(eq=False)
class _BatchNormV1(OpDef):
    """BatchNorm_v1's outputs are ``output``, ``mean``, ``var`` (the last two visible with
    ``output_mean_var`` only)."""

    def output_names(self, attrs: Any) -> list[str]:
        return ["output", "mean", "var"][: _bn_v1_nout(attrs)]


register(_BatchNormV1(
    "BatchNorm_v1", _bn_v1,
    params=(Param("eps", Float, 1e-3), Param("momentum", Float, 0.9), Param("fix_gamma", Bool, True),
            Param("use_global_stats", Bool, False), Param("output_mean_var", Bool, False)),
    inputs=("data", "gamma", "beta", "moving_mean", "moving_var"), aux=("moving_mean", "moving_var"),
    num_outputs=_bn_v1_nout, infer_shape=_bn_v1_shape, infer_type=_bn_v1_type, mode_dependent=True,
))


# -- fill_element_0index / _onehot_encode ---------------------------------------------------------------------
def _fill_element_0index(attrs, lhs, mhs, rhs):
    """fill_element_0index: a copy of matrix ``lhs`` with ``out[i, int(rhs[i])] = mhs[i]``."""
    _float32_only("fill_element_0index", lhs, mhs, rhs)
    _fill_shape(attrs, [lhs.shape, mhs.shape, rhs.shape])
    out = lhs.copy()
    idx = rhs.astype(np.int64)
    rows = np.nonzero((idx >= 0) & (idx < lhs.shape[1]))[0]
    out[rows, idx[rows]] = mhs[rows]
    return out


def _fill_shape(attrs, in_shapes):
    ls, ms, rs = in_shapes
    if any(s is None or len(s) == 0 for s in in_shapes):
        return list(in_shapes), [ls if ls else None]
    if len(ls) != 2 or len(ms) != 1 or len(rs) != 1:
        raise ShapeError("fill_element_0index: fill_row_element only support 2D Matrix, 1D value and 1D index")
    if not ls[0] == ms[0] == rs[0]:
        raise ShapeError("fill_element_0index: choose_row_element index vector, value vector and matrix shape mismatch")
    return list(in_shapes), [tuple(ls)]


register(OpDef("fill_element_0index", _fill_element_0index, inputs=("lhs", "mhs", "rhs"),
               infer_shape=_fill_shape))


def _onehot_encode(attrs, index, proptype):
    """_onehot_encode: rows shaped like ``proptype`` with a 1 at column ``int(index[i])``."""
    _float32_only("_onehot_encode", index, proptype)
    _onehot_shape(attrs, [index.shape, proptype.shape])
    idx = index.astype(np.int64)
    return (np.arange(proptype.shape[1])[None, :] == idx[:, None]).astype(np.float32)


def _onehot_shape(attrs, in_shapes):
    i, p = in_shapes
    if i is None or p is None or len(i) == 0 or len(p) == 0:
        return list(in_shapes), [p if p else None]
    if len(i) != 1 or len(p) != 2:
        raise ShapeError("_onehot_encode: OneHotEncode only support 1d index.")
    if i[0] != p[0]:
        raise ShapeError("_onehot_encode: OneHotEncode shape inconsistent")
    return list(in_shapes), [tuple(p)]


register(OpDef("_onehot_encode", _onehot_encode, inputs=("lhs", "rhs"), infer_shape=_onehot_shape))


# -- Convolution_v1 -----------------------------------------------------------------------------------------
def _conv_v1_check(attrs) -> None:
    if len(attrs.kernel) != 2:
        raise ShapeError(f"Convolution_v1: only 2-D kernels are implemented (MXNet: volume convolution is not "
                         f"implemented in mshadow), got kernel {tuple(attrs.kernel)}")
    if attrs.layout not in (None, "NCHW"):
        raise ShapeError(f"Convolution_v1: computes NCHW data only, got layout {attrs.layout}")


def _conv_v1(attrs, *arrays):
    """Convolution_v1: MXNet 0.x's 2-D convolution (im2col + gemm): the same result as Convolution."""
    _conv_v1_check(attrs)
    return nn_conv._convolution(attrs, *arrays)


def _conv_v1_shape(attrs, in_shapes):
    _conv_v1_check(attrs)
    return nn_conv._conv_shape(attrs, in_shapes)


register(OpDef("Convolution_v1", _conv_v1, params=nn_conv._CONV_PARAMS, inputs=nn_conv._conv_inputs,
               infer_shape=_conv_v1_shape, infer_shape_backward=nn_conv._batch_backward,
               infer_type=lambda attrs, dts: [np.dtype(dts[0] or np.float32)]))


# -- Pooling_v1 -------------------------------------------------------------------------------------------------
def _pool_v1_geometry(attrs, shape) -> tuple:
    """(kernel, stride, pad, out (h, w)) per MXNet's PoolingV1Prop::InferShape."""
    if len(shape) not in (4, 5):
        raise ShapeError("Pooling_v1: Input data should be 4D in (batch, channel, y, x) Or 5D in "
                         f"(batch, channel, d, y, x), got {tuple(shape)}")
    if attrs.global_pool:
        return tuple(shape[2:4]), (1, 1), (0, 0), (1, 1)
    k = tuple(attrs.kernel)
    if len(k) != 2 or len(shape) != 4:
        raise ShapeError(f"Pooling_v1: only 2-D pooling of 4-D data is implemented (3D kernel not implemented), "
                         f"got kernel {k} for data {tuple(shape)}")
    s = tuple(attrs.stride) or (1, 1)
    p = tuple(attrs.pad) or (0, 0)
    out = []
    for n, kk, ss, pp in zip(shape[2:], k, s, p):
        if kk > n + 2 * pp:
            raise ShapeError(f"Pooling_v1: kernel size ({kk}) exceeds input ({n} padded to {n + 2 * pp})")
        span = n + 2 * pp - kk
        out.append(1 + (span // ss if attrs.pooling_convention == "valid" else int(np.ceil(span / ss))))
    return k, s, p, tuple(out)


def _pooling_v1(attrs, x):
    """Pooling_v1: mshadow's pooling: zero padding takes part (also in max), windows reaching past
    the padded input are cut, and ``avg`` always divides by the full kernel area."""
    k, s, p, out = _pool_v1_geometry(attrs, x.shape)
    if x.ndim != 4:
        raise ShapeError("Pooling_v1: 3D kernel not implemented")
    H, W = x.shape[2] + 2 * p[0], x.shape[3] + 2 * p[1]
    need_h, need_w = (out[0] - 1) * s[0] + k[0], (out[1] - 1) * s[1] + k[1]
    fill = 0                                                 # cut window parts never win or add
    if attrs.pool_type == "max":
        fill = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = np.full(x.shape[:2] + (max(H, need_h), max(W, need_w)), fill, dtype=x.dtype)
    xp[:, :, :H, :W] = 0
    xp[:, :, p[0]:p[0] + x.shape[2], p[1]:p[1] + x.shape[3]] = x
    win = windows(xp, k, s, (1, 1), out)
    if attrs.pool_type == "max":
        return win.max(axis=(-2, -1))
    total = win.sum(axis=(-2, -1), dtype=x.dtype)
    if attrs.pool_type == "sum":
        return total
    return (total * x.dtype.type(1.0 / (k[0] * k[1]))).astype(x.dtype, copy=False)


def _pooling_v1_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0 or not all(d):
        return list(in_shapes), [None]
    _, _, _, out = _pool_v1_geometry(attrs, d)
    return list(in_shapes), [tuple(d[:2]) + out]


register(OpDef(
    "Pooling_v1", _pooling_v1,
    params=(Param("kernel", Shape, ()), Param("pool_type", Enum("max", "avg", "sum"), "max"),
            Param("global_pool", Bool, False), Param("pooling_convention", Enum("full", "valid"), "valid"),
            Param("stride", Shape, ()), Param("pad", Shape, ())),
    infer_shape=_pooling_v1_shape,
))


# -- gradients (MXNet 1.9.1: the legacy operators' Backward; fill_element_0index and _onehot_encode are
# NDArray functions without gradient) ----------------------------------------------------------------------
def _backward_bn_v1(attrs, og, data, gamma, beta, moving_mean, moving_var):
    """BatchNorm_v1's backward: with batch statistics (training), the full normalization Jacobian;
    with the moving ones, a per-channel scale. ``fix_gamma`` gives gamma a zero gradient."""
    C = data.shape[1]
    red = (0,) + tuple(range(2, data.ndim))
    bshape = (1, C) + (1,) * (data.ndim - 2)
    x, dy = data.astype(np.float64), og.astype(np.float64)
    slope = np.ones(C) if attrs.fix_gamma else gamma.astype(np.float64)
    if is_training() and not attrs.use_global_stats:
        mean = x.mean(axis=red)
        var = np.square(x - mean.reshape(bshape)).mean(axis=red)
    else:
        mean, var = moving_mean.astype(np.float64), moving_var.astype(np.float64)
    std = np.sqrt(var + np.float32(attrs.eps))
    xhat = (x - mean.reshape(bshape)) / std.reshape(bshape)
    dbeta = dy.sum(axis=red)
    dgamma = (dy * xhat).sum(axis=red)
    if is_training() and not attrs.use_global_stats:
        n = data.size / C
        dx = (slope / std).reshape(bshape) / n * (n * dy - dbeta.reshape(bshape) - xhat * dgamma.reshape(bshape))
    else:
        dx = dy * (slope / std).reshape(bshape)
    if attrs.fix_gamma:
        dgamma = np.zeros(C)
    return dx.astype(data.dtype), dgamma.astype(gamma.dtype), dbeta.astype(beta.dtype)


register(OpDef("_backward_BatchNorm_v1", _backward_bn_v1, params=get_op("BatchNorm_v1").params,
               inputs=("ograd", "data", "gamma", "beta", "moving_mean", "moving_var"), num_outputs=3,
               infer_shape=lambda a, ss: (list(ss), list(ss[1:4])),
               infer_type=lambda a, ds: [d or np.float32 for d in ds[1:4]], mode_dependent=True,
               doc="BatchNorm_v1 backward."))


@defgrad("BatchNorm_v1")
def _bn_v1_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_BatchNorm_v1")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1], g[2], None, None]


@defgrad("Convolution_v1")
def _conv_v1_grad(F, attrs, inputs, outputs, out_grads):
    """Convolution_v1 computes what Convolution computes (same attributes): Convolution's gradient."""
    conv = get_op("Convolution")
    if conv.gradient is None:
        from ..base import NonDifferentiableError
        raise NonDifferentiableError("Convolution_v1 needs Convolution's gradient rule")
    return conv.gradient(F, attrs, inputs, outputs, out_grads)


def _backward_pooling_v1(attrs, og, x):
    """Pooling_v1's backward (mshadow's unpool): max sends each window's gradient to every element equal
    to its maximum (padding included, then cut), avg spreads it over the full kernel area, sum copies it."""
    k, s, p, out = _pool_v1_geometry(attrs, x.shape)
    H, W = x.shape[2] + 2 * p[0], x.shape[3] + 2 * p[1]
    need_h, need_w = (out[0] - 1) * s[0] + k[0], (out[1] - 1) * s[1] + k[1]
    fill = np.finfo(x.dtype).min if attrs.pool_type == "max" else 0
    xp = np.full(x.shape[:2] + (max(H, need_h), max(W, need_w)), fill, dtype=x.dtype)
    xp[:, :, :H, :W] = 0
    xp[:, :, p[0]:p[0] + x.shape[2], p[1]:p[1] + x.shape[3]] = x
    win = windows(xp, k, s, (1, 1), out)                               # (N, C, oh, ow, kh, kw)
    g = og.astype(np.float64)[..., None, None]
    if attrs.pool_type == "max":
        contrib = (win == win.max(axis=(-2, -1), keepdims=True)) * g
    elif attrs.pool_type == "avg":
        contrib = np.broadcast_to(g / (k[0] * k[1]), win.shape)
    else:
        contrib = np.broadcast_to(g, win.shape)
    rows = (np.arange(out[0]) * s[0])[:, None, None, None] + np.arange(k[0])[None, None, :, None]
    cols = (np.arange(out[1]) * s[1])[None, :, None, None] + np.arange(k[1])[None, None, None, :]
    gp = np.zeros(xp.shape)
    np.add.at(gp, (slice(None), slice(None), rows, cols), contrib)
    return gp[:, :, p[0]:p[0] + x.shape[2], p[1]:p[1] + x.shape[3]].astype(x.dtype)


register(OpDef("_backward_Pooling_v1", _backward_pooling_v1, params=get_op("Pooling_v1").params,
               inputs=("ograd", "data"), infer_shape=lambda a, ss: (list(ss), [ss[1]]),
               infer_type=lambda a, ds: [ds[1] or np.float32], doc="Pooling_v1 backward."))


@defgrad("Pooling_v1")
def _pooling_v1_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_Pooling_v1")(out_grads[0], inputs[0], **attrs.as_dict())]
