"""A dense layer's GEMM split over the runtime's thread pool: the output's rows in one chunk per
thread, each chunk one single-threaded BLAS call writing its rows of the output in place
(``np.matmul(a[lo:hi], b, out=out[lo:hi])``: row slices of a transposed view too, without a copy).

Training programs run BLAS single-threaded (``kernels/parallel.py``); a training step's larger
GEMMs (an MLP's first layer: 64x512 by 512x256 forward, its weight gradient 256x64 by 64x512) take
both cores this way, as MXNet's BLAS does, without OpenBLAS's spinning threads. The chunk bounds
are fixed by the shapes, so a result does not depend on which thread ran which chunk; it may differ
from one unsplit GEMM in the last bits (BLAS blocks a shorter product differently).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .parallel import matmul_chunks, run_chunks

__all__ = ["SPLIT_MIN_WORK", "split_matmul"]

SPLIT_MIN_WORK = 4e6     # multiply-adds below which waking the pool costs about what the split saves


def split_matmul(rows: int, inner: int, cols: int) -> Callable | None:
    """``run(a, b, out)``: ``out[:] = a @ b`` for ``a`` of ``rows`` rows, in row chunks on the pool;
    None when the product is too small to split (or the pool is off)."""
    n = matmul_chunks(float(rows) * inner * cols, rows, SPLIT_MIN_WORK)
    if n <= 1:
        return None
    bounds = [(rows * i // n, rows * (i + 1) // n) for i in range(n)]
    matmul = np.matmul

    def run(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        def chunk(i: int) -> None:
            lo, hi = bounds[i]
            matmul(a[lo:hi], b, out=out[lo:hi])
        run_chunks(chunk, n)
    return run
