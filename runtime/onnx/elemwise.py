"""Elementwise operators: unary math, binary arithmetic in its same-shape, broadcasting and scalar
spellings, comparisons (MXNet returns 0/1 in the input's dtype), where, clip, Cast, add_n."""
from __future__ import annotations

import math

import numpy as np

from .activation import log_sigmoid, mish
from .registry import converter

# unary MXNet op -> ONNX op of the same meaning
_UNARY = {"abs": "Abs", "sign": "Sign", "ceil": "Ceil", "floor": "Floor", "sqrt": "Sqrt",
          "reciprocal": "Reciprocal", "exp": "Exp", "log": "Log", "sin": "Sin", "cos": "Cos", "tan": "Tan",
          "arcsin": "Asin", "arccos": "Acos", "arctan": "Atan", "sinh": "Sinh", "cosh": "Cosh",
          "tanh": "Tanh", "arcsinh": "Asinh", "arccosh": "Acosh", "arctanh": "Atanh", "relu": "Relu",
          "sigmoid": "Sigmoid", "softsign": "Softsign", "erf": "Erf", "negative": "Neg",
          "_copy": "Identity", "BlockGrad": "Identity", "make_loss": "Identity"}


@converter(*_UNARY)
def unary(n):
    return [n.op(_UNARY[n.node.op.name], n.inputs[0])]


@converter("rsqrt")
def rsqrt(n):
    return [n.op("Reciprocal", n.op("Sqrt", n.inputs[0]))]


@converter("cbrt", "rcbrt")
def cbrt(n):
    x = n.inputs[0]
    r = n.op("Mul", n.op("Sign", x), n.op("Pow", n.op("Abs", x), n.scalar(1.0 / 3.0)))
    return [r if n.node.op.name == "cbrt" else n.op("Reciprocal", r)]


@converter("square")
def square(n):
    return [n.op("Mul", n.inputs[0], n.inputs[0])]


@converter("round")
def round_half_away(n):
    """MXNet rounds halves away from zero; ONNX Round rounds them to even."""
    x = n.inputs[0]
    return [n.op("Mul", n.op("Sign", x), n.op("Floor", n.op("Add", n.op("Abs", x), n.scalar(0.5))))]


@converter("rint")
def rint(n):
    return [n.op("Round", n.inputs[0])]


@converter("trunc", "fix")
def trunc(n):
    x = n.inputs[0]
    return [n.op("Mul", n.op("Sign", x), n.op("Floor", n.op("Abs", x)))]


@converter("expm1")
def expm1(n):
    return [n.op("Sub", n.op("Exp", n.inputs[0]), n.scalar(1.0))]


@converter("log1p")
def log1p(n):
    return [n.op("Log", n.op("Add", n.inputs[0], n.scalar(1.0)))]


@converter("log2", "log10")
def log_base(n):
    base = 2.0 if n.node.op.name == "log2" else 10.0
    return [n.op("Div", n.op("Log", n.inputs[0]), n.scalar(math.log(base)))]


@converter("degrees", "radians")
def angle(n):
    f = 180.0 / math.pi if n.node.op.name == "degrees" else math.pi / 180.0
    return [n.op("Mul", n.inputs[0], n.scalar(f))]


@converter("log_sigmoid")
def log_sigmoid_op(n):
    return [log_sigmoid(n, n.inputs[0])]


@converter("mish")
def mish_op(n):
    return [mish(n, n.inputs[0])]


@converter("hard_sigmoid")
def hard_sigmoid(n):
    return [n.op("HardSigmoid", n.inputs[0], alpha=float(n.attrs.alpha), beta=float(n.attrs.beta))]


@converter("logical_not")
def logical_not(n):
    x = n.inputs[0]
    return [n.cast(n.op("Equal", x, n.scalar(0)), n.out_dtype(0))]


@converter("zeros_like", "ones_like")
def fill_like(n):
    v = 0 if n.node.op.name == "zeros_like" else 1
    value = n.b.tensor("value", np.asarray([v], dtype=n.out_dtype(0)))
    return [n.op("ConstantOfShape", n.op("Shape", n.inputs[0]), value=value)]


@converter("clip")
def clip(n):
    x = n.inputs[0]
    return [n.op("Clip", x, n.scalar(n.attrs.a_min), n.scalar(n.attrs.a_max))]


# -- binary ---------------------------------------------------------------------------------------
_ARITH = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "maximum": "Max", "minimum": "Min"}
_COMPARE = {"equal": "Equal", "greater": "Greater", "greater_equal": "GreaterOrEqual", "lesser": "Less",
            "lesser_equal": "LessOrEqual"}
_LOGICAL = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}


# MXNet's spellings of each binary operation: same-shape, broadcasting, scalar, scalar on the left
_SPELLINGS = {
    "add": ("elemwise_add", "broadcast_add", "_plus_scalar"),
    "sub": ("elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar"),
    "mul": ("elemwise_mul", "broadcast_mul", "_mul_scalar"),
    "div": ("elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar"),
    "mod": ("_mod", "broadcast_mod", "_mod_scalar", "_rmod_scalar"),
    "power": ("_power", "broadcast_power", "_power_scalar", "_rpower_scalar"),
    **{b: (f"_{b}", f"broadcast_{b}", f"_{b}_scalar")
       for b in ("maximum", "minimum", "hypot", "equal", "not_equal", "greater", "greater_equal", "lesser",
                 "lesser_equal", "logical_and", "logical_or", "logical_xor")},
}
_KINDS: dict[str, tuple[str, bool]] = {}   # MXNet op name -> (operation, scalar on the left)
for _base, _spellings in _SPELLINGS.items():
    for _k, _nm in enumerate(_spellings):
        _KINDS[_nm] = (_base, _k == 3)


def _operands(n) -> tuple[str, str]:
    if len(n.inputs) == 2:
        return n.inputs[0], n.inputs[1]
    s = n.scalar(float(n.attrs.scalar))
    _, left = _KINDS[n.node.op.name]
    return (s, n.inputs[0]) if left else (n.inputs[0], s)


def binary_op(n, base: str, a: str, b: str) -> str:
    dt = n.out_dtype(0)
    if base in _ARITH:
        return n.op(_ARITH[base], a, b)
    if base == "power":
        return n.op("Pow", a, b)
    if base == "hypot":
        return n.op("Sqrt", n.op("Add", n.op("Mul", a, a), n.op("Mul", b, b)))
    if base == "mod":    # Python's sign-of-divisor mod, 0 where the divisor is 0
        zero = n.scalar(0)
        bz = n.op("Equal", b, zero)
        safe = n.op("Where", bz, n.scalar(1), b)
        m = n.op("Mod", a, safe, fmod=1)
        fix = n.op("And", n.op("Not", n.op("Equal", m, zero)),
                   n.op("Xor", n.op("Less", m, zero), n.op("Less", safe, zero)))
        m = n.op("Where", fix, n.op("Add", m, safe), m)
        return n.op("Where", bz, zero, m)
    if base in _COMPARE:
        return n.cast(n.op(_COMPARE[base], a, b), dt)
    if base == "not_equal":
        return n.cast(n.op("Not", n.op("Equal", a, b)), dt)
    zero = n.scalar(0)
    ab = [n.op("Not", n.op("Equal", v, zero)) for v in (a, b)]
    return n.cast(n.op(_LOGICAL[base], *ab), dt)


@converter(*_KINDS)
def binary(n):
    base, _ = _KINDS[n.node.op.name]
    a, b = _operands(n)
    return [binary_op(n, base, a, b)]


@converter("add_n")
def add_n(n):
    if len(n.inputs) == 1:
        return [n.op("Identity", n.inputs[0])]
    return [n.op("Sum", *n.inputs)]


@converter("where")
def where(n):
    c, x, y = n.inputs
    cs, xs = n.in_shape(0), n.in_shape(1)
    cond = n.op("Not", n.op("Equal", c, n.const(np.asarray(0, n.in_dtype(0)))))
    if len(cs) == 1 and len(xs) > 1:     # a 1-D condition selects rows
        cond = n.unsqueeze(cond, list(range(1, len(xs))))
    return [n.op("Where", cond, x, y)]


@converter("Cast")
def cast(n):
    return [n.cast(n.inputs[0], n.out_dtype(0))]
