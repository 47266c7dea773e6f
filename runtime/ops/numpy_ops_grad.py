"""Gradient rules of the NumPy-interface operators ``numpy_ops.py`` registers that its own rules leave
out, as MXNet 1.9.1 declares them (``src/operator/numpy/**``): MakeZeroGradNodes for bitwise, boolean
reductions, ``std``/``var``, ``eig*``, ``pinv``, the non-reparameterized samplers and creators; the
shape family (stacks, ``diag*``, ``trace``, ``tril``, ``rot90``, ``roll``, ``moveaxis``, ``pad``,
``diff``, ``atleast_*d``); the extended binary math (``arctan2``, ``hypot``, ``copysign``, ``ldexp``,
``mod``); products (``tensordot``; ``einsum``'s is in ``numpy_linalg_grad``) and ``solve``/``cholesky``; the location-scale samplers'
reparameterization gradients. Imported after ``numpy_ops`` (module order).
"""
from __future__ import annotations

import ast

import numpy as np

from . import numpy_ops  # noqa: F401  (its operators are registered first)
from ._grad import backward_op, internal
from .attrs import Int, IntOrNone, Param, Str
from .registry import ZERO_GRAD, OpDef, defgrad, find_op, get_op, register

# -- MakeZeroGradNodes (np_broadcast_reduce_op_boolean.cc, np_elemwise_*_extended.cc, np_moments_op.cc,
# linalg/np_eig*.cc, np_pinv.cc, random/np_*_op.cc, np_init_op.cc, np_where_op.cc, np_nonzero_op.cc); the
# creators have no inputs (nnvm accepts them without FGradient) -------------------------------------------
defgrad(*(n for n in (
    "_np_all", "_np_any", "_npi_bernoulli", "_npi_bitwise_and", "_npi_bitwise_and_scalar", "_npi_bitwise_not",
    "_npi_bitwise_or", "_npi_bitwise_or_scalar", "_npi_bitwise_xor", "_npi_bitwise_xor_scalar", "_npi_choice",
    "_npi_eig", "_npi_eigh", "_npi_eigvals", "_npi_eigvalsh", "_npi_full_like", "_npi_gamma", "_npi_lcm",
    "_npi_lcm_scalar", "_npi_multinomial", "_npi_pinv", "_npi_pinv_scalar_rcond", "_npi_powerd", "_npi_std",
    "_npi_var", "_npi_uniform", "_npi_uniform_n", "_npi_where_scalar2", "_npx_nonzero", "_npi_arange",
    "_npi_blackman", "_npi_eye", "_npi_hamming", "_npi_hanning", "_npi_identity", "_npi_indices",
    "_npi_logspace", "_npi_ones", "_npi_zeros", "_npi_linspace", "_npi_boolean_mask_assign_scalar",
    "_npi_boolean_mask_assign_tensor") if find_op(n) is not None and get_op(n).gradient is None))(ZERO_GRAD)


def _reduce_to(F, g, x):
    return internal(F, "_broadcast_backward")(g, x)


# -- shape family ---------------------------------------------------------------------------------------
@defgrad("_np_atleast_1d", "_np_atleast_2d", "_np_atleast_3d")
def _atleast_grad(F, attrs, inputs, outputs, out_grads):
    return [F.reshape_like(g, x) for g, x in zip(out_grads, inputs)]


@defgrad("_np_moveaxis")
def _moveaxis_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_np_moveaxis")(out_grads[0], source=attrs.destination, destination=attrs.source)]


@defgrad("_npi_flip")
def _flip_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_npi_flip")(out_grads[0], axis=attrs.axis)]


@defgrad("_np_roll")
def _roll_grad(F, attrs, inputs, outputs, out_grads):
    shift = None if attrs.shift is None else tuple(-s for s in attrs.shift)
    return [internal(F, "_np_roll")(out_grads[0], shift=shift, axis=attrs.axis)]


@defgrad("_npi_broadcast_to")
def _np_broadcast_to_grad(F, attrs, inputs, outputs, out_grads):
    return [_reduce_to(F, out_grads[0], inputs[0])]


def _backward_tril(attrs, og, x):
    """tril's backward: the output gradient's lower triangle; a 1-D input (broadcast to rows by tril)
    gets each column's sum of it."""
    g = np.tril(og, attrs.k)
    return (g.sum(axis=0) if x.ndim == 1 else g).astype(x.dtype)


backward_op("_backward_tril", _backward_tril, ("ograd", "data"), params=(Param("k", Int, 0),))


@defgrad("_npi_tril")
def _tril_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_tril")(out_grads[0], inputs[0], k=attrs.k)]


@defgrad("_npi_rot90")
def _rot90_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_npi_rot90")(out_grads[0], k=-attrs.k, axes=attrs.axes)]


@defgrad("_np_diag")
def _np_diag_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_diag")(out_grads[0], inputs[0], k=attrs.k, axis1=0, axis2=1)]


@defgrad("_np_diagonal")
def _np_diagonal_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_diag")(out_grads[0], inputs[0], k=attrs.offset, axis1=attrs.axis1,
                                          axis2=attrs.axis2)]


backward_op("_backward_np_diagflat", lambda a, og, x: np.diagonal(og, a.k).reshape(x.shape).astype(x.dtype),
            ("ograd", "data"), params=(Param("k", Int, 0),))


@defgrad("_np_diagflat")
def _diagflat_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_np_diagflat")(out_grads[0], inputs[0], k=attrs.k)]


def _backward_trace(attrs, og, x):
    """trace's backward: the output gradient on the traced diagonal of every matrix, zero elsewhere."""
    a1, a2 = attrs.axis1 % x.ndim, attrs.axis2 % x.ndim
    moved = np.moveaxis(np.zeros_like(x), (a1, a2), (-2, -1))
    n, m = moved.shape[-2:]
    k = attrs.offset
    rows = np.arange(max(0, -k), min(n, m - k))
    moved[..., rows, rows + k] = np.asarray(og)[..., None]
    return np.moveaxis(moved, (-2, -1), (a1, a2)).astype(x.dtype)


backward_op("_backward_np_trace", _backward_trace, ("ograd", "data"),
            params=(Param("offset", Int, 0), Param("axis1", Int, 0), Param("axis2", Int, 1)))


@defgrad("_np_trace")
def _trace_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_np_trace")(out_grads[0], inputs[0], offset=attrs.offset, axis1=attrs.axis1,
                                              axis2=attrs.axis2)]


def _backward_diff(attrs, og, x):
    """diff's adjoint, ``n`` times: each difference sends +g to its later and -g to its earlier element."""
    g = og.astype(np.float64)
    ax = attrs.axis % x.ndim
    for _ in range(attrs.n):
        pad = [(0, 0)] * g.ndim
        pad[ax] = (1, 1)
        g = -np.diff(np.pad(g, pad), axis=ax)
    return g.astype(x.dtype)


backward_op("_backward_npi_diff", _backward_diff, ("ograd", "a"), params=(Param("n", Int, 1), Param("axis", Int, -1)))


@defgrad("_npi_diff")
def _diff_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_npi_diff")(out_grads[0], inputs[0], n=attrs.n, axis=attrs.axis)]


def _backward_np_pad(attrs, og, x):
    """pad's adjoint: each output element's gradient added to the input element it copies (NumPy's modes
    by index maps; ``constant`` copies the interior only; ``maximum``/``minimum`` are not covered)."""
    width = attrs.pad_width if not isinstance(attrs.pad_width, str) else ast.literal_eval(attrs.pad_width)
    width = [tuple(int(v) for v in p) for p in width]
    if attrs.mode == "constant":
        return np.ascontiguousarray(og[tuple(slice(a, a + n) for n, (a, _) in zip(x.shape, width))])
    if attrs.mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise NotImplementedError(f"np.pad backward: mode {attrs.mode!r}")
    maps = [np.pad(np.arange(n), p, mode=attrs.mode) for n, p in zip(x.shape, width)]
    g = np.zeros(x.shape)
    np.add.at(g, np.ix_(*maps), og)
    return g.astype(x.dtype)


backward_op("_backward_npi_pad", _backward_np_pad, ("ograd", "data"), params=get_op("_npi_pad").params)


@defgrad("_npi_pad")
def _np_pad_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_npi_pad")(out_grads[0], inputs[0], **attrs.as_dict())]


def _backward_joined(attrs, og, *xs):
    """The joining ops' backward (concatenate, stack, vstack, hstack, dstack, column_stack): the output
    gradient cut back into each input's piece, in the input's shape and dtype."""
    kind = attrs.kind
    if kind == "concatenate" and attrs.axis is None:
        flat = og.reshape(-1)
        bounds = np.cumsum([0] + [x.size for x in xs])
        return tuple(flat[b:e].reshape(x.shape).astype(x.dtype) for x, b, e in zip(xs, bounds[:-1], bounds[1:]))
    if kind == "stack":
        ax = attrs.axis % og.ndim
        return tuple(np.take(og, i, axis=ax).reshape(x.shape).astype(x.dtype) for i, x in enumerate(xs))
    view = {"concatenate": lambda x: x, "vstack": np.atleast_2d, "dstack": np.atleast_3d,
            "hstack": lambda x: np.atleast_1d(x),
            "column_stack": lambda x: x.reshape(-1, 1) if x.ndim < 2 else x}[kind]
    shaped = [view(np.empty(x.shape, dtype=np.bool_)) for x in xs]
    ax = {"vstack": 0, "dstack": 2, "column_stack": 1}.get(kind)
    if kind == "concatenate":
        ax = attrs.axis % og.ndim
    elif kind == "hstack":
        ax = 0 if shaped[0].ndim == 1 else 1
    bounds = np.cumsum([0] + [s.shape[ax] for s in shaped])
    return tuple(np.take(og, np.arange(b, e), axis=ax).reshape(x.shape).astype(x.dtype)
                 for x, b, e in zip(xs, bounds[:-1], bounds[1:]))


register(OpDef(
    "_backward_np_concat", lambda a, og, *xs: (lambda r: r if len(xs) > 1 else r[0])(_backward_joined(a, og, *xs)),
    params=(Param("num_args", Int), Param("kind", Str, "concatenate"), Param("axis", IntOrNone, 0)),
    inputs=lambda a: ["ograd"] + [f"arg{i}" for i in range(a.num_args)], num_outputs=lambda a: a.num_args,
    infer_shape=lambda a, ss: (list(ss), list(ss[1:])),
    infer_type=lambda a, ds: [d or np.float32 for d in ds[1:]],
    doc="backward of NumPy's joining operators: the gradient cut back into the pieces."))


def _joined_rule(kind: str):
    def rule(F, attrs, inputs, outputs, out_grads):
        n = len(inputs)
        axis = attrs.get("axis", 0)
        g = internal(F, "_backward_np_concat")(out_grads[0], *inputs, num_args=n, kind=kind, axis=axis)
        return [g] if n == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(n)]
    return rule


for _kind in ("concatenate", "stack", "vstack", "hstack", "dstack", "column_stack"):
    defgrad(f"_npi_{_kind}")(_joined_rule(_kind))


# -- extended binary math (np_elemwise_broadcast_op_extended.cc, np_elemwise_broadcast_op.cc) -------------
def _binary_backward(slopes, int_zero: bool = False):
    """A backward kernel ``(og, a, b) -> (da, db)`` from the elementwise partial derivatives, each reduced
    back to its input's (broadcast) shape (zero for integer inputs with ``int_zero``: MXNet's mod)."""
    def run(attrs, og, a, b):
        if int_zero and a.dtype.kind in "iu" and b.dtype.kind in "iu":
            return np.zeros(a.shape, a.dtype), np.zeros(b.shape, b.dtype)
        a64, b64, g = a.astype(np.float64), b.astype(np.float64), og.astype(np.float64)
        with np.errstate(all="ignore"):
            da, db = slopes(a64, b64)
        from .tensor_shape import _sum_to
        return (_sum_to(g * da, a.shape).reshape(a.shape).astype(a.dtype),
                _sum_to(g * db, b.shape).reshape(b.shape).astype(b.dtype))
    return run


def _copysign_slope(a, b):
    return np.where((a >= 0) == (b >= 0), 1.0, -1.0)


_BINARY = {
    "arctan2": lambda a, b: (b / (a * a + b * b), -a / (a * a + b * b)),
    "hypot": lambda a, b: (a / np.hypot(a, b), b / np.hypot(a, b)),
    "copysign": lambda a, b: (_copysign_slope(a, b), 0 * b),
    "ldexp": lambda a, b: (np.power(2.0, b), a * np.power(2.0, b) * np.log(2.0)),
    "mod": lambda a, b: (np.ones_like(a * b), -np.floor(a / b)),
}
_BACKWARD_NAME = {"mod": "_backward_npi_broadcast_mod"}   # MXNet's names of these kernels
for _name, _slopes in _BINARY.items():
    backward_op(_BACKWARD_NAME.get(_name, f"_backward_npi_{_name}"), _binary_backward(_slopes, _name == "mod"),
                ("ograd", "lhs", "rhs"),
                like=(1, 2), num_outputs=2)

    @defgrad(f"_npi_{_name}")
    def _binary_grad(F, attrs, inputs, outputs, out_grads, _name=_name):
        g = internal(F, _BACKWARD_NAME.get(_name, f"_backward_npi_{_name}"))(out_grads[0], inputs[0], inputs[1])
        return [g[0], g[1]]


def _scalar_backward(slope):
    def run(attrs, og, x):
        with np.errstate(all="ignore"):
            s = slope(x.astype(np.float64), float(attrs.scalar))
        return (og.astype(np.float64) * s).astype(x.dtype)
    return run


_SCALAR_FORMS = {
    "_npi_arctan2_scalar": lambda x, s: s / (x * x + s * s),
    "_npi_rarctan2_scalar": lambda x, s: -s / (x * x + s * s),
    "_npi_copysign_scalar": lambda x, s: _copysign_slope(x, np.full_like(x, s)),
    "_npi_rcopysign_scalar": lambda x, s: 0 * x,
    "_npi_ldexp_scalar": lambda x, s: np.full_like(x, 2.0 ** s),
    "_npi_rldexp_scalar": lambda x, s: s * np.power(2.0, x) * np.log(2.0),
    "_npi_rmod_scalar": lambda x, s: -np.floor(s / x),
}
for _name, _slope in _SCALAR_FORMS.items():
    if get_op(_name).gradient is not None:
        continue
    _bw = "_backward_rmod_scalar" if _name == "_npi_rmod_scalar" else f"_backward{_name}"
    backward_op(_bw, _scalar_backward(_slope), ("ograd", "data"), params=get_op(_name).params)

    @defgrad(_name)
    def _scalar_grad(F, attrs, inputs, outputs, out_grads, _bw=_bw):
        return [internal(F, _bw)(out_grads[0], inputs[0], **attrs.as_dict())]


def _backward_nan_to_num(attrs, og, x):
    return np.where(np.isfinite(x), og, 0).astype(x.dtype)


backward_op("_npi_backward_nan_to_num", _backward_nan_to_num, ("ograd", "data"),
            params=get_op("_npi_nan_to_num").params)


@defgrad("_npi_nan_to_num")
def _nan_to_num_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_npi_backward_nan_to_num")(out_grads[0], inputs[0], **attrs.as_dict())]


@defgrad("_npi_where_lscalar")
def _where_lscalar_grad(F, attrs, inputs, outputs, out_grads):
    c, y = inputs   # out = where(c, scalar, y): y's gradient where the condition is false
    return [F.zeros_like(c), F.where(c, F.zeros_like(out_grads[0]), out_grads[0])]


@defgrad("_npi_where_rscalar")
def _where_rscalar_grad(F, attrs, inputs, outputs, out_grads):
    c, x = inputs   # out = where(c, x, scalar)
    return [F.zeros_like(c), F.where(c, out_grads[0], F.zeros_like(out_grads[0]))]


# -- products and linear algebra (np_tensordot_op.cc, np_einsum_op.cc, linalg/np_solve.cc, np_potrf.cc) ----
def _backward_tensordot(attrs, og, a, b):
    if "axes" in attrs.as_dict():
        k = attrs.axes
        ax_a, ax_b = tuple(range(a.ndim - k, a.ndim)), tuple(range(k))
    else:
        ax_a = tuple(i % a.ndim for i in attrs.a_axes_summed)
        ax_b = tuple(i % b.ndim for i in attrs.b_axes_summed)
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    g = og.astype(np.float64)
    na = len(free_a)
    # d a[free_a, ax_a] = sum over free_b of g[free_a, free_b] * b[ax_b, free_b]
    bt = np.transpose(b.astype(np.float64), list(ax_b) + free_b)
    da = np.tensordot(g, bt, axes=(list(range(na, g.ndim)), list(range(len(ax_b), bt.ndim))))
    da = np.transpose(da, np.argsort(free_a + list(ax_a)))
    at = np.transpose(a.astype(np.float64), free_a + list(ax_a))
    db = np.tensordot(at, g, axes=(list(range(na)), list(range(na))))
    db = np.transpose(db, np.argsort(list(ax_b) + free_b))
    return da.astype(a.dtype), db.astype(b.dtype)


for _name in ("_npi_tensordot", "_npi_tensordot_int_axes"):
    backward_op(f"_backward{_name}", _backward_tensordot, ("ograd", "a", "b"), like=(1, 2),
                num_outputs=2, params=get_op(_name).params)

    @defgrad(_name)
    def _tensordot_grad(F, attrs, inputs, outputs, out_grads, _name=_name):
        g = internal(F, f"_backward{_name}")(out_grads[0], *inputs, **attrs.as_dict())
        return [g[0], g[1]]


def _backward_solve(attrs, og, a, b, x):
    """X = A^-1 B: dB = A^-T dX, dA = -dB X^T (a vector B as a column)."""
    a64 = a.astype(np.float64)
    g = og.astype(np.float64)
    xs = x.astype(np.float64)
    vec = b.ndim == a.ndim - 1
    if vec:
        g, xs = g[..., None], xs[..., None]
    db = np.linalg.solve(np.swapaxes(a64, -1, -2), g)
    da = -np.matmul(db, np.swapaxes(xs, -1, -2))
    return da.astype(a.dtype), (db[..., 0] if vec else db).astype(b.dtype)


backward_op("_backward_npi_solve", _backward_solve, ("ograd", "A", "B", "X"), like=(1, 2), num_outputs=2)


@defgrad("_npi_solve")
def _solve_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_npi_solve")(out_grads[0], inputs[0], inputs[1], outputs[0])
    return [g[0], g[1]]


@defgrad("_npi_cholesky")
def _cholesky_grad(F, attrs, inputs, outputs, out_grads):
    """np.linalg.cholesky is potrf of the lower triangle (np_potrf.cc): potrf's backward."""
    return [internal(F, "_backward_linalg_potrf")(out_grads[0], inputs[0], outputs[0], lower=True)]


# -- reparameterized samplers (random/np_normal_op.cc, np_location_scale_op.cc, np_exponential_op.cc,
# np_rayleigh_op.cc, np_pareto_op.cc, np_weibull_op.cc): d sample / d parameter from the sample itself ------
def _sampler_backward(kind: str):
    def run(attrs, og, out, *params):
        g, o = og.astype(np.float64), out.astype(np.float64)
        names = [p for p in kind.split(",") if attrs.get(p) is None]
        vals = {p: (params[names.index(p)].astype(np.float64) if p in names else float(attrs.get(p)))
                for p in kind.split(",")}
        from .tensor_shape import _sum_to
        res = []
        for p, arr in zip(names, params):
            with np.errstate(all="ignore"):
                if p == "loc":          # sample = loc + scale * noise
                    d = g
                elif "loc" in vals:
                    d = g * (o - vals["loc"]) / vals["scale"]
                else:                   # sample = scale * noise
                    d = g * o / vals["scale"]
            res.append(_sum_to(d, arr.shape).reshape(arr.shape).astype(arr.dtype))
        return tuple(res) if len(res) > 1 else res[0]
    return run


def _shape_param_backward(pareto: bool):
    def run(attrs, og, out, a):
        g, o, av = og.astype(np.float64), out.astype(np.float64), a.astype(np.float64)
        from .tensor_shape import _sum_to
        with np.errstate(all="ignore"):
            base = o + 1.0 if pareto else o
            d = -g * base * np.log(base) / av
        return _sum_to(np.nan_to_num(d), a.shape).reshape(a.shape).astype(a.dtype)
    return run


def _register_sampler_grad(name: str, kind: str, kernel) -> None:
    op = get_op(name)
    register(OpDef(
        f"_backward_broadcast{name[len('_npi'):]}", kernel, params=op.params,
        inputs=lambda a, _op=op: ["ograd", "out"] + list(_op.input_names(a)),
        num_outputs=lambda a, _op=op: max(len(_op.input_names(a)), 1),
        infer_shape=lambda a, ss: (list(ss), list(ss[2:])),
        infer_type=lambda a, ds: [d or np.float32 for d in ds[2:]], doc=f"{name} backward (reparameterized)."))

    @defgrad(name)
    def rule(F, attrs, inputs, outputs, out_grads):
        if not inputs:
            return []
        g = internal(F, f"_backward_broadcast{name[len('_npi'):]}")(out_grads[0], outputs[0], *inputs,
                                                                      **attrs.as_dict())
        n = len(inputs)
        return [g] if n == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(n)]


for _name in ("_npi_normal", "_npi_gumbel", "_npi_logistic"):
    _register_sampler_grad(_name, "loc,scale", _sampler_backward("loc,scale"))
for _name in ("_npi_exponential", "_npi_rayleigh"):
    _register_sampler_grad(_name, "scale", _sampler_backward("scale"))
_register_sampler_grad("_npi_pareto", "a", _shape_param_backward(True))
_register_sampler_grad("_npi_weibull", "a", _shape_param_backward(False))
if get_op("_npi_normal_n").gradient is None:
    defgrad("_npi_normal_n")(get_op("_npi_normal").gradient)


# -- prod (np_broadcast_reduce_op_value.cc, ReduceGrad{"_backward_np_prod"}: og * out / x) ----------------
def _backward_np_prod(attrs, og, out, a):
    axes = numpy_ops._axes(attrs.axis, a.ndim)
    axes = tuple(range(a.ndim)) if axes is None else axes
    keep = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
    with np.errstate(all="ignore"):
        g = og.astype(np.float64).reshape(keep) * out.astype(np.float64).reshape(keep) / a.astype(np.float64)
    return g.astype(a.dtype)


backward_op("_backward_np_prod", _backward_np_prod, ("ograd", "out", "a"), like=2, params=get_op("_np_prod").params)


@defgrad("_np_prod")
def _np_prod_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_np_prod")(out_grads[0], outputs[0], inputs[0], **attrs.as_dict())]
