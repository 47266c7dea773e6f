"""The program's schedule and each entry's liveness (pass ``liveness``, the plan memory stage).

Nodes whose value depends on a data input or changes from call to call (random draws) are the
program's *steps*, run on every call in graph order; the rest is static, computed once per
``bind_params`` by the prologue. An entry's last use is the step that reads it last (the graph's
outputs: past the last step), recorded in its metadata (``Meta.last_use``): the memory planner
(``emit/planner.py``) reuses a buffer once the entries it holds are dead. Not optional.
"""
from __future__ import annotations

from ..ir import Graph
from . import Pass, PassContext


def plan_liveness(graph: Graph, ctx: PassContext) -> Graph:
    meta = ctx.infer(graph)
    for m in meta.values():
        m.last_use = None
    dyn = ctx.dynamic(graph)
    steps = [n for n in graph.nodes if n.op is not None and id(n) in dyn]
    for t, n in enumerate(steps):
        for e in n.inputs:
            meta[e].last_use = t
    for e in graph.outputs:
        meta[e].last_use = len(steps)
    ctx.steps, ctx.dynamic_ids = steps, dyn
    return graph


PASS = Pass("liveness", plan_liveness, optional=False)
