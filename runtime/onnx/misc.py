"""The contrib and helper operators of ``ops/tensor_misc.py``: div_sqrt_dim and arange_like
(gluon-nlp's BERT), smooth_l1, moments, the AMP casts, gradient and attribute pass-throughs,
quadratic."""
from __future__ import annotations

import math

import numpy as np

from ..ops._util import reduce_axes
from .registry import converter


@converter("_contrib_div_sqrt_dim")
def div_sqrt_dim(n):
    return [n.op("Div", n.inputs[0], n.scalar(math.sqrt(n.in_shape(0)[-1])))]


@converter("_contrib_arange_like")
def arange_like(n):
    a = n.attrs
    x = n.inputs[0]
    count = n.op("Size", x) if a.axis is None else n.squeeze(n.dim(x, int(a.axis) % n.ndim), [0])
    i = n.cast(n.op("Range", n.const(np.asarray(0, np.int64)), count, n.const(np.asarray(1, np.int64))),
               np.float64)
    if int(a.repeat) > 1:
        i = n.op("Floor", n.op("Div", i, n.const(np.asarray(float(a.repeat)))))
    v = n.op("Add", n.op("Mul", i, n.const(np.asarray(float(a.step)))), n.const(np.asarray(float(a.start))))
    v = n.cast(v, n.out_dtype(0))
    return [n.op("Reshape", v, n.op("Shape", x)) if a.axis is None else v]


@converter("smooth_l1")
def smooth_l1(n):
    x = n.inputs[0]
    s2 = float(n.attrs.scalar) ** 2
    ax = n.op("Abs", x)
    quad = n.op("Mul", n.op("Mul", x, x), n.scalar(0.5 * s2))
    lin = n.op("Sub", ax, n.scalar(0.5 / s2))
    return [n.op("Where", n.op("Less", ax, n.scalar(1.0 / s2)), quad, lin)]


@converter("moments")
def moments(n):
    a = n.attrs
    nd = n.ndim
    axes = list(reduce_axes(a.axes, nd))
    x = n.inputs[0]
    mean = n.reduce("ReduceMean", x, axes, True)
    xc = n.op("Sub", x, mean)
    var = n.reduce("ReduceMean", n.op("Mul", xc, xc), axes, True)
    outs = []
    for k, v in enumerate((mean, var)):
        outs.append(v if a.keepdims else n.op("Reshape", v, n.target_shape(k)))
    return outs


@converter("amp_cast")
def amp_cast(n):
    if n.in_dtype(0).kind != "f" or n.out_dtype(0) == n.in_dtype(0):
        return [n.op("Identity", n.inputs[0])]
    return [n.cast(n.inputs[0], n.out_dtype(0))]


@converter("amp_multicast")
def amp_multicast(n):
    return [n.op("Identity", x) if n.in_dtype(i) == n.out_dtype(i) else n.cast(x, n.out_dtype(i))
            for i, x in enumerate(n.inputs)]


@converter("_contrib_gradientmultiplier", "_identity_with_attr_like_rhs")
def identity(n):
    return [n.op("Identity", n.inputs[0])]


@converter("_contrib_quadratic")
def quadratic(n):
    a = n.attrs
    x = n.inputs[0]
    y = n.op("Add", n.op("Mul", n.op("Mul", x, x), n.scalar(float(a.a))), n.op("Mul", x, n.scalar(float(a.b))))
    return [n.op("Add", y, n.scalar(float(a.c)))]
