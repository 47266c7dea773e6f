"""MXNet 1.9.1's NumPy-interface operators (``_np_*``, ``_npi_*``, ``_npx_*``), for ``mx.np``/``mx.npx``.

Where MXNet registers an np name on the legacy computation (``_npi_inv`` is ``_linalg_inverse``,
``_npx_fully_connected`` is ``FullyConnected``, ``_npi_sqrt`` computes as ``sqrt``), the name is an alias
of the existing operator (:func:`~.registry.add_aliases`). A new operator is defined only where NumPy
semantics change the computation: type promotion of binary operators, boolean comparisons, reductions
with ``dtype``/``keepdims``/``initial``, zero-dim and zero-size results, NumPy's reshape, random
samplers with ``size``, and the ``np.linalg`` functions legacy MXNet lacks.

MXNet 1.9.1's rules (recorded by ``tools/numpy_rt/record.py``), where they differ from NumPy:

- binary ``array op array``: the float type wins over an integer one (``int32 + float32 -> float32``, not
  float64), two floats or two integers promote as NumPy (``int32 + int64 -> int64``), ``bool`` adopts the
  other dtype; ``true_divide`` of integers is float32.
- ``array op scalar`` keeps the array's dtype (``int32 + 1.5 -> int32``); a bool array with a scalar
  gives int64; ``true_divide`` of an integer array by a scalar is float32.
- comparisons give ``bool``; two arrays of different dtypes are refused ("Type inconsistent").
- unary math keeps the input's dtype (``sqrt(int32) -> int32``, truncated), refuses ``bool``.
- ``sum``/``prod``/``cumsum`` of bool give int64, of integers keep their dtype; ``mean`` of integers is
  float32; ``std``/``var`` keep the input's dtype; ``argmax``/``argmin`` give int64.
"""
from __future__ import annotations

import ast

import numpy as np

from ..base import OperatorTypeError, ShapeError
from . import (  # noqa: F401  # noqa: F401  (their ops get aliases here)
    elemwise,
    nn_activation,
    tensor_cumsum_ste,
    tensor_index,
    tensor_init,
    tensor_linalg,
    tensor_linalg_la,
    tensor_misc,
    tensor_random,
    tensor_reduce,
    tensor_shape,
)
from ._grad import backward_op, internal
from ._npcompat import broadcast_shapes
from ._util import dim_known, known, shape_fn
from .attrs import (
    AttrType,
    Bool,
    Dtype,
    DtypeOrNone,
    Enum,
    Float,
    FloatOrNone,
    Int,
    IntOrNone,
    Param,
    Shape,
    ShapeOrNone,
    Str,
)
from .registry import OpDef, add_aliases, add_twins, defgrad, find_op, register, same_shape

_F32 = np.dtype(np.float32)
_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)


# -- dtype rules -----------------------------------------------------------------------------------
def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """MXNet 1.9.1's result dtype of a binary operator on two arrays (see the module docstring)."""
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    if a.kind == "f" and b.kind != "f":
        return a
    if b.kind == "f" and a.kind != "f":
        return b
    if a.kind == "f":
        return a if a.itemsize >= b.itemsize else b
    if {a.kind, b.kind} == {"i", "u"} and a.itemsize == 1 and b.itemsize == 1:
        raise OperatorTypeError(f"binary operator: int8 and uint8 cannot be combined (MXNet 1.9.1 fails on "
                                f"{a.name} and {b.name})")
    return np.promote_types(a, b)


def _is_intlike(dt: np.dtype) -> bool:
    return np.dtype(dt).kind in "biu"


def _scalar_dtype(dt: np.dtype) -> np.dtype:
    """An ``array op scalar`` result keeps the array's dtype; a bool array gives int64."""
    return _I64 if np.dtype(dt).kind == "b" else np.dtype(dt)


def _out(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    x = np.asarray(x)
    return x if x.dtype == dt else x.astype(dt)


def _int_safe(fn):
    """``fn`` on integer arrays without numpy's errors (x // 0, x % 0 are 0 as in MXNet)."""
    def run(a, b):
        with np.errstate(all="ignore"):
            if _is_intlike(a.dtype) and _is_intlike(np.asarray(b).dtype) and fn in (np.mod, np.floor_divide):
                bz = np.asarray(b) == 0
                return np.where(bz, 0, fn(a, np.where(bz, 1, b)))
            return fn(a, b)
    return run


def _power(a, b):
    with np.errstate(all="ignore"):
        if _is_intlike(a.dtype) and _is_intlike(np.asarray(b).dtype):
            return np.power(a.astype(np.int64), np.asarray(b).astype(np.int64))
        return np.power(a, b)


# -- binary: array op array, array op scalar, scalar op array ---------------------------------------
_SCALAR = (Param("scalar", Float, 1.0), Param("is_int", Bool, True))


def _binary_type(true_div: bool):
    def infer(attrs, dts):
        a, b = (np.dtype(d) if d is not None else _F32 for d in dts)
        dt = promote(a, b)
        return [_F32 if true_div and _is_intlike(dt) else dt]
    return infer


def _scalar_type(true_div: bool):
    def infer(attrs, dts):
        dt = np.dtype(dts[0]) if dts[0] is not None else _F32
        return [_F32 if true_div and _is_intlike(dt) else _scalar_dtype(dt)]
    return infer


def _np_binary(name: str, fn, *, scalar: str | None = None, rscalar: str | None = None,
               true_div: bool = False) -> None:
    """Registers ``name`` (two arrays, NumPy broadcasting, MXNet's promotion) and its scalar forms."""
    def two(attrs, a, b):
        dt = promote(a.dtype, b.dtype)
        cdt = _F32 if true_div and _is_intlike(dt) else dt
        return _out(fn(a.astype(cdt, copy=False), b.astype(cdt, copy=False)), cdt)
    two.__doc__ = f"{name}: NumPy broadcasting and MXNet 1.9.1's type promotion."
    register(OpDef(name, two, inputs=("lhs", "rhs"), infer_shape=elemwise._broadcast_shapes,
                   infer_type=_binary_type(true_div)))

    def scalar_kernel(reverse: bool):
        def sc(attrs, x):
            dt = _F32 if true_div and _is_intlike(x.dtype) else _scalar_dtype(x.dtype)
            xv = x.astype(dt, copy=False)
            s = np.asarray(attrs.scalar).astype(dt) if not true_div else np.asarray(attrs.scalar, dt)
            return _out(fn(s, xv) if reverse else fn(xv, s), dt)
        return sc
    for nm, rev in ((scalar, False), (rscalar, True)):
        if nm:
            k = scalar_kernel(rev)
            k.__doc__ = f"{nm}: {name} with the ``scalar`` attribute on the {'left' if rev else 'right'}."
            register(OpDef(nm, k, params=_SCALAR, infer_shape=same_shape, infer_type=_scalar_type(true_div),
                           traits=("elementwise",)))


_np_binary("_npi_add", np.add, scalar="_npi_add_scalar")
_np_binary("_npi_subtract", np.subtract, scalar="_npi_subtract_scalar", rscalar="_npi_rsubtract_scalar")
_np_binary("_npi_multiply", np.multiply, scalar="_npi_multiply_scalar")
_np_binary("_npi_true_divide", np.true_divide, scalar="_npi_true_divide_scalar",
           rscalar="_npi_rtrue_divide_scalar", true_div=True)
_np_binary("_npi_mod", _int_safe(np.mod), scalar="_npi_mod_scalar", rscalar="_npi_rmod_scalar")
_np_binary("_npi_power", _power, scalar="_npi_power_scalar", rscalar="_npi_rpower_scalar")
_np_binary("_npi_arctan2", np.arctan2, scalar="_npi_arctan2_scalar", rscalar="_npi_rarctan2_scalar")
_np_binary("_npi_hypot", np.hypot)
_np_binary("_npi_copysign", np.copysign, scalar="_npi_copysign_scalar", rscalar="_npi_rcopysign_scalar")
_np_binary("_npi_lcm", np.lcm, scalar="_npi_lcm_scalar")
# a * 2**b in floating point, then the dtype: integers truncate toward zero as MXNet's DType(a * pow(2, b))
_np_binary("_npi_ldexp", lambda a, b: (a * np.power(2.0, b)).astype(a.dtype), scalar="_npi_ldexp_scalar",
           rscalar="_npi_rldexp_scalar")
_np_binary("_npi_bitwise_and", np.bitwise_and, scalar="_npi_bitwise_and_scalar")
_np_binary("_npi_bitwise_or", np.bitwise_or, scalar="_npi_bitwise_or_scalar")
_np_binary("_npi_bitwise_xor", np.bitwise_xor, scalar="_npi_bitwise_xor_scalar")
add_aliases("broadcast_maximum", "_npi_maximum")
add_aliases("broadcast_minimum", "_npi_minimum")
add_aliases("_maximum_scalar", "_npi_maximum_scalar")
add_aliases("_minimum_scalar", "_npi_minimum_scalar")
add_aliases("_hypot_scalar", "_npi_hypot_scalar")


def _compare(name: str, fn) -> None:
    def two(attrs, a, b):
        if a.dtype != b.dtype:
            raise OperatorTypeError(f"{name}: Type inconsistent, Provided = {a.dtype.name}, inferred type = "
                                    f"{b.dtype.name} (MXNet 1.9.1 compares arrays of one dtype)")
        return np.asarray(fn(a, b))
    two.__doc__ = f"{name}: elementwise comparison with NumPy broadcasting, a bool result."
    register(OpDef(name, two, inputs=("lhs", "rhs"), infer_shape=elemwise._broadcast_shapes,
                   infer_type=lambda a, d: [_BOOL]))

    def sc(attrs, x):
        return np.asarray(fn(x, np.asarray(attrs.scalar).astype(x.dtype)))  # MXNet: DType(scalar)
    sc.__doc__ = f"{name}_scalar: comparison with the ``scalar`` attribute cast to the array's dtype, a bool result."
    register(OpDef(name + "_scalar", sc, params=_SCALAR, infer_shape=same_shape, infer_type=lambda a, d: [_BOOL],
                   traits=("elementwise",)))


for _n, _f in (("_npi_equal", np.equal), ("_npi_not_equal", np.not_equal), ("_npi_greater", np.greater),
               ("_npi_greater_equal", np.greater_equal), ("_npi_less", np.less), ("_npi_less_equal", np.less_equal)):
    _compare(_n, _f)


# -- unary ------------------------------------------------------------------------------------------
# MXNet 1.9.1 computes these as the legacy operators (dtype kept, integers truncated). Most are operators
# of their own there (written ``_npi_exp``, ``_npx_relu`` in symbol JSON): twins; erf, erfinv, gamma and
# gammaln are aliases of the legacy ones (tests/numpy/fixtures/np_op_names.json: MXNet's own table).
_UNARY_ALIASES = {
    "abs": ("_npi_absolute",), "sign": ("_npi_sign",), "rint": ("_npi_rint",),
    "ceil": ("_npi_ceil",), "floor": ("_npi_floor",), "trunc": ("_npi_trunc",), "fix": ("_npi_fix",),
    "sqrt": ("_npi_sqrt",), "cbrt": ("_npi_cbrt",), "square": ("_npi_square",), "reciprocal": ("_npi_reciprocal",),
    "exp": ("_npi_exp",), "expm1": ("_npi_expm1",), "log": ("_npi_log",), "log10": ("_npi_log10",),
    "log2": ("_npi_log2",), "log1p": ("_npi_log1p",), "sin": ("_npi_sin",), "cos": ("_npi_cos",),
    "tan": ("_npi_tan",), "arcsin": ("_npi_arcsin",), "arccos": ("_npi_arccos",), "arctan": ("_npi_arctan",),
    "sinh": ("_npi_sinh",), "cosh": ("_npi_cosh",), "tanh": ("_npi_tanh",), "arcsinh": ("_npi_arcsinh",),
    "arccosh": ("_npi_arccosh",), "arctanh": ("_npi_arctanh",), "degrees": ("_npi_degrees",),
    "radians": ("_npi_radians",), "negative": ("_npi_negative",), "relu": ("_npx_relu",),
    "sigmoid": ("_npx_sigmoid",), "erf": ("_npx_erf",), "erfinv": ("_npx_erfinv",), "gamma": ("_npx_gamma",),
    "gammaln": ("_npx_gammaln",),
}
_LEGACY_NAMED = {"erf", "erfinv", "gamma", "gammaln"}
for _legacy, _names in _UNARY_ALIASES.items():
    (add_aliases if _legacy in _LEGACY_NAMED else add_twins)(_legacy, *_names)
add_aliases("_npi_absolute", "_npi_abs")


def _predicate(name: str, fn) -> None:
    def compute(attrs, x):
        return np.asarray(fn(x))
    compute.__doc__ = f"{name}: elementwise test, a bool result."
    register(OpDef(name, compute, inputs=("x",), infer_shape=same_shape, infer_type=lambda a, d: [_BOOL],
                   traits=("elementwise",)))


for _n, _f in (("_npi_logical_not", np.logical_not), ("_npi_isnan", np.isnan), ("_npi_isinf", np.isinf),
               ("_npi_isfinite", np.isfinite), ("_npi_isposinf", np.isposinf), ("_npi_isneginf", np.isneginf)):
    _predicate(_n, _f)


def _bitwise_not(attrs, x):
    """_npi_bitwise_not: ``~x`` (logical not for bool)."""
    return np.invert(x)


register(OpDef("_npi_bitwise_not", _bitwise_not, inputs=("x",), infer_shape=same_shape, traits=("elementwise",)))


def _around(attrs, x):
    """_npi_around: round half to even at ``decimals`` (NumPy's ``around``)."""
    return _out(np.around(x, attrs.decimals), x.dtype)


register(OpDef("_npi_around", _around, inputs=("x",), params=(Param("decimals", Int, 0),), infer_shape=same_shape,
               traits=("elementwise",)))


def _nan_to_num(attrs, x):
    """_npi_nan_to_num: NaN and infinities replaced by finite numbers."""
    return _out(np.nan_to_num(x, nan=attrs.nan, posinf=attrs.posinf, neginf=attrs.neginf), x.dtype)


register(OpDef("_npi_nan_to_num", _nan_to_num, params=(Param("copy", Bool, True), Param("nan", Float, 0.0),
                                                        Param("posinf", FloatOrNone, None),
                                                        Param("neginf", FloatOrNone, None)),
               infer_shape=same_shape, traits=("elementwise",)))


def _where(attrs, c, x, y):
    """_npi_where: ``x`` where ``condition`` is nonzero, else ``y`` (broadcast, promoted)."""
    return np.where(c != 0, x, y).astype(promote(x.dtype, y.dtype), copy=False)


register(OpDef("_npi_where", _where, inputs=("condition", "x", "y"),
               infer_type=lambda a, d: [promote(d[1] or _F32, d[2] or _F32)]))
register(OpDef("_npi_where_lscalar", lambda a, c, y: np.where(c != 0, np.asarray(a.scalar, y.dtype), y),
               inputs=("condition", "y"), params=(Param("scalar", Float, 0.0),),
               infer_type=lambda a, d: [d[1] or _F32]))
register(OpDef("_npi_where_rscalar", lambda a, c, x: np.where(c != 0, x, np.asarray(a.scalar, x.dtype)),
               inputs=("condition", "x"), params=(Param("scalar", Float, 0.0),),
               infer_type=lambda a, d: [d[1] or _F32]))
register(OpDef("_npi_where_scalar2", lambda a, c: np.where(c != 0, np.float32(a.x), np.float32(a.y)),
               inputs=("condition",), params=(Param("x", Float, 0.0), Param("y", Float, 0.0)),
               infer_type=lambda a, d: [_F32]))


# -- reductions ---------------------------------------------------------------------------------------
def _axes(axis, ndim):
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise ShapeError(f"axis {a} is out of bounds for array of dimension {ndim}")
        out.append(a % max(ndim, 1))
    return tuple(out)


def _sum_dtype(dt, given):
    if given not in (None, "None"):
        return np.dtype(given)
    dt = np.dtype(dt)
    return _I64 if dt.kind == "b" else dt


_REDUCE = (Param("axis", ShapeOrNone, None), Param("dtype", DtypeOrNone, None), Param("keepdims", Bool, False),
           Param("initial", FloatOrNone, None))


def _reducer(name: str, fn, dtype_rule, *, params=_REDUCE, inputs=("a",), aliases=()) -> None:
    def compute(attrs, a):
        dt = dtype_rule(a.dtype, attrs.get("dtype"))
        axes = _axes(attrs.axis, a.ndim)
        with np.errstate(all="ignore"):
            out = fn(a, axes, attrs, dt)
        return _out(out, dt)
    compute.__doc__ = f"{name}: NumPy reduction over ``axis`` (None: all), with ``keepdims``."
    register(OpDef(name, compute, params=params, inputs=inputs, aliases=aliases,
                   infer_type=lambda attrs, d: [dtype_rule(d[0] or _F32, attrs.get("dtype"))]))


def _initial(attrs, out, op):
    if attrs.get("initial") is not None:
        raise OperatorTypeError("initial is not supported yet (MXNet 1.9.1's np.sum/np.prod)")
    return out


_reducer("_np_sum", lambda a, ax, at, dt: _initial(at, np.sum(a, axis=ax, dtype=dt, keepdims=at.keepdims), np.add),
         _sum_dtype)
_reducer("_np_prod", lambda a, ax, at, dt: _initial(at, np.prod(a, axis=ax, dtype=dt, keepdims=at.keepdims),
                                                     np.multiply), _sum_dtype, aliases=("_np_product",))


def _mean_dtype(dt, given):
    if given not in (None, "None"):
        return np.dtype(given)
    return _F32 if _is_intlike(dt) else np.dtype(dt)


def _mean(a, ax, at, dt):
    if a.size == 0:  # MXNet 1.9.1: the mean of nothing is 0, not NaN
        return np.sum(a, axis=ax, keepdims=at.keepdims, dtype=dt)
    if dt.kind in "iu":   # an integer dtype accumulates in itself (wrapping), as MXNet and NumPy
        return np.mean(a, axis=ax, dtype=dt, keepdims=at.keepdims)
    return np.mean(a, axis=ax, dtype=np.float64 if dt.itemsize < 8 else dt, keepdims=at.keepdims)


_reducer("_npi_mean", _mean, _mean_dtype)
_MAXMIN = (Param("axis", ShapeOrNone, None), Param("keepdims", Bool, False), Param("initial", FloatOrNone, None))


def _keep_dt(dt, given=None):
    return np.dtype(dt)


def _maxmin(fn):
    def run(a, ax, at, dt):
        if a.size == 0 and at.get("initial") is None:
            raise ShapeError("zero-size array to reduction operation which has no identity")
        kw = {} if at.get("initial") is None else {"initial": at.initial}
        return fn(a, axis=ax, keepdims=at.keepdims, **kw)
    return run


_reducer("_np_max", _maxmin(np.max), _keep_dt, params=_MAXMIN, aliases=("_np_amax",))
_reducer("_np_min", _maxmin(np.min), _keep_dt, params=_MAXMIN, aliases=("_np_amin",))
_STD = (Param("axis", ShapeOrNone, None), Param("dtype", DtypeOrNone, None), Param("ddof", Int, 0),
        Param("keepdims", Bool, False))


def _std_dtype(dt, given):
    if given not in (None, "None"):
        return np.dtype(given)
    if np.dtype(dt).kind == "b":
        raise OperatorTypeError("std/var: bool input is not supported (MXNet 1.9.1: Unknown type enum 7)")
    return np.dtype(dt)


_reducer("_npi_std", lambda a, ax, at, dt: np.std(a.astype(np.float64), axis=ax, ddof=at.ddof, keepdims=at.keepdims),
         _std_dtype, params=_STD)
_reducer("_npi_var", lambda a, ax, at, dt: np.var(a.astype(np.float64), axis=ax, ddof=at.ddof, keepdims=at.keepdims),
         _std_dtype, params=_STD)
_LOGICAL = (Param("axis", ShapeOrNone, None), Param("keepdims", Bool, False))
_reducer("_np_all", lambda a, ax, at, dt: np.all(a, axis=ax, keepdims=at.keepdims), lambda d, g=None: _BOOL,
         params=_LOGICAL, inputs=("data",))
_reducer("_np_any", lambda a, ax, at, dt: np.any(a, axis=ax, keepdims=at.keepdims), lambda d, g=None: _BOOL,
         params=_LOGICAL, inputs=("data",), aliases=("_np_sometrue",))


def _arg(fn):
    def compute(attrs, a):
        if a.dtype.kind == "b":
            raise OperatorTypeError("argmax/argmin: bool input is not supported (MXNet 1.9.1: Unknown type enum 7)")
        if a.size == 0 and (attrs.axis is None or (a.ndim and a.shape[attrs.axis % a.ndim] == 0)):
            # an empty reduced extent; the other axes of a zero-size array may be reduced
            raise ShapeError("attempt to get argmax/argmin of an empty sequence")
        if attrs.axis is None:
            out = np.asarray(fn(a))
            return (out.reshape((1,) * a.ndim) if attrs.keepdims else out).astype(np.int64)
        out = np.asarray(fn(a, axis=attrs.axis))    # keepdims= of argmax/argmin is NumPy 1.22's
        return (np.expand_dims(out, attrs.axis) if attrs.keepdims else out).astype(np.int64)
    return compute


for _n, _f in (("_npi_argmax", np.argmax), ("_npi_argmin", np.argmin)):
    register(OpDef(_n, _arg(_f), params=(Param("axis", IntOrNone, None), Param("keepdims", Bool, False)),
                   infer_type=lambda a, d: [_I64]))


def norm_kind(attrs, ndim: int) -> tuple[str, tuple, float]:
    """How MXNet 1.9.1's norm kernel reads ``(ord, axis, flag)``: ``("flat", all axes, 2)`` for flag -2
    (the L2 norm of every element), else the reduced axes (``axis``, or the last two of a matrix, the only
    one of a vector) with ``"fro"`` (flag 1), ``"nuc"`` (flag 2) or ``"p"`` (the ``ord``-norm)."""
    if attrs.flag == -2:
        return "flat", tuple(range(ndim)), 2.0
    if attrs.axis is None:
        axes = (ndim - 2, ndim - 1) if ndim >= 2 else tuple(range(ndim))
    else:
        axes = tuple(a % ndim for a in attrs.axis)
    kind = {1: "fro", 2: "nuc"}.get(attrs.flag, "p")
    return kind, axes, float(attrs.ord)


def _norm(attrs, x):
    """_npi_norm: MXNet's norm kernel (its front end ``np.linalg.norm`` maps NumPy's ``ord`` to
    ``ord``/``flag``): the L2 norm of all elements, Frobenius, nuclear, vector p-norms (zeros skipped,
    as MXNet's reducer does) or the 1/2/inf matrix norms over the last two axes or ``axis``."""
    kind, axes, p = norm_kind(attrs, x.ndim)
    dt = x.dtype if x.dtype.kind == "f" else _F32
    xs = x.astype(np.float64)
    keep = attrs.keepdims
    if x.size == 0:
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keep else \
            tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return np.zeros(shape, dt)
    if kind in ("flat", "fro") or (len(axes) == 1 and p == 2):
        return _out(np.sqrt((xs * xs).sum(axis=axes, keepdims=keep)), dt)
    if (kind == "nuc" or abs(p) == 2 and len(axes) == 2) and x.shape[axes[0]] > x.shape[axes[1]]:
        raise ShapeError(f"norm: the singular values of {x.shape[axes[0]]} x {x.shape[axes[1]]} matrices: the second "
                         "to last dimension must be less than or equal to the last dimension (MXNet's gesvd)")
    if kind == "nuc":
        return _out(np.linalg.norm(xs, "nuc", axis=axes, keepdims=keep), dt)
    if len(axes) == 2:
        return _out(np.linalg.norm(xs, int(p) if not np.isinf(p) else p, axis=axes, keepdims=keep), dt)
    ab = np.abs(xs)
    if np.isinf(p):
        return _out(ab.max(axis=axes, keepdims=keep) if p > 0 else ab.min(axis=axes, keepdims=keep), dt)
    if p == 0:
        return _out((ab != 0).sum(axis=axes, keepdims=keep), dt)
    nz = ab != 0
    with np.errstate(divide="ignore", over="ignore"):
        total = np.where(nz, np.where(nz, ab, 1.0) ** p, 0.0).sum(axis=axes, keepdims=keep)
        return _out(np.where(total == 0, 0.0, np.where(total == 0, 1.0, total) ** (1.0 / p)), dt)


register(OpDef("_npi_norm", _norm, params=(Param("ord", Float, 2.0), Param("axis", ShapeOrNone, None),
                                           Param("keepdims", Bool, False), Param("flag", Int, -1)),
               infer_type=lambda a, d: [np.dtype(d[0]) if d[0] is not None and np.dtype(d[0]).kind == "f" else _F32]))


# -- shape manipulation -------------------------------------------------------------------------------
def _np_reshape_target(shape, newshape):
    if newshape.count(-1) > 1 or any(d < -1 for d in newshape):
        raise ShapeError(f"cannot reshape array of shape {tuple(shape)} into shape {tuple(newshape)}")
    size = int(np.prod(shape))
    if -1 in newshape:
        rest = int(np.prod([d for d in newshape if d != -1]))
        if rest == 0 or size % rest:
            raise ShapeError(f"cannot reshape array of size {size} into shape {tuple(newshape)}")
        newshape = tuple(size // rest if d == -1 else d for d in newshape)
    if int(np.prod(newshape)) != size:
        raise ShapeError(f"cannot reshape array of size {size} into shape {tuple(newshape)}")
    return tuple(newshape)


def _np_reshape_shape(attrs, in_shapes):
    """Forward rule that tolerates an input of unknown dimensions (a deferred Parameter's
    ``w.reshape(-1)`` in np-mode Gluon RNN layers): the output's inferred dimensions are then unknown
    (-1) unless ``newshape`` spells them out, and the backward rule below completes the input later."""
    (s,) = in_shapes
    if s is not None and known(s):
        return [tuple(s)], [_np_reshape_target(s, attrs.newshape)]
    if all(d >= 0 for d in attrs.newshape):
        return _np_reshape_shape_backward(attrs, in_shapes, [tuple(attrs.newshape)]), [tuple(attrs.newshape)]
    return list(in_shapes), [None if s is None else tuple(d if d >= 0 else -1 for d in attrs.newshape)]


def _np_reshape_shape_backward(attrs, in_shapes, out_shapes):
    """An output size known from a consumer fixes the input's one unknown dimension (MXNet's
    ReverseReshapeInferShape, as for ``Reshape``): ``w.reshape(-1)`` of a deferred ``(18, -1)`` GRU
    weight is ``(126,)`` once ``_rnn_param_concat`` knows its share, so ``w`` is ``(18, 7)``."""
    (s,), out = in_shapes, out_shapes[0]
    if s is None or out is None or not known(out) or known(s):
        return list(in_shapes)
    unknown = [i for i, d in enumerate(s) if not dim_known(d)]
    rest = int(np.prod([d for d in s if dim_known(d)]))
    size = int(np.prod(out))
    if len(unknown) != 1 or rest == 0 or size % rest:
        return list(in_shapes)
    full = list(s)
    full[unknown[0]] = size // rest
    return [tuple(full)]


register(OpDef("_np_reshape", lambda a, x: x.reshape(_np_reshape_target(x.shape, a.newshape)), inputs=("a",),
               params=(Param("newshape", Shape), Param("order", Str, "C")), infer_shape=_np_reshape_shape,
               infer_shape_backward=_np_reshape_shape_backward, traits=("shape_only",)))


def npx_reshape_target(shape: tuple, newshape: tuple, reverse: bool = False) -> tuple:
    """``npx.reshape``'s codes: -1 infer, -2 copy this dimension, -3 drop a size-1 dimension, -4 copy
    all remaining dimensions, -5 merge two dimensions, -6 split one into the next two values (one may
    be -1); ``reverse`` reads both from the right."""
    src = list(shape)[::-1] if reverse else list(shape)
    spec = list(newshape)
    if reverse:   # MXNet reverses the shape and the codes alike (np_matrix_op.cc): a -6's values precede it
        spec = spec[::-1]
    out: list = []
    infer = -1
    i = j = 0
    while i < len(spec):
        d = spec[i]
        if d > 0 or d == 0 and j < len(src):
            out.append(d)
            j += 1
        elif d == -1:
            infer = len(out)
            out.append(-1)
            j += 1
        elif d == -2:
            if j >= len(src):
                raise ShapeError(f"npx.reshape: -2 beyond the {len(src)} dimensions of {tuple(shape)}")
            out.append(src[j])
            j += 1
        elif d == -3:
            if j >= len(src) or src[j] != 1:
                raise ShapeError(f"npx.reshape: -3 needs a dimension of size 1 in {tuple(shape)}")
            j += 1
        elif d == -4:
            out.extend(src[j:])
            j = len(src)
        elif d == -5:
            if j + 1 >= len(src):
                raise ShapeError(f"npx.reshape: -5 needs two dimensions of {tuple(shape)}")
            out.append(src[j] * src[j + 1])
            j += 2
        elif d == -6:
            if j >= len(src) or i + 2 >= len(spec):
                raise ShapeError(f"npx.reshape: -6 needs a dimension and two values in {tuple(newshape)}")
            d1, d2 = spec[i + 1], spec[i + 2]
            whole = src[j]
            if d1 == -1:
                d1 = whole // d2
            if d2 == -1:
                d2 = whole // d1
            if d1 * d2 != whole:
                raise ShapeError(f"npx.reshape: cannot split dimension {whole} into ({spec[i + 1]}, {spec[i + 2]})")
            out.extend([d1, d2])
            j += 1
            i += 2
        else:
            raise ShapeError(f"npx.reshape: invalid code {d} in {tuple(newshape)}")
        i += 1
    size = int(np.prod(shape))
    if infer >= 0:
        rest = int(np.prod([d for k, d in enumerate(out) if k != infer]))
        if rest == 0 or size % rest:
            raise ShapeError(f"npx.reshape: cannot reshape {tuple(shape)} into {tuple(newshape)}")
        out[infer] = size // rest
    if int(np.prod(out)) != size:
        raise ShapeError(f"npx.reshape: cannot reshape {tuple(shape)} into {tuple(newshape)}")
    return tuple(out[::-1] if reverse else out)


register(OpDef("_npx_reshape", lambda a, x: x.reshape(npx_reshape_target(x.shape, a.newshape, a.reverse)),
               inputs=("a",), params=(Param("newshape", Shape), Param("reverse", Bool, False),
                                      Param("order", Str, "C")),
               aliases=("_npi_reshape",), traits=("shape_only",)))


def _transpose(attrs, x):
    """_np_transpose: axes permuted (reversed when ``axes`` is empty or None)."""
    axes = attrs.axes
    return np.transpose(x, None if axes in (None, ()) else tuple(a % x.ndim for a in axes))


register(OpDef("_np_transpose", _transpose, inputs=("a",), params=(Param("axes", ShapeOrNone, None),)))


def _squeeze(attrs, x):
    """_np_squeeze: size-1 axes removed (those of ``axis``; all when None). A zero-dim array comes back
    whatever the axis (MXNet 1.9.1 accepts -1 and 0 there)."""
    if x.ndim == 0:
        return x.copy()
    ax = _axes(attrs.axis, x.ndim)
    if ax is not None and any(x.shape[a] != 1 for a in ax):
        raise ShapeError(f"cannot select an axis to squeeze out which has size not equal to one: {attrs.axis}")
    return np.squeeze(x, axis=ax)


register(OpDef("_np_squeeze", _squeeze, inputs=("a",), params=(Param("axis", ShapeOrNone, None),),
               traits=("shape_only",)))


def _concat_dtype(xs):
    """Joined arrays share one dtype: MXNet 1.9.1 refuses two ("Type inconsistent")."""
    dt = xs[0].dtype
    for x in xs[1:]:
        if x.dtype != dt:
            raise OperatorTypeError(f"Type inconsistent, Provided = {x.dtype.name}, inferred type = {dt.name} "
                                    "(MXNet 1.9.1 joins arrays of one dtype)")
    return dt


def _concatenate(attrs, *xs):
    """_npi_concatenate: arrays joined along ``axis`` (None: flattened first)."""
    dt = _concat_dtype(xs)
    if attrs.axis is None:
        return np.concatenate([x.reshape(-1) for x in xs]).astype(dt, copy=False)
    return np.concatenate(xs, axis=attrs.axis).astype(dt, copy=False)


register(OpDef("_npi_concatenate", _concatenate, variadic="num_args",
               params=(Param("num_args", Int), Param("axis", IntOrNone, 0))))
register(OpDef("_npi_stack", lambda a, *xs: np.stack(xs, axis=a.axis).astype(_concat_dtype(xs), copy=False),
               variadic="num_args", params=(Param("axis", Int, 0), Param("num_args", Int))))
for _n, _f in (("_npi_vstack", np.vstack), ("_npi_hstack", np.hstack), ("_npi_dstack", np.dstack),
               ("_npi_column_stack", np.column_stack)):
    register(OpDef(_n, (lambda f: lambda a, *xs: f(xs).astype(_concat_dtype(xs), copy=False))(_f),
                   variadic="num_args", params=(Param("num_args", Int),)))
for _n, _f in (("_np_atleast_1d", np.atleast_1d), ("_np_atleast_2d", np.atleast_2d),
               ("_np_atleast_3d", np.atleast_3d)):
    register(OpDef(_n, (lambda f: lambda a, *xs: tuple(np.array(f(x)) for x in xs))(_f), variadic="num_args",
                   params=(Param("num_args", Int),), num_outputs=lambda a: a.num_args))


def _flip(attrs, x):
    """_npi_flip: the order of elements along ``axis`` reversed (a copy); None reverses every axis,
    ``()`` none (MXNet's empty axis tuple, as NumPy's)."""
    ax = attrs.axis
    return np.flip(x, axis=None if ax is None else tuple(ax)).copy()


register(OpDef("_npi_flip", _flip, params=(Param("axis", ShapeOrNone, None),)))
register(OpDef("_np_moveaxis", lambda a, x: np.moveaxis(x, a.source, a.destination), inputs=("a",),
               params=(Param("source", Shape), Param("destination", Shape))))
register(OpDef("_np_roll", lambda a, x: np.roll(x, a.shift if a.shift is None or len(a.shift) > 1 else a.shift[0],
                                                 axis=a.axis),
               params=(Param("shift", ShapeOrNone, None), Param("axis", ShapeOrNone, None))))
def _broadcast_to(attrs, x):
    """_npi_broadcast_to: a -2 in the target shape keeps the input's (right-aligned) dimension, as
    MXNet's ``npx`` broadcast_to."""
    lead = len(attrs.shape) - x.ndim
    shape = tuple(x.shape[i - lead] if d == -2 and i >= lead else d for i, d in enumerate(attrs.shape))
    return np.broadcast_to(x, shape).copy()


register(OpDef("_npi_broadcast_to", _broadcast_to, inputs=("array",),
               params=(Param("shape", Shape),)))
register(OpDef("_np_copy", lambda a, x: x.copy(), inputs=("a",), infer_shape=same_shape,
               traits=("elementwise", "identity")))
register(OpDef("_np_diag", lambda a, x: np.diag(x, a.k), params=(Param("k", Int, 0),)))
register(OpDef("_np_diagflat", lambda a, x: np.diagflat(x, a.k), params=(Param("k", Int, 0),)))
register(OpDef("_np_diagonal", lambda a, x: np.diagonal(x, a.offset, a.axis1, a.axis2).copy(),
               params=(Param("offset", Int, 0), Param("axis1", Int, 0), Param("axis2", Int, 1))))
register(OpDef("_np_trace", lambda a, x: np.asarray(np.trace(x, a.offset, a.axis1, a.axis2), x.dtype),
               params=(Param("offset", Int, 0), Param("axis1", Int, 0), Param("axis2", Int, 1))))
register(OpDef("_npi_tril", lambda a, x: np.tril(x, a.k), params=(Param("k", Int, 0),)))
register(OpDef("_npi_rot90", lambda a, x: np.rot90(x, a.k, axes=a.axes or (0, 1)).copy(),
               params=(Param("k", Int, 1), Param("axes", ShapeOrNone, None))))
register(OpDef("_npi_diff", lambda a, x: np.diff(x, a.n, a.axis), inputs=("a",),
               params=(Param("n", Int, 1), Param("axis", Int, -1))))


def _pad(attrs, x):
    """_npi_pad: NumPy's pad (``constant``, ``edge``, ``reflect``, ``symmetric``, ``maximum``, ``minimum``)."""
    width = attrs.pad_width if not isinstance(attrs.pad_width, str) else ast.literal_eval(attrs.pad_width)
    width = tuple(tuple(int(v) for v in p) for p in width)
    if attrs.mode == "constant":
        return np.pad(x, width, mode="constant", constant_values=attrs.constant_value)
    return np.pad(x, width, mode=attrs.mode)


register(OpDef("_npi_pad", _pad, params=(Param("pad_width", Str), Param("mode", Str, "constant"),
                                         Param("constant_value", Float, 0.0), Param("reflect_type", Str, "even"))))


# -- products ---------------------------------------------------------------------------------------
def _matmul_like(fn):
    def compute(attrs, a, b):
        dt = promote(a.dtype, b.dtype)
        return _out(fn(a.astype(dt, copy=False), b.astype(dt, copy=False)), dt)
    return compute


def _dot_shape(attrs, in_shapes):
    """np.dot's shapes; the contracted dimension of one operand completes the other's (a deferred
    parameter ``w`` in ``x.dot(w)`` learns its rows from ``x``, as MXNet's NumpyDotShape)."""
    a, b = (None if s is None else list(s) for s in in_shapes)
    if a and b and len(b) >= 1:
        kb = len(b) - 2 if len(b) >= 2 else 0
        if dim_known(a[-1]) and not dim_known(b[kb]):
            b[kb] = a[-1]
        elif dim_known(b[kb]) and not dim_known(a[-1]):
            a[-1] = b[kb]
    ins = [None if s is None else tuple(s) for s in (a, b)]
    if not (known(ins[0]) and known(ins[1])):
        return ins, [None]
    sa, sb = ins
    if not sa or not sb:
        return ins, [sb if not sa else sa]
    if sa[-1] != sb[len(sb) - 2 if len(sb) >= 2 else 0]:
        raise ShapeError(f"np.dot: shapes {sa} and {sb} not aligned")
    return ins, [sa[:-1] + sb[:-2] + sb[-1:] if len(sb) >= 2 else sa[:-1]]


register(OpDef("_np_dot", _matmul_like(np.dot), inputs=("a", "b"), infer_shape=_dot_shape,
               infer_type=lambda a, d: [promote(d[0] or _F32, d[1] or _F32)]))
register(OpDef("_npi_matmul", _matmul_like(np.matmul), inputs=("a", "b"),
               infer_type=lambda a, d: [promote(d[0] or _F32, d[1] or _F32)]))
register(OpDef("_npi_tensordot",
               lambda at, a, b: _matmul_like(lambda x, y: np.tensordot(x, y, (at.a_axes_summed, at.b_axes_summed)))(
                   at, a, b),
               inputs=("a", "b"), params=(Param("a_axes_summed", Shape), Param("b_axes_summed", Shape))))
register(OpDef("_npi_tensordot_int_axes",
               lambda at, a, b: _matmul_like(lambda x, y: np.tensordot(x, y, at.axes))(at, a, b),
               inputs=("a", "b"), params=(Param("axes", Int),)))


def _einsum(attrs, *xs):
    """_npi_einsum: Einstein summation over ``subscripts``."""
    return _out(np.einsum(attrs.subscripts, *xs), _concat_dtype(xs))


register(OpDef("_npi_einsum", _einsum, variadic="num_args",
               params=(Param("num_args", Int), Param("subscripts", Str, ""), Param("optimize", Int, 0))))


# -- creation -----------------------------------------------------------------------------------------
_CTX = Param("ctx", Str, "")


def _float_tuple(v):
    if isinstance(v, str):
        v = ast.literal_eval(v)
    return tuple(float(x) for x in (v if isinstance(v, (list, tuple)) else [v]))


FloatTupleOrNone = AttrType("float-tuple-or-None", lambda v: None if v is None or v == "None" else _float_tuple(v))


def _creation(name: str, make, params, *, default="float32", doc="") -> None:
    def compute(attrs):
        return np.asarray(make(attrs, np.dtype(attrs.dtype if attrs.get("dtype") not in (None, "None") else default)))
    compute.__doc__ = doc
    register(OpDef(name, compute, params=params, inputs=(),
                   infer_type=lambda a, d: [np.dtype(a.dtype if a.get("dtype") not in (None, "None") else default)]))


_creation("_npi_zeros", lambda a, dt: np.zeros(a.shape, dt),
          (Param("shape", Shape, ()), _CTX, Param("dtype", DtypeOrNone, "float32")), doc="_npi_zeros: zeros.")
_creation("_npi_ones", lambda a, dt: np.ones(a.shape, dt),
          (Param("shape", Shape, ()), _CTX, Param("dtype", DtypeOrNone, "float32")), doc="_npi_ones: ones.")
_creation("_npi_identity", lambda a, dt: np.identity(a.shape[0] if a.shape else 0, dt),
          (Param("shape", Shape, ()), _CTX, Param("dtype", DtypeOrNone, "float32")),
          doc="_npi_identity: the identity matrix of ``shape``.")
_creation("_npi_eye", lambda a, dt: np.eye(a.N, a.M, a.k, dt),
          (Param("N", Int), Param("M", IntOrNone, None), Param("k", Int, 0), _CTX,
           Param("dtype", DtypeOrNone, "float32")), doc="_npi_eye: ones on the ``k``-th diagonal.")


def _np_arange(attrs, dt):
    start, stop = (0.0, attrs.start) if attrs.stop is None else (attrs.start, attrs.stop)
    n = max(int(np.ceil((stop - start) / attrs.step)), 0)
    vals = (start + np.arange(n, dtype=np.float64) * attrs.step)
    return vals.astype(dt)


_creation("_npi_arange", _np_arange,
          (Param("start", Float), Param("stop", FloatOrNone, None), Param("step", Float, 1.0),
           Param("repeat", Int, 1), Param("infer_range", Bool, False), _CTX, Param("dtype", DtypeOrNone, "float32")),
          doc="_npi_arange: evenly spaced values in [start, stop).")


def _np_linspace(attrs, dt):
    vals = np.linspace(attrs.start, attrs.stop, attrs.num, endpoint=attrs.endpoint)
    return vals.astype(dt)   # integers truncate toward zero as MXNet's kernel casts (NumPy 2 floors)


_creation("_npi_linspace", _np_linspace,
          (Param("start", Float), Param("stop", Float), Param("num", Int, 50), Param("endpoint", Bool, True),
           _CTX, Param("dtype", DtypeOrNone, "float32")), doc="_npi_linspace: ``num`` evenly spaced values.")
_creation("_npi_logspace",
          lambda a, dt: np.logspace(a.start, a.stop, a.num, endpoint=a.endpoint, base=a.base).astype(dt),
          (Param("start", Float), Param("stop", Float), Param("num", Int, 50), Param("endpoint", Bool, True),
           Param("base", Float, 10.0), _CTX, Param("dtype", DtypeOrNone, "float32")),
          doc="_npi_logspace: ``num`` values evenly spaced on a log scale.")
_creation("_npi_indices", lambda a, dt: np.indices(a.dimensions, dtype=dt),
          (Param("dimensions", Shape), Param("dtype", DtypeOrNone, "int32"), _CTX),
          doc="_npi_indices: the index grid of ``dimensions``.")
for _n, _f in (("_npi_hanning", np.hanning), ("_npi_hamming", np.hamming), ("_npi_blackman", np.blackman)):
    _creation(_n, (lambda f: lambda a, dt: f(a.M).astype(dt))(_f), (Param("M", Int), _CTX,
                                                                     Param("dtype", DtypeOrNone, "float32")),
              doc=f"{_n}: the window of ``M`` points.")


def _full_like(attrs, a):
    """_npi_full_like: an array shaped like ``a`` filled with ``fill_value`` (``a``'s dtype unless given)."""
    dt = np.dtype(attrs.dtype) if attrs.dtype not in (None, "None") else a.dtype
    return np.full(a.shape, attrs.fill_value).astype(dt)


register(OpDef("_npi_full_like", _full_like, inputs=("a",),
               params=(Param("fill_value", Float), _CTX, Param("dtype", DtypeOrNone, None)),
               infer_type=lambda a, d: [np.dtype(a.dtype) if a.dtype not in (None, "None") else d[0] or _F32]))


# -- random -------------------------------------------------------------------------------------------
def _size(attrs):
    return () if attrs.size is None else tuple(attrs.size)


def _rng():
    return tensor_random.generator()


def _sampler_shape(batch: bool):
    """A sampler's output shape without drawing (a draw on zeros may be refused: pareto's a <= 0)."""
    def infer(attrs, in_shapes):
        if attrs.size is not None and not batch:
            return list(in_shapes), [_size(attrs)]
        from ._util import known
        if not all(known(s) for s in in_shapes):
            return list(in_shapes), [None]
        pshape = tuple(broadcast_shapes(*[tuple(s) for s in in_shapes])) if in_shapes else ()
        return list(in_shapes), [_size(attrs) + pshape]
    return infer


def _two_param_sampler(name: str, p1: str, p2: str, draw, defaults=(0.0, 1.0), batch: bool = False) -> None:
    """``name(input1?, input2?; p1, p2, size, ctx, dtype)``: a parameter given as None is a tensor input.
    ``batch`` (MXNet's ``_n`` samplers): ``size`` is a batch shape put before the parameters' shape."""
    def inputs(attrs):
        return [n for n, p in (("input1", p1), ("input2", p2)) if attrs.get(p) is None]

    def compute(attrs, *arrays):
        it = iter(arrays)
        a = next(it) if attrs.get(p1) is None else attrs.get(p1)
        b = next(it) if attrs.get(p2) is None else attrs.get(p2)
        pshape = broadcast_shapes(np.shape(a), np.shape(b))
        shape = pshape if attrs.size is None else _size(attrs) + (tuple(pshape) if batch else ())
        dt = np.dtype(attrs.dtype if attrs.dtype not in (None, "None") else "float32")
        return np.asarray(draw(_rng(), a, b, shape)).astype(dt)
    compute.__doc__ = f"{name}: samples with parameters {p1}, {p2} (numbers or tensors), ``size`` of them."
    register(OpDef(name, compute, inputs=inputs, infer_shape=_sampler_shape(batch),
                   params=(Param(p1, FloatOrNone, defaults[0]), Param(p2, FloatOrNone, defaults[1]),
                           Param("size", ShapeOrNone, None), _CTX, Param("dtype", DtypeOrNone, "float32")),
                   infer_type=lambda a, d: [np.dtype(a.dtype if a.dtype not in (None, "None") else "float32")],
                   traits=("random",)))


_two_param_sampler("_npi_uniform", "low", "high", lambda g, a, b, s: g.uniform(a, b, s))
_two_param_sampler("_npi_normal", "loc", "scale", lambda g, a, b, s: g.normal(a, b, s))
_two_param_sampler("_npi_gumbel", "loc", "scale", lambda g, a, b, s: g.gumbel(a, b, s))
_two_param_sampler("_npi_logistic", "loc", "scale", lambda g, a, b, s: g.logistic(a, b, s))
def _gamma_draw(g, a, b, s):
    if np.any(np.asarray(a) <= 0) or np.any(np.asarray(b) <= 0):
        raise ValueError("gamma: shape and scale must be positive (MXNet 1.9.1: ValueError)")
    return g.gamma(a, b, s)


_two_param_sampler("_npi_gamma", "shape", "scale", _gamma_draw, defaults=(1.0, 1.0))
_two_param_sampler("_npi_uniform_n", "low", "high", lambda g, a, b, s: g.uniform(a, b, s), batch=True)
_two_param_sampler("_npi_normal_n", "loc", "scale", lambda g, a, b, s: g.normal(a, b, s), batch=True)


def _one_param_sampler(name: str, p: str, draw, default=1.0, positive: bool = False) -> None:
    def inputs(attrs):
        return ["input1"] if attrs.get(p) is None else []

    def compute(attrs, *arrays):
        a = arrays[0] if attrs.get(p) is None else attrs.get(p)
        if np.any(np.asarray(a) <= 0) if positive else np.any(np.asarray(a) < 0):
            raise ValueError(f"{name}: {p} must be {'positive' if positive else 'non-negative'} (MXNet 1.9.1: "
                             "ValueError)")
        shape = _size(attrs) if attrs.size is not None else np.shape(a)
        return np.asarray(draw(_rng(), a, shape)).astype(np.float32)
    compute.__doc__ = f"{name}: samples with parameter {p} (a number or a tensor), ``size`` of them."
    register(OpDef(name, compute, inputs=inputs, infer_shape=_sampler_shape(False),
                   params=(Param(p, FloatOrNone, default), Param("size", ShapeOrNone, None), _CTX),
                   infer_type=lambda a, d: [_F32], traits=("random",)))


_one_param_sampler("_npi_exponential", "scale", lambda g, a, s: g.exponential(a, s))
_one_param_sampler("_npi_rayleigh", "scale", lambda g, a, s: g.rayleigh(a, s))
_one_param_sampler("_npi_pareto", "a", lambda g, a, s: g.pareto(a, s), positive=True)
_one_param_sampler("_npi_weibull", "a", lambda g, a, s: g.weibull(a, s), positive=True)
_one_param_sampler("_npi_powerd", "a", lambda g, a, s: g.power(a, s), positive=True)


def _bernoulli(attrs, *arrays):
    """_npi_bernoulli: 1 with probability ``prob`` (or ``sigmoid(logit)``), else 0."""
    p = arrays[0] if arrays else (attrs.prob if attrs.prob is not None else attrs.logit)
    if not attrs.is_logit and (np.any(np.asarray(p) < 0) or np.any(np.asarray(p) > 1)):
        raise ValueError("bernoulli: prob must be in [0, 1] (MXNet 1.9.1: ValueError)")
    if attrs.is_logit:
        p = 1.0 / (1.0 + np.exp(-np.asarray(p, np.float64)))
    shape = _size(attrs) if attrs.size is not None else np.shape(p)
    dt = np.dtype(attrs.dtype if attrs.dtype not in (None, "None") else "float32")
    return (_rng().uniform(size=shape) < p).astype(dt)


register(OpDef("_npi_bernoulli", _bernoulli,
               inputs=lambda a: ["input1"] if a.prob is None and a.logit is None else [],
               params=(Param("prob", FloatOrNone, None), Param("logit", FloatOrNone, None),
                       Param("size", ShapeOrNone, None), _CTX, Param("dtype", DtypeOrNone, "float32"),
                       Param("is_logit", Bool, False)),
               traits=("random",)))


def _choice(attrs, *arrays):
    """_npi_choice: ``size`` draws from ``a`` (an int: range(a); else the first input), optionally
    weighted by the last input (``weighted``), with or without replacement."""
    it = iter(arrays)
    pop = attrs.a if attrs.a is not None else next(it)
    p = next(it) if attrs.weighted else None
    if p is not None:
        p = np.asarray(p, np.float64)
        p = p / p.sum()
    n = int(pop) if np.ndim(pop) == 0 else len(pop)
    idx = _rng().choice(n, size=_size(attrs), replace=attrs.replace, p=p)
    return np.asarray(idx, np.int64) if np.ndim(pop) == 0 else np.asarray(pop)[idx]


register(OpDef("_npi_choice", _choice,
               inputs=lambda a: (["input1"] if a.a is None else []) + (["input2"] if a.weighted else []),
               infer_shape=lambda a, ss: (list(ss), [_size(a)]),
               params=(Param("a", IntOrNone, None), Param("size", ShapeOrNone, None), _CTX,
                       Param("replace", Bool, True), Param("weighted", Bool, False)),
               traits=("random",)))


def _multinomial(attrs, *arrays):
    """_npi_multinomial: ``n`` trials over ``pvals``, ``size`` experiments (int64 counts)."""
    pvals = arrays[0] if arrays else np.asarray(attrs.pvals, np.float64)
    pvals = np.asarray(pvals, np.float64)
    if pvals.size == 0:   # MXNet: no categories, no counts (NumPy refuses)
        return np.zeros(_size(attrs) + (0,), np.int64)
    return _rng().multinomial(attrs.n, pvals / pvals.sum(), size=_size(attrs) or None).astype(np.int64)


register(OpDef("_npi_multinomial", _multinomial, inputs=lambda a: ["a"] if a.pvals is None else [],
               params=(Param("n", Int), Param("pvals", FloatTupleOrNone, None), Param("size", ShapeOrNone, None)),
               traits=("random",)))


# -- linalg -------------------------------------------------------------------------------------------
def _float_out(fn):
    def compute(attrs, *xs):
        dt = xs[0].dtype if xs[0].dtype.kind == "f" else _F32
        out = fn(attrs, *[x.astype(np.float64) for x in xs])
        return tuple(_out(o, dt) for o in out) if isinstance(out, tuple) else _out(out, dt)
    compute.__doc__ = fn.__doc__
    return compute


def _svd(attrs, a):
    """_npi_svd: ``(ut, l, v)`` with ``a = ut @ diag(l) @ v`` (NumPy's reduced SVD) of M x N matrices with
    M <= N, the only ones MXNet's gesvd takes."""
    if a.ndim < 2 or a.shape[-2] > a.shape[-1]:
        raise ShapeError(f"svd: input of shape {a.shape}: the second to last dimension must be less than or equal "
                         "to the last dimension")
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    return u, s, vt


def _eigh(attrs, a):
    """_npi_eigh: eigenvalues (ascending) and eigenvectors of symmetric matrices."""
    w, v = np.linalg.eigh(a, UPLO=attrs.UPLO)
    return w, v


register(OpDef("_npi_svd", _float_out(_svd), inputs=("A",), num_outputs=3))
register(OpDef("_npi_eigh", _float_out(_eigh), inputs=("A",), params=(Param("UPLO", Str, "L"),), num_outputs=2))
register(OpDef("_npi_eigvalsh", _float_out(lambda at, a: np.linalg.eigvalsh(a, UPLO=at.UPLO)), inputs=("A",),
               params=(Param("UPLO", Str, "L"),)))
register(OpDef("_npi_eig", _float_out(lambda at, a: tuple(np.real(o) for o in np.linalg.eig(a))), inputs=("A",),
               num_outputs=2))
register(OpDef("_npi_eigvals", _float_out(lambda at, a: np.real(np.linalg.eigvals(a))), inputs=("A",)))


def _tensorsolve_shape(attrs, a, b):
    """tensorsolve's result: ``a``'s trailing ``a.ndim - b.ndim`` dimensions (``a_axes`` moved to the end
    first), sliced as NumPy and MXNet slice them: ``shape[-(a.ndim - b.ndim):]``, all of ``a``'s shape
    when the two have as many dimensions."""
    moved = np.moveaxis(np.broadcast_to(np.float32(0), a), attrs.a_axes, range(len(a) - len(attrs.a_axes), len(a))) \
        if attrs.a_axes else np.broadcast_to(np.float32(0), a)
    return tuple(moved.shape[-(len(a) - len(b)):])


def _shape_of_input(i: int):
    """An output shaped like input ``i`` (inferred without running the kernel: zeros are singular)."""
    from ._util import known
    return lambda a, ss: (list(ss), [tuple(ss[i]) if known(ss[i]) else None])


register(OpDef("_npi_cholesky", _float_out(lambda at, a: np.linalg.cholesky(a)), inputs=("A",),
               infer_shape=_shape_of_input(0)))
register(OpDef("_npi_solve", _float_out(lambda at, a, b: np.linalg.solve(a, b)), inputs=("A", "B"),
               infer_shape=_shape_of_input(1)))
register(OpDef("_npi_pinv", _float_out(lambda at, a, r: np.linalg.pinv(a, r, hermitian=at.hermitian)),
               inputs=("A", "rcond"), params=(Param("hermitian", Bool, False),)))
register(OpDef("_npi_pinv_scalar_rcond", _float_out(lambda at, a: np.linalg.pinv(a, at.rcond, hermitian=at.hermitian)),
               inputs=("A",), params=(Param("rcond", Float, 1e-15), Param("hermitian", Bool, False))))
register(OpDef("_npi_tensorinv", _float_out(lambda at, a: np.linalg.tensorinv(a, at.ind)), inputs=("a",),
               params=(Param("ind", Int, 2),), infer_shape=shape_fn(lambda at, a: tuple(a[at.ind:]) + tuple(a[:at.ind]))))
register(OpDef("_npi_tensorsolve", _float_out(lambda at, a, b: np.linalg.tensorsolve(a, b, at.a_axes or None)),
               inputs=("a", "b"), params=(Param("a_axes", Shape, ()),), infer_shape=shape_fn(_tensorsolve_shape)))

def _nonzero(attrs, x):
    """_npx_nonzero: the indices of the nonzero elements, one row per element (int64, shape (N, ndim));
    a zero-dim array reads as one element (MXNet: shape (1, 1) holding 0 when nonzero, else (0, 1))."""
    return np.stack(np.nonzero(x), axis=-1).astype(np.int64) if x.ndim else np.zeros((int(x != 0), 1), np.int64)


def _boolean_mask_assign(attrs, data, mask, *value):
    """_npi_boolean_mask_assign_*: ``data[mask] = value`` (the mask's axes starting at ``start_axis``)."""
    out = data.copy()
    idx = (slice(None),) * attrs.start_axis + (mask.astype(bool),)
    v = value[0] if value else attrs.value
    out[idx] = v
    return out


register(OpDef("_npi_boolean_mask_assign_scalar", _boolean_mask_assign, inputs=("data", "mask"),
               params=(Param("value", Float, 0.0), Param("start_axis", Int, 0))))
register(OpDef("_npi_boolean_mask_assign_tensor", _boolean_mask_assign, inputs=("data", "mask", "value"),
               params=(Param("start_axis", Int, 0),)))
register(OpDef("_npx_nonzero", _nonzero, inputs=("x",), aliases=("_npi_nonzero",), infer_type=lambda a, d: [_I64]))


# -- MXNet's np names of legacy computations ------------------------------------------------------------
_ALIASES = {
    "_full": ("_npi_full",), "_linalg_inverse": ("_npi_inv",), "_linalg_det": ("_npi_det",),
    "_linalg_slogdet": ("_npi_slogdet",), "_split_v2": ("_npi_split",), "SwapAxis": ("_npi_swapaxes",),
    "take": ("_npi_take",), "tile": ("_npi_tile",), "repeat": ("_np_repeat",), "clip": ("_npi_clip",),
    "expand_dims": ("_npi_expand_dims",), "argsort": ("_npi_argsort",), "sort": ("_npi_sort",),
    "Cast": ("_npi_cast", "_npx_cast"), "_contrib_boolean_mask": ("_npi_boolean_mask",),
    "gather_nd": ("_npi_gather_nd", "_npx_gather_nd"), "_random_randint": ("_npi_random_randint",),
    "_shuffle": ("_npi_shuffle",), "slice": ("_npi_slice", "_npx_slice"), "_slice_assign": ("_npi_slice_assign",),
    "_slice_assign_scalar": ("_npi_slice_assign_scalar",), "_scatter_set_nd": ("_npi_scatter_set_nd",),
    "Activation": ("_npx_activation",), "_contrib_arange_like": ("_npx_arange_like",),
    "batch_dot": ("_npx_batch_dot",), "Flatten": ("_npx_batch_flatten",), "BatchNorm": ("_npx_batch_norm",),
    "Convolution": ("_npx_convolution",), "Deconvolution": ("_npx_deconvolution",), "Dropout": ("_npx_dropout",),
    "Embedding": ("_npx_embedding",), "FullyConnected": ("_npx_fully_connected",),
    "LayerNorm": ("_npx_layer_norm",), "LeakyReLU": ("_npx_leaky_relu",), "log_softmax": ("_npx_log_softmax",),
    "softmax": ("_npx_softmax",), "one_hot": ("_npx_one_hot",), "pick": ("_npx_pick",), "Pooling": ("_npx_pooling",),
    "reshape_like": ("_npx_reshape_like",), "RNN": ("_npx_rnn",), "ROIPooling": ("_npx_roi_pooling",),
    "SequenceMask": ("_npx_sequence_mask",), "shape_array": ("_npx_shape_array",), "smooth_l1": ("_npx_smooth_l1",),
    "topk": ("_npx_topk",), "_contrib_MultiBoxDetection": ("_npx_multibox_detection",),
    "_contrib_MultiBoxPrior": ("_npx_multibox_prior",), "_contrib_MultiBoxTarget": ("_npx_multibox_target",),
    "Custom": ("_npi_Custom",), "_rnn_param_concat": ("_npi_rnn_param_concat",),
}
for _legacy, _names in _ALIASES.items():
    if find_op(_legacy) is not None:
        add_aliases(_legacy, *_names)

_ = (Dtype, Enum, nn_activation)  # imported for their registrations / re-export


# -- gradient rules of the np operators (MXNet 1.9.1's backward formulas; see registry's docstring) --------
def _sum_to(F, g, x):
    """``g`` summed over the axes broadcasting added to ``x`` (and cast to its dtype)."""
    return internal(F, "_broadcast_backward")(g, x)


@defgrad("_npi_add")
def _add_grad(F, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    return [_sum_to(F, g, inputs[0]), _sum_to(F, g, inputs[1])]


@defgrad("_npi_subtract")
def _subtract_grad(F, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    return [_sum_to(F, g, inputs[0]), _sum_to(F, F.negative(g), inputs[1])]


@defgrad("_npi_multiply")
def _multiply_grad(F, attrs, inputs, outputs, out_grads):
    g, (a, b) = out_grads[0], inputs
    mul = internal(F, "_npi_multiply")   # promotes mixed dtypes as the forward did
    return [_sum_to(F, mul(g, b), a), _sum_to(F, mul(g, a), b)]


@defgrad("_npi_true_divide")
def _true_divide_grad(F, attrs, inputs, outputs, out_grads):
    g, (a, b) = out_grads[0], inputs
    mul, div = internal(F, "_npi_multiply"), internal(F, "_npi_true_divide")   # mixed dtypes promote
    return [_sum_to(F, div(g, b), a), _sum_to(F, F.negative(div(mul(g, outputs[0]), b)), b)]


@defgrad("_npi_power")
def _power_grad(F, attrs, inputs, outputs, out_grads):
    g, (a, b), out = out_grads[0], inputs, outputs[0]
    # the np operators, which promote mixed dtypes (a bool base with a float16 exponent) as the forward did
    mul, pw = internal(F, "_npi_multiply"), internal(F, "_npi_power")
    bm1 = internal(F, "_npi_subtract_scalar")(b, scalar=1.0, is_int=False)
    da = mul(g, mul(b, pw(a, bm1)))
    # log of the base in the result's dtype (MXNet's mixed-precision backward casts an integer base first;
    # log of an integer array stays integer)
    a_f = mul(a, F.ones_like(out))
    db = mul(g, mul(out, internal(F, "_npi_log")(a_f)))
    return [_sum_to(F, da, a), _sum_to(F, db, b)]


@defgrad("_npi_add_scalar", "_npi_subtract_scalar", "_npi_mod_scalar")
def _identity_scalar_grad(F, attrs, inputs, outputs, out_grads):
    return [out_grads[0]]


@defgrad("_npi_rsubtract_scalar")
def _rsubtract_scalar_grad(F, attrs, inputs, outputs, out_grads):
    return [F.negative(out_grads[0])]


@defgrad("_npi_multiply_scalar")
def _multiply_scalar_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._mul_scalar(out_grads[0], scalar=attrs.scalar)]


@defgrad("_npi_true_divide_scalar")
def _true_divide_scalar_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._div_scalar(out_grads[0], scalar=attrs.scalar)]


@defgrad("_npi_rtrue_divide_scalar")
def _rtrue_divide_scalar_grad(F, attrs, inputs, outputs, out_grads):
    # d(s / x) = -s / x^2 = -out / x
    return [F.negative(F.broadcast_div(F.broadcast_mul(out_grads[0], outputs[0]), inputs[0]))]


@defgrad("_npi_power_scalar")
def _power_scalar_grad(F, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    d = F._internal._mul_scalar(F._internal._power_scalar(x, scalar=attrs.scalar - 1.0), scalar=attrs.scalar)
    return [F.broadcast_mul(out_grads[0], d)]


@defgrad("_npi_rpower_scalar")
def _rpower_scalar_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._mul_scalar(F.broadcast_mul(out_grads[0], outputs[0]), scalar=float(np.log(attrs.scalar)))]


@defgrad("_npi_equal", "_npi_not_equal", "_npi_greater", "_npi_greater_equal", "_npi_less", "_npi_less_equal",
         "_npi_equal_scalar", "_npi_not_equal_scalar", "_npi_greater_scalar", "_npi_greater_equal_scalar",
         "_npi_less_scalar", "_npi_less_equal_scalar", "_npi_argmax", "_npi_argmin", "_npi_logical_not",
         "_npi_isnan", "_npi_isinf", "_npi_isfinite", "_npi_isposinf", "_npi_isneginf", "_npi_around")
def _zero_grad(F, attrs, inputs, outputs, out_grads):
    return [F.zeros_like(x) for x in inputs]


def _reduce_backward(attrs, og, x):
    """og broadcast back over the reduced axes of ``x`` (divided by their size for a mean)."""
    axes = _axes(attrs.axis, x.ndim)
    axes = tuple(range(x.ndim)) if axes is None else axes
    g = og if attrs.keepdims else np.expand_dims(og, axes)
    g = np.broadcast_to(g, x.shape)
    if attrs.mean:
        g = g / max(int(np.prod([x.shape[a] for a in axes])), 1)
    return np.ascontiguousarray(g).astype(x.dtype, copy=False)


backward_op("_backward_np_reduce", _reduce_backward, ("ograd", "data"),
            params=(Param("axis", ShapeOrNone, None), Param("keepdims", Bool, False), Param("mean", Bool, False)))


@defgrad("_np_sum")
def _sum_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_np_reduce")(out_grads[0], inputs[0], axis=attrs.axis, keepdims=attrs.keepdims)]


@defgrad("_npi_mean")
def _mean_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_np_reduce")(out_grads[0], inputs[0], axis=attrs.axis, keepdims=attrs.keepdims,
                                               mean=True)]


def _extreme_backward(attrs, og, x, out):
    """The gradient of max/min flows to every element equal to the extreme (as MXNet's mask)."""
    axes = _axes(attrs.axis, x.ndim)
    axes = tuple(range(x.ndim)) if axes is None else axes
    g, o = (og, out) if attrs.keepdims else (np.expand_dims(og, axes), np.expand_dims(out, axes))
    return np.ascontiguousarray(np.where(x == o, g, 0)).astype(x.dtype, copy=False)


backward_op("_backward_np_extreme", _extreme_backward, ("ograd", "data", "out"),
            params=(Param("axis", ShapeOrNone, None), Param("keepdims", Bool, False)))


@defgrad("_np_max", "_np_min")
def _extreme_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_np_extreme")(out_grads[0], inputs[0], outputs[0], axis=attrs.axis,
                                                keepdims=attrs.keepdims)]


@defgrad("_np_reshape", "_npx_reshape", "_np_squeeze")
def _reshape_grad(F, attrs, inputs, outputs, out_grads):
    return [F.reshape_like(out_grads[0], inputs[0])]


@defgrad("_np_copy")
def _copy_grad(F, attrs, inputs, outputs, out_grads):
    return [out_grads[0]]


@defgrad("_np_transpose")
def _transpose_grad(F, attrs, inputs, outputs, out_grads):
    axes = attrs.axes
    if axes in (None, ()):
        return [F.transpose(out_grads[0])]
    n = len(axes)
    inverse = tuple(int(i) for i in np.argsort([a % n for a in axes]))
    return [F.transpose(out_grads[0], axes=inverse)]


def _matmul_backward(attrs, og, a, b):
    """matmul/dot gradients: ``og @ b^T`` and ``a^T @ og`` (1-D operands as NumPy promotes them),
    summed over broadcast batch axes."""
    if a.ndim == 1 and b.ndim == 1:
        return (og * b).astype(a.dtype, copy=False), (og * a).astype(b.dtype, copy=False)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = og.reshape(og.shape + (1,) * 0)
    if a.ndim == 1:
        g2 = np.expand_dims(g2, -2)
    if b.ndim == 1:
        g2 = np.expand_dims(g2, -1)
    ga = np.matmul(g2, np.swapaxes(b2, -1, -2))
    gb = np.matmul(np.swapaxes(a2, -1, -2), g2)
    ga = ga.reshape(ga.shape[:-2] + (ga.shape[-1],)) if a.ndim == 1 else ga
    gb = gb.reshape(gb.shape[:-2] + (gb.shape[-2],)) if b.ndim == 1 else gb

    def to(g, x):
        while g.ndim > x.ndim:
            g = g.sum(axis=0)
        axes = tuple(i for i, (gd, xd) in enumerate(zip(g.shape, x.shape)) if xd == 1 and gd != 1)
        return np.ascontiguousarray(g.sum(axis=axes, keepdims=True) if axes else g).astype(x.dtype, copy=False)
    return to(ga, a), to(gb, b)


backward_op("_backward_np_matmul", _matmul_backward, ("ograd", "a", "b"), like=(1, 2), num_outputs=2)


@defgrad("_npi_matmul")
def _matmul_grad(F, attrs, inputs, outputs, out_grads):
    ga, gb = internal(F, "_backward_np_matmul")(out_grads[0], inputs[0], inputs[1])
    return [ga, gb]


def _dot_backward(attrs, og, a, b):
    """np.dot's backward for any ranks: ``dot(a, b)`` contracts a's last axis with b's second-to-last
    (its only one for 1-D), a number operand scales."""
    g, a64, b64 = og.astype(np.float64), a.astype(np.float64), b.astype(np.float64)
    if a.ndim == 0 or b.ndim == 0:
        ga = np.sum(g * b64) if a.ndim == 0 else g * b64
        gb = np.sum(g * a64) if b.ndim == 0 else g * a64
        return np.asarray(ga).astype(a.dtype), np.asarray(gb).astype(b.dtype)
    kb = max(b.ndim - 2, 0)
    bt = np.moveaxis(b64, kb, -1)                       # (b's free axes..., K)
    ga = np.tensordot(g, bt, axes=(list(range(a.ndim - 1, g.ndim)), list(range(b.ndim - 1))))
    gb = np.moveaxis(np.tensordot(a64, g, axes=(list(range(a.ndim - 1)), list(range(a.ndim - 1)))), 0, kb)
    return ga.reshape(a.shape).astype(a.dtype), gb.reshape(b.shape).astype(b.dtype)


backward_op("_backward_np_dot", _dot_backward, ("ograd", "a", "b"), like=(1, 2), num_outputs=2)


@defgrad("_np_dot")
def _dot_grad(F, attrs, inputs, outputs, out_grads):
    ga, gb = internal(F, "_backward_np_dot")(out_grads[0], inputs[0], inputs[1])
    return [ga, gb]


def _where_backward(attrs, og, c, x, y):
    """np.where's gradients: ``og`` where the condition holds to ``x``, elsewhere to ``y``."""
    mask = np.broadcast_to(c != 0, og.shape)
    zero = np.zeros((), og.dtype)

    def to(g, t):
        while g.ndim > t.ndim:
            g = g.sum(axis=0)
        axes = tuple(i for i, (gd, td) in enumerate(zip(g.shape, t.shape)) if td == 1 and gd != 1)
        g = g.sum(axis=axes, keepdims=True) if axes else g
        return np.array(g, dtype=t.dtype).reshape(t.shape)   # np.array: a 0-d sum stays 0-d
    return to(np.where(mask, og, zero), x), to(np.where(mask, zero, og), y)


backward_op("_backward_np_where", _where_backward, ("ograd", "condition", "x", "y"), like=(2, 3), num_outputs=2)


@defgrad("_npi_where")
def _where_grad(F, attrs, inputs, outputs, out_grads):
    gx, gy = internal(F, "_backward_np_where")(out_grads[0], *inputs)
    return [F.zeros_like(inputs[0]), gx, gy]
