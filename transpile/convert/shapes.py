"""HY006: code that computes with a tensor's metadata, rewritten with shape-free ``F`` operators.

Imperatively ``x.shape[0]`` is a Python int; a ``Symbol`` has no shape while the graph is built.
MXNet 1.9.1 has operators that take the shape from the tensor when the graph runs instead. The
analysis tells which tensor and axis every such number came from (``analysis/shapes.py``: the
interpreter's values carry a :class:`~..analysis.shapes.Meta`, the tensor by identity), and each
*use* of the number is rewritten where the rewrite provably computes the same thing:

* a ``reshape`` target -> MXNet's reshape codes, when the reshaped tensor *is* the measured one
  (same abstract value: no rebinding in between): ``x.shape[i]`` at the position that reads axis
  ``i`` is ``0``, ``h * w`` of two consecutive axes ``-3``, ``(g, c // g)`` / ``(c // g, g)`` of
  one axis ``-4, g, -1`` / ``-4, -1, g``, ``x.shape[i:]`` ``-2``; ``(-1, s) + x.shape[1:]`` splits
  axis 0 (``-4, -1, s, -2``). Matched from the left, or from the right with ``reverse=True``
  (``x.reshape((-1, x.shape[-1]))`` -> ``x.reshape((-1, 0), reverse=True)``). MXNet's
  ``InferReshapeShape`` reads each code at a source position; the solver tracks that position
  exactly as it does, so every output dimension equals the imperative value (and a shape that
  does not fit fails in both). ``y.reshape(x.shape)`` of another tensor -> ``F.reshape_like(y, x)``.
* ``F.zeros(shape)`` / ``F.ones(shape)`` sized by one tensor's dimensions (and static numbers,
  products of them), or of a static shape with ``dtype=x.dtype`` / ``ctx=x.context`` -> built from
  that tensor: ``F.sum(x, axis=.., exclude=True)`` keeps the
  wanted axes, ``F.transpose`` orders them, ``F.expand_dims`` + ``F.tile`` add static sizes,
  ``reshape`` ``-3`` merges products, ``F.zeros_like``/``F.ones_like`` sets the values and
  ``F.cast`` the dtype (``float32`` by default, as ``F.zeros``; none for ``dtype=x.dtype``).
* ``t.broadcast_to(x.shape)`` -> ``F.broadcast_like(t, x)``; ``broadcast_to`` to dims of ``x``
  where ``t`` is ``F.expand_dims(u, k)`` -> ``F.broadcast_like(t, x, lhs_axes, rhs_axes)`` on
  the inserted axis (the others provably equal already); ``F.repeat(t, n, axis=k)`` of a
  size-1 axis ``k`` (``t = F.expand_dims(.., axis=k)``) by ``n = x.shape[i]`` -> ``F.broadcast_like``.
* arithmetic of a tensor with such a number (``x / x.shape[1]``, ``F.sum(x) / len(x)``,
  ``q / math.sqrt(d)``) -> ``F.broadcast_*`` with the number as a graph value:
  ``F.slice_axis(F.shape_array(x), axis=0, begin=i, end=i+1)`` (``x.size``: ``F.size_array``),
  computed in float64 exactly as Python computes ints and floats (``+ - * / **``, ``sqrt``), then
  cast to float32 as NDArray's scalar operators cast the Python number to the tensor's dtype.
* ``t.as_in_context(u.context)`` -> ``t`` (a graph runs in one context).

In np-mode code (``npx.set_np()``) the same plan writes MXNet 1.9.1's np interface: reshape codes
renumbered for ``F.npx.reshape`` (``0 -2 -3 -4`` -> ``-2 -4 -5 -6``, ``reverse=True`` kept; NumPy's
``reshape`` has no codes), ``F.npx.reshape_like``, ``F.np.zeros_like``/``ones_like`` (+ ``F.np.tile``)
for constructors, and arithmetic with ``F.npx.shape_array(x)[i]`` through ``F.np.multiply`` etc.
``broadcast_to``/``repeat`` and values read with ``asscalar`` keep the finding there.

A binding ``n = x.shape[0]`` / ``b, c, h, w = x.shape`` is deleted when every read of its names
is inside a rewritten use (or another deleted binding); otherwise it stays with its finding.
Never converted (the finding stays): numbers that leave the graph (printed, compared in an
``if``/``assert``, ``range(n)``, list sizes, passed to helpers or child blocks, scalar operator
parameters), a reshape of a tensor other than the measured one (``y.reshape(x.shape[0], -1)``:
no code reads another tensor's axis), ``t.astype(x.dtype)`` (MXNet 1.9.1 has no cast-like
operator), metadata of values that are not certainly one tensor, code in other functions.

Applicability (as ruff): safe when the rewrite computes the same in every case MXNet can
hybridize. Unsafe when it relies on something imperative code does not guarantee: arithmetic
assumes the tensor is float32 (another dtype fails when the graph is built, never silently); a
constructor without ``ctx=x.context`` now creates the array on ``x``'s context instead of the
default one; a static reshape value moved to another source position (or into ``-4``) assumes
it is a positive int; ``as_in_context`` no longer copies imperatively. Zero-size dimensions are
out of scope: in MXNet 1.9.1's (legacy) shape semantics 0 means "unknown", so no hybridized graph
has them.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from ..analysis.events import Event
from ..analysis.shapes import Meta, Static, literal_number
from ..analysis.values import Kind, Value
from ..diagnostics import Applicability, Edit, Fix, Location
from .indexing import f_name, writes_in_place

_BROADCAST = {"Add": "broadcast_add", "Sub": "broadcast_sub", "Mult": "broadcast_mul", "Div": "broadcast_div",
              "Pow": "broadcast_power"}
_PY_OPS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "Pow": "**"}
#: np mode: the broadcasting ``F.np`` functions of those operators
_NP_ARITH = {"Add": "add", "Sub": "subtract", "Mult": "multiply", "Div": "true_divide", "Pow": "power"}
#: MXNet's legacy reshape codes -> ``npx.reshape``'s (copy one, copy the rest, merge two, split one)
_NPX_CODES = {"0": "-2", "-2": "-4", "-3": "-5", "-4": "-6"}
#: ``F`` operators (and tensor methods) whose output has the shape of their first (data) input
SHAPE_KEEPING_ONE_INPUT = frozenset({
    "relu", "sigmoid", "tanh", "exp", "expm1", "log", "log1p", "log2", "log10", "abs", "sqrt", "rsqrt", "cbrt",
    "square", "negative", "reciprocal", "sign", "softsign", "clip", "round", "rint", "fix", "floor", "ceil", "trunc",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
    "erf", "erfinv", "gamma", "gammaln", "hard_sigmoid", "Activation", "softmax", "log_softmax", "softmin",
    "BlockGrad", "stop_gradient", "identity", "zeros_like", "ones_like", "cast", "astype", "Cast", "Dropout",
    "mish", "L2Normalization", "LRN",
})
#: ... and those with parameter inputs besides the data (their output still has the data's shape)
SHAPE_KEEPING = SHAPE_KEEPING_ONE_INPUT | frozenset({"LeakyReLU", "BatchNorm", "LayerNorm", "InstanceNorm",
                                                      "GroupNorm"})
#: metadata kinds a read produces (``len(x)`` is a ``dim`` read on a Call)
_READ_KINDS = frozenset({"shape", "size", "ndim", "dtype", "context", "dim", "value"})


class _Refuse(Exception):
    """A use that cannot be shown equivalent: the finding stays."""


@dataclass
class _Rewrite:
    """One rewritten use: the expression ``node`` becomes ``text``."""

    node: ast.AST
    text: str
    what: str
    unsafe: list[str] = field(default_factory=list)
    #: may change the results (``Fix.changes_results``): a view becomes a copy where tensors are
    #: written in place
    changes: bool = False


# ---------------------------------------------------------------------------------------------
# atoms of a shape target
@dataclass(frozen=True)
class _Lit:
    value: int


@dataclass(frozen=True)
class _Stat:
    text: str
    in_place: bool


@dataclass(frozen=True)
class _Dim:
    tensor: Any
    index: int


@dataclass(frozen=True)
class _Prod:
    first: int
    second: int


@dataclass(frozen=True)
class _Div:
    index: int
    by: int


@dataclass(frozen=True)
class _Tail:
    start: int


_Atom = Union[_Lit, _Stat, _Dim, _Prod, _Div, _Tail]


class _Plan:
    """Every metadata read of one function, the uses it flows into and what converts."""

    def __init__(self, event: Event) -> None:
        self.site = event.site
        self.span = event.site.function
        self.fn = self.span.node
        self.values = event.values or {}
        self.uses = event.extra.get("uses") or {}
        self.F = f_name(self.site)
        #: np-mode code: ``F.npx.reshape`` codes, ``F.npx.shape_array`` numbers (see the module doc)
        self.np = event.site.np_mode
        self.parents: dict[int, ast.AST] = {}
        for parent in ast.walk(self.fn):
            for child in ast.iter_child_nodes(parent):
                self.parents[id(child)] = parent
        self.rewrites: dict[int, _Rewrite] = {}
        self._rooting: set[int] = set()
        self.refused: set[int] = set()
        self.substitute = False
        self._analyse()

    # -- values -----------------------------------------------------------------------------------
    def value(self, node: ast.AST) -> Optional[Value]:
        hit = self.values.get(id(node))
        return hit[1] if hit is not None and hit[0] is node else None

    def meta(self, node: ast.AST) -> Optional[Meta]:
        value = self.value(node)
        return value.meta if value is not None and value.kind is Kind.STATIC else None

    def is_tensor(self, node: ast.AST) -> bool:
        value = self.value(node)
        return value is not None and value.kind is Kind.TENSOR

    def root(self, tensor: Any) -> Any:
        """The tensor whose shape ``tensor`` provably has: followed back through operators that
        keep their input's shape (``F.relu(x)``, ``x * 2``, ``F.Dropout(x)``, ...), from the
        analysis' origins and the values of their arguments. A loop-carried value
        (``acc = acc + row`` in a loop) reaches itself: the walk stops there."""
        if id(tensor) in self._rooting:
            return tensor
        self._rooting.add(id(tensor))
        try:
            return self._root(tensor)
        finally:
            self._rooting.discard(id(tensor))

    def _root(self, tensor: Any) -> Any:
        seen = 0
        while tensor is not None and seen < 64:
            seen += 1
            origin = getattr(tensor, "origin", None)
            node = origin.node if origin is not None else None
            source = self._shape_source(node)
            if source is None:
                return tensor
            nxt = self.value(source)
            if nxt is None or nxt.kind is not Kind.TENSOR:
                return tensor
            tensor = nxt
        return tensor

    def _shape_source(self, node: Any) -> Optional[ast.AST]:
        """The tensor argument whose shape the result of ``node`` has, if that is certain."""
        if isinstance(node, ast.BinOp) and type(node.op).__name__ in _PY_OPS:
            left, right = self.value(node.left), self.value(node.right)
            if left is not None and left.kind is Kind.TENSOR and right is not None and right.kind is Kind.STATIC:
                return node.left
            if right is not None and right.kind is Kind.TENSOR and left is not None and left.kind is Kind.STATIC:
                return node.right
            if left is not None and right is not None and left.kind is Kind.TENSOR and right.kind is Kind.TENSOR \
                    and self.root(left) is self.root(right):
                return node.left  # two tensors of one shape: broadcasting keeps it
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return node.operand
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return None
        func = node.func
        if func.attr not in SHAPE_KEEPING or any(k.arg is None for k in node.keywords) \
                or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        if isinstance(func.value, ast.Name) and func.value.id == self.F:
            tensors = [a for a in node.args if self.is_tensor(a)]
            if not node.args or tensors[:1] != [node.args[0]]:
                return None
            if func.attr in SHAPE_KEEPING_ONE_INPUT and len(tensors) != 1:
                return None
            return node.args[0]
        if self.is_tensor(func.value) and not any(self.is_tensor(a) for a in node.args) \
                and func.attr in SHAPE_KEEPING_ONE_INPUT:
            return func.value
        return None

    def text(self, node: ast.AST) -> str:
        """The source of ``node``; once the rewrites are known, with those inside it applied."""
        source = self.site.source(node)
        if not self.substitute:
            return source
        own = self.rewrites.get(id(node))
        if own is not None and own.node is node:
            return own.text
        row, col, _, _ = self.site.span(node)
        lines = self.site.lines

        def offset(r: int, c: int) -> int:
            if r == row:
                return c - col
            return len(lines[row - 1]) - (col - 1) + sum(len(lines[k]) for k in range(row, r - 1)) + c - 1

        inner = [rw for rw in self.rewrites.values() if rw.node is not node and self.inside(rw.node, node)]
        inner = [rw for rw in inner if not any(o is not rw and self.inside(rw.node, o.node) for o in inner)]
        for rw in sorted(inner, key=lambda rw: self.site.span(rw.node), reverse=True):
            r0, c0, r1, c1 = self.site.span(rw.node)
            source = source[:offset(r0, c0)] + rw.text + source[offset(r1, c1):]
        return source

    def inside(self, node: ast.AST, outer: ast.AST) -> bool:
        a, b = self.site.span(node), self.site.span(outer)
        return (b[0], b[1]) <= (a[0], a[1]) and (a[2], a[3]) <= (b[2], b[3])

    # -- where a value computed from metadata goes ---------------------------------------------------
    def top(self, node: ast.AST) -> ast.AST:
        """The largest expression around ``node`` that is still a metadata value."""
        while True:
            parent = self.parents.get(id(node))
            if not isinstance(parent, ast.expr) or self.meta(parent) is None:
                return node
            node = parent

    def context(self, top: ast.AST) -> Optional[tuple[str, ast.AST]]:
        """("bind", statement) or ("use", call or arithmetic) for a maximal metadata expression."""
        parent = self.parents.get(id(top))
        if isinstance(parent, ast.Assign) and parent.value is top and len(parent.targets) == 1:
            target = parent.targets[0]
            if isinstance(target, ast.Name) or (isinstance(target, (ast.Tuple, ast.List))
                                                and all(isinstance(e, ast.Name) for e in target.elts)):
                return "bind", parent
            return None
        if isinstance(parent, ast.keyword):
            parent = self.parents.get(id(parent))
            return ("use", parent) if isinstance(parent, ast.Call) else None
        if isinstance(parent, ast.Call) and top in parent.args:
            return "use", parent
        if isinstance(parent, ast.BinOp):
            return "use", parent
        return None

    def metas_ok(self, meta: Any) -> bool:
        """Every meta inside ``meta`` was computed in this function."""
        todo = [meta]
        while todo:
            m = todo.pop()
            if isinstance(m, Meta):
                if m.function is not self.span:
                    return False
                todo.extend(m.operands)
        return True

    # -- the plan -------------------------------------------------------------------------------
    def _analyse(self) -> None:
        reads: list[ast.AST] = []
        bindings: dict[int, ast.Assign] = {}
        for node in ast.walk(self.fn):
            meta = self.meta(node)
            if meta is not None and meta.node is node and meta.kind in _READ_KINDS and meta.tensor is not None \
                    and (meta.kind != "dim" or isinstance(node, ast.Call)):
                reads.append(node)
        self.read_context: dict[int, Optional[tuple[str, ast.AST]]] = {}
        todo = list(reads)
        seen_bind: set[int] = set()
        while todo:
            node = todo.pop()
            ctx = self.context(self.top(node))
            self.read_context[id(node)] = ctx
            if ctx is None:
                continue
            kind, where = ctx
            if kind == "use":
                self.rewrite(where)
            elif id(where) not in seen_bind:
                seen_bind.add(id(where))
                bindings[id(where)] = where  # type: ignore[assignment]
        # every binding's loads, transitively (a binding read by another binding)
        self.loads: dict[int, list[tuple[ast.Name, Optional[tuple[str, ast.AST]]]]] = {}
        pending = list(bindings.values())
        while pending:
            stmt = pending.pop()
            loads = []
            for load in self._loads_of(stmt):
                if load is None:
                    loads.append((None, None))
                    continue
                ctx = self.context(self.top(load))
                loads.append((load, ctx))
                if ctx is not None and ctx[0] == "use":
                    self.rewrite(ctx[1])
                elif ctx is not None and id(ctx[1]) not in bindings:
                    bindings[id(ctx[1])] = ctx[1]  # type: ignore[assignment]
                    pending.append(ctx[1])  # type: ignore[arg-type]
            self.loads[id(stmt)] = loads
        # nested rewrites (``y * s - s``): the outer one is rendered again with the inner ones'
        # texts in place of their source, innermost first
        nested = [rw for rw in self.rewrites.values()
                  if any(other is not rw and self.inside(other.node, rw.node) for other in self.rewrites.values())]
        nested.sort(key=lambda rw: len(self.site.source(rw.node)))
        self.substitute = True
        for rw in nested:
            again = self._rewrite(rw.node)
            if again is None:  # pragma: no cover - the same inputs gave a rewrite before
                del self.rewrites[id(rw.node)]
            else:
                self.rewrites[id(rw.node)] = again
        # bindings: removable when every read of their names ends in a rewrite or a removable binding
        removable = {k for k, stmt in bindings.items() if self._deletable(stmt)}
        changed = True
        while changed:
            changed = False
            for key in list(removable):
                for load, ctx in self.loads.get(key, []):
                    ok = ctx is not None and (
                        (ctx[0] == "use" and id(ctx[1]) in self.rewrites)
                        or (ctx[0] == "bind" and id(ctx[1]) in removable and id(ctx[1]) != key))
                    if not ok:
                        removable.discard(key)
                        changed = True
                        break
        self.bindings = bindings
        self.removable = removable
        # components: uses and bindings linked by reads and loads
        self._parent: dict[int, int] = {}
        for node in reads:
            ctx = self.read_context.get(id(node))
            if ctx is not None:
                self._union(id(node), id(ctx[1]))
        for key in removable:
            for load, ctx in self.loads.get(key, []):
                if ctx is not None:
                    self._union(key, id(ctx[1]))
        for rw in self.rewrites.values():  # an outer rewrite's text holds the inner one
            for other in self.rewrites.values():
                if other is not rw and self.inside(other.node, rw.node):
                    self._union(id(other.node), id(rw.node))
        self.reads = reads

    def _find(self, key: int) -> int:
        while self._parent.get(key, key) != key:
            key = self._parent[key]
        return key

    def _union(self, a: int, b: int) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self._parent[ra] = rb

    def _loads_of(self, stmt: ast.Assign) -> list[Optional[ast.Name]]:
        """Every read of the names ``stmt`` binds that sees this binding (``None`` for a read
        that sees something else or that the analysis did not reach: the binding must stay)."""
        target = stmt.targets[0]
        names = [target] if isinstance(target, ast.Name) else list(target.elts)  # type: ignore[attr-defined]
        ids = {n.id for n in names}  # type: ignore[attr-defined]
        bound = self.meta(stmt.value)
        out: list[Optional[ast.Name]] = []
        for node in ast.walk(self.fn):
            if isinstance(node, (ast.Global, ast.Nonlocal)) and ids & set(node.names):
                return [None]
            if not isinstance(node, ast.Name) or node.id not in ids:
                continue
            if isinstance(node.ctx, ast.Del):
                return [None]
            if not isinstance(node.ctx, ast.Load):
                continue
            meta = self.meta(node)
            if meta is None:
                out.append(None)
            elif (isinstance(target, ast.Name) and meta is bound) or any(meta.node is n for n in names):
                out.append(node)
            else:
                out.append(None)
        return out

    def _deletable(self, stmt: ast.Assign) -> bool:
        row, col, end_row, end_col = self.site.span(stmt)
        lines = self.site.lines
        before = lines[row - 1][:col - 1]
        after = lines[end_row - 1][end_col - 1:].strip()
        return not before.strip() and (not after or after.startswith("#"))

    # -- fixes -----------------------------------------------------------------------------------
    def fix_for(self, read: ast.AST, with_edits: bool) -> Optional[Fix]:
        ctx = self.read_context.get(id(read))
        if ctx is None:
            return None
        kind, where = ctx
        if (kind == "use" and id(where) not in self.rewrites) or (kind == "bind" and id(where) not in self.removable):
            return None
        root = self._find(id(where))
        uses = [rw for key, rw in self.rewrites.items() if self._find(key) == root]
        # a rewrite inside another is part of the outer one's text
        uses = [rw for rw in uses if not any(o is not rw and self.inside(rw.node, o.node) for o in uses)]
        deleted = [self.bindings[k] for k in self.removable if self._find(k) == root]
        unsafe = sorted({reason for rw in uses for reason in rw.unsafe})
        whats = sorted({rw.what for rw in uses})
        message = "Compute without Python shapes" + (f" ({', '.join(whats)})" if whats else "")
        if deleted:
            message += "; drop the shape bindings"
        if unsafe:
            message += " (unsafe: " + "; ".join(unsafe) + ")"
        applicability = Applicability.UNSAFE if unsafe else Applicability.SAFE
        changes = any(rw.changes for rw in uses)
        if not with_edits:
            return Fix(message, (), applicability, changes)
        edits = []
        for rw in uses:
            row, col, end_row, end_col = self.site.span(rw.node)
            edits.append(Edit(Location(row, col), Location(end_row, end_col), rw.text))
        for stmt in deleted:
            edits.append(self._delete(stmt))
        return Fix(message, tuple(sorted(edits, key=lambda e: (e.start, e.end))), applicability, changes)

    def _delete(self, stmt: ast.Assign) -> Edit:
        """Drop the statement's lines; ``pass`` when every statement of its block goes (the first
        one of the block becomes ``pass``, so deletions applied in different rounds agree)."""
        row, col, end_row, end_col = self.site.span(stmt)
        block = self._block_of(stmt)
        if block and all(isinstance(s, ast.Assign) and id(s) in self.removable for s in block) and block[0] is stmt:
            line = self.site.lines[end_row - 1]
            return Edit(Location(row, col), Location(end_row, len(line.rstrip("\r\n")) + 1), "pass")
        return Edit(Location(row, 1), Location(end_row + 1, 1), "")

    def _block_of(self, stmt: ast.stmt) -> list[ast.stmt]:
        parent = self.parents.get(id(stmt), self.fn)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                return block
        return []

    # -- rewriting one use -------------------------------------------------------------------------
    def rewrite(self, node: ast.AST) -> None:
        if id(node) in self.rewrites or id(node) in self.refused:
            return
        try:
            rw = self._rewrite(node)
        except _Refuse:
            rw = None
        if rw is None:
            self.refused.add(id(node))
        else:
            self.rewrites[id(node)] = rw

    def _rewrite(self, node: ast.AST) -> Optional[_Rewrite]:
        snapshot = self.uses.get(id(node))
        self.env = snapshot[1] if snapshot is not None and snapshot[0] is node else None
        if isinstance(node, ast.BinOp):
            return self._arith(node)
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        if not isinstance(func, ast.Attribute):
            return None
        if self.np:
            return self._np_rewrite(node, func)
        if isinstance(func.value, ast.Name) and func.value.id == self.F and self.F is not None:
            op = func.attr
            if op in ("reshape", "Reshape"):
                return self._reshape(node, self._arg(node, 0, "data"), self._arg(node, 1, "shape"), ("data", "shape"))
            if op in ("zeros", "ones"):
                return self._constructor(node, op)
            if op == "broadcast_to":
                return self._broadcast_to(node, self._arg(node, 0, "data"), self._arg(node, 1, "shape"), ("data", "shape"))
            if op == "repeat":
                return self._repeat(node, self._arg(node, 0, "data"), self._arg(node, 1, "repeats"),
                                    self._arg(node, 2, "axis"), ("data", "repeats", "axis"))
            return None
        if not self.is_tensor(func.value):
            return None
        method = func.attr
        if method == "reshape":
            if len(node.args) > 1 and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
                return self._reshape(node, func.value, node.args, (), positional=True)
            return self._reshape(node, func.value, self._arg(node, 0, "shape"), ("shape",))
        if method == "broadcast_to":
            return self._broadcast_to(node, func.value, self._arg(node, 0, "shape"), ("shape",))
        if method == "repeat":
            return self._repeat(node, func.value, self._arg(node, 0, "repeats"), self._arg(node, 1, "axis"),
                                ("repeats", "axis"))
        if method in ("as_in_context", "as_in_ctx") and len(node.args) == 1 and not node.keywords:
            meta = self.meta(node.args[0])
            if meta is not None and meta.kind == "context" and self.metas_ok(meta):
                return _Rewrite(node, self.text(func.value), "no context copy",
                                ["imperatively the array is no longer copied to the other context"])
        return None

    def _np_rewrite(self, node: ast.Call, func: ast.Attribute) -> Optional[_Rewrite]:
        """np mode: ``t.reshape(..)`` / ``F.np.reshape(t, ..)`` (NumPy's, no codes) ->
        ``F.npx.reshape`` codes or ``F.npx.reshape_like``. Constructors, ``broadcast_to`` and
        ``repeat`` keep the finding: ``mx.np``/``mx.npx`` 1.9.1 have no ``broadcast_like`` and
        ``zeros_like`` takes no shape of other axes."""
        if isinstance(func.value, ast.Attribute) and isinstance(func.value.value, ast.Name) \
                and func.value.value.id == self.F and func.value.attr == "np":
            if func.attr == "reshape":
                return self._reshape(node, self._arg(node, 0, "a"), self._arg(node, 1, "newshape"), ("a", "newshape"))
            if func.attr in ("zeros", "ones"):
                return self._np_constructor(node, func.attr)
            return None
        if not self.is_tensor(func.value):
            return None
        if func.attr == "reshape":
            if len(node.args) > 1 and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
                return self._reshape(node, func.value, node.args, (), positional=True)
            return self._reshape(node, func.value, self._arg(node, 0, "shape"), ("shape",))
        return None

    def _arg(self, call: ast.Call, position: int, keyword: str) -> Optional[ast.AST]:
        if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            return call.args[position]
        for kw in call.keywords:
            if kw.arg == keyword:
                return kw.value
        return None

    def _only(self, call: ast.Call, allowed: tuple[str, ...], extra: tuple[str, ...] = ()) -> None:
        """Refuse calls with arguments other than ``allowed`` (positional in that order) and ``extra``."""
        if len(call.args) > len(allowed) or any(isinstance(a, ast.Starred) for a in call.args):
            raise _Refuse
        for kw in call.keywords:
            if kw.arg is None or (kw.arg not in allowed[len(call.args):] and kw.arg not in extra):
                raise _Refuse

    def tensor_name(self, tensor: Any) -> str:
        """A name bound to ``tensor`` where the use is (the analysis' bindings there)."""
        env = self.env
        if env is None:
            raise _Refuse
        names = sorted(n for n, v in env.items() if v is tensor and n.isidentifier())
        if not names:
            raise _Refuse
        return names[0]

    def static_text(self, item: Static, use: ast.AST) -> tuple[str, bool]:
        """(text, in place) of a static operand; one moved from elsewhere must be a literal or a
        ``self.`` attribute (its value cannot have changed in between)."""
        in_place = self.inside(item.node, use)
        if item.literal:
            return repr(item.value), in_place
        if not in_place:
            value = self.value(item.node)
            if value is None or value.kind is not Kind.STATIC or not value.qual.startswith("self.") \
                    or not _attribute_chain(item.node):
                raise _Refuse
        return self.text(item.node), in_place

    # -- items of a shape argument ---------------------------------------------------------------
    def items(self, node: Optional[ast.AST]) -> list:
        if node is None:
            raise _Refuse
        meta = self.meta(node)
        if meta is None:
            raise _Refuse
        if not self.metas_ok(meta):
            raise _Refuse
        if meta.kind == "tuple":
            return list(meta.operands)
        if meta.kind == "shape" or meta.scalar:
            return [meta]
        raise _Refuse

    def atoms(self, items: list, data: Any, use: ast.AST) -> tuple[list[_Atom], Optional[int]]:
        """``items`` as reshape atoms relative to the tensor ``data`` (and its rank, if proven)."""
        root = self.root(data)
        ndim = None
        for item in items:
            for m in _walk(item):
                if m.tensor is not None and self.root(m.tensor) is root and m.ndim is not None:
                    ndim = m.ndim
        out: list[_Atom] = []

        def dim_index(m: Meta) -> int:
            if m.kind != "dim" or self.root(m.tensor) is not root:
                raise _Refuse
            i = m.index
            return i + ndim if (i is not None and i < 0 and ndim is not None) else i

        for item in items:
            if isinstance(item, Static):
                if item.literal:
                    if type(item.value) is not int:
                        raise _Refuse
                    out.append(_Lit(item.value))
                else:
                    text, in_place = self.static_text(item, use)
                    out.append(_Stat(text, in_place))
            elif item.kind == "dim":
                out.append(_Dim(data, dim_index(item)))
            elif item.kind == "expr" and item.op == "Mult" and all(isinstance(o, Meta) for o in item.operands):
                out.append(_Prod(dim_index(item.operands[0]), dim_index(item.operands[1])))
            elif item.kind == "expr" and item.op == "FloorDiv" and isinstance(item.operands[0], Meta) \
                    and isinstance(item.operands[1], Static) and type(item.operands[1].value) is int \
                    and item.operands[1].value > 0:
                out.append(_Div(dim_index(item.operands[0]), item.operands[1].value))
            elif item.kind == "shape":
                if self.root(item.tensor) is not root:
                    raise _Refuse
                start = item.start or 0
                stop = item.stop
                if start < 0 and ndim is not None:
                    start += ndim
                if stop is not None and stop < 0 and ndim is not None:
                    stop += ndim
                if stop is None and ndim is not None:
                    stop = ndim
                if stop is None and start >= 0:
                    out.append(_Tail(start))
                elif stop is None:
                    out.extend(_Dim(data, i) for i in range(start, 0))
                elif start >= 0 and stop >= 0:
                    out.extend(_Dim(data, i) for i in range(start, stop))
                else:
                    raise _Refuse
            else:
                raise _Refuse
        return out, ndim

    # -- reshape --------------------------------------------------------------------------------
    def _reshape(self, call: ast.Call, data: Optional[ast.AST], shape: Any, allowed: tuple[str, ...],
                 positional: bool = False) -> Optional[_Rewrite]:
        if data is None or not self.is_tensor(data):
            return None
        if positional:
            items = []
            for arg in shape:
                meta = self.meta(arg)
                if meta is not None:
                    if not meta.scalar or not self.metas_ok(meta):
                        raise _Refuse
                    items.append(meta)
                else:
                    items.append(Static(arg, literal_number(arg)))
        else:
            self._only(call, allowed, () if self.np else ("reverse",))
            for kw in call.keywords:
                if kw.arg == "reverse" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    raise _Refuse
            items = self.items(shape)
        tensor = self.value(data)
        method = not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                      and call.func.value.id == self.F)
        solved = _solve_reshape(*self.atoms(items, tensor, call)) if all(
            not isinstance(i, Meta) or all(m.tensor is None or self.root(m.tensor) is self.root(tensor) for m in _walk(i))
            for i in items) \
            else None
        if solved is None:
            # ``y.reshape(x.shape)``, ``y.reshape(x.shape[:2] + y.shape[1:])``: axes of another tensor
            return self._reshape_like(call, data, items)
        codes, reverse, unsafe = solved
        if self.np:  # the same codes renumbered (MXNet's npx.reshape: -2 copy, -4 rest, -5 merge, -6 split)
            codes = [_NPX_CODES.get(c, c) for c in codes]
            text = f"{self.F}.npx.reshape({self.text(data)}, {_tuple(codes)}{', reverse=True' if reverse else ''})"
            rewrite = _Rewrite(call, text, "`npx.reshape` codes", list(unsafe))
            if writes_in_place(self.site):  # ``npx.reshape`` copies; NumPy's reshape was a view
                rewrite.unsafe.append("the reshaped view becomes a copy while tensors are written in place")
                rewrite.changes = True
            return rewrite
        shape_text = _tuple(codes) + (", reverse=True" if reverse else "")
        if method:
            text = f"{self.text(data)}.reshape({shape_text})"
        else:
            assert isinstance(call.func, ast.Attribute)
            text = f"{self.F}.{call.func.attr}({self.text(data)}, shape={shape_text})"
        return _Rewrite(call, text, "reshape codes", unsafe)

    def _reshape_like(self, call: ast.Call, data: ast.AST, items: list) -> Optional[_Rewrite]:
        """``data`` reshaped to (its leading axes) + (a range of another tensor's axes) + (its
        trailing axes): ``F.reshape_like(data, x, lhs_begin, lhs_end, rhs_begin, rhs_end)``, which
        computes exactly that shape (and checks the size as reshape does)."""
        F = self.F
        if F is None:
            return None
        tensor = self.value(data)
        root = self.root(tensor)
        y_ndim = next((m.ndim for i in items for m in _walk(i) if m.tensor is not None
                       and self.root(m.tensor) is root and m.ndim is not None), None)
        parts: list[tuple] = []  # ("y", start, stop) / ("x", tensor, start, stop): runs of axes
        for item in items:
            if not isinstance(item, Meta) or item.kind not in ("dim", "shape") or item.tensor is None:
                return None
            mine = self.root(item.tensor) is root
            if item.kind == "dim":
                start, stop = item.index, (None if item.index == -1 else item.index + 1)
            else:
                start, stop = item.start or 0, item.stop
            if mine and y_ndim is not None:
                start, stop = _norm(start, y_ndim), (None if stop is None else _norm(stop, y_ndim))
            last = parts[-1] if parts else None
            key = ("y",) if mine else ("x", item.tensor)
            if last is not None and last[:-2] == key and last[-1] is not None and last[-1] == start \
                    and (start >= 0) == (last[-2] >= 0):
                parts[-1] = key + (last[-2], stop)
            else:
                parts.append(key + (start, stop))
        lead = parts[0] if parts and parts[0][0] == "y" else None
        if lead is not None and lead[1] != 0:
            return None
        rest = parts[1:] if lead is not None else parts
        if not rest or rest[0][0] != "x":
            return None
        middle, tail = rest[0], rest[1:]
        if len(tail) > 1 or (tail and tail[0][0] != "y") or (tail and tail[0][2] is not None
                                                            and not (y_ndim is not None and tail[0][2] == y_ndim)):
            return None
        lhs_begin = lead[2] if lead is not None else 0
        lhs_end = tail[0][1] if tail else None
        if lhs_begin is None or (lhs_end is not None and lhs_end < 0 <= lhs_begin and y_ndim is None):
            return None
        x = self.tensor_name(middle[1])
        args = []
        if lhs_begin:
            args.append(f"lhs_begin={lhs_begin}")
        if lhs_end is not None:
            args.append(f"lhs_end={lhs_end}")
        if middle[2]:
            args.append(f"rhs_begin={middle[2]}")
        if middle[3] is not None:
            args.append(f"rhs_end={middle[3]}")
        extra = "".join(", " + a for a in args)
        rewrite = _Rewrite(call, f"{F}{'.npx' if self.np else ''}.reshape_like({self.text(data)}, {x}{extra})",
                           "`reshape_like`")
        method = not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                      and call.func.value.id == F)
        if (method or self.np) and writes_in_place(self.site):
            # ``y.reshape(..)`` is a view of ``y`` (MXNDArrayReshape); ``reshape_like`` a new array:
            # an in-place write through either would no longer reach the other (found by
            # tests/convert/test_differential.py)
            rewrite.unsafe.append("the reshaped view becomes a copy while tensors are written in place")
            rewrite.changes = True
        return rewrite

    # -- constructors -------------------------------------------------------------------------------
    def _constructor(self, call: ast.Call, op: str) -> Optional[_Rewrite]:
        F = self.F
        self._only(call, ("shape",), ("dtype", "ctx"))
        shape = self._arg(call, 0, "shape")
        if shape is not None and self.meta(shape) is None:
            # a static shape; the tensor is in ``dtype=x.dtype`` / ``ctx=x.context``
            elements = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape]
            items = [Static(e, literal_number(e)) for e in elements]
            if any(isinstance(e, ast.Starred) or self.value(e) is None or self.value(e).kind is not Kind.STATIC
                   for e in elements) or (
                    not isinstance(shape, (ast.Tuple, ast.List)) and not items[0].literal):
                raise _Refuse  # ``F.zeros(self.shape)``: may be a tuple itself
            tensor = _one_tensor([self.meta(kw.value) for kw in call.keywords if self.meta(kw.value) is not None])
        else:
            items = self.items(shape)
            tensor = _one_tensor(items)
        x = self.tensor_name(tensor)
        unsafe = []
        cast: Optional[str] = "'float32'"
        for kw in call.keywords:
            if kw.arg == "dtype":
                meta = self.meta(kw.value)
                if meta is not None and meta.kind == "dtype" and meta.tensor is tensor and self.metas_ok(meta):
                    cast = None
                elif isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    cast = repr(kw.value.value)
                else:
                    raise _Refuse
            elif kw.arg == "ctx":
                meta = self.meta(kw.value)
                if meta is None or meta.kind != "context" or meta.tensor is not tensor or not self.metas_ok(meta):
                    raise _Refuse
        if not any(kw.arg == "ctx" for kw in call.keywords):
            unsafe.append(f"the array is created on `{x}`'s context, not the default one")
        ndim = next((m.ndim for item in items for m in _walk(item) if m.ndim is not None), None)
        full = _whole_shape(items)
        factors: list[list[tuple[str, Any]]] = []  # per item: ("dim", axis) / ("static", text)
        for item in ([] if full else items):
            if isinstance(item, Meta) and item.kind == "shape":
                factors.extend([("dim", axis)] for axis in _slice_axes(item, ndim))
            else:
                factors.append(self._factors(item, call, ndim))
        flat = [f for item in factors for f in item]
        dims = [f[1] for f in flat if f[0] == "dim"]
        if not full and (len(set(dims)) != len(dims) or not flat):
            raise _Refuse
        if any(d < 0 for d in dims) and any(d >= 0 for d in dims):
            raise _Refuse  # their order is unknown without the rank
        like = "zeros_like" if op == "zeros" else "ones_like"
        whole = full or (ndim is not None and flat == [("dim", i) for i in range(ndim)]
                         and all(len(item) == 1 for item in factors))
        if whole:
            expr = x
        elif not dims:
            expr = f"{F}.reshape({F}.sum({x}), shape={_tuple(['1'] * len(flat))})"
            expr = f"{F}.tile({expr}, reps={_tuple([f[1] for f in flat])})"
        else:
            axes = sorted(dims)
            expr = x if ndim is not None and len(axes) == ndim else \
                f"{F}.sum({x}, axis={_tuple([str(a) for a in axes])}, exclude=True)"
            order = [axes.index(d) for d in dims]
            if order != sorted(order):
                expr = f"{F}.transpose({expr}, axes={_tuple([str(o) for o in order])})"
            statics = [k for k, f in enumerate(flat) if f[0] == "static"]
            for k in statics:
                expr = f"{F}.expand_dims({expr}, axis={k})"
            if statics:
                reps = [f[1] if f[0] == "static" else "1" for f in flat]
                expr = f"{F}.tile({expr}, reps={_tuple(reps)})"
            counts = [len(item) for item in factors]
            while any(c > 1 for c in counts):
                codes = ["-3" if c > 1 else "0" for c in counts]
                expr = f"{F}.reshape({expr}, shape={_tuple(codes)})"
                counts = [c - 1 if c > 1 else c for c in counts]
        expr = f"{F}.{like}({expr})"
        if cast is not None:
            expr = f"{F}.cast({expr}, dtype={cast})"
        return _Rewrite(call, expr, f"`{like}`", unsafe)

    def _np_constructor(self, call: ast.Call, op: str) -> Optional[_Rewrite]:
        """np mode: ``F.np.zeros(x.shape)`` -> ``F.np.zeros_like(x, dtype='float32')``; a shape of one
        dimension of ``x`` and static sizes (``(x.shape[0], self.units)``) -> that axis of ``x`` as a
        vector (``F.np.swapaxes`` to the front, ``F.npx.reshape(.., (-2, -1))[:, 0]``), reshaped to its
        position, ``*_like``, ``F.np.tile`` by the static sizes. ``dtype``: MXNet's np default float32,
        ``dtype=x.dtype`` keeps ``x``'s."""
        F = self.F
        self._only(call, ("shape",), ("dtype", "ctx"))
        items = self.items(self._arg(call, 0, "shape"))
        tensor = _one_tensor(items)
        x = self.tensor_name(tensor)
        dtype: Optional[str] = "'float32'"
        unsafe = []
        for kw in call.keywords:
            meta = self.meta(kw.value)
            if kw.arg == "dtype":
                if meta is not None and meta.kind == "dtype" and meta.tensor is tensor and self.metas_ok(meta):
                    dtype = None
                elif isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    dtype = repr(kw.value.value)
                else:
                    raise _Refuse
            elif meta is None or meta.kind != "context" or meta.tensor is not tensor or not self.metas_ok(meta):
                raise _Refuse
        if not any(kw.arg == "ctx" for kw in call.keywords):
            unsafe.append(f"the array is created on `{x}`'s context, not the default one")
        like = f"{F}.np.{op}_like"
        cast = "" if dtype is None else f", dtype={dtype}"
        if _whole_shape(items):
            return _Rewrite(call, f"{like}({x}{cast})", f"`np.{op}_like`", unsafe)
        dims = [k for k, item in enumerate(items) if isinstance(item, Meta)]
        if len(dims) != 1 or items[dims[0]].kind != "dim" or items[dims[0]].index is None:
            raise _Refuse
        position, axis = dims[0], items[dims[0]].index
        reps = []
        for k, item in enumerate(items):
            if k == position:
                reps.append("1")
            elif isinstance(item, Static) and (not item.literal or type(item.value) is int):
                reps.append(self.static_text(item, call)[0])
            else:
                raise _Refuse
        moved = x if axis == 0 else f"{F}.np.swapaxes({x}, 0, {axis})"
        vector = f"{F}.npx.reshape({moved}, (-2, -1))[:, 0]"
        placed = vector if len(items) == 1 else \
            f"{F}.npx.reshape({vector}, {_tuple(['-1' if k == position else '1' for k in range(len(items))])})"
        expr = f"{like}({placed}{cast})"
        if any(r != "1" for r in reps):
            expr = f"{F}.np.tile({expr}, {_tuple(reps)})"
        return _Rewrite(call, expr, f"`np.{op}_like`", unsafe)

    def _factors(self, item: Any, use: ast.AST, ndim: Optional[int]) -> list[tuple[str, Any]]:
        if isinstance(item, Static):
            if item.literal and (type(item.value) is not int or item.value <= 0):
                raise _Refuse
            return [("static", self.static_text(item, use)[0])]
        if item.kind == "dim":
            i = item.index
            return [("dim", i + ndim if i < 0 and ndim is not None else i)]
        if item.kind == "expr" and item.op == "Mult":
            return [f for o in item.operands for f in self._factors(o, use, ndim)]
        raise _Refuse

    # -- broadcast_to / repeat ------------------------------------------------------------------------
    def _broadcast_to(self, call: ast.Call, data: Optional[ast.AST], shape: Optional[ast.AST],
                      allowed: tuple[str, ...]) -> Optional[_Rewrite]:
        F = self.F
        if F is None or data is None or not self.is_tensor(data):
            return None
        self._only(call, allowed)
        items = self.items(shape)
        tensor = _one_tensor(items)
        x = self.tensor_name(tensor)
        if _whole_shape(items):
            return _Rewrite(call, f"{F}.broadcast_like({self.text(data)}, {x})", "`broadcast_like`")
        layout = self._layout(data)
        ndim = next((m.ndim for item in items for m in _walk(item) if m.ndim is not None), None)
        if layout is None or len(layout) != len(items):
            raise _Refuse
        lhs, rhs, literal = [], [], []
        for axis, (item, have) in enumerate(zip(items, layout)):
            if isinstance(item, Static):
                if not item.literal or type(item.value) is not int or item.value <= 0 or have != "one":
                    raise _Refuse
                literal.append((axis, repr(item.value)))
                continue
            if item.kind != "dim":
                raise _Refuse
            want = _norm(item.index, ndim)
            if have == "one":
                lhs.append(str(axis))
                rhs.append(str(want))
            elif not (isinstance(have, tuple) and have[0] is tensor and have[1] == want):
                raise _Refuse
        expr = self.text(data)
        if lhs:
            expr = f"{F}.broadcast_like({expr}, {x}, lhs_axes={_tuple(lhs)}, rhs_axes={_tuple(rhs)})"
        if literal:
            target = ["0"] * len(items)
            for axis, value in literal:
                target[axis] = value
            expr = f"{F}.broadcast_to({expr}, shape={_tuple(target)})"
        return _Rewrite(call, expr, "`broadcast_like`")

    def _expand_dims_args(self, node: ast.AST) -> Optional[tuple[Optional[ast.AST], Optional[ast.AST]]]:
        """The ``(data, axis)`` argument nodes (``None`` where absent) of the ``expand_dims`` whose
        result the tensor ``node`` is (``F.expand_dims(t, axis=a)`` or ``t.expand_dims(a)``), read
        from the analysis' origin; ``None`` when ``node`` is no such result. One reading of the
        origin for ``_layout`` and ``_layout_axis``."""
        value = self.value(node)
        call = value.origin.node if value is not None and value.origin is not None else None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) \
                or call.func.attr != "expand_dims":
            return None
        func = call.func
        if isinstance(func.value, ast.Name) and func.value.id == self.F:
            return self._arg(call, 0, "data"), self._arg(call, 1, "axis")
        if self.is_tensor(func.value):
            return func.value, self._arg(call, 0, "axis")
        return None

    def _layout(self, node: ast.AST) -> Optional[list]:
        """Per axis of the tensor ``node``, what is provably known: ``"one"`` (an axis
        ``expand_dims`` inserted) or ``(tensor, axis)``; ``None`` when nothing is known. Read from
        the analysis: the value's origin is an ``expand_dims`` of a tensor of known rank."""
        found = self._expand_dims_args(node)
        if found is None:
            return None
        source, axis_node = found
        axis = literal_number(axis_node) if axis_node is not None else None
        if source is None or type(axis) is not int:
            return None
        base = self.value(source)
        ndim = self._rank(base)
        if ndim is None:
            return None
        if axis < 0:
            axis += ndim + 1
        if not 0 <= axis <= ndim:
            return None
        layout: list = [(base, i) for i in range(ndim)]
        layout.insert(axis, "one")
        return layout

    def _rank(self, tensor: Any) -> Optional[int]:
        for node in ast.walk(self.fn):
            meta = self.meta(node)
            if meta is not None and meta.tensor is tensor and meta.ndim is not None:
                return meta.ndim
        return None

    def _repeat(self, call: ast.Call, data: Optional[ast.AST], repeats: Optional[ast.AST], axis_node: Optional[ast.AST],
                allowed: tuple[str, ...]) -> Optional[_Rewrite]:
        F = self.F
        if F is None or data is None or repeats is None or axis_node is None or not self.is_tensor(data):
            return None
        self._only(call, allowed)
        meta = self.meta(repeats)
        axis = literal_number(axis_node)
        if meta is None or meta.kind != "dim" or not self.metas_ok(meta) or type(axis) is not int:
            raise _Refuse
        layout = self._layout_axis(data, axis)
        if not layout:
            raise _Refuse
        x = self.tensor_name(meta.tensor)
        return _Rewrite(call, f"{F}.broadcast_like({self.text(data)}, {x}, lhs_axes=({axis},), "
                              f"rhs_axes=({meta.index},))", "`broadcast_like`")

    def _layout_axis(self, node: ast.AST, axis: int) -> bool:
        """Is ``axis`` of the tensor ``node`` provably of size 1 (``expand_dims`` inserted it)?"""
        found = self._expand_dims_args(node)
        if found is None:
            return False
        axis_node = found[1]
        inserted = literal_number(axis_node) if axis_node is not None else None
        return type(inserted) is int and inserted == axis and (axis >= 0 or inserted < 0)

    # -- arithmetic with a tensor -----------------------------------------------------------------------
    def _arith(self, node: ast.BinOp) -> Optional[_Rewrite]:
        F = self.F
        op = type(node.op).__name__
        if F is None or op not in _BROADCAST:
            return None
        left_meta, right_meta = self.meta(node.left), self.meta(node.right)
        if left_meta is not None and self.is_tensor(node.right):
            number, tensor_node, first = left_meta, node.right, False
        elif right_meta is not None and self.is_tensor(node.left):
            number, tensor_node, first = right_meta, node.left, True
        else:
            return None
        if not self.metas_ok(number):
            raise _Refuse
        t = self.text(tensor_node)
        if self.np:
            if number.kind == "value" or not number.scalar:
                raise _Refuse
            value = f"{self._graph_number(number, node, exact_int=True)}.astype('float32')"
            args = f"{t}, {value}" if first else f"{value}, {t}"
            return _Rewrite(node, f"{F}.np.{_NP_ARITH[op]}({args})", "`F.npx.shape_array` arithmetic",
                            [f"assumes `{_short(t)}` is float32 (the number becomes a float32 array)"])
        if number.kind == "value":
            # ``x * s.asscalar()`` through a name: as HY001's direct conversion (convert/values.py)
            value = f"{F}.BlockGrad({F}.reshape({self.tensor_name(number.tensor)}, shape=(1,)))"
            args = f"{t}, {value}" if first else f"{value}, {t}"
            return _Rewrite(node, f"{F}.{_BROADCAST[op]}({args})", "the value stays a tensor")
        if not number.scalar:
            raise _Refuse
        value = f"{F}.cast({self._graph_number(number, node, exact_int=True)}, dtype='float32')"
        args = f"{t}, {value}" if first else f"{value}, {t}"
        return _Rewrite(node, f"{F}.{_BROADCAST[op]}({args})", "`F.shape_array` arithmetic",
                        [f"assumes `{_short(t)}` is float32 (another dtype fails when the graph is built)"])

    def _graph_number(self, item: Any, use: ast.AST, exact_int: bool = False) -> str:
        """A graph value equal to the Python number ``item`` computes: float64 (Python's ints
        are exact in it at these sizes, its floats are float64), or with ``exact_int`` a plain
        metadata read left as the int64 the operator gives (the caller casts it once)."""
        F = self.F
        if isinstance(item, Static):
            text, _ = self.static_text(item, use)
            return text
        if self.np:
            return self._np_graph_number(item, use, exact_int)
        if item.kind in ("dim", "size", "ndim"):
            x = self.tensor_name(item.tensor)
            if item.kind == "dim":
                end = "None" if item.index == -1 else str(item.index + 1)
                read = f"{F}.slice_axis({F}.shape_array({x}), axis=0, begin={item.index}, end={end})"
            elif item.kind == "size":
                read = f"{F}.size_array({x})"
            else:
                read = f"{F}.size_array({F}.shape_array({x}))"
            return read if exact_int else f"{F}.cast({read}, dtype='float64')"
        if item.kind == "expr" and item.op == "sqrt":
            return f"{F}.sqrt({self._graph_number(item.operands[0], use)})"
        if item.kind == "expr" and item.op in _PY_OPS:
            a, b = item.operands
            if isinstance(a, Static) and isinstance(b, Static):
                raise _Refuse
            return f"({self._graph_number(a, use)} {_PY_OPS[item.op]} {self._graph_number(b, use)})"
        raise _Refuse


    def _np_graph_number(self, item: Any, use: ast.AST, exact_int: bool) -> str:
        """np mode: ``x.shape[i]`` / ``len(x)`` is ``F.npx.shape_array(x)[i]`` (a 0-d int64 array:
        np-mode Symbols take integer keys; ``[-1]`` as ``F.np.squeeze(..[-1:], axis=0)``), ``x.size``
        ``F.np.prod`` of it, ``x.ndim`` the length of it; float64 arithmetic as Python's."""
        F = self.F
        if isinstance(item, Static):
            return self.static_text(item, use)[0]
        if item.kind == "dim":
            shape = f"{F}.npx.shape_array({self.tensor_name(item.tensor)})"
            # (MXNet 1.9.1's np-mode Symbol reads ``[-1]`` as the empty ``slice(-1, 0)``: fails)
            read = f"{F}.np.squeeze({shape}[-1:], axis=0)" if item.index == -1 else f"{shape}[{item.index}]"
            return read if exact_int else f"{read}.astype('float64')"
        if item.kind in ("size", "ndim"):
            shape = f"{F}.npx.shape_array({self.tensor_name(item.tensor)})"
            read = f"{F}.np.prod({shape})" if item.kind == "size" else f"{F}.npx.shape_array({shape})[0]"
            return read if exact_int else f"{read}.astype('float64')"
        if item.kind == "expr" and item.op == "sqrt":
            return f"{F}.np.sqrt({self._np_graph_number(item.operands[0], use, False)})"
        if item.kind == "expr" and item.op in _PY_OPS:
            a, b = item.operands
            if isinstance(a, Static) and isinstance(b, Static):
                raise _Refuse
            return f"({self._np_graph_number(a, use, False)} {_PY_OPS[item.op]} {self._np_graph_number(b, use, False)})"
        raise _Refuse


def _slice_axes(meta: Meta, ndim: Optional[int]) -> list[int]:
    """The axes ``x.shape[a:b]`` covers (non-negative), given the rank where it is needed."""
    start, stop = meta.start or 0, meta.stop
    if ndim is not None:
        start = start + ndim if start < 0 else start
        stop = ndim if stop is None else (stop + ndim if stop < 0 else stop)
    if stop is None or start < 0 or stop < start:
        raise _Refuse
    return list(range(start, stop))


def _attribute_chain(node: ast.AST) -> bool:
    """``self.a`` / ``self.a.b``: a static attribute read, no call."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"


def _walk(item: Any) -> list[Meta]:
    out: list[Meta] = []
    todo = [item]
    while todo:
        m = todo.pop()
        if isinstance(m, Meta):
            out.append(m)
            todo.extend(m.operands)
    return out


def _whole_shape(items: list) -> bool:
    """Is the shape target ``items`` one tensor's whole ``x.shape`` (not a slice of it)?"""
    return len(items) == 1 and isinstance(items[0], Meta) and items[0].kind == "shape" \
        and items[0].start is None and items[0].stop is None


def _one_tensor(items: list) -> Any:
    """The one tensor whose metadata ``items`` read; refused when they read none or several (the
    ``*_like`` / ``broadcast_like`` rewrites take their shape from exactly one tensor)."""
    tensors = _tensors(items)
    if len(tensors) != 1:
        raise _Refuse
    return tensors[0]


def _tensors(items: list) -> list[Any]:
    out: list[Any] = []
    for item in items:
        for m in _walk(item):
            if m.tensor is not None and not any(t is m.tensor for t in out):
                out.append(m.tensor)
    return out


def _norm(index: Optional[int], ndim: Optional[int]) -> Optional[int]:
    if index is not None and index < 0 and ndim is not None:
        return index + ndim
    return index


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def _short(text: str, limit: int = 30) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------------------------------------
# the reshape-code solver
def _solve_reshape(atoms: list[_Atom], ndim: Optional[int]) -> Optional[tuple[list[str], bool, list[str]]]:
    """MXNet reshape codes equal to the imperative target ``atoms``: (codes, reverse, unsafe reasons).

    Tries left to right, then right to left (``reverse=True``: MXNet matches codes from the
    right). ``None`` when neither shows every output dimension equal."""
    forward = _solve(atoms, ndim=ndim)
    if forward is not None:
        return forward[0], False, forward[1]
    mirrored = []
    for atom in reversed(atoms):
        if isinstance(atom, _Dim):
            i = atom.index - ndim if (atom.index >= 0 and ndim is not None) else atom.index
            if i >= 0:
                return None
            mirrored.append(_Dim(atom.tensor, -i - 1))
        elif isinstance(atom, _Prod):
            a = atom.first - ndim if (atom.first >= 0 and ndim is not None) else atom.first
            b = atom.second - ndim if (atom.second >= 0 and ndim is not None) else atom.second
            if a >= 0 or b >= 0:
                return None
            mirrored.append(_Prod(-b - 1, -a - 1))
        elif isinstance(atom, _Div):
            i = atom.index - ndim if (atom.index >= 0 and ndim is not None) else atom.index
            if i >= 0:
                return None
            mirrored.append(_Div(-i - 1, atom.by))
        elif isinstance(atom, _Tail):
            return None
        else:
            mirrored.append(atom)
    backward = _solve(mirrored, reverse=True,
                      ndim=ndim)
    if backward is None:
        return None
    return list(reversed(backward[0])), True, backward[1]


def _rest_is(rest: list[_Atom], start: int, ndim: Optional[int]) -> bool:
    """Are ``rest`` exactly the source axes from ``start`` to the last one?"""
    expect = start
    for i, atom in enumerate(rest):
        if isinstance(atom, _Tail) and atom.start == expect and i == len(rest) - 1:
            return True
        if not isinstance(atom, _Dim) or atom.index != expect:
            return False
        expect += 1
    return ndim is not None and expect == ndim and bool(rest)


def _solve(atoms: list[_Atom], reverse: bool = False, ndim: Optional[int] = None) -> Optional[tuple[list[str], list[str]]]:
    """Codes read left to right (see :func:`_solve_reshape`); ``p`` is MXNet's source index."""
    codes: list[str] = []
    unsafe: list[str] = []
    p: Optional[int] = 0
    k = 0
    # MXNet 1.9.1 records an inferred (-1) dimension by its *code* index (``inf_idx = i``) and
    # writes the result at that index of the output: after a ``-4`` (three codes, two outputs) or
    # a ``-2`` the indices differ and a later -1 lands on the wrong dimension (or past the end:
    # heap corruption). So no -1 code may follow them.
    shifted = False
    only_dims = True  # every atom so far copied a source axis (for the ``(-1, s) + x.shape[1:]`` split)
    while k < len(atoms):
        atom = atoms[k]
        aligned = p == k and not reverse
        nxt = atoms[k + 1] if k + 1 < len(atoms) else None
        if isinstance(atom, _Div) and p is not None and atom.index == p and isinstance(nxt, _Lit) and nxt.value == atom.by:
            codes += ["-4", "-1", str(atom.by)]
            p, k = p + 1, k + 2
            only_dims, shifted = False, True
            continue
        if isinstance(atom, _Lit) and atom.value > 0 and isinstance(nxt, _Div) and p is not None \
                and nxt.index == p and nxt.by == atom.value:
            codes += ["-4", str(atom.value), "-1"]
            p, k = p + 1, k + 2
            only_dims, shifted = False, True
            continue
        if isinstance(atom, _Lit) and atom.value == -1 and only_dims and p == k and not shifted \
                and _rest_is(atoms[k + 1:], p + 2, ndim):
            codes.append("-3")  # ``(-1,) + x.shape[2:]``: the -1 is axes p and p+1 merged
            p, k = p + 2, k + 1
            only_dims = False
            continue
        split = _split_rest(atoms, k, p) if only_dims and p == k else None
        if split is not None:
            first, second, reasons = split
            codes += ["-4", first, second, "-2"]
            unsafe += reasons
            return codes, unsafe
        if isinstance(atom, _Lit):
            if atom.value > 0 or (atom.value == -1 and not shifted) or (atom.value == 0 and aligned):
                codes.append(str(atom.value))
                p = p + 1 if p is not None else None
            else:
                return None
            only_dims = False
        elif isinstance(atom, _Stat):
            if not (aligned and atom.in_place):
                unsafe.append(f"assumes `{atom.text}` is a positive int")
            codes.append(atom.text)
            p = p + 1 if p is not None else None
            only_dims = False
        elif isinstance(atom, _Dim):
            if p is None or atom.index != p:
                return None
            codes.append("0")
            p += 1
        elif isinstance(atom, _Prod):
            if p is None or (atom.first, atom.second) != (p, p + 1):
                return None
            codes.append("-3")
            p += 2
            only_dims = False
        elif isinstance(atom, _Tail):
            if p is None or atom.start != p:
                return None
            codes.append("-2")
            p, shifted = None, True
        else:
            return None
        k += 1
    return codes, unsafe


def _split_rest(atoms: list[_Atom], k: int, p: int) -> Optional[tuple[str, str, list[str]]]:
    """``(-1, s)`` / ``(s, -1)`` at source axis ``p`` followed by exactly the axes after it
    (``x.shape[p+1:]``): the ``-1`` is axis ``p`` divided by ``s``, i.e. ``-4, -1, s, -2``."""
    if k + 2 != len(atoms) - 1 and k + 2 != len(atoms):
        return None
    pair = atoms[k:k + 2]
    rest = atoms[k + 2:]
    if len(pair) != 2 or not rest or not isinstance(rest[0], _Tail) or rest[0].start != p + 1:
        return None
    one, other = pair
    if isinstance(one, _Lit) and one.value == -1:
        s, first = other, True
    elif isinstance(other, _Lit) and other.value == -1:
        s, first = one, False
    else:
        return None
    if isinstance(s, _Lit) and s.value > 0:
        text, reasons = str(s.value), []
    elif isinstance(s, _Stat):
        text, reasons = s.text, [f"assumes `{s.text}` is a positive int"]
    else:
        return None
    return ("-1", text, reasons) if first else (text, "-1", reasons)


# ---------------------------------------------------------------------------------------------
_PLANS: dict[tuple[int, int], _Plan] = {}


def _plan(event: Event) -> Optional[_Plan]:
    span = event.site.function
    if span is None or event.values is None or "uses" not in event.extra:
        return None
    key = (id(span.node), id(event.values))
    plan = _PLANS.get(key)
    if plan is None or plan.fn is not span.node or plan.values is not event.values:
        if len(_PLANS) > 32:
            _PLANS.clear()
        plan = _Plan(event)
        _PLANS[key] = plan
    return plan


def plan_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """The fix for the read of ``event`` (a metadata read, or ``t.asscalar()``): the uses it
    flows into rewritten, its bindings dropped (see the module doc)."""
    plan = _plan(event)
    if plan is None:
        return None
    return plan.fix_for(event.node, with_edits)


#: HY006's fix
metadata_fix = plan_fix
