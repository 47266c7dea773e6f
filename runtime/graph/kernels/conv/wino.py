"""``wino``: Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions.

Input transform ``B^T d B`` and output transform ``A^T m A`` by additions of strided views, 16
batched matmuls ``(T, C) @ (C, K)`` over the 4x4 input tiles (stride 2): 2.25x fewer multiplies
than direct convolution. Chosen by measurement (``tune``) or ``options["winograd"] in (True, "f2")``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..common import _epilogue, _pad_fill
from ..parallel import chunks_for, run_chunks
from . import ConvAlgo, ConvSpec, register

_G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64)


def eligible(s: ConvSpec) -> bool:
    return s.groups == 1 and tuple(s.kernel) == (3, 3) and tuple(s.stride) == (1, 1) and tuple(s.dilate) == (1, 1)


def sandwich(G: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``G g G^T`` for every 3x3 filter g of ``w`` (K, C, 3, 3), as (K, C, a, b), in float64: one
    GEMM of the flattened filters by ``kron(G, G)^T`` (an einsum is ~40x slower on big layers)."""
    K, C = w.shape[:2]
    n = G.shape[0]
    u = w.reshape(K * C, 9).astype(np.float64) @ np.kron(G, G).T
    return u.reshape(K, C, n, n)


def weight(w: np.ndarray, groups: int = 1) -> np.ndarray:
    """U = G g G^T for every (K, C) 3x3 filter, as (16, C, K)."""
    K, C = w.shape[:2]
    return np.ascontiguousarray(sandwich(_G, w).transpose(2, 3, 1, 0).reshape(16, C, K).astype(w.dtype))


def weight_shape(shape: tuple, groups: int) -> tuple:
    K, Cg = shape[:2]
    return (16, Cg, K)


def _tiles(s: ConvSpec) -> tuple:
    TH, TW = (s.OH + 1) // 2, (s.OW + 1) // 2
    return TH, TW, 2 * TH + 2, 2 * TW + 2, s.N * TH * TW     # tiles, padded input covering them, T


def scratch(s: ConvSpec) -> list:
    """padded input, row transform, V, M, column sums, [output before cropping (odd sizes)]."""
    N, C, K, dt = s.N, s.C, s.K, s.dtype
    TH, TW, Hq, Wq, T = _tiles(s)
    out = [((N, Hq, Wq, C), dt), ((4, N, TH, Wq, C), dt), ((16, T, C), dt), ((16, T, K), dt), ((2, 4, T, K), dt)]
    if not (s.OH == 2 * TH and s.OW == 2 * TW):
        out.append(((N, 2 * TH, 2 * TW, K), dt))
    return out


def build(s: ConvSpec) -> Callable:
    N, C, K, OH, OW, act = s.N, s.C, s.K, s.OH, s.OW, s.act
    ph, pw = s.pad
    TH, TW, Hq, Wq, T = _tiles(s)
    exact = (OH == 2 * TH and OW == 2 * TW)
    wino_chunks = chunks_for(16 * T * C * K, 16)

    def run(data, weight, out, pb, R, V, Mm, S, *crop, bias=None, residual=None):
        x, U = data, weight
        _pad_fill(pb, x, ph, pw)
        d = [pb[:, i:i + 2 * TH:2] for i in range(4)]
        np.subtract(d[0], d[2], out=R[0])
        np.add(d[1], d[2], out=R[1])
        np.subtract(d[2], d[1], out=R[2])
        np.subtract(d[1], d[3], out=R[3])
        V6 = V.reshape(16, N, TH, TW, C)
        for ai in range(4):
            c = [R[ai][:, :, j:j + 2 * TW:2] for j in range(4)]
            o = 4 * ai
            np.subtract(c[0], c[2], out=V6[o])
            np.add(c[1], c[2], out=V6[o + 1])
            np.subtract(c[2], c[1], out=V6[o + 2])
            np.subtract(c[1], c[3], out=V6[o + 3])
        if wino_chunks > 1:
            run_chunks(lambda i: np.matmul(V[4 * i:4 * i + 4], U[4 * i:4 * i + 4], out=Mm[4 * i:4 * i + 4]), 4)
        else:
            np.matmul(V, U, out=Mm)
        m = Mm.reshape(4, 4, T, K)
        np.add(m[0], m[1], out=S[0])
        np.add(S[0], m[2], out=S[0])
        np.subtract(m[1], m[2], out=S[1])
        np.subtract(S[1], m[3], out=S[1])
        Y = out if exact else crop[0]
        Y6 = Y.reshape(N, TH, 2, TW, 2, K)
        for ri in range(2):
            s_ = S[ri].reshape(4, N, TH, TW, K)
            y0 = Y6[:, :, ri, :, 0]
            y1 = Y6[:, :, ri, :, 1]
            np.add(s_[0], s_[1], out=y0)
            np.add(y0, s_[2], out=y0)
            np.subtract(s_[1], s_[2], out=y1)
            np.subtract(y1, s_[3], out=y1)
        if not exact:
            out[...] = Y[:, :OH, :OW]
        _epilogue(out, out, bias, residual, act)
    run.parallel = wino_chunks > 1
    return run


ALGO = register(ConvAlgo("wino", 20, eligible, weight, weight_shape, scratch, build, tunable=True,
                         rule=lambda s: None, forced_by=(True, "f2"), winograd=True))
