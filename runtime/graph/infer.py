"""Shape and dtype inference over a graph, driven by each op's own rules in the registry.

Unknown variable shapes (``None``, or 0 in a dimension, as Gluon's deferred ``in_units=0``) are
completed from the ops that consume them: this is how ``Dense(10)`` learns its input size.

Both inferences are :class:`~.interpreter.Interpreter` s over shapes and dtypes. :func:`annotate`
keeps a graph's own metadata (``Graph.meta``) up to date for the compiler: the first time by the
whole inference, after edits by re-inferring only the edited nodes and those whose inputs'
metadata changed. :func:`infer_shapes` / :func:`infer_dtypes` answer callers outside the compiler
(``Symbol.infer_shape``, the ONNX exporter, Gluon's deferred initialization) with tables by
``(id(node), output index)``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..base import ShapeError
from ..ops._util import dim_known, np_shape_semantics
from ..ops._util import known as _known
from ..ops.tensor_init import arange_stop_for_length
from .interpreter import Interpreter
from .ir import Entry, Graph, Meta, Node

__all__ = ["infer_shapes", "infer_dtypes", "var_shape_hint", "var_dtype_hint", "complete_shape_attrs",
           "needs_shape_completion", "annotate", "entry_shapes"]


def var_shape_hint(node: Node) -> tuple | None:
    """The ``__shape__`` annotation of a variable, if any, its unknown dimensions written as the
    current shape semantics write them (``ops._util.unknown_dim``): MXNet 1.x's 0 and NumPy shape
    semantics' -1 are both unknown, except that with NumPy shape semantics on a 0 is a zero-size axis."""
    text = node.extra.get("__shape__")
    if not text:
        return None
    from ..ops.attrs import parse_literal
    v = parse_literal(text)
    dims = tuple(int(d) for d in (v if isinstance(v, tuple) else (v,)))
    if np_shape_semantics():
        return tuple(d if d >= 0 else -1 for d in dims)
    return tuple(max(d, 0) for d in dims)


def var_dtype_hint(node: Node) -> np.dtype | None:
    text = node.extra.get("__dtype__")
    if text is None:
        return None
    from ..ops.attrs import Dtype
    return np.dtype(Dtype.coerce(text))


def _merge(old: tuple | None, new: tuple | None, what: str) -> tuple | None:
    if new is None:
        return old
    if old is None or len(old) != len(new):
        if old is not None and len(old) != len(new) and all(dim_known(d) for d in old):
            raise ShapeError(f"{what}: shape {tuple(old)} does not match inferred {tuple(new)}")
        return tuple(new)
    merged = []
    for a, b in zip(old, new):
        ka, kb = dim_known(a), dim_known(b)
        if ka and kb and a != b:
            raise ShapeError(f"{what}: expected shape {tuple(old)}, got {tuple(new)}")
        merged.append(a if ka else b)
    return tuple(merged)


def _variable_shape(n: Node, known: dict[str, tuple], override_hints: bool) -> tuple | None:
    """A variable's shape: given by name (checked against its ``__shape__`` hint unless
    ``override_hints``), else its hint."""
    s = known.get(n.name)
    hint = var_shape_hint(n)
    if s is None:
        return hint
    s = tuple(int(d) for d in s)
    if (not override_hints and hint is not None and len(hint) == len(s)
            and any(dim_known(h) and h != d for h, d in zip(hint, s))):
        raise ShapeError(f"variable {n.name}: expected shape {hint}, got {s}")
    return s


def _op_shapes(n: Node, ins: list) -> tuple[list, list]:
    try:
        return n.op.shapes(n.resolved, ins)  # type: ignore[union-attr]
    except ShapeError as e:
        raise ShapeError(f"{n.op.name} {n.name!r}: {e}") from None  # type: ignore[union-attr]


class _ForwardShapes(Interpreter):
    """One forward sweep of shape inference: each op's rule gives its outputs and may complete
    its inputs' unknown dimensions (``changed`` says whether a variable learnt something)."""

    def __init__(self, env: dict[Entry, tuple]):
        super().__init__(env)
        self.changed = False

    def read(self, e: Entry) -> tuple | None:
        return self.env.get(e)

    def variable(self, node: Node) -> tuple | None:
        return self.env.get(Entry(node, 0))   # seeded before the sweeps; refined by consumers

    def apply(self, n: Node, ins: list) -> list:
        if ins and all(s is None for s in ins):  # ops without inputs (_zeros) still infer
            return []
        full_ins, outs = _op_shapes(n, ins)
        env = self.env
        for e, old, new in zip(n.inputs, ins, full_ins):
            merged = _merge(old, new, f"{n.op.name} {n.name!r} input {e.node.name!r}")
            if merged != old:
                env[e] = merged
                self.changed = self.changed or e.node.op is None
        result = []
        for i, s in enumerate(outs):
            old = env.get(Entry(n, i))
            # an output the op leaves unknown keeps what consumers told about it, as does one
            # with unknown dimensions
            result.append(old if s is None else s if old is None or _known(s)
                          else _merge(old, s, f"{n.op.name} {n.name!r} output {i}"))
        return result


def entry_shapes(graph: Graph, known: dict[str, tuple], override_hints: bool = False) -> dict[Entry, tuple]:
    """The shape of every entry whose shape can be inferred (see :func:`infer_shapes`)."""
    env: dict[Entry, tuple] = {}
    for n in graph.variables():
        s = _variable_shape(n, known, override_hints)
        if s is not None:
            env[Entry(n, 0)] = s
    sweep = _ForwardShapes(env)
    for _ in range(3):
        sweep.changed = False
        sweep.run(graph)
        changed = _backward_sweep(graph, env) or sweep.changed
        if not changed:
            break
    return {e: s for e, s in env.items() if s is not None}


def infer_shapes(graph: Graph, known: dict[str, tuple], override_hints: bool = False) -> dict[tuple[int, int], tuple]:
    """Maps (id(node), output index) -> shape for every entry; variables included (index 0).

    ``known`` gives shapes of variables by name. A variable's ``__shape__`` hint must agree with its
    known shape (a declared model input is checked), unless ``override_hints`` (``Symbol.infer_shape``:
    in MXNet the given shape wins). Variable shapes that stay incomplete after a
    forward sweep are refined from their consumers, then the sweep repeats (at most a few times,
    as each pass only adds information).
    """
    return {(id(e.node), e.index): s for e, s in entry_shapes(graph, known, override_hints).items()}


def _backward_sweep(graph: Graph, shapes: dict[Entry, tuple]) -> bool:
    """Refines unknown input dimensions from known outputs (``OpDef.infer_shape_backward``), consumers
    first, as MXNet's shape inference does; returns whether anything was learnt."""
    changed = False
    for n in reversed(graph.nodes):
        if n.op is None or n.op.infer_shape_backward is None or not n.inputs:
            continue
        ins = [shapes.get(e) for e in n.inputs]
        if all(_known(s) for s in ins):
            continue
        outs = [shapes.get(Entry(n, i)) for i in range(n.num_outputs)]
        if all(s is None for s in outs):
            continue
        try:
            refined = n.op.shapes_from_outputs(n.resolved, ins, outs)
        except (TypeError, ValueError, IndexError):
            continue
        if refined is None:
            continue
        for e, old, new in zip(n.inputs, ins, refined):
            if new is None:
                continue
            merged = _merge(old, new, f"{n.op.name} {n.name!r} input {e.node.name!r}")
            if merged != old:
                shapes[e] = merged
                changed = True
    return changed


def complete_shape_attrs(graph: Graph, shapes: Mapping[Entry, tuple | None]) -> list[Node]:
    """Writes inferred shapes into the ``shape`` attribute of input-less nodes that left dimensions
    unknown (0), as ``sym.zeros((0, H))`` made by ``begin_state`` while tracing: MXNet fills such
    arrays at their inferred ``shapes``. Changes ``graph`` in place
    (give it a copy); returns the nodes changed."""
    done = []
    for n in graph.nodes:
        if _length_from_consumers(n):
            s = shapes.get(Entry(n, 0))
            stop = arange_stop_for_length(n.resolved, s[0]) if _known(s) and len(s) == 1 else None
            if stop is not None:
                graph.set_attrs(n, {**n.attrs, "stop": stop})
                done.append(n)
            continue
        if n.op is None or n.inputs or n.op.param("shape") is None:
            continue
        attr = n.attrs.get("shape")   # a number is another parameter so named (np.random.gamma's)
        if not isinstance(attr, (tuple, list)) or not attr or all(dim_known(d) for d in attr):
            continue
        s = shapes.get(Entry(n, 0))
        if not _known(s) or len(s) != len(attr):
            continue
        graph.set_attrs(n, {**n.attrs, "shape": tuple(int(d) for d in s)})
        done.append(n)
    return done


def _length_from_consumers(n: Node) -> bool:
    """An ``arange`` with ``infer_range`` and no ``stop``: its length is its consumers' (MXNet's RangeShape)."""
    return n.op is not None and not n.inputs and n.op.param("infer_range") is not None \
        and bool(n.attrs.get("infer_range")) and n.attrs.get("stop") is None


def needs_shape_completion(graph: Graph) -> bool:
    """Does some input-less node have a ``shape`` attribute with unknown (0) dimensions, or a length
    left to its consumers (``arange(infer_range=True)``)?"""
    for n in graph.nodes:
        if _length_from_consumers(n):
            return True
        if n.op is not None and not n.inputs and n.op.param("shape") is not None:
            attr = n.attrs.get("shape")
            if isinstance(attr, (tuple, list)) and attr and not all(dim_known(d) for d in attr):
                return True
    return False


class _Dtypes(Interpreter):
    """Dtype inference: values are ``(dtype, guessed)``."""

    def __init__(self, known: dict[str, Any]):
        super().__init__()
        self.known = known

    def variable(self, n: Node) -> tuple[np.dtype, bool]:
        d = self.known.get(n.name)
        hint = var_dtype_hint(n) if d is None else None
        return (np.dtype(d) if d is not None else (hint or np.dtype(np.float32)), d is None and hint is None)

    def apply(self, n: Node, ins: list) -> list:
        return _op_dtypes(n, ins)


def _op_dtypes(n: Node, ins: list) -> list[tuple[np.dtype, bool]]:
    if n.op.same_dtype is not None:  # type: ignore[union-attr]
        n.op.check_same_dtype([None if g else d for d, g in ins])  # type: ignore[union-attr]
    some_guessed = any(g for _, g in ins)
    return [(d, some_guessed) for d in n.op.dtypes(n.resolved, [d for d, _ in ins])]  # type: ignore[union-attr]


def infer_dtypes(graph: Graph, known: dict[str, Any]) -> dict[tuple[int, int], np.dtype]:
    """Maps (id(node), output index) -> dtype; unknown variables default to float32.

    Inputs an operator gives one dtype (``OpDef.same_dtype``) are checked as MXNet checks them when
    a graph is bound, where their dtypes are known: a defaulted variable's float32 is a guess (MXNet
    would infer it from its neighbours), so it and everything computed from it is not checked."""
    return {(id(e.node), e.index): d for e, (d, _) in _Dtypes(known).run(graph).items()}


class _Incomplete(Exception):
    """Raised by :class:`_Refresh` when only the whole inference can answer."""


class _Refresh(Interpreter):
    """Re-infers the metadata of edited nodes and of nodes whose inputs' metadata changed; its
    environment is the graph's metadata itself."""

    def __init__(self, graph: Graph, shapes: dict[str, tuple], dtypes: dict[str, Any]):
        super().__init__(graph.meta)
        self.stale, self.shapes, self.dtypes = graph.stale, shapes, dtypes
        self.changed: set[Node] = set()

    def variable(self, n: Node) -> Meta:
        old = self.env.get(Entry(n, 0))
        if old is not None:
            return old
        s = _variable_shape(n, self.shapes, False)
        if not _known(s):
            raise _Incomplete
        d, guessed = _Dtypes(self.dtypes).variable(n)
        self.changed.add(n)
        return Meta(s, d, guessed)

    def apply(self, n: Node, ins: list) -> list:
        env = self.env
        old = [env.get(Entry(n, i)) for i in range(n.num_outputs)]
        if n not in self.stale and None not in old and not any(e.node in self.changed for e in n.inputs):
            return old
        shapes = [m.shape for m in ins]
        if not all(_known(s) for s in shapes):
            raise _Incomplete
        full_ins, outs = _op_shapes(n, shapes)
        for e, s, new in zip(n.inputs, shapes, full_ins):
            if _merge(s, new, f"{n.op.name} {n.name!r} input {e.node.name!r}") != s:
                raise _Incomplete
        if len(outs) < len(old) or not all(_known(s) for s in outs):
            raise _Incomplete
        metas = [Meta(tuple(s), d, g) for s, (d, g) in zip(outs, _op_dtypes(n, [(m.dtype, m.guessed) for m in ins]))]
        if metas != old:
            self.changed.add(n)
        return metas


def annotate(graph: Graph, shapes: dict[str, tuple], dtypes: dict[str, Any]) -> dict[Entry, Meta]:
    """Brings ``graph.meta`` up to date (variables' shapes and dtypes given by name) and returns it:
    only what edits invalidated is inferred again, unless something is unknown (then, and the first
    time, the whole inference runs)."""
    if graph.meta:
        meta = graph.meta
        if not graph.stale and all(Entry(n, 0) in meta for n in graph.nodes):
            return meta       # nothing edited, nothing new: the walk below would change nothing
        try:
            _Refresh(graph, shapes, dtypes).run(graph)
            graph.stale.clear()
            return graph.meta
        except _Incomplete:
            pass
    sh = entry_shapes(graph, shapes)
    graph.meta = {e: Meta(sh.get(e), d, g) for e, (d, g) in _Dtypes(dtypes).run(graph).items()}
    graph.stale.clear()
    return graph.meta
