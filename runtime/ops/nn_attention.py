"""Fused multi-head attention matmuls of MXNet's contrib transformer ops (1.9.1):
``_contrib_interleaved_matmul_selfatt_qk`` / ``_selfatt_valatt`` and
``_contrib_interleaved_matmul_encdec_qk`` / ``_encdec_valatt``.

Projections are interleaved per head: self-attention input ``(seq, batch, heads * 3 * head_dim)``
laid out as ``(seq, batch, heads, [q, k, v], head_dim)``; encoder-decoder keys/values
``(seq, batch, heads * 2 * head_dim)`` as ``(seq, batch, heads, [k, v], head_dim)``. Attention
scores are ``(batch * heads, q_seq, k_seq)`` (batch-major), queries scaled by ``1/sqrt(head_dim)``.
Each op is one batched matmul.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._util import ndim_known
from .attrs import Bool, Int, Param
from .registry import OpDef, defgrad, register

_PARAMS = (Param("heads", Int), Param("bwd_ignore_zero_init", Bool, False))


def _split(x, heads: int, parts: int):
    """(seq, batch, heads*parts*hd) -> (batch*heads, parts, seq, hd)."""
    T, B, E = x.shape
    if E % (heads * parts):
        raise ShapeError(f"projection size {E} is not divisible by heads * {parts} = {heads * parts}")
    hd = E // (heads * parts)
    return x.reshape(T, B, heads, parts, hd).transpose(1, 2, 3, 0, 4).reshape(B * heads, parts, T, hd), hd


def _merge(o, T: int, B: int, heads: int):
    """(batch*heads, seq, hd) -> (seq, batch, heads*hd)."""
    hd = o.shape[-1]
    return np.ascontiguousarray(o.reshape(B, heads, T, hd).transpose(2, 0, 1, 3).reshape(T, B, heads * hd))


def _selfatt_qk(attrs, qkv):
    """Scaled ``Q K^T`` of interleaved self-attention projections: ``(batch*heads, seq, seq)``."""
    p, hd = _split(qkv, attrs.heads, 3)
    q = p[:, 0] * qkv.dtype.type(1.0 / np.sqrt(hd))
    return np.matmul(q, p[:, 1].transpose(0, 2, 1))


def _selfatt_valatt(attrs, qkv, att):
    """Attention-weighted values of interleaved self-attention projections: ``(seq, batch, heads*hd)``."""
    T, B, _ = qkv.shape
    p, _ = _split(qkv, attrs.heads, 3)
    return _merge(np.matmul(att, p[:, 2]), T, B, attrs.heads)


def _encdec_qk(attrs, queries, kv):
    """Scaled ``Q K^T`` with separate queries and interleaved keys/values: ``(batch*heads, q_seq, k_seq)``."""
    q, hd = _split(queries, attrs.heads, 1)
    k, _ = _split(kv, attrs.heads, 2)
    return np.matmul(q[:, 0] * queries.dtype.type(1.0 / np.sqrt(hd)), k[:, 0].transpose(0, 2, 1))


def _encdec_valatt(attrs, kv, att):
    """Attention-weighted values from interleaved keys/values: ``(q_seq, batch, heads*hd)``."""
    _, B, _ = kv.shape
    v, _ = _split(kv, attrs.heads, 2)
    out = np.matmul(att, v[:, 1])                         # (B*heads, q_seq, hd)
    return _merge(out, att.shape[1], B, attrs.heads)



def _selfatt_qk_shape(attrs, ins):
    d = ins[0]
    if not ndim_known(d):
        return list(ins), [None]
    return list(ins), [(d[1] * attrs.heads, d[0], d[0])]


def _selfatt_valatt_shape(attrs, ins):
    d = ins[0]
    if not ndim_known(d):
        return list(ins), [None]
    out = (d[0], d[1], d[2] // 3)
    att = (d[1] * attrs.heads, d[0], d[0])
    return [ins[0], ins[1] if ndim_known(ins[1]) else att], [out]


def _encdec_qk_shape(attrs, ins):
    q, kv = ins
    if not (ndim_known(q) and ndim_known(kv)):
        return list(ins), [None]
    return list(ins), [(q[1] * attrs.heads, q[0], kv[0])]


def _encdec_valatt_shape(attrs, ins):
    kv, att = ins
    if not (ndim_known(kv) and ndim_known(att)):
        return list(ins), [None]
    return list(ins), [(att[1], kv[1], kv[2] // 2)]


register(OpDef("_contrib_interleaved_matmul_selfatt_qk", _selfatt_qk, params=_PARAMS,
               inputs=("queries_keys_values",), infer_shape=_selfatt_qk_shape))
register(OpDef("_contrib_interleaved_matmul_selfatt_valatt", _selfatt_valatt, params=_PARAMS,
               inputs=("queries_keys_values", "attention"), infer_shape=_selfatt_valatt_shape))
register(OpDef("_contrib_interleaved_matmul_encdec_qk", _encdec_qk, params=_PARAMS,
               inputs=("queries", "keys_values"), infer_shape=_encdec_qk_shape))
register(OpDef("_contrib_interleaved_matmul_encdec_valatt", _encdec_valatt, params=_PARAMS,
               inputs=("keys_values", "attention"), infer_shape=_encdec_valatt_shape))


# -- gradients (MXNet 1.9.1: src/operator/contrib/transformer.cc, _backward_interleaved_matmul_*) ---------
def _unsplit(p, T: int, B: int, heads: int):
    """``_split``'s inverse: (batch*heads, parts, seq, hd) -> (seq, batch, heads*parts*hd)."""
    _, parts, _, hd = p.shape
    return np.ascontiguousarray(p.reshape(B, heads, parts, T, hd).transpose(3, 0, 1, 2, 4)
                                .reshape(T, B, heads * parts * hd))


def _unmerge(o, heads: int):
    """``_merge``'s inverse: (seq, batch, heads*hd) -> (batch*heads, seq, hd)."""
    T, B, E = o.shape
    return o.reshape(T, B, heads, E // heads).transpose(1, 2, 0, 3).reshape(B * heads, T, E // heads)


def _bt(x):
    return x.transpose(0, 2, 1)


def _backward_selfatt_qk(attrs, og, qkv):
    T, B, _ = qkv.shape
    p, hd = _split(qkv, attrs.heads, 3)
    s = qkv.dtype.type(1.0 / np.sqrt(hd))
    g = np.zeros_like(p)
    g[:, 0] = s * np.matmul(og, p[:, 1])
    g[:, 1] = s * np.matmul(_bt(og), p[:, 0])
    return _unsplit(g, T, B, attrs.heads)


def _backward_selfatt_valatt(attrs, og, qkv, att):
    T, B, _ = qkv.shape
    p, _ = _split(qkv, attrs.heads, 3)
    go = _unmerge(og, attrs.heads)
    g = np.zeros_like(p)
    g[:, 2] = np.matmul(_bt(att), go)
    return _unsplit(g, T, B, attrs.heads), np.matmul(go, _bt(p[:, 2])).astype(att.dtype, copy=False)


def _backward_encdec_qk(attrs, og, queries, kv):
    q, hd = _split(queries, attrs.heads, 1)
    k, _ = _split(kv, attrs.heads, 2)
    s = queries.dtype.type(1.0 / np.sqrt(hd))
    gq = np.zeros_like(q)
    gq[:, 0] = s * np.matmul(og, k[:, 0])
    gk = np.zeros_like(k)
    gk[:, 0] = s * np.matmul(_bt(og), q[:, 0])
    return (_unsplit(gq, queries.shape[0], queries.shape[1], attrs.heads),
            _unsplit(gk, kv.shape[0], kv.shape[1], attrs.heads))


def _backward_encdec_valatt(attrs, og, kv, att):
    v, _ = _split(kv, attrs.heads, 2)
    go = _unmerge(og, attrs.heads)
    g = np.zeros_like(v)
    g[:, 1] = np.matmul(_bt(att), go)
    return _unsplit(g, kv.shape[0], kv.shape[1], attrs.heads), np.matmul(go, _bt(v[:, 1])).astype(att.dtype,
                                                                                                   copy=False)


for _name, _fn, _ins, _like in (
        ("selfatt_qk", _backward_selfatt_qk, ("ograd", "queries_keys_values"), (1,)),
        ("selfatt_valatt", _backward_selfatt_valatt, ("ograd", "queries_keys_values", "attention"), (1, 2)),
        ("encdec_qk", _backward_encdec_qk, ("ograd", "queries", "keys_values"), (1, 2)),
        ("encdec_valatt", _backward_encdec_valatt, ("ograd", "keys_values", "attention"), (1, 2))):
    backward_op(f"_backward_interleaved_matmul_{_name}", _fn, _ins, like=_like, num_outputs=len(_like),
                params=_PARAMS)

    @defgrad(f"_contrib_interleaved_matmul_{_name}")
    def _attention_grad(F, attrs, inputs, outputs, out_grads, _name=_name):
        g = internal(F, f"_backward_interleaved_matmul_{_name}")(out_grads[0], *inputs, heads=attrs.heads)
        return [g] if len(inputs) == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(len(inputs))]
