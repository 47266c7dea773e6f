"""Python values computed from tensor metadata (``x.shape``, ``len(x)``, ``x.dtype``, ...).

The dataflow treats them as static (they are ordinary Python numbers imperatively), but a
conversion (``convert/shapes.py``, HY006) needs to know *which* tensor and axis a number came
from: ``n = x.shape[0]`` then ``x.reshape((n, -1))`` is ``x.reshape((0, -1))``. So a static
:class:`~.values.Value` may carry a :class:`Meta` describing it:

``shape``   ``x.shape`` or a slice ``x.shape[a:b]`` (``start``/``stop``)
``dim``     ``x.shape[i]`` or ``len(x)`` (``index``)
``size``    ``x.size``;  ``ndim``: ``x.ndim`` / ``len(x.shape)``
``dtype``   ``x.dtype``;  ``context``: ``x.context`` / ``x.ctx``
``expr``    arithmetic on such values and literals/static operands (``op``, ``operands``)
``tuple``   a tuple/list display holding such values (``operands``: its items)
``value``   the number ``t.asscalar()`` reads out of a one-element tensor (HY001)

``tensor`` is the abstract tensor *itself* (the very :class:`~.values.Value` object the
interpreter bound): a conversion proves "the tensor reshaped is the tensor measured" by identity,
which holds exactly while no name rebinding intervenes (a rebinding or a join of control-flow
paths makes a new value). Metas compare by identity too, so joining two paths that computed
different metadata drops it. ``ndim`` is set when the code proves the rank (``b, c, h, w =
x.shape`` raises unless ``x`` has four axes). ``function`` is the function span the value was
computed in: conversions only rewrite within one function.

Metas are only made while the interpreter emits (the final pass), and only from certain tensors:
the check-only path pays nothing unless the code reads metadata.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Optional, Union

#: Metadata attributes that make a meta, by kind.
ATTRIBUTE_KINDS = {"shape": "shape", "size": "size", "ndim": "ndim", "dtype": "dtype", "context": "context",
                   "ctx": "context"}
#: Scalar kinds (a Python number).
SCALAR_KINDS = frozenset({"dim", "size", "ndim", "expr"})
#: Binary operators an ``expr`` meta records (``ast`` operator class names).
ARITH_OPS = frozenset({"Add", "Sub", "Mult", "FloorDiv", "Div", "Pow", "Mod"})


@dataclass(frozen=True)
class Static:
    """A static operand next to metadata: a literal (``value`` set) or another static expression
    (``node``: its text is reused where the operand stays in place)."""

    node: ast.AST
    value: Optional[Union[int, float]] = None

    @property
    def literal(self) -> bool:
        return self.value is not None


@dataclass(frozen=True, eq=False)
class Meta:
    """What a static value computed from tensor metadata is (see the module docstring)."""

    kind: str
    node: ast.AST
    function: Any = None
    tensor: Any = None
    index: Optional[int] = None
    start: Optional[int] = None
    stop: Optional[int] = None
    ndim: Optional[int] = None
    op: str = ""
    operands: tuple = ()

    @property
    def scalar(self) -> bool:
        return self.kind in SCALAR_KINDS


Item = Union[Meta, Static]


def literal_number(node: ast.AST) -> Optional[Union[int, float]]:
    """``3``, ``-2``, ``0.5`` written as a literal (not ``True``), else ``None``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = literal_number(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _slice_bound(node: Optional[ast.AST]) -> tuple[bool, Optional[int]]:
    if node is None:
        return True, None
    value = literal_number(node)
    return (type(value) is int), value if type(value) is int else None


def subscript(meta: Meta, index: ast.AST, node: ast.AST) -> Optional[Meta]:
    """``shape[i]`` / ``shape[a:b]`` of a ``shape`` meta (literal indices only)."""
    if meta.kind != "shape":
        return None
    if isinstance(index, ast.Slice):
        if index.step is not None:
            return None
        ok_a, a = _slice_bound(index.lower)
        ok_b, b = _slice_bound(index.upper)
        if not (ok_a and ok_b):
            return None
        if meta.start is not None or meta.stop is not None:
            # a slice of a slice: only from a known non-negative start onwards
            if meta.stop is not None or (meta.start or 0) < 0 or (a is not None and a < 0) or b is not None:
                return None
            return Meta("shape", node, meta.function, meta.tensor, start=(meta.start or 0) + (a or 0),
                        ndim=meta.ndim)
        return Meta("shape", node, meta.function, meta.tensor, start=a, stop=b, ndim=meta.ndim)
    i = literal_number(index)
    if type(i) is not int:
        return None
    if meta.start is not None or meta.stop is not None:
        start = meta.start or 0
        if start < 0 or i < 0 or meta.stop is not None:
            return None
        i += start
    return Meta("dim", node, meta.function, meta.tensor, index=i, ndim=meta.ndim)


def unpacked(meta: Meta, targets: list[ast.expr]) -> Optional[list[Meta]]:
    """The dims bound by ``a, b, c = x.shape`` / ``h, w = x.shape[2:]`` (each meta's ``node`` is
    its target name, so a conversion can tell which binding a later read comes from). Unpacking
    raises unless the lengths agree, so afterwards the rank is known when the slice is open."""
    if meta.kind != "shape" or any(not isinstance(t, ast.Name) for t in targets):
        return None
    count = len(targets)
    start, stop = meta.start or 0, meta.stop
    ndim = meta.ndim
    if stop is None and start >= 0:
        ndim = start + count                  # ``x.shape`` / ``x.shape[2:]``: the rank follows
    elif stop is None and start < 0:
        if -start != count:                   # ``x.shape[-2:]``: the last axes, counted from the end
            return None
    elif start >= 0 and stop >= 0:
        if stop - start != count:             # ``x.shape[:2]``, ``x.shape[1:3]``: the rank stays open
            return None
    else:
        return None
    return [Meta("dim", t, meta.function, meta.tensor, index=start + k, ndim=ndim) for k, t in enumerate(targets)]


def tensors_of(meta: Meta) -> list[Any]:
    """Every tensor a meta depends on (each once, by identity)."""
    out: list[Any] = []
    todo: list[Any] = [meta]
    while todo:
        m = todo.pop()
        if not isinstance(m, Meta):
            continue
        if m.tensor is not None and not any(t is m.tensor for t in out):
            out.append(m.tensor)
        todo.extend(m.operands)
    return out
