"""Loss/output layers of MXNet's symbolic API (forward passes only): ``MakeLoss``,
``LinearRegressionOutput``, ``MAERegressionOutput``, ``LogisticRegressionOutput``, ``SVMOutput``,
``IdentityAttachKLSparseReg`` and ``softmax_cross_entropy``.

In MXNet these ops differ from identity/sigmoid only in their gradients; the forward values are
what a prediction graph produces.
"""
from __future__ import annotations

import numpy as np

from .attrs import Bool, Enum, Float, Param
from .registry import OpDef, register, same_shape
from ._nnutil import merge_shape


def _label_like_data(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None]
    lab = ins[1]
    if lab is None or len(lab) == 0:
        ins[1] = tuple(d)
    elif len(lab) == len(d):
        ins[1] = merge_shape(lab, tuple(d), "label")
    return ins, [tuple(d)]


def _identity(attrs, x, *rest):
    """Forward pass: the data itself (the op only changes gradients)."""
    return x.copy()


def _logistic(attrs, x, label=None):
    """Forward pass: ``sigmoid(data)``."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


_GRAD_SCALE = (Param("grad_scale", Float, 1.0),)
register(OpDef("LinearRegressionOutput", _identity, params=_GRAD_SCALE, inputs=("data", "label"),
               infer_shape=_label_like_data, open_attrs=True))  # MXNet: InitAllowUnknown
register(OpDef("MAERegressionOutput", _identity, params=_GRAD_SCALE, inputs=("data", "label"),
               infer_shape=_label_like_data, open_attrs=True))
register(OpDef("LogisticRegressionOutput", _logistic, params=_GRAD_SCALE, inputs=("data", "label"),
               infer_shape=_label_like_data, open_attrs=True))


def _svm_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None]
    ins[1] = merge_shape(ins[1], (d[0],), "SVMOutput label")
    return ins, [tuple(d)]


register(OpDef("SVMOutput", _identity,
               params=(Param("margin", Float, 1.0), Param("regularization_coefficient", Float, 1.0),
                       Param("use_linear", Bool, False)),
               inputs=("data", "label"), infer_shape=_svm_shape))

register(OpDef("MakeLoss", _identity,
               params=(Param("grad_scale", Float, 1.0), Param("valid_thresh", Float, 0.0),
                       Param("normalization", Enum("batch", "null", "valid"), "null")),
               infer_shape=same_shape))

def _kl_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) < 2:
        return ins, [None if d is None else tuple(d)]
    ins[1] = merge_shape(ins[1], (d[1],), "IdentityAttachKLSparseReg moving_avg")
    return ins, [tuple(d)]


register(OpDef("IdentityAttachKLSparseReg", _identity,
               params=(Param("sparseness_target", Float, 0.1), Param("penalty", Float, 0.001),
                       Param("momentum", Float, 0.9)),
               inputs=("data", "moving_avg"), aux=("moving_avg",), infer_shape=_kl_shape))


def _sce_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None]
    ins[1] = merge_shape(ins[1], (d[0],), "softmax_cross_entropy label")
    return ins, [(1,)]


def _softmax_cross_entropy(attrs, x, label):
    """Sum over the batch of ``-log softmax(data)[label]`` (data ``(N, C)``, label ``(N,)``)."""
    z = x.astype(np.float64)
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    idx = np.clip(label.astype(np.int64), 0, x.shape[1] - 1)
    return np.array([-logp[np.arange(x.shape[0]), idx].sum()], dtype=x.dtype)


register(OpDef("softmax_cross_entropy", _softmax_cross_entropy, inputs=("data", "label"),
               infer_shape=_sce_shape))
