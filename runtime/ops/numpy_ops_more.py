"""MXNet 1.9.1's np operators for the functions NumPy also has but MXNet computes in its own operator
(``src/operator/numpy/np_delete_op.cc``, ``np_insert_op_*.cc``, ``np_unique_op.cc``,
``np_bincount_op.cc``, ``np_percentile_op.cc``, ``np_polynomial_op.cc``, ``np_ediff1d_op.cc``,
``np_matrix_op.cc``'s ``hsplit``/``diag_indices_from``, ``np_moments_op.cc``'s ``average``,
``np_constraint_check.cc``) and the two Python fallback operators MXNet registers
(``numpy_op_fallback.py``: ``resize_fallback``, ``unravel_index_fallback``, ``mvn_fallback``). Being operators, they run
imperatively (recorded by autograd) and in graphs (``F.np.unique`` in a hybridized block), as MXNet's.
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError
from . import numpy_ops  # noqa: F401  (registered first: this module's rules use its kernels)
from ._grad import backward_op, internal
from ._npcompat import broadcast_shapes, percentile
from .attrs import Bool, FloatOrNone, Int, IntOrNone, Param, Shape, ShapeOrNone, Str
from .registry import ZERO_GRAD, OpDef, defgrad, get_op, register

_I64 = np.dtype(np.int64)


def _axis_or_flat(x: np.ndarray, axis: int | None) -> tuple[np.ndarray, int]:
    return (x.reshape(-1), 0) if axis is None else (x, axis % max(x.ndim, 1))


# -- delete / insert (no FGradient in MXNet 1.9.1) ---------------------------------------------------------
def _delete(attrs, arr, *obj):
    """_npi_delete: ``arr`` without the entries ``obj`` names along ``axis`` (flattened when None): a
    slice (start/stop/step), one index (``int_ind``) or an index tensor, whose out-of-range entries
    MXNet ignores."""
    x, ax = _axis_or_flat(arr, attrs.axis)
    n = x.shape[ax] if x.ndim else 0
    if obj:
        idx = np.asarray(obj[0]).reshape(-1).astype(np.int64)
        idx = idx[(idx >= 0) & (idx < n)]
    elif attrs.int_ind is not None:
        if not -n <= attrs.int_ind < n:
            raise IndexError(f"index {attrs.int_ind} is out of bounds for axis {ax} with size {n}")
        idx = np.array([attrs.int_ind % n])
    else:
        idx = np.arange(n)[slice(attrs.start, attrs.stop, attrs.step)]
    return np.delete(x, idx, axis=ax)


register(OpDef("_npi_delete", _delete,
               inputs=lambda a: ["arr"] + (["obj"] if a.start is None and a.stop is None and a.int_ind is None
                                           else []),
               params=(Param("start", IntOrNone, None), Param("stop", IntOrNone, None), Param("step", IntOrNone, None),
                       Param("int_ind", IntOrNone, None), Param("axis", IntOrNone, None)),
               infer_type=lambda a, d: [d[0] or np.float32]))


def _insert(kind: str):
    def compute(attrs, arr, *rest):
        rest = list(rest)
        values = rest.pop(0) if attrs.val is None else np.asarray(attrs.val)
        x, ax = _axis_or_flat(arr, attrs.axis)
        if kind == "tensor":
            obj = np.asarray(rest[0]).astype(np.int64)
        elif kind == "scalar":
            obj = attrs.int_ind
        else:
            obj = slice(attrs.start, attrs.stop, attrs.step)
        return np.insert(x, obj, np.asarray(values).astype(arr.dtype), axis=ax)
    compute.__doc__ = f"_npi_insert_{kind}: NumPy's insert (the values cast to ``arr``'s dtype)."
    return compute


_INSERT_COMMON = (Param("val", FloatOrNone, None), Param("axis", IntOrNone, None))
register(OpDef("_npi_insert_scalar", _insert("scalar"),
               inputs=lambda a: ["arr"] + (["values"] if a.val is None else []),
               params=_INSERT_COMMON + (Param("int_ind", Int),), infer_type=lambda a, d: [d[0] or np.float32]))
register(OpDef("_npi_insert_slice", _insert("slice"),
               inputs=lambda a: ["arr"] + (["values"] if a.val is None else []),
               params=_INSERT_COMMON + (Param("start", IntOrNone, None), Param("stop", IntOrNone, None),
                                        Param("step", IntOrNone, None)),
               infer_type=lambda a, d: [d[0] or np.float32]))
register(OpDef("_npi_insert_tensor", _insert("tensor"),
               inputs=lambda a: ["arr"] + (["values"] if a.val is None else []) + ["obj"],
               params=_INSERT_COMMON, infer_type=lambda a, d: [d[0] or np.float32]))


# -- unique, bincount, percentile, diag_indices_from, constraint_check (MakeZeroGradNodes) --------------------
def _unique_n(attrs) -> int:
    return 1 + int(attrs.return_index) + int(attrs.return_inverse) + int(attrs.return_counts)


def _unique(attrs, x):
    """_npi_unique: the sorted unique values (of the flattened array, or of slices along ``axis``),
    with the requested int64 indices, inverse and counts."""
    res = np.unique(x, return_index=attrs.return_index, return_inverse=attrs.return_inverse,
                    return_counts=attrs.return_counts, axis=attrs.axis)
    if not isinstance(res, tuple):
        return res
    out = [res[0]] + [np.asarray(r).reshape(-1).astype(np.int64) for r in res[1:]]
    return tuple(out) if len(out) > 1 else out[0]


register(OpDef("_npi_unique", _unique, inputs=("data",), num_outputs=_unique_n,
               params=(Param("return_index", Bool, False), Param("return_inverse", Bool, False),
                       Param("return_counts", Bool, False), Param("axis", IntOrNone, None)),
               infer_type=lambda a, d: [d[0] or np.float32] + [_I64] * (_unique_n(a) - 1), gradient=ZERO_GRAD))


def _bincount(attrs, x, *weights):
    """_npi_bincount: occurrences of each value of ``x`` (its dtype; the weights' sums and dtype when given)."""
    if x.size and x.min() < 0:
        raise MXNetError("Check failed: input data should be non-negative (np.bincount)")
    w = weights[0] if attrs.has_weights else None
    out = np.bincount(x.reshape(-1).astype(np.int64), None if w is None else w.reshape(-1), attrs.minlength)
    return out.astype(w.dtype if w is not None else x.dtype)


register(OpDef("_npi_bincount", _bincount,
               inputs=lambda a: ["data"] + (["weights"] if a.has_weights else []),
               params=(Param("minlength", Int, 0), Param("has_weights", Bool, False)),
               infer_type=lambda a, d: [(d[1] if a.has_weights else d[0]) or np.float32], gradient=ZERO_GRAD))


def _percentile(attrs, a, *q):
    """_npi_percentile: NumPy's percentile (``q`` a tensor or ``q_scalar``); float64 stays float64,
    anything else gives float32."""
    qv = np.asarray(q[0], dtype=np.float64) if q else attrs.q_scalar
    axis = attrs.axis if attrs.axis is None or len(attrs.axis) != 1 else attrs.axis[0]
    axis = None if axis is None else (tuple(axis) if isinstance(axis, tuple) else axis)
    res = percentile(a.astype(np.float64), qv, axis=axis, method=attrs.interpolation, keepdims=attrs.keepdims)
    return np.asarray(res).astype(np.float64 if a.dtype == np.float64 else np.float32)


register(OpDef("_npi_percentile", _percentile,
               inputs=lambda a: ["a"] + (["q"] if a.q_scalar is None else []),
               params=(Param("axis", ShapeOrNone, None),
                       Param("interpolation", Str, "linear"), Param("keepdims", Bool, False),
                       Param("q_scalar", FloatOrNone, None)),
               infer_type=lambda a, d: [np.dtype(np.float64) if d[0] == np.float64 else np.dtype(np.float32)],
               gradient=ZERO_GRAD))


def _diag_indices_from(attrs, x):
    """_npi_diag_indices_from: the indices of the main diagonal, one row per dimension (int64)."""
    if x.ndim < 2 or len(set(x.shape)) != 1:
        raise MXNetError("Check failed: all dimensions of the input must be of equal length "
                         "(np.diag_indices_from)")
    return np.tile(np.arange(x.shape[0], dtype=np.int64), (x.ndim, 1))


register(OpDef("_npi_diag_indices_from", _diag_indices_from, inputs=("data",),
               infer_type=lambda a, d: [_I64], gradient=ZERO_GRAD))


def _constraint_check(attrs, x):
    """_npx_constraint_check: True (a bool scalar) when every element holds; a ValueError with ``msg``
    otherwise (MXNet 1.9.1 requires a bool input)."""
    if x.dtype != np.bool_:
        raise MXNetError("Check failed: in_attrs->at(0) == mshadow::kBool: Constraint violation: the input "
                         "must be a bool tensor")
    if not x.all():
        raise ValueError(f"Check failed: red_output == true (0 vs. 1) : {attrs.msg}")
    return np.array(True)


register(OpDef("_npx_constraint_check", _constraint_check, inputs=("input",),
               infer_shape=lambda a, ss: (list(ss), [()]),
               params=(Param("msg", Str, "Constraint violated."),),
               infer_type=lambda a, d: [np.dtype(np.bool_)], gradient=ZERO_GRAD))


# -- polyval, ediff1d, average, hsplit (with MXNet's backward kernels) --------------------------------------
def _polyval(attrs, p, x):
    """_npi_polyval: the polynomial with coefficients ``p`` (highest power first) at ``x``."""
    res = np.zeros(x.shape, np.float64)
    for c in p.astype(np.float64):
        res = res * x + c
    return res.astype(np.result_type(p.dtype, x.dtype))


register(OpDef("_npi_polyval", _polyval, inputs=("p", "x"),
               infer_type=lambda a, d: [np.result_type(d[0] or np.float32, d[1] or np.float32)]))


def _backward_polyval(attrs, og, p, x):
    """dp_i = sum(og * x^(n-1-i)), dx = og * p'(x)."""
    g, xs, ps = og.astype(np.float64), x.astype(np.float64), p.astype(np.float64)
    n = ps.shape[0]
    powers = np.stack([xs ** (n - 1 - i) for i in range(n)]) if n else np.zeros((0,) + xs.shape)
    dp = (powers * g).reshape(n, -1).sum(axis=1)
    deriv = np.zeros(xs.shape)
    for i, c in enumerate(ps[:-1]):
        deriv = deriv + c * (n - 1 - i) * xs ** (n - 2 - i)
    return dp.astype(p.dtype), (g * deriv).astype(x.dtype)


backward_op("_npi_backward_polyval", _backward_polyval, ("ograd", "p", "x"), like=(1, 2), num_outputs=2)


@defgrad("_npi_polyval")
def _polyval_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_npi_backward_polyval")(out_grads[0], inputs[0], inputs[1])
    return [g[0], g[1]]


def _ediff1d_inputs(attrs):
    return ["input1"] + (["input2"] if attrs.to_begin_arr_given else []) + \
        (["input3"] if attrs.to_end_arr_given else [])


def _ediff1d(attrs, x, *rest):
    """_npi_ediff1d: differences of the flattened array, ``to_begin`` / ``to_end`` (tensors or numbers)
    around them, in ``x``'s dtype."""
    rest = list(rest)
    begin = rest.pop(0) if attrs.to_begin_arr_given else attrs.to_begin_scalar
    end = rest.pop(0) if attrs.to_end_arr_given else attrs.to_end_scalar
    flat = x.reshape(-1)
    parts = [] if begin is None else [np.asarray(begin).reshape(-1).astype(x.dtype)]
    parts.append((flat[1:] - flat[:-1]).astype(x.dtype))
    if end is not None:
        parts.append(np.asarray(end).reshape(-1).astype(x.dtype))
    return np.concatenate(parts)


register(OpDef("_npi_ediff1d", _ediff1d, inputs=_ediff1d_inputs,
               params=(Param("to_begin_arr_given", Bool, False), Param("to_end_arr_given", Bool, False),
                       Param("to_begin_scalar", FloatOrNone, None), Param("to_end_scalar", FloatOrNone, None)),
               infer_type=lambda a, d: [d[0] or np.float32]))


def _backward_ediff1d(attrs, og, x, *rest):
    """ediff1d's backward (np_ediff1d_op.cc): d x_i = g_{i-1} - g_i over the differences; the
    to_begin/to_end tensors get their slice of the output gradient."""
    rest = list(rest)
    g = og.astype(np.float64)
    nb, rest_begin = 0, None
    if attrs.to_begin_arr_given:
        rest_begin = rest.pop(0)
        nb = rest_begin.size
    elif attrs.to_begin_scalar is not None:
        nb = 1
    n = x.size
    d = g[nb:nb + max(n - 1, 0)]
    gx = np.zeros(n)
    if n > 1:
        gx[1:] += d
        gx[:-1] -= d
    outs = [gx.reshape(x.shape).astype(x.dtype)]
    if attrs.to_begin_arr_given:
        begin = rest_begin
        outs.append(g[:nb].reshape(begin.shape).astype(begin.dtype))
    if attrs.to_end_arr_given:
        end = rest.pop(0)
        outs.append(g[g.size - end.size:].reshape(end.shape).astype(end.dtype))
    return tuple(outs) if len(outs) > 1 else outs[0]


register(OpDef("_npi_backward_ediff1d", _backward_ediff1d, params=get_op("_npi_ediff1d").params,
               inputs=lambda a: ["ograd"] + _ediff1d_inputs(a), num_outputs=lambda a: len(_ediff1d_inputs(a)),
               infer_shape=lambda a, ss: (list(ss), list(ss[1:])),
               infer_type=lambda a, ds: [d or np.float32 for d in ds[1:]], doc="ediff1d backward."))


@defgrad("_npi_ediff1d")
def _ediff1d_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_npi_backward_ediff1d")(out_grads[0], *inputs, **attrs.as_dict())
    return [g] if len(inputs) == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(len(inputs))]


def _average_parts(attrs, a, w):
    axis = None if attrs.axis is None else tuple(ax % a.ndim for ax in attrs.axis)
    if w is None:
        avg = np.mean(a, axis=axis)
        return avg, np.asarray(a.size / max(np.asarray(avg).size, 1)), axis
    wb = w
    if w.ndim != a.ndim:   # a 1-D weight along the one averaged axis
        shape = [1] * a.ndim
        shape[axis[0]] = -1
        wb = w.reshape(shape)
    # MXNet sums a 1-D weight once (a 0-d sum), a full-shape weight over ``axis``
    wsum = np.sum(w) if w.ndim != a.ndim else np.sum(np.broadcast_to(wb, a.shape), axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):   # zero weights: NaN, as MXNet
        return np.sum(a * wb, axis=axis) / wsum, wsum, axis


def _average(attrs, a, *w):
    """_npi_average: the (weighted) mean over ``axis``; with ``returned`` the sum of the weights too."""
    if a.dtype.kind in "iub":
        avg, wsum, _ = _average_parts(attrs, a.astype(np.float64), w[0].astype(np.float64) if w else None)
        avg = np.asarray(avg).astype(a.dtype)
    else:
        avg, wsum, _ = _average_parts(attrs, a, w[0] if w else None)
    dt = a.dtype
    avg = np.asarray(avg).astype(dt)
    return (avg, np.asarray(wsum).astype(dt)) if attrs.returned else avg


register(OpDef("_npi_average", _average, inputs=lambda a: ["a"] + (["weights"] if a.weighted else []),
               num_outputs=lambda a: 2 if a.returned else 1,
               params=(Param("axis", ShapeOrNone, None), Param("returned", Bool, False),
                       Param("weighted", Bool, True)),
               infer_type=lambda a, d: [d[0] or np.float32] * (2 if a.returned else 1)))


def _backward_average(attrs, og, *rest):
    """average's backward (np_moments_op.cc ``_backward_np_average``): da = og * w / sum(w) (1 / count
    unweighted), dw = og * (a - avg) / sum(w); the gradient of the weights' sum is not propagated."""
    a = rest[0]
    w = rest[1] if attrs.weighted else None
    a64 = a.astype(np.float64)
    avg, wsum, axis = _average_parts(attrs, a64, None if w is None else w.astype(np.float64))
    keep = tuple(1 if axis is None or i in axis else d for i, d in enumerate(a.shape))
    g = og.astype(np.float64).reshape(keep)
    if w is None:
        return (np.broadcast_to(g / float(wsum), a.shape)).astype(a.dtype)
    wb = w.astype(np.float64)
    if w.ndim != a.ndim:
        shape = [1] * a.ndim
        shape[axis[0]] = -1
        wb = wb.reshape(shape)
    wsum_k = np.asarray(wsum).reshape(keep) if np.ndim(wsum) else np.asarray(wsum)
    avg_k = np.asarray(avg).reshape(keep)
    da = np.broadcast_to(g * wb / wsum_k, a.shape)
    dw = g * (a64 - avg_k) / wsum_k
    from .tensor_shape import _sum_to
    dw = _sum_to(np.broadcast_to(dw, a.shape), wb.shape).reshape(w.shape)
    return da.astype(a.dtype), dw.astype(w.dtype)


register(OpDef("_backward_np_average", _backward_average, params=get_op("_npi_average").params,
               inputs=lambda a: ["ograd", "a"] + (["weights"] if a.weighted else []),
               num_outputs=lambda a: 2 if a.weighted else 1,
               infer_shape=lambda a, ss: (list(ss), list(ss[1:])),
               infer_type=lambda a, ds: [d or np.float32 for d in ds[1:]], doc="average backward."))


@defgrad("_npi_average")
def _average_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_np_average")(out_grads[0], *inputs, **attrs.as_dict())
    return [g] if len(inputs) == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(len(inputs))]


def _hsplit_attrs(attrs, ndim):
    return type(attrs)({**attrs.as_dict(), "axis": 1 if ndim > 1 else 0})


def _hsplit(attrs, x):
    """_npi_hsplit: split_v2 along axis 1 (axis 0 for a 1-D array)."""
    if x.ndim < 1:
        raise MXNetError("Check failed: hsplit only works on arrays of 1 or more dimensions")
    return get_op("_split_v2").compute(_hsplit_attrs(attrs, x.ndim), x)


register(OpDef("_npi_hsplit", _hsplit, inputs=("data",), params=get_op("_split_v2").params,
               num_outputs=get_op("_split_v2").num_outputs,
               infer_shape=lambda a, ss: (lambda op: op.infer_shape(_hsplit_attrs(a, len(ss[0])), ss))(get_op("_split_v2"))
               if ss[0] is not None else (list(ss), [None] * get_op("_split_v2").n_outputs(a))))


def _hsplit_backward(attrs, *args):
    *ograds, x = args
    ax = 1 if x.ndim > 1 else 0
    return np.concatenate(ograds, axis=ax).astype(x.dtype) if len(ograds) > 1 else ograds[0].astype(x.dtype)


register(OpDef("_npi_hsplit_backward", _hsplit_backward, params=(Param("num_args", Int),),
               inputs=lambda a: [f"ograd{i}" for i in range(a.num_args)] + ["data"],
               infer_shape=lambda a, ss: (list(ss), [ss[-1]]), infer_type=lambda a, ds: [ds[-1] or np.float32],
               doc="hsplit backward: the output gradients joined back."))


@defgrad("_npi_hsplit")
def _hsplit_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_npi_hsplit_backward")(*out_grads, inputs[0], num_args=len(out_grads))]


# -- MXNet's Python fallback operators (numpy_op_fallback.py: a backward raises NotImplementedError) ---------
def _no_gradient(what: str):
    def rule(F, attrs, inputs, outputs, out_grads):
        raise NotImplementedError(f"Operator {what} does not support gradient computation")
    return rule


def _resize(attrs, a):
    """_npi_resize_fallback: NumPy's resize (the data repeated into ``new_shape``; zeros for an empty array)."""
    return np.resize(a, attrs.new_shape) if a.size else np.zeros(attrs.new_shape, a.dtype)


register(OpDef("_npi_resize_fallback", _resize, inputs=("a",), params=(Param("new_shape", Shape),),
               gradient=_no_gradient("resize")))


def _unravel_index(attrs, idx):
    """_npi_unravel_index_fallback: NumPy's unravel_index, stacked (one row per dimension, ``idx``'s dtype)."""
    if idx.dtype.kind not in "iu":
        raise MXNetError("TypeError: only int indices permitted (MXNet's fallback operator failed)")
    return np.stack(np.unravel_index(idx, attrs.shape)).astype(idx.dtype)


register(OpDef("_npi_unravel_index_fallback", _unravel_index, inputs=("indices",), params=(Param("shape", Shape),),
               infer_shape=lambda a, ss: (list(ss), [None if ss[0] is None else (len(a.shape),) + tuple(ss[0])]),
               infer_type=lambda a, d: [d[0] or np.int64],
               gradient=_no_gradient("Unravel_index")))


def _mvn(attrs, mean, cov):
    """_npi_mvn_fallback: MXNet's multivariate normal, ``mean + einsum('...jk,...j->...k', L, z)`` with
    ``L`` the Cholesky factor of ``cov`` (of float16 through float32) and ``z`` standard normal noise of
    the output's shape in ``mean``'s dtype."""
    scale = np.linalg.cholesky(cov.astype(np.float32)).astype(np.float16) if cov.dtype == np.float16 \
        else np.linalg.cholesky(cov)
    shape = _mvn_shape(attrs, mean.shape, cov.shape)
    noise = numpy_ops._rng().normal(0.0, 1.0, shape).astype(mean.dtype)
    return (mean + np.einsum("...jk,...j->...k", scale, noise)).astype(mean.dtype, copy=False)


def _mvn_shape(attrs, mean_shape: tuple, cov_shape: tuple) -> tuple:
    """``size + broadcast(mean.shape, cov.shape[:-1])``, with the fallback operator's ValueErrors."""
    if len(mean_shape) < 1:
        raise ValueError("mean must be at least 1 dimensional")
    if len(cov_shape) < 2:
        raise ValueError("cov must be at least 2 dimensional")
    if cov_shape[-1] != cov_shape[-2]:
        raise ValueError("the last two dimentions of the parameter cov have to be the same,"
                         " whereas the shape of cov is {}".format(tuple(cov_shape)))
    if cov_shape[-1] != mean_shape[-1]:
        raise ValueError("mean and cov must have same length.The shape of mean is {} but the shape of cov is {}"
                         .format(tuple(mean_shape[-1:]), tuple(cov_shape[-2:])))
    out = tuple(broadcast_shapes(tuple(mean_shape), tuple(cov_shape[:-1])))
    return (tuple(attrs.size) if attrs.size is not None else ()) + out


def _mvn_infer_shape(attrs, in_shapes):
    from ._util import known
    if len(in_shapes) < 2 or not all(s is not None and known(s) for s in in_shapes[:2]):
        return list(in_shapes), [None]
    return list(in_shapes), [_mvn_shape(attrs, tuple(in_shapes[0]), tuple(in_shapes[1]))]


register(OpDef("_npi_mvn_fallback", _mvn, inputs=("mean", "cov"), params=(Param("size", ShapeOrNone, None),),
               infer_shape=_mvn_infer_shape, infer_type=lambda a, d: [d[0]], traits=("random",),
               gradient=_no_gradient("random.multivariate_normal")))
