"""Normalizations at inference: BatchNorm (moving statistics; fix_gamma as MXNet: gamma read as 1),
LayerNorm, InstanceNorm, GroupNorm (per-group gamma/beta, MXNet 1.x), L2Normalization, LRN."""
from __future__ import annotations

import numpy as np

from .registry import converter


def _along(n, v: str, axis: int, nd: int) -> str:
    """A per-channel vector shaped to broadcast along ``axis`` of an ``nd``-d tensor."""
    axes = [i for i in range(nd) if i != axis]
    return n.unsqueeze(v, axes) if axes else v


@converter("BatchNorm", "_contrib_BatchNormWithReLU", "_contrib_SyncBatchNorm")
def batch_norm(n):
    a = n.attrs
    x, gamma, beta, mean, var = n.inputs
    nd = n.ndim
    axis = int(a.get("axis", 1)) % nd
    if a.fix_gamma:
        gamma = n.const(np.ones(n.in_shape(1), dtype=n.in_dtype(1)))
    if nd < 2:
        n.fail("BatchNorm of a 1-d tensor")
    if axis != 1:
        perm = [0, axis] + [i for i in range(1, nd) if i != axis]
        inv = list(np.argsort(perm))
        xt = n.op("Transpose", x, perm=perm)
        y = n.op("Transpose", n.op("BatchNormalization", xt, gamma, beta, mean, var, epsilon=float(a.eps)),
                 perm=[int(i) for i in inv])
    else:
        y = n.op("BatchNormalization", x, gamma, beta, mean, var, epsilon=float(a.eps))
    if n.node.op.name == "_contrib_BatchNormWithReLU":
        y = n.op("Relu", y)
    if not a.output_mean_var:
        return [y]
    # inference statistics: the moving mean and MXNet's 1/sqrt(var + eps)
    inv_std = n.op("Reciprocal", n.op("Sqrt", n.op("Add", var, n.scalar(float(a.eps), n.in_dtype(4)))))
    return [y, n.op("Identity", mean), inv_std]




def _normalize(n, x: str, axes: list[int], eps: float) -> tuple[str, str, str]:
    mean = n.reduce("ReduceMean", x, axes, True)
    xc = n.op("Sub", x, mean)
    var = n.reduce("ReduceMean", n.op("Mul", xc, xc), axes, True)
    std = n.op("Sqrt", n.op("Add", var, n.scalar(eps)))
    return n.op("Div", xc, std), mean, std


@converter("LayerNorm")
def layer_norm(n):
    a = n.attrs
    x, gamma, beta = n.inputs
    nd = n.ndim
    axis = int(a.axis) % nd
    if axis == nd - 1 and n.opset >= 17 and not a.output_mean_var:
        return [n.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=float(a.eps))]
    y, mean, std = _normalize(n, x, [axis], float(a.eps))
    y = n.op("Add", n.op("Mul", y, _along(n, gamma, axis, nd)), _along(n, beta, axis, nd))
    return [y, mean, std] if a.output_mean_var else [y]


@converter("InstanceNorm")
def instance_norm(n):
    x, gamma, beta = n.inputs
    return [n.op("InstanceNormalization", x, gamma, beta, epsilon=float(n.attrs.eps))]


@converter("GroupNorm")
def group_norm(n):
    a = n.attrs
    x, gamma, beta = n.inputs
    G = int(a.num_groups)
    xg = n.op("Reshape", x, n.ints([0, G, -1]))
    y, mean, std = _normalize(n, xg, [2], float(a.eps))
    g = n.unsqueeze(n.unsqueeze(gamma, [0]), [2])
    bt = n.unsqueeze(n.unsqueeze(beta, [0]), [2])
    y = n.op("Add", n.op("Mul", y, g), bt)
    y = n.op("Reshape", y, n.op("Shape", x))
    if not a.output_mean_var:
        return [y]
    return [y, n.squeeze(mean, [2]), n.squeeze(std, [2])]


@converter("L2Normalization")
def l2_normalization(n):
    a = n.attrs
    x = n.inputs[0]
    nd = n.ndim
    axes = list(range(1, nd)) if a.mode == "instance" else [1] if a.mode == "channel" else list(range(2, nd))
    ss = n.reduce("ReduceSumSquare", x, axes, True)
    return [n.op("Div", x, n.op("Sqrt", n.op("Add", ss, n.scalar(float(a.eps)))))]


@converter("LRN")
def lrn(n):
    a = n.attrs
    return [n.op("LRN", n.inputs[0], alpha=float(a.alpha), beta=float(a.beta), bias=float(a.knorm),
                 size=int(a.nsize))]
