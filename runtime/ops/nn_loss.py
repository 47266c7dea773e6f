"""``CTCLoss`` (aliases ``ctc_loss``, ``_contrib_CTCLoss``, ``_contrib_ctc_loss``), MXNet 1.9.1.

``data``: ``(T, N, alphabet)`` unnormalized activations (softmax is applied inside);
``label``: ``(N, L)`` padded label sequences. With ``blank_label='first'`` the blank is index 0
and labels are padded with 0; with ``'last'`` the blank is ``alphabet - 1`` and padding is -1.
Optional ``data_lengths`` / ``label_lengths`` inputs (``use_data_lengths``,
``use_label_lengths``) give per-sequence lengths; otherwise the data length is ``T`` and the
label length runs to the first padding value. Output: the negative log-likelihood per sequence.

The forward (alpha) recursion runs in log space, vectorized over batch and label positions,
with a loop over time steps (inherently sequential).
"""
from __future__ import annotations

import numpy as np

from .attrs import Bool, Enum, Param
from .registry import OpDef, register
from ._nnutil import merge_shape


def _ctc_inputs(attrs):
    names = ["data", "label"]
    if attrs.use_data_lengths:
        names.append("data_lengths")
    if attrs.use_label_lengths:
        names.append("label_lengths")
    return tuple(names)


def _ctc_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None]
    T, N, _ = d
    k = 2
    if attrs.use_data_lengths:
        ins[k] = merge_shape(ins[k], (N,), "CTCLoss data_lengths")
        k += 1
    if attrs.use_label_lengths:
        ins[k] = merge_shape(ins[k], (N,), "CTCLoss label_lengths")
    return ins, [(N,)]


def _logsumexp3(a, b, c):
    m = np.maximum(np.maximum(a, b), c)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(a - safe) + np.exp(b - safe) + np.exp(c - safe))


def _ctc_loss(attrs, data, label, *rest):
    """Connectionist temporal classification loss per sequence (negative log-likelihood)."""
    rest = list(rest)
    T, N, A = data.shape
    first = attrs.blank_label == "first"
    blank = 0 if first else A - 1
    pad = 0 if first else -1
    lab = label.astype(np.int64).reshape(N, -1)
    Lmax = lab.shape[1]
    dl = np.clip(rest.pop(0).astype(np.int64), 0, T) if attrs.use_data_lengths else np.full(N, T, np.int64)
    if attrs.use_label_lengths:
        ll = np.clip(rest.pop(0).astype(np.int64), 0, Lmax)
    else:
        is_pad = lab == pad
        ll = np.where(is_pad.any(axis=1), is_pad.argmax(axis=1), Lmax)
    x = data.astype(np.float64)
    logp = x - x.max(axis=2, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=2, keepdims=True))
    S = 2 * Lmax + 1
    ext = np.full((N, S), blank, dtype=np.int64)
    ext[:, 1::2] = np.where(np.arange(Lmax)[None, :] < ll[:, None], lab, blank)
    ext = np.clip(ext, 0, A - 1)
    skip = np.zeros((N, S), dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    rows = np.arange(N)[:, None]
    neg = -np.inf
    alpha = np.full((N, S), neg)
    alpha[:, 0] = logp[0, np.arange(N), blank]
    if S > 1:
        alpha[:, 1] = np.where(ll > 0, logp[0, np.arange(N), ext[:, 1]], neg)
    for t in range(1, T):
        a1 = alpha
        a2 = np.concatenate([np.full((N, 1), neg), alpha[:, :-1]], axis=1)
        a3 = np.where(skip, np.concatenate([np.full((N, 2), neg), alpha[:, :-2]], axis=1), neg)
        new = _logsumexp3(a1, a2, a3) + logp[t][rows, ext]
        alpha = np.where((t < dl)[:, None], new, alpha)
    end = 2 * ll
    last = alpha[np.arange(N), end]
    prev = np.where(ll > 0, alpha[np.arange(N), np.maximum(end - 1, 0)], neg)
    with np.errstate(divide="ignore"):
        loss = -np.logaddexp(last, prev)
    loss = np.where(dl > 0, loss, np.where(ll == 0, 0.0, np.inf))
    return loss.astype(data.dtype)


register(OpDef(
    "CTCLoss", _ctc_loss,
    params=(Param("use_data_lengths", Bool, False), Param("use_label_lengths", Bool, False),
            Param("blank_label", Enum("first", "last"), "first")),
    inputs=_ctc_inputs, infer_shape=_ctc_shape,
    aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"),
))
