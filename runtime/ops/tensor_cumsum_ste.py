"""``cumsum`` (MXNet 1.9.1's ``_np_cumsum``, also exposed as ``nd.cumsum``) and the straight-through
estimators ``_contrib_round_ste`` / ``_contrib_sign_ste`` (their forward pass is ``round`` /
``sign``; only their gradient differs, which this forward-only runtime does not compute).

``cumsum``: over ``axis``, or over the flattened array when ``axis`` is None; ``dtype`` sets the
accumulator and output type (default: the input's, bool becoming int64), summed sequentially as
MXNet's lane loop does. A negative axis is refused, as MXNet 1.9.1's kernel refuses it.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._nnutil import OptEnum
from ._util import known
from .attrs import IntOrNone, Param
from .registry import OpDef, defgrad, register, same_shape

_CUMSUM_TYPES = ("float16", "float32", "float64", "int8", "int32", "int64")


def _cumsum_type(attrs, in_dtypes):
    if attrs.dtype is not None:
        return [np.dtype(attrs.dtype)]
    d = np.dtype(in_dtypes[0] if in_dtypes and in_dtypes[0] is not None else np.float32)
    return [np.dtype(np.int64) if d == np.bool_ else d]


def _check_axis(axis: int, ndim: int) -> None:
    """MXNet 1.9.1 indexes the shape with the axis as given: a negative axis fails there too."""
    if not 0 <= axis < ndim:
        raise ShapeError(f"cumsum: index = {axis} must be in range [0, {ndim})")


def _cumsum(attrs, a):
    """cumsum: running sums along ``axis`` (the flattened array when None)."""
    out_t = _cumsum_type(attrs, [a.dtype])[0]
    if attrs.axis is None:
        return np.cumsum(a.reshape(-1).astype(out_t, copy=False), dtype=out_t)
    _check_axis(attrs.axis, a.ndim)
    return np.cumsum(a.astype(out_t, copy=False), axis=attrs.axis, dtype=out_t)


def _cumsum_shape(attrs, in_shapes):
    s = in_shapes[0]
    if not known(s, scalar=False):
        return list(in_shapes), [None]
    if attrs.axis is None:
        return list(in_shapes), [(int(np.prod(s)),)]
    _check_axis(attrs.axis, len(s))
    return list(in_shapes), [tuple(s)]


register(OpDef("_np_cumsum", _cumsum, inputs=("a",),
               params=(Param("axis", IntOrNone, None), Param("dtype", OptEnum(*_CUMSUM_TYPES), None)),
               infer_shape=_cumsum_shape, infer_type=_cumsum_type, aliases=("cumsum",)))


def _round_ste(attrs, x):
    """_contrib_round_ste: round half away from zero (forward of the straight-through estimator)."""
    if x.dtype.kind not in "fc":
        return x.copy()
    return (np.sign(x) * np.floor(np.abs(x) + x.dtype.type(0.5))).astype(x.dtype, copy=False)


def _sign_ste(attrs, x):
    """_contrib_sign_ste: sign (forward of the straight-through estimator)."""
    return np.sign(x).astype(x.dtype, copy=False)


register(OpDef("_contrib_round_ste", _round_ste, infer_shape=same_shape))
register(OpDef("_contrib_sign_ste", _sign_ste, infer_shape=same_shape))


# -- gradients (MXNet 1.9.1: numpy/np_cumsum.cc, contrib/stes_op.cc) -----------------------------------
def _backward_cumsum(attrs, og, a):
    """cumsum's backward: reversed running sums of the output gradient, in the input's dtype."""
    if attrs.axis is None:
        g = np.flip(np.cumsum(np.flip(og.reshape(-1)))).reshape(a.shape)
    else:
        g = np.flip(np.cumsum(np.flip(og, attrs.axis), axis=attrs.axis), attrs.axis)
    return g.astype(a.dtype, copy=False)


backward_op("_backward_np_cumsum", _backward_cumsum, ("ograd", "a"),
            params=(Param("axis", IntOrNone, None), Param("dtype", OptEnum(*_CUMSUM_TYPES), None)))


@defgrad("_np_cumsum")
def _cumsum_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_np_cumsum")(out_grads[0], inputs[0], axis=attrs.axis)]


@defgrad("_contrib_round_ste", "_contrib_sign_ste")
def _straight_through_grad(F, attrs, inputs, outputs, out_grads):
    """The straight-through estimator: the output gradient passes unchanged (CloneGradient)."""
    return [F._internal._copy(out_grads[0])]
