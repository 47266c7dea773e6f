"""Loss/output layers of MXNet's symbolic API (forward passes only): ``MakeLoss``,
``LinearRegressionOutput``, ``MAERegressionOutput``, ``LogisticRegressionOutput``, ``SVMOutput``,
``IdentityAttachKLSparseReg`` and ``softmax_cross_entropy``.

In MXNet these ops differ from identity/sigmoid only in their gradients; the forward values are
what a prediction graph produces.
"""
from __future__ import annotations

import numpy as np

from ._nnutil import merge_shape
from .attrs import Bool, Enum, Float, Param
from .registry import OpDef, register, same_shape


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


# -- gradients: these ops exist for their backward (MXNet's regression_output-inl.h, make_loss-inl.h,
# svm_output-inl.h, identity_attach_KL_sparse_reg-inl.h, loss_binary_op-inl.h) -----------------------
from ._grad import backward_op, internal
from .registry import defgrad


def _backward_regression(attrs, y, label):
    """Regression outputs' data gradient: ``(out - label)`` (linear, logistic) or its sign (MAE),
    times ``grad_scale`` over the number of outputs per example; the incoming gradient is ignored."""
    num_output = max(1, label.size // max(1, label.shape[0])) if label.ndim else 1
    lab = label.reshape(y.shape)
    d = np.sign(y - lab) if attrs.kind == "mae" else y - lab
    return (d * y.dtype.type(attrs.grad_scale / num_output)).astype(y.dtype, copy=False)


backward_op("_backward_RegressionOutput", _backward_regression, ("output", "label"), like=0,
            params=_GRAD_SCALE + (Param("kind", Enum("linear", "mae", "logistic"), "linear"),))


def _regression_rule(kind):
    def rule(F, attrs, inputs, outputs, out_grads):
        return [internal(F, "_backward_RegressionOutput")(outputs[0], inputs[1], grad_scale=attrs.grad_scale,
                                                          kind=kind), None]
    return rule


defgrad("LinearRegressionOutput")(_regression_rule("linear"))
defgrad("MAERegressionOutput")(_regression_rule("mae"))
defgrad("LogisticRegressionOutput")(_regression_rule("logistic"))


def _backward_make_loss(attrs, y):
    """MakeLoss's gradient: ``grad_scale`` everywhere, over the batch size ('batch') or the number of
    elements above ``valid_thresh`` ('valid'); the incoming gradient is ignored."""
    scale = attrs.grad_scale
    if attrs.normalization == "batch":
        scale /= y.shape[0]
    elif attrs.normalization == "valid":
        scale /= max(1, int(np.sum(y > attrs.valid_thresh)))
    return np.full(y.shape, scale, dtype=y.dtype)


backward_op("_backward_MakeLoss", _backward_make_loss, ("output",), like=0,
            params=(Param("grad_scale", Float, 1.0), Param("valid_thresh", Float, 0.0),
                    Param("normalization", Enum("batch", "null", "valid"), "null")))


@defgrad("MakeLoss")
def _make_loss_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_MakeLoss")(outputs[0], grad_scale=attrs.grad_scale, valid_thresh=attrs.valid_thresh,
                                              normalization=attrs.normalization)]


def _backward_svm(attrs, x, label):
    """SVMOutput's data gradient (hinge loss; squared hinge unless ``use_linear``), as MXNet's L1/L2_SVM."""
    n = x.shape[0]
    x2 = x.reshape(n, -1)
    lab = label.reshape(-1).astype(np.int64)
    sign = -np.ones_like(x2)
    sign[np.arange(n), lab] = 1
    margin = x.dtype.type(attrs.margin)
    viol = margin - sign * x2
    if attrs.use_linear:
        d = np.where(viol > 0, -sign, 0)
    else:
        d = np.where(viol > 0, -2 * sign * viol, 0)
    return (d * x.dtype.type(attrs.regularization_coefficient)).reshape(x.shape).astype(x.dtype, copy=False)


backward_op("_backward_SVMOutput", _backward_svm, ("data", "label"), like=0,
            params=(Param("margin", Float, 1.0), Param("regularization_coefficient", Float, 1.0),
                    Param("use_linear", Bool, False)))


@defgrad("SVMOutput")
def _svm_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_SVMOutput")(inputs[0], inputs[1], margin=attrs.margin,
                                               regularization_coefficient=attrs.regularization_coefficient,
                                               use_linear=attrs.use_linear), None]


def _backward_softmax_cross_entropy(attrs, g, x, label):
    """softmax_cross_entropy's data gradient: ``(softmax(data) - one_hot(label)) * g``."""
    z = x.astype(np.float64)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    z /= z.sum(axis=1, keepdims=True)
    idx = np.clip(label.astype(np.int64), 0, x.shape[1] - 1)
    z[np.arange(x.shape[0]), idx] -= 1
    return (z * g.reshape(-1)[0]).astype(x.dtype)


backward_op("_backward_softmax_cross_entropy", _backward_softmax_cross_entropy, ("ograd", "data", "label"), like=1)


@defgrad("softmax_cross_entropy")
def _softmax_cross_entropy_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_softmax_cross_entropy")(out_grads[0], inputs[0], inputs[1]), None]


_KL_PARAMS = (Param("sparseness_target", Float, 0.1), Param("penalty", Float, 0.001), Param("momentum", Float, 0.9))


def _backward_kl_sparse_reg(attrs, g, x, moving_avg):
    """IdentityAttachKLSparseReg's data gradient, as MXNet's backward: the moving average of the mean
    activation per unit (data flattened to (batch, units)) is updated in place first, then
    ``g + penalty * (-target / avg + (1 - target) / (1 - avg))`` with the updated average."""
    x2 = x.reshape(x.shape[0], -1).astype(np.float32, copy=False)
    m = np.float32(attrs.momentum)
    avg = x2.sum(axis=0, dtype=np.float32) / np.float32(x2.shape[0])
    moving_avg[...] = (m * moving_avg + (np.float32(1) - m) * avg).astype(moving_avg.dtype)
    t, pen = np.float32(attrs.sparseness_target), np.float32(attrs.penalty)
    reg = pen * (-t / moving_avg + (np.float32(1) - t) / (np.float32(1) - moving_avg))
    return (g.reshape(x2.shape) + reg[None, :]).reshape(x.shape).astype(x.dtype, copy=False)


backward_op("_backward_IdentityAttachKLSparseReg", _backward_kl_sparse_reg, ("ograd", "data", "moving_avg"), like=1,
            params=_KL_PARAMS)


@defgrad("IdentityAttachKLSparseReg")
def _kl_sparse_reg_grad(F, attrs, inputs, outputs, out_grads):
    kw = {p.name: getattr(attrs, p.name) for p in _KL_PARAMS}
    return [internal(F, "_backward_IdentityAttachKLSparseReg")(out_grads[0], inputs[0], inputs[1], **kw), None]
