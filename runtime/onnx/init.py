"""Operators without inputs that build a constant (``_zeros``, ``_ones``, ``_full``, ``_arange``,
``_eye``, ``_linspace``): the registry's own kernel computes the value, written as a constant."""
from __future__ import annotations

import numpy as np

from .registry import converter


@converter("_zeros", "_ones", "_full", "_arange", "_eye", "_linspace", "_zeros_without_dtype")
def constant(n):
    value = np.asarray(n.node.op.compute(n.attrs))
    if value.shape != n.out_shape(0):
        n.fail(f"its shape {value.shape} is not the inferred {n.out_shape(0)}")
    return [n.op("Identity", n.const(value.astype(n.out_dtype(0), copy=False)))]
