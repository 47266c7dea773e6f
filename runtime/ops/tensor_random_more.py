"""The rest of MXNet 1.9.1's samplers: ``_random_negative_binomial``,
``_random_generalized_negative_binomial``, the ``*_like`` forms of the exponential, gamma, Poisson and
(generalized) negative binomial samplers, and ``_sample_exponential/gamma/poisson/negative_binomial/
generalized_negative_binomial`` (parameters given as tensors, ``shape`` samples per element).

They draw from the runtime's seedable generator (``tensor_random``), with MXNet's parametrizations:
negative binomial ``(k, p)`` counts failures before ``k`` successes of probability ``p`` (MXNet
draws Poisson(Gamma(k, (1 - p) / p))); the generalized one ``(mu, alpha)`` is Poisson(Gamma(1 / alpha,
alpha * mu)), plain Poisson(mu) when ``alpha`` is 0. The numbers are not MXNet's (its generators
cannot be reproduced); the distributions are.
"""
from __future__ import annotations

import numpy as np

from .attrs import Float, Int, Param, Shape
from .tensor_random import _CTX, _FLOAT_DT, _like, _sample, _sampler


def _neg_binomial(g, k, p, size):
    k = np.asarray(k, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = g.gamma(np.broadcast_to(k, size), np.broadcast_to((1 - p) / p, size))
    return g.poisson(np.nan_to_num(lam, nan=0.0, posinf=0.0))


def _gen_neg_binomial(g, mu, alpha, size):
    mu = np.broadcast_to(np.asarray(mu, dtype=np.float64), size)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), size)
    safe = np.where(alpha == 0, 1.0, alpha)
    lam = np.where(alpha == 0, mu, g.gamma(1.0 / safe, safe * mu))
    return g.poisson(lam)


_sampler("_random_negative_binomial", lambda g, a, s: _neg_binomial(g, a.k, a.p, s),
         (Param("k", Int, 1), Param("p", Float, 1.0), Param("shape", Shape, ()), _CTX, _FLOAT_DT),
         aliases=("random_negative_binomial",),
         doc="_random_negative_binomial: failures before ``k`` successes of probability ``p``.")
_sampler("_random_generalized_negative_binomial", lambda g, a, s: _gen_neg_binomial(g, a.mu, a.alpha, s),
         (Param("mu", Float, 1.0), Param("alpha", Float, 1.0), Param("shape", Shape, ()), _CTX, _FLOAT_DT),
         aliases=("random_generalized_negative_binomial",),
         doc="_random_generalized_negative_binomial: negative binomial with mean ``mu``, dispersion ``alpha``.")

_like("_random_exponential_like", lambda g, a, s: g.exponential(1.0 / a.lam, s), (Param("lam", Float, 1.0),),
      "_random_exponential_like: exponential samples with rate ``lam`` shaped like data.")
_like("_random_gamma_like", lambda g, a, s: g.gamma(a.alpha, a.beta, s),
      (Param("alpha", Float, 1.0), Param("beta", Float, 1.0)),
      "_random_gamma_like: gamma samples (shape ``alpha``, scale ``beta``) shaped like data.")
_like("_random_poisson_like", lambda g, a, s: g.poisson(a.lam, s), (Param("lam", Float, 1.0),),
      "_random_poisson_like: Poisson samples with rate ``lam`` shaped like data.")
_like("_random_negative_binomial_like", lambda g, a, s: _neg_binomial(g, a.k, a.p, s),
      (Param("k", Int, 1), Param("p", Float, 1.0)),
      "_random_negative_binomial_like: negative binomial samples shaped like data.")
_like("_random_generalized_negative_binomial_like", lambda g, a, s: _gen_neg_binomial(g, a.mu, a.alpha, s),
      (Param("mu", Float, 1.0), Param("alpha", Float, 1.0)),
      "_random_generalized_negative_binomial_like: generalized negative binomial samples shaped like data.")


_sample("_sample_exponential", lambda g, lam, s: g.exponential(np.broadcast_to(1.0 / lam, s)), ("lam",),
        ("sample_exponential",), "_sample_exponential: per-element exponential samples with rate ``lam``.")
_sample("_sample_gamma", lambda g, a, b, s: g.gamma(np.broadcast_to(a, s), np.broadcast_to(b, s)),
        ("alpha", "beta"), ("sample_gamma",),
        "_sample_gamma: per-element gamma samples (shape ``alpha``, scale ``beta``).")
_sample("_sample_poisson", lambda g, lam, s: g.poisson(np.broadcast_to(lam, s)), ("lam",), ("sample_poisson",),
        "_sample_poisson: per-element Poisson samples with rate ``lam``.")
_sample("_sample_negative_binomial", _neg_binomial, ("k", "p"), ("sample_negative_binomial",),
        "_sample_negative_binomial: per-element negative binomial samples.")
_sample("_sample_generalized_negative_binomial", _gen_neg_binomial, ("mu", "alpha"),
        ("sample_generalized_negative_binomial",),
        "_sample_generalized_negative_binomial: per-element generalized negative binomial samples.")
