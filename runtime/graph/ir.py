"""The graph IR: a tiny torch.fx-like Graph of Nodes, shared by Symbol, JSON I/O, passes and codegen.

A :class:`Node` is either a variable (``op is None``: a data input, a parameter or an auxiliary
state, MXNet's ``"null"`` node) or an operator application. Its ``attrs`` are the attributes that
were given explicitly (typed values; defaults stay implicit, as in MXNet's JSON), ``extra`` keeps
MXNet's double-underscore annotations (``__shape__``, ``__init__``, ...) as strings. Inputs are
:class:`Entry` values: (producer node, output index).

A :class:`Graph` is a topologically ordered node list plus output entries, and it owns what is
known about them, as torch.fx's ``Graph`` does: the users of every entry (kept current by every
edit made through the graph: :meth:`Graph.set_inputs`, :meth:`Graph.set_attrs`,
:meth:`Graph.replace_uses`, :meth:`Graph.substitute`) and per-entry metadata (:class:`Meta`:
shape, dtype, whether the shape is known; filled by ``infer.annotate``, invalidated node by node
by the same edits, so a pass after a small rewrite does not re-run inference over the whole
graph). A graph is rewritten in place by the compiler's passes; callers that must keep theirs
give a :meth:`Graph.copy`.
"""
from __future__ import annotations

import contextlib
import gc
from typing import Any, Iterable, Iterator, NamedTuple

import numpy as np

from ..ops._util import known
from ..ops.registry import Attrs, OpDef

__all__ = ["Node", "Entry", "Graph", "Meta", "topo_order", "EDITS"]

#: how many edits of a node's inputs or attributes were made through the API (``Graph.set_inputs``,
#: ``Graph.set_attrs``/``Node.set_attrs``, a Symbol's composition): a walk cached over a symbol's
#: nodes (``Symbol.graph``) is current while this count is the one it was made at
EDITS = [0]


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
        EDITS[0] += 1

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


class Meta:
    """What is known about one entry: its shape (``None`` or dimensions, 0 = unknown), its dtype,
    and whether that dtype is a guess (a variable nobody gave a dtype defaults to float32; dtype
    checks skip guesses, as MXNet would have inferred them from the neighbours), from inference;
    ``last_use``, the step that reads it last (``None``: no step does), from the compiler's
    liveness analysis (``passes/liveness.py``)."""

    __slots__ = ("dtype", "guessed", "last_use", "shape")

    def __init__(self, shape: tuple | None, dtype: np.dtype | None, guessed: bool = False):
        self.shape, self.dtype, self.guessed = shape, dtype, guessed
        self.last_use: int | None = None

    @property
    def known(self) -> bool:
        """Is the shape fully known (the one definition: ``ops._util.known``)?"""
        return known(self.shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Meta) and (self.shape, self.dtype, self.guessed) == \
            (other.shape, other.dtype, other.guessed)

    def __repr__(self) -> str:
        return f"Meta({self.shape}, {self.dtype}{', guessed' if self.guessed else ''})"


class Graph:
    """Topologically ordered nodes and the output entries, with their users and metadata; the
    unit passes and codegen work on."""

    def __init__(self, outputs: Iterable[Entry], nodes: list[Node] | None = None):
        self.outputs: list[Entry] = list(outputs)
        self.nodes: list[Node] = nodes if nodes is not None else topo_order(self.outputs)
        self._users: dict[Entry, list[tuple[Node, int]]] | None = None   # built on first query
        self.meta: dict[Entry, Meta] = {}
        self.stale: set[Node] = set()     # nodes edited since ``meta`` was computed

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

    def _table(self) -> dict[Entry, list[tuple[Node, int]]]:
        if self._users is None:
            table: dict[Entry, list[tuple[Node, int]]] = {}
            for n in self.nodes:
                for slot, e in enumerate(n.inputs):
                    table.setdefault(e, []).append((n, slot))
            self._users = table
        return self._users

    def users(self, e: Entry) -> list[tuple[Node, int]]:
        """The ``(consumer, input slot)`` pairs reading ``e`` (graph outputs not included)."""
        return list(self._table().get(e, ()))

    def uses(self, e: Entry) -> int:
        """How many inputs and graph outputs read ``e``."""
        return len(self._table().get(e, ())) + self.outputs.count(e)

    def shape(self, e: Entry) -> tuple | None:
        return self.meta[e].shape

    def dtype(self, e: Entry) -> np.dtype:
        return self.meta[e].dtype  # type: ignore[return-value]

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
        """A deep copy of the structure (attrs dicts copied, values shared; metadata not copied)."""
        mapping: dict[int, Node] = {}
        for n in self.nodes:
            c = Node(n.op, n.name, n.attrs, [Entry(mapping[id(e.node)], e.index) for e in n.inputs], n.extra)
            mapping[id(n)] = c
        return Graph([Entry(mapping[id(e.node)], e.index) for e in self.outputs],
                     [mapping[id(n)] for n in self.nodes])

    # -- edits: each keeps the users current and invalidates the metadata it affects -----------
    def set_inputs(self, node: Node, inputs: Iterable[Entry]) -> None:
        """``node`` reads ``inputs`` from now on (the node order is the caller's to restore:
        :meth:`reorder`, when a new input comes later in it)."""
        inputs = list(inputs)
        if self._users is not None:
            for slot, e in enumerate(node.inputs):
                self._users[e].remove((node, slot))
            for slot, e in enumerate(inputs):
                self._users.setdefault(e, []).append((node, slot))
        node.inputs = inputs
        EDITS[0] += 1
        self.stale.add(node)

    def set_attrs(self, node: Node, attrs: dict[str, Any]) -> None:
        node.set_attrs(attrs)
        self.stale.add(node)

    def replace_uses(self, old: Entry, new: Entry) -> None:
        """Every consumer (and graph output) of ``old`` reads ``new`` instead."""
        for user, slot in self.users(old):
            inputs = list(user.inputs)
            inputs[slot] = new
            self.set_inputs(user, inputs)
        self.outputs = [new if e == old else e for e in self.outputs]

    def substitute(self, mapping: dict[Entry, Entry]) -> Graph:
        """Every use of an entry in ``mapping`` reads its replacement (chains followed); then nodes
        no output depends on are dropped and the order recomputed (MXNet's DFS post-order)."""
        if not mapping:
            return self

        def resolve(e: Entry) -> Entry:
            seen = 0
            while e in mapping and seen < 10000:
                e = mapping[e]
                seen += 1
            return e
        for old in mapping:
            new = resolve(old)
            for user, slot in self.users(old):
                inputs = list(user.inputs)
                inputs[slot] = new
                self.set_inputs(user, inputs)
        self.outputs = [resolve(e) for e in self.outputs]
        return self.reorder()

    def reorder(self) -> Graph:
        """Recomputes the node order from the outputs (drops what no output needs)."""
        self.nodes = topo_order(self.outputs)
        self._users = None
        live = set(self.nodes)
        for e in [e for e in self.meta if e.node not in live]:
            del self.meta[e]
        self.stale &= live
        return self

    def prune(self) -> Graph:
        """Drops nodes no output depends on (keeps order)."""
        live = set(topo_order(self.outputs))
        if len(live) != len(self.nodes):
            self.nodes = [n for n in self.nodes if n in live]
            self._users = None
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


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Building or compiling a graph allocates a few objects per node and frees almost none until
    the end: the cyclic collector's passes over that growing heap were a third of compiling a
    40k-node chain. It is off inside (garbage with cycles is collected after), and turned back on
    only by the caller that turned it off (nested or concurrent compiles leave it to the outermost)."""
    was = gc.isenabled()
    if was:
        gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
