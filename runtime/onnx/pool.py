"""Pooling: max/avg/sum/lp, global, MXNet's valid/full/same conventions and count_include_pad.

MXNet's ``full`` convention (``1 + ceil((n + 2p - k) / s)`` windows) is written as explicit extra
padding at the end for max pooling (padding never wins a max) and as ``ceil_mode`` for average
pooling that counts padding (onnxruntime then clips the last windows to the padded extent, as
MXNet does); sum pooling is an average over windows that count every padded element, times the
window size.
"""
from __future__ import annotations

import numpy as np

from .conv import channels_first, channels_last
from .registry import converter


@converter("Pooling")
def pooling(n):
    a = n.attrs
    x, moved = channels_first(n, n.inputs[0], a.layout)
    nd = n.ndim
    nsp = nd - 2
    t = a.pool_type
    if a.global_pool:
        if t == "max":
            y = n.op("GlobalMaxPool", x)
        elif t == "avg":
            y = n.op("GlobalAveragePool", x)
        elif t == "sum":
            y = n.reduce("ReduceSum", x, list(range(2, nd)), True)
        else:
            y = n.op("GlobalLpPool", x, p=int(a.p_value or 2))
        return [channels_last(n, y, nd) if moved else y]
    kernel = list(a.kernel)
    stride = list(a.stride) if len(a.stride) else [1] * nsp
    pad = list(a.pad) if len(a.pad) else [0] * nsp
    shape = n.in_shape(0)
    dyn = n.in_dyn(0)
    if moved:
        shape = (shape[0], shape[-1]) + tuple(shape[1:-1])
        dyn = (dyn[0], dyn[-1]) + tuple(dyn[1:-1])
    out = n.out_shape(0)
    out_sp = out[1:-1] if moved else out[2:]
    conv = a.pooling_convention
    ends = list(pad)
    ceil = 0
    if conv != "valid":
        for i in range(nsp):
            need = (out_sp[i] - 1) * stride[i] + kernel[i] - (shape[2 + i] + pad[i])
            if dyn[2 + i] or need < 0:
                if conv == "same":
                    n.fail("the 'same' convention with a dynamic or oversized axis")
                ceil = 1
                break
            ends[i] = need
    if ceil:
        ends = list(pad)
    pads = pad + ends
    include = a.count_include_pad is None or bool(a.count_include_pad)
    common = {"kernel_shape": kernel, "strides": stride, "pads": pads}
    if t == "max":
        y = n.op("MaxPool", x, ceil_mode=ceil, **common)
    elif t == "avg":
        if conv == "full" and include and not ceil:
            # count padding only up to [-p, n + p), as MXNet: ceil_mode with the symmetric pads
            y = n.op("AveragePool", x, ceil_mode=1, count_include_pad=1,
                     kernel_shape=kernel, strides=stride, pads=pad + pad)
        else:
            y = n.op("AveragePool", x, ceil_mode=ceil, count_include_pad=int(include), **common)
    elif t == "sum":
        if ceil:
            n.fail("sum pooling with the 'full' convention on a dynamic axis")
        avg = n.op("AveragePool", x, count_include_pad=1, **common)
        y = n.op("Mul", avg, n.scalar(float(np.prod(kernel))))
    else:
        y = n.op("LpPool", x, p=int(a.p_value or 2), **common)
    return [channels_last(n, y, nd) if moved else y]
