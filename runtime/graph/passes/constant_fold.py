"""Constant folding: subgraphs that depend on literal constants only (no data input, no
parameter) are evaluated at compile time and become constants.

Parameter-dependent subgraphs are *not* folded here, since parameters can be re-bound: the
compiled program evaluates them in its prologue at every ``bind_params`` (BatchNorm folding and
weight re-layouts end up there).
"""
from __future__ import annotations

import numpy as np

from ..ir import Entry, Graph
from . import Pass, PassContext

_MAX_BYTES = 64 << 20


def fold_constants(graph: Graph, ctx: PassContext) -> Graph:
    const: set[int] = set()
    values: dict[Entry, np.ndarray] = {}
    mapping: dict[Entry, Entry] = {}
    folded = 0
    for n in graph.nodes:
        if n.op is None:
            if ctx.is_constant(n):
                const.add(id(n))
                values[n.entry()] = ctx.constants[n.name]
            continue
        if not n.op.pure(ctx.training) or n.op.mode_dependent or not all(id(e.node) in const for e in n.inputs):
            continue
        try:
            out = n.op.compute(n.resolved, *[values[e] for e in n.inputs])
        except Exception:   # leave it to run time (it will raise there, with context)
            continue
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if sum(np.asarray(o).nbytes for o in outs) > _MAX_BYTES:
            continue
        const.add(id(n))
        for i, o in enumerate(outs):
            o = np.asarray(o)
            values[Entry(n, i)] = o
            c = ctx.add_constant(o, n.name if i == 0 else f"{n.name}_{i}")
            mapping[Entry(n, i)] = c.entry()
        folded += 1
    ctx.stats["constant_fold"] = {"folded": folded}
    return graph.substitute(mapping)


PASS = Pass("constant_fold", fold_constants)
