"""Linear algebra: dot (MXNet's N-d semantics), batch_dot, _linalg_gemm2, khatri_rao.

``dot`` sees its lhs as a matrix (prod(shape[:-1]), shape[-1]) and its rhs as (shape[0],
prod(shape[1:])); ``transpose_a`` views the lhs as (shape[0], prod(shape[1:])) transposed, so the
contraction runs over its *first* axis; ``transpose_b`` makes the rhs contract over its last axis.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._nnutil import merge_shape
from ._util import OptStr, known, prod, shape_fn
from .attrs import Bool, Float, Int, Param
from .registry import OpDef, defgrad, register

_DOT_PARAMS = (Param("transpose_a", Bool, False), Param("transpose_b", Bool, False),
               Param("forward_stype", OptStr, None))


def _dot_parts(attrs, ls, rs):
    """((lhs rows shape, contraction size), (contraction size, rhs cols shape)) per MXNet's DotShape."""
    if attrs.transpose_a:
        lk, lout = ls[0], tuple(ls[1:])
    else:
        lk, lout = ls[-1], tuple(ls[:-1])
    if attrs.transpose_b:
        rk, rout = rs[-1], tuple(rs[:-1])
    else:
        rk, rout = rs[0], tuple(rs[1:])
    if len(ls) == 1:
        lk, lout = ls[0], ()
    if len(rs) == 1:
        rk, rout = rs[0], ()
    if lk != rk:
        raise ShapeError(f"dot: shape mismatch {tuple(ls)} x {tuple(rs)} "
                         f"(transpose_a={attrs.transpose_a}, transpose_b={attrs.transpose_b})")
    return lout, lk, rout


def _dot_shape(attrs, ls, rs):
    lout, _, rout = _dot_parts(attrs, ls, rs)
    out = lout + rout
    return out if out else (1,)


def _dot(attrs, a, b):
    """dot: matrix product generalized to N-d as MXNet (lhs last axis x rhs first axis)."""
    lout, k, rout = _dot_parts(attrs, a.shape, b.shape)
    if a.ndim == 1:
        a2 = a.reshape(1, k)
    elif attrs.transpose_a:
        a2 = a.reshape(k, -1).T
    else:
        a2 = a.reshape(-1, k)
    if b.ndim == 1:
        b2 = b.reshape(k, 1)
    elif attrs.transpose_b:
        b2 = b.reshape(-1, k).T
    else:
        b2 = b.reshape(k, -1)
    out = np.matmul(a2, b2)
    if out.dtype != a.dtype:
        out = out.astype(a.dtype)
    return out.reshape(lout + rout or (1,))


register(OpDef("dot", _dot, same_dtype="all", inputs=("lhs", "rhs"), params=_DOT_PARAMS, infer_shape=shape_fn(_dot_shape),
               fluent=False))


def _batch_dot_shape(attrs, ls, rs):
    if len(ls) < 3 or len(ls) != len(rs) or tuple(ls[:-2]) != tuple(rs[:-2]):
        raise ShapeError(f"batch_dot: needs two N-d (N >= 3) inputs with equal batch dimensions, "
                         f"got {tuple(ls)} and {tuple(rs)}")
    m, k = (ls[-1], ls[-2]) if attrs.transpose_a else (ls[-2], ls[-1])
    k2, n = (rs[-1], rs[-2]) if attrs.transpose_b else (rs[-2], rs[-1])
    if k != k2:
        raise ShapeError(f"batch_dot: shape mismatch {tuple(ls)} x {tuple(rs)}")
    return tuple(ls[:-2]) + (m, n)


def _batch_dot(attrs, a, b):
    """batch_dot: a matrix product per batch element (leading axes are the batch)."""
    if attrs.transpose_a:
        a = np.swapaxes(a, -1, -2)
    if attrs.transpose_b:
        b = np.swapaxes(b, -1, -2)
    out = np.matmul(a, b)
    return out if out.dtype == a.dtype else out.astype(a.dtype)


register(OpDef("batch_dot", _batch_dot, same_dtype="all", inputs=("lhs", "rhs"), params=_DOT_PARAMS,
               infer_shape=shape_fn(_batch_dot_shape)))


def _gemm2_mats(attrs, a, b):
    ax = attrs.axis
    if ax != -2:
        a = np.moveaxis(a, ax, -2)
        b = np.moveaxis(b, ax, -2)
    if attrs.transpose_a:
        a = np.swapaxes(a, -1, -2)
    if attrs.transpose_b:
        b = np.swapaxes(b, -1, -2)
    return a, b


def _gemm2(attrs, a, b):
    """_linalg_gemm2: alpha * op(A) op(B) on the trailing matrices (rows on ``axis``)."""
    a2, b2 = _gemm2_mats(attrs, a, b)
    out = np.matmul(a2, b2) * np.asarray(attrs.alpha, dtype=a.dtype)
    if attrs.axis != -2:
        out = np.moveaxis(out, -2, attrs.axis)
    return out.astype(a.dtype, copy=False)


def _gemm2_shape(attrs, ls, rs):
    nd = len(ls)
    ax = attrs.axis + nd if attrs.axis < 0 else attrs.axis
    if nd < 2 or len(rs) != nd:
        raise ShapeError(f"linalg.gemm: inputs must be tensors of matrices of equal rank, got {tuple(ls)} and {tuple(rs)}")
    if not 0 <= ax < nd - 1:
        raise ShapeError(f"linalg.gemm: Invalid row axis ({attrs.axis})")
    a, b = _gemm2_mats(attrs, np.empty(ls, dtype=np.bool_), np.empty(rs, dtype=np.bool_))
    if a.shape[-1] != b.shape[-2] or a.shape[:-2] != b.shape[:-2]:
        raise ShapeError(f"linalg.gemm2: shape mismatch {tuple(ls)} x {tuple(rs)}")
    out = np.empty(a.shape[:-1] + (b.shape[-1],), dtype=np.bool_)
    if attrs.axis != -2:
        out = np.moveaxis(out, -2, attrs.axis)
    return out.shape


register(OpDef("_linalg_gemm2", _gemm2, inputs=("A", "B"),
               params=(Param("transpose_a", Bool, False), Param("transpose_b", Bool, False),
                       Param("alpha", Float, 1.0), Param("axis", Int, -2)),
               infer_shape=shape_fn(_gemm2_shape), aliases=("linalg_gemm2",)))


def _gemm(attrs, a, b, c):
    """_linalg_gemm: alpha * op(A) op(B) + beta * C on the trailing matrices (rows on ``axis``)."""
    out = _gemm2(attrs, a, b) + np.asarray(attrs.beta, dtype=a.dtype) * c
    return out.astype(a.dtype, copy=False)


def _gemm_shape(attrs, in_shapes):
    """MXNet's LaMatrixMultMacOpShape: the output from A and B; C must have the output's shape."""
    a, b, c = in_shapes
    if not (known(a) and known(b)):
        return list(in_shapes), [None]
    out = _gemm2_shape(attrs, tuple(a), tuple(b))
    return [a, b, merge_shape(c, out, "linalg.gemm: C")], [out]


register(OpDef("_linalg_gemm", _gemm, inputs=("A", "B", "C"),
               params=(Param("transpose_a", Bool, False), Param("transpose_b", Bool, False),
                       Param("alpha", Float, 1.0), Param("beta", Float, 1.0), Param("axis", Int, -2)),
               infer_shape=_gemm_shape, aliases=("linalg_gemm",)))


def _khatri_rao(attrs, *mats):
    """khatri_rao: column-wise Kronecker product of matrices with equal column counts."""
    out = mats[0]
    for m in mats[1:]:
        out = (out[:, None, :] * m[None, :, :]).reshape(-1, out.shape[1])
    return out


register(OpDef("khatri_rao", _khatri_rao, params=(Param("num_args", Int),), variadic="num_args",
               infer_shape=shape_fn(lambda a, *ss: (prod(s[0] for s in ss), ss[0][1]))))


# -- gradients (MXNet 1.9.1: src/operator/tensor/la_op.cc, la_op-inl.h gemm_backward/gemm2_backward; dot and
# batch_dot are defined with the autograd core, khatri_rao has no FGradient) ---------------------------------
def _backward_gemm2(attrs, og, a, b):
    """gemm2's backward: d op(A) = alpha dC op(B)^T, d op(B) = alpha op(A)^T dC, transposed back."""
    a2, b2 = _gemm2_mats(attrs, a, b)
    g = og if attrs.axis == -2 else np.moveaxis(og, attrs.axis, -2)
    alpha = np.asarray(attrs.alpha, dtype=a.dtype)
    da = alpha * np.matmul(g, np.swapaxes(b2, -1, -2))
    db = alpha * np.matmul(np.swapaxes(a2, -1, -2), g)
    if attrs.transpose_a:
        da = np.swapaxes(da, -1, -2)
    if attrs.transpose_b:
        db = np.swapaxes(db, -1, -2)
    if attrs.axis != -2:
        da, db = np.moveaxis(da, -2, attrs.axis), np.moveaxis(db, -2, attrs.axis)
    return da.astype(a.dtype, copy=False), db.astype(b.dtype, copy=False)


_GEMM2 = (Param("transpose_a", Bool, False), Param("transpose_b", Bool, False), Param("alpha", Float, 1.0),
          Param("axis", Int, -2))
backward_op("_backward_linalg_gemm2", _backward_gemm2, ("ograd", "A", "B"), like=(1, 2), num_outputs=2,
            params=_GEMM2)


@defgrad("_linalg_gemm2")
def _gemm2_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_linalg_gemm2")(out_grads[0], inputs[0], inputs[1], transpose_a=attrs.transpose_a,
                                              transpose_b=attrs.transpose_b, alpha=attrs.alpha, axis=attrs.axis)
    return [g[0], g[1]]


@defgrad("_linalg_gemm")
def _gemm_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_linalg_gemm2")(out_grads[0], inputs[0], inputs[1], transpose_a=attrs.transpose_a,
                                              transpose_b=attrs.transpose_b, alpha=attrs.alpha, axis=attrs.axis)
    return [g[0], g[1], F._internal._mul_scalar(out_grads[0], scalar=attrs.beta)]


# -- gradients of dot and batch_dot ------------------------------------------------------------------
from ._grad import backward_op
from .registry import defgrad


def _dot_mats(attrs, a, b):
    """The 2-D views of dot's operands as its kernel multiplies them (``a2 @ b2``)."""
    _, k, _ = _dot_parts(attrs, a.shape, b.shape)
    if a.ndim == 1:
        a2 = a.reshape(1, k)
    elif attrs.transpose_a:
        a2 = a.reshape(k, -1).T
    else:
        a2 = a.reshape(-1, k)
    if b.ndim == 1:
        b2 = b.reshape(k, 1)
    elif attrs.transpose_b:
        b2 = b.reshape(-1, k).T
    else:
        b2 = b.reshape(k, -1)
    return a2, b2


def _backward_dot(attrs, g, a, b):
    """(d lhs, d rhs) of dot: ``g b2^T`` and ``a2^T g`` mapped back through the operands' views."""
    a2, b2 = _dot_mats(attrs, a, b)
    g2 = g.reshape(a2.shape[0], b2.shape[1])
    da2, db2 = np.matmul(g2, b2.T), np.matmul(a2.T, g2)
    da = (da2.T if attrs.transpose_a and a.ndim > 1 else da2).reshape(a.shape)
    db = (db2.T if attrs.transpose_b and b.ndim > 1 else db2).reshape(b.shape)
    return da.astype(a.dtype, copy=False), db.astype(b.dtype, copy=False)


backward_op("_backward_dot", _backward_dot, ("ograd", "lhs", "rhs"), like=(1, 2), num_outputs=2, params=_DOT_PARAMS)


def _backward_batch_dot(attrs, g, a, b):
    """(d lhs, d rhs) of batch_dot, per batch element."""
    a2 = np.swapaxes(a, -1, -2) if attrs.transpose_a else a
    b2 = np.swapaxes(b, -1, -2) if attrs.transpose_b else b
    da2, db2 = np.matmul(g, np.swapaxes(b2, -1, -2)), np.matmul(np.swapaxes(a2, -1, -2), g)
    da = np.swapaxes(da2, -1, -2) if attrs.transpose_a else da2
    db = np.swapaxes(db2, -1, -2) if attrs.transpose_b else db2
    return np.ascontiguousarray(da, dtype=a.dtype), np.ascontiguousarray(db, dtype=b.dtype)


backward_op("_backward_batch_dot", _backward_batch_dot, ("ograd", "lhs", "rhs"), like=(1, 2), num_outputs=2,
            params=_DOT_PARAMS)


@defgrad("dot")
def _dot_grad(F, attrs, inputs, outputs, out_grads):
    return list(internal(F, "_backward_dot")(out_grads[0], *inputs, transpose_a=attrs.transpose_a,
                                            transpose_b=attrs.transpose_b))


@defgrad("batch_dot")
def _batch_dot_grad(F, attrs, inputs, outputs, out_grads):
    return list(internal(F, "_backward_batch_dot")(out_grads[0], *inputs, transpose_a=attrs.transpose_a,
                                                  transpose_b=attrs.transpose_b))
