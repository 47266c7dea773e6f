"""Internal NHWC ops of the compiled program: convolutions, pooling, dense, fused epilogues.

Layouts: image tensors are NHWC inside the compiled program (channels last, so a convolution
is one matmul of a patch matrix by a ``(KH*KW*C, K)`` weight and writes NHWC directly).
Weights are re-laid-out once per ``bind_params`` by static ops (``_hy_conv_weight``,
``_hy_bn_fold``...), which the compiler evaluates in the program's prologue.

Convolution algorithms (``algo`` attribute, chosen by the lowering pass):

- ``gemm``: 1x1 stride-1 convolutions are a single matmul of the input viewed as
  ``(N*H*W, C)``; other kernels copy a strided view of the (zero-padded) input into a patch
  matrix (im2col without index tables) and do one BLAS matmul.
- ``dw``: depthwise (``num_group == C == num_filter``): KH*KW multiply-adds of strided views,
  no patch matrix.
- ``wino4``: 3x3 stride-1: Winograd F(4x4, 3x3): separable input/output transforms, each a copy of
  a strided view plus one small matmul, and 36 batched matmuls of ``(T, C) @ (C, K)``; 4x fewer
  multiplies than direct convolution (the default where it pays, see ``passes/layout.py``).
- ``wino``: 3x3 stride-1: Winograd F(2x2, 3x3): input/output transforms by additions of strided
  views (B^T d B, A^T m A), 16 batched matmuls of ``(T, C) @ (C, K)``; 2.25x fewer multiplies.
- ``group``: other grouped convolutions, one matmul per group.

Every kernel builder returns ``(fn, scratch)``: ``fn(*inputs, out, *scratch_buffers)`` writes
into ``out`` (and may use the scratch buffers, shaped as listed) and applies the fused
epilogue (bias, residual add, activation) in place.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...ops.attrs import AttrType, Param
from ...ops.registry import OpDef
from . import emitter
from .fastpath import FAST_MIN_SIZE, RowTiling, clip_, generation, relu_, zeros_like_view
from .parallel import chunks_for, matmul_chunks, num_threads, run_chunks

_ANY = AttrType("any", lambda v: v, repr)


def _p(name: str, default: Any = None) -> Param:
    return Param(name, _ANY, default)


def _internal(name: str, compute: Callable, params: tuple, inputs: Any, infer_shape: Callable,
              num_outputs: Any = 1, variadic: str | None = None, infer_type: Callable | None = None) -> OpDef:
    return OpDef(name, compute, params=params, inputs=inputs, infer_shape=infer_shape,
                 num_outputs=num_outputs, variadic=variadic, infer_type=infer_type,
                 doc=f"internal op of the graph compiler ({name})")


# ------------------------------------------------------------------------------------------
# activations (applied in place)
# ------------------------------------------------------------------------------------------
def act_spec(op_name: str, attrs: Any) -> tuple | None:
    """The activation spec of an elementwise op node, or None if it is not one we fuse."""
    if op_name == "relu" or op_name == "Activation" and attrs.act_type == "relu":
        return ("relu",)
    if op_name == "Activation" and attrs.act_type in ("sigmoid", "tanh"):
        return (attrs.act_type,)
    if op_name == "sigmoid":
        return ("sigmoid",)
    if op_name == "tanh":
        return ("tanh",)
    if op_name == "clip":
        return ("clip", float(attrs.a_min), float(attrs.a_max))
    return None


def apply_act(buf: np.ndarray, act: tuple) -> None:
    if not act:
        return
    kind = act[0]
    if kind == "relu":
        relu_(buf)
    elif kind == "clip":
        clip_(buf, act[1], act[2])
    elif kind == "sigmoid":
        np.negative(buf, out=buf)
        np.exp(buf, out=buf)
        np.add(buf, 1, out=buf)
        np.reciprocal(buf, out=buf)
    elif kind == "tanh":
        np.tanh(buf, out=buf)
    else:  # pragma: no cover - the lowering only produces the kinds above
        raise ValueError(f"unknown activation {act!r}")


def _tileable(buf: np.ndarray, tiling: RowTiling | None) -> bool:
    return tiling is not None and buf.flags.c_contiguous and buf.size % tiling.L == 0


def affine_into(out: np.ndarray, x: np.ndarray, scale: np.ndarray, shift: np.ndarray, act: tuple,
                tiling: RowTiling | None = None) -> None:
    """``out = act(x * scale + shift)`` in place (per-channel scale/shift broadcast on the last axis),
    on tiled rows when ``tiling`` fits (see :mod:`.fastpath`)."""
    if _tileable(out, tiling) and _tileable(x, tiling):
        out, x, scale, shift = tiling.rows(out), tiling.rows(x), tiling.tile(scale), tiling.tile(shift)
    elif scale.ndim != 1:
        scale, shift = scale.reshape(-1), shift.reshape(-1)
    np.multiply(x, scale, out=out)
    np.add(out, shift, out=out)
    apply_act(out, act)


def act_lines(em: Any, buf: str, act: tuple, shape: tuple | None = None, dtype: Any = np.float32) -> list[str]:
    """Inline code applying ``act`` to ``buf`` (of ``shape``, when known) in place."""
    if not act:
        return []
    kind = act[0]
    big = shape is not None and int(np.prod(shape)) >= FAST_MIN_SIZE and np.dtype(dtype).kind == "f"
    if kind == "relu":
        if big:     # numpy's maximum with a scalar is an unvectorized loop: read a zeros view
            z = em.bind("zeros", zeros_like_view(tuple(shape), dtype))
            return [f"_maximum({buf}, {z}, out={buf})"]
        return [f"_maximum({buf}, 0, out={buf})"]
    if kind == "clip" and np.dtype(dtype).kind == "f":     # one vectorized pass (see fastpath.clip_)
        lo = em.bind("lo", np.dtype(dtype).type(act[1]))
        hi = em.bind("hi", np.dtype(dtype).type(act[2]))
        return [f"{buf}.clip({lo}, {hi}, out={buf})"]
    if kind == "clip" and big:
        f = em.bind("clip", clip_)
        return [f"{f}({buf}, {float(act[1])!r}, {float(act[2])!r})"]
    if kind == "clip":
        lo = em.bind("lo", np.float32(act[1]))
        hi = em.bind("hi", np.float32(act[2]))
        return [f"_maximum({buf}, {lo}, out={buf})", f"_minimum({buf}, {hi}, out={buf})"]
    if kind == "tanh":
        return [f"np.tanh({buf}, out={buf})"]
    f = em.bind("act", apply_act)
    a = em.bind("actspec", act)
    return [f"{f}({buf}, {a})"]


def _run_with_fresh(build: Callable, out_shape: tuple, dtype: Any, *arrays: np.ndarray) -> np.ndarray:
    fn, scratch = build
    out = np.empty(out_shape, dtype)
    fn(*arrays, out, *[np.empty(s, d) for s, d in scratch])
    return out


# ------------------------------------------------------------------------------------------
# layout conversion
# ------------------------------------------------------------------------------------------
def _layout_shape(attrs, in_shapes):
    s = in_shapes[0]
    return list(in_shapes), [tuple(s[p] for p in attrs.perm)]


LAYOUT = _internal("_hy_layout", lambda attrs, x: np.ascontiguousarray(x.transpose(attrs.perm)),
                   (_p("perm"),), ("data",), _layout_shape)
TO_NHWC = (0, 2, 3, 1)
TO_NCHW = (0, 3, 1, 2)


@emitter(LAYOUT)
def _emit_layout(em: Any) -> list[str]:
    buf = em.out_buffer(0)
    perm = em.bind("perm", tuple(em.node.resolved.perm))
    return [f"_copyto({buf}, {em.args[0]}.transpose({perm}))", f"{em.outs[0]} = {buf}"]


# ------------------------------------------------------------------------------------------
# static (prologue) ops: weight re-layout and BatchNorm folding
# ------------------------------------------------------------------------------------------
def _bn_scale(gamma, var, eps, fix_gamma):
    g = np.ones_like(gamma) if fix_gamma else gamma
    return (g.astype(np.float64) / np.sqrt(var.astype(np.float64) + eps))


def _bn_fold_compute(attrs, w, gamma, beta, mean, var, *b):
    scale = _bn_scale(gamma, var, attrs.eps, attrs.fix_gamma)
    w2 = (w.astype(np.float64) * scale.reshape((-1,) + (1,) * (w.ndim - 1))).astype(w.dtype)
    bias = b[0].astype(np.float64) if b else 0.0
    b2 = ((bias - mean.astype(np.float64)) * scale + beta.astype(np.float64)).astype(w.dtype)
    return w2, b2


def _bn_fold_shape(attrs, in_shapes):
    w = in_shapes[0]
    return list(in_shapes), [w, (w[0],)]


BN_FOLD = _internal("_hy_bn_fold", _bn_fold_compute, (_p("eps", 1e-3), _p("fix_gamma", True), _p("has_bias", False)),
                    lambda a: ("weight", "gamma", "beta", "mean", "var") + (("bias",) if a.has_bias else ()),
                    _bn_fold_shape, num_outputs=2,
                    infer_type=lambda attrs, d: [d[0], d[0]])


def _bn_affine_compute(attrs, gamma, beta, mean, var):
    scale = _bn_scale(gamma, var, attrs.eps, attrs.fix_gamma)
    shift = beta.astype(np.float64) - mean.astype(np.float64) * scale
    shp = attrs.bshape
    return scale.astype(gamma.dtype).reshape(shp), shift.astype(gamma.dtype).reshape(shp)


BN_AFFINE = _internal("_hy_bn_affine", _bn_affine_compute, (_p("eps", 1e-3), _p("fix_gamma", True), _p("bshape")),
                      ("gamma", "beta", "mean", "var"),
                      lambda attrs, s: (list(s), [tuple(attrs.bshape)] * 2), num_outputs=2,
                      infer_type=lambda attrs, d: [d[0], d[0]])


def _pre_fold_compute(attrs, w, scale, shift, *b):
    """Moves a pre-activation BatchNorm's scale into the following 1x1 convolution:
    ``relu(s x + t) @ W == clip(x + t / s, lo, hi) @ (s W)`` per input channel, with
    ``(lo, hi) = (0, inf)`` where ``s > 0`` and ``(-inf, 0)`` where ``s < 0`` (then ``s min(u, 0)`` is
    ``relu(s u)``). A channel with ``s`` ~ 0 is the constant ``relu(t)``: its weight row moves into the
    bias. Returns ``(s W, b', t / s, [lo; hi])``; the kernel's input pass is an add and a max (plus
    a min when some ``s < 0``) instead of multiply, add and max."""
    f8 = np.float64
    s, t = scale.reshape(-1).astype(f8), shift.reshape(-1).astype(f8)
    W = w.astype(f8)
    bias = b[0].astype(f8) if b else np.zeros(W.shape[1], f8)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u = t / s
    const = (np.abs(s) < 1e-30) | ~np.isfinite(u)         # relu(s x + t) == relu(t): no x
    pos = (s > 0) | const
    shift2 = np.where(const, 0.0, u)
    lo = np.where(pos, 0.0, -np.inf)
    hi = np.where(pos, np.inf, 0.0)
    w2 = W * np.where(const, 0.0, s)[:, None]
    b2 = bias + np.where(const, np.maximum(t, 0.0), 0.0) @ W
    dt = w.dtype
    return w2.astype(dt), b2.astype(dt), shift2.astype(dt), np.stack([lo, hi]).astype(dt)


PRE_FOLD = _internal("_hy_pre_fold", _pre_fold_compute, (_p("has_bias", False),),
                     lambda a: ("weight", "scale", "shift") + (("bias",) if a.has_bias else ()),
                     lambda a, s: (list(s), [tuple(s[0]), (s[0][1],), (s[0][0],), (2, s[0][0])]), num_outputs=4,
                     infer_type=lambda attrs, d: [d[0]] * 4)


def winograd_weight(w: np.ndarray) -> np.ndarray:
    """U = G g G^T for every (K, C) 3x3 filter, as (16, C, K)."""
    G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64)
    K, C = w.shape[:2]
    return np.ascontiguousarray(_sandwich(G, w).transpose(2, 3, 1, 0).reshape(16, C, K).astype(w.dtype))


# Winograd F(4x4, 3x3) (Lavin & Gray, interpolation points 0, +-1, +-2, inf): Y = A^T [U . V] A with
# U = G g G^T (6x6 per filter) and V = B^T d B (6x6 per input tile, tiles overlap by 2).
_W4_BT = np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
                   [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]], np.float64)
_W4_G = np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
                  [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]], np.float64)
_W4_AT = np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]], np.float64)


def winograd4_weight(w: np.ndarray) -> np.ndarray:
    """U = G g G^T for every (K, C) 3x3 filter, as (36, C, K) in (column b, row a) order: the order
    in which the kernel's separable input transform leaves the 36 tile matrices."""
    K, C = w.shape[:2]
    return np.ascontiguousarray(_sandwich(_W4_G, w).transpose(3, 2, 1, 0).reshape(36, C, K).astype(w.dtype))


def _sandwich(G: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``G g G^T`` for every 3x3 filter g of ``w`` (K, C, 3, 3), as (K, C, a, b), in float64: one
    GEMM of the flattened filters by ``kron(G, G)^T`` (an einsum is ~40x slower on big layers)."""
    K, C = w.shape[:2]
    n = G.shape[0]
    u = w.reshape(K * C, 9).astype(np.float64) @ np.kron(G, G).T
    return u.reshape(K, C, n, n)


def conv_weight(w: np.ndarray, algo: str, groups: int) -> np.ndarray:
    K, Cg, KH, KW = w.shape
    if algo == "gemm":
        return np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(KH * KW * Cg, K))
    if algo == "dw":
        return np.ascontiguousarray(w.reshape(K, KH, KW).transpose(1, 2, 0))
    if algo == "wino":
        return winograd_weight(w)
    if algo == "wino4":
        return winograd4_weight(w)
    if algo == "group":
        Kg = K // groups
        return np.ascontiguousarray(w.reshape(groups, Kg, Cg, KH, KW).transpose(0, 3, 4, 2, 1)
                                    .reshape(groups, KH * KW * Cg, Kg))
    raise ValueError(algo)


def _conv_weight_shape(attrs, in_shapes):
    K, Cg, KH, KW = in_shapes[0]
    algo, g = attrs.algo, attrs.groups
    out = {"gemm": (KH * KW * Cg, K), "dw": (KH, KW, K), "wino": (16, Cg, K), "wino4": (36, Cg, K),
           "group": (g, KH * KW * Cg, K // g)}[algo]
    return list(in_shapes), [out]


CONV_WEIGHT = _internal("_hy_conv_weight", lambda attrs, w: conv_weight(w, attrs.algo, attrs.groups),
                        (_p("algo"), _p("groups", 1)), ("weight",), _conv_weight_shape)


def _transpose2d_shape(attrs, in_shapes):
    return list(in_shapes), [tuple(reversed(in_shapes[0]))]


TRANSPOSE2D = _internal("_hy_transpose2d", lambda attrs, w: np.ascontiguousarray(w.T), (), ("weight",),
                        _transpose2d_shape)


# ------------------------------------------------------------------------------------------
# convolution
# ------------------------------------------------------------------------------------------
def conv_out_hw(H: int, W: int, a: Any) -> tuple[int, int]:
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = a.kernel, a.stride, a.pad, a.dilate
    OH = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    OW = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    return OH, OW


def _pad_fill(pb: np.ndarray, x: np.ndarray, ph: int, pw: int, value: float = 0.0) -> None:
    """Writes ``x`` into the interior of ``pb`` and ``value`` into its border (every call: the
    buffer's memory is shared with other steps)."""
    _pad_rows(pb, x, 0, ph, pw, value)


def _epilogue(out2d: np.ndarray, out: np.ndarray, b: Any, r: Any, act: tuple,
              tiling: RowTiling | None = None) -> None:
    """Bias, residual add and activation in place on ``out`` (``out2d``: its ``(rows, K)`` view);
    on tiled rows when ``tiling`` fits the (contiguous) chunk."""
    if out2d is out and _tileable(out, tiling) and (r is None or _tileable(r, tiling)):
        out = out2d = tiling.rows(out)
        b = None if b is None else tiling.tile(b)
        r = None if r is None else tiling.rows(r)
    if b is not None:
        np.add(out2d, b, out=out2d)
    if r is not None:
        np.add(out, r, out=out)
    if act:
        apply_act(out, act)


GEMM_PARALLEL_WORK = 1e7       # multiply-adds below which an im2col matmul stays on one thread


def build_conv(a: Any, x_shape: tuple, dtype: Any) -> tuple[Callable, list]:
    """Kernel for ``_hy_conv`` with attrs ``a`` on an NHWC input of ``x_shape``."""
    N, H, W, C = x_shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = a.kernel, a.stride, a.pad, a.dilate
    K, algo, act, G = a.num_filter, a.algo, tuple(a.act or ()), a.groups
    OH, OW = conv_out_hw(H, W, a)
    M = N * OH * OW
    has_b, has_r = a.has_bias, a.has_res
    has_p, pre_act = bool(getattr(a, "has_pre", False)), tuple(getattr(a, "pre_act", ()) or ())
    pre_fold = has_p and bool(getattr(a, "pre_fold", False))
    dtype = np.dtype(dtype)
    scratch: list = []
    padded = bool(ph or pw)
    Hp, Wp = H + 2 * ph, W + 2 * pw

    def unpack(args):
        i = 2
        b = args[i] if has_b else None
        i += has_b
        r = args[i] if has_r else None
        return args[0], args[1], b, r, args[i + has_r + 2 * has_p:]

    def pre_of(args):
        i = 2 + has_b + has_r
        return args[i], args[i + 1]

    if algo == "wino":
        TH, TW = (OH + 1) // 2, (OW + 1) // 2
        Hq, Wq = 2 * TH + 2, 2 * TW + 2          # padded input covering every 4x4 tile
        T = N * TH * TW
        exact = (OH == 2 * TH and OW == 2 * TW)
        scratch = [((N, Hq, Wq, C), dtype), ((4, N, TH, Wq, C), dtype), ((16, T, C), dtype), ((16, T, K), dtype),
                   ((2, 4, T, K), dtype)]
        if not exact:
            scratch.append(((N, 2 * TH, 2 * TW, K), dtype))
        wino_chunks = chunks_for(16 * T * C * K, 16)

        def run(*args):
            x, U, b, r, rest = unpack(args)
            out, pb, R, V, Mm, S = rest[:6]
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
            Y = out if exact else rest[6]
            Y6 = Y.reshape(N, TH, 2, TW, 2, K)
            for ri in range(2):
                s = S[ri].reshape(4, N, TH, TW, K)
                y0 = Y6[:, :, ri, :, 0]
                y1 = Y6[:, :, ri, :, 1]
                np.add(s[0], s[1], out=y0)
                np.add(y0, s[2], out=y0)
                np.subtract(s[1], s[2], out=y1)
                np.subtract(y1, s[3], out=y1)
            if not exact:
                out[...] = Y[:, :OH, :OW]
            _epilogue(out, out, b, r, act)
        run.parallel = wino_chunks > 1
        return run, scratch

    if algo == "wino4":
        return _build_wino4(N, H, W, C, K, OH, OW, ph, pw, dtype, unpack, act)

    if algo == "dw":
        if padded:
            scratch.append(((N, Hp, Wp, C), dtype))
        scratch.append(((N, OH, OW, C), dtype))

        R = N * OH
        nch = chunks_for(M * C * kh * kw, R, min_work=1e6)
        bounds = [(R * i // nch, R * (i + 1) // nch) for i in range(nch)]
        tiling = RowTiling(K, OW)
        wtiled: list = [None]             # (weight array, generation, its taps tiled to (OW, C))

        def run(*args):
            x, w, b, r, rest = unpack(args)
            out = rest[0]
            if padded:
                pb, tmp = rest[1], rest[2]
                _pad_fill(pb, x, ph, pw)
            else:
                pb, tmp = x, rest[1]
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
        return run, scratch

    # gemm / group
    pointwise = kh == 1 and kw == 1 and not padded
    direct = pointwise and sh == 1 and sw == 1
    if has_p and not (algo == "gemm" and direct):
        raise ValueError("a fused input affine (has_pre) needs a 1x1 stride-1 unpadded gemm convolution")
    if padded:
        scratch.append(((N, Hp, Wp, C), dtype))
    Cg = C // G
    Kg = K // G
    if not direct:
        scratch.append(((M, kh * kw * (C if algo == "gemm" else Cg)), dtype))
    if algo == "group":
        scratch.append(((M, Kg), dtype))
    if has_p:
        scratch.append(((M, C), dtype))      # the input after its fused affine, row chunk by row chunk

    def patches(src):
        sN, sH, sW, sC = src.strides
        return as_strided(src, (N, OH, OW, kh, kw, src.shape[3]), (sN, sH * sh, sW * sw, sH * dh, sW * dw, sC))

    if algo == "gemm":
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
        by_cols = M < K and matmul_chunks(M * KK * K, K // 64, GEMM_PARALLEL_WORK) > 1
        nkch = chunks_for(M * KK * K, K // 64, min_work=GEMM_PARALLEL_WORK) if by_cols else 1
        kbounds = [(16 * (K // 16 * i // nkch), 16 * (K // 16 * (i + 1) // nkch)) for i in range(nkch)]
        if kbounds:
            kbounds[-1] = (kbounds[-1][0], K)
        # every row chunk is a whole number of output rows (OW pixels): tiled rows fit each chunk
        tile_out, tile_in = RowTiling(K, OW), RowTiling(C, OW)
        fold_state: list = [None]     # (bounds array, generation, all lo == 0, lo tiled, hi tiled)

        def run(*args):
            x, w, b, r, rest = unpack(args)
            out = rest[0]
            k = 1
            if padded:
                src = rest[k]
                k += 1
                _pad_fill(src, x, ph, pw)
            else:
                src = x
            col = None if direct else rest[k]
            o2 = out.reshape(M, K)
            r2 = None if r is None else r.reshape(M, K)
            if direct:
                A_all = src.reshape(M, C)
                if has_p:
                    ps, pt = pre_of(args)
                    pre, X = rest[-1], A_all
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
                                relu_(P)
                            else:
                                np.maximum(P, lo_t, out=P)
                                np.minimum(P, hi_t, out=P)
                        else:
                            np.add(Xc, ps, out=P)
                            np.maximum(P, pt[0], out=P)
                            np.minimum(P, pt[1], out=P)
            elif pointwise:
                view = src[:, ::sh, ::sw].reshape(R, OW, C)
                colv = col.reshape(R, OW, C)
            else:
                view = patches(src).reshape(R, OW, kh, kw, C)
                colv = col.reshape(R, OW, kh, kw, C)

            if by_cols:
                def copy_chunk(i):
                    r0, r1 = bounds[i]
                    np.copyto(colv[r0:r1], view[r0:r1])

                def col_chunk(i):
                    k0, k1 = kbounds[i]
                    oc = o2[:, k0:k1]
                    np.matmul(A_all if direct else col, w[:, k0:k1], out=oc)
                    _epilogue(oc, oc, None if b is None else b[k0:k1], None if r2 is None else r2[:, k0:k1], act)
                if not direct:
                    run_chunks(copy_chunk, nch)
                elif has_p:
                    run_chunks(lambda i: prologue(bounds[i][0] * OW, bounds[i][1] * OW), nch)
                run_chunks(col_chunk, nkch)
                return

            def chunk(i):
                r0, r1 = bounds[i]
                m0, m1 = r0 * OW, r1 * OW
                if direct:
                    if has_p:
                        prologue(m0, m1)
                    A = A_all[m0:m1]
                else:
                    np.copyto(colv[r0:r1], view[r0:r1])
                    A = col[m0:m1]
                oc = o2[m0:m1]
                np.matmul(A, w, out=oc)
                _epilogue(oc, oc, b, None if r2 is None else r2[m0:m1], act, tile_out)
            run_chunks(chunk, nch)
        run.parallel = nch > 1 or nkch > 1
        run.split = "columns" if by_cols else "rows" if nch > 1 else None
        return run, scratch

    def run_group(*args):
        x, w, b, r, rest = unpack(args)
        out = rest[0]
        k = 1
        if padded:
            src = rest[k]
            k += 1
            _pad_fill(src, x, ph, pw)
        else:
            src = x
        col = rest[k] if not direct else None
        tmp = rest[-1]
        o2 = out.reshape(M, K)
        for g in range(G):
            sub = src[..., g * Cg:(g + 1) * Cg]
            if direct:
                A = np.ascontiguousarray(sub).reshape(M, Cg)
            else:
                A = col
                np.copyto(A.reshape(N, OH, OW, kh, kw, Cg), patches(sub))
            np.matmul(A, w[g], out=tmp)
            o2[:, g * Kg:(g + 1) * Kg] = tmp
        _epilogue(o2, out, b, r, act)
    return run_group, scratch


WINO_BAND_WORK = 5e6   # multiply-adds (of the 36 matmuls) below which a Winograd convolution is one band


def _pad_rows(dst: np.ndarray, x: np.ndarray, p0: int, ph: int, pw: int, value: float = 0.0) -> None:
    """``dst[:, i] = `` row ``p0 + i`` of ``x`` padded by (ph, pw) with ``value``: a horizontal band
    of the padded input, written without materializing the rest."""
    rows, H, W = dst.shape[1], x.shape[1], x.shape[2]
    a, b = max(p0, ph), min(p0 + rows, ph + H)          # padded rows that hold input rows
    if b <= a:
        dst[...] = value
        return
    if a > p0:
        dst[:, :a - p0] = value
    if b < p0 + rows:
        dst[:, b - p0:] = value
    mid = dst[:, a - p0:b - p0]
    if pw:
        mid[:, :, :pw] = value
    if dst.shape[2] > pw + W:
        mid[:, :, pw + W:] = value
    mid[:, :, pw:pw + W] = x[:, a - ph:b - ph]


def _build_wino4(N: int, H: int, W: int, C: int, K: int, OH: int, OW: int, ph: int, pw: int, dtype: np.dtype,
                 unpack: Callable, act: tuple) -> tuple[Callable, list]:
    """Winograd F(4x4, 3x3) as one pipeline per band of tile rows, the bands run on the pool.

    Each band (tile rows ``th0..th1`` of every image) gathers its own zero-padded input rows, then:
    the six rows of every 6x6 input tile (stride 4) by one strided copy, combined by
    ``B^T @ (6, ...)``; the six tile columns likewise, leaving V as 36 matrices ``(T_band, C)`` in
    (column b, row a) order; 36 batched ``(T_band, C) @ (C, K)`` matmuls (4x fewer multiplies
    than direct convolution); the output transform, two more small matmuls; one strided copy into
    the NHWC output rows ``4 th0 .. 4 th1``, and the fused epilogue (bias, residual, activation).
    A band touches only its own scratch and output rows, so the whole convolution is a single
    parallel step: one hand-off to the pool's workers instead of one per phase (a hand-off costs
    10-200 us on a virtual machine whose idle vCPUs halt), and each band's working set stays in cache.
    """
    TH, TW = -(-OH // 4), -(-OW // 4)
    Wq = 4 * TW + 2
    exact_w = OW == 4 * TW
    # one band per thread (a band's 36 matmuls are separate BLAS calls: more bands, more calls);
    # four per thread for very big convolutions (balance); one below WINO_BAND_WORK multiply-adds
    work, t = 36.0 * N * TH * TW * C * K, num_threads()
    nb = 1 if t == 1 or work < WINO_BAND_WORK else t if work < 40 * WINO_BAND_WORK else 4 * t
    nb = min(nb, TH)
    bands = [(TH * i // nb, TH * (i + 1) // nb) for i in range(nb)]
    scratch: list = []
    for th0, th1 in bands:
        c = th1 - th0
        Tb = N * c * TW
        scratch += [((N, 4 * c + 2, Wq, C), dtype), ((6, N, c, Wq, C), dtype), ((6, N, c, Wq, C), dtype),
                    ((6, 6, N, c, TW, C), dtype), ((36, Tb, C), dtype), ((36, Tb, K), dtype), ((6, 4, Tb * K), dtype),
                    ((4, 4, N, c, TW, K), dtype)]
        if not exact_w or 4 * th1 > OH:
            scratch.append(((N, 4 * c, 4 * TW, K), dtype))
    ragged = [not exact_w or 4 * th1 > OH for _, th1 in bands]       # output tiles overhang the edge
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

    def run(*args):
        x, U, b, r, rest = unpack(args)
        out, sc = rest[0], rest[1:]
        if nb == 1:
            band(0, x, U, b, r, out, sc)
        else:
            run_chunks(lambda i: band(i, x, U, b, r, out, sc), nb)
    run.parallel = nb > 1
    return run, scratch


# ------------------------------------------------------------------------------------------
# algorithm choice by measurement (as MXNet's cudnn_tune): per shape, once per process
# ------------------------------------------------------------------------------------------
_TUNED: dict[tuple, str] = {}
TUNE_MAX_FLOPS = 1e9        # a single convolution bigger than this is not timed (compile-time bound)
TUNE_BUDGET_SECONDS = 0.5   # timing per compiled graph; past it the fixed rule decides


def time_conv(x_shape: tuple, attrs: Any, dtype: Any, rounds: int = 3) -> float:
    """Best-of-``rounds`` seconds of one call of the ``_hy_conv`` kernel for ``attrs`` on random
    data of ``x_shape`` (after one warm-up call), with its own scratch buffers."""
    import time

    fn, scratch = build_conv(attrs, x_shape, dtype)
    N, H, W, C = x_shape
    OH, OW = conv_out_hw(H, W, attrs)
    kh, kw = attrs.kernel
    # the values do not matter (no denormals): constants are much cheaper than random draws
    x = np.full(x_shape, 0.5, dtype)
    w_shape = _conv_weight_shape(attrs, [(attrs.num_filter, C // attrs.groups, kh, kw)])[1][0]
    w = np.full(w_shape, 0.01, dtype)
    b = np.zeros(attrs.num_filter, dtype)
    out = np.empty((N, OH, OW, attrs.num_filter), dtype)
    bufs = [np.empty(shape, d) for shape, d in scratch]
    args = [x, w] + ([b] if attrs.has_bias else []) + [out] + bufs
    fn(*args)
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best


def tune_conv_algo(x_shape: tuple, attrs: dict, dtype: Any, candidates: tuple,
                   budget: list | None = None) -> str | None:
    """The fastest of ``candidates`` for this convolution, measured on this machine (cached per
    shape, attrs and thread count: in this process, and across processes in the persistent tuning
    cache, ``graph/tune_cache.py``); None when the convolution is too big to time cheaply or the
    compile's timing ``budget`` (``[seconds left]``, decremented here) is spent."""
    import time
    import types

    from .. import tune_cache
    from .parallel import num_threads

    N, H, W, C = x_shape
    kh, kw = attrs["kernel"]
    OH, OW = conv_out_hw(H, W, types.SimpleNamespace(**attrs))
    if 2.0 * N * OH * OW * C * kh * kw * attrs["num_filter"] > TUNE_MAX_FLOPS:
        return None
    threads = num_threads()
    plain = {k: v for k, v in attrs.items() if k != "algo"}
    key = (tuple(x_shape), tuple(sorted(plain.items())), np.dtype(dtype).str, candidates, threads)
    if key not in _TUNED:
        disk_key = {"op": "conv2d_nhwc", "x_shape": list(x_shape), "attrs": plain, "dtype": np.dtype(dtype).str,
                    "candidates": list(candidates)}
        stored = tune_cache.load(disk_key, candidates, threads)
        if stored is not None:
            _TUNED[key] = stored
            return stored
        if budget is not None and budget[0] <= 0:
            return None
        start = time.perf_counter()
        try:
            times = {algo: time_conv(x_shape, types.SimpleNamespace(**{**attrs, "algo": algo}), dtype)
                     for algo in candidates}
        except (MemoryError, ValueError):   # no room for the trial buffers: let the fixed rule decide
            return None
        finally:
            if budget is not None:
                budget[0] -= time.perf_counter() - start
        _TUNED[key] = min(candidates, key=times.__getitem__)
        tune_cache.store(disk_key, candidates, _TUNED[key], times, threads)
    return _TUNED[key]


def _conv_attrs():
    return (_p("kernel"), _p("stride"), _p("pad"), _p("dilate"), _p("num_filter"), _p("groups", 1),
            _p("algo", "gemm"), _p("act", ()), _p("has_bias", False), _p("has_res", False),
            _p("has_pre", False), _p("pre_act", ()), _p("pre_fold", False))


def _conv_inputs(a):
    return ("data", "weight") + (("bias",) if a.has_bias else ()) + (("residual",) if a.has_res else ()) \
        + ((("pre_shift", "pre_bounds") if a.pre_fold else ("pre_scale", "pre_shift")) if a.has_pre else ())


def _conv_shape(a, in_shapes):
    N, H, W, C = in_shapes[0]
    OH, OW = conv_out_hw(H, W, a)
    return list(in_shapes), [(N, OH, OW, a.num_filter)]


def _conv_compute(a, x, *rest):
    N, H, W, C = x.shape
    OH, OW = conv_out_hw(H, W, a)
    return _run_with_fresh(build_conv(a, x.shape, x.dtype), (N, OH, OW, a.num_filter), x.dtype, x, *rest)


CONV = _internal("_hy_conv", _conv_compute, _conv_attrs(), _conv_inputs, _conv_shape)


@emitter(CONV)
def _emit_conv(em: Any) -> list[str]:
    a = em.node.resolved
    fn, scratch = build_conv(a, em.in_shapes[0], em.in_dtypes[0])
    if getattr(fn, "parallel", False):
        em.plan.parallel = True
    k = em.bind(f"conv_{a.algo}", fn)
    lines = []
    buf = em.out_buffer(0)
    sc = [em.scratch(s, d) for s, d in scratch]
    lines.append(f"{k}({', '.join(em.args + [buf] + sc)})")
    lines.append(f"{em.outs[0]} = {buf}")
    return lines


# ------------------------------------------------------------------------------------------
# pooling
# ------------------------------------------------------------------------------------------
def pool_out_hw(H: int, W: int, a: Any) -> tuple[int, int]:
    if a.global_pool:
        return 1, 1
    (kh, kw), (sh, sw), (ph, pw) = a.kernel, a.stride, a.pad
    if a.full:
        return 1 + (H + 2 * ph - kh + sh - 1) // sh, 1 + (W + 2 * pw - kw + sw - 1) // sw
    return 1 + (H + 2 * ph - kh) // sh, 1 + (W + 2 * pw - kw) // sw


def _avg_divisor(n: int, k: int, s: int, p: int, out: int, include_pad: bool) -> np.ndarray:
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    if include_pad:
        return (end - start).astype(np.float64)
    return (np.minimum(end, n) - np.maximum(start, 0)).astype(np.float64)


def build_pool(a: Any, x_shape: tuple, dtype: Any) -> tuple[Callable, list]:
    N, H, W, C = x_shape
    dtype = np.dtype(dtype)
    is_max = a.pool_type == "max"
    if a.global_pool or (tuple(a.kernel) == (H, W) and not any(a.pad)):
        HW = H * W
        inv = dtype.type(1.0 / HW)

        def run_global(x, out):
            o2 = out.reshape(N, C)
            if is_max:
                np.maximum.reduce(x.reshape(N, HW, C), axis=1, out=o2)
            else:
                np.add.reduce(x.reshape(N, HW, C), axis=1, out=o2)
                np.multiply(o2, inv, out=o2)
        return run_global, []
    (kh, kw), (sh, sw), (ph, pw) = a.kernel, a.stride, a.pad
    OH, OW = pool_out_hw(H, W, a)
    Hn, Wn = (OH - 1) * sh + kh, (OW - 1) * sw + kw      # rows/cols the windows touch (padded coords)
    Wq = max(Wn, W + pw)
    need_pad = ph or pw or Hn > H or Wq > W
    fill = -np.inf if is_max else 0.0
    if not is_max:
        dh = _avg_divisor(H, kh, sh, ph, OH, a.count_include_pad)
        dw = _avg_divisor(W, kw, sw, pw, OW, a.count_include_pad)
        recip = (1.0 / (dh[:, None] * dw[None, :]))[:, :, None].astype(dtype)
        if np.all(recip == recip.flat[0]):
            recip = dtype.type(recip.flat[0])
    # bands of output rows on the pool, each with its own padded input rows (windows overlap
    # when kh > sh: a band reads a few rows of its neighbour's input, never its scratch)
    nb = max(1, min(OH, chunks_for(float(N * OH * OW * C * kh * kw), OH, min_work=AFFINE_PARALLEL_WORK)))
    bands = [(OH * i // nb, OH * (i + 1) // nb) for i in range(nb)]
    scratch = [((N, (o1 - o0 - 1) * sh + kh, Wq, C), dtype) for o0, o1 in bands] if need_pad else []

    def band(i: int, x: np.ndarray, out: np.ndarray, rest: tuple) -> None:
        o0, o1 = bands[i]
        if need_pad:
            src = rest[i]
            _pad_rows(src, x, o0 * sh, ph, pw, fill)
            r0 = 0
        else:
            src, r0 = x, o0 * sh
        o = out[:, o0:o1]
        first = True
        for ti in range(kh):
            for tj in range(kw):
                v = src[:, r0 + ti:r0 + ti + sh * (o1 - o0 - 1) + 1:sh, tj:tj + sw * (OW - 1) + 1:sw]
                if first:
                    np.copyto(o, v)
                    first = False
                elif is_max:
                    np.maximum(o, v, out=o)
                else:
                    np.add(o, v, out=o)
        if not is_max:
            np.multiply(o, recip if np.ndim(recip) == 0 else recip[o0:o1], out=o)

    def run(x, out, *rest):
        if nb == 1:
            band(0, x, out, rest)
        else:
            run_chunks(lambda i: band(i, x, out, rest), nb)
    run.parallel = nb > 1
    return run, scratch


def _pool_shape(a, in_shapes):
    N, H, W, C = in_shapes[0]
    OH, OW = pool_out_hw(H, W, a)
    return list(in_shapes), [(N, OH, OW, C)]


def _pool_compute(a, x):
    N, H, W, C = x.shape
    OH, OW = pool_out_hw(H, W, a)
    return _run_with_fresh(build_pool(a, x.shape, x.dtype), (N, OH, OW, C), x.dtype, x)


POOL = _internal("_hy_pool", _pool_compute,
                 (_p("kernel"), _p("stride"), _p("pad"), _p("pool_type", "max"), _p("full", False),
                  _p("count_include_pad", True), _p("global_pool", False)), ("data",), _pool_shape)


@emitter(POOL)
def _emit_pool(em: Any) -> list[str]:
    fn, scratch = build_pool(em.node.resolved, em.in_shapes[0], em.in_dtypes[0])
    if getattr(fn, "parallel", False):
        em.plan.parallel = True
    k = em.bind("pool", fn)
    buf = em.out_buffer(0)
    sc = [em.scratch(s, d) for s, d in scratch]
    return [f"{k}({', '.join([em.args[0], buf] + sc)})", f"{em.outs[0]} = {buf}"]


# ------------------------------------------------------------------------------------------
# dense, affine, activation, add, concat, reshape
# ------------------------------------------------------------------------------------------
def _dense_compute(a, x, wt, *b):
    x2 = x.reshape(x.shape[0], -1) if a.flatten else x.reshape(-1, x.shape[-1])
    out = np.matmul(x2, wt)
    if b:
        out += b[0]
    apply_act(out, tuple(a.act or ()))
    return out.reshape(_dense_shape(a, [x.shape])[1][0])


def _dense_shape(a, in_shapes):
    x = in_shapes[0]
    nh = a.num_hidden
    return list(in_shapes), [(x[0], nh) if a.flatten else tuple(x[:-1]) + (nh,)]


DENSE = _internal("_hy_dense", _dense_compute,
                  (_p("num_hidden"), _p("flatten", True), _p("has_bias", True), _p("act", ())),
                  lambda a: ("data", "weight_t") + (("bias",) if a.has_bias else ()), _dense_shape)


@emitter(DENSE)
def _emit_dense(em: Any) -> list[str]:
    a = em.node.resolved
    x = em.args[0]
    xs = em.in_shapes[0]
    lines = []
    if a.flatten and len(xs) != 2:
        x2 = em.names.make("flat")
        shp = em.bind("shape", (xs[0], int(np.prod(xs[1:]))))
        lines.append(f"{x2} = {x}.reshape({shp})")
        x = x2
    elif not a.flatten and len(xs) != 2:
        x2 = em.names.make("flat")
        shp = em.bind("shape", (int(np.prod(xs[:-1])), xs[-1]))
        lines.append(f"{x2} = {x}.reshape({shp})")
        x = x2
    buf = em.out_buffer(0)
    o2 = buf
    if not a.flatten and len(xs) != 2:
        o2 = em.names.make("flat")
        shp = em.bind("shape", (int(np.prod(xs[:-1])), a.num_hidden))
        lines.append(f"{o2} = {buf}.reshape({shp})")
    # np.dot: the same BLAS call as matmul for 2-D float operands, with less dispatch overhead
    # (0.5 us a call: a tenth of a batch-1 MLP layer); it needs one float dtype throughout
    dts = {np.dtype(d) for d in em.in_dtypes[:2]}
    mm = "_dot" if len(dts) == 1 and dts <= {np.dtype(np.float32), np.dtype(np.float64)} else "_matmul"
    lines.append(f"{mm}({x}, {em.args[1]}, out={o2})")
    if a.has_bias:
        lines.append(f"_add({o2}, {em.args[2]}, out={o2})")
    o2_shape = (xs[0], a.num_hidden) if a.flatten else (int(np.prod(xs[:-1])), a.num_hidden)
    lines += act_lines(em, o2, tuple(a.act or ()), o2_shape, em.out_dtypes[0])
    lines.append(f"{em.outs[0]} = {buf}")
    return lines


def _affine_compute(a, x, scale, shift):
    out = x * scale + shift
    apply_act(out, tuple(a.act or ()))
    return out.astype(x.dtype, copy=False)


AFFINE = _internal("_hy_affine", _affine_compute, (_p("act", ()),), ("data", "scale", "shift"),
                   lambda a, s: (list(s), [s[0]]))


@emitter(AFFINE)
def _emit_affine(em: Any) -> list[str]:
    buf = em.inplace(0, 0) or em.out_buffer(0)
    x, s, t = em.args
    act = tuple(em.node.resolved.act or ())
    shape = tuple(em.in_shapes[0])
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    nch = chunks_for(float(np.prod(shape)) * (2 + bool(act)), rows, min_work=AFFINE_PARALLEL_WORK)
    if nch > 1 or int(np.prod(shape)) >= FAST_MIN_SIZE:
        # memory-bound passes over a big tensor: tiled rows, row chunks on the thread pool
        em.plan.parallel = em.plan.parallel or nch > 1
        k = em.bind("affine", build_affine(shape, act, nch))
        return [f"{k}({x}, {s}, {t}, {buf})", f"{em.outs[0]} = {buf}"]
    lines = [f"_multiply({x}, {s}, out={buf})", f"_add({buf}, {t}, out={buf})"]
    lines += act_lines(em, buf, act, shape, em.out_dtypes[0])
    return lines + [f"{em.outs[0]} = {buf}"]


AFFINE_PARALLEL_WORK = 1e6        # element-passes below which one thread is faster than the pool


def build_affine(shape: tuple, act: tuple, nch: int) -> Callable:
    """``out = act(x * scale + shift)`` (per-channel scale/shift on the last axis) in ``nch`` row
    chunks run on the thread pool; numpy's ufunc loops release the GIL."""
    C = shape[-1]
    rows = int(np.prod(shape[:-1]))
    tiling = RowTiling(C, rows)
    units = rows // tiling.r                 # chunks are whole tiled rows
    nch = max(1, min(nch, units))
    bounds = [(tiling.r * (units * i // nch), tiling.r * (units * (i + 1) // nch)) for i in range(nch)]

    def run(x: np.ndarray, scale: np.ndarray, shift: np.ndarray, out: np.ndarray) -> None:
        x2, o2 = x.reshape(rows, C), out.reshape(rows, C)
        if nch == 1:
            affine_into(o2, x2, scale, shift, act, tiling)
            return
        run_chunks(lambda i: affine_into(o2[bounds[i][0]:bounds[i][1]], x2[bounds[i][0]:bounds[i][1]], scale, shift,
                                         act, tiling), nch)
    return run


def _act_compute(a, x):
    out = x.copy()
    apply_act(out, tuple(a.act))
    return out


ACT = _internal("_hy_act", _act_compute, (_p("act", ()),), ("data",), lambda a, s: (list(s), [s[0]]))


@emitter(ACT)
def _emit_act(em: Any) -> list[str]:
    act = tuple(em.node.resolved.act)
    x = em.args[0]
    buf = em.inplace(0, 0)
    lines = []
    if buf is None:
        buf = em.out_buffer(0)
        if act[0] == "relu":
            shape = tuple(em.out_shapes[0])
            if int(np.prod(shape)) >= FAST_MIN_SIZE and np.dtype(em.out_dtypes[0]).kind == "f":
                z = em.bind("zeros", zeros_like_view(shape, em.out_dtypes[0]))
                return [f"_maximum({x}, {z}, out={buf})", f"{em.outs[0]} = {buf}"]
            return [f"_maximum({x}, 0, out={buf})", f"{em.outs[0]} = {buf}"]
        lines.append(f"_copyto({buf}, {x})")
    return lines + act_lines(em, buf, act, tuple(em.out_shapes[0]), em.out_dtypes[0]) + [f"{em.outs[0]} = {buf}"]


def _add_compute(a, x, y):
    out = np.add(x, y)
    apply_act(out, tuple(a.act or ()))
    return out.astype(x.dtype, copy=False)


ADD = _internal("_hy_add", _add_compute, (_p("act", ()),), ("lhs", "rhs"), lambda a, s: (list(s), [s[0]]))


@emitter(ADD)
def _emit_add(em: Any) -> list[str]:
    buf = em.inplace(0, 0) or em.inplace(0, 1) or em.out_buffer(0)
    lines = [f"_add({em.args[0]}, {em.args[1]}, out={buf})"]
    lines += act_lines(em, buf, tuple(em.node.resolved.act or ()), tuple(em.out_shapes[0]), em.out_dtypes[0])
    return lines + [f"{em.outs[0]} = {buf}"]


def _concat_shape(a, in_shapes):
    s = list(in_shapes[0])
    s[a.axis] = sum(x[a.axis] for x in in_shapes)
    return list(in_shapes), [tuple(s)]


CONCAT = _internal("_hy_concat", lambda a, *xs: np.concatenate(xs, axis=a.axis), (_p("axis", 1), _p("num_args", 1)),
                   None, _concat_shape, variadic="num_args")


@emitter(CONCAT)
def _emit_concat(em: Any) -> list[str]:
    buf = em.out_buffer(0)
    ax = int(em.node.resolved.axis)
    return [f"_concatenate(({', '.join(em.args)},), axis={ax}, out={buf})", f"{em.outs[0]} = {buf}"]


def _reshape_shape(a, in_shapes):
    return list(in_shapes), [tuple(a.shape)]


RESHAPE = _internal("_hy_reshape", lambda a, x: x.reshape(a.shape), (_p("shape"),), ("data",), _reshape_shape)


@emitter(RESHAPE)
def _emit_reshape(em: Any) -> list[str]:
    em.alias(0)
    shp = em.bind("shape", tuple(em.node.resolved.shape))
    return [f"{em.outs[0]} = {em.args[0]}.reshape({shp})"]
