"""Each lowered convolution's algorithm (pass ``conv_algo``, right after the lowering), from the
registry of ``kernels/conv/`` (:func:`~..kernels.conv.choose`): the eligible algorithm
``ctx.options["winograd"]`` forces (False = never Winograd, True or ``"f2"`` = F(2x2,3x3), ``"f4"`` =
F(4x4,3x3)); else the fastest of the eligible tunable ones (gemm, wino, wino4 for a 3x3 stride-1
convolution), timed on the actual shape at compile time, at most ``tune.TUNE_BUDGET_SECONDS`` per
compile (cached per process and across processes in the tuning cache, ``graph/tune_cache.py``,
``HYBRIDIZE_CACHE_DIR``; ``HYBRIDIZE_AUTOTUNE=0`` skips the timing); else the fixed rule's
preference (``dw`` for depthwise, ``group`` for other grouped convolutions, ``wino4`` for big 3x3
layers, ``gemm`` otherwise). The choice is set on the ``_hy_conv`` node and on its weight
re-layout ``_hy_conv_weight``; the counts go with the lowering's (``stats["layout"]["conv_gemm"]``...).
Not optional: a lowered convolution cannot run without its algorithm.
"""
from __future__ import annotations

import numpy as np

from ..ir import Graph
from ..kernels import conv as KC
from ..kernels.conv import tune
from . import Pass, PassContext


def choose_conv_algorithms(graph: Graph, ctx: PassContext) -> Graph:
    pending = [n for n in graph.nodes if n.op is KC.CONV and not n.resolved.algo]
    if not pending:
        return graph
    meta = ctx.infer(graph)
    budget = [tune.TUNE_BUDGET_SECONDS]     # seconds of convolution timing this compile may spend
    counts = ctx.stats.setdefault("layout", {})
    for n in pending:
        a = n.resolved
        N, H, W, C = meta[n.inputs[0]].shape
        spec = KC.ConvSpec(N, H, W, C, int(a.num_filter), tuple(a.kernel), tuple(a.stride), tuple(a.pad),
                           tuple(a.dilate), int(a.groups), np.dtype(np.float32))
        algo = KC.choose(spec, ctx.options.get("winograd"), budget)
        graph.set_attrs(n, {**n.attrs, "algo": algo})
        w = KC.ConvOperands.of(n).weight.node
        graph.set_attrs(w, {**w.attrs, "algo": algo})
        counts["conv_" + algo] = counts.get("conv_" + algo, 0) + 1
    return graph


PASS = Pass("conv_algo", choose_conv_algorithms, optional=False)
