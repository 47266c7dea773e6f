"""Gradient rules of ``np.linalg.norm``, ``svd``, ``tensorinv``, ``tensorsolve`` and ``einsum`` as
MXNet 1.9.1's backward kernels compute them (``src/operator/numpy/linalg/np_norm-inl.h``,
``np_gesvd-inl.h``, ``np_tensorinv-inl.h``, ``np_tensorsolve-inl.h``, ``src/operator/numpy/
np_einsum_op-inl.h``). Each rule calls one backward kernel registered here, so the imperative tape and
the compiled backward run the same numbers.

MXNet's conventions kept: a norm's gradient goes to every element that attains a max/min (``inf``
norms, matrix 1/inf norms, the spectral norm's largest/smallest singular value), ``sign(0) = 0``, the
0-norm's gradient is zero, a zero-size input gets zeros; svd's gradient is MXNet's formula with its
clamped denominators (``max(l_i - l_j, eps)``, ``max(l_i, eps)``), not the textbook one; tensorsolve
differentiates both ``a`` and ``b``. Also MXNet's numbers where its kernels depart from the derivative
(recorded from MXNet 1.9.1, see each kernel): the 2/-2 matrix norms, the float-inf matrix norms and
the 1/-1 norms of a matrix without ``axis`` scale with the output gradient squared, the 2/-2 norms
over non-trailing axes mix the matrices' weights, and einsum's operand broadcast along an ellipsis
dimension reads the output gradient at index 0 of that dimension.
"""
from __future__ import annotations

import numpy as np

from .numpy_ops import norm_kind  # (and the forward operators are registered first)
from ._grad import backward_op, internal
from .registry import OpDef, defgrad, get_op, register


# -- norm (np_norm-inl.h NumpyNormComputeBackward; the inf norms are MXNet's front-end max/min of abs) ----
def _backward_norm(attrs, og, x):
    """d norm / d x times the output gradient, for every (ord, flag) MXNet's kernel takes."""
    if x.size == 0:
        return np.zeros_like(x)
    kind, axes, p = norm_kind(attrs, x.ndim)
    xs = x.astype(np.float64)
    keep = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    g = np.asarray(og, np.float64).reshape(keep)
    sign = np.sign(xs)
    with np.errstate(all="ignore"):
        if kind in ("flat", "fro") or (len(axes) == 1 and p == 2):
            n = np.sqrt((xs * xs).sum(axis=axes, keepdims=True))
            d = xs / n
        elif kind == "nuc" or (len(axes) == 2 and abs(p) == 2):   # through the singular values
            return _spectral_backward(xs, g, axes, "nuc" if kind == "nuc" else p).astype(x.dtype)
        elif len(axes) == 1:                      # vector norms
            ab = np.abs(xs)
            if np.isinf(p):                        # max/min of abs: every element that attains it
                n = ab.max(axis=axes, keepdims=True) if p > 0 else ab.min(axis=axes, keepdims=True)
                d = sign * (ab == n)
            elif p == 1:
                d = sign
            elif p == 0:                           # counts nonzeros: elementwise constant
                d = np.zeros_like(xs)
            else:
                nz = ab != 0                        # MXNet's reducer skips zeros
                n = np.where(nz, np.where(nz, ab, 1.0) ** p, 0.0).sum(axis=axes, keepdims=True) ** (1.0 / p)
                d = np.power(ab / n, p - 1) * sign
        else:                                       # matrix 1 / inf norms: max/min of column/row sums
            r, c = axes
            s = np.abs(xs).sum(axis=r if abs(p) == 1 else c, keepdims=True)
            other = c if abs(p) == 1 else r
            n = s.max(axis=other, keepdims=True) if p > 0 else s.min(axis=other, keepdims=True)
            # MXNet's front end composes abs/sum/max over two given axes; the ones reaching its kernel
            # (no axis, or a float inf) get the weighted mask applied twice: the output gradient squared
            d = sign * (s == n) * g
    return (g * d).astype(x.dtype)


def _spectral_backward(xs, g, axes, ordv):
    """The 2/-2/nuclear matrix norms' gradient as NumpyMatrixNormGradCompute computes it: ``u diag(dl) v``
    per matrix times the output gradient, where for 2/-2 ``dl`` (the indicator of the largest/smallest
    singular value) is itself weighted by the output gradient (so the gradient scales with its square)
    and is laid out in the input's axis order, then read back as (matrix, singular value) without undoing
    that transpose: with the matrix axes not last, the weights land on other matrices' values as in MXNet."""
    nd = xs.ndim
    perm = [i for i in range(nd) if i not in axes] + list(axes)
    back = list(np.argsort(perm))
    moved = xs.transpose(perm)
    u, sv, vt = np.linalg.svd(moved, full_matrices=False)
    batch, k = moved.shape[:-2], sv.shape[-1]
    if ordv == "nuc":
        dl = np.ones_like(sv)
    else:
        rows_first = moved.shape[-2] <= moved.shape[-1]
        laid = sv.reshape(batch + ((k, 1) if rows_first else (1, k))).transpose(back)
        n = sv.max(axis=-1) if ordv > 0 else sv.min(axis=-1)
        n = n.reshape(batch + (1, 1)).transpose(back)
        dl = (g * np.sign(laid) * (np.abs(laid) == np.abs(n))).reshape(batch + (k,))
    og = g.transpose(perm)
    return (np.matmul(u * dl[..., None, :], vt) * og).transpose(back)


backward_op("_backward_npi_norm", _backward_norm, ("ograd", "x"), params=get_op("_npi_norm").params)


@defgrad("_npi_norm")
def _norm_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_npi_norm")(out_grads[0], inputs[0], **attrs.as_dict())]


# -- svd (np_gesvd-inl.h gesvd_backward: (dUT, dL, dV, UT, L, V) -> dA) -------------------------------------
def _backward_svd(attrs, dut, dl, dv, ut, sv, v):
    """MXNet's svd backward for ``a = ut @ diag(l) @ v`` (``a`` is m x n, m <= n)."""
    if v.size == 0:
        return np.zeros_like(v)
    dtype = v.dtype
    eps = 1e-30 if dtype == np.float32 else 1e-100   # gesvd_back_helper_eps
    dut, dl, dv, ut, sv, v = (np.asarray(t, np.float64) for t in (dut, dl, dv, ut, sv, v))
    vt = np.swapaxes(v, -1, -2)
    da = dv / np.maximum(sv, eps)[..., :, None]                       # L^-1 dV
    m = np.matmul(da, vt)
    y = np.diagonal(m, axis1=-2, axis2=-1)
    m = m * sv[..., None, :] + np.matmul(np.swapaxes(dut, -1, -2), ut)
    d1 = np.maximum(sv[..., :, None] - sv[..., None, :], eps)
    d2 = np.maximum(sv[..., :, None] + sv[..., None, :], eps)
    e = np.triu((m - np.swapaxes(m, -1, -2)) / d1 / d2, 1)
    x = (e + np.swapaxes(e, -1, -2)) * sv[..., None, :]
    k = sv.shape[-1]
    x[..., np.arange(k), np.arange(k)] = dl - y
    return np.matmul(ut, np.matmul(x, v) + da).astype(dtype)


backward_op("_backward_npi_svd", _backward_svd, ("dUT", "dL", "dV", "UT", "L", "V"), like=5)


@defgrad("_npi_svd")
def _svd_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_npi_svd")(*out_grads, *outputs)]


# -- tensorinv (np_tensorinv-inl.h: the gradient from the output alone, dA = -inv^T dX inv^T) --------------
def _tensorinv_input_shape(inv_shape: tuple, ind: int) -> tuple:
    """``a``'s shape from its inverse's: ``inv.shape = a.shape[ind:] + a.shape[:ind]``."""
    r = max(len(inv_shape) - ind, 0)
    return tuple(inv_shape[r:]) + tuple(inv_shape[:r])


def _backward_tensorinv(attrs, og, inv):
    shape = _tensorinv_input_shape(inv.shape, attrs.ind)
    if inv.size == 0:
        return np.zeros(shape, inv.dtype)
    r = max(inv.ndim - attrs.ind, 0)
    a2, a1 = int(np.prod(inv.shape[:r])), int(np.prod(inv.shape[r:]))
    m = inv.astype(np.float64).reshape(a2, a1)
    g = np.asarray(og, np.float64).reshape(a2, a1)
    return (-(m.T @ g) @ m.T).reshape(shape).astype(inv.dtype)


def _tensorinv_backward_shape(attrs, in_shapes):
    from ._util import known
    inv = in_shapes[1]
    return list(in_shapes), [_tensorinv_input_shape(tuple(inv), attrs.ind) if known(inv) else None]


register(OpDef("_backward_npi_tensorinv", _backward_tensorinv, params=get_op("_npi_tensorinv").params,
               inputs=("ograd", "inv_a"), infer_shape=_tensorinv_backward_shape,
               infer_type=lambda a, ds: [ds[1] or np.float32], doc="tensorinv backward."))


@defgrad("_npi_tensorinv")
def _tensorinv_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_npi_tensorinv")(out_grads[0], outputs[0], **attrs.as_dict())]


# -- tensorsolve (np_tensorsolve-inl.h: dB = inv(A)^T dX, dA = -dB X^T, A = a with a_axes moved last) ------
def _backward_tensorsolve(attrs, og, a, b, x):
    if a.size == 0 or b.size == 0:
        return np.zeros_like(a), np.zeros_like(b)
    axes = tuple(ax % a.ndim for ax in attrs.a_axes) if attrs.a_axes else ()
    last = tuple(range(a.ndim - len(axes), a.ndim))
    moved = np.moveaxis(a.astype(np.float64), axes, last) if axes else a.astype(np.float64)
    n = b.size
    inv = np.linalg.inv(moved.reshape(n, n))
    db = inv.T @ np.asarray(og, np.float64).reshape(n, 1)
    da = -(db @ x.astype(np.float64).reshape(1, n)).reshape(moved.shape)
    if axes:
        da = np.moveaxis(da, last, axes)
    return da.astype(a.dtype), db.reshape(b.shape).astype(b.dtype)


backward_op("_backward_npi_tensorsolve", _backward_tensorsolve, ("ograd", "a", "b", "x"), like=(1, 2),
            num_outputs=2, params=get_op("_npi_tensorsolve").params)


@defgrad("_npi_tensorsolve")
def _tensorsolve_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_npi_tensorsolve")(out_grads[0], inputs[0], inputs[1], outputs[0],
                                                 **attrs.as_dict())
    return [g[0], g[1]]


# -- einsum (np_einsum_op-inl.h: operand i's gradient sums the output gradient times the other operands
# over every index combination, so repeated indices land on their diagonal; a dimension this operand
# broadcasts is summed back, with MXNet's reading of the output gradient there) ---------------------------
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _explicit_subscripts(spec: str, shapes: list[tuple]) -> tuple[list[str], str]:
    """The operands' and the output's subscripts with every ellipsis spelt out in unused letters
    (right-aligned, as NumPy broadcasts them) and an implicit output made explicit."""
    spec = spec.replace(" ", "")
    ins_text, _, out_text = spec.partition("->")
    ins = ins_text.split(",")
    n_ell = max((len(s) - (len(t) - 3) for t, s in zip(ins, shapes) if "..." in t), default=0)
    free = [c for c in _LETTERS if c not in spec][:n_ell]
    ell = "".join(free)
    terms = []
    for t, s in zip(ins, shapes):
        k = len(s) - (len(t) - 3) if "..." in t else 0
        terms.append(t.replace("...", ell[n_ell - k:] if k else ""))
    if "->" in spec:
        out = out_text.replace("...", ell)
    else:
        named = "".join(t.replace("...", "") for t in ins)
        out = ell + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return terms, out


def _backward_einsum(attrs, og, *xs):
    terms, out = _explicit_subscripts(attrs.subscripts, [x.shape for x in xs])
    og = np.asarray(og, np.float64)
    grads = []
    for i, x in enumerate(xs):
        term = terms[i]
        uniq = "".join(dict.fromkeys(term))
        size = {c: x.shape[term.index(c)] for c in uniq}
        others = [t for j, t in enumerate(terms) if j != i]
        # where this operand broadcasts (size 1 against n), MXNet's kernel reads the output gradient at
        # index 0 of that dimension (and sums the other operands over it), not the sum of the gradient
        ogi = og
        for k, c in enumerate(out):
            if c in size and size[c] == 1 and og.shape[k] > 1:
                ogi = np.take(ogi, [0], axis=k)
        present = "".join(c for c in uniq if c in out or any(c in t for t in others))
        g = np.einsum(",".join([out] + others) + "->" + present, ogi,
                      *[xs[j].astype(np.float64) for j in range(len(xs)) if j != i])
        for k, c in enumerate(present):       # broadcast dimensions: sum back to 1, or spread from 1
            if g.shape[k] != size[c] and size[c] == 1:
                g = g.sum(axis=k, keepdims=True)
        g = np.broadcast_to(g, [size[c] for c in present])
        if len(present) < len(uniq):          # an index summed within this operand only: constant along it
            g = np.expand_dims(g, tuple(k for k, c in enumerate(uniq) if c not in present))
            g = np.broadcast_to(g, [size[c] for c in uniq])
        if len(uniq) == len(term):
            grad = np.array(g, dtype=x.dtype)
        else:                                 # repeated indices: the gradient sits on their diagonal
            grad = np.zeros(x.shape, x.dtype)
            np.einsum(term + "->" + uniq, grad)[...] = g
        grads.append(grad)
    return tuple(grads) if len(grads) > 1 else grads[0]


register(OpDef(
    "_backward_npi_einsum", _backward_einsum, params=get_op("_npi_einsum").params,
    inputs=lambda a: ["ograd"] + [f"arg{i}" for i in range(a.num_args)], num_outputs=lambda a: a.num_args,
    infer_shape=lambda a, ss: (list(ss), list(ss[1:])), infer_type=lambda a, ds: [d or np.float32 for d in ds[1:]],
    doc="einsum backward."))


@defgrad("_npi_einsum")
def _einsum_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_npi_einsum")(out_grads[0], *inputs, **attrs.as_dict())
    n = len(inputs)
    return [g] if n == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(n)]
