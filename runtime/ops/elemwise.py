"""Elementwise operators: unary math, binary arithmetic (same-shape and broadcasting), scalar forms.

MXNet has three spellings of each binary operation, all defined here from one table entry:
``elemwise_add`` (same shapes; what ``Symbol + Symbol`` builds), ``broadcast_add`` (numpy
broadcasting; what ``NDArray + NDArray`` calls) and ``_plus_scalar`` / ``_rminus_scalar``
(one tensor and the ``scalar`` attribute; what ``x + 1.5`` builds).

MXNet never promotes: the two inputs of a binary operator must have one dtype (MXNet 1.9.1's
``ElemwiseType`` check fails with "Incompatible attr ... expected int32, got float32", imperatively and
when a graph is bound; so do these kernels), every result has that dtype (comparisons give 0/1 in
it), so each kernel casts back. Unary math on integer tensors is computed in float64 and cast back too.
Also here: ``clip``, ``where``, ``Cast``, ``add_n``, identity-like ops (``_copy``, ``BlockGrad``,
``make_loss``), ``zeros_like``/``ones_like``.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from . import _special
from ._npcompat import broadcast_shapes
from ._util import const_type, known
from .attrs import Bool, Dtype, Float, Int, Param
from .registry import OpDef, all_same_shape_backward, register, same_shape


def _keep(fn, exact_on_ints=False):
    """``fn`` applied in a float type for integer/bool inputs (unless ``exact_on_ints``); the result
    cast back to the input dtype."""
    def run(x):
        dt = x.dtype
        with np.errstate(all="ignore"):  # sqrt(-1), log(0): nan/inf silently, as MXNet
            out = fn(x) if dt.kind in "fc" or exact_on_ints and dt.kind in "iu" else fn(x.astype(np.float64))
        out = np.asarray(out)
        return out if out.dtype == dt else out.astype(dt)
    return run


def unary(name: str, fn, *, aliases=(), fluent=True, params=(), doc="", exact_on_ints=False, traits=()) -> OpDef:
    """Registers a one-input elementwise op computing ``fn(x)`` (``fn(x, attrs)`` if it has params)."""
    kern = _keep(fn, exact_on_ints) if not params else None
    if params:
        def compute(attrs, x):
            dt = x.dtype
            xin = x if dt.kind in "fc" else x.astype(np.float64)
            out = np.asarray(fn(xin, attrs))
            return out if out.dtype == dt else out.astype(dt)
    else:
        def compute(attrs, x):
            return kern(x)
    compute.__doc__ = doc or f"MXNet operator {name}: elementwise."
    return register(OpDef(name, compute, params=params, inputs=("data",), infer_shape=same_shape,
                          aliases=aliases, fluent=fluent, doc=doc, traits=("elementwise", *traits)))


def _round_half_away(x):
    return np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5)).astype(x.dtype, copy=False)


def _rint_half_down(x):
    """MXNet's rint: the nearer integer, halfway cases to the lower one (1.5 -> 1, -0.5 -> -1)."""
    f = np.floor(x)
    return np.where(x - f <= 0.5, f, np.ceil(x)).astype(x.dtype, copy=False)


def _via_double(f):
    """``f`` of float32 computed in float64 and rounded once: MXNet's CPU kernels call glibc's
    ``expf``/``logf``, which round (nearly always) correctly, where numpy's float32 SIMD loops are up
    to an ulp or two off (recorded on 4000 values: exp 3997 equal this way against 2436 directly, log
    3985 against 3378). expm1, log1p, log2, log10 and sqrt are numpy's own already equal to MXNet's."""
    def run(x):
        return f(x.astype(np.float64)).astype(np.float32) if x.dtype == np.float32 else f(x)
    run.__name__ = f.__name__
    return run


_exp, _log = _via_double(np.exp), _via_double(np.log)


def _sigmoid(x):
    # float32's exp stays numpy's here: the compiled programs fuse sigmoid into one in-place pass
    # with it (an ulp from MXNet's at times; through float64 it would cost 2x there)
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _identity(x):
    return x.copy()


# name, numpy function, aliases, fluent
_UNARY = [
    ("abs", np.abs, (), True), ("sign", np.sign, (), True), ("round", _round_half_away, (), True),
    ("rint", _rint_half_down, (), True), ("ceil", np.ceil, (), True), ("floor", np.floor, (), True),
    ("trunc", np.trunc, (), True), ("fix", np.trunc, (), True),
    ("sqrt", np.sqrt, (), True), ("rsqrt", lambda x: 1.0 / np.sqrt(x), (), True),
    ("cbrt", np.cbrt, (), True), ("rcbrt", lambda x: 1.0 / np.cbrt(x), (), True),
    ("square", np.square, (), True), ("reciprocal", np.reciprocal, (), True),
    ("exp", _exp, (), True), ("expm1", np.expm1, (), True), ("log", _log, (), True),
    ("log10", np.log10, (), True), ("log2", np.log2, (), True), ("log1p", np.log1p, (), True),
    ("sin", np.sin, (), True), ("cos", np.cos, (), True), ("tan", np.tan, (), True),
    ("arcsin", np.arcsin, (), True), ("arccos", np.arccos, (), True), ("arctan", np.arctan, (), True),
    ("sinh", np.sinh, (), True), ("cosh", np.cosh, (), True), ("tanh", np.tanh, (), True),
    ("arcsinh", np.arcsinh, (), True), ("arccosh", np.arccosh, (), True), ("arctanh", np.arctanh, (), True),
    ("degrees", np.degrees, (), True), ("radians", np.radians, (), True),
    ("relu", lambda x: np.maximum(x, np.zeros((), x.dtype)), (), True), ("sigmoid", _sigmoid, (), True),
    ("softsign", lambda x: x / (1.0 + np.abs(x)), (), True),
    ("erf", _special.erf, (), True), ("erfinv", _special.erfinv, (), True),
    ("gamma", _special.gamma, (), True), ("gammaln", _special.gammaln, (), True),
    ("negative", np.negative, (), False),
    ("logical_not", lambda x: (x == 0), (), False),
    ("_copy", _identity, ("identity",), False),
    ("BlockGrad", _identity, ("stop_gradient",), False),
    ("make_loss", _identity, (), False),
    ("zeros_like", np.zeros_like, (), True),
    ("ones_like", np.ones_like, (), True),
]
# integer inputs need no float detour for these
_EXACT_ON_INTS = {"abs", "sign", "round", "rint", "ceil", "floor", "trunc", "fix", "square", "relu", "negative",
                  "logical_not", "_copy", "BlockGrad", "make_loss", "zeros_like", "ones_like"}
_IDENTITIES = {"_copy", "BlockGrad", "make_loss"}      # forward is the input itself
for _n, _f, _a, _fl in _UNARY:
    unary(_n, _f, aliases=_a, fluent=_fl, exact_on_ints=_n in _EXACT_ON_INTS,
          traits=("identity",) if _n in _IDENTITIES else ())

unary("hard_sigmoid", lambda x, a: np.clip(a.alpha * x + a.beta, 0.0, 1.0).astype(x.dtype, copy=False),
      params=(Param("alpha", Float, 0.2), Param("beta", Float, 0.5)), fluent=False,
      doc="hard_sigmoid: max(0, min(1, alpha * x + beta)).")


def _clip(attrs, x):
    """clip: values limited to [a_min, a_max]."""
    out = np.minimum(np.maximum(x, attrs.a_min), attrs.a_max)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


register(OpDef("clip", _clip, params=(Param("a_min", Float), Param("a_max", Float)),
               infer_shape=same_shape, fluent=True))


# -- binary ------------------------------------------------------------------------------------
def _broadcast_shapes(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [a if b is None else b]
    if not (known(a) and known(b)):
        if len(a) == len(b):
            out = tuple(x if y == 1 else y if x == 1 else (x or y) for x, y in zip(a, b))
            return list(in_shapes), [out]
        return list(in_shapes), [None]
    try:
        return list(in_shapes), [tuple(broadcast_shapes(tuple(a), tuple(b)))]
    except ValueError:
        raise ShapeError(f"shapes {tuple(a)} and {tuple(b)} cannot be broadcast together") from None


def _same_shapes(attrs, in_shapes):
    """Elementwise rule of same-shape ops: all inputs and the output share one shape (0 = unknown)."""
    known_shapes = [tuple(s) for s in in_shapes if s is not None]
    if not known_shapes:
        return list(in_shapes), [None]
    nd = len(known_shapes[0])
    merged = list(known_shapes[0])
    for s in known_shapes[1:]:
        if len(s) != nd:
            raise ShapeError("elementwise operator needs equal shapes, got "
                             + ", ".join(str(t) for t in known_shapes))
        for i, d in enumerate(s):
            if d and merged[i] and d != merged[i]:
                raise ShapeError("elementwise operator needs equal shapes, got "
                                 + ", ".join(str(t) for t in known_shapes))
            merged[i] = merged[i] or d
    shape = tuple(merged)
    return [shape] * len(in_shapes), [shape]


def _cast_like(fn):
    """Wraps a numpy function so the result keeps the first input's dtype (MXNet never promotes)."""
    def run(a, b):
        out = np.asarray(fn(a, b))
        return out if out.dtype == a.dtype else out.astype(a.dtype, copy=False)
    return run


def _mod(a, b):
    """MXNet's mod: the sign of the divisor (Python's %), and 0 where the divisor is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if a.dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu":
            bz = np.asarray(b) == 0
            out = np.mod(a, np.where(bz, 1, b))
            return np.where(bz, 0, out)
        out = np.mod(a, b)
        return np.where(np.asarray(b) == 0, 0, out)


def _power(a, b):
    if a.dtype.kind in "iub":
        with np.errstate(all="ignore"):
            return np.power(a.astype(np.float64), b)
    with np.errstate(all="ignore"):
        return np.power(a, b)


def _div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        if a.dtype.kind in "iu":
            q = np.true_divide(a, b)
            return np.trunc(np.where(np.isfinite(q), q, 0))
        return np.true_divide(a, b)


def _bool_op(fn):
    return lambda a, b: fn(a != 0, np.asarray(b) != 0)


def _scalar_params():
    return (Param("scalar", Float, 1.0), Param("is_int", Bool, True))


def binary(base: str, fn, *, elemwise: str | None, broadcast: str | None, scalar: str | None,
           rscalar: str | None = None, elemwise_aliases=(), broadcast_aliases=(), scalar_aliases=(),
           rscalar_aliases=()) -> None:
    """Registers the same-shape, broadcasting and scalar spellings of one binary operation."""
    kern = _cast_like(fn)

    def two(attrs, a, b):
        return kern(a, b)
    two.__doc__ = f"MXNet binary operator ({base}); both inputs of one dtype (``same_dtype``)."
    if elemwise:
        register(OpDef(elemwise, two, inputs=("lhs", "rhs"), infer_shape=_same_shapes, same_dtype="all",
                       infer_shape_backward=all_same_shape_backward, aliases=elemwise_aliases,
                       traits=("elementwise",)))
    if broadcast:
        register(OpDef(broadcast, two, inputs=("lhs", "rhs"), infer_shape=_broadcast_shapes, same_dtype="all",
                       aliases=broadcast_aliases))
    if scalar:
        def sc(attrs, x):
            return kern(x, np.asarray(attrs.scalar).astype(x.dtype))  # MXNet: DType(scalar)
        sc.__doc__ = f"MXNet binary operator ({base}) with the scalar attribute on the right."
        register(OpDef(scalar, sc, params=_scalar_params(), infer_shape=same_shape, aliases=scalar_aliases,
                       traits=("elementwise",)))
    if rscalar:
        def rsc(attrs, x):
            s = np.broadcast_to(np.asarray(attrs.scalar).astype(x.dtype), x.shape)
            out = np.asarray(fn(s, x))
            return out if out.dtype == x.dtype else out.astype(x.dtype)
        rsc.__doc__ = f"MXNet binary operator ({base}) with the scalar attribute on the left."
        register(OpDef(rscalar, rsc, params=_scalar_params(), infer_shape=same_shape, aliases=rscalar_aliases,
                       traits=("elementwise",)))


# base, fn, elemwise name (+aliases), broadcast name (+aliases), scalar (+aliases), rscalar (+aliases)
_BINARY = [
    ("add", np.add, ("elemwise_add", ("_plus", "_Plus", "_add")), ("broadcast_add", ("broadcast_plus",)),
     ("_plus_scalar", ("_PlusScalar",)), None),
    ("sub", np.subtract, ("elemwise_sub", ("_minus", "_Minus", "_sub")), ("broadcast_sub", ("broadcast_minus",)),
     ("_minus_scalar", ("_MinusScalar",)), ("_rminus_scalar", ("_RMinusScalar",))),
    ("mul", np.multiply, ("elemwise_mul", ("_mul", "_Mul")), ("broadcast_mul", ()),
     ("_mul_scalar", ("_MulScalar",)), None),
    ("div", _div, ("elemwise_div", ("_div", "_Div")), ("broadcast_div", ()),
     ("_div_scalar", ("_DivScalar",)), ("_rdiv_scalar", ("_RDivScalar",))),
    ("mod", _mod, ("_mod", ("_Mod",)), ("broadcast_mod", ()), ("_mod_scalar", ("_ModScalar",)),
     ("_rmod_scalar", ("_RModScalar",))),
    ("power", _power, ("_power", ("_Power",)), ("broadcast_power", ()), ("_power_scalar", ("_PowerScalar",)),
     ("_rpower_scalar", ("_RPowerScalar",))),
    ("maximum", np.maximum, ("_maximum", ("_Maximum",)), ("broadcast_maximum", ()),
     ("_maximum_scalar", ("_MaximumScalar",)), None),
    ("minimum", np.minimum, ("_minimum", ("_Minimum",)), ("broadcast_minimum", ()),
     ("_minimum_scalar", ("_MinimumScalar",)), None),
    ("hypot", np.hypot, ("_hypot", ("_Hypot",)), ("broadcast_hypot", ()), ("_hypot_scalar", ("_HypotScalar",)),
     None),
    ("equal", np.equal, ("_equal", ("_Equal",)), ("broadcast_equal", ()), ("_equal_scalar", ("_EqualScalar",)), None),
    ("not_equal", np.not_equal, ("_not_equal", ("_Not_Equal",)), ("broadcast_not_equal", ()),
     ("_not_equal_scalar", ("_NotEqualScalar",)), None),
    ("greater", np.greater, ("_greater", ("_Greater",)), ("broadcast_greater", ()),
     ("_greater_scalar", ("_GreaterScalar",)), None),
    ("greater_equal", np.greater_equal, ("_greater_equal", ("_Greater_Equal",)), ("broadcast_greater_equal", ()),
     ("_greater_equal_scalar", ("_GreaterEqualScalar",)), None),
    ("lesser", np.less, ("_lesser", ("_Lesser",)), ("broadcast_lesser", ()), ("_lesser_scalar", ("_LesserScalar",)), None),
    ("lesser_equal", np.less_equal, ("_lesser_equal", ("_Lesser_Equal",)), ("broadcast_lesser_equal", ()),
     ("_lesser_equal_scalar", ("_LesserEqualScalar",)), None),
    ("logical_and", _bool_op(np.logical_and), ("_logical_and", ("_Logical_And",)), ("broadcast_logical_and", ()),
     ("_logical_and_scalar", ("_LogicalAndScalar",)), None),
    ("logical_or", _bool_op(np.logical_or), ("_logical_or", ("_Logical_Or",)), ("broadcast_logical_or", ()),
     ("_logical_or_scalar", ("_LogicalOrScalar",)), None),
    ("logical_xor", _bool_op(np.logical_xor), ("_logical_xor", ("_Logical_Xor",)), ("broadcast_logical_xor", ()),
     ("_logical_xor_scalar", ("_LogicalXorScalar",)), None),
]
for _base, _fn, _ew, _bc, _sc, _rs in _BINARY:
    binary(_base, _fn, elemwise=_ew[0], elemwise_aliases=_ew[1], broadcast=_bc[0], broadcast_aliases=_bc[1],
           scalar=_sc[0], scalar_aliases=_sc[1], rscalar=_rs[0] if _rs else None,
           rscalar_aliases=_rs[1] if _rs else ())


# -- n-ary and the rest -------------------------------------------------------------------------
def _add_n(attrs, *arrays):
    """add_n / ElementWiseSum: the sum of all inputs (same shapes)."""
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out


register(OpDef("add_n", _add_n, params=(Param("num_args", Int),), variadic="num_args", same_dtype="all",
               infer_shape=_same_shapes, infer_shape_backward=all_same_shape_backward,
               aliases=("ElementWiseSum",)))


def _where_shape(attrs, in_shapes):
    c, x, y = in_shapes
    _, (xy,) = _same_shapes(attrs, [x, y])
    if c is not None and xy is not None and len(c) == 1 and len(xy) > 1:
        if c[0] and xy[0] and c[0] != xy[0]:
            raise ShapeError(f"where: condition of shape {tuple(c)} does not match x of shape {tuple(xy)}")
        return [c, xy, xy], [xy]
    if c is not None and xy is not None:
        _, (m,) = _same_shapes(attrs, [c, xy])
        return [m, m, m], [m]
    if xy is None and c is not None and len(c) > 1:
        return [c, c, c], [c]
    return [c, xy, xy], [xy]


def _where(attrs, cond, x, y):
    """where: x where condition is non-zero else y; a 1-D condition selects whole rows."""
    c = cond != 0
    if c.ndim == 1 and x.ndim > 1:
        if c.shape[0] != x.shape[0]:  # MXNet's shape check; numpy would broadcast a length-1 axis
            raise ShapeError(f"where: condition of shape {c.shape} does not match x of shape {x.shape}")
        c = c.reshape((-1,) + (1,) * (x.ndim - 1))
    elif c.shape != x.shape or x.shape != y.shape:
        raise ShapeError(f"where: condition, x and y need one shape, got {c.shape}, {x.shape} and {y.shape}")
    return np.where(c, x, y).astype(x.dtype, copy=False)


register(OpDef("where", _where, inputs=("condition", "x", "y"), infer_shape=_where_shape, same_dtype=(1, 2),
               infer_type=lambda attrs, dts: [dts[1] if dts[1] is not None else np.dtype(np.float32)]))


def _cast(attrs, x):
    """Cast: values converted to ``dtype`` (C casts: floats truncate toward zero)."""
    return x.astype(np.dtype(attrs.dtype))


register(OpDef("Cast", _cast, params=(Param("dtype", Dtype),), infer_shape=same_shape,
               infer_type=const_type("dtype"), aliases=("cast",),
               traits=("elementwise", "identity"), identity_if=lambda a, training, shape: True))  # same dtype

__all__ = ["unary", "binary"]


# -- gradients ---------------------------------------------------------------------------------------
# MXNet's FGradient of each op above (elemwise_unary_op_*.cc, elemwise_binary_*op*.cc), as vector-Jacobian
# rules written with registered operators (F = nd or sym): ``x`` the input, ``y`` the output, ``g`` the
# output gradient. Operators MXNet registers with MakeZeroGradNodes get ZERO_GRAD.
from .registry import ZERO_GRAD, defgrad

_LN10, _LN2 = float(np.log(10.0)), float(np.log(2.0))
_UNARY_GRADS = {
    "abs": lambda F, x, y, g: g * F.sign(x),
    "sqrt": lambda F, x, y, g: g / (y * 2.0),
    "rsqrt": lambda F, x, y, g: g * (y * y * y) * -0.5,
    "cbrt": lambda F, x, y, g: g / (F.square(y) * 3.0),
    "rcbrt": lambda F, x, y, g: g * F.square(F.square(y)) * (-1.0 / 3.0),
    "square": lambda F, x, y, g: g * x * 2.0,
    "reciprocal": lambda F, x, y, g: -g / F.square(x),
    "exp": lambda F, x, y, g: g * y,
    "expm1": lambda F, x, y, g: g * F.exp(x),
    "log": lambda F, x, y, g: g / x,
    "log10": lambda F, x, y, g: g / (x * _LN10),
    "log2": lambda F, x, y, g: g / (x * _LN2),
    "log1p": lambda F, x, y, g: g / (x + 1.0),
    "sin": lambda F, x, y, g: g * F.cos(x),
    "cos": lambda F, x, y, g: -(g * F.sin(x)),
    "tan": lambda F, x, y, g: g * (F.square(y) + 1.0),
    "arcsin": lambda F, x, y, g: g / F.sqrt(1.0 - F.square(x)),
    "arccos": lambda F, x, y, g: -g / F.sqrt(1.0 - F.square(x)),
    "arctan": lambda F, x, y, g: g / (F.square(x) + 1.0),
    "sinh": lambda F, x, y, g: g * F.cosh(x),
    "cosh": lambda F, x, y, g: g * F.sinh(x),
    "tanh": lambda F, x, y, g: g * (1.0 - F.square(y)),
    "arcsinh": lambda F, x, y, g: g / F.sqrt(F.square(x) + 1.0),
    "arccosh": lambda F, x, y, g: g / F.sqrt(F.square(x) - 1.0),
    "arctanh": lambda F, x, y, g: g / (1.0 - F.square(x)),
    "degrees": lambda F, x, y, g: g * float(180.0 / np.pi),
    "radians": lambda F, x, y, g: g * float(np.pi / 180.0),
    "relu": lambda F, x, y, g: F._internal._backward_relu(g, y),
    "sigmoid": lambda F, x, y, g: g * y * (1.0 - y),
    "softsign": lambda F, x, y, g: g / F.square(F.abs(x) + 1.0),
    "erf": lambda F, x, y, g: g * F.exp(-F.square(x)) * float(2.0 / np.sqrt(np.pi)),
    "erfinv": lambda F, x, y, g: g * F.exp(F.square(y)) * float(np.sqrt(np.pi) / 2.0),
    "gammaln": lambda F, x, y, g: F._internal._backward_gammaln(g, x),
    "gamma": lambda F, x, y, g: F._internal._backward_gammaln(g * y, x),
    "negative": lambda F, x, y, g: -g,
    "_copy": lambda F, x, y, g: g,
    "make_loss": lambda F, x, y, g: F.ones_like(y),  # MXNet: the loss's gradient is ones, whatever comes in
}


def _backward_relu(attrs, g, y):
    """relu's gradient ``g * relu_grad(y)`` with MXNet's ``relu_grad``: 1 where ``y > 0``, 0 elsewhere,
    and NaN where ``y`` is NaN (``mshadow_op::relu_grad`` returns a NaN argument itself)."""
    d = g * (y > 0)
    if y.dtype.kind == "f" and np.isnan(np.add.reduce(y, axis=None)):     # relu's outputs are >= 0 or NaN
        nan = np.isnan(y)
        d[np.broadcast_to(nan, d.shape)] = np.nan
    return d


register(OpDef("_backward_relu", _backward_relu, inputs=("ograd", "output"), infer_shape=lambda a, s: (list(s), [s[0]]),
               infer_type=lambda a, d: [d[0] if d[0] is not None else np.dtype(np.float32)],
               doc="relu's gradient: ograd where the output is positive, 0 elsewhere, NaN where it is NaN."))


@defgrad("_backward_relu")
def _backward_relu_grad(F, attrs, inputs, outputs, out_grads):
    """MXNet's second-order rule: ``ograd * (y > 0)`` for the head gradient, zeros for ``y``."""
    y = inputs[1]
    return [out_grads[0] * (y > F.zeros_like(y)), F.zeros_like(y)]


def _unary_rule(fn):
    def rule(F, attrs, inputs, outputs, out_grads):
        return [fn(F, inputs[0], outputs[0], out_grads[0])]
    return rule


for _n, _fn in _UNARY_GRADS.items():
    defgrad(_n)(_unary_rule(_fn))
defgrad("sign", "round", "rint", "ceil", "floor", "trunc", "fix", "logical_not", "BlockGrad", "zeros_like",
        "ones_like")(ZERO_GRAD)


@defgrad("hard_sigmoid")
def _hard_sigmoid_grad(F, attrs, inputs, outputs, out_grads):
    x, = inputs
    v = x * attrs.alpha + attrs.beta
    return [out_grads[0] * ((v > 0.0) * (v < 1.0)) * attrs.alpha]


@defgrad("clip")
def _clip_grad(F, attrs, inputs, outputs, out_grads):
    x, = inputs
    return [out_grads[0] * ((x >= attrs.a_min) * (x <= attrs.a_max))]


def _digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) = d/dx log Gamma(x): recurrence up to x >= 6, then the asymptotic series; the
    reflection formula below 0.5."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        refl = x < 0.5
        z = np.where(refl, 1.0 - x, x)
        acc = np.zeros_like(z)
        for _ in range(6):
            small = z < 6.0
            acc = acc - np.where(small, 1.0 / z, 0.0)
            z = np.where(small, z + 1.0, z)
        z2 = 1.0 / (z * z)
        psi = np.log(z) - 0.5 / z - z2 * (1.0 / 12 - z2 * (1.0 / 120 - z2 / 252)) + acc
        return np.where(refl, psi - np.pi / np.tan(np.pi * x), psi)


def _backward_gammaln(attrs, g, x):
    """``g * digamma(x)``: the gradient of gammaln (and, with ``g * gamma(x)``, of gamma)."""
    return (g * _digamma(x)).astype(g.dtype, copy=False)


register(OpDef("_backward_gammaln", _backward_gammaln, inputs=("ograd", "data"), infer_shape=same_shape))


def _reduce_to(attrs, g, like):
    """The gradient ``g`` of a broadcast output summed over the axes its input ``like`` was broadcast
    along: shaped as ``like`` (what MXNet's ``_backward_broadcast_*`` kernels do for each input)."""
    if g.shape == like.shape:
        return g
    extra = g.ndim - like.ndim
    axes = tuple(range(extra)) + tuple(i + extra for i, d in enumerate(like.shape) if d == 1 and g.shape[i + extra] != 1)
    return np.sum(g, axis=axes, dtype=g.dtype).reshape(like.shape)


register(OpDef("_backward_broadcast_reduce", _reduce_to, inputs=("ograd", "like"),
               infer_shape=lambda attrs, s: (list(s), [s[1]])))


def _binary_grads(F, base, a, b, y, g):
    """(d lhs, d rhs) of one binary operation, shaped as the output (broadcasting operators: they
    serve the same-shape and the broadcasting spellings, with F = nd or sym)."""
    mul, div = F.broadcast_mul, F.broadcast_div
    if base == "add":
        return g, g
    if base == "sub":
        return g, -g
    if base == "mul":
        return mul(g, b), mul(g, a)
    if base == "div":
        return div(g, b), -div(mul(g, a), F.square(b))
    if base == "mod":
        if _integer(a):   # MXNet's mod_grad / mod_rgrad are 1 and -floor(a / b) for floats only, else 0
            return F.zeros_like(g), F.zeros_like(g)
        return g, -mul(g, F.floor(div(a, b)))
    if base == "power":
        return mul(mul(g, b), F.broadcast_power(a, b - 1.0)), mul(mul(g, y), F.log(a))
    if base == "maximum":
        return mul(g, F.broadcast_greater_equal(a, b)), mul(g, F.broadcast_lesser(a, b))
    if base == "minimum":
        return mul(g, F.broadcast_lesser_equal(a, b)), mul(g, F.broadcast_greater(a, b))
    if base == "hypot":
        return mul(g, div(a, y)), mul(g, div(b, y))
    raise AssertionError(base)


def _binary_rule(base: str, broadcast: bool):
    def rule(F, attrs, inputs, outputs, out_grads):
        a, b = inputs
        ga, gb = _binary_grads(F, base, a, b, outputs[0], out_grads[0])
        if broadcast:  # each input's gradient summed over the axes it was broadcast along
            return [F._internal._backward_broadcast_reduce(ga, a), F._internal._backward_broadcast_reduce(gb, b)]
        return [ga, gb]
    return rule


def _integer(x) -> bool:
    """Is ``x`` (an NDArray, or a Symbol whose dtype is known) of an integer dtype?"""
    dt = getattr(x, "dtype", None)
    if dt is None or not isinstance(dt, (type, np.dtype)):
        return False
    return np.dtype(dt).kind in "iub"


def _scalar_grad(base: str, reverse: bool):
    def rule(F, attrs, inputs, outputs, out_grads):
        x, y, g, s = inputs[0], outputs[0], out_grads[0], attrs.scalar
        if base == "mod" and _integer(x):   # mod_grad, rmod_grad: 0 for integer dtypes (MXNet)
            return [F.zeros_like(g)]
        if not reverse:
            if base in ("add", "sub", "mod"):
                return [g]
            if base == "mul":
                return [g * s]
            if base == "div":
                return [g / s]
            if base == "power":
                return [g * s * (x ** (s - 1.0))]
            if base == "maximum":
                return [g * (x >= s)]
            if base == "minimum":
                return [g * (x <= s)]
            if base == "hypot":
                return [g * x / y]
        else:
            if base == "sub":
                return [-g]
            if base == "div":
                return [-(g * y) / x]
            if base == "mod":
                return [-(g * F.floor(s / x))]
            if base == "power":
                return [g * y * float(np.log(s)) if s > 0 else g * y * F.log(F.ones_like(x) * s)]
        raise AssertionError(base)
    return rule


_DIFFERENTIABLE = {"add", "sub", "mul", "div", "mod", "power", "maximum", "minimum", "hypot"}
for _base, _fn, _ew, _bc, _sc, _rs in _BINARY:
    if _base in _DIFFERENTIABLE:
        defgrad(_ew[0])(_binary_rule(_base, False))
        defgrad(_bc[0])(_binary_rule(_base, True))
        defgrad(_sc[0])(_scalar_grad(_base, False))
        if _rs:
            defgrad(_rs[0])(_scalar_grad(_base, True))
    else:  # comparisons and logical operators: MakeZeroGradNodes
        defgrad(*[n for n in (_ew[0], _bc[0], _sc[0], _rs[0] if _rs else None) if n])(ZERO_GRAD)


@defgrad("add_n")
def _add_n_grad(F, attrs, inputs, outputs, out_grads):
    return [out_grads[0]] * len(inputs)


@defgrad("where")
def _where_grad(F, attrs, inputs, outputs, out_grads):
    cond = inputs[0]
    g = out_grads[0]
    zero = F.zeros_like(g)
    return [None, F.where(cond, g, zero), F.where(cond, zero, g)]


def _backward_cast(attrs, g, like):
    """The gradient of Cast: the output gradient in the input's dtype."""
    return g.astype(like.dtype)


register(OpDef("_backward_cast", _backward_cast, inputs=("ograd", "data"), infer_shape=same_shape,
               infer_type=lambda attrs, dts: [dts[1] if dts[1] is not None else np.dtype(np.float32)]))
defgrad("Cast")(lambda F, attrs, inputs, outputs, out_grads: [F._internal._backward_cast(out_grads[0], inputs[0])])
