"""Direct calls of numpy's bundled BLAS ``?gemm`` (ctypes), for what ``np.matmul`` cannot say:
accumulate into the output (``beta = 1``): ``c += a @ b`` in one pass over ``c`` instead of a
matmul into a temporary and an add.

numpy wheels ship OpenBLAS as ``numpy.libs/libscipy_openblas64_*.so`` with prefixed, 64-bit-integer
CBLAS symbols (``scipy_cblas_sgemm64_``); other builds use other names or none. The symbols are
looked up once; when none is found, :func:`available` is False and callers fall back to numpy.
A call costs ~12 us of argument conversion (ctypes), so it pays on big products only. ctypes
releases the GIL during the call, like numpy's matmul.
"""
from __future__ import annotations
import ctypes
import glob
import os
from typing import Optional

import numpy as np

__all__ = ["available", "gemm"]

_RowMajor, _NoTrans = 101, 111
_gemm: Optional[dict] = None


def _find() -> dict:
    """``{dtype: cblas ?gemm}`` for float32 and float64 from numpy's bundled OpenBLAS ({} if none)."""
    global _gemm
    if _gemm is not None:
        return _gemm
    found: dict = {}
    base = os.path.dirname(os.path.dirname(np.__file__))
    libs = glob.glob(os.path.join(base, "numpy.libs", "*openblas*")) + \
        glob.glob(os.path.join(os.path.dirname(np.__file__), ".libs", "*openblas*"))
    for lib in libs:
        try:
            dll = ctypes.CDLL(lib)
        except OSError:
            continue
        for pre, suf, it in (("scipy_cblas_", "64_", ctypes.c_int64), ("scipy_cblas_", "", ctypes.c_int),
                             ("cblas_", "64_", ctypes.c_int64), ("cblas_", "", ctypes.c_int)):
            fs = {}
            for t, ct in (("s", ctypes.c_float), ("d", ctypes.c_double)):
                f = getattr(dll, f"{pre}{t}gemm{suf}", None)
                if f is None:
                    break
                f.restype = None
                f.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, it, it, it, ct, ctypes.c_void_p, it,
                              ctypes.c_void_p, it, ct, ctypes.c_void_p, it]
                fs[np.dtype("f4" if t == "s" else "f8")] = f
            if len(fs) == 2:
                found = fs
                break
        if found:
            break
    _gemm = found
    return found


def available(dtype) -> bool:
    """Can :func:`gemm` run on arrays of ``dtype``?"""
    return np.dtype(dtype) in _find()


def _ld(a: np.ndarray) -> int:
    """The leading dimension of a row-major 2-D operand (its row stride in elements)."""
    s0, s1 = a.strides
    isz = a.itemsize
    if a.shape[1] > 1 and s1 != isz:
        raise ValueError("gemm operands need unit stride on the last axis")
    if a.shape[0] <= 1:
        return max(1, a.shape[1])
    if s0 % isz or s0 // isz < a.shape[1]:
        raise ValueError("gemm operands need rows that do not overlap")
    return s0 // isz


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray, beta: float = 0.0) -> None:
    """``c = a @ b + beta * c`` for 2-D row-major operands of one dtype (last axis unit-stride;
    rows may be strided, e.g. channel slices). Only where :func:`available`."""
    if not (a.dtype == b.dtype == c.dtype) or a.shape[1] != b.shape[0] or c.shape != (a.shape[0], b.shape[1]):
        raise ValueError(f"gemm: operands {a.shape} {a.dtype}, {b.shape} {b.dtype} -> {c.shape} {c.dtype}")
    f = _find()[c.dtype]
    M, K = a.shape
    N = b.shape[1]
    f(_RowMajor, _NoTrans, _NoTrans, M, N, K, 1.0, a.ctypes.data, _ld(a), b.ctypes.data, _ld(b), beta,
      c.ctypes.data, _ld(c))
