"""Common-subexpression elimination: one node per (op, attributes, inputs), for pure ops only
(``OpDef.pure``: not ``random``, not mode dependent when training)."""
from __future__ import annotations

from ..ir import Entry, Graph
from . import Pass, PassContext


def eliminate_common_subexpressions(graph: Graph, ctx: PassContext) -> Graph:
    seen: dict[tuple, object] = {}
    mapping: dict[Entry, Entry] = {}
    merged = 0
    for n in graph.nodes:
        if n.op is None or not n.op.pure(ctx.training):
            continue
        if any(e in mapping for e in n.inputs):
            graph.set_inputs(n, [mapping.get(e, e) for e in n.inputs])
        key = (id(n.op), n.resolved, tuple((id(e.node), e.index) for e in n.inputs))
        other = seen.get(key)
        if other is None:
            seen[key] = n
            continue
        for i in range(n.num_outputs):
            mapping[Entry(n, i)] = Entry(other, i)
        merged += 1
    ctx.stats["cse"] = {"merged": merged}
    return graph.substitute(mapping)


PASS = Pass("cse", eliminate_common_subexpressions)
