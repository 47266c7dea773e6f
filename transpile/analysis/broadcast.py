"""What the dataflow knows about a tensor's *shape kind*: enough to tell that two operands of
``a * b`` may have different shapes (HY013).

NDArray arithmetic broadcasts (``NDArray.__mul__`` is ``broadcast_mul`` in MXNet 1.9.1), Symbol
arithmetic does not (``Symbol.__mul__`` is ``_Mul``, ``elemwise_mul``: equal shapes or the graph
fails to build). So ``y * gamma.reshape(1, -1, 1)`` runs imperatively and fails once the block is
hybridized. Shapes are unknown statically; what the code *does* to a tensor is not. A tensor
:class:`~.values.Value` may carry a :class:`Dims`:

``rank`` / ``ones``  the rank, when the code fixes it (``t.reshape((1, -1, 1))``: rank 3, axes 0
                     and 2 of length 1), with the axes known to have length 1.
``root`` / ``change`` how the shape derives from the tensor it was computed from (the very
                     ``Value`` object the interpreter bound: identity, as :mod:`.shapes` does):
                     ``("same",)`` (an elementwise operator of it), ``("keep1", axes)`` (a reduction
                     with ``keepdims=True``, ``t[0:1]``: those axes become length 1; ``axes``
                     ``None``: all), ``("drop", axes)`` (a reduction without ``keepdims``, ``t[0]``,
                     ``squeeze``), ``("insert", axis)`` (``expand_dims``, ``t[None]``), ``("all",)``
                     (a reduction over every axis: MXNet's legacy ``(1,)``). :func:`ancestors`
                     follows ``root`` back while the changes compose (``t[:, 0]`` then
                     ``expand_dims(axis=1)`` is ``keep1`` of ``t``); :func:`common` finds the nearest
                     tensor two operands both derive from.

A tensor without a ``Dims`` derives from nothing known, its shape unknown. :func:`compare` decides for two
operands: ``None`` (nothing shows the shapes differ), or a :class:`Verdict` — *certain* (the
shapes differ for every input, or unless the reduced/inserted axes have length 1: a degenerate
case nobody writes a reduction for) or *possible* (one operand has broadcasting length-1 axes the
other is not known to have).

Dims are only made while the interpreter emits (the final pass). A control-flow join keeps a
``Dims`` only when both paths agree; a helper's result keeps only its rank and length-1 axes (a
memoised helper result may stand for calls with other arguments).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from .runtime_facts import SHAPE_KEEPING_OPS  # generated: see transpile/derive_facts.py

#: Operators with more inputs whose (first) output has the shape of their first input (MXNet's
#: documented shapes: normalisations, softmax with an optional length, leaky ReLU with a slope,
#: ``SequenceMask``; ``elemwise_*`` need equal shapes), and fluent methods that keep the shape.
DATA_SHAPED_OPS = frozenset({
    "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "LeakyReLU", "SequenceMask", "softmax",
    "log_softmax", "softmin", "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div",
    "astype", "copy", "detach", "as_in_context", "as_in_ctx", "attach_grad",
})

#: Single-tensor Gluon layers (see :mod:`.layers`) whose output has their input's shape.
SHAPE_KEEPING_LAYERS = frozenset({
    "Activation", "BatchNorm", "BatchNormReLU", "Dropout", "ELU", "GELU", "GroupNorm", "InstanceNorm",
    "LayerNorm", "LeakyReLU", "PReLU", "SELU", "Swish", "SyncBatchNorm",
})

#: Reductions whose signature is ``op(data, axis, keepdims, exclude)`` (MXNet's ``ReduceAxesParam``).
REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "nansum", "nanprod", "sum_axis", "max_axis",
                        "min_axis"})

#: Constructors whose first argument is the shape.
CONSTRUCTORS = frozenset({"ones", "zeros", "full", "empty"})

#: Python operators (``ast`` class names) and the broadcasting operator NDArray uses for them
#: between two NDArrays (``NDArray.__mul__`` is ``multiply`` is ``broadcast_mul``).
BROADCAST_OPS = {
    "Add": "broadcast_add", "Sub": "broadcast_sub", "Mult": "broadcast_mul", "Div": "broadcast_div",
    "Mod": "broadcast_mod", "Pow": "broadcast_power",
    "Eq": "broadcast_equal", "NotEq": "broadcast_not_equal", "Lt": "broadcast_lesser",
    "LtE": "broadcast_lesser_equal", "Gt": "broadcast_greater", "GtE": "broadcast_greater_equal",
}
#: What ``Symbol`` builds for the same operator (for messages).
SYMBOL_OPS = {
    "Add": "elemwise_add", "Sub": "elemwise_sub", "Mult": "elemwise_mul", "Div": "elemwise_div",
    "Mod": "_mod", "Pow": "_power", "Eq": "_equal", "NotEq": "_not_equal", "Lt": "_lesser",
    "LtE": "_lesser_equal", "Gt": "_greater", "GtE": "_greater_equal",
}
SYMBOLS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "Mod": "%", "Pow": "**", "Eq": "==",
           "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">="}

SAME = ("same",)
ALL = ("all",)


@dataclass(frozen=True, eq=False)
class Dims:
    """What is known about one tensor's shape (see the module docstring)."""

    rank: Optional[int] = None
    ones: frozenset = frozenset()
    root: Any = None
    change: Optional[tuple] = None
    #: the expression that made the length-1 axes or the change (for messages), and where
    node: Any = None
    site: Any = None

    def agrees(self, other: Optional["Dims"]) -> bool:
        """The same facts (a control-flow join keeps them)."""
        return other is not None and (self is other or (
            self.rank == other.rank and self.ones == other.ones and self.root is other.root
            and self.change == other.change))


#: How many derivations :func:`ancestors` follows back (code is rarely deeper; cost stays flat).
MAX_CHAIN = 24


def ancestors(value: Any) -> list[tuple[Any, tuple]]:
    """``value`` and the tensors it derives from, nearest first, each with the change that turns it
    into ``value``, as far as the changes compose (``[(value, SAME), (parent, c1), ...]``)."""
    out = [(value, SAME)]
    change: Optional[tuple] = SAME
    node = value
    for _ in range(MAX_CHAIN):
        dims = node.dims
        if dims is None or dims.root is None or dims.change is None:
            break
        change = _compose(dims.change, change)
        if change is None:
            break
        node = dims.root
        out.append((node, change))
    return out


def common(a: Any, b: Any) -> Optional[tuple[Any, tuple, tuple]]:
    """The nearest tensor both derive from, with the change from it to ``a`` and to ``b``."""
    mine = {id(v): (v, c) for v, c in ancestors(a)}
    for v, cb in ancestors(b):
        hit = mine.get(id(v))
        if hit is not None and hit[0] is v:
            return v, hit[1], cb
    return None


def keep(value: Any) -> Optional[Dims]:
    """The facts of a tensor computed by a shape-keeping operator of ``value``."""
    old = value.dims
    return Dims(old.rank if old else None, old.ones if old else frozenset(), value, SAME,
                old.node if old else None, old.site if old else None)


def derive(value: Any, change: tuple, node: ast.AST, site: Any) -> Dims:
    """The facts of a tensor that is ``change`` applied to ``value`` (``node``: the expression)."""
    rank, ones = _absolute(value.dims, change)
    return Dims(rank, ones, value, change, node, site)


def _compose(first: tuple, then: tuple) -> Optional[tuple]:
    """One change for two in a row, where it is one: ``t[:, 0]`` then ``expand_dims(axis=1)``
    keeps axis 1 with length 1; two ``keepdims`` reductions keep both sets of axes."""
    if first == SAME:
        return then
    if then == SAME:
        return first
    if first[0] == "drop" and then[0] == "insert" and first[1] == frozenset({then[1]}):
        return ("keep1", first[1])
    if first[0] == "keep1" and then[0] == "drop" and first[1] == then[1]:
        return then  # ``F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), axis=1)``: ``x[:, 0]``
    if first[0] == "keep1" and then[0] == "keep1" and first[1] is not None and then[1] is not None \
            and _same_sign(first[1], then[1]):
        return ("keep1", first[1] | then[1])
    if first[0] == "keep1" and then[0] == "keep1":
        return ("keep1", None) if first[1] is None or then[1] is None else None
    return None


def _absolute(dims: Optional[Dims], change: tuple) -> tuple[Optional[int], frozenset]:
    """Rank and length-1 axes after ``change``, when the rank before it is known."""
    if change == ALL:
        return 1, frozenset({0})
    if dims is None or dims.rank is None:
        return None, frozenset()
    rank = dims.rank
    kind = change[0]
    if kind == "same":
        return rank, dims.ones
    axes = change[1]
    if kind == "keep1":
        if axes is None:
            return rank, frozenset(range(rank))
        return rank, dims.ones | {a % rank for a in axes if -rank <= a < rank}
    if kind == "drop":
        norm = {a % rank for a in axes if -rank <= a < rank}
        if len(norm) != len(axes):
            return None, frozenset()
        kept = [i for i in range(rank) if i not in norm]
        return rank - len(norm), frozenset(j for j, i in enumerate(kept) if i in dims.ones)
    if kind == "insert":
        at = axes if axes >= 0 else axes + rank + 1
        if not 0 <= at <= rank:
            return None, frozenset()
        return rank + 1, frozenset({at} | {i + (i >= at) for i in dims.ones})
    return None, frozenset()


def absolute_only(dims: Dims) -> Optional[Dims]:
    """``dims`` without its relation to another tensor (a helper's result: see the module doc)."""
    if dims.rank is None:
        return None
    return Dims(dims.rank, dims.ones, None, None, dims.node, dims.site)


def literal(rank: int, ones: Sequence[int], node: ast.AST, site: Any) -> Dims:
    """A tensor whose rank the code fixes (``reshape`` with literal codes, ``F.ones((1, 3))``)."""
    return Dims(rank, frozenset(ones), None, None, node, site)


# ---------------------------------------------------------------------------------------------
# reading the code: reshape codes, reduction axes, subscripts
def nested_lengths(node: Optional[ast.AST]) -> Optional[list[int]]:
    """The shape of a literal nested list/tuple of numbers (``F.array([0.])``: ``[1]``), or None
    when it is not regular or not all literal."""
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    if all(isinstance(e, ast.Constant) and type(e.value) in (int, float) for e in node.elts):
        return [len(node.elts)]
    inner = [nested_lengths(e) for e in node.elts]
    if inner[0] is None or any(i != inner[0] for i in inner):
        return None
    return [len(node.elts), *inner[0]]


def int_literal(node: Optional[ast.AST]) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_literal(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def bool_literal(node: Optional[ast.AST]) -> Optional[bool]:
    if isinstance(node, ast.Constant) and type(node.value) in (bool, int):
        return bool(node.value)
    return None


def int_tuple(node: Optional[ast.AST]) -> Optional[list[int]]:
    """``(1, -1, 1)`` / ``[1, 2]`` / ``3`` as ints, else ``None``."""
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [int_literal(e) for e in node.elts]
        return None if any(i is None for i in items) else items  # type: ignore[return-value]
    single = int_literal(node)
    return None if single is None else [single]


def reshape_dims(codes: Optional[list[int]], node: ast.AST, site: Any) -> Optional[Dims]:
    """The rank and length-1 axes ``reshape`` with MXNet's codes makes (``-2`` copies an unknown
    number of axes: nothing known). Code ``1`` is a literal length 1; ``0`` copies an axis."""
    if not codes:
        return None
    out: list[int] = []
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == -2 or code < -4:
            return None
        if code == -4:  # split one axis into the next two codes
            if i + 2 >= len(codes):
                return None
            out.extend(codes[i + 1:i + 3])
            i += 3
            continue
        out.append(code)
        i += 1
    return literal(len(out), [k for k, c in enumerate(out) if c == 1], node, site)


def reduction_change(args: list[tuple[Optional[str], ast.AST]]) -> Optional[tuple]:
    """The change a reduction ``op(data, axis=(), keepdims=False, exclude=False)`` makes, from its
    arguments after the data (``(keyword or None, expression)``); ``None`` if not literal."""
    names = ("axis", "keepdims", "exclude")
    given: dict[str, ast.AST] = {}
    for position, (keyword, expr) in enumerate(args):
        name = keyword if keyword is not None else (names[position] if position < len(names) else None)
        if name is None or name not in names:
            return None
        given[name] = expr
    exclude = bool_literal(given["exclude"]) if "exclude" in given else False
    keepdims = bool_literal(given["keepdims"]) if "keepdims" in given else False
    if exclude is None or keepdims is None or exclude:
        return None
    axis_node = given.get("axis")
    if axis_node is None or (isinstance(axis_node, ast.Constant) and axis_node.value is None) \
            or (isinstance(axis_node, (ast.Tuple, ast.List)) and not axis_node.elts):
        return ("keep1", None) if keepdims else ALL
    axes = int_tuple(axis_node)
    if axes is None or len(set(axes)) != len(axes):
        return None
    if len({a >= 0 for a in axes}) > 1:
        return None  # ``axis=(1, -1)``: which axes is unknown without the rank
    return ("keep1" if keepdims else "drop", frozenset(axes))


def subscript_change(index: ast.AST) -> Optional[tuple]:
    """What a basic index does to the axes: ``t[0]``/``t[:, 2]`` drop axes, ``t[0:1]``/``t[-1:]``
    keep them with length 1, ``t[None]`` inserts one; ``None`` for anything else (a mix, other
    slices, tensors as indices)."""
    parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    ellipsis = [i for i, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is Ellipsis]
    if len(ellipsis) > 1:
        return None
    found: list[tuple[str, int]] = []
    for i, part in enumerate(parts):
        if ellipsis and i == ellipsis[0]:
            continue
        axis = i if not ellipsis or i < ellipsis[0] else i - len(parts)
        if isinstance(part, ast.Slice):
            if part.lower is None and part.upper is None and part.step is None:
                continue
            lower, upper = int_literal(part.lower), int_literal(part.upper)
            if part.step is not None or part.lower is None or lower is None:
                return None
            if (part.upper is None and lower == -1) or (upper is not None and upper - lower == 1
                                                         and (lower >= 0 or upper < 0)):
                found.append(("keep1", axis))
                continue
            return None
        if isinstance(part, ast.Constant) and part.value is None:
            found.append(("insert", axis))
            continue
        if int_literal(part) is not None:
            found.append(("drop", axis))
            continue
        return None
    kinds = {k for k, _ in found}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    axes = frozenset(a for _, a in found)
    if kind == "insert":
        return ("insert", next(iter(axes))) if len(found) == 1 else None
    if kind == "drop" and len({a >= 0 for a in axes}) > 1:
        return None
    return (kind, axes)


def _slice_change(begin: Optional[ast.AST], end: Optional[ast.AST]) -> Optional[tuple]:
    """``F.slice(x, begin=(b0, ..), end=(e0, ..))`` keeping axes with length 1 (``e - b == 1``, or
    ``-1`` to ``None``) and every other axis whole (``None`` to ``None``)."""
    if not isinstance(begin, (ast.Tuple, ast.List)) or not isinstance(end, (ast.Tuple, ast.List)) \
            or len(begin.elts) != len(end.elts):
        return None
    axes = set()
    for axis, (b, e) in enumerate(zip(begin.elts, end.elts)):
        none_b = isinstance(b, ast.Constant) and b.value is None
        none_e = isinstance(e, ast.Constant) and e.value is None
        if none_b and none_e:
            continue
        lo, hi = int_literal(b), int_literal(e)
        if lo is not None and ((none_e and lo == -1) or (hi is not None and hi - lo == 1 and (lo >= 0 or hi < 0))):
            axes.add(axis)
            continue
        return None
    return ("keep1", frozenset(axes)) if axes else None


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """Two operands' shapes differ (``certain``) or may differ; ``reason`` finishes a sentence."""

    certain: bool
    reason: str


def _delta(change: tuple) -> Optional[int]:
    kind = change[0]
    if kind in ("same", "keep1"):
        return 0
    if kind == "drop":
        return -len(change[1])
    if kind == "insert":
        return 1
    return None


def _singleton(change: tuple) -> bool:
    """Does the change make length-1 axes (the broadcasting shapes)?"""
    return change[0] in ("keep1", "insert", "all")


def _same_sign(*axes: Any) -> bool:
    signs = {a >= 0 for group in axes for a in (group if isinstance(group, frozenset) else (group,))}
    return len(signs) <= 1


def _describe(change: tuple, root_text: str) -> str:
    kind = change[0]
    if kind == "keep1":
        if change[1] is None:
            return f"keeps every axis of `{root_text}` with length 1"
        return f"keeps {_axes(change[1])} of `{root_text}` with length 1"
    if kind == "drop":
        return f"removes {_axes(change[1])} of `{root_text}`"
    if kind == "insert":
        return f"inserts a length-1 axis {change[1]} into `{root_text}`"
    if kind == "all":
        return f"reduces `{root_text}` to shape (1,)"
    return f"has the shape of `{root_text}`"


def _axes(axes: Any) -> str:
    items = sorted(axes)
    return ("axis " if len(items) == 1 else "axes ") + ", ".join(map(str, items))


def compare(a: Any, b: Any, text: Any) -> Optional[Verdict]:
    """Do tensors ``a`` and ``b`` (values) have shapes that differ? ``text(value)`` names an
    operand or root in messages. See the module docstring."""
    shared = common(a, b)
    if shared is not None:
        root, ca, cb = shared
        return _related(ca, cb, text(root))
    da, db = a.dims, b.dims
    if da is not None and db is not None and da.rank is not None and db.rank is not None:
        if da.rank != db.rank:
            return Verdict(True, f"`{text(a)}` has {da.rank} axes and `{text(b)}` has {db.rank}")
        if da.ones != db.ones:
            one, other = (a, b) if da.ones - db.ones else (b, a)
            only = one.dims.ones - other.dims.ones
            return Verdict(False, f"`{text(one)}` has length 1 on {_axes(only)} (a broadcasting shape); "
                                  f"`{text(other)}` is not known to")
        return None
    far_a, far_b = ancestors(a)[-1], ancestors(b)[-1]
    for one, other, (root, change), (_, other_change) in ((a, b, far_a, far_b), (b, a, far_b, far_a)):
        has_ones = one.dims is not None and bool(one.dims.ones) and one.dims.rank is not None
        if not (_singleton(change) or has_ones):
            continue
        if change == other_change and change != SAME:
            continue  # ``F.expand_dims(u, 1) * F.expand_dims(v, 1)``: the same kind of shape
        if has_ones and other.dims is not None and other.dims.rank is not None \
                and other.dims.ones >= one.dims.ones:
            continue
        if _singleton(change):
            return Verdict(False, f"`{text(one)}` {_describe(change, text(root))} (a broadcasting shape); "
                                  f"`{text(other)}` is not known to have that shape")
        return Verdict(False, f"`{text(one)}` has length 1 on {_axes(one.dims.ones)} (a broadcasting shape); "
                              f"`{text(other)}` is not known to")
    return None


def _related(ca: tuple, cb: tuple, root: str) -> Optional[Verdict]:
    """Both operands derive from the same tensor ``root``."""
    if ca == cb:
        return None
    if ca == ALL or cb == ALL:
        other = cb if ca == ALL else ca
        if other == SAME or (other[0] == "insert"):
            return Verdict(True, f"one operand reduces `{root}` to shape (1,), the other "
                                 f"{'has its shape' if other == SAME else _describe(other, root)}")
        return None
    da, db = _delta(ca), _delta(cb)
    if da is None or db is None:
        return None
    if da != db:
        parts = [_describe(c, root) for c in (ca, cb) if c != SAME]
        return Verdict(True, "their ranks differ: one operand " + " and the other ".join(parts))
    kinds = {ca[0], cb[0]}
    if kinds == {"drop"}:
        return None  # ``x.sum(axis=0) - x.sum(axis=1)``: equal on square tensors
    if kinds <= {"same", "keep1"}:
        sa = ca[1] if ca[0] == "keep1" else frozenset()
        sb = cb[1] if cb[0] == "keep1" else frozenset()
        if sa is not None and sb is not None and not _same_sign(sa, sb):
            return None
        changed = ca if ca != SAME else cb
        if ca != SAME and cb != SAME:
            return Verdict(True, f"one operand {_describe(ca, root)}, the other {_describe(cb, root)}")
        return Verdict(True, f"one operand has the shape of `{root}`, the other {_describe(changed, root)}")
    if kinds == {"insert"} and _same_sign(ca[1], cb[1]):
        return Verdict(True, f"one operand {_describe(ca, root)}, the other {_describe(cb, root)}")
    return None


def arith_dims(a: Any, b: Any) -> Optional[Dims]:
    """The facts of ``a <op> b`` for two tensors (NDArray's broadcasting result)."""
    shared = common(a, b)
    if shared is not None:
        _, ca, cb = shared
        if ca == cb:
            return keep(a)
        if {ca[0], cb[0]} <= {"same", "keep1", "all"} and SAME in (ca, cb):
            return keep(a if ca == SAME else b)  # broadcast back into the common tensor's shape
    da, db = a.dims, b.dims
    if da is not None and db is not None and da.rank is not None and da.rank == db.rank:
        return Dims(da.rank, da.ones & db.ones, None, None, None, None)
    return None


def call_dims(op: str, data: Any, rest: list[tuple[Optional[str], ast.AST, Any]], node: ast.AST,
              site: Any) -> Optional[Dims]:
    """The facts of ``op(data, *rest)`` (an ``F`` operator or a fluent method of ``data``);
    ``rest``: the other arguments as (keyword or None, expression, value)."""
    if op in SHAPE_KEEPING_OPS or op in DATA_SHAPED_OPS:
        return keep(data) if data is not None and data.kind.name == "TENSOR" else None
    if data is None or data.kind.name != "TENSOR":
        if op in CONSTRUCTORS and rest:
            keyword, expr, _ = rest[0]
            if keyword in (None, "shape") and isinstance(expr, (ast.Tuple, ast.List)) \
                    and not any(isinstance(e, ast.Starred) for e in expr.elts):
                return literal(len(expr.elts), [i for i, e in enumerate(expr.elts) if int_literal(e) == 1],
                               node, site)
        if op == "array" and rest and rest[0][0] in (None, "source_array"):
            lengths = nested_lengths(rest[0][1])
            if lengths:
                return literal(len(lengths), [i for i, n in enumerate(lengths) if n == 1], node, site)
        return None
    if op in ("reshape", "Reshape"):
        shape = None
        positional = [e for k, e, _ in rest if k is None]
        keywords = {k: e for k, e, _ in rest if k is not None}
        if "shape" in keywords:
            shape = int_tuple(keywords["shape"])
        elif len(positional) == 1:
            shape = int_tuple(positional[0])
        elif len(positional) > 1:
            shape = [int_literal(e) for e in positional]
            shape = None if any(c is None for c in shape) else shape
        if shape is None or set(keywords) - {"shape", "reverse"}:
            return None
        return reshape_dims(shape, node, site)
    if op == "expand_dims":
        axis = next((e for k, e, _ in rest if k in (None, "axis")), None)
        at = int_literal(axis)
        return None if at is None or len(rest) != 1 else derive(data, ("insert", at), node, site)
    if op in REDUCTIONS:
        change = reduction_change([(k, e) for k, e, _ in rest])
        return None if change is None else derive(data, change, node, site)
    if op == "squeeze":
        axes = int_tuple(rest[0][1]) if len(rest) == 1 and rest[0][0] in (None, "axis") else None
        if not axes or len(set(axes)) != len(axes) or not _same_sign(frozenset(axes)):
            return None
        return derive(data, ("drop", frozenset(axes)), node, site)
    if op == "slice_axis":
        given = dict(zip(("axis", "begin", "end"), (e for k, e, _ in rest if k is None)))
        given.update({k: e for k, e, _ in rest if k is not None})
        axis, begin, end = (int_literal(given.get(k)) for k in ("axis", "begin", "end"))
        if axis is None or begin is None or end is None or end - begin != 1 or (begin < 0 <= end):
            return None
        return derive(data, ("keep1", frozenset({axis})), node, site)
    if op in ("slice", "crop") and not any(k not in (None, "begin", "end") for k, _, _ in rest):
        given = dict(zip(("begin", "end"), (e for k, e, _ in rest if k is None)))
        given.update({k: e for k, e, _ in rest if k is not None})
        change = _slice_change(given.get("begin"), given.get("end"))
        return None if change is None else derive(data, change, node, site)
    if op in ("reshape_like", "broadcast_like") and len(rest) == 1 and rest[0][0] in (None, "rhs"):
        other = rest[0][2]
        return keep(other) if other is not None and other.kind.name == "TENSOR" else None
    others = [v for k, _, v in rest if k in (None, "rhs")]
    if op in BROADCAST_FUNCTIONS and len(others) == 1:
        other = others[0]
        return arith_dims(data, other) if other is not None and other.kind.name == "TENSOR" else None
    return None


#: ``F.broadcast_*`` binary operators: their result is NDArray arithmetic's.
BROADCAST_FUNCTIONS = frozenset(BROADCAST_OPS.values()) | {"broadcast_maximum", "broadcast_minimum",
                                                            "broadcast_hypot"}

