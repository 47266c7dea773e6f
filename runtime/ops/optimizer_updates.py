"""MXNet 1.9.1's optimizer update operators (``src/operator/optimizer_op-inl.h``): ``sgd_update``,
``sgd_mom_update``, ``mp_sgd_update``, ``mp_sgd_mom_update``, ``nag_mom_update``,
``mp_nag_mom_update``, ``signsgd_update``, ``signum_update``, ``ftml_update``, ``adam_update``,
``rmsprop_update``, ``rmspropalex_update``, ``ftrl_update``, ``lamb_update_phase1/2``,
``mp_lamb_update_phase1/2``, ``_adamw_update``, ``_mp_adamw_update``
(``nd.contrib.adamw_update``; its ``rescale_grad`` is a tensor, and a zero or non-finite one skips
the update: the weight and states stay as they were).

Each returns the updated weight and, as MXNet, updates its state inputs in place (``FMutateInputs``:
momentum, Adam's mean/var, the fp32 master weight of the ``mp_*`` forms, ...). In a Symbol those
inputs are auxiliary states, as in MXNet. The registry's kernels are pure: ``compute`` returns the
weight; :data:`STATEFUL` maps each op to the function giving the new states too, which the ``nd``
functions (``_pyfuncs.install``) write back into the state arrays. Graph executors return the
weight only (the states of one step are not carried to the next run).

The arithmetic is MXNet's, in the weight's dtype (float32 for the ``mp_*`` master copies), with
its clipping ``clip(x, c)`` when ``clip_gradient >= 0``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..base import ShapeError
from ._tuple_attrs import FloatTuple
from .attrs import Bool, Float, Int, Param, Shape
from .registry import OpDef, register

_F = np.float32


def _clip(x: np.ndarray, bound) -> np.ndarray:
    return np.clip(x, -bound, bound)


def _c(dt, v):
    """A float parameter as the kernel holds it (``DType`` or float)."""
    return np.dtype(dt).type(v)


def _scaled_grad(attrs, g, dt, clip_attr="clip_gradient"):
    rg = _c(dt, attrs.rescale_grad)
    clip = getattr(attrs, clip_attr)
    return _clip(rg * g, _c(dt, clip)) if clip >= 0 else None


# -- SGD family ---------------------------------------------------------------------------------------------
def _sgd(attrs, weight, grad):
    dt = weight.dtype
    lr, wd = _c(dt, attrs.lr), _c(dt, attrs.wd)
    cg = _scaled_grad(attrs, grad, dt)
    if cg is not None:
        out = (_c(dt, 1.0) - lr * wd) * weight - lr * cg
    else:
        out = (_c(dt, 1.0) - lr * wd) * weight - (lr * _c(dt, attrs.rescale_grad)) * grad
    return (out.astype(dt, copy=False),)


def _sgd_mom(attrs, weight, grad, mom):
    dt = weight.dtype
    lr, wd, m = _c(dt, attrs.lr), _c(dt, attrs.wd), _c(dt, attrs.momentum)
    cg = _scaled_grad(attrs, grad, dt)
    if cg is not None:
        mom = m * mom - lr * wd * weight - lr * cg
    else:
        mom = m * mom - lr * wd * weight - lr * _c(dt, attrs.rescale_grad) * grad
    mom = mom.astype(dt, copy=False)
    return (weight + mom).astype(dt, copy=False), mom


def _mp_sgd(attrs, weight, grad, weight32):
    lr, wd, rg = _F(attrs.lr), _F(attrs.wd), _F(attrs.rescale_grad)
    g = grad.astype(_F)
    if attrs.clip_gradient >= 0:
        w = (_F(1) - lr * wd) * weight32 - lr * _clip(rg * g, _F(attrs.clip_gradient))
    else:
        w = (_F(1) - lr * wd) * weight32 - (lr * rg) * g
    w = w.astype(_F, copy=False)
    return w.astype(weight.dtype), w


def _mp_sgd_mom(attrs, weight, grad, mom, weight32):
    lr, wd, rg, m = _F(attrs.lr), _F(attrs.wd), _F(attrs.rescale_grad), _F(attrs.momentum)
    g = grad.astype(_F)
    if attrs.clip_gradient >= 0:
        mom = m * mom - lr * wd * weight32 - lr * _clip(rg * g, _F(attrs.clip_gradient))
    else:
        mom = m * mom - lr * wd * weight32 - lr * rg * g
    mom = mom.astype(_F, copy=False)
    w = (weight32 + mom).astype(_F, copy=False)
    return w.astype(weight.dtype), mom, w


def _nag_parts(attrs, weight, grad, mom, dt, decay_new_weight=False):
    """MXNet's NAG step. ``decay_new_weight``: the momentum's weight-decay term reads the *updated*
    weight, as MXNet's ``MP_NAGMomKernel`` does (it updates ``w`` first), and as ``NAGMomKernel`` does
    when called with ``out=weight`` (the optimizer's call: the output aliases the weight it reads)."""
    lr, wd, m = _c(dt, attrs.lr), _c(dt, attrs.wd), _c(dt, attrs.momentum)
    g = grad.astype(dt, copy=False)
    cg = _clip(_c(dt, attrs.rescale_grad) * g, _c(dt, attrs.clip_gradient)) if attrs.clip_gradient >= 0 \
        else _c(dt, attrs.rescale_grad) * g
    mom = m * mom
    out = (weight - mom + (m + _c(dt, 1)) * (mom - lr * (cg + wd * weight))).astype(dt, copy=False)
    mom = mom - lr * (cg + wd * (out if decay_new_weight else weight))
    return out, mom.astype(dt, copy=False)


def _nag_mom(attrs, weight, grad, mom):
    return _nag_parts(attrs, weight, grad, mom, weight.dtype)


def _nag_mom_in_place(attrs, weight, grad, mom):
    return _nag_parts(attrs, weight, grad, mom, weight.dtype, decay_new_weight=True)


_nag_mom.in_place = _nag_mom_in_place  # what nd.nag_mom_update(..., out=weight) computes


def _mp_nag_mom(attrs, weight, grad, mom, weight32):
    w, mom = _nag_parts(attrs, weight32, grad, mom, _F, decay_new_weight=True)
    return w.astype(weight.dtype), mom, w


def _signsgd(attrs, weight, grad):
    dt = weight.dtype
    lr, wd = _c(dt, attrs.lr), _c(dt, attrs.wd)
    return (((_c(dt, 1.0) - lr * wd) * weight - lr * np.sign(grad).astype(dt)).astype(dt, copy=False),)


def _signum(attrs, weight, grad, mom):
    dt = weight.dtype
    lr, wd, m, wd_lh = _c(dt, attrs.lr), _c(dt, attrs.wd), _c(dt, attrs.momentum), _c(dt, attrs.wd_lh)
    one = _c(dt, 1)
    cg = _scaled_grad(attrs, grad, dt)
    if cg is not None:
        mom = m * mom - (one - m) * wd * weight - (one - m) * cg
    else:
        mom = m * mom - (one - m) * wd * weight - (one - m) * _c(dt, attrs.rescale_grad) * grad
    mom = mom.astype(dt, copy=False)
    out = (one - lr * wd_lh) * weight + lr * np.sign(mom).astype(dt)
    return out.astype(dt, copy=False), mom


# -- adaptive ---------------------------------------------------------------------------------------------------
def _ftml(attrs, weight, grad, d, v, z):
    dt = weight.dtype
    one = _c(dt, 1)
    lr, b1, b2, eps = _c(dt, attrs.lr), _c(dt, attrs.beta1), _c(dt, attrs.beta2), _c(dt, attrs.epsilon)
    t, wd, rg = _c(dt, attrs.t), _c(dt, attrs.wd), _c(dt, attrs.rescale_grad)
    g = rg * grad + wd * weight
    if attrs.clip_grad >= 0:
        g = _clip(g, _c(dt, attrs.clip_grad))
    v = b2 * v + (one - b2) * np.square(g)
    d_t = (one - np.power(b1, t)) / lr * (np.sqrt(v / (one - np.power(b2, t))) + eps)
    z = b1 * z + (one - b1) * g - (d_t - b1 * d) * weight
    out = -z / d_t
    cast = lambda a: np.asarray(a).astype(dt, copy=False)  # noqa: E731
    return cast(out), cast(d_t), cast(v), cast(z)


def _adam(attrs, weight, grad, mean, var):
    dt = weight.dtype
    one = _c(dt, 1)
    b1, b2, lr, eps = _c(dt, attrs.beta1), _c(dt, attrs.beta2), _c(dt, attrs.lr), _c(dt, attrs.epsilon)
    g = grad * _c(dt, attrs.rescale_grad) + weight * _c(dt, attrs.wd)
    if attrs.clip_gradient >= 0:
        g = _clip(g, _c(dt, attrs.clip_gradient))
    mean = (b1 * mean + (one - b1) * g).astype(dt, copy=False)
    var = (b2 * var + (one - b2) * g * g).astype(dt, copy=False)
    out = weight - lr * mean / (np.sqrt(var) + eps)
    return out.astype(dt, copy=False), mean, var


def _rms_grad(attrs, weight, grad, dt):
    g = _c(dt, attrs.rescale_grad) * grad + _c(dt, attrs.wd) * weight
    return _clip(g, _c(dt, attrs.clip_gradient)) if attrs.clip_gradient >= 0 else g


def _rmsprop(attrs, weight, grad, n):
    dt = weight.dtype
    g1 = _c(dt, attrs.gamma1)
    g = _rms_grad(attrs, weight, grad, dt)
    n = ((_c(dt, 1) - g1) * (g * g) + g1 * n).astype(dt, copy=False)
    w = weight - _c(dt, attrs.lr) * (g / np.sqrt(n + _c(dt, attrs.epsilon)))
    if attrs.clip_weights >= 0:
        w = _clip(w, _c(dt, attrs.clip_weights))
    return w.astype(dt, copy=False), n


def _rmspropalex(attrs, weight, grad, n, gs, delta):
    dt = weight.dtype
    g1, g2 = _c(dt, attrs.gamma1), _c(dt, attrs.gamma2)
    g = _rms_grad(attrs, weight, grad, dt)
    one = _c(dt, 1)
    n = ((one - g1) * g * g + g1 * n).astype(dt, copy=False)
    gs = ((one - g1) * g + g1 * gs).astype(dt, copy=False)
    delta = (g2 * delta - (_c(dt, attrs.lr) * g / np.sqrt(n - gs * gs + _c(dt, attrs.epsilon)))).astype(dt, copy=False)
    w = weight + delta
    if attrs.clip_weights >= 0:
        w = _clip(w, _c(dt, attrs.clip_weights))
    return w.astype(dt, copy=False), n, gs, delta


def _ftrl(attrs, weight, grad, z, n):
    dt = weight.dtype
    lr, l1, beta, wd = _c(dt, attrs.lr), _c(dt, attrs.lamda1), _c(dt, attrs.beta), _c(dt, attrs.wd)
    g = grad * _c(dt, attrs.rescale_grad)
    if attrs.clip_gradient >= 0:
        g = _clip(g, _c(dt, attrs.clip_gradient))
    z = (z + (g - (np.sqrt(n + np.square(g)) - np.sqrt(n)) * weight / lr)).astype(dt, copy=False)
    n = (n + np.square(g)).astype(dt, copy=False)
    out = (np.sign(z) * l1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > l1).astype(dt)
    return out.astype(dt, copy=False), z, n


def _rescale_ok(rescale) -> float | None:
    """AdamW's ``rescale_grad`` input: MXNet skips the whole update when it is 0 or not finite."""
    r = float(np.asarray(rescale, dtype=np.float64).reshape(-1)[0])
    return r if np.isfinite(r) and r != 0 else None


def _adamw(attrs, weight, grad, mean, var, rescale):
    dt = weight.dtype
    r = _rescale_ok(rescale)
    if r is None:                      # not written by MXNet: the in-place result (unchanged)
        return weight.copy(), mean, var
    one = _c(dt, 1)
    g = _c(dt, r) * grad
    if attrs.clip_gradient >= 0:
        g = _clip(g, _c(dt, attrs.clip_gradient))
    mean = (_c(dt, attrs.beta1) * mean + (one - _c(dt, attrs.beta1)) * g).astype(dt, copy=False)
    var = (_c(dt, attrs.beta2) * var + (one - _c(dt, attrs.beta2)) * np.square(g)).astype(dt, copy=False)
    out = weight - _c(dt, attrs.eta) * (_c(dt, attrs.lr) * mean / (np.sqrt(var) + _c(dt, attrs.epsilon))
                                        + _c(dt, attrs.wd) * weight)
    return out.astype(dt, copy=False), mean, var


def _mp_adamw(attrs, weight, grad, mean, var, weight32, rescale):
    r = _rescale_ok(rescale)
    if r is None:
        return weight.copy(), mean, var, weight32
    g = _F(r) * grad.astype(_F)
    if attrs.clip_gradient >= 0:
        g = _clip(g, _F(attrs.clip_gradient))
    b1, b2 = _F(attrs.beta1), _F(attrs.beta2)
    mean = (b1 * mean + (_F(1) - b1) * g).astype(_F, copy=False)
    var = (b2 * var + (_F(1) - b2) * np.square(g)).astype(_F, copy=False)
    w = weight32 - _F(attrs.eta) * (_F(attrs.lr) * mean / (np.sqrt(var) + _F(attrs.epsilon))
                                    + _F(attrs.wd) * weight32)
    w = w.astype(_F, copy=False)
    return w.astype(weight.dtype), mean, var, w


def _lamb1_parts(attrs, g_in, mean, var, w, dt):
    one = _c(dt, 1)
    b1, b2, eps, wd = _c(dt, attrs.beta1), _c(dt, attrs.beta2), _c(dt, attrs.epsilon), _c(dt, attrs.wd)
    g = g_in * _c(dt, attrs.rescale_grad)
    if attrs.clip_gradient >= 0:
        g = _clip(g, _c(dt, attrs.clip_gradient))
    mean = (b1 * mean + (one - b1) * g).astype(dt, copy=False)
    var = (b2 * var + (one - b2) * g * g).astype(dt, copy=False)
    if attrs.bias_correction:
        b1t = _c(dt, float(attrs.beta1) ** attrs.t)     # std::pow(float, int) is computed in double
        b2t = _c(dt, float(attrs.beta2) ** attrs.t)
        mean_hat = (mean.astype(np.float64) / (1.0 - float(b1t))).astype(dt)
        var_hat = var / (one - b2t)
        out = mean_hat / (np.sqrt(var_hat) + eps) + wd * w
    else:
        out = mean / (np.sqrt(var) + eps) + wd * w
    return out.astype(dt, copy=False), mean, var


def _lamb1(attrs, weight, grad, mean, var):
    return _lamb1_parts(attrs, grad, mean, var, weight, weight.dtype)


def _mp_lamb1(attrs, weight, grad, mean, var, weight32):
    return _lamb1_parts(attrs, grad.astype(_F), mean, var, weight32, np.dtype(_F))


def _lamb_lr(attrs, r1, r2, dt):
    r1v, r2v = _c(dt, np.asarray(r1).reshape(-1)[0]), _c(dt, np.asarray(r2).reshape(-1)[0])
    if attrs.lower_bound >= 0:
        r1v = max(r1v, _c(dt, attrs.lower_bound))
    if attrs.upper_bound >= 0:
        r1v = min(r1v, _c(dt, attrs.upper_bound))
    lr = _c(dt, attrs.lr)
    return lr if r1v == 0 or r2v == 0 else _c(dt, lr * r1v / r2v)


def _lamb2(attrs, weight, g, r1, r2):
    dt = weight.dtype
    return ((weight - _lamb_lr(attrs, r1, r2, dt) * g).astype(dt, copy=False),)


def _mp_lamb2(attrs, weight, g, r1, r2, weight32):
    """MXNet lists weight32 as mutated but its kernel does not write it: it stays as it was."""
    out = (weight32 - _lamb_lr(attrs, r1, r2, np.dtype(_F)) * g).astype(_F, copy=False)
    return out.astype(weight.dtype), weight32


# -- registration -----------------------------------------------------------------------------------------------
def _base(extra=()):
    return (Param("lr", Float),) + tuple(extra) + (Param("wd", Float, 0.0), Param("rescale_grad", Float, 1.0),
                                                   Param("clip_gradient", Float, -1.0))


_SGD = _base() + (Param("lazy_update", Bool, True),)
_SGD_MOM = _base((Param("momentum", Float, 0.0),)) + (Param("lazy_update", Bool, True),)
_MP = _base() + (Param("lazy_update", Bool, True),)
_MP_MOM = _base((Param("momentum", Float, 0.0),)) + (Param("lazy_update", Bool, True),)
_NAG = _base((Param("momentum", Float, 0.0),))
_ADAM = (Param("lr", Float), Param("beta1", Float, 0.9), Param("beta2", Float, 0.999), Param("epsilon", Float, 1e-8),
         Param("wd", Float, 0.0), Param("rescale_grad", Float, 1.0), Param("clip_gradient", Float, -1.0),
         Param("lazy_update", Bool, True))
_FTML = (Param("lr", Float), Param("beta1", Float, 0.6), Param("beta2", Float, 0.999), Param("epsilon", Float, 1e-8),
         Param("t", Int), Param("wd", Float, 0.0), Param("rescale_grad", Float, 1.0), Param("clip_grad", Float, -1.0))
_RMS = (Param("lr", Float), Param("gamma1", Float, 0.95), Param("epsilon", Float, 1e-8), Param("wd", Float, 0.0),
        Param("rescale_grad", Float, 1.0), Param("clip_gradient", Float, -1.0), Param("clip_weights", Float, -1.0))
_RMS_ALEX = (Param("lr", Float), Param("gamma1", Float, 0.95), Param("gamma2", Float, 0.9),
             Param("epsilon", Float, 1e-8), Param("wd", Float, 0.0), Param("rescale_grad", Float, 1.0),
             Param("clip_gradient", Float, -1.0), Param("clip_weights", Float, -1.0))
_FTRL = (Param("lr", Float), Param("lamda1", Float, 0.01), Param("beta", Float, 1.0), Param("wd", Float, 0.0),
         Param("rescale_grad", Float, 1.0), Param("clip_gradient", Float, -1.0))
_ADAMW = (Param("lr", Float), Param("beta1", Float, 0.9), Param("beta2", Float, 0.999),
          Param("epsilon", Float, 1e-8), Param("wd", Float, 0.0), Param("eta", Float),
          Param("clip_gradient", Float, -1.0))
_LAMB1 = (Param("beta1", Float, 0.9), Param("beta2", Float, 0.999), Param("epsilon", Float, 1e-6), Param("t", Int),
          Param("bias_correction", Bool, True), Param("wd", Float), Param("rescale_grad", Float, 1.0),
          Param("clip_gradient", Float, -1.0))
_LAMB2 = (Param("lr", Float), Param("lower_bound", Float, -1.0), Param("upper_bound", Float, -1.0))
_SIGNSGD = _base()
_SIGNUM = _base((Param("momentum", Float, 0.0),)) + (Param("wd_lh", Float, 0.0),)

# name: (math, input names, mutated input names, params)
_UPDATES: dict[str, tuple[Callable, tuple, tuple, tuple]] = {
    "sgd_update": (_sgd, ("weight", "grad"), (), _SGD),
    "sgd_mom_update": (_sgd_mom, ("weight", "grad", "mom"), ("mom",), _SGD_MOM),
    "mp_sgd_update": (_mp_sgd, ("weight", "grad", "weight32"), ("weight32",), _MP),
    "mp_sgd_mom_update": (_mp_sgd_mom, ("weight", "grad", "mom", "weight32"), ("mom", "weight32"), _MP_MOM),
    "nag_mom_update": (_nag_mom, ("weight", "grad", "mom"), ("mom",), _NAG),
    "mp_nag_mom_update": (_mp_nag_mom, ("weight", "grad", "mom", "weight32"), ("mom", "weight32"), _NAG),
    "signsgd_update": (_signsgd, ("weight", "grad"), (), _SIGNSGD),
    "signum_update": (_signum, ("weight", "grad", "mom"), ("mom",), _SIGNUM),
    "ftml_update": (_ftml, ("weight", "grad", "d", "v", "z"), ("d", "v", "z"), _FTML),
    "adam_update": (_adam, ("weight", "grad", "mean", "var"), ("mean", "var"), _ADAM),
    "rmsprop_update": (_rmsprop, ("weight", "grad", "n"), ("n",), _RMS),
    "rmspropalex_update": (_rmspropalex, ("weight", "grad", "n", "g", "delta"), ("n", "g", "delta"), _RMS_ALEX),
    "ftrl_update": (_ftrl, ("weight", "grad", "z", "n"), ("z", "n"), _FTRL),
    "lamb_update_phase1": (_lamb1, ("weight", "grad", "mean", "var"), ("mean", "var"), _LAMB1),
    "lamb_update_phase2": (_lamb2, ("weight", "g", "r1", "r2"), (), _LAMB2),
    "mp_lamb_update_phase1": (_mp_lamb1, ("weight", "grad", "mean", "var", "weight32"), ("mean", "var"), _LAMB1),
    "mp_lamb_update_phase2": (_mp_lamb2, ("weight", "g", "r1", "r2", "weight32"), ("weight32",), _LAMB2),
    "_adamw_update": (_adamw, ("weight", "grad", "mean", "var", "rescale_grad"), ("mean", "var"), _ADAMW),
    "_mp_adamw_update": (_mp_adamw, ("weight", "grad", "mean", "var", "weight32", "rescale_grad"),
                         ("mean", "var", "weight32"), _ADAMW),
}

#: op name -> (function returning (*new weights, *new states), indices of the inputs it updates: a tuple,
#: or a function of the attributes for the aggregated ``multi_*`` forms whose input count varies)
STATEFUL: dict[str, tuple[Callable, tuple | Callable]] = {}


def _same_shape_all(inputs):
    """Every input shaped like the weight, except the one-value ``rescale_grad`` (AdamW), ``r1``, ``r2``
    (LAMB phase 2)."""
    scalar = [n in ("rescale_grad", "r1", "r2") for n in inputs]

    def infer(attrs, in_shapes):
        known = next((s for s, sc in zip(in_shapes, scalar) if not sc and s is not None and len(s) and all(s)),
                     None)
        ins = [(1,) if sc else (tuple(known) if known is not None else s) for s, sc in zip(in_shapes, scalar)]
        return ins, [tuple(known) if known is not None else None]
    return infer


def _weight_type(attrs, dts):
    return [np.dtype(dts[0] if dts and dts[0] is not None else _F)]


def _f32_type(attrs, dts):
    return [np.dtype(_F)]     # mp_lamb_update_phase1's g is float32 whatever the weight's type


def _weight_compute(math):
    def compute(attrs, *arrays):
        return math(attrs, *arrays)[0]
    compute.__doc__ = (math.__doc__ or "") or None
    return compute


for _name, (_math, _inputs, _mutated, _params) in _UPDATES.items():
    register(OpDef(_name, _weight_compute(_math), inputs=_inputs, aux=_mutated, params=_params,
                   infer_shape=_same_shape_all(_inputs),
                   infer_type=_f32_type if _name == "mp_lamb_update_phase1" else _weight_type,
                   doc=f"{_name}: the updated weight (MXNet's optimizer update; it also updates "
                       f"{', '.join(_mutated) or 'nothing else'} in place)."))
    STATEFUL[_name] = (_math, tuple(_inputs.index(m) for m in _mutated))


# -- helpers of the LARS / LAMB optimizers -------------------------------------------------------------------
def _multi_sum_sq(attrs, *arrays):
    """multi_sum_sq: the sum of squares of each array (float32, one value per array)."""
    return np.asarray([np.square(a.astype(_F)).sum(dtype=_F) for a in arrays], dtype=_F)


register(OpDef("multi_sum_sq", _multi_sum_sq, params=(Param("num_arrays", Int),),
               inputs=lambda attrs: [f"array_{i}" for i in range(attrs.num_arrays)],
               infer_shape=lambda attrs, s: (list(s), [(attrs.num_arrays,)]),
               infer_type=lambda attrs, dts: [np.dtype(_F)]))


def _multi_lars(attrs, lrs, weights_sum_sq, grads_sum_sq, wds):
    """multi_lars: learning rates scaled by the LARS trust ratio (the rate itself where a norm is 0)."""
    for a in (lrs, weights_sum_sq, grads_sum_sq, wds):
        if a.dtype != _F:
            raise ShapeError(f"multi_lars: expects float32 inputs, got {a.dtype.name}")
    w_norm = np.sqrt(weights_sum_sq)
    ok = (w_norm > 0) & (grads_sum_sq > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = lrs * _F(attrs.eta) * w_norm / (np.sqrt(grads_sum_sq) * _F(attrs.rescale_grad) + wds * w_norm
                                                  + _F(attrs.eps))
    return np.where(ok, scaled, lrs).astype(_F)


register(OpDef("multi_lars", _multi_lars, inputs=("lrs", "weights_sum_sq", "grads_sum_sq", "wds"),
               params=(Param("eta", Float), Param("eps", Float), Param("rescale_grad", Float, 1.0)),
               infer_shape=_same_shape_all(("lrs", "weights_sum_sq", "grads_sum_sq", "wds")),
               infer_type=lambda attrs, dts: [np.dtype(_F)]))


# -- aggregated updates (what MXNet's SGD / LARS / LAMB optimizers call through the Updater) ---------------------
def _multi_sgd_math(momentum: bool, mp: bool, preloaded: bool) -> Callable:
    """``[preloaded_]multi_[mp_]sgd[_mom]_update``: MXNet's ``MultiSGDKernel`` for ``num_weights`` tensors.

    Unlike ``sgd_update`` the kernel always forms the step ``mom = momentum*mom - lr*wd*w -
    lr*clip(rescale*g)`` and adds it (``w + mom``), in the master type (float32 for the ``mp`` forms):
    the roundings differ from ``sgd_update``'s ``(1-lr*wd)*w - ...``, so the optimizers call this one
    as MXNet does. Returns the new weights, then the new momenta, then the new float32 masters."""
    stride = 2 + momentum + mp

    def math(attrs, *arrays):
        n = attrs.num_weights
        if preloaded:
            lrs, wds = (np.asarray(a, dtype=_F).reshape(-1) for a in arrays[-2:])
        else:
            lrs, wds = attrs.lrs, attrs.wds
        outs, moms, masters = [], [], []
        for i in range(n):
            group = arrays[i * stride:(i + 1) * stride]
            weight, grad = group[0], group[1]
            mt = np.dtype(_F) if mp else weight.dtype
            w = group[-1] if mp else weight
            mom = group[2] if momentum else mt.type(0)
            lr, wd = mt.type(lrs[i]), mt.type(wds[i])
            g = grad.astype(mt, copy=False)
            if momentum and attrs.clip_gradient < 0 and mt == np.float32 and isinstance(mom, np.ndarray) \
                    and mom.dtype == mt and w.dtype == mt:
                # the expression below, evaluated in the same order with two buffers (same roundings)
                new_mom = mom * mt.type(attrs.momentum)
                tmp = w * (lr * wd)
                new_mom -= tmp
                np.multiply(g, lr * mt.type(attrs.rescale_grad), out=tmp)
                new_mom -= tmp
                w = w + new_mom
                outs.append(w if weight.dtype == mt and not mp else w.astype(weight.dtype))
                moms.append(new_mom)
                if mp:
                    masters.append(w)
                continue
            if attrs.clip_gradient >= 0:
                step = _clip(mt.type(attrs.rescale_grad) * g, mt.type(attrs.clip_gradient))
                mom = mt.type(attrs.momentum if momentum else 0) * mom - lr * wd * w - lr * step
            else:
                mom = (mt.type(attrs.momentum if momentum else 0) * mom - lr * wd * w
                       - lr * mt.type(attrs.rescale_grad) * g)
            mom = np.asarray(mom).astype(mt, copy=False)
            w = (w + mom).astype(mt, copy=False)
            outs.append(w.astype(weight.dtype))
            if momentum:
                moms.append(mom)
            if mp:
                masters.append(w)
        return (*outs, *moms, *masters)
    math.reads_only = True          # never writes its inputs: callers may pass their arrays uncopied
    return math


def _multi_sgd_inputs(momentum: bool, mp: bool, preloaded: bool) -> Callable:
    kinds = ("weight", "grad") + (("mom",) if momentum else ()) + (("weight32",) if mp else ())

    def inputs(attrs):
        names = [f"{k}_{i}" for i in range(attrs.num_weights) for k in kinds]
        return names + (["lrs", "wds"] if preloaded else [])
    return inputs


def _multi_sgd_mutated(momentum: bool, mp: bool) -> Callable:
    """Input positions of the momenta, then of the float32 masters (the order ``math`` returns them)."""
    stride = 2 + momentum + mp

    def mutated(attrs):
        n = attrs.num_weights
        return (tuple(i * stride + 2 for i in range(n)) if momentum else ()) + \
            (tuple(i * stride + stride - 1 for i in range(n)) if mp else ())
    return mutated


def _multi_shape(stride: int, preloaded: bool = False):
    def infer(attrs, in_shapes):
        n = attrs.num_weights if hasattr(attrs, "num_weights") else attrs.num_tensors
        ins, outs = list(in_shapes), []
        for i in range(n):
            group = ins[i * stride:(i + 1) * stride]
            known = next((s for s in group if s is not None and len(s) and all(s)), None)
            if known is not None:
                ins[i * stride:(i + 1) * stride] = [tuple(known)] * stride
            outs.append(None if known is None else tuple(known))
        if preloaded:
            ins[-2:] = [(n,), (n,)]
        return ins, outs
    return infer


def _multi_type(stride: int):
    def infer(attrs, dts):
        n = attrs.num_weights if hasattr(attrs, "num_weights") else attrs.num_tensors
        return [np.dtype(dts[i * stride] if dts[i * stride] is not None else _F) for i in range(n)]
    return infer


def _multi_outputs(attrs) -> int:
    return attrs.num_weights


def _register_multi(name: str, math: Callable, inputs: Callable, mutated: Callable, params: tuple,
                    stride: int, preloaded: bool = False, num_outputs: Callable = _multi_outputs) -> None:
    def compute(attrs, *arrays):
        res = math(attrs, *arrays)
        return tuple(res[:num_outputs(attrs)])
    register(OpDef(name, compute, inputs=inputs, params=params, num_outputs=num_outputs,
                   infer_shape=_multi_shape(stride, preloaded), infer_type=_multi_type(stride),
                   doc=f"{name}: the updated weights of num_weights tensors (MXNet's aggregated optimizer "
                       f"update; it also updates the optimizer states among its inputs in place)."))
    STATEFUL[name] = (math, mutated)


def _multi_params(momentum: bool, preloaded: bool) -> tuple:
    lw = () if preloaded else (Param("lrs", FloatTuple), Param("wds", FloatTuple))
    return lw + ((Param("momentum", Float, 0.0),) if momentum else ()) + (
        Param("rescale_grad", Float, 1.0), Param("clip_gradient", Float, -1.0), Param("num_weights", Int, 1))


for _pre in (False, True):
    for _mp in (False, True):
        for _mom in (False, True):
            _name = ("preloaded_" if _pre else "") + "multi_" + ("mp_" if _mp else "") + "sgd_" + \
                ("mom_" if _mom else "") + "update"
            _register_multi(_name, _multi_sgd_math(_mom, _mp, _pre), _multi_sgd_inputs(_mom, _mp, _pre),
                            _multi_sgd_mutated(_mom, _mp), _multi_params(_mom, _pre), 2 + _mom + _mp, _pre)


def _multi_lamb_math(mp: bool) -> Callable:
    """``_multi_lamb_update`` / ``_multi_mp_lamb_update`` (``nd.contrib.multi_lamb_update``): MXNet's two
    kernels: g = mean_hat / (sqrt(var_hat) + eps) + wd * w per tensor (the moments updated), then
    w -= lr * r1/r2 * g with r1 = ||w||, r2 = ||g|| (float32 sums of squares), r1 bounded."""
    stride = 4 + mp

    def math(attrs, *arrays):
        n = attrs.num_tensors
        outs, means, vars_, masters = [], [], [], []
        for i in range(n):
            weight, grad, mean, var = arrays[i * stride:i * stride + 4]
            mt = np.dtype(_F) if mp else weight.dtype
            w = arrays[i * stride + 4] if mp else weight
            c = mt.type
            g = grad.astype(mt, copy=False) * c(attrs.rescale_grad)
            if attrs.clip_gradient >= 0:
                g = _clip(g, c(attrs.clip_gradient))
            mean = (c(attrs.beta1) * mean + (c(1) - c(attrs.beta1)) * g).astype(mt, copy=False)
            var = (c(attrs.beta2) * var + (c(1) - c(attrs.beta2)) * g * g).astype(mt, copy=False)
            wd = c(attrs.wds[i])
            if attrs.bias_correction:
                t = c(attrs.step_count[i])
                mean_hat = mean / (c(1) - np.power(c(attrs.beta1), t))
                var_hat = var / (c(1) - np.power(c(attrs.beta2), t))
                upd = mean_hat / (np.sqrt(var_hat) + c(attrs.epsilon)) + wd * w
            else:
                upd = mean / (np.sqrt(var) + c(attrs.epsilon)) + wd * w
            upd = upd.astype(_F, copy=False)           # the float workspace temp_g
            r1 = np.sqrt(np.square(weight.astype(_F)).sum(dtype=_F))    # MultiSumSq of the (fp16) weights
            r2 = np.sqrt(np.square(upd).sum(dtype=_F))
            if attrs.lower_bound >= 0:
                r1 = max(r1, _F(attrs.lower_bound))
            if attrs.upper_bound >= 0:
                r1 = min(r1, _F(attrs.upper_bound))
            r = c(1) if r1 == 0 or r2 == 0 else c(r1 / r2)
            w = (w - c(c(attrs.learning_rates[i]) * r) * upd.astype(mt, copy=False)).astype(mt, copy=False)
            outs.append(w.astype(weight.dtype))
            means.append(mean)
            vars_.append(var)
            if mp:
                masters.append(w)
        return (*outs, *means, *vars_, *masters)
    return math


def _multi_lamb_inputs(mp: bool) -> Callable:
    kinds = ("weight", "grad", "mean", "var") + (("weight32",) if mp else ())

    def inputs(attrs):
        return [f"{k}_{i}" for i in range(attrs.num_tensors) for k in kinds]
    return inputs


def _multi_lamb_mutated(mp: bool) -> Callable:
    stride = 4 + mp

    def mutated(attrs):
        n = attrs.num_tensors
        return tuple(i * stride + 2 for i in range(n)) + tuple(i * stride + 3 for i in range(n)) + \
            (tuple(i * stride + 4 for i in range(n)) if mp else ())
    return mutated


_MULTI_LAMB = (Param("learning_rates", FloatTuple), Param("beta1", Float, 0.9), Param("beta2", Float, 0.999),
               Param("epsilon", Float, 1e-6), Param("wds", FloatTuple), Param("rescale_grad", Float, 1.0),
               Param("lower_bound", Float, -1.0), Param("upper_bound", Float, -1.0),
               Param("clip_gradient", Float, -1.0), Param("bias_correction", Bool, True),
               Param("step_count", Shape), Param("num_tensors", Int, 1))

for _mp in (False, True):
    _register_multi("_multi_mp_lamb_update" if _mp else "_multi_lamb_update", _multi_lamb_math(_mp),
                    _multi_lamb_inputs(_mp), _multi_lamb_mutated(_mp), _MULTI_LAMB, 4 + _mp,
                    num_outputs=lambda attrs: attrs.num_tensors)


def _multi_adamw_math(mp: bool) -> Callable:
    """``_multi_adamw_update`` / ``_multi_mp_adamw_update`` (``nd.contrib.multi_[mp_]adamw_update``,
    what gluon-nlp's BERTAdam calls): per tensor AdamW with its own ``lrs``/``wds``/``etas``, in MXNet's
    aggregated kernel's arithmetic (``mean = beta1 * (mean - g) + g``, ``var = beta2 * (var - g*g) +
    g*g``, which rounds unlike the single ``adamw_update``); the trailing ``rescale_grad`` tensor skips
    the whole update when it is 0 or not finite."""
    stride = 4 + mp

    def math(attrs, *arrays):
        n = attrs.num_weights
        r = _rescale_ok(arrays[-1])
        outs, means, vars_, masters = [], [], [], []
        for i in range(n):
            weight, grad, mean, var = arrays[i * stride:i * stride + 4]
            w32 = arrays[i * stride + 4] if mp else None
            if r is None:
                outs.append(weight.copy())
                means.append(mean)
                vars_.append(var)
                masters.append(w32)
                continue
            mt = np.dtype(_F) if mp else weight.dtype
            c = mt.type
            w = w32 if mp else weight.astype(mt, copy=False)
            g = c(r) * grad.astype(mt, copy=False)
            if attrs.clip_gradient >= 0:
                g = _clip(g, c(attrs.clip_gradient))
            mean = (c(attrs.beta1) * (mean - g) + g).astype(mt, copy=False)
            adj = g * g
            var = (c(attrs.beta2) * (var - adj) + adj).astype(mt, copy=False)
            w = (w - c(attrs.etas[i]) * (c(attrs.lrs[i]) * mean / (np.sqrt(var) + c(attrs.epsilon))
                                         + c(attrs.wds[i]) * w)).astype(mt, copy=False)
            outs.append(w.astype(weight.dtype))
            means.append(mean)
            vars_.append(var)
            masters.append(w)
        return (*outs, *means, *vars_, *(masters if mp else ()))
    return math


def _multi_adamw_inputs(mp: bool) -> Callable:
    kinds = ("weight", "grad", "mean", "var") + (("weight32",) if mp else ())

    def inputs(attrs):
        return [f"{k}_{i}" for i in range(attrs.num_weights) for k in kinds] + ["rescale_grad"]
    return inputs


def _multi_adamw_mutated(mp: bool) -> Callable:
    stride = 4 + mp

    def mutated(attrs):
        n = attrs.num_weights
        return tuple(i * stride + 2 for i in range(n)) + tuple(i * stride + 3 for i in range(n)) + \
            (tuple(i * stride + 4 for i in range(n)) if mp else ())
    return mutated


def _multi_adamw_shape(stride: int):
    def infer(attrs, in_shapes):
        ins, outs = _multi_shape(stride)(attrs, list(in_shapes[:-1]))
        return ins + [(1,)], outs
    return infer


_MULTI_ADAMW = (Param("lrs", FloatTuple), Param("beta1", Float, 0.9), Param("beta2", Float, 0.999),
                Param("epsilon", Float, 1e-8), Param("wds", FloatTuple), Param("etas", FloatTuple),
                Param("clip_gradient", Float, -1.0), Param("num_weights", Int, 1))

for _mp in (False, True):
    _name = "_multi_mp_adamw_update" if _mp else "_multi_adamw_update"
    register(OpDef(_name, (lambda m: lambda attrs, *arrays: tuple(m(attrs, *arrays)[:attrs.num_weights]))(
                       _multi_adamw_math(_mp)),
                   inputs=_multi_adamw_inputs(_mp), params=_MULTI_ADAMW, num_outputs=_multi_outputs,
                   infer_shape=_multi_adamw_shape(4 + _mp), infer_type=_multi_type(4 + _mp),
                   doc=f"{_name}: the updated weights of num_weights tensors (MXNet's aggregated AdamW; "
                       f"it also updates the moments among its inputs in place)."))
    STATEFUL[_name] = (_multi_adamw_math(_mp), _multi_adamw_mutated(_mp))
