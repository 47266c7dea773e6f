"""``gemm``: im2col + one BLAS matmul (any ungrouped convolution).

1x1 stride-1 unpadded convolutions are a single matmul of the NHWC input viewed as ``(N*H*W, C)``
by the ``(C, K)`` weights; other kernels first copy a strided view of the (zero-padded) input into a
patch matrix ``(N*OH*OW, KH*KW*C)`` (im2col without index tables; with one input channel the patch
matrix is laid out tap-major, ``(KH*KW, N*OH*OW)``, so that every copy runs along an output row
instead of KW floats at a time, and the matmul reads it transposed). Work is split across threads by
output rows (one chunk per thread: each chunk packs the weights again inside BLAS), or by output
channels when there are fewer rows than channels (deep layers at small batch), so that no thread
re-reads the weights. The only algorithm with a fused input affine (``prologue``): a per-channel
affine + activation (pre-activation BatchNorm-ReLU) applied per row chunk just before its matmul.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..common import _epilogue, _pad_fill, _tileable, affine_into
from ..fastpath import RowTiling, generation, relu_
from ..parallel import chunks_for, matmul_chunks, run_chunks
from .. import blas
from . import ConvAlgo, ConvSpec, register

GEMM_PARALLEL_WORK = 1e7       # multiply-adds below which an im2col matmul stays on one thread
# outputs (elements) from which a residual is accumulated in its own buffer (one BLAS call with
# beta = 1) instead of added in a pass of its own: 0.77x the CPU time at 56x56x256, 0.9x at
# 14x14x1024; below, the direct BLAS call's argument conversion (~12 us) outweighs a pass in cache
INPLACE_MIN_OUTPUT = 1 << 18


def accumulate(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out += a @ b``: one BLAS call with ``beta = 1`` (no pass of its own over ``out``), else
    matmul + add."""
    if blas.available(out.dtype) and a.dtype == b.dtype == out.dtype:
        blas.gemm(a, b, out, 1.0)
    else:
        np.add(out, np.matmul(a, b), out=out)


def eligible(s: ConvSpec) -> bool:
    return s.groups == 1


def _direct(s) -> bool:
    return tuple(s.kernel) == (1, 1) and tuple(s.stride) == (1, 1) and not any(s.pad)


def prologue(a) -> bool:
    """A fused input affine needs the input rows to be the matmul's rows: 1x1, stride 1, unpadded."""
    return int(a.groups) == 1 and _direct(a)


def weight(w: np.ndarray, groups: int) -> np.ndarray:
    K, Cg, KH, KW = w.shape
    return np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(KH * KW * Cg, K))


def weight_shape(shape: tuple, groups: int) -> tuple:
    K, Cg, KH, KW = shape
    return (KH * KW * Cg, K)


# a row chunk's patch matrix is built and multiplied in pieces of about this many bytes when the
# whole would be much larger and the weights are small (each piece's GEMM packs them again): a
# first convolution's patch matrix (resnet18 at batch 8: 59 MiB) was the largest buffer of its
# program, for no speed (pieces stay in cache)
_COL_PIECE_BYTES = 1 << 20


def _piece_rows(s: ConvSpec) -> int:
    """Output rows per patch-matrix piece of a row chunk; 0: each chunk's rows at once."""
    if _direct(s) or s.C == 1 or _by_cols(s) or _bias_row(s):
        return 0
    KK = s.kernel[0] * s.kernel[1] * s.C
    itemsize = np.dtype(s.dtype).itemsize
    per_row = s.OW * KK * itemsize
    R = s.N * s.OH
    rows = -(-R // matmul_chunks(s.M * KK * s.K, R, GEMM_PARALLEL_WORK))
    if rows * per_row <= 2 * _COL_PIECE_BYTES or KK * s.K * itemsize > _COL_PIECE_BYTES:
        return 0
    return max(1, _COL_PIECE_BYTES // per_row)


def scratch(s: ConvSpec) -> list:
    """[padded input], [patch matrix, or a piece of it per row chunk], [the input after its fused
    affine]."""
    kh, kw = s.kernel
    out = []
    if s.padded:
        out.append(((s.N, s.H + 2 * s.pad[0], s.W + 2 * s.pad[1], s.C), s.dtype))
    piece = _piece_rows(s)
    if piece:
        nch = matmul_chunks(s.M * kh * kw * s.C * s.K, s.N * s.OH, GEMM_PARALLEL_WORK)
        out.append(((nch * piece * s.OW, kh * kw * s.C), s.dtype))
    elif not _direct(s):
        out.append(((s.M, kh * kw * s.C), s.dtype))
    if s.has_pre:
        out.append(((s.M, s.C), s.dtype))      # the input after its fused affine, row chunk by row chunk
    if _bias_row(s):
        out.append(((s.M, s.C + 1), s.dtype))  # the input with a column of ones, row chunk by row chunk
    return out


# expansions (K >= BIAS_ROW_RATIO * C output channels per input channel, 1x1, unsplit columns): the
# bias rides in the matmul as one more weight row against a column of ones appended to the input
# rows (copied per row chunk, in cache): a copy of C + 1 floats per row instead of a pass of K
BIAS_ROW_RATIO = 4


def _bias_row(s: ConvSpec) -> bool:
    return (_direct(s) and s.has_bias and not s.has_pre and s.K >= BIAS_ROW_RATIO * s.C and not _by_cols(s)
            and np.dtype(s.dtype).kind == "f")


def _by_cols(s: ConvSpec) -> bool:
    KK = s.kernel[0] * s.kernel[1] * s.C
    return s.M < s.K and matmul_chunks(s.M * KK * s.K, s.K // 64, GEMM_PARALLEL_WORK) > 1


def build(s: ConvSpec) -> Callable:
    N, C, K = s.N, s.C, s.K
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = s.kernel, s.stride, s.pad, s.dilate
    OH, OW, M = s.OH, s.OW, s.M
    act, pre_act, pre_fold, has_p = s.act, s.pre_act, s.pre_fold, s.has_pre
    padded = s.padded
    pointwise = kh == 1 and kw == 1 and not padded
    direct = pointwise and sh == 1 and sw == 1
    i_col = int(padded)                              # scratch slots (see scratch())
    i_pre = i_col + (not direct)

    def patches(src):
        sN, sH, sW, sC = src.strides
        return as_strided(src, (N, OH, OW, kh, kw, src.shape[3]), (sN, sH * sh, sW * sw, sH * dh, sW * dw, sC))

    # one input channel: the patch matrix tap-major (kh*kw, M), one copy per tap along output rows
    tapmajor = not pointwise and C == 1

    def tap_views(src):
        sN, sH, sW, _ = src.strides
        return [as_strided(src[:, i * dh:, j * dw:, 0], (N, OH, OW), (sN, sH * sh, sW * sw))
                for i in range(kh) for j in range(kw)]

    KK = kh * kw * C
    R = N * OH                                   # output rows (n, oh); chunks are row ranges
    # below ~1e7 multiply-adds (~0.2 ms on one core) a split matmul loses more to smaller
    # BLAS calls (operands packed again per chunk) than the second core gains
    # one chunk per thread: each row chunk repacks the whole weight matrix in BLAS, so more
    # chunks cost more than their load balancing gains (DenseNet: 7% slower with 2 per thread)
    nch = matmul_chunks(M * KK * K, R, GEMM_PARALLEL_WORK)
    bounds = [(R * i // nch, R * (i + 1) // nch) for i in range(nch)]
    # Row chunks each read all of the weights, column chunks all of the patches: split the
    # output by columns when it has fewer rows than channels (deep layers at small batch),
    # so that no thread re-reads the (large) weight matrix; chunks at least 64 columns wide
    by_cols = _by_cols(s)
    bias_row = _bias_row(s)
    i_aug = i_pre + has_p
    nkch = chunks_for(M * KK * K, K // 64, min_work=GEMM_PARALLEL_WORK) if by_cols else 1
    kbounds = [(16 * (K // 16 * i // nkch), 16 * (K // 16 * (i + 1) // nkch)) for i in range(nkch)]
    if kbounds:
        kbounds[-1] = (kbounds[-1][0], K)
    # every row chunk is a whole number of output rows (OW pixels): tiled rows fit each chunk
    tile_out, tile_in = RowTiling(K, OW), RowTiling(C, OW)
    fold_state: list = [None]     # (bounds array, generation, all lo == 0, lo tiled, hi tiled)
    wb_state: list = [None]       # (weights, bias, generation, [weights; bias])
    piece = _piece_rows(s)        # output rows per patch piece of a chunk (0: the chunk at once)

    def run(data, weight, out, *rest, bias=None, residual=None, pre_scale=None, pre_shift=None, pre_bounds=None):
        x, w, b, r = data, weight, bias, residual
        if padded:
            src = rest[0]
            _pad_fill(src, x, ph, pw)
        else:
            src = x
        col = None if direct else rest[i_col]
        o2 = out.reshape(M, K)
        if r is not None and r is out:
            # the residual's own buffer (residual_inplace): the matmul accumulates into it
            r2, product = None, accumulate
        else:
            r2, product = None if r is None else r.reshape(M, K), np.matmul
        if direct:
            A_all = src.reshape(M, C)
            if has_p:
                # folded: (t/s, [lo; hi]); else (s, t)
                ps, pt = (pre_shift, pre_bounds) if pre_fold else (pre_scale, pre_shift)
                pre, X = rest[i_pre], A_all
                A_all = pre

                if pre_fold:
                    st = fold_state[0]
                    if st is None or st[0] is not pt or st[1] != generation():
                        st = (pt, generation(), not np.isfinite(pt[1]).any(),
                              tile_in.tile(pt[0]), tile_in.tile(pt[1]))
                        fold_state[0] = st
                    allpos, lo_t, hi_t = st[2:]

                def prologue(m0: int, m1: int) -> None:
                    # these rows, read back at once by the matmul while still in cache (the
                    # affine's output never makes a round trip through memory)
                    if not pre_fold:
                        affine_into(pre[m0:m1], X[m0:m1], ps, pt, pre_act, tile_in)
                        return
                    # folded: clip(x + t/s, lo, hi), the scale s being in the weights
                    P, Xc = pre[m0:m1], X[m0:m1]
                    if _tileable(P, tile_in) and _tileable(Xc, tile_in):
                        P, Xc = tile_in.rows(P), tile_in.rows(Xc)
                        np.add(Xc, tile_in.tile(ps), out=P)
                        if allpos:
                            relu_(P, len(pre_act) > 1)
                        else:
                            np.maximum(P, lo_t, out=P)
                            np.minimum(P, hi_t, out=P)
                    else:
                        np.add(Xc, ps, out=P)
                        np.maximum(P, pt[0], out=P)
                        np.minimum(P, pt[1], out=P)
        elif tapmajor:
            taps = tap_views(src)
            colt = col.reshape(kh * kw, M)
            colv = colt.reshape(kh * kw, N, OH, OW)
        elif pointwise:
            # (N, OH) stay two axes: merging them is a copy whenever OH * stride != H
            view = src[:, ::sh, ::sw]
            colv = None if piece else col.reshape(N, OH, OW, C)
        else:
            view = patches(src)
            colv = None if piece else col.reshape(N, OH, OW, kh, kw, C)

        def copy_rows(r0: int, r1: int) -> None:
            """The patch rows of output rows ``r0:r1`` (``(n, oh)`` pairs, n-major)."""
            if tapmajor:
                for t, v in enumerate(taps):
                    _copy_rows(colv[t], v, r0, r1, OH)
            else:
                _copy_rows(colv, view, r0, r1, OH)

        if by_cols:
            def copy_chunk(i):
                copy_rows(*bounds[i])

            A_cols = A_all if direct else colt.T if tapmajor else col

            def col_chunk(i):
                k0, k1 = kbounds[i]
                oc = o2[:, k0:k1]
                _product(product, A_cols, w[:, k0:k1], oc)
                _epilogue(oc, oc, None if b is None else b[k0:k1], None if r2 is None else r2[:, k0:k1], act)
            if not direct:
                run_chunks(copy_chunk, nch)
            elif has_p:
                run_chunks(lambda i: prologue(bounds[i][0] * OW, bounds[i][1] * OW), nch)
            run_chunks(col_chunk, nkch)
            return

        if bias_row:
            st = wb_state[0]
            if st is None or st[0] is not w or st[1] is not b or st[2] != generation():
                st = (w, b, generation(), np.ascontiguousarray(np.vstack([w, b[None, :].astype(w.dtype)])))
                wb_state[0] = st          # one store: threads never see a half-updated cache
            wb, aug = st[3], rest[i_aug]

        def pieces(i):
            """Chunk ``i``'s output rows a piece at a time, their patches in the chunk's slot."""
            r0, r1 = bounds[i]
            slot = col[i * piece * OW:(i + 1) * piece * OW]
            for p0 in range(r0, r1, piece):
                p1 = min(r1, p0 + piece)
                A = slot[:(p1 - p0) * OW]
                dst = A.reshape((p1 - p0,) + view.shape[2:])
                p = p0
                while p < p1:              # the piece's rows, sample by sample
                    n, h0 = divmod(p, OH)
                    h1 = min(OH, h0 + p1 - p)
                    np.copyto(dst[p - p0:p - p0 + h1 - h0], view[n, h0:h1])
                    p += h1 - h0
                oc = o2[p0 * OW:p1 * OW]
                _product(product, A, w, oc)
                _epilogue(oc, oc, b, None if r2 is None else r2[p0 * OW:p1 * OW], act, tile_out)

        def chunk(i):
            r0, r1 = bounds[i]
            m0, m1 = r0 * OW, r1 * OW
            if piece:
                pieces(i)
                return
            if bias_row:
                Aa = aug[m0:m1]
                np.copyto(Aa[:, :C], A_all[m0:m1])
                Aa[:, C] = 1
                oc = o2[m0:m1]
                product(Aa, wb, out=oc)
                _epilogue(oc, oc, None, None if r2 is None else r2[m0:m1], act, tile_out)
                return
            if direct:
                if has_p:
                    prologue(m0, m1)
                A = A_all[m0:m1]
            else:
                copy_rows(r0, r1)
                A = colt[:, m0:m1].T if tapmajor else col[m0:m1]
            oc = o2[m0:m1]
            _product(product, A, w, oc)
            _epilogue(oc, oc, b, None if r2 is None else r2[m0:m1], act, tile_out)
        run_chunks(chunk, nch)
    run.parallel = nch > 1 or nkch > 1
    run.split = "columns" if by_cols else "rows" if nch > 1 else None
    return run


def _copy_rows(dst: np.ndarray, src: np.ndarray, r0: int, r1: int, OH: int) -> None:
    """``dst[rows] = src[rows]`` for the flat rows ``r0:r1`` of their two leading axes ``(N, OH)``,
    which are not merged (a reshape of the strided source would copy it whole): at most three
    copies, a partial first sample, whole samples, a partial last one."""
    n0, h0 = divmod(r0, OH)
    n1, h1 = divmod(r1, OH)
    if n0 == n1:
        np.copyto(dst[n0, h0:h1], src[n0, h0:h1])
        return
    if h0:
        np.copyto(dst[n0, h0:], src[n0, h0:])
        n0 += 1
    if n1 > n0:
        np.copyto(dst[n0:n1], src[n0:n1])
    if h1:
        np.copyto(dst[n1, :h1], src[n1, :h1])


def _product(product: Callable, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``product(a, b, out=out)``; a transposed (tap-major) ``a`` cannot go to the direct BLAS
    call, so an accumulation is a matmul and an add."""
    if product is accumulate and a.strides[-1] != a.itemsize:
        np.add(out, np.matmul(a, b), out=out)
    else:
        product(a, b, out=out)


ALGO = register(ConvAlgo("gemm", 10, eligible, weight, weight_shape, scratch, build, tunable=True,
                         rule=lambda s: 0.0, prologue=prologue,
                         residual_inplace=lambda s: s.M * s.K >= INPLACE_MIN_OUTPUT))
