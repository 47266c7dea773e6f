"""MXNet's contrib attention matmuls used by BERT and the Transformer (``_contrib_interleaved_matmul_*``):
projections interleaved per head, ``(seq, batch, heads * parts * head_dim)``; scores
``(batch * heads, q_seq, k_seq)``. Sequence and batch sizes are read with ``Shape`` so they may
be dynamic."""
from __future__ import annotations

import math

import numpy as np

from .registry import converter


def _heads(n, x: str, i: int, parts: int) -> tuple[str, int]:
    """(seq, batch, heads*parts*hd) -> (batch, heads, parts, seq, hd); and hd."""
    H = int(n.attrs.heads)
    E = n.in_shape(i)[2]
    if E % (H * parts):
        n.fail(f"projection size {E} is not divisible by heads * {parts}")
    hd = E // (H * parts)
    r = n.op("Reshape", x, n.ints([0, 0, H, parts, hd]))
    return n.op("Transpose", r, perm=[1, 2, 3, 0, 4]), hd


def _part(n, x5: str, k: int) -> str:
    """Part ``k`` of (batch, heads, parts, seq, hd) -> (batch, heads, seq, hd)."""
    return n.op("Gather", x5, n.const(np.asarray(k, np.int64)), axis=2)


def _flat_heads(n, x4: str) -> str:
    """(batch, heads, seq, hd) -> (batch*heads, seq, hd)."""
    return n.op("Reshape", x4, n.op("Concat", n.ints([-1]), n.dim(x4, 2), n.dim(x4, 3), axis=0))


def _merge(n, o: str, batch_src: str, seq: str, hd: int) -> str:
    """(batch*heads, seq, hd) -> (seq, batch, heads*hd)."""
    H = int(n.attrs.heads)
    shape = n.op("Concat", n.dim(batch_src, 1), n.ints([H]), seq, n.ints([hd]), axis=0)
    t = n.op("Transpose", n.op("Reshape", o, shape), perm=[2, 0, 1, 3])
    return n.op("Reshape", t, n.ints([0, 0, H * hd]))


def _scores(n, q4: str, k4: str, hd: int) -> str:
    q4 = n.op("Mul", q4, n.scalar(1.0 / math.sqrt(hd)))
    s = n.op("MatMul", q4, n.op("Transpose", k4, perm=[0, 1, 3, 2]))
    return n.op("Reshape", s, n.op("Concat", n.ints([-1]), n.dim(q4, 2), n.dim(k4, 2), axis=0))


@converter("_contrib_interleaved_matmul_selfatt_qk")
def selfatt_qk(n):
    x5, hd = _heads(n, n.inputs[0], 0, 3)
    return [_scores(n, _part(n, x5, 0), _part(n, x5, 1), hd)]


@converter("_contrib_interleaved_matmul_selfatt_valatt")
def selfatt_valatt(n):
    qkv, att = n.inputs
    x5, hd = _heads(n, qkv, 0, 3)
    o = n.op("MatMul", att, _flat_heads(n, _part(n, x5, 2)))
    return [_merge(n, o, qkv, n.dim(qkv, 0), hd)]


@converter("_contrib_interleaved_matmul_encdec_qk")
def encdec_qk(n):
    q, kv = n.inputs
    q5, hd = _heads(n, q, 0, 1)
    kv5, _ = _heads(n, kv, 1, 2)
    return [_scores(n, _part(n, q5, 0), _part(n, kv5, 0), hd)]


@converter("_contrib_interleaved_matmul_encdec_valatt")
def encdec_valatt(n):
    kv, att = n.inputs
    kv5, hd = _heads(n, kv, 0, 2)
    o = n.op("MatMul", att, _flat_heads(n, _part(n, kv5, 1)))
    return [_merge(n, o, kv, n.dim(att, 1), hd)]
