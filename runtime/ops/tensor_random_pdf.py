"""``_random_pdf_*`` (also ``random_pdf_*``): densities of samples under per-row distribution
parameters, with MXNet 1.9.1's formulas (``src/operator/random/pdf_op.h``).

Inputs: ``sample`` and the distribution parameters, whose shape is a prefix of the sample's: each
parameter set applies to the samples below it (``sample.size / param.size`` of them). Dirichlet's
``alpha`` has the sample's last axis too (a vector per set), and the output drops it. ``is_log``
gives log densities. The formulas are MXNet's, quirks included: the uniform density is
``1 / (high - low)`` for every sample, in range or not; the gamma ``beta`` is a rate
(``a log b + (a-1) log x - b x - lgamma(a)``). Computed in float64, returned in the sample's dtype.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._nnutil import merge_shape
from ._special import gammaln
from .attrs import Bool, Param
from .registry import OpDef, defgrad, register


def _lpdf_uniform(x, low, high):
    return np.broadcast_to(-np.log(high - low), x.shape)


def _lpdf_normal(x, mu, sigma):
    normalizer = np.sqrt(2.0 * np.pi) * sigma
    return (-0.5 * (x - mu) * (x - mu)) / (sigma * sigma) - np.log(normalizer)


def _lpdf_gamma(x, alpha, beta):
    return alpha * np.log(beta) + (alpha - 1) * np.log(x) - beta * x - gammaln(alpha)


def _lpdf_exponential(x, lam):
    return np.log(lam) - lam * x


def _lpdf_poisson(x, lam):
    return (x * np.log(lam) - gammaln(x + 1)) - lam


def _lpdf_negative_binomial(x, k, p):
    return (gammaln(x + k) - gammaln(x + 1) - gammaln(k)) + k * np.log(p) + x * np.log(1 - p)


def _lpdf_generalized_negative_binomial(x, mu, alpha):
    return _lpdf_negative_binomial(x, 1.0 / alpha, 1.0 / (mu * alpha + 1.0))


def _lpdf_dirichlet(x, alpha):
    return ((alpha - 1) * np.log(x)).sum(axis=-1) + (gammaln(alpha.sum(axis=-1)) - gammaln(alpha).sum(axis=-1))


_DISTRIBUTIONS = {
    "uniform": (("low", "high"), _lpdf_uniform),
    "normal": (("mu", "sigma"), _lpdf_normal),
    "gamma": (("alpha", "beta"), _lpdf_gamma),
    "exponential": (("lam",), _lpdf_exponential),
    "poisson": (("lam",), _lpdf_poisson),
    "negative_binomial": (("k", "p"), _lpdf_negative_binomial),
    "generalized_negative_binomial": (("mu", "alpha"), _lpdf_generalized_negative_binomial),
    "dirichlet": (("alpha",), _lpdf_dirichlet),
}


def _param_shape(name: str, sample, param, vector: bool) -> tuple:
    """The parameters' shape the sample implies (MXNet's PdfOpShape)."""
    if len(param) > len(sample):
        raise ShapeError(f"random_pdf_{name}: dimension of input samples ({len(sample)}) must be at least "
                         f"dimension of distribution parameters ({len(param)})")
    want = tuple(sample[:len(param)])
    if vector:
        want = want[:-1] + (sample[-1],)
    return want


def _make(name: str, params: tuple, lpdf):
    vector = name == "dirichlet"

    def compute(attrs, sample, *ps):
        for p in ps:
            want = _param_shape(name, sample.shape, p.shape, vector)
            if tuple(p.shape) != want:
                raise ShapeError(f"random_pdf_{name}: parameters of shape {p.shape} do not fit samples of "
                                 f"shape {sample.shape} (expected {want})")
        nd = ps[0].ndim
        x = sample.astype(np.float64)
        if vector:
            lead = ps[0].shape[:-1]
            extra = sample.ndim - nd                     # sample axes between the sets and the vector
            bshape = lead + (1,) * extra + ps[0].shape[-1:]
        else:
            bshape = ps[0].shape + (1,) * (sample.ndim - nd)
        args = [p.astype(np.float64).reshape(bshape) for p in ps]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = lpdf(x, *args)
            if not attrs.is_log:
                out = np.exp(out)
        out = np.asarray(out, dtype=sample.dtype)
        if vector and sample.ndim == 1:
            out = out.reshape(1)
        return out
    compute.__doc__ = f"random_pdf_{name}: density of the samples (see the module docstring)."

    def infer(attrs, in_shapes):
        s = in_shapes[0]
        ins = list(in_shapes)
        if s is None or len(s) == 0 or any(p is None or len(p) == 0 for p in ins[1:]):
            known = next((p for p in ins[1:] if p is not None and len(p)), None)
            if known is not None:
                ins[1:] = [merge_shape(p, known, f"random_pdf_{name}") for p in ins[1:]]
            return ins, [None]
        want = _param_shape(name, s, ins[1], vector)
        ins[1:] = [merge_shape(p, want, f"random_pdf_{name} parameter") for p in ins[1:]]
        if vector:
            return ins, [(1,) if len(s) == 1 else tuple(s[:-1])]
        return ins, [tuple(s)]

    return compute, infer


for _name, (_params, _lpdf) in _DISTRIBUTIONS.items():
    _compute, _infer = _make(_name, _params, _lpdf)
    register(OpDef(f"_random_pdf_{_name}", _compute, inputs=("sample",) + _params,
                   params=(Param("is_log", Bool, False),), infer_shape=_infer,
                   aliases=(f"random_pdf_{_name}",)))


# -- gradients (MXNet 1.9.1: random/pdf_op.cc ElemwiseGradUseInOut{"_backward_pdf_*"}, the *_Grad kernels of
# pdf_op.h): d(log)pdf w.r.t. the sample and the parameters, the parameters' summed over their samples;
# the discrete distributions (poisson, negative binomial) and the uniform give the sample zero -------------
def digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) for x > 0: recurrence up to 6, then the asymptotic series (double precision)."""
    x = np.asarray(x, dtype=np.float64)
    acc = np.zeros_like(x)
    for _ in range(6):
        small = x < 6
        acc = acc - np.where(small, 1.0 / np.where(small, x, 1.0), 0.0)
        x = np.where(small, x + 1, x)
    inv2 = 1.0 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return acc + np.log(x) - 0.5 / x - series


def _nb_grads(x, k, p, s):
    return s * ((digamma(x + k) - digamma(k)) + np.log(p)), s * (k / p - x / (1 - p))


def _grads(name: str, x, ps, s):
    """(d sample, [d parameter ...]) of the log density, times ``s``, broadcast over the samples."""
    if name == "uniform":
        low, high = ps
        return 0 * x, [s / (high - low), s / (low - high)]
    if name == "normal":
        mu, sigma = ps
        s2 = sigma * sigma
        return s * (mu - x) / s2, [s * (x - mu) / s2, s * ((x - mu) ** 2 - s2) / (s2 * sigma)]
    if name == "gamma":
        a, b = ps
        return s * ((a - 1) / x - b), [s * (np.log(b) + np.log(x) - digamma(a)), s * (a / b - x)]
    if name == "exponential":
        (lam,) = ps
        return -s * lam, [s * (1.0 / lam - x)]
    if name == "poisson":
        (lam,) = ps
        return 0 * x, [s * (x / lam - 1.0)]
    if name == "negative_binomial":
        k, p = ps
        return 0 * x, list(_nb_grads(x, k, p, s))
    mu, alpha = ps                                   # generalized negative binomial
    den = mu * alpha + 1.0
    gl, gp = _nb_grads(x, 1.0 / alpha, 1.0 / den, s)
    return 0 * x, [-gp * alpha / (den * den), -gl / (alpha * alpha) - gp * mu / (den * den)]


def _make_backward(name: str, params: tuple):
    vector = name == "dirichlet"

    def backward(attrs, og, out, sample, *ps):
        nd = ps[0].ndim
        x = sample.astype(np.float64)
        o = np.asarray(out, dtype=np.float64)
        g = np.asarray(og, dtype=np.float64)
        if vector:
            lead = ps[0].shape[:-1]
            extra = sample.ndim - nd
            bshape = lead + (1,) * extra + ps[0].shape[-1:]
            o = o.reshape(sample.shape[:-1] + (1,))
            g = g.reshape(o.shape)
        else:
            bshape = ps[0].shape + (1,) * (sample.ndim - nd)
        args = [p.astype(np.float64).reshape(bshape) for p in ps]
        s = g if attrs.is_log else g * o
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if vector:
                (alpha,) = args
                gx = s * (alpha - 1) / x
                gps = [s * (np.log(x) + digamma(alpha.sum(axis=-1, keepdims=True)) - digamma(alpha))]
            else:
                gx, gps = _grads(name, x, args, s)
        axes = tuple(i for i, d in enumerate(bshape) if d == 1 and x.shape[i] != 1)   # a set's samples
        res = [np.broadcast_to(gx, sample.shape).astype(sample.dtype)]
        for p, gp in zip(ps, gps):
            gp = np.broadcast_to(gp, x.shape)
            if axes:
                gp = gp.sum(axis=axes, keepdims=True)
            res.append(gp.reshape(p.shape).astype(p.dtype))
        return tuple(res)
    return backward


for _name, (_params, _lpdf) in _DISTRIBUTIONS.items():
    backward_op(f"_backward_pdf_{_name}", _make_backward(_name, _params), ("ograd", "out", "sample") + _params,
                like=tuple(range(2, 3 + len(_params))), num_outputs=1 + len(_params),
                params=(Param("is_log", Bool, False),))

    @defgrad(f"_random_pdf_{_name}")
    def _pdf_grad(F, attrs, inputs, outputs, out_grads, _name=_name):
        g = internal(F, f"_backward_pdf_{_name}")(out_grads[0], outputs[0], *inputs, is_log=attrs.is_log)
        return [g[i] for i in range(len(inputs))]
