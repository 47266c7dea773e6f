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


def _ctc_lattice(attrs, data, label, rest):
    """The pieces both passes share: per-step log-softmax ``logp`` (float64), the blank-extended label
    ``ext`` (N, S), the allowed skips, the data and label lengths."""
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
    return logp, ext, skip, dl, ll, blank


def _ctc_alphas(logp, ext, skip, dl, ll, blank):
    """Forward (alpha) variables in log space for every step (T, N, S) and the log-likelihood (N,):
    an alpha stays frozen after its sequence's data length."""
    T, N, _ = logp.shape
    S = ext.shape[1]
    rows = np.arange(N)[:, None]
    neg = -np.inf
    alphas = np.full((T, N, S), neg)
    alpha = np.full((N, S), neg)
    alpha[:, 0] = logp[0, np.arange(N), blank]
    if S > 1:
        alpha[:, 1] = np.where(ll > 0, logp[0, np.arange(N), ext[:, 1]], neg)
    alphas[0] = alpha
    for t in range(1, T):
        a1 = alpha
        a2 = np.concatenate([np.full((N, 1), neg), alpha[:, :-1]], axis=1)
        a3 = np.where(skip, np.concatenate([np.full((N, 2), neg), alpha[:, :-2]], axis=1), neg)
        new = _logsumexp3(a1, a2, a3) + logp[t][rows, ext]
        alpha = np.where((t < dl)[:, None], new, alpha)
        alphas[t] = alpha
    end = 2 * ll
    last = alpha[np.arange(N), end]
    prev = np.where(ll > 0, alpha[np.arange(N), np.maximum(end - 1, 0)], neg)
    with np.errstate(divide="ignore"):
        loglik = np.logaddexp(last, prev)
    return alphas, loglik


def _ctc_loss(attrs, data, label, *rest):
    """Connectionist temporal classification loss per sequence (negative log-likelihood)."""
    logp, ext, skip, dl, ll, blank = _ctc_lattice(attrs, data, label, rest)
    _, loglik = _ctc_alphas(logp, ext, skip, dl, ll, blank)
    loss = np.where(dl > 0, -loglik, np.where(ll == 0, 0.0, np.inf))
    return loss.astype(data.dtype)


def _backward_ctc_loss(attrs, g, data, label, *rest):
    """CTCLoss's data gradient, as MXNet's (warp-ctc's CPU kernel, then ``broadcast(ograd) * grad``):
    ``softmax(data) - posterior`` per step, where the posterior of symbol k at step t is the summed
    alpha * beta of the lattice states labelled k over the likelihood; zero past a sequence's data
    length and for sequences with no valid alignment. The backward (beta) variables exclude the
    emission at their own step, so alpha * beta counts each path once."""
    logp, ext, skip, dl, ll, blank = _ctc_lattice(attrs, data, label, rest)
    alphas, loglik = _ctc_alphas(logp, ext, skip, dl, ll, blank)
    T, N, A = logp.shape
    S = ext.shape[1]
    rows = np.arange(N)[:, None]
    neg = -np.inf
    end = 2 * ll
    init = np.full((N, S), neg)
    init[np.arange(N), end] = 0.0
    init[np.arange(N), np.maximum(end - 1, 0)] = np.where(ll > 0, 0.0, init[np.arange(N), np.maximum(end - 1, 0)])
    beta = init.copy()
    posterior = np.zeros((T, N, A))
    onehot = np.zeros((N, S, A))
    onehot[rows, np.arange(S)[None, :], ext] = 1.0
    skip_next = np.zeros((N, S), dtype=bool)
    skip_next[:, :-2] = skip[:, 2:]  # s -> s + 2 allowed
    ok = np.isfinite(loglik) & (dl > 0)
    safe_ll = np.where(ok, loglik, 0.0)
    for t in range(T - 1, -1, -1):
        if t < T - 1:
            e = beta + logp[t + 1][rows, ext]  # from state s' at t + 1, its emission included
            b1 = e
            b2 = np.concatenate([e[:, 1:], np.full((N, 1), neg)], axis=1)
            b3 = np.where(skip_next, np.concatenate([e[:, 2:], np.full((N, 2), neg)], axis=1), neg)
            rec = _logsumexp3(b1, b2, b3)
            beta = np.where((t == dl - 1)[:, None], init, np.where((t < dl - 1)[:, None], rec, beta))
        else:
            beta = np.where((t == dl - 1)[:, None], init, beta)
        with np.errstate(invalid="ignore"):
            gam = np.exp(alphas[t] + beta - safe_ll[:, None])
        gam = np.where(np.isfinite(gam), gam, 0.0)
        posterior[t] = np.einsum("ns,nsa->na", gam, onehot)
    grad = np.exp(logp) - posterior
    valid = (np.arange(T)[:, None] < dl[None, :]) & ok[None, :]
    grad = np.where(valid[:, :, None], grad, 0.0)
    return (grad * g.astype(np.float64).reshape(1, N, 1)).astype(data.dtype)


register(OpDef(
    "CTCLoss", _ctc_loss,
    params=(Param("use_data_lengths", Bool, False), Param("use_label_lengths", Bool, False),
            Param("blank_label", Enum("first", "last"), "first")),
    inputs=_ctc_inputs, infer_shape=_ctc_shape,
    aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"),
))


# -- gradient: MXNet's FGradient is ElemwiseGradUseOut{"_backward_ctc_loss"}, data only ------------
from ._grad import backward_op, internal  # noqa: E402
from .registry import defgrad  # noqa: E402

_CTC_PARAMS = (Param("use_data_lengths", Bool, False), Param("use_label_lengths", Bool, False),
               Param("blank_label", Enum("first", "last"), "first"))
backward_op("_backward_ctc_loss", _backward_ctc_loss,
            lambda attrs: ("ograd",) + _ctc_inputs(attrs), like=1, params=_CTC_PARAMS)


@defgrad("CTCLoss")
def _ctc_loss_grad(F, attrs, inputs, outputs, out_grads):
    kw = {p.name: getattr(attrs, p.name) for p in _CTC_PARAMS}
    return [internal(F, "_backward_ctc_loss")(out_grads[0], *inputs, **kw)] + [None] * (len(inputs) - 1)
