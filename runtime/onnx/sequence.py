"""Sequence operators: SequenceMask, SequenceLast, SequenceReverse. Data is (T, B, ...) for
``axis=0``, (B, T, ...) for ``axis=1``; lengths (B,) are truncated to integers and clipped to
[0, T], as MXNet casts them."""
from __future__ import annotations

import numpy as np

from .registry import converter


def _lengths(n, T: str) -> str:
    lens = n.inputs[1]
    if n.in_dtype(1) != np.int64:
        lens = n.cast(lens, np.int64)
    return n.op("Clip", lens, n.const(np.asarray(0, np.int64)), T)


def _steps(n) -> str:
    return n.squeeze(n.dim(n.inputs[0], int(n.attrs.axis)), [0])


@converter("SequenceMask")
def sequence_mask(n):
    a = n.attrs
    x = n.inputs[0]
    if not a.use_sequence_length:
        return [n.op("Identity", x)]
    ax = int(a.axis) % n.ndim
    if ax not in (0, 1):
        n.fail(f"axis {a.axis}")
    nd = n.ndim
    steps = n.squeeze(n.dim(x, ax), [0])
    t = n.op("Range", n.const(np.asarray(0, np.int64)), steps, n.const(np.asarray(1, np.int64)))
    lens = n.cast(n.inputs[1], np.int64) if n.in_dtype(1) != np.int64 else n.inputs[1]
    if ax == 0:      # (T, N): t down the rows, lengths across
        keep = n.op("Less", n.unsqueeze(t, [1]), n.unsqueeze(lens, [0]))
    else:            # (N, T)
        keep = n.op("Less", n.unsqueeze(t, [0]), n.unsqueeze(lens, [1]))
    if nd > 2:
        keep = n.unsqueeze(keep, list(range(2, nd)))
    return [n.op("Where", keep, x, n.scalar(float(a.value)))]


@converter("SequenceLast")
def sequence_last(n):
    a = n.attrs
    x = n.inputs[0]
    ax = int(a.axis)
    T = _steps(n)
    if not a.use_sequence_length:
        return [n.op("Gather", x, n.op("Sub", T, n.const(np.asarray(1, np.int64))), axis=ax)]
    last = n.op("Max", n.op("Sub", _lengths(n, T), n.const(np.asarray(1, np.int64))),
                n.const(np.asarray(0, np.int64)))
    bt = x if ax == 1 else n.op("Transpose", x, perm=[1, 0] + list(range(2, n.ndim)))   # (B, T, ...)
    return [n.op("GatherND", bt, n.unsqueeze(last, [1]), batch_dims=1)]


@converter("SequenceReverse")
def sequence_reverse(n):
    a = n.attrs
    x = n.inputs[0]
    ax = int(a.axis)
    T = _steps(n)
    if a.use_sequence_length:
        lens = _lengths(n, T)
    else:
        lens = n.op("Expand", n.unsqueeze(T, [0]), n.dim(x, 1 - ax))
    return [n.op("ReverseSequence", x, lens, batch_axis=1 - ax, time_axis=ax)]
