"""``mx.np``: MXNet 1.9.1's NumPy interface on the runtime (imperative).

Every function here except the data-driven creators (``array``, ``asarray``, ``empty``,
``empty_like``) and NumPy's own fallbacks is built from the one table,
:data:`hybridize.runtime._numpy_table.TABLE` (see its docstring), and runs registered operators
(``_npi_add``, ``_np_sum``, ...) through :func:`.multiarray.invoke`, so autograd records them.
Functions MXNet 1.9.1 runs on official NumPy (``numpy/fallback.py``: ``isclose``, ``searchsorted``,
``polyfit``, ...) do the same here: their inputs are copied to NumPy and the results back.

Official NumPy calls on these arrays dispatch as in MXNet 1.9.1 (``numpy_dispatch_protocol.py``):
``onp.sum(x)``, ``onp.exp(x)`` return ``mx.np.ndarray``.
"""
from __future__ import annotations

import sys
import types as _types
from typing import Any

import numpy as _onp

from .. import numpy_extension as _npx_pkg
from . import linalg, random  # noqa: F401
from .io import genfromtxt  # noqa: F401
from .multiarray import (  # noqa: F401
    _bind_modules,
    array,
    asarray,
    empty,
    empty_like,
    install,
    invoke,
    ndarray,
)

_this = sys.modules[__name__]
_bind_modules(_this, _npx_pkg)
install(_this, _npx_pkg)

# constants and dtypes MXNet's np exposes (NumPy's own objects)
pi, e, inf, nan, newaxis = _onp.pi, _onp.e, _onp.inf, _onp.nan, None
NAN = NaN = _onp.nan
PINF, NINF, PZERO, NZERO = _onp.inf, -_onp.inf, 0.0, -0.0
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
int8, int32, int64, uint8 = _onp.int8, _onp.int32, _onp.int64, _onp.uint8
bool_ = _onp.bool_
bool = _onp.bool_
dtype = _onp.dtype
finfo = _onp.finfo
iinfo = _onp.iinfo


def shape(a: Any) -> tuple:
    return a.shape if hasattr(a, "shape") else _onp.shape(a)


def size(a: Any, axis: int | None = None) -> int:
    return a.size if axis is None else a.shape[axis]


def ndim(a: Any) -> int:
    return a.ndim if hasattr(a, "ndim") else _onp.ndim(a)


def may_share_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    return _onp.may_share_memory(a._data, b._data)


shares_memory = may_share_memory


def set_printoptions(**kwargs: Any) -> None:
    _onp.set_printoptions(**kwargs)


# -- NumPy fallbacks (MXNet 1.9.1's numpy/fallback.py list) -----------------------------------------------
_FALLBACK = ("allclose", "apply_along_axis", "apply_over_axes", "argpartition", "argwhere", "array_equal",
             "array_equiv", "choose", "compress", "corrcoef", "correlate", "count_nonzero", "cov", "digitize",
             "divmod", "extract", "flatnonzero", "float_power", "frexp", "heaviside", "histogram2d",
             "histogram_bin_edges", "histogramdd", "i0", "in1d", "interp", "intersect1d", "isclose", "isin", "ix_",
             "lexsort", "min_scalar_type", "modf", "msort", "nanargmax", "nanargmin", "nancumprod", "nancumsum",
             "nanmax", "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "partition", "piecewise",
             "packbits", "poly", "polyadd", "polydiv", "polyfit", "polyint", "polymul", "polysub", "positive",
             "promote_types", "ptp", "real", "result_type", "roots", "searchsorted", "select", "setdiff1d",
             "setxor1d", "signbit", "spacing", "take_along_axis", "trapz", "tril_indices_from", "trim_zeros",
             "triu_indices_from", "union1d", "unpackbits", "unwrap", "vander", "unique", "unravel_index",
             "diag_indices_from", "bincount", "percentile", "quantile", "histogram", "polyval", "ediff1d",
             "resize", "insert", "delete", "broadcast_arrays")


def _to_onp(v: Any) -> Any:
    if isinstance(v, ndarray) or type(v).__name__ == "NDArray":
        return v.asnumpy()
    if isinstance(v, (list, tuple)):
        return type(v)(_to_onp(x) for x in v)
    return v


def _from_onp(v: Any) -> Any:
    if isinstance(v, _onp.ndarray):
        return ndarray(_onp.array(v, copy=True))
    if isinstance(v, tuple):
        return tuple(_from_onp(x) for x in v)
    if isinstance(v, list) and v and all(isinstance(x, _onp.ndarray) for x in v):
        return [_from_onp(x) for x in v]
    return v


def _fallback(name: str) -> Any:
    onp_fn = _onp
    for part in name.split("."):
        onp_fn = getattr(onp_fn, part)

    def fn(*args: Any, **kwargs: Any) -> Any:
        from .. import autograd
        if autograd.is_recording():
            raise ValueError(f"Falling back to NumPy operator {name} with autograd active is not supported."
                             "Please consider moving the operator to the outside of the autograd scope.")
        return _from_onp(onp_fn(*_to_onp(args), **{k: _to_onp(v) for k, v in kwargs.items()}))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"NumPy's {name} on copies of the inputs (MXNet 1.9.1 falls back to official NumPy too)."
    return fn


for _name in _FALLBACK:
    if not hasattr(_this, _name) and hasattr(_onp, _name):
        setattr(_this, _name, _fallback(_name))
# mx.np.fallback: exactly MXNet 1.9.1's list (numpy/fallback.py), each name NumPy has (the financial
# functions and alltrue are gone from newer NumPy, as from MXNet's module with it)
_FALLBACK_ALL = ("allclose", "alltrue", "apply_along_axis", "apply_over_axes", "argpartition", "argwhere",
                 "array_equal", "array_equiv", "choose", "compress", "corrcoef", "correlate", "count_nonzero",
                 "cov", "digitize", "divmod", "extract", "flatnonzero", "float_power", "frexp", "heaviside",
                 "histogram2d", "histogram_bin_edges", "histogramdd", "i0", "in1d", "interp", "intersect1d",
                 "isclose", "isin", "ix_", "lexsort", "min_scalar_type", "mirr", "modf", "msort", "nanargmax",
                 "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmedian", "nanmin", "nanpercentile",
                 "nanprod", "nanquantile", "ndim", "npv", "partition", "piecewise", "packbits", "poly", "polyadd",
                 "polydiv", "polyfit", "polyint", "polymul", "polysub", "positive", "ppmt", "promote_types", "ptp",
                 "pv", "rate", "real", "result_type", "rollaxis", "roots", "searchsorted", "select", "setdiff1d",
                 "setxor1d", "signbit", "size", "spacing", "take_along_axis", "trapz", "tril_indices_from",
                 "trim_zeros", "triu_indices_from", "union1d", "unpackbits", "unwrap", "vander")
for _name in _FALLBACK_ALL:
    if not hasattr(_this, _name) and hasattr(_onp, _name):
        setattr(_this, _name, _fallback(_name))
fallback = _types.ModuleType(__name__ + ".fallback")
fallback.__all__ = [n for n in _FALLBACK_ALL if hasattr(_this, n) and hasattr(_onp, n)]  # type: ignore[attr-defined]
for _name in fallback.__all__:  # type: ignore[attr-defined]
    setattr(fallback, _name, getattr(_this, _name))
sys.modules.setdefault(fallback.__name__, fallback)
fallback_linalg = _types.ModuleType(__name__ + ".fallback_linalg")
fallback_linalg.__all__ = ["cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr"]  # type: ignore[attr-defined]
for _name in fallback_linalg.__all__:  # type: ignore[attr-defined]  # MXNet 1.9.1's fallback_linalg
    if _name in ("cond", "lstsq", "matrix_rank", "qr") or not hasattr(linalg, _name):
        setattr(linalg, _name, _fallback("linalg." + _name))
    setattr(fallback_linalg, _name, getattr(linalg, _name))


# -- the official-NumPy dispatch protocols (MXNet 1.9.1's numpy_dispatch_protocol.py lists) ---------------
_ARRAY_FUNCTIONS = (
    "all", "any", "sometrue", "argmin", "argmax", "around", "round", "round_", "argsort", "sort", "append",
    "broadcast_arrays", "broadcast_to", "clip", "concatenate", "copy", "cumsum", "diag", "diagonal", "diagflat",
    "dot", "expand_dims", "fix", "flip", "flipud", "fliplr", "inner", "insert", "max", "amax", "mean", "min",
    "amin", "nonzero", "ones_like", "atleast_1d", "atleast_2d", "atleast_3d", "prod", "product", "ravel", "repeat",
    "reshape", "roll", "split", "array_split", "hsplit", "vsplit", "dsplit", "squeeze", "stack", "std", "sum",
    "swapaxes", "take", "tensordot", "tile", "transpose", "unique", "unravel_index", "diag_indices_from", "delete",
    "var", "vdot", "vstack", "column_stack", "hstack", "dstack", "zeros_like", "linalg.norm", "linalg.cholesky",
    "linalg.inv", "linalg.solve", "linalg.tensorinv", "linalg.tensorsolve", "linalg.pinv", "linalg.eigvals",
    "linalg.eig", "linalg.eigvalsh", "linalg.eigh", "shape", "trace", "tril", "meshgrid", "outer", "einsum",
    "polyval", "shares_memory", "may_share_memory", "quantile", "percentile", "diff", "ediff1d", "resize", "where",
    "full_like", "bincount", "empty_like", "nan_to_num", "isnan", "isfinite", "isposinf", "isneginf", "isinf", "pad")
_ARRAY_UFUNCS = (
    "abs", "fabs", "add", "arctan2", "copysign", "degrees", "hypot", "lcm", "subtract", "multiply", "true_divide",
    "negative", "power", "mod", "matmul", "absolute", "rint", "sign", "exp", "log", "log2", "log10", "expm1",
    "sqrt", "square", "cbrt", "reciprocal", "invert", "bitwise_not", "remainder", "sin", "cos", "tan", "sinh",
    "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "maximum", "minimum", "ceil",
    "trunc", "floor", "bitwise_and", "bitwise_xor", "bitwise_or", "logical_not", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal")


def _lookup(mod: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        mod = getattr(mod, part, None)
        if mod is None:
            return None
    return mod


_FUNCTION_DICT: dict = {}
for _name in _ARRAY_FUNCTIONS:
    _onp_fn, _mx_fn = _lookup(_onp, _name), _lookup(_this, _name)
    if _onp_fn is not None and _mx_fn is not None:
        _FUNCTION_DICT[_onp_fn] = _mx_fn
_UFUNC_DICT = {n: getattr(_this, n) for n in _ARRAY_UFUNCS if hasattr(_this, n)}


def _array_ufunc(self: ndarray, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """Official NumPy ufuncs on np arrays run MXNet's function of the same name (others: NumPy on copies)."""
    if "out" in kwargs:
        out = kwargs["out"]
        if len(out) != 1:
            raise ValueError("The `out` parameter must have exactly one ndarray")
        kwargs["out"] = out[0]
    if method != "__call__":
        return NotImplemented
    mx_fn = _UFUNC_DICT.get(ufunc.__name__)
    if mx_fn is not None:
        return mx_fn(*inputs, **kwargs)
    from .. import autograd
    if autograd.is_recording():
        raise ValueError(f"Falling back to NumPy operator {ufunc.__name__} with autograd active is not supported."
                         "Please consider moving the operator to the outside of the autograd scope.")
    return _from_onp(getattr(_onp, ufunc.__name__)(*_to_onp(inputs), **kwargs))


def _array_function(self: ndarray, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    """Official NumPy functions on np arrays run MXNet's (MXNet's list; others: NumPy on copies)."""
    mx_fn = _FUNCTION_DICT.get(func)
    if mx_fn is None:
        from .. import autograd
        if autograd.is_recording():
            raise ValueError(f"Falling back to NumPy operator {func} with autograd active is not supported."
                             "Please consider moving the operator to the outside of the autograd scope.")
        return _from_onp(func(*_to_onp(args), **{k: _to_onp(v) for k, v in kwargs.items()}))
    if not all(issubclass(t, ndarray) for t in types):
        return NotImplemented
    return mx_fn(*args, **kwargs)


ndarray.__array_ufunc__ = _array_ufunc  # type: ignore[attr-defined]
ndarray.__array_function__ = _array_function  # type: ignore[attr-defined]


# -- mx.np._internal: MXNet's np operators by their names without the _npi_ prefix ------------------------------
def _internal_function(op_name: str) -> Any:
    from .. import _frontend
    from ..ops.registry import get_op
    op = get_op(op_name)

    def fn(*args: Any, **kwargs: Any) -> Any:
        call = _frontend.bind_call(op, args, kwargs, lambda v: isinstance(v, ndarray) or type(v).__name__ == "NDArray")
        return invoke(op_name, [v for v in call.inputs if v is not None], call.given, out=call.out)
    fn.__name__ = fn.__qualname__ = op_name[len("_npi_"):]
    return fn


_internal = _types.ModuleType(__name__ + "._internal")
from ..ops.registry import all_names as _all_names  # noqa: E402

for _op_name, _ in _all_names():
    if _op_name.startswith("_npi_"):
        setattr(_internal, _op_name[len("_npi_"):], _internal_function(_op_name))
sys.modules.setdefault(_internal.__name__, _internal)

# NumPy-style signatures of MXNet's built-in _np_*/_npx_* operators (inspect.signature(np.sum)), as
# MXNet's; npx's operator functions are installed by this module's builder, so both are given here
from .._numpy_op_doc import apply_signatures as _apply_signatures  # noqa: E402

_apply_signatures(sys.modules[__name__], "_np_")
_apply_signatures(sys.modules[__name__.rsplit(".", 1)[0] + ".numpy_extension"], "_npx_")
