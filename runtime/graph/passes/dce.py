"""Dead-code elimination: nodes no output depends on are dropped (order recomputed)."""
from __future__ import annotations

from ..ir import Graph
from . import Pass, PassContext


def eliminate_dead_code(graph: Graph, ctx: PassContext) -> Graph:
    before = len(graph.nodes)
    g = Graph(graph.outputs)
    ctx.stats["dce"] = {"removed": before - len(g.nodes)}
    return g


PASS = Pass("dce", 90, eliminate_dead_code)
