"""Graphs under ``autograd.record()``: a hybridized block's graph run node by node through the tape.

A compiled program computes numpy arrays and leaves no trace for ``backward``. While recording, a
HybridBlock runs its cached graph here instead: every node is one imperative operator call
(``ndarray.invoke``), recorded like any other, on the parameters' own data arrays (the marked
variables), so ``loss.backward()`` fills ``param.grad()`` exactly as the imperative block does,
through the same gradient rules.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..base import HybridizeError
from .ir import Graph

__all__ = ["run_recorded"]


def run_recorded(graph: Graph, values: Mapping[str, object], monitor=None) -> list:
    """The outputs (NDArrays) of ``graph`` given each variable's NDArray by name, every operator
    call recorded by autograd. ``monitor(node, inputs, outputs)`` (numpy values) after each op, as
    ``interpret.evaluate``'s (the executor's monitor callback)."""
    from ..ndarray import NDArray, invoke
    from .infer import complete_shape_attrs, infer_shapes, needs_shape_completion

    if needs_shape_completion(graph):
        graph = graph.copy()
        known = {n.name: tuple(np.shape(values[n.name])) for n in graph.variables() if n.name in values}
        complete_shape_attrs(graph, infer_shapes(graph, known))
    env: dict = {}
    for n in graph.nodes:
        if n.op is None:
            if n.name not in values:
                raise HybridizeError(f"no value for variable {n.name!r}")
            v = values[n.name]
            env[(id(n), 0)] = v if isinstance(v, NDArray) else NDArray(np.asarray(v))
            continue
        args = [env[(id(e.node), e.index)] for e in n.inputs]
        out = invoke(n.op, args, n.resolved)
        if isinstance(out, (tuple, list)):
            for i, o in enumerate(out):
                env[(id(n), i)] = o
        else:
            env[(id(n), 0)] = out
        if monitor is not None:
            outs = out if isinstance(out, (tuple, list)) else [out]
            monitor(n, [a._data for a in args], [o._data for o in outs])
    return [env[(id(e.node), e.index)] for e in graph.outputs]
