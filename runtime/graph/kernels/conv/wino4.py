"""``wino4``: Winograd F(4x4, 3x3) for 3x3 stride-1 convolutions, one pipeline per band of tile rows.

Each band (tile rows ``th0..th1`` of every image) gathers its own zero-padded input rows, then:
the six rows of every 6x6 input tile (stride 4) by one strided copy, combined by ``B^T @ (6, ...)``;
the six tile columns likewise, leaving V as 36 matrices ``(T_band, C)`` in (column b, row a) order;
36 batched ``(T_band, C) @ (C, K)`` matmuls (4x fewer multiplies than direct convolution); the
output transform, two more small matmuls; one strided copy into the NHWC output rows
``4 th0 .. 4 th1``, and the fused epilogue (bias, residual, activation). A band touches only its own
scratch and output rows, so the whole convolution is a single parallel step: one hand-off to the
pool's workers instead of one per phase (a hand-off costs 10-200 us on a virtual machine whose idle
vCPUs halt), and each band's working set stays in cache.

The fixed rule (no timing) prefers it from 16 tiles of 4x4 on at 32+ channels (measured with
``python benchmarks/bench_compiler.py --kernels``: 1.5-3x faster than im2col + matmul there); with
fewer tiles (7x7 at batch 1) its 36 weight matrices (4x the direct weights) make it memory-bound.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..common import _epilogue, _pad_rows
from ..fastpath import RowTiling
from ..parallel import num_threads, run_chunks
from . import ConvAlgo, ConvSpec, register
from .wino import eligible, sandwich

WINO_BAND_WORK = 5e6   # multiply-adds (of the 36 matmuls) below which a Winograd convolution is one band

# Winograd F(4x4, 3x3) (Lavin & Gray, interpolation points 0, +-1, +-2, inf): Y = A^T [U . V] A with
# U = G g G^T (6x6 per filter) and V = B^T d B (6x6 per input tile, tiles overlap by 2).
_W4_BT = np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
                   [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]], np.float64)
_W4_G = np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
                  [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]], np.float64)
_W4_AT = np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]], np.float64)


def weight(w: np.ndarray, groups: int = 1) -> np.ndarray:
    """U = G g G^T for every (K, C) 3x3 filter, as (36, C, K) in (column b, row a) order: the order
    in which the kernel's separable input transform leaves the 36 tile matrices."""
    K, C = w.shape[:2]
    return np.ascontiguousarray(sandwich(_W4_G, w).transpose(3, 2, 1, 0).reshape(36, C, K).astype(w.dtype))


def weight_shape(shape: tuple, groups: int) -> tuple:
    K, Cg = shape[:2]
    return (36, Cg, K)


def rule(s: ConvSpec) -> Optional[float]:
    """Preferred over gemm (0) from 16 tiles on at 32+ channels, never below."""
    tiles = s.N * ((s.H + 3) // 4) * ((s.W + 3) // 4)
    return 1.0 if s.C >= 32 and s.K >= 32 and tiles >= 16 else None


def _bands(s: ConvSpec) -> tuple:
    """(TH, TW, bands, ragged): tile rows/columns, the bands of tile rows, which bands overhang."""
    TH, TW = -(-s.OH // 4), -(-s.OW // 4)
    # one band per thread (a band's 36 matmuls are separate BLAS calls: more bands, more calls);
    # four per thread for very big convolutions (balance); one below WINO_BAND_WORK multiply-adds
    work, t = 36.0 * s.N * TH * TW * s.C * s.K, num_threads()
    nb = 1 if t == 1 or work < WINO_BAND_WORK else t if work < 40 * WINO_BAND_WORK else 4 * t
    nb = min(nb, TH)
    bands = [(TH * i // nb, TH * (i + 1) // nb) for i in range(nb)]
    exact_w = s.OW == 4 * TW
    ragged = [not exact_w or 4 * th1 > s.OH for _, th1 in bands]       # output tiles overhang the edge
    return TH, TW, bands, ragged


def scratch(s: ConvSpec) -> list:
    """Per band: padded input rows, row copy, row transform, column copy, V, M, Z, Y, [cropping]."""
    N, C, K, dt = s.N, s.C, s.K, s.dtype
    TH, TW, bands, ragged = _bands(s)
    Wq = 4 * TW + 2
    out: list = []
    for (th0, th1), rag in zip(bands, ragged):
        c = th1 - th0
        Tb = N * c * TW
        out += [((N, 4 * c + 2, Wq, C), dt), ((6, N, c, Wq, C), dt), ((6, N, c, Wq, C), dt),
                ((6, 6, N, c, TW, C), dt), ((36, Tb, C), dt), ((36, Tb, K), dt), ((6, 4, Tb * K), dt),
                ((4, 4, N, c, TW, K), dt)]
        if rag:
            out.append(((N, 4 * c, 4 * TW, K), dt))
    return out


def build(s: ConvSpec) -> Callable:
    N, C, K, OH, OW, act, dtype = s.N, s.C, s.K, s.OH, s.OW, s.act, s.dtype
    ph, pw = s.pad
    TH, TW, bands, ragged = _bands(s)
    nb = len(bands)
    Wq = 4 * TW + 2
    offs = [sum(8 + g for g in ragged[:i]) for i in range(nb)]
    bt, at = _W4_BT.astype(dtype), _W4_AT.astype(dtype)
    tiling = RowTiling(K, OW)

    def band(i: int, x: np.ndarray, U: np.ndarray, b: Any, r: Any, out: np.ndarray, sc: tuple) -> None:
        th0, th1 = bands[i]
        c = th1 - th0
        Tb = N * c * TW
        pbc, P1, Rr, P2, V, Mm, Z, Y = sc[offs[i]:offs[i] + 8]
        _pad_rows(pbc, x, 4 * th0, ph, pw)
        # rows: P1[i, n, t, w, c] = pbc[n, 4 t + i, w, c]; Rr = B^T P1
        sN, sH, sW, sC = pbc.strides
        np.copyto(P1, as_strided(pbc, (6, N, c, Wq, C), (sH, sN, 4 * sH, sW, sC)))
        np.matmul(bt, P1.reshape(6, -1), out=Rr.reshape(6, -1))
        # columns: P2[j, a, n, t, tw, c] = Rr[a, n, t, 4 tw + j, c]; V = B^T P2, in (b, a) order
        rA, rN, rT, rW, rC = Rr.strides
        np.copyto(P2, as_strided(Rr, (6, 6, N, c, TW, C), (rW, rA, rN, rT, 4 * rW, rC)))
        np.matmul(bt, P2.reshape(6, -1), out=V.reshape(6, -1))
        np.matmul(V, U, out=Mm)
        # Y[q, p] = sum_b A^T[q, b] sum_a A^T[p, a] M[b, a]
        np.matmul(at, Mm.reshape(6, 6, Tb * K), out=Z)
        np.matmul(at, Z.reshape(6, 4 * Tb * K), out=Y.reshape(4, -1))
        y0, y1 = 4 * th0, min(4 * th1, OH)
        if ragged[i]:
            full = sc[offs[i] + 8]             # (N, 4c, 4TW, K), cropped to the output
            np.copyto(full.reshape(N, c, 4, TW, 4, K).transpose(4, 2, 0, 1, 3, 5), Y)
            np.copyto(out[:, y0:y1], full[:, :y1 - y0, :OW])
        else:
            np.copyto(out[:, y0:y1].reshape(N, c, 4, TW, 4, K).transpose(4, 2, 0, 1, 3, 5), Y)
        for n in range(N):
            _epilogue(out[n, y0:y1], out[n, y0:y1], b, None if r is None else r[n, y0:y1], act, tiling)

    def run(data, weight, out, *sc, bias=None, residual=None):
        if nb == 1:
            band(0, data, weight, bias, residual, out, sc)
        else:
            run_chunks(lambda i: band(i, data, weight, bias, residual, out, sc), nb)
    run.parallel = nb > 1
    return run


ALGO = register(ConvAlgo("wino4", 30, eligible, weight, weight_shape, scratch, build, tunable=True,
                         rule=rule, forced_by=("f4",), winograd=True))
