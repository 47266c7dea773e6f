"""The ONE table of MXNet 1.9.1's NumPy-interface functions (``mx.np``, ``mx.npx``), for both sides.

Each :class:`NpFunction` says how a Python call such as ``np.sum(x, axis=1, keepdims=True)`` becomes
one registered operator call (``_np_sum(x; axis=(1,), keepdims=True)``), or, for the few functions
that are several operators in MXNet too, a small composition. The imperative ``mx.np``/``mx.npx``
(``runtime/numpy``, ``runtime/numpy_extension``) and the symbolic ``F.np``/``F.npx`` are both built
from :data:`TABLE`; neither lists the functions again.

An entry has:

- ``name``: the public name inside its namespace, dotted for sub-namespaces (``"sum"``,
  ``"linalg.norm"``, ``"random.uniform"``); ``space`` is ``"np"`` or ``"npx"``.
- ``op``: the registered operator's MXNet 1.9.1 name (``"_npi_add"``, ``"_np_sum"``,
  ``"_npx_relu"``), or None for a composition.
- ``signature``: the Python parameters of MXNet 1.9.1's function, as source text
  (``"a, axis=None, dtype=None, out=None, keepdims=False, initial=None"``).
- ``inputs``: the parameters that are the op's tensor inputs, in the op's input order; a parameter
  written ``"*arrays"`` is a variadic tensor list (``concatenate``'s ``seq``).
- ``attrs``: renames parameter -> op attribute (``{"axes": "newshape"}``); every other parameter that
  is not an input nor a frontend keyword (:data:`FRONTEND`: ``out``, ``ctx``, ``device``, ``order``)
  is passed as the attribute of the same name; a None value is left out (the op's default).
- ``scalar``: ``(op with the number on the right, op with the number on the left)`` for binary
  functions taking numbers: ``np.subtract(x, 2)`` is ``_npi_subtract_scalar(x; scalar=2)``,
  ``np.subtract(2, x)`` is ``_npi_rsubtract_scalar(x; scalar=2)``.
- ``prepare``: ``prepare(bound) -> bound``: fixes arguments before binding (``np.split``'s sections
  vs indices, ``np.transpose``'s axes).
- ``compose``: ``compose(F, **bound) -> result``, written against a namespace ``F`` with ``F.np`` and
  ``F.npx`` (the imperative side passes ``mx.nd``, whose ``nd.np``/``nd.npx`` are ``mx.np``/``mx.npx``;
  the symbolic side passes ``mx.sym``), only calling table functions, so gradients and graphs follow.
- ``creation``: the op takes no tensor inputs (zeros, arange, random samplers): the frontend sets the
  result's context from ``ctx``/``device``.

:func:`bind` turns a call into a :class:`Call` (op, tensor inputs, attributes, out, ctx): both sides
share it, so they accept exactly the same spellings.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as _onp

__all__ = ["FRONTEND", "TABLE", "Call", "NpFunction", "bind", "entries", "signature_of"]

FRONTEND = frozenset(("out", "ctx", "device", "order", "casting", "subok", "where", "kwargs", "name"))
_UFUNC_UNSUPPORTED = ("where", "subok", "dtype", "casting", "order")


@dataclass(frozen=True)
class NpFunction:
    """One function of ``mx.np``/``mx.npx``: see the module docstring."""

    name: str
    op: str | None
    signature: str
    inputs: tuple = ()
    attrs: dict = field(default_factory=dict)
    scalar: tuple | None = None
    prepare: Callable[[dict], dict] | None = None
    compose: Callable[..., Any] | None = None
    creation: bool = False
    space: str = "np"
    doc: str = ""


@dataclass
class Call:
    """What one call of a table function runs: ``op`` on ``inputs`` with ``attrs``."""

    op: str
    inputs: list
    attrs: dict
    out: Any = None
    ctx: Any = None


_SIGS: dict[str, inspect.Signature] = {}


def signature_of(entry: NpFunction) -> inspect.Signature:
    """The ``inspect.Signature`` of an entry's parameter text (compiled once)."""
    sig = _SIGS.get(entry.signature)
    if sig is None:
        scope: dict = {"_onp": _onp}
        exec(f"def f({entry.signature}): pass", scope)  # noqa: S102 - the table's own constant text
        sig = _SIGS[entry.signature] = inspect.signature(scope["f"])
    return sig


def _dtype_name(v: Any) -> Any:
    if v is None or isinstance(v, str):
        return v
    try:
        return _onp.dtype(v).name
    except TypeError:
        return v


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, bool, _onp.number, _onp.bool_))


def bind(entry: NpFunction, args: tuple, kwargs: dict, is_tensor: Callable[[Any], bool]) -> Call:
    """A call of a non-composition entry as a :class:`Call` (raises TypeError as Python does for
    a bad call)."""
    bound = signature_of(entry).bind(*args, **kwargs)
    bound.apply_defaults()
    values = dict(bound.arguments)
    extra = values.pop("kwargs", None) or {}
    for k in list(extra):
        if k not in FRONTEND and k not in _UFUNC_UNSUPPORTED:
            raise TypeError(f"{entry.name}() got an unexpected keyword argument {k!r}")
        if k in _UFUNC_UNSUPPORTED:  # MXNet 1.9.1's _sanity_check_params of its ufuncs
            v = extra[k]
            if k == "dtype":
                _onp.dtype(v)  # TypeError for a non-dtype, as NumPy
            if k == "casting" and v not in ("no", "equiv", "safe", "same_kind", "unsafe"):
                raise TypeError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe', got {v!r}")
            raise NotImplementedError(f"{entry.name}: the argument {k!r} is not supported (MXNet 1.9.1)")
    values.update({k: v for k, v in extra.items()})
    if values.get("order") not in (None, "C"):
        raise NotImplementedError(f"{entry.name}: order={values['order']!r} is not supported (MXNet 1.9.1: 'C' only)")
    if entry.prepare is not None:
        values = entry.prepare(values)
    out = values.get("out")
    ctx = values.get("ctx", values.get("device"))
    op = entry.op
    inputs: list = []
    for p in entry.inputs:
        if p.startswith("*"):
            seq = values[p[1:]]
            inputs.extend(seq if isinstance(seq, (list, tuple)) else [seq])
        else:
            inputs.append(values.get(p, _OMIT))
    attrs: dict = {}
    if entry.scalar is not None and len(inputs) == 2:
        lhs, rhs = inputs
        if _is_number(rhs) and (is_tensor(lhs) or not _is_number(lhs)):
            op, inputs = entry.scalar[0], [lhs]
            attrs = {"scalar": float(rhs), "is_int": isinstance(rhs, (int, _onp.integer)) and not isinstance(rhs, bool)}
        elif _is_number(lhs) and not _is_number(rhs):
            op, inputs = entry.scalar[1], [rhs]
            attrs = {"scalar": float(lhs), "is_int": isinstance(lhs, (int, _onp.integer)) and not isinstance(lhs, bool)}
    skip = set(p.lstrip("*") for p in entry.inputs) | FRONTEND
    for p, v in values.items():
        if p in skip or v is None:
            continue
        if v is _NONE_ATTR:
            v = None
        attrs[entry.attrs.get(p, p)] = _dtype_name(v) if p == "dtype" else v
    from .ops.registry import get_op
    variadic = get_op(op).variadic
    if variadic is not None:
        attrs.setdefault(variadic, len(inputs))
    return Call(op, inputs, attrs, out, ctx)


# -- table construction helpers -------------------------------------------------------------------
def _refuse_bool(values: dict) -> dict:
    dt = getattr(values.get("x"), "dtype", None)
    if dt is not None and _onp.dtype(dt) == _onp.bool_:
        from .base import OperatorTypeError
        raise OperatorTypeError("Unknown type enum 7 (MXNet 1.9.1's np math functions refuse bool arrays)")
    return values


_BOOL_OK = frozenset(("logical_not", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "bitwise_not",
                      "invert"))


def _unary(name: str, op: str, space: str = "np") -> NpFunction:
    return NpFunction(name, op, "x, out=None, **kwargs", ("x",), space=space,
                      prepare=None if name in _BOOL_OK else _refuse_bool)


def _binary(name: str, op: str, scalar: str | None = None, rscalar: str | None = None) -> NpFunction:
    return NpFunction(name, op, "x1, x2, out=None, **kwargs", ("x1", "x2"),
                      scalar=(scalar, rscalar or scalar) if scalar else None)


def _axis_tuple(values: dict) -> dict:
    ax = values.get("axis")
    if isinstance(ax, (int, _onp.integer)):
        values["axis"] = (int(ax),)
    return values


def _reduce(name: str, op: str, sig: str) -> NpFunction:
    return NpFunction(name, op, sig, ("a",), prepare=_axis_tuple)


_R_SUM = "a, axis=None, dtype=None, out=None, keepdims=False, initial=None"
_R_MAX = "a, axis=None, out=None, keepdims=False"
_R_STD = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"


def _split_prepare(values: dict) -> dict:
    s = values.pop("indices_or_sections")
    if isinstance(s, (int, _onp.integer)):
        values["sections"], values["indices"] = int(s), ()
    else:
        values["sections"], values["indices"] = 0, (0,) + tuple(int(i) for i in s)
    values["squeeze_axis"] = False
    return values


def _transpose_prepare(values: dict) -> dict:
    axes = values.get("axes")
    if axes is not None and not isinstance(axes, (list, tuple)):
        values["axes"] = (axes,)
    return values


def _clip_prepare(values: dict) -> dict:
    if values.get("a_min") is None and values.get("a_max") is None:
        raise ValueError("array_clip: must set either max or min")
    values["a_min"] = float("-inf") if values.get("a_min") is None else float(values["a_min"])
    values["a_max"] = float("inf") if values.get("a_max") is None else float(values["a_max"])
    return values


def _size_prepare(values: dict) -> dict:
    size = values.get("size")
    if isinstance(size, (int, _onp.integer)):
        values["size"] = (int(size),)
    return values


def _norm_prepare(values: dict) -> dict:
    """NumPy's ``ord`` as MXNet 1.9.1's front end passes it to ``_npi_norm``: a float ``ord`` and a
    ``flag`` (-2 all elements, 1 Frobenius, 2 nuclear, 0 a matrix 2-norm, -1 the ``ord``-norm)."""
    o, ax = values.get("ord"), values.get("axis")
    if isinstance(ax, (int, _onp.integer)):
        ax = values["axis"] = (int(ax),)
    if ax is None and o is None:
        values["ord"], values["flag"] = 2.0, -2
    elif o is None or o in ("fro", "f"):
        values["ord"], values["flag"] = 2.0, 1
    elif o == "nuc":
        values["ord"], values["flag"] = 2.0, 2
    else:
        values["ord"] = float(o)
        values["flag"] = 0 if ax is not None and len(ax) == 2 and o in (2, -2) else -1
    return values


def _reshape_prepare(values: dict) -> dict:
    ns = values.get("newshape")
    values["newshape"] = (int(ns),) if isinstance(ns, (int, _onp.integer)) else tuple(ns)
    return values


def _arange_prepare(values: dict) -> dict:
    if values.get("stop") is None:
        values["start"], values["stop"] = 0.0, values["start"]
    values["start"] = float(values["start"])
    values["stop"] = float(values["stop"])
    values["step"] = 1.0 if values.get("step") is None else float(values["step"])
    return values


def _full_prepare(values: dict) -> dict:
    sh = values.get("shape")
    values["shape"] = (int(sh),) if isinstance(sh, (int, _onp.integer)) else tuple(sh)
    fv = values.pop("fill_value")
    if values.get("dtype") is None and isinstance(fv, (bool, _onp.bool_)):
        values["dtype"] = "bool"
    values["value"] = float(fv)
    return values


def _shape_prepare(values: dict) -> dict:
    sh = values.get("shape")
    values["shape"] = (int(sh),) if isinstance(sh, (int, _onp.integer)) else tuple(sh)
    return values


def _identity_prepare(values: dict) -> dict:
    n = values.pop("n")
    values["shape"] = (int(n), int(n))
    return values


def _randint_prepare(values: dict) -> dict:
    if values.get("high") is None:
        values["low"], values["high"] = 0, values["low"]
    size = values.pop("size", None)
    values["shape"] = () if size is None else ((int(size),) if isinstance(size, (int, _onp.integer)) else tuple(size))
    values["dtype"] = _dtype_name(values.get("dtype") or "int64")
    return values


def _one_param_prepare(p: str) -> Callable[[dict], dict]:
    """A sampler parameter given as a number (attribute) or a tensor (input, attribute None)."""
    def prepare(values: dict) -> dict:
        values = _size_prepare(values)
        v = values.get(p)
        if v is not None and not _is_number(v):
            values["_t_" + p], values[p] = v, _NONE_ATTR
        else:
            values["_t_" + p] = _OMIT
        return values
    return prepare


def _bernoulli_prepare(values: dict) -> dict:
    """``prob`` or ``logit`` (exactly one, as MXNet), a number (attribute) or a tensor (the input; the
    op then reads ``is_logit``)."""
    values = _size_prepare(values)
    prob, logit = values.get("prob"), values.get("logit")
    if (prob is None) == (logit is None):
        raise ValueError(f"Either `prob` or `logit` must be specified, but not both. Received prob={prob}, "
                         f"logit={logit}")
    given = prob if prob is not None else logit
    values["is_logit"] = logit is not None
    if _is_number(given):
        values["_t_prob"] = _OMIT
    else:
        values["_t_prob"], values["prob"], values["logit"] = given, None, None
    return values


def _multinomial_prepare(values: dict) -> dict:
    values = _size_prepare(values)
    p = values["pvals"]
    if isinstance(p, (list, tuple)):
        values["pvals"], values["_t_pvals"] = tuple(float(v) for v in p), _OMIT
    else:
        values["pvals"], values["_t_pvals"] = None, p
    return values


def _choice_prepare(values: dict) -> dict:
    values = _size_prepare(values)
    a, p = values.get("a"), values.pop("p", None)
    values["weighted"] = p is not None
    values["_t_p"] = p if p is not None else _OMIT
    if isinstance(a, (int, _onp.integer)):
        values["a"], values["_t_a"] = int(a), _OMIT
    else:
        values["a"], values["_t_a"] = None, a
    return values


# compositions: written against F (F.np / F.npx), so both sides share them
def _c_ones_like(F, a, dtype=None, order="C", ctx=None, out=None):
    return F.np.full_like(a, 1, dtype=dtype, out=out)


def _c_zeros_like(F, a, dtype=None, order="C", ctx=None, out=None):
    return F.np.full_like(a, 0, dtype=dtype, out=out)


def _c_linspace(F, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None):
    if isinstance(num, float) or num < 0:   # MXNet's operator refuses these (an MXNetError)
        from .base import MXNetError
        raise MXNetError(f"Number of sequence should be non-negative and an integer, got num={num}")
    arr = F.np._linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, ctx=ctx)
    if not retstep:
        return arr
    div = (num - 1) if endpoint else num
    return arr, (float(stop) - float(start)) / div if div > 0 else float("nan")


def _c_nan_to_num(F, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """copy=False writes into ``x`` (imperatively; a traced call returns the new values)."""
    out = x if not copy and not hasattr(x, "list_arguments") else None
    return F.np._nan_to_num(x, copy=copy, nan=nan, posinf=posinf, neginf=neginf, out=out)


def _c_divide(F, x1, x2, out=None, **kwargs):
    return F.np.true_divide(x1, x2, out=out, **kwargs)


def _c_square_sum(F, a, axis=None, keepdims=False):
    return F.np.sum(F.np.square(a), axis=axis, keepdims=keepdims)


def _c_ravel(F, x, order="C"):
    return F.np.reshape(x, (-1,))


def _c_flipud(F, m):
    return F.np.flip(m, 0)


def _c_fliplr(F, m):
    return F.np.flip(m, 1)


def _c_outer(F, a, b):
    return F.np.multiply(F.np.reshape(a, (-1, 1)), F.np.reshape(b, (1, -1)))


def _c_inner(F, a, b):
    return F.np.tensordot(a, b, ([-1], [-1]))


def _c_vdot(F, a, b):
    return F.np.dot(F.np.ravel(a), F.np.ravel(b))


def _c_append(F, arr, values, axis=None):
    if axis is None:
        return F.np.concatenate([F.np.ravel(arr), F.np.ravel(values)], axis=0)
    return F.np.concatenate([arr, values], axis=axis)


def _c_softmax_like(name):
    def run(F, data, length=None, axis=-1, temperature=None, use_length=False, dtype=None):
        fn = getattr(F.npx, "_" + name)
        if length is None:
            return fn(data, axis=axis, temperature=temperature, use_length=use_length, dtype=dtype)
        return fn(data, length, axis=axis, temperature=temperature, use_length=use_length, dtype=dtype)
    return run


def _tensordot_route(values: dict) -> dict:
    axes = values.pop("axes")
    if isinstance(axes, (int, _onp.integer)):
        values["_int_axes"] = int(axes)
    else:
        a, b = axes
        values["a_axes_summed"] = (a,) if isinstance(a, (int, _onp.integer)) else tuple(a)
        values["b_axes_summed"] = (b,) if isinstance(b, (int, _onp.integer)) else tuple(b)
    return values


def _c_tensordot(F, a, b, axes=2):
    if isinstance(axes, (int, _onp.integer)):
        return F.np._tensordot_int_axes(a, b, int(axes))
    x, y = axes
    x = (x,) if isinstance(x, (int, _onp.integer)) else tuple(x)
    y = (y,) if isinstance(y, (int, _onp.integer)) else tuple(y)
    return F.np._tensordot(a, b, x, y)


def _c_where(F, condition, x=None, y=None):
    if x is None and y is None:
        return F.np.nonzero(condition)
    xn, yn = _is_number(x), _is_number(y)
    if xn and yn:
        return F.np._where_scalar2(condition, float(x), float(y))
    if xn:
        return F.np._where_lscalar(condition, y, float(x))
    if yn:
        return F.np._where_rscalar(condition, x, float(y))
    return F.np._where(condition, x, y)


def _c_nonzero(F, a):
    out = F.npx.nonzero(a)   # MXNet: one index array per column (a zero-dim input has one)
    return tuple(out[:, i] for i in range(out.shape[1])) if hasattr(out, "asnumpy") else out


def _c_squeeze(F, a, axis=None):
    return F.np._squeeze(a, axis=(axis,) if isinstance(axis, (int, _onp.integer)) else axis)


def _c_meshgrid(F, *xi, **kwargs):
    indexing = kwargs.get("indexing", "xy")
    n = len(xi)
    xi = [F.np.reshape(x, (-1,)) for x in xi]
    shapes = [x.shape[0] for x in xi]
    if indexing == "xy" and n >= 2:
        shapes[0], shapes[1] = shapes[1], shapes[0]
    outs = []
    for i, x in enumerate(xi):
        ax = i
        if indexing == "xy" and n >= 2 and i < 2:
            ax = 1 - i
        shape = [1] * n
        shape[ax] = -1
        outs.append(F.np.broadcast_to(F.np.reshape(x, tuple(shape)), tuple(shapes)))
    return outs


def _c_round(F, x, decimals=0, out=None, **kwargs):
    return F.np.around(x, decimals, out=out)


def _c_swapaxes(F, a, axis1, axis2):
    return F.np._swapaxes(a, dim1=axis1, dim2=axis2)


def _c_repeat(F, a, repeats, axis=None):
    return F.np._repeat(a, repeats=repeats, axis=axis)


def _c_expand_dims(F, a, axis):
    return F.np._expand_dims(a, axis=axis)


_PAD_KWARGS = {"constant": ("constant_values",), "edge": (), "linear_ramp": ("end_values",),
               "maximum": ("stat_length",), "mean": ("stat_length",), "median": ("stat_length",),
               "minimum": ("stat_length",), "reflect": ("reflect_type",), "symmetric": ("reflect_type",), "wrap": ()}


def _c_pad(F, x, pad_width=None, mode="constant", **kwargs):
    """MXNet 1.9.1's np.pad: NumPy's keywords checked per mode, then its operator; as MXNet's, the
    'constant' mode pads with 0 whatever ``constant_values`` says (its front end drops the value)."""
    if not _onp.asarray(pad_width).dtype.kind == "i":
        raise TypeError("`pad_width` must be of integral type.")
    if not isinstance(pad_width, tuple):
        raise TypeError("`pad_width` must be tuple.")
    if mode in ("linear_ramp", "wrap", "median", "mean", "empty"):
        raise ValueError("mode {'%s'} is not supported." % mode)
    if callable(mode):
        raise ValueError("mode {'<function>'} is not supported.")
    for key in kwargs:
        if key not in _PAD_KWARGS[mode]:
            raise ValueError("%s keyword not in allowed keywords %s" % (key, list(_PAD_KWARGS[mode])))
    if mode == "constant":
        if isinstance(kwargs.get("constant_values", 0), tuple):
            raise TypeError("unsupported constant_values type: {'tuple'}.")
    elif mode in ("symmetric", "reflect"):
        values = kwargs.get("reflect_type", "even")
        if values != "even" and values is not None:
            raise ValueError("unsupported reflect_type '{}'".format(values))
        return F.np._pad(x, pad_width, mode=mode, reflect_type="even")
    elif mode in ("edge", "maximum", "minimum"):
        if kwargs.get("stat_length") is not None:
            raise ValueError("unsupported stat_length '{}'".format(kwargs["stat_length"]))
        return F.np._pad(x, pad_width, mode=mode)
    return F.np._pad(x, pad_width, mode="constant", constant_value=0)


def _c_flip(F, m, axis=None, out=None):
    if axis is None:
        axis = tuple(range(m.ndim)) if hasattr(m, "ndim") else None
    return F.np._flip(m, axis=(axis,) if isinstance(axis, (int, _onp.integer)) else axis, out=out)


def _c_take(F, a, indices, axis=None, mode="raise", out=None):
    if axis is None:
        return F.np._take(F.np.reshape(a, (-1,)), indices, axis=0, mode=mode, out=out)
    return F.np._take(a, indices, axis=axis, mode=mode, out=out)


def _c_argsort(F, a, axis=-1, kind=None, order=None):
    return F.np._argsort(a, axis=_NONE_ATTR if axis is None else axis, is_ascend=True, dtype="int64")


def _c_sort(F, a, axis=-1, kind=None, order=None):
    return F.np._sort(a, axis=_NONE_ATTR if axis is None else axis, is_ascend=True)


def _c_tile(F, A, reps):
    return F.np._tile(A, reps=(reps,) if isinstance(reps, (int, _onp.integer)) else tuple(reps))


def _c_concatenate(F, seq, axis=0, out=None):
    if axis is None:
        return F.np._concatenate(*[F.np.reshape(a, (-1,)) for a in seq], axis=0, out=out)
    return F.np._concatenate(*seq, axis=axis, out=out)


def _c_stack(F, arrays, axis=0, out=None):
    return F.np._stack(*arrays, axis=axis, out=out)


def _c_stacker(name):
    def run(F, arrays, out=None):
        return getattr(F.np, "_" + name)(*arrays, out=out)
    return run


def _c_atleast(name):
    def run(F, *arys):
        res = getattr(F.np, "_" + name)(*arys)
        return res[0] if len(arys) == 1 else list(res)
    return run


def _c_split(F, ary, indices_or_sections, axis=0):
    return _split_common(F, ary, indices_or_sections, axis, strict=True)


def _c_array_split(F, ary, indices_or_sections, axis=0):
    return _split_common(F, ary, indices_or_sections, axis, strict=False)


def _split_common(F, ary, s, axis, strict):
    n = ary.shape[axis] if hasattr(ary, "shape") else None
    if isinstance(s, (int, _onp.integer)):
        s = int(s)
        if strict and n is not None and n % s:
            raise ValueError("array split does not result in an equal division")
        if n is not None and n % s:
            each, extra = divmod(n, s)
            sizes = [each + 1] * extra + [each] * (s - extra)
            idx = tuple(_onp.cumsum([0] + sizes[:-1]).tolist())
            res = F.np._split(ary, indices=idx, axis=axis, squeeze_axis=False, sections=0)
        else:
            res = F.np._split(ary, indices=(), axis=axis, squeeze_axis=False, sections=s)
    else:
        res = F.np._split(ary, indices=(0,) + tuple(int(i) for i in s), axis=axis, squeeze_axis=False, sections=0)
    return list(res) if isinstance(res, (list, tuple)) else [res]


def _need_ndim(ary, n: int, name: str) -> None:
    nd = getattr(ary, "ndim", None)
    if nd is not None and nd < n:
        raise ValueError(f"{name} only works on arrays of {n} or more dimensions")


def _c_hsplit(F, ary, indices_or_sections):
    _need_ndim(ary, 1, "hsplit")
    return _split_common(F, ary, indices_or_sections, 1 if len(ary.shape) > 1 else 0, strict=True)


def _c_vsplit(F, ary, indices_or_sections):
    _need_ndim(ary, 2, "vsplit")
    return _split_common(F, ary, indices_or_sections, 0, strict=True)


def _c_dsplit(F, ary, indices_or_sections):
    _need_ndim(ary, 3, "dsplit")
    return _split_common(F, ary, indices_or_sections, 2, strict=True)


def _c_clip(F, a, a_min, a_max, out=None):
    v = _clip_prepare({"a_min": a_min, "a_max": a_max})
    return F.np._clip(a, a_min=v["a_min"], a_max=v["a_max"], out=out)


def _c_average(F, a, axis=None, weights=None, returned=False, out=None):
    if weights is None:
        avg = F.np.mean(a, axis=axis)
        return (avg, F.np.full_like(avg, a.size / max(avg.size, 1))) if returned else avg
    w = weights
    if hasattr(w, "ndim") and w.ndim == 1 and a.ndim > 1 and axis is not None:
        shape = [1] * a.ndim
        shape[axis] = -1
        w = F.np.reshape(w, tuple(shape))
    wsum = F.np.sum(F.np.broadcast_to(w, a.shape), axis=axis)
    avg = F.np.true_divide(F.np.sum(F.np.multiply(a, w), axis=axis), wsum)
    return (avg, wsum) if returned else avg


def _c_amax(F, a, axis=None, out=None, keepdims=False, initial=None):
    return F.np.max(a, axis=axis, out=out, keepdims=keepdims)


def _c_norm(F, x, ord=None, axis=None, keepdims=False):
    """MXNet 1.9.1's front end of ``linalg.norm``: the strings ``'inf'``/``'-inf'`` are the max/min of
    ``abs(x)`` over ``axis`` (all elements when None, even of a matrix), over two axes the max/min of
    the row sums; 1/-1 over two axes the max/min of the column sums; every other order is ``_npi_norm``
    (``_norm_prepare``)."""
    if isinstance(axis, tuple) and len(axis) == 2 and not isinstance(ord, bool) and ord in (1, -1):
        row, col = axis            # column sums, then their max/min
        if not keepdims and row < col:
            col -= 1
        red = F.np.max if ord == 1 else F.np.min
        return red(F.np.sum(F.np.abs(x), axis=row, keepdims=keepdims), axis=col, keepdims=keepdims)
    if isinstance(ord, str) and ord in ("inf", "-inf"):
        red = F.np.max if ord == "inf" else F.np.min
        if isinstance(axis, tuple) and len(axis) == 2:
            row, col = axis        # row sums, then their max/min
            if not keepdims and row > col:
                row -= 1
            return red(F.np.sum(F.np.abs(x), axis=col, keepdims=keepdims), axis=row, keepdims=keepdims)
        return red(F.np.abs(x), axis=axis, keepdims=keepdims)
    return F.np.linalg._norm(x, ord=ord, axis=axis, keepdims=keepdims)


def _c_matrix_power(F, a, n):
    out = F.np.eye(a.shape[-1], dtype=a.dtype) if n == 0 else a
    if n < 0:
        a = F.np.linalg.inv(a)
        out, n = a, -n
    for _ in range(int(n) - 1):
        out = F.np.matmul(out, a)
    return out


def _c_multi_dot(F, arrays, out=None):
    res = arrays[0]
    for a in arrays[1:]:
        res = F.np.dot(res, a)
    return res


def _batch_shaped(F, res, a):
    """A per-matrix result of a legacy linalg op (``(1,)`` for one matrix there) with NumPy's shape
    ``a.shape[:-2]`` (zero-dim for one matrix)."""
    shape = getattr(a, "shape", None)
    if shape is None or not isinstance(shape, tuple) or tuple(res.shape) == shape[:-2]:
        return res
    return F.np.reshape(res, shape[:-2])


def _c_rand(F, *size, **kwargs):
    return F.np.random.uniform(0.0, 1.0, size=size or None, **kwargs)


def _c_randn(F, *size, **kwargs):
    return F.np.random.normal(0.0, 1.0, size=size or None, **kwargs)


def _c_beta(F, a, b, size=None, dtype=None, ctx=None):
    """Beta(a, b) as X / (X + Y) of two gammas (MXNet 1.9.1's np.random.beta)."""
    x = F.np.random.gamma(a, 1.0, size=size, dtype=dtype, ctx=ctx)
    y = F.np.random.gamma(b, 1.0, size=size, dtype=dtype, ctx=ctx)
    return F.np.true_divide(x, F.np.add(x, y))


def _c_multivariate_normal(F, mean, cov, size=None, check_valid=None, tol=None):
    """MXNet's np.random.multivariate_normal: its Python fallback operator ``mvn_fallback``, so it runs
    imperatively and traces into graphs alike."""
    if check_valid is not None:
        raise NotImplementedError("Parameter `check_valid` is not supported")
    if tol is not None:
        raise NotImplementedError("Parameter `tol` is not supported")
    return F.np.random._mvn_fallback(mean, cov, size=(size,) if isinstance(size, (int, _onp.integer)) else size)


def _c_chisquare(F, df, size=None, dtype=None, ctx=None):
    """Chi-square(df) as Gamma(df / 2, 2) (MXNet 1.9.1's np.random.chisquare)."""
    shape = F.np.true_divide(df, 2) if not _is_number(df) else df / 2
    return F.np.random.gamma(shape, 2.0, size=size, dtype=dtype, ctx=ctx)


def _c_lognormal(F, mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None):
    return F.np.exp(F.np.random.normal(mean, sigma, size=size, dtype=dtype, ctx=ctx))


def _c_shuffle(F, x):
    return F.np.random._shuffle(x)


def _two_sampler(name: str, op: str, p1: str, d1: Any, p2: str, d2: Any) -> NpFunction:
    """A sampler with two distribution parameters, each a number (attribute) or a tensor (input:
    the attribute is then None, as MXNet's ``_npi_uniform(input1, input2; low=None, ...)``)."""
    def prepare(values: dict) -> dict:
        values = _size_prepare(values)
        for p in (p1, p2):
            v = values.get(p)
            if v is not None and not _is_number(v):
                values["_t_" + p], values[p] = v, _NONE_ATTR
            else:
                values["_t_" + p] = _OMIT
                if v is not None:
                    values[p] = float(v)
        return values
    return NpFunction(name, op, f"{p1}={d1}, {p2}={d2}, size=None, dtype=None, ctx=None, out=None",
                      ("_t_" + p1, "_t_" + p2), prepare=prepare, creation=True)


TABLE: list[NpFunction] = [
    # -- arithmetic (ufuncs): arrays and numbers, NumPy broadcasting, MXNet's promotion ------------
    _binary("add", "_npi_add", "_npi_add_scalar"),
    _binary("subtract", "_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar"),
    _binary("multiply", "_npi_multiply", "_npi_multiply_scalar"),
    _binary("true_divide", "_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar"),
    NpFunction("divide", None, "x1, x2, out=None, **kwargs", compose=_c_divide),
    _binary("mod", "_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar"),
    _binary("remainder", "_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar"),
    _binary("power", "_npi_power", "_npi_power_scalar", "_npi_rpower_scalar"),
    _binary("maximum", "_npi_maximum", "_npi_maximum_scalar"),
    _binary("minimum", "_npi_minimum", "_npi_minimum_scalar"),
    _binary("hypot", "_npi_hypot", "_npi_hypot_scalar"),
    _binary("arctan2", "_npi_arctan2", "_npi_arctan2_scalar", "_npi_rarctan2_scalar"),
    _binary("copysign", "_npi_copysign", "_npi_copysign_scalar", "_npi_rcopysign_scalar"),
    _binary("lcm", "_npi_lcm", "_npi_lcm_scalar"),
    _binary("ldexp", "_npi_ldexp", "_npi_ldexp_scalar", "_npi_rldexp_scalar"),
    _binary("bitwise_and", "_npi_bitwise_and", "_npi_bitwise_and_scalar"),
    _binary("bitwise_or", "_npi_bitwise_or", "_npi_bitwise_or_scalar"),
    _binary("bitwise_xor", "_npi_bitwise_xor", "_npi_bitwise_xor_scalar"),
    _binary("equal", "_npi_equal", "_npi_equal_scalar"),
    _binary("not_equal", "_npi_not_equal", "_npi_not_equal_scalar"),
    _binary("greater", "_npi_greater", "_npi_greater_scalar", "_npi_less_scalar"),
    _binary("greater_equal", "_npi_greater_equal", "_npi_greater_equal_scalar", "_npi_less_equal_scalar"),
    _binary("less", "_npi_less", "_npi_less_scalar", "_npi_greater_scalar"),
    _binary("less_equal", "_npi_less_equal", "_npi_less_equal_scalar", "_npi_greater_equal_scalar"),
    NpFunction("matmul", "_npi_matmul", "a, b, out=None", ("a", "b")),
    NpFunction("dot", "_np_dot", "a, b, out=None", ("a", "b")),
    NpFunction("tensordot", None, "a, b, axes=2", compose=_c_tensordot),
    NpFunction("_tensordot", "_npi_tensordot", "a, b, a_axes_summed, b_axes_summed", ("a", "b")),
    NpFunction("_tensordot_int_axes", "_npi_tensordot_int_axes", "a, b, axes", ("a", "b")),
    NpFunction("outer", None, "a, b", compose=_c_outer),
    NpFunction("inner", None, "a, b", compose=_c_inner),
    NpFunction("vdot", None, "a, b", compose=_c_vdot),
    NpFunction("einsum", "_npi_einsum", "subscripts, *operands, out=None, optimize=False", ("*operands",),
               prepare=lambda v: {**v, "optimize": int(bool(v.get("optimize")))}),
    # -- unary math ---------------------------------------------------------------------------------
    *[_unary(n, op) for n, op in (
        ("abs", "_npi_absolute"), ("absolute", "_npi_absolute"), ("fabs", "_npi_absolute"), ("sign", "_npi_sign"),
        ("rint", "_npi_rint"), ("ceil", "_npi_ceil"), ("floor", "_npi_floor"), ("trunc", "_npi_trunc"),
        ("fix", "_npi_fix"), ("sqrt", "_npi_sqrt"), ("cbrt", "_npi_cbrt"), ("square", "_npi_square"),
        ("reciprocal", "_npi_reciprocal"), ("exp", "_npi_exp"), ("expm1", "_npi_expm1"), ("log", "_npi_log"),
        ("log10", "_npi_log10"), ("log2", "_npi_log2"), ("log1p", "_npi_log1p"), ("sin", "_npi_sin"),
        ("cos", "_npi_cos"), ("tan", "_npi_tan"), ("arcsin", "_npi_arcsin"), ("arccos", "_npi_arccos"),
        ("arctan", "_npi_arctan"), ("sinh", "_npi_sinh"), ("cosh", "_npi_cosh"), ("tanh", "_npi_tanh"),
        ("arcsinh", "_npi_arcsinh"), ("arccosh", "_npi_arccosh"), ("arctanh", "_npi_arctanh"),
        ("degrees", "_npi_degrees"), ("rad2deg", "_npi_degrees"), ("radians", "_npi_radians"),
        ("deg2rad", "_npi_radians"), ("negative", "_npi_negative"), ("logical_not", "_npi_logical_not"),
        ("isnan", "_npi_isnan"), ("isinf", "_npi_isinf"), ("isfinite", "_npi_isfinite"),
        ("isposinf", "_npi_isposinf"), ("isneginf", "_npi_isneginf"), ("bitwise_not", "_npi_bitwise_not"),
        ("invert", "_npi_bitwise_not"))],
    NpFunction("around", "_npi_around", "x, decimals=0, out=None, **kwargs", ("x",)),
    NpFunction("round", None, "x, decimals=0, out=None, **kwargs", compose=_c_round),
    NpFunction("round_", None, "x, decimals=0, out=None, **kwargs", compose=_c_round),
    NpFunction("nan_to_num", None, "x, copy=True, nan=0.0, posinf=None, neginf=None", compose=_c_nan_to_num),
    NpFunction("_nan_to_num", "_npi_nan_to_num", "x, copy=True, nan=0.0, posinf=None, neginf=None, out=None", ("x",)),
    NpFunction("clip", None, "a, a_min, a_max, out=None", compose=_c_clip),
    NpFunction("_clip", "_npi_clip", "a, a_min, a_max, out=None", ("a",)),
    NpFunction("where", None, "condition, x=None, y=None", compose=_c_where),
    NpFunction("_where", "_npi_where", "condition, x, y", ("condition", "x", "y")),
    NpFunction("_where_lscalar", "_npi_where_lscalar", "condition, y, scalar", ("condition", "y")),
    NpFunction("_where_rscalar", "_npi_where_rscalar", "condition, x, scalar", ("condition", "x")),
    NpFunction("_where_scalar2", "_npi_where_scalar2", "condition, x, y", ("condition",)),
    # -- reductions -----------------------------------------------------------------------------------
    _reduce("sum", "_np_sum", _R_SUM),
    _reduce("prod", "_np_prod", _R_SUM),
    _reduce("product", "_np_prod", _R_SUM),
    _reduce("mean", "_npi_mean", "a, axis=None, dtype=None, out=None, keepdims=False"),
    _reduce("max", "_np_max", _R_MAX),
    _reduce("amax", "_np_max", _R_MAX),
    _reduce("min", "_np_min", _R_MAX),
    _reduce("amin", "_np_min", _R_MAX),
    _reduce("std", "_npi_std", _R_STD),
    _reduce("var", "_npi_var", _R_STD),
    _reduce("all", "_np_all", _R_MAX),
    _reduce("any", "_np_any", _R_MAX),
    _reduce("sometrue", "_np_any", _R_MAX),
    _reduce("alltrue", "_np_all", _R_MAX),
    NpFunction("argmax", "_npi_argmax", "a, axis=None, out=None", ("a",)),
    NpFunction("argmin", "_npi_argmin", "a, axis=None, out=None", ("a",)),
    NpFunction("cumsum", "_np_cumsum", "a, axis=None, dtype=None, out=None", ("a",)),
    NpFunction("average", None, "a, axis=None, weights=None, returned=False, out=None", compose=_c_average),
    NpFunction("argsort", None, "a, axis=-1, kind=None, order=None", compose=_c_argsort),
    NpFunction("_argsort", "_npi_argsort", "a, axis=-1, is_ascend=True, dtype='int64'", ("a",)),
    NpFunction("sort", None, "a, axis=-1, kind=None, order=None", compose=_c_sort),
    NpFunction("_sort", "_npi_sort", "a, axis=-1, is_ascend=True", ("a",)),
    NpFunction("trace", "_np_trace", "a, offset=0, axis1=0, axis2=1, out=None", ("a",)),
    # -- shape manipulation -----------------------------------------------------------------------------
    NpFunction("reshape", "_np_reshape", "a, newshape, order='C'", ("a",), prepare=_reshape_prepare),
    NpFunction("ravel", None, "x, order='C'", compose=_c_ravel),
    NpFunction("transpose", "_np_transpose", "a, axes=None", ("a",), prepare=_transpose_prepare),
    NpFunction("swapaxes", None, "a, axis1, axis2", compose=_c_swapaxes),
    NpFunction("_swapaxes", "_npi_swapaxes", "a, dim1, dim2", ("a",)),
    NpFunction("moveaxis", "_np_moveaxis", "a, source, destination", ("a",)),
    NpFunction("rollaxis", None, "a, axis, start=0",
               compose=lambda F, a, axis, start=0: F.np.moveaxis(a, axis, start - 1 if start > axis else start)),
    NpFunction("squeeze", None, "a, axis=None", compose=_c_squeeze),
    NpFunction("_squeeze", "_np_squeeze", "a, axis=None", ("a",)),
    NpFunction("expand_dims", None, "a, axis", compose=_c_expand_dims),
    NpFunction("_expand_dims", "_npi_expand_dims", "a, axis", ("a",)),
    NpFunction("broadcast_to", "_npi_broadcast_to", "array, shape", ("array",), prepare=_shape_prepare),
    NpFunction("concatenate", None, "seq, axis=0, out=None", compose=_c_concatenate),
    NpFunction("_concatenate", "_npi_concatenate", "*data, axis=0, out=None", ("*data",)),
    NpFunction("append", None, "arr, values, axis=None", compose=_c_append),
    NpFunction("stack", None, "arrays, axis=0, out=None", compose=_c_stack),
    NpFunction("_stack", "_npi_stack", "*data, axis=0, out=None", ("*data",)),
    *[NpFunction(n, None, "arrays, out=None", compose=_c_stacker(n)) for n in ("vstack", "hstack", "dstack")],
    NpFunction("row_stack", None, "arrays, out=None", compose=_c_stacker("vstack")),
    NpFunction("column_stack", None, "tup, out=None", compose=lambda F, tup, out=None: F.np._column_stack(*tup)),
    *[NpFunction("_" + n, "_npi_" + n, "*data, out=None", ("*data",)) for n in
      ("vstack", "hstack", "dstack", "column_stack")],
    *[NpFunction(n, None, "*arys", compose=_c_atleast(n)) for n in ("atleast_1d", "atleast_2d", "atleast_3d")],
    *[NpFunction("_" + n, "_np_" + n, "*arys", ("*arys",)) for n in ("atleast_1d", "atleast_2d", "atleast_3d")],
    NpFunction("split", None, "ary, indices_or_sections, axis=0", compose=_c_split),
    NpFunction("array_split", None, "ary, indices_or_sections, axis=0", compose=_c_array_split),
    NpFunction("hsplit", None, "ary, indices_or_sections", compose=_c_hsplit),
    NpFunction("vsplit", None, "ary, indices_or_sections", compose=_c_vsplit),
    NpFunction("dsplit", None, "ary, indices_or_sections", compose=_c_dsplit),
    NpFunction("_split", "_npi_split", "ary, indices=(), axis=0, squeeze_axis=False, sections=0", ("ary",)),
    NpFunction("flip", None, "m, axis=None, out=None", compose=_c_flip),
    NpFunction("_flip", "_npi_flip", "m, axis=None, out=None", ("m",)),
    NpFunction("flipud", None, "m", compose=_c_flipud),
    NpFunction("fliplr", None, "m", compose=_c_fliplr),
    NpFunction("rot90", "_npi_rot90", "m, k=1, axes=(0, 1)", ("m",)),
    NpFunction("roll", "_np_roll", "a, shift, axis=None", ("a",),
               prepare=lambda v: {**v, "shift": (v["shift"],) if isinstance(v["shift"], int) else v["shift"],
                                  "axis": (v["axis"],) if isinstance(v.get("axis"), int) else v.get("axis")}),
    NpFunction("tile", None, "A, reps", compose=_c_tile),
    NpFunction("_tile", "_npi_tile", "A, reps", ("A",)),
    NpFunction("repeat", None, "a, repeats, axis=None", compose=_c_repeat),
    NpFunction("_repeat", "_np_repeat", "a, repeats, axis=None", ("a",)),
    NpFunction("take", None, "a, indices, axis=None, mode='raise', out=None", compose=_c_take),
    NpFunction("_take", "_npi_take", "a, indices, axis=0, mode='clip', out=None", ("a", "indices")),
    NpFunction("diag", "_np_diag", "v, k=0", ("v",)),
    NpFunction("diagflat", "_np_diagflat", "v, k=0", ("v",)),
    NpFunction("diagonal", "_np_diagonal", "a, offset=0, axis1=0, axis2=1", ("a",)),
    NpFunction("tril", "_npi_tril", "m, k=0", ("m",)),
    NpFunction("diff", "_npi_diff", "a, n=1, axis=-1", ("a",)),
    NpFunction("pad", None, "x, pad_width=None, mode='constant', **kwargs", compose=_c_pad),
    NpFunction("_pad", "_npi_pad", "x, pad_width, mode='constant', constant_value=0, reflect_type='even'", ("x",),
               prepare=lambda v: {**v, "pad_width": str(tuple(tuple(p) for p in v["pad_width"]))}),
    NpFunction("nonzero", None, "a", compose=_c_nonzero),
    NpFunction("copy", "_np_copy", "a", ("a",)),
    NpFunction("meshgrid", None, "*xi, **kwargs", compose=_c_meshgrid),
    # -- creation ---------------------------------------------------------------------------------------
    NpFunction("zeros", "_npi_zeros", "shape, dtype=None, order='C', ctx=None", prepare=_shape_prepare, creation=True),
    NpFunction("ones", "_npi_ones", "shape, dtype=None, order='C', ctx=None", prepare=_shape_prepare, creation=True),
    NpFunction("full", "_npi_full", "shape, fill_value, dtype=None, order='C', ctx=None, out=None",
               prepare=_full_prepare, creation=True),
    NpFunction("identity", "_npi_identity", "n, dtype=None, ctx=None", prepare=_identity_prepare, creation=True),
    NpFunction("eye", "_npi_eye", "N, M=None, k=0, dtype=None, ctx=None", creation=True),
    NpFunction("arange", "_npi_arange", "start, stop=None, step=1, dtype=None, ctx=None", prepare=_arange_prepare,
               creation=True),
    NpFunction("linspace", None, "start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None",
               compose=_c_linspace),
    NpFunction("_linspace", "_npi_linspace", "start, stop, num=50, endpoint=True, dtype=None, ctx=None", creation=True),
    NpFunction("logspace", "_npi_logspace", "start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, "
               "ctx=None", prepare=lambda v: {k: x for k, x in v.items() if k != "axis"}, creation=True),
    NpFunction("indices", "_npi_indices", "dimensions, dtype='int32', ctx=None", creation=True),
    *[NpFunction(n, "_npi_" + n, "M, dtype=None, ctx=None", creation=True) for n in ("hanning", "hamming", "blackman")],
    NpFunction("full_like", "_npi_full_like", "a, fill_value, dtype=None, order='C', ctx=None, out=None", ("a",),
               prepare=lambda v: {**v, "fill_value": float(v["fill_value"])}),
    NpFunction("zeros_like", None, "a, dtype=None, order='C', ctx=None, out=None", compose=_c_zeros_like),
    NpFunction("ones_like", None, "a, dtype=None, order='C', ctx=None, out=None", compose=_c_ones_like),
    # -- np.linalg --------------------------------------------------------------------------------------
    NpFunction("linalg.norm", None, "x, ord=None, axis=None, keepdims=False", compose=_c_norm),
    NpFunction("linalg._norm", "_npi_norm", "x, ord=None, axis=None, keepdims=False", ("x",), prepare=_norm_prepare),
    NpFunction("linalg.svd", None, "a", compose=lambda F, a: _as_tuple(F.np.linalg._svd(a))),
    NpFunction("linalg._svd", "_npi_svd", "a", ("a",)),
    NpFunction("linalg.inv", "_npi_inv", "a", ("a",)),
    NpFunction("linalg.det", None, "a", compose=lambda F, a: _batch_shaped(F, F.np.linalg._det(a), a)),
    NpFunction("linalg._det", "_npi_det", "a", ("a",)),
    NpFunction("linalg.slogdet", None, "a",
               compose=lambda F, a: [_batch_shaped(F, r, a) for r in F.np.linalg._slogdet(a)]),
    NpFunction("linalg._slogdet", "_npi_slogdet", "a", ("a",)),
    NpFunction("linalg.solve", "_npi_solve", "a, b", ("a", "b")),
    NpFunction("linalg.cholesky", "_npi_cholesky", "a", ("a",)),
    NpFunction("linalg.eigh", None, "a, UPLO='L'", compose=lambda F, a, UPLO="L": _as_tuple(F.np.linalg._eigh(a, UPLO))),
    NpFunction("linalg._eigh", "_npi_eigh", "a, UPLO='L'", ("a",)),
    NpFunction("linalg.eigvalsh", "_npi_eigvalsh", "a, UPLO='L'", ("a",)),
    NpFunction("linalg.eig", None, "a", compose=lambda F, a: _as_tuple(F.np.linalg._eig(a))),
    NpFunction("linalg._eig", "_npi_eig", "a", ("a",)),
    NpFunction("linalg.eigvals", "_npi_eigvals", "a", ("a",)),
    NpFunction("linalg.pinv", "_npi_pinv_scalar_rcond", "a, rcond=1e-15, hermitian=False", ("a",),
               prepare=lambda v: {**v, "rcond": float(v["rcond"])}),
    NpFunction("linalg.tensorinv", "_npi_tensorinv", "a, ind=2", ("a",)),
    NpFunction("linalg.tensorsolve", "_npi_tensorsolve", "a, b, axes=None", ("a", "b"),
               attrs={"axes": "a_axes"}),
    NpFunction("linalg.matrix_power", None, "a, n", compose=_c_matrix_power),
    NpFunction("linalg.multi_dot", None, "arrays, out=None", compose=_c_multi_dot),
    # -- np.random (seeded by npx.random.seed / mx.random.seed; numbers are not MXNet's) --------------------
    _two_sampler("random.uniform", "_npi_uniform", "low", 0.0, "high", 1.0),
    _two_sampler("random.normal", "_npi_normal", "loc", 0.0, "scale", 1.0),
    _two_sampler("random.gumbel", "_npi_gumbel", "loc", 0.0, "scale", 1.0),
    _two_sampler("random.logistic", "_npi_logistic", "loc", 0.0, "scale", 1.0),
    _two_sampler("random.gamma", "_npi_gamma", "shape", 1.0, "scale", 1.0),
    NpFunction("random.randint", "_npi_random_randint", "low, high=None, size=None, dtype=None, ctx=None, out=None",
               prepare=_randint_prepare, creation=True),
    NpFunction("random.rand", None, "*size, **kwargs", compose=_c_rand),
    NpFunction("random.randn", None, "*size, **kwargs", compose=_c_randn),
    NpFunction("random.shuffle", None, "x", compose=_c_shuffle),
    NpFunction("random._shuffle", "_npi_shuffle", "x", ("x",)),
    NpFunction("random.choice", "_npi_choice", "a, size=None, replace=True, p=None, ctx=None, out=None",
               ("_t_a", "_t_p"), prepare=_choice_prepare, creation=True),
    *[NpFunction("random." + n, "_npi_" + n, f"{p}={d}, size=None, ctx=None, out=None", ("_t_" + p,),
                 prepare=_one_param_prepare(p), creation=True)
      for n, p, d in (("exponential", "scale", 1.0), ("rayleigh", "scale", 1.0), ("pareto", "a", None),
                      ("weibull", "a", None))],
    NpFunction("random.power", "_npi_powerd", "a, size=None, ctx=None, out=None", ("_t_a",),
               prepare=_one_param_prepare("a"), creation=True),
    NpFunction("random.beta", None, "a, b, size=None, dtype=None, ctx=None", compose=_c_beta),
    NpFunction("random.chisquare", None, "df, size=None, dtype=None, ctx=None", compose=_c_chisquare),
    NpFunction("random.lognormal", None, "mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None",
               compose=_c_lognormal),
    NpFunction("random.bernoulli", "_npi_bernoulli", "prob=None, logit=None, size=None, dtype=None, ctx=None, out=None",
               ("_t_prob",), prepare=_bernoulli_prepare, creation=True),
    NpFunction("random.multivariate_normal", None, "mean, cov, size=None, check_valid=None, tol=None",
               compose=_c_multivariate_normal),
    NpFunction("random._mvn_fallback", "_npi_mvn_fallback", "mean, cov, size=None", ("mean", "cov")),
    NpFunction("random.multinomial", "_npi_multinomial", "n, pvals, size=None", ("_t_pvals",),
               prepare=_multinomial_prepare, creation=True),
    # -- npx: MXNet's operators with NumPy-style arrays -------------------------------------------------
    NpFunction("relu", "_npx_relu", "data", ("data",), space="npx"),
    NpFunction("sigmoid", "_npx_sigmoid", "data", ("data",), space="npx"),
    NpFunction("reshape", "_npx_reshape", "a, newshape, reverse=False, order='C'", ("a",), prepare=_reshape_prepare,
               space="npx"),
    NpFunction("nonzero", "_npx_nonzero", "a", ("a",), space="npx"),
    NpFunction("softmax", None, "data, length=None, axis=-1, temperature=None, use_length=False, dtype=None",
               compose=_c_softmax_like("softmax"), space="npx"),
    NpFunction("log_softmax", "_npx_log_softmax", "data, axis=-1, temperature=None, use_length=False, dtype=None",
               ("data",), space="npx"),
    NpFunction("_softmax", "_npx_softmax", "data, length=None, axis=-1, temperature=None, use_length=False, "
               "dtype=None", ("data", "length"), space="npx",
               prepare=lambda v: v if v.get("length") is not None else {**v, "length": _OMIT}),
]

# MXNet's legacy operators exposed by npx under their nn names: (npx name, op, Python parameters, inputs)
_NPX_LEGACY = [
    ("activation", "_npx_activation", "data, act_type='relu', **kwargs", ("data",)),
    ("batch_norm", "_npx_batch_norm", "x, gamma, beta, running_mean, running_var, eps=1e-3, momentum=0.9, "
     "fix_gamma=True, use_global_stats=False, output_mean_var=False, axis=1, cudnn_off=False, "
     "min_calib_range=None, max_calib_range=None, **kwargs", ("x", "gamma", "beta", "running_mean", "running_var")),
    ("convolution", "_npx_convolution", "data=None, weight=None, bias=None, kernel=None, stride=None, dilate=None, "
     "pad=None, num_filter=1, num_group=1, workspace=1024, no_bias=False, cudnn_tune=None, cudnn_off=False, "
     "layout=None, **kwargs", ("data", "weight", "bias")),
    ("deconvolution", "_npx_deconvolution", "data=None, weight=None, bias=None, kernel=None, stride=None, "
     "dilate=None, pad=None, adj=None, target_shape=None, num_filter=1, num_group=1, workspace=512, no_bias=False, "
     "cudnn_tune=None, cudnn_off=False, layout=None, **kwargs", ("data", "weight", "bias")),
    ("fully_connected", "_npx_fully_connected", "x, weight, bias=None, num_hidden=None, no_bias=True, "
     "flatten=True, **kwargs", ("x", "weight", "bias")),
    ("pooling", "_npx_pooling", "data=None, kernel=None, stride=None, pad=None, pool_type='max', "
     "pooling_convention='valid', global_pool=False, cudnn_off=False, p_value=None, count_include_pad=None, "
     "layout=None, **kwargs", ("data",)),
    ("dropout", "_npx_dropout", "data, p=0.5, mode='training', axes=(), cudnn_off=True, **kwargs", ("data",)),
    ("embedding", "_npx_embedding", "data, weight, input_dim=None, output_dim=None, dtype='float32', "
     "sparse_grad=False, **kwargs", ("data", "weight")),
    ("layer_norm", "_npx_layer_norm", "data=None, gamma=None, beta=None, axis=-1, eps=1e-5, output_mean_var=False, "
     "**kwargs", ("data", "gamma", "beta")),
    ("leaky_relu", "_npx_leaky_relu", "data=None, gamma=None, act_type='leaky', slope=0.25, lower_bound=0.125, "
     "upper_bound=0.334, **kwargs", ("data", "gamma")),
    ("pick", "_npx_pick", "data, index, axis=-1, mode='clip', keepdims=False", ("data", "index")),
    ("topk", "_npx_topk", "data, axis=-1, k=1, ret_typ='indices', is_ascend=False, dtype='float32'", ("data",)),
    ("one_hot", "_npx_one_hot", "data, depth=None, on_value=1.0, off_value=0.0, dtype='float32'", ("data",)),
    ("sequence_mask", "_npx_sequence_mask", "data, sequence_length=None, use_sequence_length=False, value=0.0, "
     "axis=0", ("data", "sequence_length")),
    ("batch_dot", "_npx_batch_dot", "a, b, transpose_a=False, transpose_b=False, forward_stype=None", ("a", "b")),
    ("batch_flatten", "_npx_batch_flatten", "data", ("data",)),
    ("gather_nd", "_npx_gather_nd", "data, indices", ("data", "indices")),
    ("arange_like", "_npx_arange_like", "data, start=0.0, step=1.0, repeat=1, ctx=None, axis=None", ("data",)),
    ("smooth_l1", "_npx_smooth_l1", "data, scalar=1.0", ("data",)),
    ("erf", "_npx_erf", "data", ("data",)),
    ("erfinv", "_npx_erfinv", "data", ("data",)),
    ("gamma", "_npx_gamma", "data", ("data",)),
    ("gammaln", "_npx_gammaln", "data", ("data",)),
    ("cast", "_npx_cast", "data, dtype", ("data",)),
    ("reshape_like", "_npx_reshape_like", "lhs, rhs, lhs_begin=None, lhs_end=None, rhs_begin=None, rhs_end=None",
     ("lhs", "rhs")),
    ("shape_array", "_npx_shape_array", "data", ("data",)),
    ("slice", "_npx_slice", "data, begin, end, step=()", ("data",)),
    ("rnn", "_npx_rnn", "data=None, parameters=None, state=None, state_cell=None, sequence_length=None, "
     "mode=None, state_size=None, num_layers=None, bidirectional=False, state_outputs=False, p=0.0, "
     "use_sequence_length=False, projection_size=None, lstm_state_clip_min=None, lstm_state_clip_max=None, "
     "lstm_state_clip_nan=None, **kwargs", ("data", "parameters", "state", "state_cell", "sequence_length")),
    ("roi_pooling", "_npx_roi_pooling", "data, rois, pooled_size, spatial_scale", ("data", "rois")),
    ("multibox_prior", "_npx_multibox_prior", "data, sizes=(1.0,), ratios=(1.0,), clip=False, steps=(-1.0, -1.0), "
     "offsets=(0.5, 0.5)", ("data",)),
    ("multibox_target", "_npx_multibox_target", "anchor, label, cls_pred, overlap_threshold=0.5, ignore_label=-1.0, "
     "negative_mining_ratio=-1.0, negative_mining_thresh=0.5, minimum_negative_samples=0, "
     "variances=(0.1, 0.1, 0.2, 0.2)", ("anchor", "label", "cls_pred")),
    ("multibox_detection", "_npx_multibox_detection", "cls_prob, loc_pred, anchor, clip=True, threshold=0.01, "
     "background_id=0, nms_threshold=0.5, force_suppress=False, variances=(0.1, 0.1, 0.2, 0.2), nms_topk=-1",
     ("cls_prob", "loc_pred", "anchor")),
]


class _NoneAttr:
    """Marker for an attribute passed explicitly as None (a tensor stands for it)."""


_NONE_ATTR = _NoneAttr()


class _Omit:
    """Marker for an optional tensor input left out (the op is called without it)."""

    def __repr__(self) -> str:
        return "<omitted input>"


_OMIT = _Omit()


def _drop_none_inputs(names: tuple) -> Callable[[dict], dict]:
    def prepare(values: dict) -> dict:
        for n in names:
            if values.get(n) is None:
                values[n] = _OMIT
        return values
    return prepare



# -- functions NumPy has that MXNet 1.9.1 computes in its own operators (runtime/ops/numpy_ops_more.py) ----
def _is_symbol(v: Any) -> bool:
    return hasattr(v, "list_arguments")


def _as_tuple(res: Any) -> Any:
    """The outputs as a tuple (MXNet's svd/eig/eigh return ``(w, v)``; slogdet keeps its list); a
    Symbol's grouped outputs stay one Symbol."""
    return res if _is_symbol(res) else tuple(res)


def _slice_attrs(obj: slice) -> dict:
    return {"start": obj.start, "stop": obj.stop, "step": 1 if obj.step is None else obj.step}


def _c_delete(F, arr, obj, axis=None):
    if isinstance(obj, slice):
        return F.np._delete(arr, axis=axis, **_slice_attrs(obj))
    if isinstance(obj, (int, _onp.integer)) and not isinstance(obj, bool):
        return F.np._delete(arr, int_ind=int(obj), axis=axis)
    if _is_number(obj) or isinstance(obj, (list, tuple)):
        raise TypeError(f"'obj' can not support type {type(obj)}")
    return F.np._delete(arr, obj, axis=axis)


def _c_insert(F, arr, obj, values, axis=None):
    if _is_number(values):
        kw = {"val": float(values), "axis": axis}
        if isinstance(obj, slice):
            return F.np._insert_slice(arr, **kw, **_slice_attrs(obj))
        if isinstance(obj, (int, _onp.integer)):
            return F.np._insert_scalar(arr, int_ind=int(obj), **kw)
        return F.np._insert_tensor(arr, obj=obj, **kw)
    if isinstance(obj, slice):
        return F.np._insert_slice(arr, values, axis=axis, **_slice_attrs(obj))
    if isinstance(obj, (int, _onp.integer)):
        return F.np._insert_scalar(arr, values, int_ind=int(obj), axis=axis)
    if isinstance(obj, (list, tuple)):
        raise TypeError(f"'obj' can not support type {type(obj)}")
    return F.np._insert_tensor(arr, values, obj, axis=axis)


def _c_unique(F, ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    res = F.np._unique(ar, return_index=return_index, return_inverse=return_inverse, return_counts=return_counts,
                       axis=axis)
    return tuple(res) if isinstance(res, list) else res


def _c_bincount(F, x, weights=None, minlength=0):
    if minlength < 0:
        raise ValueError("Minlength value should greater than 0")
    if weights is None:
        return F.np._bincount(x, minlength=minlength, has_weights=False)
    return F.np._bincount(x, weights, minlength=minlength, has_weights=True)


def _percentile_common(F, a, q, axis, out, overwrite_input, interpolation, keepdims, scale):
    if overwrite_input is not None:
        raise NotImplementedError("overwrite_input is not supported yet")
    axis = (axis,) if isinstance(axis, (int, _onp.integer)) else axis
    if _is_number(q):
        return F.np._percentile(a, axis=axis, interpolation=interpolation, keepdims=keepdims, q_scalar=q * scale,
                                out=out)
    return F.np._percentile(a, q * scale if scale != 1 else q, axis=axis, interpolation=interpolation,
                            keepdims=keepdims, q_scalar=_NONE_ATTR, out=out)


def _c_percentile(F, a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    return _percentile_common(F, a, q, axis, out, overwrite_input, interpolation, keepdims, 1)


def _c_quantile(F, a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    return _percentile_common(F, a, q, axis, out, overwrite_input, interpolation, keepdims, 100)


def _c_polyval(F, p, x):
    if _is_number(x) and isinstance(p, (list, tuple)) or _is_number(p) and _is_number(x):
        return _onp.polyval(p, x)
    if _is_number(p) or _is_number(x) or isinstance(p, (list, tuple)) or isinstance(x, (list, tuple)):
        raise TypeError("type not supported")
    return F.np._polyval(p, x)


def _c_ediff1d(F, ary, to_end=None, to_begin=None):
    tb, te = to_begin is not None and not _is_number(to_begin), to_end is not None and not _is_number(to_end)
    tensors = [ary] + ([to_begin] if tb else []) + ([to_end] if te else [])
    return F.np._ediff1d(*tensors, to_begin_arr_given=tb, to_end_arr_given=te,
                         to_begin_scalar=None if tb or to_begin is None else float(to_begin),
                         to_end_scalar=None if te or to_end is None else float(to_end))


def _c_resize(F, a, new_shape):
    return F.np._resize_fallback(a, new_shape=(new_shape,) if isinstance(new_shape, (int, _onp.integer))
                                 else tuple(new_shape))


def _c_diag_indices_from(F, arr):
    res = F.np._diag_indices_from(arr)
    return res if _is_symbol(res) else tuple(res)


def _c_unravel_index(F, indices, shape, order="C"):
    if order != "C":
        raise NotImplementedError("Do not support column-major (Fortran-style) order at this moment")
    if _is_number(indices):
        return _onp.unravel_index(indices, shape)
    res = F.np._unravel_index_fallback(indices, shape=(shape,) if isinstance(shape, int) else tuple(shape))
    return res if _is_symbol(res) else tuple(res)


def _c_average2(F, a, axis=None, weights=None, returned=False, out=None):
    axis = (axis,) if isinstance(axis, (int, _onp.integer)) else axis
    if weights is None:
        return F.np._average(a, axis=axis, returned=returned, weighted=False, out=out)
    return F.np._average(a, weights, axis=axis, returned=returned, weighted=True, out=out)


def _c_hsplit2(F, ary, indices_or_sections):
    if not _is_symbol(ary):
        return _c_hsplit(F, ary, indices_or_sections)
    if isinstance(indices_or_sections, (int, _onp.integer)):
        indices, sections = (), int(indices_or_sections)
    elif isinstance(indices_or_sections, (list, set, tuple)):
        indices, sections = (0,) + tuple(indices_or_sections), 0
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    return F.np._hsplit(ary, indices=indices, axis=1, squeeze_axis=False, sections=sections)


def _c_full2(F, shape, fill_value, dtype=None, order="C", ctx=None, out=None):
    if _is_number(fill_value) or fill_value is None:
        return F.np._full(shape, fill_value, dtype=dtype, order=order, ctx=ctx, out=out)
    shape = (shape,) if isinstance(shape, (int, _onp.integer)) else tuple(shape)
    res = F.np.broadcast_to(fill_value, shape)
    return res if dtype is None else F.npx.cast(res, dtype=_dtype_name(dtype))


def _c_pinv(F, a, rcond=1e-15, hermitian=False):
    if _is_number(rcond):
        return F.np.linalg._pinv_scalar_rcond(a, rcond=float(rcond), hermitian=hermitian)
    return F.np.linalg._pinv(a, rcond, hermitian=hermitian)


def _sample_n(name: str, op: str, p1: str, d1: float, p2: str, d2: float) -> NpFunction:
    """npx.random.uniform_n / normal_n: ``batch_shape`` samples of the parameters' broadcast shape."""
    inner = _two_sampler(name, op, p1, d1, p2, d2)

    def prepare(values: dict) -> dict:
        bs = values.pop("batch_shape", None)
        values["size"] = (int(bs),) if isinstance(bs, (int, _onp.integer)) else (None if bs is None else tuple(bs))
        return inner.prepare(values)
    return NpFunction(name, op, f"{p1}={d1}, {p2}={d2}, batch_shape=None, dtype=None, ctx=None", inner.inputs,
                      prepare=prepare, creation=True, space="npx")


TABLE[:] = [e for e in TABLE if (e.space, e.name) not in {("np", "average"), ("np", "hsplit"), ("np", "full"),
                                                        ("np", "linalg.pinv")}]
TABLE.extend([
    NpFunction("delete", None, "arr, obj, axis=None", compose=_c_delete),
    NpFunction("_delete", "_npi_delete", "arr, obj=None, start=None, stop=None, step=None, int_ind=None, axis=None",
               ("arr", "obj"), prepare=_drop_none_inputs(("obj",))),
    NpFunction("insert", None, "arr, obj, values, axis=None", compose=_c_insert),
    NpFunction("_insert_scalar", "_npi_insert_scalar", "arr, values=None, val=None, int_ind=0, axis=None",
               ("arr", "values"), prepare=_drop_none_inputs(("values",))),
    NpFunction("_insert_slice", "_npi_insert_slice",
               "arr, values=None, val=None, start=None, stop=None, step=None, axis=None", ("arr", "values"),
               prepare=_drop_none_inputs(("values",))),
    NpFunction("_insert_tensor", "_npi_insert_tensor", "arr, values=None, obj=None, val=None, axis=None",
               ("arr", "values", "obj"), prepare=_drop_none_inputs(("values",))),
    NpFunction("unique", None, "ar, return_index=False, return_inverse=False, return_counts=False, axis=None",
               compose=_c_unique),
    NpFunction("_unique", "_npi_unique", "ar, return_index=False, return_inverse=False, return_counts=False, "
               "axis=None", ("ar",)),
    NpFunction("bincount", None, "x, weights=None, minlength=0", compose=_c_bincount),
    NpFunction("_bincount", "_npi_bincount", "x, weights=None, minlength=0, has_weights=False", ("x", "weights"),
               prepare=_drop_none_inputs(("weights",))),
    NpFunction("percentile", None, "a, q, axis=None, out=None, overwrite_input=None, interpolation='linear', "
               "keepdims=False", compose=_c_percentile),
    NpFunction("quantile", None, "a, q, axis=None, out=None, overwrite_input=None, interpolation='linear', "
               "keepdims=False", compose=_c_quantile),
    NpFunction("_percentile", "_npi_percentile", "a, q=None, axis=None, interpolation='linear', keepdims=False, "
               "q_scalar=None, out=None", ("a", "q"), prepare=_drop_none_inputs(("q",))),
    NpFunction("polyval", None, "p, x", compose=_c_polyval),
    NpFunction("_polyval", "_npi_polyval", "p, x", ("p", "x")),
    NpFunction("ediff1d", None, "ary, to_end=None, to_begin=None", compose=_c_ediff1d),
    NpFunction("_ediff1d", "_npi_ediff1d", "*data, to_begin_arr_given=False, to_end_arr_given=False, "
               "to_begin_scalar=None, to_end_scalar=None", ("*data",)),
    NpFunction("resize", None, "a, new_shape", compose=_c_resize),
    NpFunction("_resize_fallback", "_npi_resize_fallback", "a, new_shape", ("a",)),
    NpFunction("diag_indices_from", None, "arr", compose=_c_diag_indices_from),
    NpFunction("_diag_indices_from", "_npi_diag_indices_from", "arr", ("arr",)),
    NpFunction("unravel_index", None, "indices, shape, order='C'", compose=_c_unravel_index),
    NpFunction("_unravel_index_fallback", "_npi_unravel_index_fallback", "indices, shape", ("indices",)),
    NpFunction("average", None, "a, axis=None, weights=None, returned=False, out=None", compose=_c_average2),
    NpFunction("_average", "_npi_average", "a, weights=None, axis=None, returned=False, weighted=True, out=None",
               ("a", "weights"), prepare=_drop_none_inputs(("weights",))),
    NpFunction("hsplit", None, "ary, indices_or_sections", compose=_c_hsplit2),
    NpFunction("_hsplit", "_npi_hsplit", "ary, indices=(), axis=1, squeeze_axis=False, sections=0", ("ary",)),
    NpFunction("full", None, "shape, fill_value, dtype=None, order='C', ctx=None, out=None", compose=_c_full2),
    NpFunction("_full", "_npi_full", "shape, fill_value, dtype=None, order='C', ctx=None, out=None",
               prepare=_full_prepare, creation=True),
    NpFunction("linalg.pinv", None, "a, rcond=1e-15, hermitian=False", compose=_c_pinv),
    NpFunction("linalg._pinv_scalar_rcond", "_npi_pinv_scalar_rcond", "a, rcond=1e-15, hermitian=False", ("a",)),
    NpFunction("linalg._pinv", "_npi_pinv", "a, rcond, hermitian=False", ("a", "rcond")),
    _sample_n("random.uniform_n", "_npi_uniform_n", "low", 0.0, "high", 1.0),
    _sample_n("random.normal_n", "_npi_normal_n", "loc", 0.0, "scale", 1.0),
    NpFunction("constraint_check", "_npx_constraint_check", "input, msg='Constraint violated.'", ("input",),
               space="npx"),
])

_RENAMES = {"batch_norm": {}, "fully_connected": {}}
for _name, _op, _sig, _ins in _NPX_LEGACY:
    TABLE.append(NpFunction(_name, _op, _sig, _ins, space="npx", prepare=_drop_none_inputs(_ins[1:])))

_BY_KEY = {(e.space, e.name): e for e in TABLE}


def entries(space: str) -> list[NpFunction]:
    """The entries of one namespace (``"np"`` or ``"npx"``), in table order."""
    return [e for e in TABLE if e.space == space]


def omitted(v: Any) -> bool:
    """Whether a :class:`Call` input is an optional tensor left out (to be dropped before invoking)."""
    return v is _OMIT
