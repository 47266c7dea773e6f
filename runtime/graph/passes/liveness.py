"""The program's schedule and each entry's liveness (pass ``liveness``, the plan memory stage).

Nodes whose value depends on a data input or changes from call to call (random draws) are the
program's *steps*, run on every call in graph order; the rest is static, computed once per
``bind_params`` by the prologue. An entry's last use is the step that reads it last (the graph's
outputs: past the last step), recorded in its metadata (``Meta.last_use``): the memory planner
(``emit/planner.py``) reuses a buffer once the entries it holds are dead. Not optional.

In a training program, a step no other step reads (a weight gradient: its outputs are only the
program's outputs) runs right after the last step it reads from, not where graph order puts it:
graph order (a DFS from each output in turn) ran every weight gradient of a backward after the
whole data-gradient chain, so each convolution's output gradient stayed alive to the end
(resnet18's backward: 20 of them, 64 MiB of the plan at batch 8). Moving a reader earlier only
ends its inputs' lives sooner; random draws keep their order (their stream is MXNet's).
"""
from __future__ import annotations

from ..ir import Entry, Graph, Node
from . import Pass, PassContext


def plan_liveness(graph: Graph, ctx: PassContext) -> Graph:
    meta = ctx.infer(graph)
    for m in meta.values():
        m.last_use = None
    dyn = ctx.dynamic(graph)
    steps = [n for n in graph.nodes if n.op is not None and id(n) in dyn]
    if ctx.training:
        steps = _sinks_early(graph, steps)
    for t, n in enumerate(steps):
        for e in n.inputs:
            meta[e].last_use = t
    for e in graph.outputs:
        meta[e].last_use = len(steps)
    ctx.steps, ctx.dynamic_ids = steps, dyn
    return graph


def _sinks_early(graph: Graph, steps: list[Node]) -> list[Node]:
    """``steps`` with each sink (a pure step whose outputs no step reads) right after the latest
    step it reads from (before every other step when it reads none), sinks of one anchor in their
    order."""
    users = {e for n in steps for e in n.inputs}
    pos = {id(n): i for i, n in enumerate(steps)}
    after: dict[int, list[Node]] = {}
    rest: list[Node] = []
    for n in steps:
        if n.op.pure(True) and not any(Entry(n, i) in users for i in range(n.num_outputs)):
            anchor = max((pos[id(e.node)] for e in n.inputs if id(e.node) in pos), default=-1)
            after.setdefault(anchor, []).append(n)
        else:
            rest.append(n)
    if not after:
        return steps
    out = list(after.get(-1, ()))
    for n in rest:
        out.append(n)
        out.extend(after.get(pos[id(n)], ()))
    return out


PASS = Pass("liveness", plan_liveness, optional=False)
