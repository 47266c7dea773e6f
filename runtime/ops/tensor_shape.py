"""Shape and layout operators: Reshape (every MXNet code), Flatten, transpose, Concat, split, slice, ...

Kernels return views where numpy allows (reshape, transpose, slicing): arrays are never mutated
in place by the runtime, so sharing memory is safe and saves a copy per node.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._util import OptIntTuple, dim_known, known, norm_axis, prod, shape_fn, unknown_dim
from .attrs import Axis, Bool, Float, Int, IntOrNone, Param, Shape, ShapeOrNone, Str
from .registry import ZERO_GRAD, OpDef, defgrad, get_op, register

__all__ = ["infer_reshape"]


# -- Reshape ----------------------------------------------------------------------------------------
def infer_reshape(shape: tuple, dshape: tuple, reverse: bool = False) -> tuple:
    """MXNet's ``Reshape`` shape rule (codes 0, -1, -2, -3, -4; ``reverse`` matches from the right).

    Unknown input dimensions are 0; an output dimension that cannot be known is 0 too.
    """
    params = list(shape)
    dvec = list(dshape)
    if reverse:
        params.reverse()
        dvec.reverse()
    tmp: list[int] = []
    src = 0
    inf_idx = -1
    i = 0
    n = len(params)
    dlen = len(dvec)
    while i < n:
        p = params[i]
        if p == 0:
            if src >= dlen:
                raise ShapeError(f"Reshape: code 0 at position {i} has no matching input dimension "
                                 f"(shape={tuple(shape)}, input {tuple(dshape)})")
            tmp.append(dvec[src])
            src += 1
        elif p == -1:
            if inf_idx >= 0:
                raise ShapeError(f"Reshape: one and only one dim can be inferred (shape={tuple(shape)})")
            inf_idx = len(tmp)
            tmp.append(1)
            src += 1
        elif p == -2:
            while src < dlen:
                tmp.append(dvec[src])
                src += 1
        elif p == -3:
            if src >= dlen - 1:
                raise ShapeError(f"Reshape: code -3 needs two input dimensions (shape={tuple(shape)}, "
                                 f"input {tuple(dshape)})")
            d1, d2 = dvec[src], dvec[src + 1]
            src += 2
            tmp.append(d1 * d2)
        elif p == -4:
            if i + 2 >= n or src >= dlen:
                raise ShapeError(f"Reshape: code -4 needs two following values (shape={tuple(shape)})")
            d0 = dvec[src]
            src += 1
            d1, d2 = params[i + 1], params[i + 2]
            i += 2
            if d1 == -1 and d2 == -1:
                raise ShapeError("Reshape: split dims cannot both be -1")
            if d0:
                if d1 == -1:
                    d1 = d0 // d2
                if d2 == -1:
                    d2 = d0 // d1
                if d1 * d2 != d0:
                    raise ShapeError(f"Reshape: split dims {d1}, {d2} do not divide original dim {d0}")
            else:
                d1, d2 = max(d1, 0), max(d2, 0)
            tmp.append(d1)
            tmp.append(d2)
        elif p > 0:
            tmp.append(p)
            src += 1
        else:
            raise ShapeError(f"Reshape: invalid shape code {p} in {tuple(shape)}")
        i += 1
    if inf_idx >= 0:
        if known(dshape) and all(d > 0 for j, d in enumerate(tmp) if j != inf_idx):
            rest = prod(d for j, d in enumerate(tmp) if j != inf_idx)
            total = prod(dshape)
            if rest == 0 or total % rest:
                raise ShapeError(f"Reshape: cannot reshape {tuple(dshape)} into {tuple(shape)}")
            tmp[inf_idx] = total // rest
        else:
            tmp[inf_idx] = 0
    if reverse:
        tmp.reverse()
    out = tuple(int(d) for d in tmp)
    if known(dshape) and known(out) and prod(out) != prod(dshape):
        raise ShapeError(f"Reshape: cannot reshape array of shape {tuple(dshape)} into shape "
                         f"{tuple(shape)} (-> {out})")
    return out


def _reshape_target(attrs, dshape):
    if attrs.shape:
        return infer_reshape(attrs.shape, dshape, attrs.reverse)
    if attrs.target_shape:
        out = list(attrs.target_shape)
        start = 1 if attrs.keep_highest else 0
        if attrs.keep_highest:
            out[0] = dshape[0]
        zeros = [j for j in range(start, len(out)) if out[j] == 0]
        if len(zeros) == 1 and known(dshape):
            out[zeros[0]] = 1
            out[zeros[0]] = prod(dshape) // prod(out)
        return tuple(out)
    raise ShapeError("Reshape: no target shape given (pass shape=...)")


def _reshape_shape(attrs, in_shapes):
    (s,) = in_shapes
    if s is None:
        return list(in_shapes), [None]
    out = _reshape_target(attrs, tuple(s))
    if known(out) and not known(s):
        # MXNet's ReverseReshapeInferShape: one unknown input dimension follows from the output size
        unknown = [i for i, d in enumerate(s) if not d]
        if len(unknown) == 1:
            rest = prod(d for d in s if d)
            full = list(s)
            full[unknown[0]] = prod(out) // rest
            return [tuple(full)], [out]
    return list(in_shapes), [out]


def _reshape_shape_backward(attrs, in_shapes, out_shapes):
    """An output size known from a consumer fixes the input's one unknown dimension (MXNet's
    ReverseReshapeInferShape): ``w.reshape(-1)`` of a deferred ``(40, 0)`` weight is ``(240,)`` once
    ``_rnn_param_concat`` knows its share, so ``w`` is ``(40, 6)``."""
    (s,), out = in_shapes, out_shapes[0]
    if s is None or out is None or not known(out) or known(s):
        return list(in_shapes)
    unknown = [i for i, d in enumerate(s) if not d]
    rest = prod(d for d in s if d)
    if len(unknown) != 1 or rest == 0 or prod(out) % rest:
        return list(in_shapes)
    full = list(s)
    full[unknown[0]] = prod(out) // rest
    return [tuple(full)]


def _reshape(attrs, x):
    """Reshape: MXNet's special codes 0 (copy), -1 (infer), -2 (copy rest), -3 (merge two), -4 (split one)."""
    return x.reshape(_reshape_target(attrs, x.shape))


register(OpDef("Reshape", _reshape,
               params=(Param("shape", Shape, ()), Param("reverse", Bool, False),
                       Param("target_shape", Shape, ()), Param("keep_highest", Bool, False)),
               infer_shape=_reshape_shape, infer_shape_backward=_reshape_shape_backward, aliases=("reshape",),
               fluent=True, traits=("shape_only",)))


def _reshape_like_target(attrs, lshape, rshape):
    ln, rn = len(lshape), len(rshape)

    def rng(b, e, n):
        b = 0 if b is None else (b + n if b < 0 else b)
        e = n if e is None else (e + n if e < 0 else e)
        if not 0 <= b <= e <= n:
            raise ShapeError(f"reshape_like: invalid axis range [{b}, {e}) for {n} dimensions")
        return b, e
    lb, le = rng(attrs.lhs_begin, attrs.lhs_end, ln)
    rb, re_ = rng(attrs.rhs_begin, attrs.rhs_end, rn)
    out = tuple(lshape[:lb]) + tuple(rshape[rb:re_]) + tuple(lshape[le:])
    if known(lshape) and known(out) and prod(out) != prod(lshape):
        raise ShapeError(f"reshape_like: cannot reshape {tuple(lshape)} into {out}")
    return out


def _reshape_like(attrs, lhs, rhs):
    """reshape_like: lhs reshaped to rhs's shape (or to a range of its dimensions)."""
    return lhs.reshape(_reshape_like_target(attrs, lhs.shape, rhs.shape))


register(OpDef("reshape_like", _reshape_like, inputs=("lhs", "rhs"),
               params=(Param("lhs_begin", IntOrNone, None), Param("lhs_end", IntOrNone, None),
                       Param("rhs_begin", IntOrNone, None), Param("rhs_end", IntOrNone, None)),
               infer_shape=shape_fn(lambda a, l, r: _reshape_like_target(a, l, r)), fluent=True,
               traits=("shape_only",)))


def _flatten_shape(attrs, in_shapes):
    (s,) = in_shapes
    if s is None:
        return list(in_shapes), [None]
    if len(s) == 0:
        return list(in_shapes), [(1, 1)]
    rest = tuple(s[1:])
    return list(in_shapes), [(s[0], prod(rest) if known(rest) else 0)]


def _flatten(attrs, x):
    """Flatten: (d0, d1, ..., dn) -> (d0, d1 * ... * dn)."""
    if x.ndim == 0:
        return x.reshape(1, 1)
    return x.reshape(x.shape[0], prod(x.shape[1:]))


register(OpDef("Flatten", _flatten, infer_shape=_flatten_shape, aliases=("flatten",), fluent=True,
               traits=("shape_only",)))


# -- axes permutations -------------------------------------------------------------------------------
def _transpose_axes(attrs, ndim):
    if not attrs.axes:
        return tuple(reversed(range(ndim)))
    if len(attrs.axes) != ndim:
        raise ShapeError(f"transpose: axes {attrs.axes} do not match an input with {ndim} dimensions")
    return tuple(norm_axis(a, ndim) for a in attrs.axes)


def _transpose(attrs, x):
    """transpose: permute dimensions (reversed when ``axes`` is empty)."""
    return np.transpose(x, _transpose_axes(attrs, x.ndim))


def _transpose_shape(attrs, in_shapes):
    (s,) = in_shapes
    if s is None:
        return list(in_shapes), [None]
    ax = _transpose_axes(attrs, len(s))
    return list(in_shapes), [tuple(s[a] for a in ax)]


def _transpose_shape_backward(attrs, in_shapes, out_shapes):
    """MXNet's TransposeShape runs both ways: input dimension ``axes[i]`` is output dimension ``i``."""
    (_,), out = in_shapes, out_shapes[0]
    if out is None or not len(out):
        return list(in_shapes)
    ax = _transpose_axes(attrs, len(out))
    back = [0] * len(out)
    for i, a in enumerate(ax):
        back[a] = out[i]
    return [tuple(back)]


register(OpDef("transpose", _transpose, params=(Param("axes", Shape, ()),), infer_shape=_transpose_shape,
               infer_shape_backward=_transpose_shape_backward, fluent=True, traits=("identity",),
               # no-op: the identity permutation (no axes = reversed: a no-op only up to 1-D)
               identity_if=lambda a, training, s: tuple(a.axes) == tuple(range(len(s))) if a.axes else len(s) <= 1))


def _swap_shape(attrs, s):
    d1, d2 = norm_axis(attrs.dim1, len(s)), norm_axis(attrs.dim2, len(s))
    out = list(s)
    out[d1], out[d2] = out[d2], out[d1]
    return tuple(out)


register(OpDef("SwapAxis", lambda a, x: np.swapaxes(x, norm_axis(a.dim1, x.ndim), norm_axis(a.dim2, x.ndim)),
               params=(Param("dim1", Int, 0), Param("dim2", Int, 0)), aliases=("swapaxes",),
               infer_shape=lambda a, ss: (list(ss), [None if ss[0] is None else _swap_shape(a, ss[0])]),
               fluent=True, doc="SwapAxis: interchange two axes.", traits=("identity",),
               identity_if=lambda a, training, s: a.dim1 == a.dim2))


def _expand_axis(attrs, ndim):
    a = attrs.axis
    if a < 0:
        a += ndim + 1
    if not 0 <= a <= ndim:
        raise ShapeError(f"expand_dims: axis {attrs.axis} is out of range for {ndim} dimensions")
    return a


register(OpDef("expand_dims", lambda a, x: np.expand_dims(x, _expand_axis(a, x.ndim)),
               params=(Param("axis", Int),), fluent=True, doc="expand_dims: insert a size-1 axis.", traits=("shape_only",),
               infer_shape=lambda a, ss: (list(ss), [None if ss[0] is None else (
                   tuple(ss[0][:_expand_axis(a, len(ss[0]))]) + (1,) + tuple(ss[0][_expand_axis(a, len(ss[0])):]))])))


def _squeeze_shape(attrs, s):
    if attrs.axis is None:
        out = tuple(d for d in s if d != 1)
    else:
        axes = {norm_axis(a, len(s)) for a in ((attrs.axis,) if isinstance(attrs.axis, int) else attrs.axis)}
        for a in axes:
            if s[a] != 1:
                raise ShapeError(f"squeeze: cannot select an axis to squeeze out which has size {s[a]} != 1")
        out = tuple(d for i, d in enumerate(s) if i not in axes)
    return out if out else (1,)


register(OpDef("squeeze", lambda a, x: x.reshape(_squeeze_shape(a, x.shape)),
               params=(Param("axis", Axis, None),), fluent=True, infer_shape=shape_fn(_squeeze_shape), traits=("shape_only",),
               doc="squeeze: remove size-1 axes (all of them when axis is None); never returns 0-d."))


# -- joining and splitting ---------------------------------------------------------------------------
def _concat_shape(attrs, in_shapes):
    ks = [tuple(s) for s in in_shapes if s is not None]
    if not ks:
        return list(in_shapes), [None]
    nd = len(ks[0])
    ax = norm_axis(attrs.dim, nd)
    merged = [0] * nd
    for s in ks:
        if len(s) != nd:
            raise ShapeError("Concat: inputs have different numbers of dimensions: "
                             + ", ".join(str(t) for t in ks))
        for i, d in enumerate(s):
            if i == ax:
                continue
            if d and merged[i] and d != merged[i]:
                raise ShapeError(f"Concat: shapes do not match outside axis {attrs.dim}: "
                                 + ", ".join(str(t) for t in ks))
            merged[i] = merged[i] or d
    total = 0
    if len(ks) == len(in_shapes) and all(s[ax] for s in ks):
        total = sum(s[ax] for s in ks)
    ins = []
    for s in in_shapes:
        if s is None:
            ins.append(None)
        else:
            t = list(merged)
            t[ax] = s[ax]
            ins.append(tuple(t))
    out = list(merged)
    out[ax] = total
    return ins, [tuple(out)]


register(OpDef("Concat", lambda a, *xs: np.concatenate(xs, axis=norm_axis(a.dim, xs[0].ndim)),
               params=(Param("num_args", Int), Param("dim", Int, 1)), variadic="num_args", same_dtype="all",
               infer_shape=_concat_shape, aliases=("concat",), doc="Concat: join inputs along ``dim``."))


def _stack_shape(attrs, *shapes):
    s0 = shapes[0]
    for s in shapes[1:]:
        if s != s0:
            raise ShapeError("stack: all inputs must have the same shape, got "
                             + ", ".join(str(t) for t in shapes))
    ax = attrs.axis + len(s0) + 1 if attrs.axis < 0 else attrs.axis
    return tuple(s0[:ax]) + (len(shapes),) + tuple(s0[ax:])


register(OpDef("stack", lambda a, *xs: np.stack(xs, axis=a.axis),
               params=(Param("axis", Int, 0), Param("num_args", Int)), variadic="num_args", same_dtype="all",
               infer_shape=shape_fn(_stack_shape), doc="stack: join inputs along a new axis."))


def _split_check(attrs, shape):
    ax = norm_axis(attrs.axis, len(shape))
    n = attrs.num_outputs
    if shape[ax] % n:
        raise ShapeError(f"SliceChannel: axis {attrs.axis} of size {shape[ax]} cannot be split "
                         f"into {n} equal parts")
    if attrs.squeeze_axis and shape[ax] != n:
        raise ShapeError("SliceChannel: squeeze_axis needs the axis size to equal num_outputs")
    return ax


def _split(attrs, x):
    """SliceChannel / split: ``num_outputs`` equal parts along ``axis`` (optionally squeezed)."""
    ax = _split_check(attrs, x.shape)
    parts = np.split(x, attrs.num_outputs, axis=ax)
    if attrs.squeeze_axis:
        parts = [p.reshape(p.shape[:ax] + p.shape[ax + 1:]) if p.ndim > 1 else p.reshape(1) for p in parts]
    return tuple(parts)


def _split_shape(attrs, s):
    ax = _split_check(attrs, s)
    part = list(s)
    part[ax] = s[ax] // attrs.num_outputs
    if attrs.squeeze_axis:
        del part[ax]
        part = part or [1]
    return [tuple(part)] * attrs.num_outputs


register(OpDef("SliceChannel", _split,
               params=(Param("num_outputs", Int), Param("axis", Int, 1), Param("squeeze_axis", Bool, False)),
               num_outputs=lambda a: a.num_outputs,
               infer_shape=shape_fn(_split_shape, n=lambda a: a.num_outputs), aliases=("split",), fluent=True))


def _split_v2_bounds(attrs, shape):
    ax = norm_axis(attrs.axis, len(shape))
    n = shape[ax]
    if attrs.sections > 0:   # MXNet's GetSplitIndices: the first n % sections pieces one longer
        small, extra = divmod(n, attrs.sections)
        starts = [i * small + min(i, extra) for i in range(attrs.sections)]
    else:
        starts = list(attrs.indices)
    bounds = [(b, starts[i + 1] if i + 1 < len(starts) else n) for i, b in enumerate(starts)]
    return ax, bounds


def _split_v2(attrs, x):
    """_split_v2: split at ``indices`` (starting points, the first one 0) or into ``sections``."""
    ax, bounds = _split_v2_bounds(attrs, x.shape)
    out = []
    for b, e in bounds:
        p = x[(slice(None),) * ax + (slice(b, e),)]
        if attrs.squeeze_axis:
            p = p.reshape(p.shape[:ax] + p.shape[ax + 1:]) if p.ndim > 1 else p.reshape(-1)
        out.append(p)
    return tuple(out)


def _split_v2_shape(attrs, s):
    ax, bounds = _split_v2_bounds(attrs, s)
    outs = []
    for b, e in bounds:
        t = list(s)
        t[ax] = max(0, min(e, s[ax]) - min(b, s[ax]))   # as the kernel's slice: bounds clipped to the axis
        if attrs.squeeze_axis:
            del t[ax]
        outs.append(tuple(t) or (1,))
    return outs


def _split_v2_n(attrs):
    return attrs.sections if attrs.sections > 0 else len(attrs.indices)


register(OpDef("_split_v2", _split_v2,
               params=(Param("indices", Shape), Param("axis", Int, 1), Param("squeeze_axis", Bool, False),
                       Param("sections", Int, 0)),
               num_outputs=_split_v2_n, infer_shape=shape_fn(_split_v2_shape, n=_split_v2_n)))


# -- slicing -----------------------------------------------------------------------------------------
def _slice_ranges(attrs, shape):
    """Python slices equivalent to MXNet's (begin, end, step) with its clipping rules."""
    begin, end, step = attrs.begin, attrs.end, attrs.step
    if len(begin) != len(end):
        raise ShapeError(f"slice: begin {begin} and end {end} have different lengths")
    if len(begin) > len(shape):
        raise ShapeError(f"slice: {len(begin)} axes given for an input with {len(shape)} dimensions")
    out = []
    for i in range(len(begin)):
        n = shape[i]
        s = step[i] if i < len(step) and step[i] is not None else 1
        if s == 0:
            raise ShapeError(f"slice: step[{i}] cannot be 0")
        if begin[i] is not None:
            b = begin[i] + n if begin[i] < 0 else begin[i]
        else:
            b = n - 1 if s < 0 else 0
        if end[i] is not None:
            e = end[i] + n if end[i] < 0 else end[i]
        else:
            e = -1 if s < 0 else n
        if s > 0:
            b = max(b, 0)
            e = min(max(e, 0), n)
            if b >= n:
                b, e = 0, 0
        else:
            b = min(b, n - 1)
            e = max(e, -1)
            if b < 0:
                b, e = 0, 0
                s = 1
        out.append(slice(b, None if e < 0 else e, s))
    return tuple(out)


def _slice(attrs, x):
    """slice: begin/end/step per leading axis (None = whole axis; negative step walks backwards)."""
    return x[_slice_ranges(attrs, x.shape)]


def _slice_shape(attrs, s):
    sl = _slice_ranges(attrs, s)
    out = [len(range(*t.indices(d))) for t, d in zip(sl, s)]
    return tuple(out) + tuple(s[len(sl):])


def _partial(rule, sliced_axes):
    """``infer_shape`` of a slicing op from its known-shape ``rule``, for a partly known input too (as
    MXNet's shape functions): an unknown dimension stays unknown, the known ones are sliced."""
    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None or (len(s) == 0 and not known(s)):
            return list(in_shapes), [None]
        if known(s):
            return list(in_shapes), [rule(attrs, tuple(int(d) for d in s))]
        unknown = [i for i, d in enumerate(s) if not dim_known(d)]
        out = list(rule(attrs, tuple(int(d) if dim_known(d) else 1 << 30 for d in s)))  # any size fits
        for i in unknown:
            if i in sliced_axes(attrs, len(s)) or i < len(out):
                out[i] = unknown_dim()
        return list(in_shapes), [tuple(out)]
    return infer


register(OpDef("slice", _slice,
               params=(Param("begin", OptIntTuple), Param("end", OptIntTuple), Param("step", OptIntTuple, ())),
               infer_shape=_partial(_slice_shape, lambda a, nd: range(len(a.begin))), aliases=("crop",),
               fluent=True))


def _slice_assign(attrs, lhs, rhs):
    """_slice_assign: a copy of ``lhs`` whose slice (begin/end/step as in ``slice``) is ``rhs``.

    ``rhs`` must have exactly the slice's shape (MXNet infers it from ``lhs``; no broadcasting).
    """
    region = _slice_ranges(attrs, lhs.shape)
    want = _slice_shape(attrs, lhs.shape)
    if tuple(rhs.shape) != want:
        raise ShapeError(f"_slice_assign: rhs has shape {tuple(rhs.shape)}, the slice of {tuple(lhs.shape)} "
                         f"is {want}")
    out = lhs.copy()
    out[region] = rhs
    return out


def _slice_assign_shape(attrs, ls, rs):
    want = _slice_shape(attrs, ls)
    if tuple(rs) != want:
        raise ShapeError(f"_slice_assign: rhs has shape {tuple(rs)}, the slice of {tuple(ls)} is {want}")
    return tuple(ls)


def _slice_assign_scalar(attrs, x):
    """_slice_assign_scalar: a copy of ``data`` whose slice is filled with ``scalar`` (cast to its dtype)."""
    out = x.copy()
    out[_slice_ranges(attrs, x.shape)] = np.asarray(attrs.scalar).astype(x.dtype)
    return out


def _slice_assign_dtype(attrs, dtypes):
    if dtypes[0] is not None and dtypes[1] is not None and np.dtype(dtypes[0]) != np.dtype(dtypes[1]):
        raise ShapeError(f"_slice_assign: lhs is {np.dtype(dtypes[0])} but rhs is {np.dtype(dtypes[1])}")
    return [dtypes[0] if dtypes[0] is not None else dtypes[1]]


register(OpDef("_slice_assign", _slice_assign, inputs=("lhs", "rhs"),
               params=(Param("begin", OptIntTuple), Param("end", OptIntTuple), Param("step", OptIntTuple, ())),
               infer_shape=shape_fn(_slice_assign_shape), infer_type=_slice_assign_dtype,
               aliases=("_crop_assign",)))
register(OpDef("_slice_assign_scalar", _slice_assign_scalar,
               params=(Param("scalar", Float, 0.0), Param("begin", OptIntTuple), Param("end", OptIntTuple),
                       Param("step", OptIntTuple, ())),
               infer_shape=shape_fn(lambda attrs, s: tuple(s)), aliases=("_crop_assign_scalar",)))


def _slice_axis_range(attrs, shape):
    ax = norm_axis(attrs.axis, len(shape))
    n = shape[ax]
    if n == 0:  # a zero-size (or, during inference, unknown) axis: MXNet takes begin = end = 0
        return ax, 0, 0
    b = attrs.begin + n if attrs.begin < 0 else attrs.begin
    e = n if attrs.end is None else (attrs.end + n if attrs.end < 0 else attrs.end)
    if not 0 <= b < e <= n:  # MXNet's GetSliceAxisParams: begin < end <= size (an empty slice is an error)
        raise ShapeError(f"slice_axis: invalid range [{attrs.begin}, {attrs.end}) for axis of size {n}")
    return ax, b, e


def _slice_axis(attrs, x):
    """slice_axis: [begin, end) along ``axis`` (end None = to the end)."""
    ax, b, e = _slice_axis_range(attrs, x.shape)
    return x[(slice(None),) * ax + (slice(b, e),)]


def _slice_axis_shape(attrs, s):
    ax, b, e = _slice_axis_range(attrs, s)
    out = list(s)
    out[ax] = e - b
    return tuple(out)


register(OpDef("slice_axis", _slice_axis,
               params=(Param("axis", Int), Param("begin", Int), Param("end", IntOrNone)),
               infer_shape=_partial(_slice_axis_shape, lambda a, nd: (norm_axis(a.axis, nd),)), fluent=True))


def _slice_like_axes(attrs, xs, ls):
    if not attrs.axes:
        if len(ls) > len(xs):
            raise ShapeError(f"slice_like: shape_like {tuple(ls)} has more dimensions than data {tuple(xs)}")
        return list(range(len(ls)))
    return [norm_axis(a, len(xs)) for a in attrs.axes]


def _slice_like_shape(attrs, xs, ls):
    out = list(xs)
    for a in _slice_like_axes(attrs, xs, ls):
        if a >= len(ls):
            raise ShapeError(f"slice_like: axis {a} is out of range for shape_like {tuple(ls)}")
        if ls[a] > xs[a]:
            raise ShapeError(f"slice_like: cannot slice axis {a} of size {xs[a]} to {ls[a]}")
        out[a] = ls[a]
    return tuple(out)


def _slice_like(attrs, x, like):
    """slice_like: x cut down to the shape of ``shape_like`` (on ``axes``, or all of its axes)."""
    out = _slice_like_shape(attrs, x.shape, like.shape)
    return x[tuple(slice(0, d) for d in out)]


register(OpDef("slice_like", _slice_like, inputs=("data", "shape_like"), params=(Param("axes", Shape, ()),),
               infer_shape=shape_fn(_slice_like_shape), fluent=True))



# -- gradients of the view-like ops (Reshape, Flatten, expand_dims, transpose, slices, Concat) --------
from .registry import defgrad as _defgrad


def _like_input_rule(F, attrs, inputs, outputs, out_grads):
    """Ops that only re-shape their input: the gradient is the output gradient in the input's shape."""
    return [F.reshape_like(out_grads[0], inputs[0])]


_defgrad("Reshape", "Flatten", "expand_dims")(_like_input_rule)


@_defgrad("transpose")
def _transpose_grad(F, attrs, inputs, outputs, out_grads):
    if not attrs.axes:
        return [F.transpose(out_grads[0])]  # reversed axes: its own inverse
    inverse = [0] * len(attrs.axes)
    for i, a in enumerate(attrs.axes):
        inverse[a % len(attrs.axes)] = i
    return [F.transpose(out_grads[0], axes=tuple(inverse))]


def _backward_slice(attrs, g, x):
    """slice's input gradient: zeros with the output gradient written where the slice was read."""
    out = np.zeros(x.shape, dtype=g.dtype)
    out[_slice_ranges(attrs, x.shape)] = g
    return out


def _backward_slice_axis(attrs, g, x):
    ax, b, e = _slice_axis_range(attrs, x.shape)
    out = np.zeros(x.shape, dtype=g.dtype)
    out[(slice(None),) * ax + (slice(b, e),)] = g
    return out


def _backward_slice_like(attrs, g, x):
    out = np.zeros(x.shape, dtype=g.dtype)
    out[tuple(slice(0, d) for d in g.shape)] = g
    return out


def _like_second(attrs, s):
    return list(s), [s[1]]


_SLICE_PARAMS = (Param("begin", OptIntTuple), Param("end", OptIntTuple), Param("step", OptIntTuple, ()))
register(OpDef("_backward_slice", _backward_slice, inputs=("ograd", "data"), params=_SLICE_PARAMS,
               infer_shape=_like_second))
register(OpDef("_backward_slice_axis", _backward_slice_axis, inputs=("ograd", "data"),
               params=(Param("axis", Int), Param("begin", Int), Param("end", IntOrNone)), infer_shape=_like_second))
register(OpDef("_backward_slice_like", _backward_slice_like, inputs=("ograd", "data"), infer_shape=_like_second))


@_defgrad("slice")
def _slice_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._backward_slice(out_grads[0], inputs[0], begin=attrs.begin, end=attrs.end, step=attrs.step)]


@_defgrad("slice_axis")
def _slice_axis_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._backward_slice_axis(out_grads[0], inputs[0], axis=attrs.axis, begin=attrs.begin,
                                             end=attrs.end)]


@_defgrad("slice_like")
def _slice_like_grad(F, attrs, inputs, outputs, out_grads):
    return [F._internal._backward_slice_like(out_grads[0], inputs[0]), None]


def _backward_concat(attrs, g, *xs):
    """Concat's input gradients: the output gradient split along ``dim`` at the inputs' sizes."""
    ax = norm_axis(attrs.dim, g.ndim)
    cuts = np.cumsum([x.shape[ax] for x in xs])[:-1]
    parts = tuple(np.ascontiguousarray(p) for p in np.split(g, cuts, axis=ax))
    return parts if len(parts) > 1 else parts[0]  # one input: one output, not a tuple of one


register(OpDef("_backward_Concat", _backward_concat, params=(Param("num_args", Int), Param("dim", Int, 1)),
               variadic="num_args", num_outputs=lambda a: a.num_args - 1,
               infer_shape=lambda a, s: (list(s), list(s[1:]))))


@_defgrad("Concat")
def _concat_grad(F, attrs, inputs, outputs, out_grads):
    parts = F._internal._backward_Concat(out_grads[0], *inputs, num_args=len(inputs) + 1, dim=attrs.dim)
    return list(parts) if len(inputs) > 1 else [parts]


# -- repetition and broadcasting ---------------------------------------------------------------------
def _tile(attrs, x):
    """tile: numpy.tile, refusing what MXNet's shape inference refuses: a negative repetition, and
    (outside numpy shape semantics, where a 0 dimension means unknown) a zero-size result."""
    if any(int(r) < 0 for r in attrs.reps):
        raise ShapeError(f"tile: reps must be non-negative, got {tuple(attrs.reps)}")
    out = _tile_shape(attrs.reps, x.shape)
    if not known(out):
        raise ShapeError(f"Operator tile inferring shapes failed: the result's shape {out} has a 0 dimension, "
                         "which MXNet's default shape semantics read as unknown")
    return np.tile(x, attrs.reps)


register(OpDef("tile", _tile, params=(Param("reps", Shape),),
               infer_shape=shape_fn(lambda a, s: _tile_shape(a.reps, s)), fluent=True,
               doc="tile: repeat the whole array ``reps`` times per axis (numpy.tile)."))


def _tile_shape(reps, s):
    reps = tuple(reps)
    s = tuple(s)
    if len(reps) < len(s):
        reps = (1,) * (len(s) - len(reps)) + reps
    elif len(s) < len(reps):
        s = (1,) * (len(reps) - len(s)) + s
    return tuple(a * b for a, b in zip(s, reps))


def _repeat(attrs, x):
    """repeat: each element repeated ``repeats`` times along ``axis`` (flattened when None)."""
    if attrs.axis is None:
        return np.repeat(x.reshape(-1), attrs.repeats)
    return np.repeat(x, attrs.repeats, axis=norm_axis(attrs.axis, x.ndim))


def _repeat_shape(attrs, s):
    if attrs.axis is None:
        return (prod(s) * attrs.repeats,)
    ax = norm_axis(attrs.axis, len(s))
    out = list(s)
    out[ax] *= attrs.repeats
    return tuple(out)


register(OpDef("repeat", _repeat, params=(Param("repeats", Int), Param("axis", IntOrNone, None)),
               infer_shape=shape_fn(_repeat_shape), fluent=True))


def _flip(attrs, x):
    """reverse / flip: elements in reverse order along ``axis``."""
    axes = (attrs.axis,) if isinstance(attrs.axis, int) else attrs.axis
    return np.flip(x, axis=tuple(norm_axis(a, x.ndim) for a in axes))


register(OpDef("reverse", _flip, params=(Param("axis", Shape),), infer_shape=shape_fn(lambda a, s: s),
               aliases=("flip",), fluent=True))


def _broadcast_to_shape(attrs, s):
    target = tuple(attrs.shape)
    if len(target) != len(s):
        raise ShapeError(f"broadcast_to: operand of shape {tuple(s)} cannot be broadcast to {target}")
    out = []
    for d, t in zip(s, target):
        if t == 0:
            out.append(d)
        elif d == t or d == 1:
            out.append(t)
        else:
            raise ShapeError(f"broadcast_to: array cannot be broadcast from {tuple(s)} to {target}")
    return tuple(out)


register(OpDef("broadcast_to", lambda a, x: np.broadcast_to(x, _broadcast_to_shape(a, x.shape)),
               params=(Param("shape", Shape, ()),), infer_shape=shape_fn(_broadcast_to_shape), fluent=True,
               doc="broadcast_to: broadcast to ``shape`` (0 keeps the input's dimension)."))


def _broadcast_like_shape(attrs, ls, rs):
    if attrs.lhs_axes is None or attrs.rhs_axes is None:
        if len(ls) != len(rs):
            raise ShapeError(f"broadcast_like: operand of shape {tuple(ls)} cannot be broadcast to {tuple(rs)}")
        out = []
        for d, t in zip(ls, rs):
            if t == 0:
                out.append(d)
            elif d == t or d == 1:
                out.append(t)
            else:
                raise ShapeError(f"broadcast_like: array cannot be broadcast from {tuple(ls)} to {tuple(rs)}")
        return tuple(out)
    if len(attrs.lhs_axes) != len(attrs.rhs_axes) or not attrs.lhs_axes:
        raise ShapeError("broadcast_like: lhs_axes and rhs_axes must be non-empty and of equal length")
    out = list(ls)
    for la, ra in zip(attrs.lhs_axes, attrs.rhs_axes):
        la, ra = norm_axis(la, len(ls)), norm_axis(ra, len(rs))
        if ls[la] != 1:
            raise ShapeError(f"broadcast_like: input axis {la} of size {ls[la]} cannot be broadcast")
        out[la] = rs[ra]
    return tuple(out)


register(OpDef("broadcast_like", lambda a, x, y: np.broadcast_to(x, _broadcast_like_shape(a, x.shape, y.shape)),
               inputs=("lhs", "rhs"),
               params=(Param("lhs_axes", ShapeOrNone, None), Param("rhs_axes", ShapeOrNone, None)),
               infer_shape=shape_fn(_broadcast_like_shape), fluent=True,
               doc="broadcast_like: lhs broadcast to rhs's shape (or on chosen axes)."))


def _broadcast_axis_shape(attrs, s):
    axes = attrs.axis
    sizes = attrs.size
    if len(axes) != len(sizes):
        raise ShapeError(f"broadcast_axis: axis {axes} and size {sizes} have different lengths")
    out = list(s)
    for a, n in zip(axes, sizes):
        a = norm_axis(a, len(s))
        if s[a] != 1:
            raise ShapeError(f"broadcast_axis: axis {a} must have size 1, not {s[a]}")
        out[a] = n
    return tuple(out)


register(OpDef("broadcast_axis", lambda a, x: np.broadcast_to(x, _broadcast_axis_shape(a, x.shape)),
               params=(Param("axis", Shape, ()), Param("size", Shape, ())),
               infer_shape=shape_fn(_broadcast_axis_shape), aliases=("broadcast_axes",), fluent=True,
               doc="broadcast_axis: broadcast size-1 ``axis`` to ``size``."))


# -- shape queries -----------------------------------------------------------------------------------
register(OpDef("shape_array", lambda a, x: np.asarray(x.shape, dtype=np.int64).reshape(x.ndim or 1),
               infer_shape=shape_fn(lambda a, s: (len(s) or 1,)),
               infer_type=lambda a, d: [np.dtype(np.int64)], fluent=True,
               doc="shape_array: the input's shape as a 1-D int64 array."))
register(OpDef("size_array", lambda a, x: np.asarray([x.size], dtype=np.int64),
               infer_shape=shape_fn(lambda a, s: (1,)),
               infer_type=lambda a, d: [np.dtype(np.int64)], fluent=True,
               doc="size_array: the number of elements as a (1,) int64 array."))


# -- depth/space -------------------------------------------------------------------------------------
def _block(attrs, op: str, s) -> int:
    """MXNet's checks shared by depth_to_space/space_to_depth: a 4-D input, a positive block size."""
    if len(s) != 4:
        raise ShapeError(f"{op}: requires exactly a 4-D input (N, C, H, W), got shape {tuple(s)}")
    if attrs.block_size <= 0:
        raise ShapeError(f"{op}: block_size must be a positive integer value, got {attrs.block_size}")
    return attrs.block_size


def _d2s_shape(attrs, s):
    b = _block(attrs, "depth_to_space", s)
    if len(s) != 4 or s[1] % (b * b):
        raise ShapeError(f"depth_to_space: needs a 4-D input with channels divisible by {b * b}, got {tuple(s)}")
    return (s[0], s[1] // (b * b), s[2] * b, s[3] * b)


def _nonzero_input(op: str, x) -> None:
    """MXNet's depth/space shape functions require every input dimension to be non-zero (with numpy
    shape semantics too)."""
    if 0 in x.shape:
        raise ShapeError(f"{op}: requires every input dimension to be non-zero, got shape {tuple(x.shape)}")


def _depth_to_space(attrs, x):
    """depth_to_space: (N, C, H, W) -> (N, C/b^2, H*b, W*b), DCR order as MXNet."""
    _nonzero_input("depth_to_space", x)
    _d2s_shape(attrs, x.shape)
    n, c, h, w = x.shape
    b = attrs.block_size
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(n, c // (b * b), h * b, w * b)


def _s2d_shape(attrs, s):
    b = _block(attrs, "space_to_depth", s)
    if len(s) != 4 or s[2] % b or s[3] % b:
        raise ShapeError(f"space_to_depth: needs a 4-D input with H and W divisible by {b}, got {tuple(s)}")
    return (s[0], s[1] * b * b, s[2] // b, s[3] // b)


def _space_to_depth(attrs, x):
    """space_to_depth: (N, C, H, W) -> (N, C*b^2, H/b, W/b), the inverse of depth_to_space."""
    _nonzero_input("space_to_depth", x)
    _s2d_shape(attrs, x.shape)
    n, c, h, w = x.shape
    b = attrs.block_size
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


register(OpDef("depth_to_space", _depth_to_space, params=(Param("block_size", Int),),
               infer_shape=shape_fn(_d2s_shape), fluent=True))
register(OpDef("space_to_depth", _space_to_depth, params=(Param("block_size", Int),),
               infer_shape=shape_fn(_s2d_shape), fluent=True))


# -- diag, arange_like ---------------------------------------------------------------------------------
def _diag(attrs, x):
    """diag: a 1-D input becomes a diagonal matrix; otherwise the k-th diagonal of (axis1, axis2).
    As MXNet's DiagShapeImpl: the axes must differ, and a ``k`` beyond the matrix is an error
    ("Diagonal does not exist"), while ``k`` exactly at its edge gives an empty diagonal."""
    if x.ndim == 1:
        return np.diag(x, attrs.k)
    a1, a2 = norm_axis(attrs.axis1, x.ndim), norm_axis(attrs.axis2, x.ndim)
    if a1 == a2:
        raise ShapeError(f"diag: axis1 and axis2 cannot refer to the same axis {a1}")
    h, w = x.shape[a1], x.shape[a2]
    if (w - attrs.k if attrs.k > 0 else w) < 0 or (h + attrs.k if attrs.k < 0 else h) < 0:
        raise ShapeError(f"diag: Diagonal does not exist (k={attrs.k} for a {h}x{w} matrix)")
    return np.diagonal(x, attrs.k, a1, a2).copy()


register(OpDef("diag", _diag, params=(Param("k", Int, 0), Param("axis1", Int, 0), Param("axis2", Int, 1)),
               infer_shape=shape_fn(lambda a, s: _diag(a, np.empty(s, dtype=np.bool_)).shape), fluent=True))


def _arange_like(attrs, x):
    """_contrib_arange_like: start + step * i (each value ``repeat`` times), shaped like the input
    (or as long as its ``axis``)."""
    n = x.size if attrs.axis is None else x.shape[norm_axis(attrs.axis, x.ndim)]
    vals = attrs.start + attrs.step * (np.arange(n) // max(1, attrs.repeat))
    out = vals.astype(x.dtype)
    return out.reshape(x.shape) if attrs.axis is None else out


register(OpDef("_contrib_arange_like", _arange_like,
               params=(Param("start", Float, 0.0), Param("step", Float, 1.0), Param("repeat", Int, 1),
                       Param("ctx", Str, ""), Param("axis", IntOrNone, None)),
               infer_shape=shape_fn(lambda a, s: tuple(s) if a.axis is None else (s[norm_axis(a.axis, len(s))],))))


# -- gradients (MXNet 1.9.1's FGradient of each op; Reshape, Flatten, transpose, expand_dims, Concat and
# the slice family are defined with the autograd core) -------------------------------------------------
def as_list(result, n: int) -> list:
    """The outputs of a multi-output call as a list: ``nd`` returns a list, ``sym`` one Symbol."""
    if isinstance(result, (list, tuple)):
        return list(result)
    return [result] if n == 1 else [result[i] for i in range(n)]


def _sum_to(ograd: np.ndarray, shape: tuple) -> np.ndarray:
    """``ograd`` summed over the axes a broadcast from ``shape`` expanded (same rank, or leading axes)."""
    lead = ograd.ndim - len(shape)
    g = ograd.sum(axis=tuple(range(lead))) if lead > 0 else ograd
    axes = tuple(i for i, (d, t) in enumerate(zip(shape, g.shape)) if d == 1 and t != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


backward_op("_broadcast_backward", lambda a, og, x: _sum_to(og, x.shape).astype(x.dtype, copy=False).reshape(x.shape),
            ("ograd", "data"), doc="broadcast_to/axis/like backward: the output gradient summed back to the "
                                   "input's shape (MXNet's _broadcast_backward with the input passed for its shape).")


def _backward_tile(attrs, og, x):
    reps = tuple(attrs.reps)
    shape = x.shape
    if len(reps) < len(shape):
        reps = (1,) * (len(shape) - len(reps)) + reps
    full = (1,) * (len(reps) - len(shape)) + shape
    split = [d for r, n in zip(reps, full) for d in (r, n)]
    g = og.reshape(split).sum(axis=tuple(range(0, 2 * len(full), 2)))
    return g.reshape(shape).astype(x.dtype, copy=False)


backward_op("_backward_tile", _backward_tile, ("ograd", "data"), params=(Param("reps", Shape),))


def _backward_repeat(attrs, og, x):
    n = attrs.repeats
    if attrs.axis is None:
        return og.reshape(-1, n).sum(axis=1).reshape(x.shape).astype(x.dtype, copy=False)
    ax = norm_axis(attrs.axis, x.ndim)
    g = og.reshape(x.shape[:ax + 1] + (n,) + x.shape[ax + 1:]).sum(axis=ax + 1)
    return g.astype(x.dtype, copy=False)


backward_op("_backward_repeat", _backward_repeat, ("ograd", "data"),
            params=(Param("repeats", Int), Param("axis", IntOrNone, None)))


def _backward_diag(attrs, og, x):
    g = np.zeros_like(x)
    if x.ndim == 1:
        g[...] = np.diagonal(og, attrs.k)
        return g
    a1, a2 = norm_axis(attrs.axis1, x.ndim), norm_axis(attrs.axis2, x.ndim)
    h, w = x.shape[a1], x.shape[a2]
    k = attrs.k
    n = og.shape[-1]
    rows = np.arange(n) + (-k if k < 0 else 0)
    cols = np.arange(n) + (max(0, k))
    del h, w
    moved = np.moveaxis(g, (a1, a2), (-2, -1))  # a view: writes land in g
    moved[..., rows, cols] = og
    return g


backward_op("_backward_diag", _backward_diag, ("ograd", "data"),
            params=(Param("k", Int, 0), Param("axis1", Int, 0), Param("axis2", Int, 1)))


@defgrad("SwapAxis")
def _swapaxis_grad(F, attrs, inputs, outputs, out_grads):
    return [F.SwapAxis(out_grads[0], dim1=attrs.dim1, dim2=attrs.dim2)]


@defgrad("squeeze")
def _squeeze_grad(F, attrs, inputs, outputs, out_grads):
    return [F.reshape_like(out_grads[0], inputs[0])]


@defgrad("reshape_like")
def _reshape_like_grad(F, attrs, inputs, outputs, out_grads):
    return [F.reshape_like(out_grads[0], inputs[0]), F.zeros_like(inputs[1])]


@defgrad("stack")
def _stack_grad(F, attrs, inputs, outputs, out_grads):
    n = len(inputs)
    parts = as_list(F.split(out_grads[0], num_outputs=n, axis=attrs.axis, squeeze_axis=True), n)
    return [F.reshape_like(p, x) for p, x in zip(parts, inputs)]


def _join_grad(F, attrs, inputs, out_grads):
    """Input gradient of a split: the output gradients joined back along the split axis."""
    n = len(out_grads)
    if attrs.squeeze_axis:
        joined = out_grads[0] if n == 1 else F.stack(*out_grads, axis=attrs.axis, num_args=n)
        return [F.reshape_like(joined, inputs[0])]
    return [out_grads[0] if n == 1 else F.Concat(*out_grads, dim=attrs.axis, num_args=n)]


@defgrad("SliceChannel")
def _slice_channel_grad(F, attrs, inputs, outputs, out_grads):
    return _join_grad(F, attrs, inputs, out_grads)


@defgrad("_split_v2")
def _split_v2_grad(F, attrs, inputs, outputs, out_grads):
    return _join_grad(F, attrs, inputs, out_grads)


@defgrad("tile")
def _tile_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_tile")(out_grads[0], inputs[0], reps=attrs.reps)]


@defgrad("repeat")
def _repeat_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_repeat")(out_grads[0], inputs[0], repeats=attrs.repeats, axis=attrs.axis)]


@defgrad("reverse")
def _reverse_grad(F, attrs, inputs, outputs, out_grads):
    return [F.reverse(out_grads[0], axis=attrs.axis)]


@defgrad("broadcast_to", "broadcast_axis")
def _broadcast_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_broadcast_backward")(out_grads[0], inputs[0])]


@defgrad("broadcast_like")
def _broadcast_like_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_broadcast_backward")(out_grads[0], inputs[0]), F.zeros_like(inputs[1])]


@defgrad("depth_to_space")
def _d2s_grad(F, attrs, inputs, outputs, out_grads):
    return [F.space_to_depth(out_grads[0], block_size=attrs.block_size)]


@defgrad("space_to_depth")
def _s2d_grad(F, attrs, inputs, outputs, out_grads):
    return [F.depth_to_space(out_grads[0], block_size=attrs.block_size)]


@defgrad("diag")
def _diag_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_diag")(out_grads[0], inputs[0], k=attrs.k, axis1=attrs.axis1, axis2=attrs.axis2)]


for _name in ("shape_array", "size_array", "_contrib_arange_like"):  # MakeZeroGradNodes
    get_op(_name).gradient = ZERO_GRAD
