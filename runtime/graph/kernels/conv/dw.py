"""``dw``: depthwise convolutions (``groups == C == K``) as KH*KW multiply-adds of strided views of
the (padded) input, no patch matrix; rows of output pixels in chunks on the thread pool."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..common import _epilogue, _pad_fill
from ..fastpath import RowTiling, generation
from ..parallel import chunks_for, num_threads, run_chunks
from . import ConvAlgo, ConvSpec, register


def eligible(s: ConvSpec) -> bool:
    return s.groups > 1 and s.groups == s.C == s.K


def weight(w: np.ndarray, groups: int) -> np.ndarray:
    K, Cg, KH, KW = w.shape
    return np.ascontiguousarray(w.reshape(K, KH, KW).transpose(1, 2, 0))


def weight_shape(shape: tuple, groups: int) -> tuple:
    K, Cg, KH, KW = shape
    return (KH, KW, K)


def scratch(s: ConvSpec) -> list:
    """[padded input], one tap's products."""
    out = [((s.N, s.H + 2 * s.pad[0], s.W + 2 * s.pad[1], s.C), s.dtype)] if s.padded else []
    return out + [((s.N, s.OH, s.OW, s.C), s.dtype)]


def build(s: ConvSpec) -> Callable:
    N, C, K, OH, OW, M, act = s.N, s.C, s.K, s.OH, s.OW, s.M, s.act
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = s.kernel, s.stride, s.pad, s.dilate
    padded = s.padded
    R = N * OH
    # one row chunk per thread: each chunk is ~20 numpy calls per image (taps, epilogue), so more
    # chunks cost more Python than their balancing gains (MobileNetV2's depthwise layers: 0.95x the
    # time of two per thread, same process)
    nch = min(chunks_for(M * C * kh * kw, R, min_work=1e6), num_threads())
    bounds = [(R * i // nch, R * (i + 1) // nch) for i in range(nch)]
    tiling = RowTiling(K, OW)
    wtiled: list = [None]             # (weight array, generation, its taps tiled to (OW, C))

    def run(data, weight, out, *rest, bias=None, residual=None):
        x, w, b, r = data, weight, bias, residual
        if padded:
            pb, tmp = rest[0], rest[1]
            _pad_fill(pb, x, ph, pw)
        else:
            pb, tmp = x, rest[0]
        taps = [pb[:, i * dh:i * dh + sh * (OH - 1) + 1:sh, j * dw:j * dw + sw * (OW - 1) + 1:sw]
                for i in range(kh) for j in range(kw)]
        # per-tap weights as (OW, C) rows: an output row (OW, C) is contiguous, so numpy runs
        # one inner loop per row instead of one per pixel (a (C,) vector broadcast)
        cached = wtiled[0]
        if cached is None or cached[0] is not w or cached[1] != generation():
            cached = (w, generation(), [np.ascontiguousarray(np.broadcast_to(w[i, j], (OW, C)))
                                        for i in range(kh) for j in range(kw)])
            wtiled[0] = cached          # one store: threads never see a half-updated cache
        wt = cached[2]

        def chunk(ci):
            r0, r1 = bounds[ci]
            # rows r0..r1 of (N*OH) as (n, oh) ranges: split at image boundaries
            n0, n1 = r0 // OH, (r1 - 1) // OH
            for n in range(n0, n1 + 1):
                a0 = max(r0, n * OH) - n * OH
                a1 = min(r1, (n + 1) * OH) - n * OH
                o = out[n, a0:a1]
                t = tmp[n, a0:a1]
                v = taps[0][n, a0:a1]
                np.multiply(v, wt[0], out=o)
                for tap in range(1, len(taps)):
                    np.multiply(taps[tap][n, a0:a1], wt[tap], out=t)
                    np.add(o, t, out=o)
                _epilogue(o, o, b, None if r is None else r[n, a0:a1], act, tiling)
        run_chunks(chunk, nch)
    run.parallel = nch > 1
    return run


ALGO = register(ConvAlgo("dw", 40, eligible, weight, weight_shape, scratch, build, rule=lambda s: 3.0))
