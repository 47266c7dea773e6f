"""The body of a control-flow operator (``_foreach``, ``_while_loop``, ``_cond``) as a graph value.

The operators themselves are defined in ``ops/control_flow.py``, the bottom layer, which never
imports the graph package: a node's ``subgraphs`` attribute holds :class:`Subgraph` values, and
the operators only call their methods to evaluate a body (:meth:`run`, the reference
interpreter), infer its shapes and dtypes, or compile it (:meth:`compile`, the graph compiler:
all passes, its own buffers) when the operator's kernel is prepared for a compiled program. So
the graph side provides control-flow execution, as it provides the kernels' emitters.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .ir import Graph, Node

__all__ = ["Subgraph"]


class Subgraph:
    """A body: ``graph`` and its input variables in order (MXNet's ``arg_nodes`` order)."""

    __slots__ = ("graph", "inputs")

    def __init__(self, graph: Graph, inputs: list[Node]):
        self.graph = graph
        self.inputs = list(inputs)

    @property
    def names(self) -> list[str]:
        return [n.name for n in self.inputs]

    def __repr__(self) -> str:
        # unique per object: the registry caches resolved attributes by their repr
        return f"Subgraph@{id(self):x}({len(self.graph.nodes)} nodes, inputs {self.names})"

    def run(self, values: list) -> list:
        """The body's outputs for input ``values`` (in input order), by the reference interpreter."""
        from .interpret import evaluate
        return evaluate(self.graph, dict(zip(self.names, values)))

    def infer(self, in_shapes: list) -> tuple[list, list]:
        """(shapes of the inputs, of the outputs) inferred from what is known of the inputs."""
        from .infer import infer_shapes
        known = {n.name: s for n, s in zip(self.inputs, in_shapes) if s is not None}
        shapes = infer_shapes(self.graph, known)
        return [shapes.get((id(n), 0)) for n in self.inputs], \
               [shapes.get((id(e.node), e.index)) for e in self.graph.outputs]

    def infer_types(self, in_dtypes: list) -> list:
        """The outputs' dtypes from the inputs' (float32 where unknown)."""
        from .infer import infer_dtypes
        known = {n.name: np.dtype(d) for n, d in zip(self.inputs, in_dtypes) if d is not None}
        dts = infer_dtypes(self.graph, known)
        return [dts.get((id(e.node), e.index), np.dtype(np.float32)) for e in self.graph.outputs]

    def compile(self, shapes: list, dtypes: list) -> Callable[[list], Any]:
        """The body compiled for these input shapes and dtypes: ``f(values) -> outputs``."""
        from .codegen import compile_graph
        names = self.names
        prog = compile_graph(self.graph, input_names=names, shapes=dict(zip(names, shapes)),
                             dtypes={k: np.dtype(d) for k, d in zip(names, dtypes)})
        return lambda vals: prog(*vals)
