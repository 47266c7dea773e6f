"""BatchNorm folding (inference): ``BatchNorm(Convolution(x, W, b))`` becomes
``Convolution(x, W', b')`` with ``W' = W * s`` and ``b' = (b - mean) * s + beta`` where
``s = gamma / sqrt(var + eps)`` (``gamma = 1`` when ``fix_gamma``); same for FullyConnected.

Applies when the BatchNorm normalizes the producer's output channels (``axis == 1``), the
producer's output has no other user, and the weights and BatchNorm statistics are static
(parameters or constants), and each output sums fewer than ``layout.LONG_REDUCTION`` products
(see there: such long sums stay bit-identical to the imperative run). ``W'`` and ``b'`` are computed by a ``_hy_bn_fold`` node that only
depends on parameters: the compiled program evaluates it at ``bind_params``, so re-binding
parameters re-folds.
"""
from __future__ import annotations

import numpy as np

from ..ir import Entry, Graph, Node
from ..kernels.nhwc import BN_FOLD
from . import Pass, PassContext, registry_op
from .layout import LONG_REDUCTION

BATCHNORM, CONVOLUTION, FULLY_CONNECTED = (registry_op(n) for n in ("BatchNorm", "Convolution", "FullyConnected"))


def fold_batchnorm(graph: Graph, ctx: PassContext) -> Graph:
    dyn = ctx.dynamic(graph)
    mapping: dict[Entry, Entry] = {}
    folded = 0
    for bn in graph.nodes:
        if bn.op is not BATCHNORM:
            continue
        a = bn.resolved
        if a.axis != 1 or a.output_mean_var and any(graph.uses(Entry(bn, i)) for i in (1, 2)):
            continue
        src = bn.inputs[0]
        prod = src.node
        if prod.op not in (CONVOLUTION, FULLY_CONNECTED) or src.index != 0:
            continue
        if graph.uses(src) != 1:
            continue
        pa = prod.resolved
        if prod.op is CONVOLUTION and (pa.layout or "NCHW") not in ("NCHW", "NCW", "NCDHW"):
            continue
        if prod.op is FULLY_CONNECTED and not pa.flatten:
            continue
        stats = bn.inputs[1:5]
        weights = prod.inputs[1:]
        if any(id(e.node) in dyn for e in list(stats) + list(weights)):
            continue
        wshape = ctx.param_shapes.get(weights[0].node.name) if weights[0].node.op is None else None
        if wshape and int(np.prod(wshape[1:])) >= LONG_REDUCTION:
            continue   # rescaled weights re-round every product: long sums stay as imperative computes them
        has_bias = not pa.no_bias
        fold = Node(BN_FOLD, ctx.fresh(bn.name + "_fold"),
                    {"eps": float(a.eps), "fix_gamma": bool(a.fix_gamma), "has_bias": has_bias},
                    [prod.inputs[1], *stats] + ([prod.inputs[2]] if has_bias else []))
        attrs = dict(prod.attrs)
        attrs["no_bias"] = False
        new = Node(prod.op, prod.name, attrs, [prod.inputs[0], Entry(fold, 0), Entry(fold, 1)], prod.extra)
        mapping[Entry(bn, 0)] = Entry(new, 0)
        folded += 1
    ctx.stats["bn_fold"] = {"folded": folded}
    return graph.substitute(mapping)


PASS = Pass("bn_fold", fold_batchnorm, inference_only=True)
