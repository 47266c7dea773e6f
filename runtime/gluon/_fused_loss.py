"""``SoftmaxCrossEntropyLoss`` run imperatively as one tape node: the four operators MXNet records
(``log_softmax``, ``pick``, ``* -1``, ``mean``) computed by their registry kernels directly, and one
gradient rule calling their backward kernels in reverse.

Why: a training step whose net is hybridized spends most of its Python time on the loss's eight
imperative calls (four forward, four gradient rules), each through the front end's argument binding,
the tape and NDArray wrapping: for the seed MLP more than its compiled forward and backward
together. The kernels, their order and their inputs are those of the op-by-op path, so the loss and
its gradients are the same numbers bit for bit. Under ``create_graph`` the rule replays the four
operators and their gradient rules through ``F`` (recorded, as op by op), so higher-order
gradients see the same graph.

``HYBRIDIZE_FUSED_LOSS=0`` turns it off (the op-by-op path).
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import autograd
from ..ndarray import NDArray, _own, _propagated, invoke
from ..ops.registry import Attrs, find_op

__all__ = ["softmax_cross_entropy"]

_LOG_SOFTMAX, _PICK, _MUL_SCALAR, _MEAN = (find_op(n) for n in ("log_softmax", "pick", "_mul_scalar", "mean"))
_B_SOFTMAX, _B_PICK, _B_REDUCE, _ZEROS_LIKE = (find_op(n) for n in ("_backward_softmax", "_backward_pick",
                                                                    "_backward_reduce", "zeros_like"))
_NEG = Attrs({"scalar": -1.0, "is_int": True})      # ``-x``: NDArray.__neg__ is ``x * -1.0``
_NO_ATTRS = Attrs({})


class _Plan:
    """The resolved attributes of the four operators and of their backward kernels, per (axis, batch axis)."""

    def __init__(self, axis: int, batch_axis: int):
        self.ls = _LOG_SOFTMAX.resolve({"axis": axis})
        self.pick = _PICK.resolve({"axis": axis, "keepdims": True})
        self.mean = _MEAN.resolve({"axis": batch_axis, "exclude": True})
        self.b_ls = _B_SOFTMAX.resolve({"axis": self.ls.axis, "temperature": self.ls.temperature,
                                        "use_length": self.ls.use_length, "kind": "log"})
        self.b_pick = _B_PICK.resolve({"axis": self.pick.axis, "keepdims": self.pick.keepdims,
                                       "mode": self.pick.mode})
        self.b_mean = _B_REDUCE.resolve({"axis": self.mean.axis, "keepdims": self.mean.keepdims,
                                         "exclude": self.mean.exclude, "kind": "mean"})
        # (batch, classes) logits, classes last, default temperature and index mode: :func:`_rows`
        self.rows = axis in (-1, 1) and batch_axis == 0 and self.ls.temperature is None \
            and self.ls.dtype is None and not self.ls.use_length and self.pick.mode == "clip"


_PLANS: dict[tuple, _Plan] = {}


def _enabled() -> bool:
    return os.environ.get("HYBRIDIZE_FUSED_LOSS", "1") != "0"


def softmax_cross_entropy(pred: Any, label: Any, axis: int, batch_axis: int) -> NDArray | None:
    """``mean(-pick(log_softmax(pred, axis), label, axis, keepdims=True), batch_axis, exclude=True)`` of
    two NDArrays, recorded as one node; None where the op-by-op path is needed (other types, a
    zero-size input, turned off)."""
    if type(pred) is not NDArray or type(label) is not NDArray or not _enabled() \
            or pred._data.dtype.kind != "f" or pred._data.size == 0 or label._data.size == 0:
        return None
    key = (axis, batch_axis)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = _Plan(axis, batch_axis)
    P, L = pred._data, label._data
    if P.ndim == 2 and plan.rows and L.size == P.shape[0] and L.dtype.kind in "fi":
        return _rows(plan, pred, label, P, L)
    ls = _own(_LOG_SOFTMAX.compute(plan.ls, P), [P])
    picked = _own(_PICK.compute(plan.pick, ls, L), [ls, L])
    neg = _MUL_SCALAR.compute(_NEG, picked)
    loss = _own(_MEAN.compute(plan.mean, neg), [neg])
    out = NDArray(loss, _propagated(pred._ctx))
    if autograd.is_recording():
        def rule(F: Any, attrs: Any, inputs: list, outputs: list, out_grads: list) -> list:
            return _gradients(F, plan, inputs, out_grads, (P, L, ls, neg, loss))
        autograd._record(None, None, [pred, label], [out], rule=rule, name="softmax_cross_entropy",
                         symbol=([pred, label], lambda ins, names: _symbol(plan, ins, names), 4))
    return out


def _gradients(F: Any, plan: _Plan, inputs: list, out_grads: list, saved: tuple) -> list:
    """The four backward kernels in reverse on the saved values ``(pred, label, log_softmax,
    negated pick, loss)``; under ``create_graph`` the operators replayed through ``F``."""
    if autograd.is_recording():                 # create_graph: op by op, recorded
        return _replay(F, plan, inputs, out_grads)
    P, L, ls, neg, loss = saved
    head = out_grads[0]._data
    g = _own(_B_REDUCE.compute(plan.b_mean, head, neg, loss), [head, neg, loss])
    g = _MUL_SCALAR.compute(_NEG, g)
    g = _own(_B_PICK.compute(plan.b_pick, g, ls, L), [g, ls, L])
    d_label = _own(_ZEROS_LIKE.compute(_NO_ATTRS, L), [L])
    d_pred = _own(_B_SOFTMAX.compute(plan.b_ls, g, P, ls), [g, P, ls])
    return [NDArray(d_pred), NDArray(d_label)]


_max, _sum = np.maximum.reduce, np.add.reduce


def _row_index(L: np.ndarray, classes: int) -> np.ndarray:
    """pick's index (``mode='clip'``) of one class per row: the label as int64 (truncated, as
    ``_fix_index``'s cast) clipped to ``[0, classes - 1]``, a fresh array."""
    idx = L.reshape(-1).astype(np.int64)
    np.maximum(idx, 0, out=idx)
    np.minimum(idx, classes - 1, out=idx)
    return idx


def _rows(plan: _Plan, pred: NDArray, label: NDArray, P: np.ndarray, L: np.ndarray) -> NDArray:
    """The loss of ``(batch, classes)`` logits, classes last (a classifier's output): the numpy
    calls the four kernels make for this shape, without their generic shape and mode handling (a
    third of a small net's training step). log_softmax: ``z = x - max``, ``z -= log(sum(exp(z)))``;
    pick: the element at the clipped label of each row; ``* -1``; mean over the size-1 axis left by
    ``keepdims``: the value itself (one-element sum, divided by 1). Backward in reverse: the head
    gradient (divided by 1), ``* -1``, put at the picked elements of zeros, then log_softmax's
    ``g - exp(y) * sum(g)``. Same numbers bit for bit as the kernels (tests compare)."""
    n, classes = P.shape
    rows = np.arange(n)
    ls = P.copy()
    ls -= _max(ls, axis=1, keepdims=True)      # ``ndarray.max``/``sum`` without their Python wrappers
    ls -= np.log(_sum(np.exp(ls), axis=1, keepdims=True))
    idx = _row_index(L, classes)
    neg = ls[rows, idx]
    neg *= P.dtype.type(-1)
    loss = neg / P.dtype.type(1)
    out = NDArray(loss, _propagated(pred._ctx))
    if autograd.is_recording():
        def rule(F: Any, attrs: Any, inputs: list, outputs: list, out_grads: list) -> list:
            head = out_grads[0]._data
            if autograd.is_recording() or head.dtype != P.dtype or head.shape != loss.shape:
                return _gradients(F, plan, inputs, out_grads, (P, L, ls, neg.reshape(n, 1), loss))
            g = np.zeros_like(ls)
            picked = head / P.dtype.type(1)
            picked *= P.dtype.type(-1)
            g[rows, idx] = picked
            d_pred = g - np.exp(ls) * _sum(g, axis=1, keepdims=True)
            return [NDArray(d_pred), NDArray(np.zeros_like(L))]
        autograd._record(None, None, [pred, label], [out], rule=rule, name="softmax_cross_entropy",
                         symbol=([pred, label], lambda ins, names: _symbol(plan, ins, names), 4))
    return out


def _symbol(plan: _Plan, ins: list, names: list) -> Any:
    """What ``autograd.get_symbol`` shows: the four operators as the op-by-op path records them
    (attributes that differ from the defaults)."""
    from .. import symbol as sym
    out = None
    steps = [(_LOG_SOFTMAX, plan.ls, [ins[0]]), (_PICK, plan.pick, [None, ins[1]]), (_MUL_SCALAR, _NEG, [None]),
             (_MEAN, plan.mean, [None])]
    for (op, attrs, args), name in zip(steps, names):
        args = [out if a is None else a for a in args]
        given = {k: v for k, v in attrs.as_dict().items() if not k.startswith("__")
                 and (op.param(k) is None or op.param(k).default != v)}
        fn = sym._internal.__dict__.get(op.name) or getattr(sym, op.name)
        out = fn(*args, name=name, **given)
    return out


def _replay(F: Any, plan: _Plan, inputs: list, out_grads: list) -> list:
    """The four operators again from the node's inputs, then their gradient rules in reverse, all
    through ``F`` (recorded): what the tape does op by op."""
    pred, label = inputs
    ls = invoke(_LOG_SOFTMAX, [pred], plan.ls)
    picked = invoke(_PICK, [ls, label], plan.pick)
    neg = picked * -1.0
    loss = invoke(_MEAN, [neg], plan.mean)
    (g,) = _MEAN.gradient(F, plan.mean, [neg], [loss], out_grads)
    (g,) = _MUL_SCALAR.gradient(F, _NEG, [picked], [neg], [g])
    g, d_label = _PICK.gradient(F, plan.pick, [ls, label], [picked], [g])
    (d_pred,) = _LOG_SOFTMAX.gradient(F, plan.ls, [pred], [ls], [g])
    return [d_pred, d_label]
