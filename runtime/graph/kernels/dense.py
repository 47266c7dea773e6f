"""A dense layer's GEMM split over the runtime's thread pool: the output's columns in one chunk per
thread, each chunk one single-threaded BLAS call writing its columns of the output in place
(``np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])``: strided operands and output, no copy).

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

SPLIT_MIN_WORK = 64e6    # multiply-adds below which waking the pool costs more than the split saves (idle 2-core VM: the MLP's 8.4M-multiply-add layer ran slower split)


def split_matmul(rows: int, inner: int, cols: int) -> Callable | None:
    """``run(a, b, out)``: ``out[:] = a @ b`` for ``a`` of ``rows`` rows and ``b`` of ``cols``
    columns, in column chunks on the pool (each thread packs its share of ``b`` only; row chunks
    would each pack all of it, 20% slower here); None when the product is too small to split."""
    n = matmul_chunks(float(rows) * inner * cols, cols // 16, SPLIT_MIN_WORK)
    if n <= 1:
        return None
    bounds = [(cols * i // n // 16 * 16, cols * (i + 1) // n // 16 * 16 if i < n - 1 else cols) for i in range(n)]
    matmul = np.matmul

    def run(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        def chunk(i: int) -> None:
            lo, hi = bounds[i]
            matmul(a, b[:, lo:hi], out=out[:, lo:hi])
        run_chunks(chunk, n)
    return run
