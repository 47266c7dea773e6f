"""Deformable convolutions: ``_contrib_DeformableConvolution`` (v1) and
``_contrib_ModulatedDeformableConvolution`` (v2, with a modulation mask), MXNet 1.9.1 (2-D, NCHW).

Every kernel tap of every output position samples the input at its regular location plus a
learned offset (``offset``: ``(N, 2 * deformable_groups * kh * kw, Ho, Wo)``, (dy, dx) pairs per
tap), bilinearly, with MXNet's CPU border rules (which differ between v1's ``deformable_im2col`` and
v2's ``modulated_deformable_im2col``, see ``_deformable_cols``). The sampled
columns are gathered in one vectorized pass (no loops over positions) and multiplied with the
weight in one batched matmul, as a regular convolution.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import internal
from ._nnutil import OptEnum, conv_out_dim, merge_shape, spatial_params
from .attrs import Bool, Int, Param, Shape
from .registry import OpDef, defgrad, get_op, register


def _inputs(modulated: bool):
    def names(attrs):
        base = ["data", "offset"] + (["mask"] if modulated else []) + ["weight"]
        return tuple(base) if attrs.no_bias else tuple(base + ["bias"])
    return names


def _shape(modulated: bool):
    def infer(attrs, in_shapes):
        ins = list(in_shapes)
        kernel, stride, dil, pad = spatial_params(attrs, len(attrs.kernel))
        if len(kernel) != 2:
            raise ShapeError("deformable convolution supports 2-D kernels only")
        g, F, dg = attrs.num_group, attrs.num_filter, attrs.num_deformable_group
        K = kernel[0] * kernel[1]
        d = ins[0]
        C = d[1] if d is not None and len(d) == 4 else 0
        wi = 3 if modulated else 2
        ins[wi] = merge_shape(ins[wi], (F, C // g) + tuple(kernel), "weight")
        if not attrs.no_bias:
            ins[wi + 1] = merge_shape(ins[wi + 1], (F,), "bias")
        if d is None or len(d) == 0:
            return ins, [None]
        if len(d) != 4:
            raise ShapeError(f"deformable convolution needs 4-D data, got {tuple(d)}")
        osp = tuple(conv_out_dim(n, k, s, dl, p) for n, k, s, dl, p in zip(d[2:], kernel, stride, dil, pad))
        ins[1] = merge_shape(ins[1], (d[0], 2 * dg * K) + osp, "offset")
        if modulated:
            ins[2] = merge_shape(ins[2], (d[0], dg * K) + osp, "mask")
        return ins, [(d[0], F) + osp]
    return infer


def _deformable_cols(attrs, x, offset, mask):
    """Sampled columns ``(N, C, kh*kw, Ho*Wo)``."""
    N, C, H, W = x.shape
    kernel, stride, dil, pad = spatial_params(attrs, 2)
    kh, kw = kernel
    K = kh * kw
    dg = attrs.num_deformable_group
    Ho, Wo = offset.shape[2:]
    O = Ho * Wo
    off = offset.reshape(N, dg, K, 2, O).astype(np.float64)
    ki, kj = np.divmod(np.arange(K), kw)
    base_h = (np.arange(Ho) * stride[0] - pad[0])[:, None] + np.zeros((1, Wo))
    base_w = (np.arange(Wo) * stride[1] - pad[1])[None, :] + np.zeros((Ho, 1))
    hs = (ki * dil[0])[:, None] + base_h.reshape(1, O)               # (K, O)
    ws = (kj * dil[1])[:, None] + base_w.reshape(1, O)
    h = hs[None, None] + off[:, :, :, 0]                             # (N, dg, K, O)
    w = ws[None, None] + off[:, :, :, 1]
    h0 = np.floor(h).astype(np.int64)
    w0 = np.floor(w).astype(np.int64)
    xg = x.reshape(N, dg, C // dg, H * W)
    cols = np.zeros((N, dg, C // dg, K, O), dtype=np.float64)
    if mask is None:
        # v1 (MXNet's deformable_im2col_cpu / im2col_bilinear_cpu): taps inside [0, H) x [0, W)
        # only; at the last row/column the upper neighbour is the border itself (no zero padding)
        inside = (h >= 0) & (w >= 0) & (h < H) & (w < W)
        top_h, top_w = h0 >= H - 1, w0 >= W - 1
        h1, w1 = np.where(top_h, H - 1, h0 + 1), np.where(top_w, W - 1, w0 + 1)
        lh, lw = np.where(top_h, 0.0, h - h0), np.where(top_w, 0.0, w - w0)
        taps = ((h0, w0, (1 - lh) * (1 - lw)), (h0, w1, (1 - lh) * lw), (h1, w0, lh * (1 - lw)), (h1, w1, lh * lw))
    else:
        # v2 (modulated_deformable_im2col / dmcn_im2col_bilinear): taps inside (-1, H) x (-1, W),
        # neighbours outside the image count as zeros
        inside = (h > -1) & (w > -1) & (h < H) & (w < W)
        lh, lw = h - h0, w - w0
        taps = ((h0, w0, (1 - lh) * (1 - lw)), (h0, w0 + 1, (1 - lh) * lw), (h0 + 1, w0, lh * (1 - lw)),
                (h0 + 1, w0 + 1, lh * lw))
    for hh, ww, wt in taps:
        ok = inside & (hh >= 0) & (hh <= H - 1) & (ww >= 0) & (ww <= W - 1)
        idx = np.where(ok, hh * W + ww, 0).reshape(N, dg, 1, K * O)
        vals = np.take_along_axis(xg, np.broadcast_to(idx, (N, dg, C // dg, K * O)), axis=3)
        cols += vals.reshape(N, dg, C // dg, K, O) * np.where(ok, wt, 0.0)[:, :, None]
    if mask is not None:
        cols *= mask.reshape(N, dg, 1, K, O)
    return cols.reshape(N, C, K, O).astype(x.dtype), (Ho, Wo)


def _compute(modulated: bool):
    def run(attrs, x, offset, *rest):
        rest = list(rest)
        mask = rest.pop(0) if modulated else None
        w = rest.pop(0)
        b = rest.pop(0) if rest else None
        N, C = x.shape[:2]
        g, F = attrs.num_group, attrs.num_filter
        cols, (Ho, Wo) = _deformable_cols(attrs, x, offset, mask)
        K = cols.shape[2]
        cols = cols.reshape(N, g, (C // g) * K, Ho * Wo)
        out = np.matmul(w.reshape(g, F // g, (C // g) * K), cols).reshape(N, F, Ho, Wo)
        if b is not None:
            out += b.reshape(F, 1, 1)
        return out.astype(x.dtype, copy=False)
    run.__doc__ = ("Modulated deformable convolution (v2): deformable sampling scaled by ``mask``."
                   if modulated else "Deformable convolution (v1): taps sample at learned offsets.")
    return run


_COMMON = (Param("kernel", Shape), Param("stride", Shape, ()), Param("dilate", Shape, ()), Param("pad", Shape, ()),
           Param("num_filter", Int), Param("num_group", Int, 1), Param("num_deformable_group", Int, 1),
           Param("workspace", Int, 1024), Param("no_bias", Bool, False))
_LAYOUT = Param("layout", OptEnum("NCW", "NCHW", "NCDHW"), None)

register(OpDef("_contrib_DeformableConvolution", _compute(False), params=_COMMON + (_LAYOUT,),
               inputs=_inputs(False), infer_shape=_shape(False)))
register(OpDef("_contrib_ModulatedDeformableConvolution", _compute(True),
               params=_COMMON + (Param("im2col_step", Int, 64), _LAYOUT),
               inputs=_inputs(True), infer_shape=_shape(True)))


# -- gradients (MXNet 1.9.1: contrib/deformable_convolution.cc and modulated_deformable_convolution.cc are
# legacy operators; their Backward runs deformable_col2im (data), deformable_col2im_coord (offset, and mask
# for v2) and a gemm (weight): each the exact adjoint of its version's bilinear border rule) ------------------
def _backward_deformable(modulated: bool):
    def run(attrs, og, x, offset, *rest):
        rest = list(rest)
        mask = rest.pop(0) if modulated else None
        wt = rest.pop(0)
        has_bias = bool(rest)
        N, C, H, W = x.shape
        g, F, dg = attrs.num_group, attrs.num_filter, attrs.num_deformable_group
        kernel, stride, dil, pad = spatial_params(attrs, 2)
        kh, kw = kernel
        K = kh * kw
        Ho, Wo = offset.shape[2:]
        O = Ho * Wo
        gout = og.reshape(N, g, F // g, O).astype(np.float64)
        cols, _ = _deformable_cols(attrs, x.astype(np.float64), offset, mask)
        cols = cols.reshape(N, g, (C // g) * K, O)
        wg = wt.reshape(g, F // g, (C // g) * K).astype(np.float64)
        dw = np.einsum("ngfo,ngko->gfk", gout, cols).reshape(wt.shape)
        dcols = np.einsum("gfk,ngfo->ngko", wg, gout).reshape(N, dg, C // dg, K, O)
        # sampling positions, as the forward pass computes them
        off = offset.reshape(N, dg, K, 2, O).astype(np.float64)
        ki, kj = np.divmod(np.arange(K), kw)
        base_h = (np.arange(Ho) * stride[0] - pad[0])[:, None] + np.zeros((1, Wo))
        base_w = (np.arange(Wo) * stride[1] - pad[1])[None, :] + np.zeros((Ho, 1))
        h = ((ki * dil[0])[:, None] + base_h.reshape(1, O))[None, None] + off[:, :, :, 0]
        w = ((kj * dil[1])[:, None] + base_w.reshape(1, O))[None, None] + off[:, :, :, 1]
        h0 = np.floor(h).astype(np.int64)
        w0 = np.floor(w).astype(np.int64)
        if modulated:
            inside = (h > -1) & (w > -1) & (h < H) & (w < W)
            h1, w1 = h0 + 1, w0 + 1
            lh, lw = h - h0, w - w0
            dlh = dlw = np.ones_like(h)
        else:   # v1: the forward pass's border rule (its backward is that rule's exact adjoint)
            inside = (h >= 0) & (w >= 0) & (h < H) & (w < W)
            top_h, top_w = h0 >= H - 1, w0 >= W - 1
            h1, w1 = np.where(top_h, H - 1, h0 + 1), np.where(top_w, W - 1, w0 + 1)
            lh, lw = np.where(top_h, 0.0, h - h0), np.where(top_w, 0.0, w - w0)
            dlh, dlw = np.where(top_h, 0.0, 1.0), np.where(top_w, 0.0, 1.0)
        m = np.ones((N, dg, K, O)) if mask is None else mask.reshape(N, dg, K, O).astype(np.float64)
        dcm = dcols * m[:, :, None]
        xg = x.reshape(N, dg, C // dg, H * W).astype(np.float64)
        dx = np.zeros((N, dg, C // dg, H * W))
        doff_h = np.zeros((N, dg, K, O))
        doff_w = np.zeros((N, dg, K, O))
        sampled = np.zeros((N, dg, C // dg, K, O))
        n_i = np.arange(N)[:, None, None, None]
        g_i = np.arange(dg)[None, :, None, None]
        c_i = np.arange(C // dg)[None, None, :, None]
        for hh, ww, wgt, sh, sw in ((h0, w0, (1 - lh) * (1 - lw), -dlh * (1 - lw), -(1 - lh) * dlw),
                                    (h0, w1, (1 - lh) * lw, -dlh * lw, (1 - lh) * dlw),
                                    (h1, w0, lh * (1 - lw), dlh * (1 - lw), -lh * dlw),
                                    (h1, w1, lh * lw, dlh * lw, lh * dlw)):
            ok = inside & (hh >= 0) & (hh <= H - 1) & (ww >= 0) & (ww <= W - 1)
            idx = np.where(ok, hh * W + ww, 0).reshape(N, dg, 1, K * O)
            idx = np.broadcast_to(idx, (N, dg, C // dg, K * O))
            vals = np.take_along_axis(xg, idx, axis=3).reshape(N, dg, C // dg, K, O) * ok[:, :, None]
            sampled += vals * wgt[:, :, None]
            np.add.at(dx, (n_i, g_i, c_i, idx), (dcm * (wgt * ok)[:, :, None]).reshape(N, dg, C // dg, K * O))
            seen = (dcm * vals).sum(axis=2)
            doff_h += seen * sh
            doff_w += seen * sw
        doff = np.stack([doff_h * inside, doff_w * inside], axis=3).reshape(offset.shape)
        grads = [dx.reshape(x.shape).astype(x.dtype), doff.astype(offset.dtype)]
        if modulated:
            grads.append(((dcols * sampled).sum(axis=2) * inside).reshape(mask.shape).astype(mask.dtype))
        grads.append(dw.astype(wt.dtype))
        if has_bias:
            grads.append(og.astype(np.float64).sum(axis=(0, 2, 3)).astype(rest[0].dtype))
        return tuple(grads)
    return run


for _modulated, _name in ((False, "_contrib_DeformableConvolution"), (True, "_contrib_ModulatedDeformableConvolution")):
    _fwd = get_op(_name)
    register(OpDef(f"_backward_{_name}", _backward_deformable(_modulated), params=_fwd.params,
                   inputs=lambda a, _f=_fwd: ["ograd"] + list(_f.input_names(a)),
                   num_outputs=lambda a, _f=_fwd: len(_f.input_names(a)),
                   infer_shape=lambda a, ss: (list(ss), list(ss[1:])),
                   infer_type=lambda a, ds: [d or np.float32 for d in ds[1:]],
                   doc=f"{_name} backward: data, offset{', mask' if _modulated else ''}, weight and bias."))

    @defgrad(_name)
    def _deformable_grad(F, attrs, inputs, outputs, out_grads, _bw=f"_backward_{_name}"):
        g = internal(F, _bw)(out_grads[0], *inputs, **attrs.as_dict())
        return [g[i] for i in range(len(inputs))]
