"""np-mode operators (``_npi_*``, ``_np_*``, ``_npx_*`` that MXNet 1.9.1 registers as operators of their
own) exported through the converters of the legacy operators computing the same thing.

Each entry names the legacy operator and how the np operator's attributes become its attributes
(``_npi_concatenate``'s ``axis`` is ``Concat``'s ``dim``); the legacy converter then sees the node
as that operator (:class:`_AsLegacy`), so there is one converter per computation, not a second
copy per spelling. What NumPy semantics add is done here: inputs cast to the output's dtype where
np operators promote (``int32 + float32``, integer ``true_divide`` -> float32), and a reduction
over every axis gives a 0-d result (legacy MXNet gives shape ``(1,)``).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..ops.registry import find_op, get_op
from .context import NodeView
from .registry import converter, lookup


class _Proxy:
    """The node as its legacy converter must see it: the legacy op, everything else the node's."""

    def __init__(self, node: Any, op: Any) -> None:
        self._node = node
        self.op = op

    def __getattr__(self, key: str) -> Any:
        return getattr(self._node, key)


class _AsLegacy(NodeView):
    """A view of an np node as the legacy operator ``op`` with attributes ``attrs`` (shapes and
    dtypes still looked up by the real node)."""

    def __init__(self, view: NodeView, op: Any, attrs: Any, inputs: list[str]) -> None:  # noqa: D107
        self.__dict__.update(view.__dict__)
        self._real = view.node
        self.node = _Proxy(view.node, op)
        self.attrs = attrs
        self.inputs = inputs

    def out_shape(self, k: int = 0) -> tuple:
        return self.conv.shape((id(self._real), k))

    def out_alt(self, k: int = 0) -> tuple:
        return self.conv.alt_shape((id(self._real), k))

    def out_dyn(self, k: int = 0) -> tuple:
        return self.conv.dyn((id(self._real), k))

    def out_dtype(self, k: int = 0) -> np.dtype:
        return self.conv.dtype((id(self._real), k))


def _same(attrs: Any) -> dict:
    return {}


def _legacy(n: NodeView, name: str, attrs: dict, promote: bool = False) -> list[str]:
    """Converts ``n`` with the converter of the legacy operator ``name`` given ``attrs``; with
    ``promote`` every input not of the output's dtype is cast to it first (NumPy's promotion)."""
    op = get_op(name)
    inputs = list(n.inputs)
    if promote:
        out = n.out_dtype(0)
        inputs = [x if n.in_dtype(i) == out else n.cast(x, out) for i, x in enumerate(inputs)]
    view = _AsLegacy(n, op, op.resolve(op.coerce_attrs(attrs)), inputs)
    conv = lookup(op)
    if conv is None:
        n.fail(f"no converter for {name}")
    return conv.fn(view)


def _scalar_attrs(a: Any) -> dict:
    return {"scalar": float(a.scalar)}


def _reduce_attrs(a: Any) -> dict:
    return {"axis": a.axis, "keepdims": bool(a.keepdims)}


#: np operator -> (legacy operator, its attributes from the np node's resolved ones, promote inputs)
_MAP: dict[str, tuple[str, Callable[[Any], dict], bool]] = {}
_UNARY = ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt", "ceil", "cos", "cosh",
          "degrees", "exp", "expm1", "fix", "floor", "log", "log10", "log1p", "log2", "negative",
          "radians", "reciprocal", "rint", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
          "logical_not")
_MAP.update({f"_npi_{u}": (u, _same, False) for u in _UNARY})
_MAP.update({"_npi_absolute": ("abs", _same, False), "_npx_relu": ("relu", _same, False),
             "_npx_sigmoid": ("sigmoid", _same, False), "_np_copy": ("_copy", _same, False)})
_BINARY = {"add": "broadcast_add", "subtract": "broadcast_sub", "multiply": "broadcast_mul",
           "true_divide": "broadcast_div", "mod": "broadcast_mod", "power": "broadcast_power",
           "hypot": "broadcast_hypot", "equal": "broadcast_equal", "not_equal": "broadcast_not_equal",
           "greater": "broadcast_greater", "greater_equal": "broadcast_greater_equal",
           "less": "broadcast_lesser", "less_equal": "broadcast_lesser_equal"}
_COMPARISONS = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal"}
_MAP.update({f"_npi_{b}": (legacy, _same, b not in _COMPARISONS) for b, legacy in _BINARY.items()})
_SCALAR = {"add_scalar": "_plus_scalar", "subtract_scalar": "_minus_scalar", "rsubtract_scalar": "_rminus_scalar",
           "multiply_scalar": "_mul_scalar", "true_divide_scalar": "_div_scalar",
           "rtrue_divide_scalar": "_rdiv_scalar", "mod_scalar": "_mod_scalar", "rmod_scalar": "_rmod_scalar",
           "power_scalar": "_power_scalar", "rpower_scalar": "_rpower_scalar", "equal_scalar": "_equal_scalar",
           "not_equal_scalar": "_not_equal_scalar", "greater_scalar": "_greater_scalar",
           "greater_equal_scalar": "_greater_equal_scalar", "less_scalar": "_lesser_scalar",
           "less_equal_scalar": "_lesser_equal_scalar"}
_MAP.update({f"_npi_{s}": (legacy, _scalar_attrs, not s.startswith(("equal", "not_equal", "greater", "less")))
             for s, legacy in _SCALAR.items()})
_MAP.update({
    "_np_sum": ("sum", _reduce_attrs, False), "_npi_mean": ("mean", _reduce_attrs, False),
    "_np_max": ("max", _reduce_attrs, False), "_np_min": ("min", _reduce_attrs, False),
    "_np_prod": ("prod", _reduce_attrs, False),
    "_np_reshape": ("Reshape", lambda a: {"shape": tuple(a.newshape)}, False),
    "_npx_reshape": ("Reshape", lambda a: {"shape": tuple(a.newshape)}, False),
    "_np_transpose": ("transpose", lambda a: {"axes": tuple(a.axes) if a.axes is not None else ()}, False),
    "_npi_concatenate": ("Concat", lambda a: {"dim": int(a.axis), "num_args": int(a.num_args)}, True),
    "_npi_stack": ("stack", lambda a: {"axis": int(a.axis), "num_args": int(a.num_args)}, True),
    "_np_squeeze": ("squeeze", lambda a: {"axis": a.axis}, False),
})
_REDUCTIONS = {"_np_sum", "_npi_mean", "_np_max", "_np_min", "_np_prod"}
_PROMOTING_SCALARS = {f"_npi_{s}" for s in ("true_divide_scalar", "rtrue_divide_scalar")}


def _convert(n: NodeView) -> list[str]:
    name = n.node.op.name
    legacy, attrs, promote = _MAP[name]
    if name in _PROMOTING_SCALARS or (promote and len(n.inputs) == 1):
        promote = n.in_dtype(0) != n.out_dtype(0)  # integer / scalar -> float32
    if name in _REDUCTIONS:
        if getattr(n.attrs, "initial", None) is not None:
            n.fail("a reduction with initial=")
        dtype = getattr(n.attrs, "dtype", None)
        if dtype is not None and np.dtype(dtype) != n.in_dtype(0):
            n.fail("a reduction with dtype= other than the input's")
        outs = _legacy(n, legacy, attrs(n.attrs))
        if n.out_shape(0) == () and len(n.inputs) == 1:  # NumPy: every axis reduced -> 0-d
            return [n.reshape(outs[0], [])]
        return outs
    if name in ("_npi_add", "_npi_multiply") and n.out_dtype(0) == np.bool_:  # NumPy: or / and of bools
        a, b = (x if n.in_dtype(i) == np.bool_ else n.cast(x, np.bool_) for i, x in enumerate(n.inputs))
        return [n.op("Or" if name == "_npi_add" else "And", a, b)]
    if name in ("_np_reshape", "_npx_reshape"):
        return [n.op("Reshape", n.inputs[0], n.target_shape(0))]
    return _legacy(n, legacy, attrs(n.attrs), promote)


converter(*[name for name in _MAP if find_op(name) is not None and find_op(name).name == name])(_convert)


@converter(*[n for n in ("_npi_where",) if find_op(n) is not None])
def where(n: NodeView) -> list[str]:
    """NumPy's where broadcasts, as ONNX's Where does."""
    c, x, y = n.inputs
    cond = c if n.in_dtype(0) == np.bool_ else n.op("Not", n.op("Equal", c, n.const(np.asarray(0, n.in_dtype(0)))))
    out = n.out_dtype(0)
    x = x if n.in_dtype(1) == out else n.cast(x, out)
    y = y if n.in_dtype(2) == out else n.cast(y, out)
    return [n.op("Where", cond, x, y)]


@converter(*[n for n in ("_npi_matmul",) if find_op(n) is not None])
def matmul(n: NodeView) -> list[str]:
    out = n.out_dtype(0)
    a, b = (x if n.in_dtype(i) == out else n.cast(x, out) for i, x in enumerate(n.inputs))
    return [n.op("MatMul", a, b)]


@converter(*[n for n in ("_npi_full_like",) if find_op(n) is not None])
def full_like(n: NodeView) -> list[str]:
    value = n.b.tensor("value", np.asarray([n.attrs.fill_value], dtype=n.out_dtype(0)))
    return [n.op("ConstantOfShape", n.op("Shape", n.inputs[0]), value=value)]


@converter(*[n for n in ("_npi_zeros", "_npi_ones") if find_op(n) is not None])
def filled(n: NodeView) -> list[str]:
    v = 0 if n.node.op.name == "_npi_zeros" else 1
    return [n.const(np.full(n.out_shape(0), v, dtype=n.out_dtype(0)))]
