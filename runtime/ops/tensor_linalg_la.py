"""MXNet's LAPACK-style ``linalg`` operators (``src/operator/tensor/la_op.{h,cc}``, MXNet 1.9.1).

Every op works on the trailing two axes (batch mode over the leading ones) and accepts float32
and float64 only, as MXNet's ``MSHADOW_SGL_DBL_TYPE_SWITCH`` does. What MXNet's row-major LAPACK
calls read and write is reproduced exactly:

- ``potrf`` reads one triangle of its input (``lower``) and zeroes the other of its output;
  ``potri`` reads one triangle of the Cholesky factor and returns the full symmetric inverse;
  ``trmm``/``trsm`` read one triangle of ``A`` (a zero pivot of ``trsm`` gives inf, as BLAS does).
- ``syevd`` reads the lower triangle; eigenvectors are the *rows* of ``U``, each signed so that
  its largest-magnitude entry (first on ties) is positive; eigenvalues ascend.
- ``gelqf`` is LAPACK's Householder LQ (the QR of the transpose: same reflections, same signs).
- ``det``/``slogdet`` come from the LU factorization as MXNet computes them
  (``det = sign * exp(sum(log|diag U|))``); MXNet's extra LU/pivot outputs are hidden and not
  produced here (they only feed its backward pass).
- ``extracttrian``/``maketrian`` pack a triangle row by row (lower) or, for the upper triangle,
  column by column (MXNet's ``CopyTrian`` index rule).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..base import HybridizeError, ShapeError
from ._grad import backward_op, internal
from ._nnutil import merge_shape
from ._npcompat import broadcast_shapes, qr
from ._util import known
from .attrs import Bool, Float, Int, Param
from .nn_detection import _NamedOutputs
from .registry import OpDef, checked_same_shape, defgrad, register

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _check_float(name: str, dtype) -> np.dtype:
    d = np.dtype(dtype if dtype is not None else np.float32)
    if d not in _FLOATS:
        raise HybridizeError(f"{name}: This operation only supports 32-bit and 64-bit floating point, got {d.name}")
    return d


def _float_type(name: str, n: int = 1):
    def infer(attrs, in_dtypes):
        d = next((x for x in in_dtypes if x is not None), None)
        if d is None:
            return [np.dtype(np.float32)] * n
        return [_check_float(name, d)] * n
    return infer


def _tr(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def _tri(x: np.ndarray, lower: bool) -> np.ndarray:
    return np.tril(x) if lower else np.triu(x)


def _sym_from(x: np.ndarray, lower: bool) -> np.ndarray:
    """The symmetric matrix LAPACK sees when it reads only the ``lower`` (or upper) triangle."""
    t = np.tril(x, -1) if lower else np.triu(x, 1)
    return _tri(x, lower) + _tr(t)


def _square(name: str, s, what: str = "Input A") -> None:
    if len(s) < 2:
        raise ShapeError(f"{name}: {what} must be a tensor of matrices (ndim >= 2), got shape {tuple(s)}")
    if s[-1] and s[-2] and s[-1] != s[-2]:
        raise ShapeError(f"{name}: {what}'s last two dimensions must be equal, got shape {tuple(s)}")



def _elemwise_square(name: str):
    """``ElemwiseShape<1, 1>`` (input = output, both directions) plus the square-matrix check."""
    def backward(attrs, in_shapes, out_shapes):
        o = out_shapes[0]
        if o is None or len(o) == 0:
            return list(in_shapes)
        return [merge_shape(in_shapes[0], o, name)]
    return checked_same_shape(lambda attrs, s: _square(name, s)), backward


# -- potrf / potri -----------------------------------------------------------------------------------------
_POTRF_ERR = ("This may happen when the input matrix is either not symmetric or not positive definite.")
_POTRI_ERR = ("This may happen when the input matrix is not a Cholesky factorization obtained"
              " by a prior call of the potrf-operator.")


def _potrf(attrs, a):
    """_linalg_potrf: Cholesky factor of the symmetric matrix given by one triangle of ``A``
    (``lower``: A = L L^T, else A = U^T U); the other triangle of the result is zero."""
    _check_float("linalg.potrf", a.dtype)
    if a.size == 0:
        return a.copy()
    try:
        low = np.linalg.cholesky(_sym_from(a, attrs.lower))
    except np.linalg.LinAlgError:
        p = "s" if a.dtype == np.float32 else "d"
        raise HybridizeError(f"{p}potrf failed in lapack on cpu. {_POTRF_ERR}") from None
    out = low if attrs.lower else _tr(low)
    return np.ascontiguousarray(_tri(out, attrs.lower)).astype(a.dtype, copy=False)


def _potri(attrs, b):
    """_linalg_potri: the (symmetric) inverse of A from its Cholesky factor (one triangle read)."""
    _check_float("linalg.potri", b.dtype)
    if b.size == 0:
        return b.copy()
    t = _tri(b, attrs.lower)
    if np.any(np.diagonal(t, axis1=-2, axis2=-1) == 0):
        p = "s" if b.dtype == np.float32 else "d"
        raise HybridizeError(f"{p}potri failed in lapack on cpu. {_POTRI_ERR}")
    n = b.shape[-1]
    eye = np.broadcast_to(np.eye(n, dtype=b.dtype), b.shape)
    tinv = _tri_solve(t, eye, attrs.lower)          # exact triangular inverse (same zero pattern)
    # lower: A = L L^T -> A^-1 = L^-T L^-1; upper: A = U^T U -> A^-1 = U^-1 U^-T
    out = np.matmul(_tr(tinv), tinv) if attrs.lower else np.matmul(tinv, _tr(tinv))
    return _sym_from(out, attrs.lower).astype(b.dtype, copy=False)


_potrf_shape, _potrf_back = _elemwise_square("linalg.potrf")
_potri_shape, _potri_back = _elemwise_square("linalg.potri")
_CHOL = (Param("lower", Bool, True),)
register(OpDef("_linalg_potrf", _potrf, inputs=("A",), params=_CHOL, infer_shape=_potrf_shape,
               infer_shape_backward=_potrf_back, infer_type=_float_type("linalg.potrf"),
               aliases=("linalg_potrf",)))
register(OpDef("_linalg_potri", _potri, inputs=("A",), params=_CHOL, infer_shape=_potri_shape,
               infer_shape_backward=_potri_back, infer_type=_float_type("linalg.potri"),
               aliases=("linalg_potri",)))


# -- trmm / trsm -------------------------------------------------------------------------------------------
def _tri_solve(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Solves ``t @ x = b`` for triangular ``t`` by substitution (as BLAS trsm: a zero pivot gives
    inf/nan, no error). Loops over the matrix rows; vectorized over the batch and right-hand sides."""
    n = t.shape[-1]
    acc = np.result_type(t.dtype, np.float64)
    t = t.astype(acc, copy=False)
    x = np.zeros(broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=acc)
    b = b.astype(acc, copy=False)
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in order:
            if lower:
                s = b[..., i, :] - np.einsum("...k,...kj->...j", t[..., i, :i], x[..., :i, :])
            else:
                s = b[..., i, :] - np.einsum("...k,...kj->...j", t[..., i, i + 1:], x[..., i + 1:, :])
            x[..., i, :] = s / t[..., i, i][..., None]
    return x


def _trmm(attrs, a, b):
    """_linalg_trmm: alpha * op(A) B (or alpha * B op(A) with ``rightside``), A triangular."""
    _check_float("linalg.trmm", a.dtype)
    _TRI_SHAPES["trmm"][0](attrs, [a.shape, b.shape])
    t = _tri(a, attrs.lower)
    if attrs.transpose:
        t = _tr(t)
    out = np.matmul(b, t) if attrs.rightside else np.matmul(t, b)
    return (out * attrs.alpha).astype(a.dtype, copy=False)


def _trsm(attrs, a, b):
    """_linalg_trsm: X with op(A) X = alpha B (or X op(A) = alpha B with ``rightside``), A triangular."""
    _check_float("linalg.trsm", a.dtype)
    _TRI_SHAPES["trsm"][0](attrs, [a.shape, b.shape])
    t = _tri(a, attrs.lower)
    lower = attrs.lower
    if attrs.transpose:
        t, lower = _tr(t), not lower
    rhs = b.astype(np.float64) * attrs.alpha
    if attrs.rightside:   # X T = B  <=>  T^T X^T = B^T
        x = _tr(_tri_solve(_tr(t), _tr(rhs), not lower))
    else:
        x = _tri_solve(t, rhs, lower)
    return x.astype(a.dtype)


def _trmm_shape(name: str):
    def infer(attrs, in_shapes):
        a, b = in_shapes
        if a is None or b is None or len(a) < 2 or len(a) != len(b) or not (known(a, scalar=False) and known(b, scalar=False)):
            if a is not None and b is not None and len(a) and len(b) and len(a) != len(b):
                raise ShapeError(f"{name}: inputs must have the same number of dimensions, got {tuple(a)} and {tuple(b)}")
            return list(in_shapes), [None]
        nd = len(a)
        if a[-2] != a[-1]:
            raise ShapeError(f"{name}: First operand must be a tensor of square matrices, got {tuple(a)}")
        if tuple(a[:-2]) != tuple(b[:-2]):
            raise ShapeError(f"{name}: Shapes of inputs 0, 1 must be the same, except on last two dimensions "
                             f"({tuple(a)} vs {tuple(b)})")
        if attrs.rightside:
            if a[-2] != b[-1]:
                raise ShapeError(f"{name}: Incompatible matrix dimensions for multiplication {tuple(a)}, {tuple(b)}")
            out = tuple(a[:-2]) + (b[-2], a[-2] if attrs.transpose else a[-1])
        else:
            if b[-2] != a[-1]:
                raise ShapeError(f"{name}: Incompatible matrix dimensions for multiplication {tuple(a)}, {tuple(b)}")
            out = tuple(a[:-2]) + (a[-1] if attrs.transpose else a[-2], b[-1])
        assert len(out) == nd
        return list(in_shapes), [out]

    def backward(attrs, in_shapes, out_shapes):
        o = out_shapes[0]
        if o is None or len(o) < 2:
            return list(in_shapes)
        batch = tuple(o[:-2])
        if attrs.rightside:
            s1 = batch + (o[-1], o[-1])
            s2 = batch + (o[-2], o[-1])
        else:
            s1 = batch + (o[-2], o[-2])
            s2 = batch + (o[-2], o[-1])
        return [merge_shape(in_shapes[0], s1, name), merge_shape(in_shapes[1], s2, name)]
    return infer, backward


_TRI = (Param("transpose", Bool, False), Param("rightside", Bool, False), Param("lower", Bool, True),
        Param("alpha", Float, 1.0))
_TRI_SHAPES = {n: _trmm_shape(f"linalg.{n}") for n in ("trmm", "trsm")}
for _name, _fn in (("trmm", _trmm), ("trsm", _trsm)):
    _inf, _back = _TRI_SHAPES[_name]
    register(OpDef(f"_linalg_{_name}", _fn, inputs=("A", "B"), params=_TRI, infer_shape=_inf,
                   infer_shape_backward=_back, infer_type=_float_type(f"linalg.{_name}"),
                   aliases=(f"linalg_{_name}",)))


# -- sumlogdiag, extractdiag, makediag, extracttrian, maketrian ----------------------------------------------
def _sumlogdiag(attrs, a):
    """_linalg_sumlogdiag: sum of the logarithms of the diagonal (shape: the batch axes, or (1,))."""
    _check_float("linalg.sumlogdiag", a.dtype)
    if a.shape[-1] != a.shape[-2]:
        raise ShapeError("linalg.sumlogdiag: sumlogdiag operator requires square matrices as input.")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.diagonal(a, axis1=-2, axis2=-1)).sum(axis=-1, dtype=a.dtype)
    return np.asarray(out, dtype=a.dtype).reshape(a.shape[:-2] or (1,))


def _sumlogdiag_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) < 2:
        if s is not None and len(s) == 1:
            raise ShapeError(f"linalg.sumlogdiag: needs a tensor of matrices, got shape {tuple(s)}")
        return list(in_shapes), [None]
    return list(in_shapes), [tuple(s[:-2]) or (1,)]


register(OpDef("_linalg_sumlogdiag", _sumlogdiag, inputs=("A",), infer_shape=_sumlogdiag_shape,
               infer_type=_float_type("linalg.sumlogdiag"), aliases=("linalg_sumlogdiag",)))


def _extract_n(name: str, s, offset: int) -> int:
    if len(s) < 2:
        raise ShapeError(f"{name}: Input operand must be a tensor of matrices, got shape {tuple(s)}")
    if s[-1] != s[-2]:
        raise ShapeError(f"{name}: Input operand must be a tensor of square matrices, got shape {tuple(s)}")
    n = s[-1] - abs(offset)
    if n <= 0:
        raise ShapeError(f"{name}: Illegal offset {offset} for diag/trian extraction of matrix with "
                         f"dimension {len(s)}")
    return n


def _extractdiag(attrs, a):
    """_linalg_extractdiag: the ``offset``-th diagonal of every matrix."""
    _check_float("linalg.extractdiag", a.dtype)
    _extract_n("linalg.extractdiag", a.shape, attrs.offset)
    return np.ascontiguousarray(np.diagonal(a, offset=attrs.offset, axis1=-2, axis2=-1))


def _makediag(attrs, a):
    """_linalg_makediag: square matrices with the input vectors on the ``offset``-th diagonal."""
    _check_float("linalg.makediag", a.dtype)
    n = a.shape[-1]
    k = attrs.offset
    m = n + abs(k)
    out = np.zeros(a.shape[:-1] + (m, m), dtype=a.dtype)
    i = np.arange(n)
    out[..., i + max(-k, 0), i + max(k, 0)] = a
    return out


@lru_cache(maxsize=256)
def _trian_index(n: int, offset: int, lower: bool) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the packed triangle of an n x n matrix in MXNet's order (``CopyTrian``)."""
    r, c = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    r, c = r.ravel(), c.ravel()
    if offset > 0 or (offset == 0 and not lower):
        rr, cc = c - abs(offset), r            # transposed coordinates for the upper triangle
    else:
        rr, cc = r - abs(offset), c
    keep = rr >= cc
    index = (rr * (rr + 1)) // 2 + cc
    order = np.argsort(index[keep], kind="stable")
    return r[keep][order], c[keep][order]


def _extracttrian(attrs, a):
    """_linalg_extracttrian: one triangle (``lower``/upper, shifted by ``offset``) packed into a vector."""
    _check_float("linalg.extracttrian", a.dtype)
    _extract_n("linalg.extracttrian", a.shape, attrs.offset)
    rows, cols = _trian_index(a.shape[-1], attrs.offset, attrs.lower)
    return np.ascontiguousarray(a[..., rows, cols])


def _trian_size(name: str, m: int) -> int:
    k = int(np.floor(0.5 + (np.sqrt(8 * m + 1) - 1.0) * 0.5))
    if k * (k + 1) // 2 != m:
        raise ShapeError(f"{name}: Input tensor of maketrian has an invalid dimension for the last axis ({m}).")
    return k


def _maketrian(attrs, a):
    """_linalg_maketrian: square matrices whose triangle is filled from packed vectors (rest zero)."""
    _check_float("linalg.maketrian", a.dtype)
    n = _trian_size("linalg.maketrian", a.shape[-1]) + abs(attrs.offset)
    rows, cols = _trian_index(n, attrs.offset, attrs.lower)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    out[..., rows, cols] = a
    return out


def _diag_trian_shape(name: str, diag: bool, extract: bool):
    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None or len(s) == 0 or not known(s, scalar=False):
            return list(in_shapes), [None]
        k = attrs.offset
        if extract:
            n = _extract_n(name, s, k)
            return list(in_shapes), [tuple(s[:-2]) + (n if diag else n * (n + 1) // 2,)]
        m = s[-1] + abs(k) if diag else _trian_size(name, s[-1]) + abs(k)
        return list(in_shapes), [tuple(s[:-1]) + (m, m)]
    return infer


_DIAG = (Param("offset", Int, 0),)
_TRIAN = (Param("offset", Int, 0), Param("lower", Bool, True))
for _name, _fn, _params, _diag, _extract in (
        ("extractdiag", _extractdiag, _DIAG, True, True), ("makediag", _makediag, _DIAG, True, False),
        ("extracttrian", _extracttrian, _TRIAN, False, True), ("maketrian", _maketrian, _TRIAN, False, False)):
    register(OpDef(f"_linalg_{_name}", _fn, inputs=("A",), params=_params,
                   infer_shape=_diag_trian_shape(f"linalg.{_name}", _diag, _extract),
                   infer_type=_float_type(f"linalg.{_name}"), aliases=(f"linalg_{_name}",)))


# -- syrk, gelqf, syevd ------------------------------------------------------------------------------------
def _syrk(attrs, a):
    """_linalg_syrk: alpha * A A^T (or alpha * A^T A with ``transpose``), exactly symmetric."""
    _check_float("linalg.syrk", a.dtype)
    out = np.matmul(_tr(a), a) if attrs.transpose else np.matmul(a, _tr(a))
    out = (out * attrs.alpha).astype(a.dtype, copy=False)
    return _sym_from(out, True)


def _syrk_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) < 2:
        return list(in_shapes), [None]
    m = s[-1] if attrs.transpose else s[-2]
    return list(in_shapes), [tuple(s[:-2]) + (m, m)]


register(OpDef("_linalg_syrk", _syrk, inputs=("A",),
               params=(Param("transpose", Bool, False), Param("alpha", Float, 1.0)),
               infer_shape=_syrk_shape, infer_type=_float_type("linalg.syrk"), aliases=("linalg_syrk",)))


def _gelqf(attrs, a):
    """_linalg_gelqf: LQ factorization A = L Q (Q row-orthonormal, L lower triangular)."""
    _check_float("linalg.gelqf", a.dtype)
    if a.shape[-2] > a.shape[-1]:
        raise ShapeError(f"linalg.gelqf: Input A shape wrong: Last dimension must be >= than second to last, "
                         f"got {a.shape}")
    q, r = qr(_tr(a))
    return (np.ascontiguousarray(_tr(q)).astype(a.dtype, copy=False),
            np.ascontiguousarray(np.tril(_tr(r))).astype(a.dtype, copy=False))


def _a_like_first_output(name: str):
    """Backward shape rule of the factorizations whose first output has A's shape (gelqf's Q,
    syevd's U): A learns the dimensions that output knows (a matrix: at least 2 axes)."""
    def backward(attrs, in_shapes, out_shapes):
        o = out_shapes[0]
        if o is None or len(o) < 2:
            return list(in_shapes)
        return [merge_shape(in_shapes[0], o, name)]
    return backward


def _gelqf_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) < 2:
        return list(in_shapes), [None, None]
    if s[-2] and s[-1] and s[-2] > s[-1]:
        raise ShapeError(f"linalg.gelqf: Input A shape wrong: Last dimension must be >= than second to last, "
                         f"got {tuple(s)}")
    return list(in_shapes), [tuple(s), tuple(s[:-1]) + (s[-2],)]


register(OpDef("_linalg_gelqf", _gelqf, inputs=("A",), num_outputs=2, infer_shape=_gelqf_shape,
               infer_shape_backward=_a_like_first_output("linalg.gelqf"), infer_type=_float_type("linalg.gelqf", 2),
               aliases=("linalg_gelqf",)))


def _syevd(attrs, a):
    """_linalg_syevd: eigenvectors (rows of U, signed deterministically) and ascending eigenvalues of
    the symmetric matrix given by the lower triangle of A."""
    _check_float("linalg.syevd", a.dtype)
    _square("linalg.syevd", a.shape)
    w, v = np.linalg.eigh(_sym_from(a, True))
    u = np.ascontiguousarray(_tr(v))
    if u.size:
        k = np.argmax(np.abs(u), axis=-1)
        sign = np.where(np.take_along_axis(u, k[..., None], axis=-1) < 0, -1, 1).astype(u.dtype)
        u = u * sign
    return u.astype(a.dtype, copy=False), w.astype(a.dtype, copy=False)


def _syevd_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) < 2:
        return list(in_shapes), [None, None]
    _square("linalg.syevd", s)
    return list(in_shapes), [tuple(s), tuple(s[:-1])]


register(OpDef("_linalg_syevd", _syevd, inputs=("A",), num_outputs=2, infer_shape=_syevd_shape,
               infer_shape_backward=_a_like_first_output("linalg.syevd"), infer_type=_float_type("linalg.syevd", 2)))


# -- inverse, det, slogdet ---------------------------------------------------------------------------------
def _inverse(attrs, a):
    """_linalg_inverse: the inverse of every square matrix (an error for a singular one)."""
    _check_float("linalg.inverse", a.dtype)
    _square("linalg.inverse", a.shape)
    if a.size == 0:
        return a.copy()
    try:
        return np.linalg.inv(a).astype(a.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise HybridizeError("linalg.inverse: the input matrix is non-convertible") from None


_inv_shape, _inv_back = _elemwise_square("linalg.inverse")
register(OpDef("_linalg_inverse", _inverse, inputs=("A",), infer_shape=_inv_shape,
               infer_type=_float_type("linalg.inverse"), aliases=("linalg_inverse", "_npi_inv")))


def _slogdet_parts(name: str, a):
    _check_float(name, a.dtype)
    _square(name, a.shape)
    sign, logdet = np.linalg.slogdet(a)
    shape = a.shape[:-2] or _one_matrix_shape()
    return (np.asarray(sign, dtype=a.dtype).reshape(shape), np.asarray(logdet, dtype=a.dtype).reshape(shape))


def _det(attrs, a):
    """_linalg_det: determinant via LU, as MXNet: sign * exp(sum(log|diag U|))."""
    sign, logdet = _slogdet_parts("linalg.det", a)
    return (sign * np.exp(logdet)).astype(a.dtype, copy=False)


def _slogdet(attrs, a):
    """_linalg_slogdet: (sign, log|det|) of every square matrix (0 and -inf for a singular one)."""
    return _slogdet_parts("linalg.slogdet", a)


def _det_shape(name: str, n: int):
    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None or len(s) == 0:
            return list(in_shapes), [None] * n
        _square(name, s)
        return list(in_shapes), [tuple(s[:-2]) or _one_matrix_shape()] * n
    return infer


def _one_matrix_shape() -> tuple:
    """The shape of one matrix's determinant: (1,) in MXNet 1.x, zero-dim with NumPy shape semantics."""
    from ._util import _NP_SHAPE
    return () if _NP_SHAPE["on"] else (1,)


register(_NamedOutputs("_linalg_det", _det, inputs=("A",), infer_shape=_det_shape("linalg.det", 1),
                       infer_type=_float_type("linalg.det"), aliases=("linalg_det", "_npi_det"),
                       out_names=("output0",)))  # MXNet's hidden LU and pivot outputs follow
register(OpDef("_linalg_slogdet", _slogdet, inputs=("A",), num_outputs=2, infer_shape=_det_shape("linalg.slogdet", 2),
               infer_type=_float_type("linalg.slogdet", 2), aliases=("linalg_slogdet", "_npi_slogdet")))


# -- gradients (MXNet 1.9.1: src/operator/tensor/la_op.cc, the backward kernels of la_op-inl.h) -------------
def _copy_ltu(m: np.ndarray) -> np.ndarray:
    """MXNet's copyLTU: the symmetric matrix with ``m``'s lower triangle (and diagonal)."""
    low = np.tril(m)
    return low + _tr(np.tril(m, -1))


def _inv(x: np.ndarray) -> np.ndarray:
    return np.linalg.inv(x)


def _f64(*xs):
    return [np.asarray(x, dtype=np.float64) for x in xs]


def _backward_potrf(attrs, og, a, out):
    """dA = 0.5 L^-T copyLTU(L^T dL) L^-1 with L the lower factor (an upper factor is transposed)."""
    dl, low = _f64(og, out)
    if not attrs.lower:
        dl, low = _tr(dl), _tr(low)
    li = _inv(low)
    da = 0.5 * np.matmul(np.matmul(_tr(li), _copy_ltu(np.matmul(_tr(low), dl))), li)
    return da.astype(a.dtype)


def _backward_potri(attrs, og, b, out):
    """lower: dB = -tril(A (dA + dA^T) B^-T); upper: dB = -triu(B^-T (dA + dA^T) A)."""
    da, bb, aa = _f64(og, b, out)
    s = da + _tr(da)
    t = _tri(bb, attrs.lower)
    if attrs.lower:
        g = -np.matmul(np.matmul(aa, s), _tr(_inv(t)))
    else:
        g = -np.matmul(np.matmul(_tr(_inv(t)), s), aa)
    return _tri(g, attrs.lower).astype(b.dtype)


def _op(x: np.ndarray, transpose: bool) -> np.ndarray:
    return _tr(x) if transpose else x


def _backward_trmm(attrs, og, a, b):
    """C = alpha op(A) B (or B op(A)): dB = alpha op(A)^T dC (dC op(A)^T); dA its triangle of alpha dC B^T
    (B^T dC), transposed back when ``transpose``."""
    dc, aa, bb = _f64(og, a, b)
    t = _op(_tri(aa, attrs.lower), attrs.transpose)
    if attrs.rightside:
        dop, db = np.matmul(_tr(bb), dc), np.matmul(dc, _tr(t))
    else:
        dop, db = np.matmul(dc, _tr(bb)), np.matmul(_tr(t), dc)
    da = _tri(attrs.alpha * _op(dop, attrs.transpose), attrs.lower)
    return da.astype(a.dtype), (attrs.alpha * db).astype(b.dtype)


def _backward_trsm(attrs, og, a, b, out):
    """C = alpha op(A)^-1 B (or B op(A)^-1): dB = alpha op(A)^-T dC (dC op(A)^-T); d op(A) = -dB C^T / alpha
    (-C^T dB / alpha), triangle kept."""
    dc, aa, cc = _f64(og, a, out)
    ti = _inv(_op(_tri(aa, attrs.lower), attrs.transpose))
    if attrs.rightside:
        db = attrs.alpha * np.matmul(dc, _tr(ti))
        dop = -np.matmul(_tr(cc), db) / attrs.alpha
    else:
        db = attrs.alpha * np.matmul(_tr(ti), dc)
        dop = -np.matmul(db, _tr(cc)) / attrs.alpha
    da = _tri(_op(dop, attrs.transpose), attrs.lower)
    return da.astype(a.dtype), db.astype(b.dtype)


for _name, _fn, _ins, _like in (("trmm", _backward_trmm, ("ograd", "A", "B"), (1, 2)),
                                ("trsm", _backward_trsm, ("ograd", "A", "B", "C"), (1, 2))):
    backward_op(f"_backward_linalg_{_name}", _fn, _ins, like=_like, num_outputs=2, params=_TRI)
backward_op("_backward_linalg_potrf", _backward_potrf, ("ograd", "A", "L"), params=_CHOL)
backward_op("_backward_linalg_potri", _backward_potri, ("ograd", "B", "A"), params=_CHOL)


def _backward_sumlogdiag(attrs, og, a):
    """dA = diag(dB / diag(A)), zero off the diagonal."""
    n = a.shape[-1]
    eye = np.eye(n, dtype=bool)
    d = np.diagonal(a, axis1=-2, axis2=-1)
    g = og.reshape(a.shape[:-2] + (1,)) / d
    return np.where(eye, g[..., None, :], 0).astype(a.dtype)


def _backward_syrk(attrs, og, a):
    """B = alpha A A^T: dA = alpha (dB + dB^T) A; B = alpha A^T A: dA = alpha A (dB + dB^T)."""
    db, aa = _f64(og, a)
    s = db + _tr(db)
    g = np.matmul(aa, s) if attrs.transpose else np.matmul(s, aa)
    return (attrs.alpha * g).astype(a.dtype)


def _backward_gelqf(attrs, og_q, og_l, a, q, low):
    """dA = L^-T (dQ + copyLTU(M) Q), M = L^T dL - dQ Q^T."""
    dq, dl, qq, ll = _f64(og_q, og_l, q, low)
    m = np.matmul(_tr(ll), dl) - np.matmul(dq, _tr(qq))
    g = np.matmul(_tr(_inv(ll)), dq + np.matmul(_copy_ltu(m), qq))
    return g.astype(a.dtype)


def _backward_syevd(attrs, og_u, og_l, a, u, lam):
    """dA = U^T Y U: Y's off-diagonal (X_ij - X_ji) / (2 max(l_i - l_j, eps)) with X = dU U^T, its diagonal dL."""
    du, dl, uu, ll = _f64(og_u, og_l, u, lam)
    x = np.matmul(du, _tr(uu))
    eps = 1e-30 if a.dtype == np.float32 else 1e-100
    denom = 2.0 * np.maximum(ll[..., :, None] - ll[..., None, :], eps)     # [i, j] = l_i - l_j
    n = a.shape[-1]
    below = np.tril(np.ones((n, n), dtype=bool), -1)
    y = np.where(below, (x - _tr(x)) / denom, 0.0)
    y = y + _tr(y)
    y = y + np.eye(n) * dl[..., None, :]
    return np.matmul(np.matmul(_tr(uu), y), uu).astype(a.dtype)


def _backward_inverse(attrs, og, a, out):
    """A = inverse(B): dB = -A^T dA A^T."""
    da, inv = _f64(og, out)
    return (-np.matmul(np.matmul(_tr(inv), da), _tr(inv))).astype(a.dtype)


def _backward_det(attrs, og, a, det):
    """Jacobi's formula: d det = det A^-T, zero where det is 0 (as MXNet)."""
    aa, g, d = _f64(a, og, det)
    d = d.reshape(a.shape[:-2] + (1, 1))
    g = g.reshape(d.shape)
    singular = d == 0
    inv_t = _tr(np.linalg.inv(np.where(singular, np.eye(a.shape[-1]), aa)))
    return np.where(singular, 0.0, g * d * inv_t).astype(a.dtype)


def _backward_slogdet(attrs, og_sign, og_logdet, a, sign):
    """d log|det| = A^-T (the sign gets no gradient), zero for a singular matrix."""
    aa, g, s = _f64(a, og_logdet, sign)
    s = s.reshape(a.shape[:-2] + (1, 1))
    singular = s == 0
    inv_t = _tr(np.linalg.inv(np.where(singular, np.eye(a.shape[-1]), aa)))
    return np.where(singular, 0.0, g.reshape(s.shape) * inv_t).astype(a.dtype)


backward_op("_backward_linalg_sumlogdiag", _backward_sumlogdiag, ("ograd", "A"))
backward_op("_backward_linalg_syrk", _backward_syrk, ("ograd", "A"),
            params=(Param("transpose", Bool, False), Param("alpha", Float, 1.0)))
backward_op("_backward_linalg_gelqf", _backward_gelqf, ("ograd_Q", "ograd_L", "A", "Q", "L"), like=2)
backward_op("_backward_linalg_syevd", _backward_syevd, ("ograd_U", "ograd_L", "A", "U", "L"), like=2)
backward_op("_backward_linalg_inverse", _backward_inverse, ("ograd", "A", "out"))
backward_op("_backward_linalg_det", _backward_det, ("ograd", "A", "det"))
backward_op("_backward_linalg_slogdet", _backward_slogdet, ("ograd_sign", "ograd_logabsdet", "A", "sign"), like=2)


def _call(F, name, *args, **kw):
    return internal(F, f"_backward_linalg_{name}")(*args, **kw)


@defgrad("_linalg_potrf")
def _potrf_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "potrf", out_grads[0], inputs[0], outputs[0], lower=attrs.lower)]


@defgrad("_linalg_potri")
def _potri_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "potri", out_grads[0], inputs[0], outputs[0], lower=attrs.lower)]


def _tri_kw(attrs):
    return {"transpose": attrs.transpose, "rightside": attrs.rightside, "lower": attrs.lower, "alpha": attrs.alpha}


@defgrad("_linalg_trmm")
def _trmm_grad(F, attrs, inputs, outputs, out_grads):
    g = _call(F, "trmm", out_grads[0], inputs[0], inputs[1], **_tri_kw(attrs))
    return [g[0], g[1]]


@defgrad("_linalg_trsm")
def _trsm_grad(F, attrs, inputs, outputs, out_grads):
    g = _call(F, "trsm", out_grads[0], inputs[0], inputs[1], outputs[0], **_tri_kw(attrs))
    return [g[0], g[1]]


@defgrad("_linalg_sumlogdiag")
def _sumlogdiag_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "sumlogdiag", out_grads[0], inputs[0])]


@defgrad("_linalg_extractdiag")
def _extractdiag_grad(F, attrs, inputs, outputs, out_grads):
    return [F.linalg.makediag(out_grads[0], offset=attrs.offset)]


@defgrad("_linalg_makediag")
def _makediag_grad(F, attrs, inputs, outputs, out_grads):
    return [F.linalg.extractdiag(out_grads[0], offset=attrs.offset)]


@defgrad("_linalg_extracttrian")
def _extracttrian_grad(F, attrs, inputs, outputs, out_grads):
    return [F.linalg.maketrian(out_grads[0], offset=attrs.offset, lower=attrs.lower)]


@defgrad("_linalg_maketrian")
def _maketrian_grad(F, attrs, inputs, outputs, out_grads):
    return [F.linalg.extracttrian(out_grads[0], offset=attrs.offset, lower=attrs.lower)]


@defgrad("_linalg_syrk")
def _syrk_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "syrk", out_grads[0], inputs[0], transpose=attrs.transpose, alpha=attrs.alpha)]


@defgrad("_linalg_gelqf")
def _gelqf_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "gelqf", out_grads[0], out_grads[1], inputs[0], outputs[0], outputs[1])]


@defgrad("_linalg_syevd")
def _syevd_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "syevd", out_grads[0], out_grads[1], inputs[0], outputs[0], outputs[1])]


@defgrad("_linalg_inverse")
def _inverse_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "inverse", out_grads[0], inputs[0], outputs[0])]


@defgrad("_linalg_det")
def _det_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "det", out_grads[0], inputs[0], outputs[0])]


@defgrad("_linalg_slogdet")
def _slogdet_grad(F, attrs, inputs, outputs, out_grads):
    return [_call(F, "slogdet", out_grads[0], out_grads[1], inputs[0], outputs[0])]
