"""Random sampling operators (``_random_*``, ``_sample_*``) on one module-level, seedable generator.

``seed(n)`` (exposed as ``nd.random.seed`` / ``mx.random.seed``) resets the generator (and numpy's
global one, which Dropout uses), so a seeded program draws the same numbers every run. The numbers
are not MXNet's: MXNet's generators cannot be reproduced with numpy.

:func:`install_frontend` adds MXNet's Python-level ``random.uniform/normal/randint/...`` functions
(which take ``dtype`` before ``ctx`` and switch to ``_sample_*`` when given tensors) to a namespace.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _buffers
from ._grad import backward_op, internal
from ._util import shape_fn
from .attrs import Bool, DtypeOrNone, Enum, Float, Int, Param, Shape, Str
from .registry import ZERO_GRAD, OpDef, defgrad, register

__all__ = ["drawn", "generator", "install_frontend", "seed"]

_STATE = {"rng": np.random.default_rng()}


def seed(seed_state: int, ctx: Any = "all") -> None:
    """Seeds the generator every random operator draws from (``ctx`` accepted for MXNet's signature)."""
    _STATE["rng"] = np.random.default_rng(int(seed_state))
    np.random.seed(int(seed_state) % (2 ** 32))


def generator() -> np.random.Generator:
    return _STATE["rng"]


_CTX = Param("ctx", Str, "")
_FLOAT_DT = Param("dtype", DtypeOrNone, None)


def _dt(attrs, default="float32"):
    return np.dtype(attrs.dtype if attrs.dtype not in (None, "None") else default)


#: elements drawn at a time into a large output (64K float64 draws: 512 KiB, in cache)
_CHUNK = 1 << 16


def drawn(draw: Any, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """``draw(size)`` (float64 or int64 draws from the generator) as an array of ``dtype``. A large
    one is drawn chunk by chunk straight into the output: numpy's generators draw element after
    element, so the numbers and the generator's state afterwards are the ones one call gives, without
    a float64 temporary of the whole size (1 GiB of fresh pages for a 537 MB float32 array)."""
    n = int(np.prod(shape)) if shape else 1
    if n <= _CHUNK:
        return np.asarray(draw(shape)).astype(dtype)
    out = _buffers.empty((n,), dtype)
    for i in range(0, n, _CHUNK):
        k = min(_CHUNK, n - i)
        out[i:i + k] = draw((k,))
    return out.reshape(shape)


def _sampler(name, draw, params, *, default="float32", aliases=(), doc=""):
    def compute(attrs):
        return drawn(lambda size: draw(generator(), attrs, size), tuple(attrs.shape), _dt(attrs, default))
    compute.__doc__ = doc
    register(OpDef(name, compute, params=params, inputs=(),
                   infer_shape=lambda a, s: ([], [tuple(a.shape)]),
                   infer_type=lambda a, d: [_dt(a, default)], aliases=aliases, traits=("random",),
                   gradient=ZERO_GRAD))


_sampler("_random_uniform", lambda g, a, s: g.uniform(a.low, a.high, s),
         (Param("low", Float, 0.0), Param("high", Float, 1.0), Param("shape", Shape, ()), _CTX, _FLOAT_DT),
         aliases=("uniform", "random_uniform"), doc="_random_uniform: samples from U[low, high).")
_sampler("_random_normal", lambda g, a, s: g.normal(a.loc, a.scale, s),
         (Param("loc", Float, 0.0), Param("scale", Float, 1.0), Param("shape", Shape, ()), _CTX, _FLOAT_DT),
         aliases=("normal", "random_normal"), doc="_random_normal: samples from N(loc, scale^2).")
_sampler("_random_randint", lambda g, a, s: g.integers(a.low, a.high, s),
         (Param("low", Int), Param("high", Int), Param("shape", Shape, ()), _CTX,
          Param("dtype", DtypeOrNone, None)),
         default="int32", aliases=("random_randint",), doc="_random_randint: integers from [low, high).")
_sampler("_random_exponential", lambda g, a, s: g.exponential(1.0 / a.lam, s),
         (Param("lam", Float, 1.0), Param("shape", Shape, ()), _CTX, _FLOAT_DT),
         aliases=("random_exponential",), doc="_random_exponential: samples with rate ``lam``.")
_sampler("_random_gamma", lambda g, a, s: g.gamma(a.alpha, a.beta, s),
         (Param("alpha", Float, 1.0), Param("beta", Float, 1.0), Param("shape", Shape, ()), _CTX, _FLOAT_DT),
         aliases=("random_gamma",), doc="_random_gamma: samples with shape ``alpha`` and scale ``beta``.")
_sampler("_random_poisson", lambda g, a, s: g.poisson(a.lam, s),
         (Param("lam", Float, 1.0), Param("shape", Shape, ()), _CTX, _FLOAT_DT),
         aliases=("random_poisson",), doc="_random_poisson: samples with rate ``lam``.")


# -- *_like and _sample_* (distribution parameters given as tensors) ---------------------------------------
def _like(name, draw, params, doc):
    def compute(attrs, data):
        dt = data.dtype if data.dtype.kind == "f" else np.dtype(np.float32)
        return drawn(lambda size: draw(generator(), attrs, size), data.shape, dt)
    compute.__doc__ = doc
    register(OpDef(name, compute, params=params, inputs=("data",),
                   infer_shape=lambda a, s: (list(s), [s[0]]), traits=("random",), gradient=ZERO_GRAD))


_like("_random_uniform_like", lambda g, a, s: g.uniform(a.low, a.high, s),
      (Param("low", Float, 0.0), Param("high", Float, 1.0)), "_random_uniform_like: U[low, high) shaped like data.")
_like("_random_normal_like", lambda g, a, s: g.normal(a.loc, a.scale, s),
      (Param("loc", Float, 0.0), Param("scale", Float, 1.0)), "_random_normal_like: N(loc, scale^2) like data.")


def _sample(name, draw, inputs, aliases, doc):
    """``_sample_*``: ``shape`` samples per element of the parameter tensors (one or more, one shape),
    ``draw(generator, *params, out_shape)`` seeing each parameter as float64 with ``shape``'s axes
    appended."""
    def compute(attrs, *ps):
        extra = tuple(attrs.shape)
        full = ps[0].shape + extra
        args = [p.astype(np.float64).reshape(p.shape + (1,) * len(extra)) for p in ps]
        return np.asarray(draw(generator(), *args, full)).astype(_dt(attrs))
    compute.__doc__ = doc
    register(OpDef(name, compute, params=(Param("shape", Shape, ()), _FLOAT_DT), inputs=inputs,
                   infer_shape=shape_fn(lambda a, s1, *rest: tuple(s1) + tuple(a.shape)),
                   infer_type=lambda a, d: [_dt(a)], aliases=aliases, traits=("random",), gradient=ZERO_GRAD))


_sample("_sample_uniform", lambda g, lo, hi, s: g.uniform(lo, hi, s), ("low", "high"), ("sample_uniform",),
        "_sample_uniform: per-element U[low, high) with ``shape`` samples each.")
_sample("_sample_normal", lambda g, mu, sd, s: g.normal(mu, sd, s), ("mu", "sigma"), ("sample_normal",),
        "_sample_normal: per-element N(mu, sigma^2) with ``shape`` samples each.")


def _multinomial(attrs, data):
    """_sample_multinomial: category indices drawn from each row of probabilities ``data``."""
    extra = tuple(attrs.shape)
    k = int(np.prod(extra)) if extra else 1
    p = data.reshape(-1, data.shape[-1]).astype(np.float64)
    cdf = np.cumsum(p, axis=1)
    u = generator().random((p.shape[0], k)) * cdf[:, -1:]
    idx = np.minimum((u[:, :, None] >= cdf[:, None, :]).sum(axis=2), p.shape[1] - 1)
    out = idx.reshape(data.shape[:-1] + extra).astype(np.dtype(attrs.dtype))
    if not attrs.get_prob:
        return out
    # MXNet's second output: the log-probability of each drawn category, in the data's dtype
    logp = np.log(np.take_along_axis(data.reshape(-1, data.shape[-1]), idx, axis=1))
    return out, logp.reshape(out.shape).astype(data.dtype)


def _multinomial_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or not all(s):
        return list(in_shapes), [None] * (2 if attrs.get_prob else 1)
    out = tuple(s[:-1]) + tuple(attrs.shape) or (1,)
    return list(in_shapes), [out] * (2 if attrs.get_prob else 1)


register(OpDef("_sample_multinomial", _multinomial, inputs=("data",),
               params=(Param("shape", Shape, ()), Param("get_prob", Bool, False),
                       Param("dtype", Enum("float16", "float32", "float64", "int32", "uint8"), "int32")),
               num_outputs=lambda a: 2 if a.get_prob else 1, infer_shape=_multinomial_shape,
               infer_type=lambda a, d: [np.dtype(a.dtype)] + ([np.dtype(d[0] or np.float32)] if a.get_prob else []),
               aliases=("sample_multinomial",), traits=("random",)))


# -- MXNet's Python-level random functions -------------------------------------------------------------
def install_frontend(random_module: Any, internal_module: Any, is_tensor, symbolic: bool = False) -> None:
    """Gives ``random_module`` (``nd.random`` / ``sym.random``) MXNet's Python-level signatures:
    ``uniform(low, high, shape, dtype, ctx, out)``, ``normal(loc, scale, ...)``, ``poisson(lam)``,
    ``exponential(scale)`` (the op's rate is ``1 / scale``), ``gamma(alpha, beta)``,
    ``negative_binomial(k, p)``, ``generalized_negative_binomial(mu, alpha)`` (switching to
    ``_sample_*`` when the parameters are tensors), ``randint(low, high, shape, dtype, ctx, out)``
    and ``seed``."""
    def dist(rand, sample, params, defaults, to_op=None):
        """MXNet's ``_random_helper``: numbers -> ``_random_*`` (``nd``: shape 1 unless given or
        ``out``), tensors -> ``_sample_*``; ``to_op`` maps the Python parameters to the op's."""
        n = len(params)
        names = tuple(params) + ("shape", "dtype", "ctx", "out")

        def fn(*args, **kwargs):
            if len(args) > len(names):
                raise TypeError(f"random.{rand.__name__}: too many positional arguments")
            kw = dict(zip(names, args))
            for k, v in kwargs.items():
                if k in kw:
                    raise TypeError(f"random.{rand.__name__}: got multiple values for {k!r}")
                kw[k] = v
            kw.pop("ctx", None)
            kw = {k: v for k, v in kw.items() if v is not None}
            values = [kw.pop(p, d) for p, d in zip(params, defaults)]
            if to_op is not None:
                values = to_op(*values)
            tensors = [is_tensor(v) for v in values]
            if any(tensors):
                if not all(tensors):
                    raise ValueError(f"random.{rand.__name__}: distribution parameters must all have the "
                                     "same type (all tensors or all numbers)")
                return sample(*values, **kw)
            if not symbolic and "shape" not in kw and "out" not in kw:
                kw["shape"] = (1,)
            op_names = [p.name for p in rand_params(rand)][:n]
            return rand(**dict(zip(op_names, values)), **kw)
        fn.__name__ = rand.__name__
        fn.__doc__ = (f"random.{rand.__name__}({', '.join(f'{p}={d}' for p, d in zip(params, defaults))}, "
                      "shape, dtype, ctx, out), as MXNet's.")
        return fn

    def rand_params(rand):
        from .registry import get_op
        return get_op("_random_" + rand.__name__).params

    random_module.uniform = dist(random_module.uniform, internal_module._sample_uniform, ("low", "high"), (0.0, 1.0))
    random_module.normal = dist(random_module.normal, internal_module._sample_normal, ("loc", "scale"), (0.0, 1.0))
    random_module.poisson = dist(random_module.poisson, internal_module._sample_poisson, ("lam",), (1.0,))
    random_module.exponential = dist(random_module.exponential, internal_module._sample_exponential, ("scale",),
                                     (1.0,), to_op=lambda scale: [1.0 / scale])
    random_module.gamma = dist(random_module.gamma, internal_module._sample_gamma, ("alpha", "beta"), (1.0, 1.0))
    random_module.negative_binomial = dist(random_module.negative_binomial, internal_module._sample_negative_binomial,
                                           ("k", "p"), (1, 1.0))
    random_module.generalized_negative_binomial = dist(
        random_module.generalized_negative_binomial, internal_module._sample_generalized_negative_binomial,
        ("mu", "alpha"), (1.0, 1.0))
    rint = random_module.randint

    def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        """random.randint(low, high, shape, dtype, ctx, out), as MXNet's."""
        kw = {k: v for k, v in (("shape", shape), ("dtype", dtype), ("out", out)) if v is not None}
        return rint(low=low, high=high, **kw, **kwargs)
    random_module.randint = randint
    random_module.seed = seed
    normal = random_module.normal

    def randn(*shape, **kwargs):
        """random.randn(*shape, loc=0, scale=1, dtype, ctx, out), as MXNet's."""
        loc, scale = kwargs.pop("loc", 0), kwargs.pop("scale", 1)
        return normal(loc, scale, shape=shape, **kwargs)

    def shuffle(data, **kwargs):
        """random.shuffle(data): a copy with the first axis shuffled (``_shuffle``), as MXNet's."""
        return internal_module._shuffle(data, **kwargs)

    def multinomial(data, shape=None, get_prob=symbolic, out=None, dtype="int32", **kwargs):
        """random.multinomial(data, shape, get_prob, out, dtype) (``_sample_multinomial``), as MXNet's
        (``get_prob`` defaults to False in ``nd.random``, True in ``sym.random``)."""
        kw = {"get_prob": get_prob, "dtype": dtype, **kwargs}
        if shape is not None:
            kw["shape"] = shape
        if out is not None:
            kw["out"] = out
        return internal_module._sample_multinomial(data, **kw)

    random_module.randn = randn
    random_module.shuffle = shuffle
    random_module.multinomial = multinomial


# -- gradients: the samplers above are MakeZeroGradNodes (src/operator/random/sample_op.cc,
# multisample_op.cc); _sample_multinomial with get_prob back-propagates into its probabilities
# (sample_multinomial_op.h) ---------------------------------------------------------------------------------


def _backward_sample_multinomial(attrs, og_prob, data, samples):
    """d log p[sample] / d p = 1 / p[sample], accumulated per drawn sample (MXNet's kernel)."""
    k = data.shape[-1]
    p = data.reshape(-1, k)
    idx = samples.reshape(p.shape[0], -1).astype(np.int64)
    og = og_prob.reshape(idx.shape)
    rows = np.repeat(np.arange(p.shape[0]), idx.shape[1])
    g = np.zeros_like(p)
    np.add.at(g, (rows, idx.reshape(-1)), (og / np.take_along_axis(p, idx, axis=1)).reshape(-1))
    return g.reshape(data.shape)


backward_op("_backward_sample_multinomial", _backward_sample_multinomial, ("ograd_prob", "data", "samples"))


@defgrad("_sample_multinomial")
def _multinomial_grad(F, attrs, inputs, outputs, out_grads):
    if not attrs.get_prob:
        return [F.zeros_like(inputs[0])]
    return [internal(F, "_backward_sample_multinomial")(out_grads[1], inputs[0], outputs[0])]
