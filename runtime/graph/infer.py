"""Shape and dtype inference over a graph, driven by each op's own rules in the registry.

Unknown variable shapes (``None``, or 0 in a dimension, as Gluon's deferred ``in_units=0``) are
completed from the ops that consume them: this is how ``Dense(10)`` learns its input size.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base import ShapeError
from .ir import Graph, Node

__all__ = ["infer_shapes", "infer_dtypes", "var_shape_hint", "var_dtype_hint", "complete_shape_attrs",
           "needs_shape_completion"]


def var_shape_hint(node: Node) -> tuple | None:
    """The ``__shape__`` annotation of a variable, if any (0 = unknown dimension)."""
    text = node.extra.get("__shape__")
    if not text:
        return None
    from ..ops.attrs import parse_literal
    v = parse_literal(text)
    return tuple(int(d) for d in (v if isinstance(v, tuple) else (v,)))


def var_dtype_hint(node: Node) -> np.dtype | None:
    text = node.extra.get("__dtype__")
    if text is None:
        return None
    from ..ops.attrs import Dtype
    return np.dtype(Dtype.coerce(text))


def _known(s: Any) -> bool:
    return s is not None and all(int(d) > 0 for d in s) if s is not None and len(s) else s is not None


def _merge(old: tuple | None, new: tuple | None, what: str) -> tuple | None:
    if new is None:
        return old
    if old is None or len(old) != len(new):
        if old is not None and len(old) != len(new) and 0 not in old:
            raise ShapeError(f"{what}: shape {tuple(old)} does not match inferred {tuple(new)}")
        return tuple(new)
    merged = []
    for a, b in zip(old, new):
        if a and b and a != b:
            raise ShapeError(f"{what}: expected shape {tuple(old)}, got {tuple(new)}")
        merged.append(a or b)
    return tuple(merged)


def infer_shapes(graph: Graph, known: dict[str, tuple], override_hints: bool = False) -> dict[tuple[int, int], tuple]:
    """Maps (id(node), output index) -> shape for every entry; variables included (index 0).

    ``known`` gives shapes of variables by name. A variable's ``__shape__`` hint must agree with its
    known shape (a declared model input is checked), unless ``override_hints`` (``Symbol.infer_shape``:
    in MXNet the given shape wins). Variable shapes that stay incomplete after a
    forward sweep are refined from their consumers, then the sweep repeats (at most a few times,
    as each pass only adds information).
    """
    shapes: dict[tuple[int, int], tuple] = {}
    for n in graph.variables():
        s = known.get(n.name)
        hint = var_shape_hint(n)
        if s is not None:
            s = tuple(int(d) for d in s)
            if (not override_hints and hint is not None and len(hint) == len(s)
                    and any(h and h != d for h, d in zip(hint, s))):
                raise ShapeError(f"variable {n.name}: expected shape {hint}, got {s}")
        else:
            s = hint
        if s is not None:
            shapes[(id(n), 0)] = s
    for _ in range(3):
        changed = False
        for n in graph.nodes:
            if n.op is None:
                continue
            ins = [shapes.get((id(e.node), e.index)) for e in n.inputs]
            if ins and all(s is None for s in ins):  # ops without inputs (_zeros) still infer
                continue
            try:
                full_ins, outs = n.op.shapes(n.resolved, ins)
            except ShapeError as e:
                raise ShapeError(f"{n.op.name} {n.name!r}: {e}") from None
            for e, old, new in zip(n.inputs, ins, full_ins):
                merged = _merge(old, new, f"{n.op.name} {n.name!r} input {e.node.name!r}")
                if merged != old:
                    shapes[(id(e.node), e.index)] = merged
                    changed = changed or e.node.op is None
            for i, s in enumerate(outs):
                if s is not None:  # an op may leave an output unknown (its data shape is unknown)
                    old = shapes.get((id(n), i))
                    # keep what consumers told about an output with unknown dimensions
                    shapes[(id(n), i)] = s if old is None or _known(s) else \
                        _merge(old, s, f"{n.op.name} {n.name!r} output {i}")
        changed = _backward_sweep(graph, shapes) or changed
        if not changed:
            break
    return shapes


def _incomplete(s: Any) -> bool:
    return s is None or any(int(d) <= 0 for d in s)


def _backward_sweep(graph: Graph, shapes: dict) -> bool:
    """Refines unknown input dimensions from known outputs (``OpDef.infer_shape_backward``), consumers
    first, as MXNet's shape inference does; returns whether anything was learnt."""
    changed = False
    for n in reversed(graph.nodes):
        if n.op is None or n.op.infer_shape_backward is None or not n.inputs:
            continue
        ins = [shapes.get((id(e.node), e.index)) for e in n.inputs]
        if not any(_incomplete(s) for s in ins):
            continue
        outs = [shapes.get((id(n), i)) for i in range(n.num_outputs)]
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
                shapes[(id(e.node), e.index)] = merged
                changed = True
    return changed


def complete_shape_attrs(graph: Graph, shapes: dict) -> list[Node]:
    """Writes inferred shapes into the ``shape`` attribute of input-less nodes that left dimensions
    unknown (0), as ``sym.zeros((0, H))`` made by ``begin_state`` while tracing: MXNet fills such
    arrays at their inferred shape. Changes ``graph`` in place (give it a copy); returns the nodes
    changed."""
    done = []
    for n in graph.nodes:
        if n.op is None or n.inputs or n.op.param("shape") is None:
            continue
        attr = n.attrs.get("shape")
        if attr is None or not len(attr) or all(int(d) > 0 for d in attr):
            continue
        s = shapes.get((id(n), 0))
        if s is None or _incomplete(s) or len(s) != len(attr):
            continue
        n.set_attrs({**n.attrs, "shape": tuple(int(d) for d in s)})
        done.append(n)
    return done


def needs_shape_completion(graph: Graph) -> bool:
    """Does some input-less node have a ``shape`` attribute with unknown (0) dimensions?"""
    for n in graph.nodes:
        if n.op is not None and not n.inputs and n.op.param("shape") is not None:
            attr = n.attrs.get("shape")
            if attr is not None and len(attr) and any(int(d) <= 0 for d in attr):
                return True
    return False


def infer_dtypes(graph: Graph, known: dict[str, Any]) -> dict[tuple[int, int], np.dtype]:
    """Maps (id(node), output index) -> dtype; unknown variables default to float32.

    Inputs an operator gives one dtype (``OpDef.same_dtype``) are checked as MXNet checks them when
    a graph is bound, where their dtypes are known: a defaulted variable's float32 is a guess (MXNet
    would infer it from its neighbours), so it and everything computed from it is not checked."""
    dtypes: dict[tuple[int, int], np.dtype] = {}
    guessed: set[tuple[int, int]] = set()
    for n in graph.nodes:
        if n.op is None:
            d = known.get(n.name)
            hint = var_dtype_hint(n) if d is None else None
            dtypes[(id(n), 0)] = np.dtype(d) if d is not None else (hint or np.dtype(np.float32))
            if d is None and hint is None:
                guessed.add((id(n), 0))
            continue
        keys = [(id(e.node), e.index) for e in n.inputs]
        ins = [dtypes[k] for k in keys]
        if n.op.same_dtype is not None:
            n.op.check_same_dtype([None if k in guessed else d for k, d in zip(keys, ins)])
        some_guessed = any(k in guessed for k in keys)
        for i, d in enumerate(n.op.dtypes(n.resolved, ins)):
            dtypes[(id(n), i)] = d
            if some_guessed:
                guessed.add((id(n), i))
    return dtypes
