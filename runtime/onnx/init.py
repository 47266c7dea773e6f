"""Operators without inputs that build a constant (``_zeros``, ``_ones``, ``_full``, ``_arange``,
``_eye``, ``_linspace``): the registry's own kernel computes the value, written as a constant; a
fill whose shape has a dynamic dimension (0 in MXNet's shape, inferred from the data) becomes a
``ConstantOfShape`` of a shape taken from the graph's inputs."""
from __future__ import annotations

import numpy as np

from .registry import converter


_FILL = {"_zeros": 0.0, "_zeros_without_dtype": 0.0, "_ones": 1.0}


@converter("_zeros", "_ones", "_full", "_arange", "_eye", "_linspace", "_zeros_without_dtype")
def constant(n):
    name = n.node.op.name
    dt = n.out_dtype(0)
    if name in _FILL or name == "_full":
        fill = float(n.attrs.value) if name == "_full" else _FILL[name]
        if any(n.out_dyn(0)):     # e.g. a Gluon RNN's begin state sized by the data's batch
            value = n.b.tensor("value", np.full(1, fill, dt))
            return [n.op("ConstantOfShape", n.target_shape(0, infer_ok=False), value=value)]
        return [n.op("Identity", n.const(np.full(n.out_shape(0), fill, dt)))]
    value = np.asarray(n.node.op.compute(n.attrs))
    if value.shape != n.out_shape(0):
        n.fail(f"its shape {value.shape} is not the inferred {n.out_shape(0)}")
    return [n.op("Identity", n.const(value.astype(n.out_dtype(0), copy=False)))]
