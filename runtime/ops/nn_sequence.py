"""Sequence operators: ``SequenceMask``, ``SequenceLast``, ``SequenceReverse`` (MXNet 1.9.1).

Data is ``(T, B, ...)`` for ``axis=0`` or ``(B, T, ...)`` for ``axis=1``; with
``use_sequence_length`` a second input ``sequence_length`` of shape ``(B,)`` gives each
sequence's valid length (values are truncated to integers, as MXNet casts them).
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._nnutil import merge_shape
from .attrs import Bool, Float, Int, Param
from .registry import OpDef, defgrad, register


def _seq_inputs(attrs):
    return ("data", "sequence_length") if attrs.use_sequence_length else ("data",)


def _batch_axis(attrs) -> int:
    return 1 if attrs.axis == 0 else 0


def _seq_shape(out_fn):
    def infer(attrs, in_shapes):
        ins = list(in_shapes)
        d = ins[0]
        if d is None or len(d) == 0:
            return ins, [None]
        if attrs.axis not in (0, 1):
            raise ShapeError(f"sequence axis must be 0 or 1, got {attrs.axis}")
        if attrs.use_sequence_length:
            ins[1] = merge_shape(ins[1], (d[_batch_axis(attrs)],), "sequence_length")
        return ins, [out_fn(attrs, tuple(d))]
    return infer


def _lengths(attrs, x, length):
    T = x.shape[attrs.axis]
    if length is None:
        return np.full(x.shape[_batch_axis(attrs)], T, dtype=np.int64)
    return np.clip(length.astype(np.int64), 0, T)


def _time_major(attrs, x):
    """A view of ``x`` as ``(T, B, ...)``."""
    return x if attrs.axis == 0 else np.swapaxes(x, 0, 1)


def _sequence_mask(attrs, x, length=None):
    """Sets positions at or beyond each sequence's length to ``value``."""
    if length is None:
        return x.copy()
    xt = _time_major(attrs, x)
    T, B = xt.shape[:2]
    keep = np.arange(T)[:, None] < _lengths(attrs, x, length)[None, :]
    keep = keep.reshape((T, B) + (1,) * (x.ndim - 2))
    out = np.where(keep, xt, x.dtype.type(attrs.value))
    return np.ascontiguousarray(out if attrs.axis == 0 else np.swapaxes(out, 0, 1))


def _sequence_last(attrs, x, length=None):
    """The last valid element of every sequence: shape ``data.shape`` without ``axis``."""
    xt = _time_major(attrs, x)
    B = xt.shape[1]
    idx = _lengths(attrs, x, length) - 1
    return xt[np.maximum(idx, 0), np.arange(B)]


def _sequence_reverse(attrs, x, length=None):
    """Reverses the first ``length`` elements of every sequence; the rest stay in place."""
    xt = _time_major(attrs, x)
    T, B = xt.shape[:2]
    L = _lengths(attrs, x, length)
    t = np.arange(T)[:, None]
    src = np.where(t < L[None, :], L[None, :] - 1 - t, t)
    out = xt[src, np.arange(B)[None, :]]
    return np.ascontiguousarray(out if attrs.axis == 0 else np.swapaxes(out, 0, 1))


_PARAMS = (Param("use_sequence_length", Bool, False), Param("axis", Int, 0))

register(OpDef("SequenceMask", _sequence_mask,
               params=(Param("use_sequence_length", Bool, False), Param("value", Float, 0.0), Param("axis", Int, 0)),
               inputs=_seq_inputs, infer_shape=_seq_shape(lambda attrs, d: d)))
register(OpDef("SequenceLast", _sequence_last, params=_PARAMS, inputs=_seq_inputs,
               infer_shape=_seq_shape(lambda attrs, d: tuple(n for i, n in enumerate(d) if i != attrs.axis))))
register(OpDef("SequenceReverse", _sequence_reverse, params=_PARAMS, inputs=_seq_inputs,
               infer_shape=_seq_shape(lambda attrs, d: d)))


# -- gradients (MXNet 1.9.1: legacy operators sequence_mask.cc, sequence_last.cc, sequence_reverse.cc; the
# lengths get no gradient) --------------------------------------------------------------------------------
def _backward_sequence_last(attrs, og, x, length=None):
    """SequenceLast's backward: each output gradient lands on the last valid step of its sequence."""
    g = np.zeros_like(x)
    gt = _time_major(attrs, g)  # a view: writes land in g
    idx = _lengths(attrs, x, length) - 1
    gt[np.maximum(idx, 0), np.arange(gt.shape[1])] = og
    return g


backward_op("_backward_SequenceLast", _backward_sequence_last, lambda a: ("ograd", *_seq_inputs(a)),
            params=_PARAMS)


def _seq_call(F, name, attrs, og, inputs, **extra):
    fn = getattr(F, name) if not name.startswith("_") else internal(F, name)
    return fn(og, *inputs[1:], use_sequence_length=attrs.use_sequence_length, axis=attrs.axis, **extra)


@defgrad("SequenceMask")
def _sequence_mask_grad(F, attrs, inputs, outputs, out_grads):
    return [_seq_call(F, "SequenceMask", attrs, out_grads[0], inputs, value=0.0)] + [None] * (len(inputs) - 1)


@defgrad("SequenceReverse")
def _sequence_reverse_grad(F, attrs, inputs, outputs, out_grads):
    return [_seq_call(F, "SequenceReverse", attrs, out_grads[0], inputs)] + [None] * (len(inputs) - 1)


@defgrad("SequenceLast")
def _sequence_last_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_SequenceLast")(out_grads[0], *inputs, use_sequence_length=attrs.use_sequence_length,
                                              axis=attrs.axis)
    return [g] + [None] * (len(inputs) - 1)
