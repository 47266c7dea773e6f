"""Smaller tensor operators that exported MXNet graphs and Gluon code use now and then.

``moments``, ``smooth_l1``, ``log_sigmoid``, ``mish``, AMP casts (``amp_cast``, ``amp_multicast``),
``_identity_with_attr_like_rhs``, ``_contrib_div_sqrt_dim``, ``_contrib_boolean_mask``,
``_contrib_index_array``, ``_contrib_gradientmultiplier``, ``_contrib_quadratic``, ``_shuffle``,
``_ravel_multi_index``, ``_unravel_index``.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._util import norm_axes, reduce_axes, reduced_shape, shape_fn
from .attrs import Bool, Dtype, Float, Int, Param, Shape, ShapeOrNone
from .elemwise import unary
from .registry import ZERO_GRAD, OpDef, defgrad, register, same_shape


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x).astype(x.dtype, copy=False)


def _mish(x):
    return (x * np.tanh(np.logaddexp(0.0, x))).astype(x.dtype, copy=False)


unary("log_sigmoid", _log_sigmoid, fluent=True, doc="log_sigmoid: log(1 / (1 + exp(-x))).")
unary("mish", _mish, fluent=True, doc="mish: x * tanh(softrelu(x)).")


def _smooth_l1(x, attrs):
    s2 = attrs.scalar * attrs.scalar
    ax = np.abs(x)
    return np.where(ax < 1.0 / s2, 0.5 * s2 * x * x, ax - 0.5 / s2)


unary("smooth_l1", _smooth_l1, params=(Param("scalar", Float, 1.0), Param("is_int", Bool, True)), fluent=False,
      doc="smooth_l1: 0.5 (sigma x)^2 if |x| < 1/sigma^2 else |x| - 0.5/sigma^2 (sigma = scalar).")


# -- moments -------------------------------------------------------------------------------------------
def _moments(attrs, x):
    """moments: (mean, variance) over ``axes`` (all axes by default)."""
    axes = reduce_axes(attrs.axes, x.ndim)
    mean = np.mean(x, axis=axes, keepdims=True, dtype=x.dtype)
    var = np.mean(np.square(x - mean), axis=axes, keepdims=True, dtype=x.dtype)
    shape = reduced_shape(x.shape, axes, attrs.keepdims)
    return mean.reshape(shape).astype(x.dtype, copy=False), var.reshape(shape).astype(x.dtype, copy=False)


register(OpDef("moments", _moments, params=(Param("axes", ShapeOrNone, None), Param("keepdims", Bool, False)),
               num_outputs=2,
               infer_shape=shape_fn(lambda a, s: [reduced_shape(s, reduce_axes(a.axes, len(s)), a.keepdims)] * 2,
                                    n=2)))


# -- AMP casts -------------------------------------------------------------------------------------------
register(OpDef("amp_cast", lambda a, x: x.astype(np.dtype(a.dtype)) if x.dtype.kind == "f" else x,
               params=(Param("dtype", Dtype),), infer_shape=same_shape,
               infer_type=lambda a, d: [np.dtype(a.dtype) if d[0] is None or np.dtype(d[0]).kind == "f"
                                        else d[0]],
               doc="amp_cast: floating-point inputs cast to ``dtype`` (others pass through)."))


def _multicast_type(attrs, dts):
    floats = [np.dtype(d) for d in dts if d is not None and np.dtype(d).kind == "f"]
    if not floats:
        return [np.dtype(d or np.float32) for d in dts]
    pick = min if attrs.cast_narrow else max
    target = pick(floats, key=lambda d: d.itemsize)
    return [target if d is not None and np.dtype(d).kind == "f" else np.dtype(d or np.float32) for d in dts]


def _amp_multicast(attrs, *xs):
    """amp_multicast: every float input cast to the widest (``cast_narrow``: narrowest) float dtype."""
    dts = _multicast_type(attrs, [x.dtype for x in xs])
    return tuple(x.astype(d, copy=False) for x, d in zip(xs, dts))


register(OpDef("amp_multicast", _amp_multicast,
               params=(Param("num_outputs", Int), Param("cast_narrow", Bool, False)), variadic="num_outputs",
               num_outputs=lambda a: a.num_outputs, infer_type=_multicast_type,
               infer_shape=lambda a, ss: (list(ss), list(ss))))


register(OpDef("_identity_with_attr_like_rhs", lambda a, lhs, rhs: lhs, inputs=("lhs", "rhs"),
               infer_shape=lambda a, ss: (list(ss), [ss[0] if ss[0] is not None else ss[1]]),
               doc="_identity_with_attr_like_rhs: lhs unchanged (rhs only lends its shape/dtype)."))


# -- contrib helpers -------------------------------------------------------------------------------------
register(OpDef("_contrib_div_sqrt_dim",
               lambda a, x: (x / np.sqrt(np.asarray(x.shape[-1], dtype=x.dtype))).astype(x.dtype, copy=False),
               infer_shape=same_shape, doc="div_sqrt_dim: data / sqrt(data.shape[-1])."))
register(OpDef("_contrib_gradientmultiplier", lambda a, x: x.copy(), params=(Param("scalar", Float, 1.0),
                                                                             Param("is_int", Bool, True)),
               infer_shape=same_shape, doc="gradientmultiplier: identity forward (scales gradients only)."))
register(OpDef("_contrib_quadratic",
               lambda a, x: (a.a * x * x + a.b * x + a.c).astype(x.dtype, copy=False),
               params=(Param("a", Float, 0.0), Param("b", Float, 0.0), Param("c", Float, 0.0)),
               infer_shape=same_shape, doc="quadratic: a x^2 + b x + c."))


def _boolean_mask(attrs, data, index):
    """boolean_mask: the slices of ``data`` along ``axis`` where ``index`` is non-zero (dynamic shape)."""
    keep = np.nonzero(index.reshape(-1) != 0)[0]
    return np.take(data, keep, axis=norm_axes(attrs.axis, data.ndim)[0])


def _boolean_mask_shape(attrs, in_shapes):
    raise ShapeError("_contrib_boolean_mask: the output shape depends on the values of 'index'")


register(OpDef("_contrib_boolean_mask", _boolean_mask, inputs=("data", "index"), params=(Param("axis", Int, 0),),
               infer_shape=_boolean_mask_shape))


def _index_array(attrs, x):
    """index_array: each element's index (all axes, or ``axes``) as int64 in a new last axis."""
    axes = tuple(range(x.ndim)) if attrs.axes is None else norm_axes(attrs.axes, x.ndim)
    grids = np.indices(x.shape, dtype=np.int64)
    return np.stack([grids[a] for a in axes], axis=-1) if axes else np.zeros(x.shape + (0,), np.int64)


register(OpDef("_contrib_index_array", _index_array, params=(Param("axes", ShapeOrNone, None),),
               infer_shape=shape_fn(lambda a, s: tuple(s) + (len(s) if a.axes is None else len(a.axes),)),
               infer_type=lambda a, d: [np.dtype(np.int64)]))


def _shuffle(attrs, x):
    """shuffle: the input with its first axis randomly permuted."""
    from .tensor_random import generator
    return x[generator().permutation(x.shape[0])] if x.ndim else x.copy()


register(OpDef("_shuffle", _shuffle, infer_shape=same_shape, aliases=("shuffle",), fluent=False,
               traits=("random",)))


def _ravel(attrs, data):
    """ravel_multi_index: (M, N...) coordinates in ``shape`` -> flat indices (N...)."""
    idx = data.astype(np.int64)
    strides = np.cumprod((1,) + tuple(attrs.shape[::-1]))[:-1][::-1]
    flat = np.tensordot(strides[: idx.shape[0]], idx, axes=(0, 0))
    return np.asarray(flat).astype(data.dtype)


def _unravel(attrs, data):
    """unravel_index: flat indices (N...) -> (M, N...) coordinates in ``shape``, as MXNet's kernel:
    from the last dimension, ``coord = idx - (idx / d) * d`` with C's truncating division; the
    first coordinate is what is left, never reduced by ``shape[0]`` (so ``shape=(-1, 4)`` works)."""
    dims = [int(d) for d in attrs.shape]
    if any(d == 0 for d in dims[1:]):
        raise ShapeError(f"unravel_index: shape {tuple(dims)} has a zero dimension after the first")
    idx = data.astype(np.int64)
    coords = [None] * len(dims)
    for j in range(len(dims) - 1, 0, -1):
        d = dims[j]
        q = np.abs(idx) // abs(d) * (np.sign(idx) * (1 if d > 0 else -1))
        coords[j] = idx - q * d
        idx = q
    coords[0] = idx
    return np.stack(coords).astype(data.dtype)


register(OpDef("_ravel_multi_index", _ravel, params=(Param("shape", Shape),), aliases=("ravel_multi_index",),
               infer_shape=shape_fn(lambda a, s: tuple(s[1:]) or (1,))))
register(OpDef("_unravel_index", _unravel, params=(Param("shape", Shape),), aliases=("unravel_index",),
               infer_shape=shape_fn(lambda a, s: (len(a.shape),) + tuple(s))))


def _allclose(attrs, a, b):
    """allclose: 1 (uint8, shape ()) when |a - b| <= atol + rtol |b| everywhere, as numpy.allclose."""
    _allclose_shape(attrs, [a.shape, b.shape])
    with np.errstate(invalid="ignore"):
        ok = np.isclose(a, b, rtol=attrs.rtol, atol=attrs.atol, equal_nan=attrs.equal_nan)
    return np.asarray(ok.all(), dtype=np.uint8)


def _allclose_shape(attrs, in_shapes):
    sa, sb = in_shapes
    if sa is not None and sb is not None and tuple(sa) != tuple(sb):
        raise ShapeError(f"allclose: a has shape {tuple(sa)}, b has shape {tuple(sb)} (they must be equal)")
    return [sa if sa is not None else sb] * 2, [()]


register(OpDef("_contrib_allclose", _allclose, inputs=("a", "b"),
               params=(Param("rtol", Float, 1e-5), Param("atol", Float, 1e-8), Param("equal_nan", Bool, True)),
               infer_shape=_allclose_shape, infer_type=lambda a, d: [np.dtype(np.uint8)],
               doc="allclose(a, b, rtol, atol, equal_nan): scalar uint8, 1 if all elements are close."))


# -- gradients (MXNet 1.9.1: tensor/elemwise_unary_op_basic.cc, nn/moments.cc, tensor/amp_cast.cc,
# contrib/*.cc, tensor/ravel.cc); _shuffle and _contrib_allclose have no FGradient --------------------
@defgrad("log_sigmoid")
def _log_sigmoid_grad(F, attrs, inputs, outputs, out_grads):
    # _backward_log_sigmoid uses the output: d/dx log(sigmoid(x)) = 1 - exp(y)
    return [F.elemwise_mul(out_grads[0], F._internal._rminus_scalar(F.exp(outputs[0]), scalar=1.0))]


@defgrad("mish")
def _mish_grad(F, attrs, inputs, outputs, out_grads):
    # _backward_mish: tanh(softrelu(x)) + x * sigmoid(x) * (1 - tanh(softrelu(x))^2)
    x = inputs[0]
    t = F.tanh(F.Activation(x, act_type="softrelu"))
    slope = F.elemwise_add(t, F.elemwise_mul(F.elemwise_mul(x, F.sigmoid(x)),
                                             F._internal._rminus_scalar(F.square(t), scalar=1.0)))
    return [F.elemwise_mul(out_grads[0], slope)]


def _backward_smooth_l1(attrs, og, x):
    s2 = attrs.scalar * attrs.scalar
    slope = np.where(x > 1.0 / s2, 1.0, np.where(x < -1.0 / s2, -1.0, s2 * x))
    return (og * slope).astype(x.dtype, copy=False)


backward_op("_backward_smooth_l1", _backward_smooth_l1, ("ograd", "data"),
            params=(Param("scalar", Float, 1.0), Param("is_int", Bool, True)))


@defgrad("smooth_l1")
def _smooth_l1_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_smooth_l1")(out_grads[0], inputs[0], scalar=attrs.scalar)]


def _backward_moments(attrs, og_mean, og_var, x):
    """moments' backward: d mean = 1/N; d var = 2 (x - mean) / N (the mean's own term sums to zero)."""
    axes = reduce_axes(attrs.axes, x.ndim)
    keep = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    n = x.dtype.type(np.prod([x.shape[i] for i in axes]) if axes else 1)
    mean = np.mean(x, axis=axes, keepdims=True, dtype=x.dtype)
    g = og_mean.reshape(keep) / n + og_var.reshape(keep) * (x - mean) * x.dtype.type(2) / n
    return g.astype(x.dtype, copy=False)


backward_op("_backward_moments", _backward_moments, ("ograd_mean", "ograd_var", "data"), like=2,
            params=(Param("axes", ShapeOrNone, None), Param("keepdims", Bool, False)))


@defgrad("moments")
def _moments_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_moments")(out_grads[0], out_grads[1], inputs[0], axes=attrs.axes,
                                             keepdims=attrs.keepdims)]


backward_op("_backward_amp_cast", lambda a, og, x: og.astype(x.dtype, copy=False), ("ograd", "data"),
            doc="amp_cast's backward: the gradient cast back to the input's dtype.")


@defgrad("amp_cast")
def _amp_cast_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_amp_cast")(out_grads[0], inputs[0])]


@defgrad("amp_multicast")
def _amp_multicast_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_amp_cast")(g, x) for g, x in zip(out_grads, inputs)]


@defgrad("_identity_with_attr_like_rhs")
def _identity_like_rhs_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._copy(out_grads[0]), F.zeros_like(inputs[1])]


@defgrad("_contrib_div_sqrt_dim")
def _div_sqrt_dim_grad(F, attrs, inputs, outputs, out_grads):
    return [F.contrib.div_sqrt_dim(out_grads[0])]


@defgrad("_contrib_gradientmultiplier")
def _gradientmultiplier_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._mul_scalar(out_grads[0], scalar=attrs.scalar)]


@defgrad("_contrib_quadratic")
def _quadratic_grad(F, attrs, inputs, outputs, out_grads):
    slope = F._internal._plus_scalar(F._internal._mul_scalar(inputs[0], scalar=2.0 * attrs.a), scalar=attrs.b)
    return [F.elemwise_mul(out_grads[0], slope)]


def _backward_boolean_mask(attrs, og, data, index):
    """boolean_mask's backward: the kept slices get their output gradient, the dropped ones zero."""
    g = np.zeros_like(data)
    keep = np.nonzero(index.reshape(-1) != 0)[0]
    ax = norm_axes(attrs.axis, data.ndim)[0]
    sel = [slice(None)] * data.ndim
    sel[ax] = keep
    g[tuple(sel)] = og
    return g


backward_op("_backward_contrib_boolean_mask", _backward_boolean_mask, ("ograd", "data", "index"),
            params=(Param("axis", Int, 0),))


@defgrad("_contrib_boolean_mask")
def _boolean_mask_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_contrib_boolean_mask")(out_grads[0], inputs[0], inputs[1], axis=attrs.axis),
            None]


defgrad("_contrib_index_array", "_ravel_multi_index", "_unravel_index")(ZERO_GRAD)  # MakeZeroGradNodes
