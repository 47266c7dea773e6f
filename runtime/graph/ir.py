"""The graph IR: a tiny torch.fx-like Graph of Nodes, shared by Symbol, JSON I/O, passes and codegen.

A :class:`Node` is either a variable (``op is None``: a data input, a parameter or an auxiliary
state, MXNet's ``"null"`` node) or an operator application. Its ``attrs`` are the attributes that
were given explicitly (typed values; defaults stay implicit, as in MXNet's JSON), ``extra`` keeps
MXNet's double-underscore annotations (``__shape__``, ``__init__``, ...) as strings. Inputs are
:class:`Entry` values: (producer node, output index).

A :class:`Graph` is a topologically ordered node list plus output entries. Passes build new
graphs or rewrite a copy; nothing else holds graph state.
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator, NamedTuple

from ..ops.registry import Attrs, OpDef

__all__ = ["Node", "Entry", "Graph"]


class Node:
    """One variable or operator application. Identity matters: nodes are compared by ``is``."""

    __slots__ = ("op", "name", "attrs", "inputs", "extra", "_resolved", "__weakref__")

    def __init__(self, op: OpDef | None, name: str, attrs: dict[str, Any] | None = None,
                 inputs: Iterable["Entry"] = (), extra: dict[str, str] | None = None):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)
        self.extra = dict(extra or {})
        self._resolved: Attrs | None = None

    @property
    def is_variable(self) -> bool:
        return self.op is None

    @property
    def resolved(self) -> Attrs:
        """All attributes with MXNet's defaults (cached; reset by :meth:`set_attrs`)."""
        if self._resolved is None:
            self._resolved = self.op.resolve(self.attrs)  # type: ignore[union-attr]
        return self._resolved

    def set_attrs(self, attrs: dict[str, Any]) -> None:
        self.attrs = dict(attrs)
        self._resolved = None

    @property
    def num_outputs(self) -> int:
        return 1 if self.op is None else self.op.n_outputs(self.resolved)

    @property
    def input_names(self) -> list[str]:
        return [] if self.op is None else self.op.input_names(self.resolved)

    def output_names(self) -> list[str]:
        if self.op is None:
            return [self.name]
        return [f"{self.name}_{o}" for o in self.op.output_names(self.resolved)]

    def entry(self, index: int = 0) -> "Entry":
        return Entry(self, index)

    def __repr__(self) -> str:
        if self.op is None:
            return f"<var {self.name}>"
        args = ", ".join(f"{e.node.name}[{e.index}]" if e.index else e.node.name for e in self.inputs)
        return f"<{self.op.name} {self.name}({args})>"


class Entry(NamedTuple):
    """One output of a node: what an input edge points at."""

    node: Node
    index: int = 0


def topo_order(outputs: Iterable[Entry]) -> list[Node]:
    """Nodes reachable from ``outputs``, each after its inputs, in MXNet's DFS post-order."""
    order: list[Node] = []
    seen: set[int] = set()
    for out in outputs:
        stack: list[tuple[Node, int]] = [(out.node, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0 and id(node) in seen:
                continue
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i].node
                if id(child) not in seen:
                    stack.append((child, 0))
            else:
                if id(node) not in seen:
                    seen.add(id(node))
                    order.append(node)
    return order


class Graph:
    """Topologically ordered nodes and the output entries; the unit passes and codegen work on."""

    def __init__(self, outputs: Iterable[Entry], nodes: list[Node] | None = None):
        self.outputs: list[Entry] = list(outputs)
        self.nodes: list[Node] = nodes if nodes is not None else topo_order(self.outputs)

    # -- queries ----------------------------------------------------------------------------
    def variables(self) -> list[Node]:
        return [n for n in self.nodes if n.op is None]

    def aux_variables(self) -> list[Node]:
        """Variables that feed an operator's auxiliary-state input (e.g. BatchNorm's moving_mean)."""
        aux: dict[int, Node] = {}
        for n in self.nodes:
            if n.op is not None and n.op.aux:
                names = n.input_names
                for name, e in zip(names, n.inputs):
                    if name in n.op.aux and e.node.op is None:
                        aux[id(e.node)] = e.node
        return [n for n in self.nodes if id(n) in aux]

    def arguments(self) -> list[Node]:
        aux = {id(n) for n in self.aux_variables()}
        return [n for n in self.variables() if id(n) not in aux]

    def users(self) -> dict[int, list[Node]]:
        """id(node) -> nodes that consume one of its outputs."""
        out: dict[int, list[Node]] = {id(n): [] for n in self.nodes}
        for n in self.nodes:
            for e in n.inputs:
                out[id(e.node)].append(n)
        return out

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __reduce__(self) -> tuple:
        """Pickled as MXNet's symbol JSON: operators by name, attributes as text, never code (a
        node's operator holds the registry's kernels, which are not picklable and need not be)."""
        from . import mxnet_json
        return (mxnet_json.loads, (mxnet_json.dumps(self),))

    def copy(self) -> "Graph":
        """A deep copy of the structure (attrs dicts copied, values shared)."""
        mapping: dict[int, Node] = {}
        for n in self.nodes:
            c = Node(n.op, n.name, n.attrs, [Entry(mapping[id(e.node)], e.index) for e in n.inputs], n.extra)
            mapping[id(n)] = c
        return Graph([Entry(mapping[id(e.node)], e.index) for e in self.outputs],
                     [mapping[id(n)] for n in self.nodes])

    def replace_uses(self, old: Entry, new: Entry) -> None:
        """Every consumer (and graph output) of ``old`` reads ``new`` instead."""
        for n in self.nodes:
            if any(e == old for e in n.inputs):
                n.inputs = [new if e == old else e for e in n.inputs]
        self.outputs = [new if e == old else e for e in self.outputs]

    def prune(self) -> "Graph":
        """Drops nodes no output depends on (keeps order)."""
        live = {id(n) for n in topo_order(self.outputs)}
        self.nodes = [n for n in self.nodes if id(n) in live]
        return self

    def __str__(self) -> str:
        lines = []
        for n in self.nodes:
            if n.op is None:
                lines.append(f"%{n.name} = var()")
            else:
                args = ", ".join("%" + e.node.name + (f"[{e.index}]" if e.index else "") for e in n.inputs)
                attrs = "".join(f", {k}={v!r}" for k, v in sorted(n.attrs.items()))
                lines.append(f"%{n.name} = {n.op.name}({args}{attrs})")
        lines.append("return " + ", ".join("%" + e.node.name + (f"[{e.index}]" if e.index else "")
                                           for e in self.outputs))
        return "\n".join(lines)
