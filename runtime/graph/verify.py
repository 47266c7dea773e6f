"""The graph's rules, checked between the pipeline's stages in debug runs (``HYBRIDIZE_VERIFY=1``),
as tinygrad checks a spec between its rewrites: a stage that breaks one is named at once instead
of showing up as wrong numbers stages later.

Every stage: nodes listed once each and after their inputs, every input and output names an
existing output of a node of the graph, variables take no inputs; the users the graph keeps
equal those its nodes' inputs say (an edit that bypassed the graph's edit methods breaks it);
the metadata of entries no edit invalidated equals a fresh inference. After ``lower``: every
convolution has its algorithm. After ``plan memory``: every step's inputs are live until it runs.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from ..base import InvalidGraphError
from .infer import _Dtypes, entry_shapes
from .ir import Entry, Graph

__all__ = ["verify"]


def _fail(stage: str, problem: str) -> None:
    raise InvalidGraphError(f"graph after stage {stage!r}: {problem}")


def verify(graph: Graph, ctx: Any, stage: str) -> None:
    """Raises :class:`~..base.InvalidGraphError` naming the first broken rule."""
    position: dict = {}
    for i, n in enumerate(graph.nodes):
        if n in position:
            _fail(stage, f"node {n.name!r} is listed twice")
        position[n] = i

    def check_entry(e: Entry, what: str) -> None:
        if e.node not in position:
            _fail(stage, f"{what} reads {e.node.name!r}, which is not in the graph")
        if not 0 <= e.index < e.node.num_outputs:
            _fail(stage, f"{what} reads output {e.index} of {e.node.name!r}, which has {e.node.num_outputs}")

    for n in graph.nodes:
        if n.op is None and n.inputs:
            _fail(stage, f"variable {n.name!r} has inputs")
        for e in n.inputs:
            check_entry(e, f"node {n.name!r}")
            if position[e.node] >= position[n]:
                _fail(stage, f"node {n.name!r} comes before its input {e.node.name!r}")
    for e in graph.outputs:
        check_entry(e, "a graph output")
    if graph._users is not None:
        kept = Counter((e, u, slot) for e, us in graph._users.items() for u, slot in us)
        actual = Counter((e, n, slot) for n in graph.nodes for slot, e in enumerate(n.inputs))
        if kept != actual:
            bad = next(iter((kept - actual) + (actual - kept)))
            _fail(stage, f"the users kept for {bad[0].node.name!r} disagree with the inputs of {bad[1].name!r}")
    if graph.meta and not graph.stale:
        shapes = entry_shapes(graph, ctx.known_shapes())
        dtypes = _Dtypes(ctx.known_dtypes()).run(graph)
        for e, m in graph.meta.items():
            if e.node in position and (m.shape != shapes.get(e) and e in shapes or m.dtype != dtypes[e][0]):
                _fail(stage, f"the metadata of {e.node.name!r} output {e.index} is stale: {m} against "
                             f"{shapes.get(e)}, {dtypes[e][0]} inferred")
    if stage == "lower":
        from .kernels.conv import CONV
        for n in graph.nodes:
            if n.op is CONV and not n.resolved.algo:
                _fail(stage, f"convolution {n.name!r} has no algorithm")
    if stage == "plan memory":
        for t, n in enumerate(ctx.steps):
            for e in n.inputs:
                last = graph.meta[e].last_use
                if last is None or last < t:
                    _fail(stage, f"step {n.name!r} reads {e.node.name!r} after its last use")
