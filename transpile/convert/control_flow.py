"""HY004: Python control flow on a tensor condition as graph control flow (``F.where``, ``F.contrib.cond``).

Imperatively ``if c:`` asks the NDArray for its truth value (MXNet 1.9.1: ``c`` must have exactly one
element, true when it is not zero); a graph has no values while it is built, so the branch must be
part of the graph. Two rewrites, both standard MXNet 1.9.1 ``F`` code:

* **select** (``F.where``): when every branch only assigns names from *pure, cheap* expressions (``F``
  operators other than random ones, tensor methods, arithmetic, comparisons, subscripts, no child
  block, no call of anything else), both sides are computed and one is selected::

      if h.sum() > 0:                 h = F.where(F.broadcast_like(h.sum() > 0, h, lhs_axes=(0,),
          h = F.relu(h)        ->                                  rhs_axes=(0,)), F.relu(h), h)

  The one-element condition is broadcast along axis 0 of a branch value (``F.where`` then selects
  whole rows: all of one side); a condition not known to have shape ``(1,)`` (a full reduction and
  comparisons or arithmetic of such with numbers are) is first flattened with
  ``F.reshape(c, shape=(-1,))``. A name a branch does not assign keeps its value (``else: h = h``).
* **cond** (``F.contrib.cond``): otherwise, when the branches have no Python side effects (only
  assignments to names and the calls above plus child blocks ``self.layer(..)``), each branch becomes
  a local function returning the names assigned in any branch and read afterwards; only the chosen
  branch runs (MXNet's ``_cond`` operator), so a layer with state or randomness runs as before::

      if h.sum() > 0:                 def then_branch(h=h):
          h = self.fc(h)                  h = self.fc(h)
      else:                    ->         return h
          h = h * 2                   def else_branch(h=h):
                                          h = h * 2
                                          return h
                                      h = F.contrib.cond(h.sum() > 0, then_branch, else_branch)

  (a name both read and assigned by a branch is a default argument: the function sees the value it
  had before the ``if``, as the branch did).

Also converted: ``elif`` chains (nested), conditional expressions ``a if c else b``, and an early
``if c: ...; return a`` whose function goes on to ``...; return b`` at the top level of its body
(``return F.contrib.cond(c, then_branch, else_branch)`` / ``return F.where(...)``).

Not converted (the finding stays): conditions using ``and``/``or``/``not`` on tensors, branches with
side effects (``print``, ``self.x = ``, ``list.append``, item or augmented assignment, calls of helpers
or unknown functions), ``return``/``break``/``continue``/``raise`` elsewhere in a branch, a name that
is needed afterwards but has no tensor value in some branch, a ``while`` loop on a tensor (its
iteration count is not bounded statically, and ``F.contrib.while_loop`` needs ``max_iterations``).

In np-mode code (``npx.set_np()``) the select is ``F.np.where(c, a, b)``: the condition is 0-d
(a full reduction, or ``F.np.reshape(c, ())``, which demands one element as ``if c:`` does) and
broadcasts against both sides, so it needs no ``broadcast_like``. ``F.contrib.cond`` and
``F.contrib.while_loop`` are not offered there: MXNet 1.9.1's ``_cond``/``_while_loop``/``_foreach``
take legacy arrays only (``TypeError`` on np-mode arrays, imperatively and hybridized), and
``mx.npx`` has no control-flow operators before MXNet 2.0.

Applicability: imperatively each branch could produce a value of a different shape; a graph has one.
The rewrite is *safe* when every output provably has the same shape in every branch: each value is
an elementwise expression (arithmetic with numbers, unary elementwise ``F`` operators, broadcasting
binary ones) of the same tensors. Otherwise it is *unsafe*: equal shapes are assumed, and a graph
whose branches differ fails when it is built (``F.where`` / ``_cond`` shape check), never silently.
``F.contrib.cond`` over child blocks is always unsafe: MXNet 1.9.1 cannot infer a deferred parameter
shape through ``_cond`` (hybridized first, or a layer only the untaken branch uses), so such layers
need their input sizes declared (``in_units``, ``in_channels``) to hybridize on MXNet.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from ..analysis.events import Event, Site
from ..analysis.values import Category, Kind, Value
from ..diagnostics import Applicability, Edit, Fix, Location
from .indexing import f_name, writes_in_place

# ---------------------------------------------------------------------------------------------
# what the conversions may move into a graph
#: ``F`` operators and tensor methods that keep the shape of their (broadcast) tensor arguments.
ELEMENTWISE = frozenset({
    "relu", "sigmoid", "tanh", "exp", "expm1", "log", "log1p", "log2", "log10", "abs", "sqrt", "rsqrt",
    "cbrt", "square", "negative", "reciprocal", "sign", "softsign", "clip", "round", "rint", "fix", "floor",
    "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh",
    "arccosh", "arctanh", "erf", "erfinv", "gamma", "gammaln", "hard_sigmoid", "Activation", "softmax",
    "log_softmax", "softmin", "BlockGrad", "stop_gradient", "identity", "zeros_like", "ones_like",
    "cast", "astype", "Cast", "maximum", "minimum", "power", "broadcast_add", "broadcast_sub",
    "broadcast_mul", "broadcast_div", "broadcast_mod", "broadcast_power", "broadcast_maximum",
    "broadcast_minimum", "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
    "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal", "broadcast_hypot",
    "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "smooth_l1", "where",
})
#: Operators whose result differs from call to call, or that update state: never computed "both ways".
RANDOM_OR_STATEFUL = re.compile(r"^(Dropout|BatchNorm|SyncBatchNorm|random|sample_|shuffle|_random|_sample|"
                                r"uniform|normal|multinomial|RNN|SoftmaxOutput|.*Output$)")
#: Full reductions: no ``axis``, one element of shape ``(1,)``.
REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "nansum", "nanprod", "norm"})
#: Tensor methods that compute (no in-place update, no leaving the graph).
PURE_METHODS = ELEMENTWISE | REDUCTIONS | frozenset({
    "reshape", "reshape_like", "transpose", "expand_dims", "squeeze", "flatten", "swapaxes", "flip",
    "tile", "repeat", "broadcast_to", "broadcast_like", "slice", "slice_axis", "slice_like", "take",
    "pick", "one_hot", "argmax", "argmin", "topk", "sort", "argsort", "dot", "split", "softmax",
    "zeros_like", "ones_like", "sum_axis", "diag", "pad", "T",
})


def _callee(node: ast.Call, F: str) -> tuple[str, str]:
    """("F", op) for ``F.op(..)``/``F.ns.op(..)``, ("method", m) for ``e.m(..)``, ("self", attr) for
    ``self.attr(..)``, ("other", "") otherwise."""
    func = node.func
    if isinstance(func, ast.Attribute):
        parts = []
        cur: ast.expr = func
        while isinstance(cur, ast.Attribute):
            parts.append(cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name) and cur.id == F:
            return "F", parts[0]
        if isinstance(cur, ast.Name) and cur.id == "self" and len(parts) == 1:
            return "self", parts[0]
        return "method", func.attr
    return "other", ""


def pure(node: ast.AST, F: str, blocks: Optional[Callable[[ast.Call], bool]] = None) -> bool:
    """Is evaluating ``node`` free of effects outside the value it computes (and deterministic)?

    ``blocks``: decides whether a call ``self.attr(..)`` is a child block's; those count too (they
    are fine in a graph branch that only runs when chosen, not when both sides are computed)."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Lambda, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.ListComp,
                            ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Starred, ast.JoinedStr)):
            return False
        if isinstance(sub, ast.Call):
            kind, name = _callee(sub, F)
            if any(k.arg in ("out", None) for k in sub.keywords):
                return False
            if kind == "F" and not RANDOM_OR_STATEFUL.match(name):
                continue
            if kind == "method" and name in PURE_METHODS:
                continue
            if kind == "self" and blocks is not None and blocks(sub):
                continue
            return False
    return True


def shape_leaves(node: ast.AST, F: str, env: dict[str, Value]) -> Optional[frozenset[str]]:
    """The tensor names whose broadcast shape is the shape of ``node``, or ``None`` if unknown."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return frozenset()
    if isinstance(node, ast.Name):
        value = env.get(node.id)
        if value is None:
            return None
        if value.kind is Kind.TENSOR:
            return frozenset({node.id})
        return frozenset() if value.kind is Kind.STATIC and not value.qual else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return shape_leaves(node.operand, F, env)
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        left, right = shape_leaves(node.left, F, env), shape_leaves(node.right, F, env)
        return None if left is None or right is None else left | right
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = shape_leaves(node.left, F, env), shape_leaves(node.comparators[0], F, env)
        return None if left is None or right is None else left | right
    if isinstance(node, ast.Call):
        kind, name = _callee(node, F)
        if name not in ELEMENTWISE or kind not in ("F", "method") or name in ("softmax", "log_softmax", "softmin") \
                and any(k.arg == "axis" for k in node.keywords) is None:
            return None
        if name == "where" and node.args:  # the condition may be 1-D: its shape does not count
            args: Sequence[ast.expr] = node.args[1:]
        else:
            args = node.args
        if any(k.arg in ("lhs", "rhs", "data", "condition", "x", "y") for k in node.keywords):
            return None  # operands by keyword: not worth following
        leaves: frozenset[str] = frozenset()
        operands = list(args) + ([node.func.value] if kind == "method" else [])  # type: ignore[attr-defined]
        for arg in operands:
            got = shape_leaves(arg, F, env)
            if got is None:
                return None
            leaves |= got
        return leaves
    return None


def scalar_shaped(node: ast.AST, F: str, env: dict[str, Value]) -> bool:
    """Is ``node`` certainly of shape ``(1,)`` (a full reduction, or numbers and such combined)?"""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return True
    if isinstance(node, ast.Name):
        value = env.get(node.id)
        return value is not None and value.kind is Kind.STATIC and not value.qual
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return scalar_shaped(node.operand, F, env)
    if isinstance(node, ast.BinOp):
        return scalar_shaped(node.left, F, env) and scalar_shaped(node.right, F, env)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return scalar_shaped(node.left, F, env) and scalar_shaped(node.comparators[0], F, env)
    if isinstance(node, ast.Call):
        kind, name = _callee(node, F)
        if name not in REDUCTIONS or any(k.arg in ("axis", "exclude", "ord") for k in node.keywords):
            return False
        if kind == "method":
            return not node.args
        if kind == "F":
            return len(node.args) == 1
    return False


# ---------------------------------------------------------------------------------------------
# the statements around a condition
def _parents(fn: ast.AST) -> dict[int, tuple[ast.AST, str]]:
    """id(statement) -> (parent node, name of the field whose list holds it)."""
    out: dict[int, tuple[ast.AST, str]] = {}
    for node in ast.walk(fn):
        for name in ("body", "orelse", "finalbody"):
            children = getattr(node, name, None)
            for child in children if isinstance(children, list) else ():
                if isinstance(child, ast.stmt):
                    out[id(child)] = (node, name)
        for handler in getattr(node, "handlers", None) or ():
            for child in handler.body:
                out[id(child)] = (handler, "body")
    return out


def _names_in(node: ast.AST, ctx: type) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


@dataclass
class _Branch:
    """One arm of an ``if`` chain: its condition (``None`` for the final ``else``) and statements."""

    test: Optional[ast.expr]
    body: list[ast.stmt]
    assigned: list[tuple[str, ast.expr]] = field(default_factory=list)  # in order, for ``select``


def _chain(stmt: ast.If) -> list[_Branch]:
    """``if``/``elif``/.../``else`` as a list of branches (an ``else`` holding only an ``if`` written as
    ``elif`` or not: the same meaning)."""
    out = [_Branch(stmt.test, stmt.body)]
    rest = stmt.orelse
    while len(rest) == 1 and isinstance(rest[0], ast.If):
        out.append(_Branch(rest[0].test, rest[0].body))
        rest = rest[0].orelse
    out.append(_Branch(None, rest))
    return out


_FORBIDDEN = (ast.Return, ast.Break, ast.Continue, ast.Raise, ast.Global, ast.Nonlocal, ast.Delete,
              ast.Yield, ast.YieldFrom, ast.Await, ast.AugAssign, ast.AnnAssign, ast.Try, ast.With, ast.For,
              ast.While, ast.If, ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assert)


def _plain_body(body: Sequence[ast.stmt], F: str, blocks: Optional[Callable[[ast.Call], bool]]) -> bool:
    """Only ``name = pure expression`` / ``a, b = pure expression`` statements."""
    for stmt in body:
        if not isinstance(stmt, ast.Assign) or any(isinstance(n, _FORBIDDEN) for n in ast.walk(stmt)):
            return False
        for target in stmt.targets:
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            if not all(isinstance(e, ast.Name) for e in elts):
                return False
        if not pure(stmt.value, F, blocks):
            return False
    return True


def _assigned(body: Sequence[ast.stmt]) -> list[str]:
    out: list[str] = []
    for stmt in body:
        for name in sorted(_names_in(stmt, ast.Store), key=lambda n: (stmt.lineno, n)):
            if name not in out:
                out.append(name)
    return out


class _Source:
    """Text of the file around the conversion: exact expression sources and indentation."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.lines = site.lines

    def expr(self, node: ast.AST) -> str:
        text = self.site.source(node)
        if isinstance(node, (ast.IfExp, ast.Lambda, ast.NamedExpr)) or "\n" in text:
            return "(" + text + ")"
        return text

    def indent_of(self, stmt: ast.stmt) -> str:
        line = self.lines[stmt.lineno - 1]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def block(self, body: Sequence[ast.stmt], indent: str) -> list[str]:
        """The lines of ``body`` (comments between its statements included), re-indented."""
        first, last = body[0].lineno, body[-1].end_lineno or body[-1].lineno
        old = self.indent_of(body[0])
        out = []
        for line in self.lines[first - 1:last]:
            line = line.rstrip("\r\n")
            out.append(indent + line[len(old):] if line.startswith(old) else line)
        return out


def _unique(base: str, taken: set[str]) -> str:
    name, i = base, 1
    while name in taken:
        i += 1
        name = f"{base}{i}"
    taken.add(name)
    return name


def _live_after(fn: ast.AST, stmt: ast.stmt, names: Sequence[str]) -> list[str]:
    """Those of ``names`` read after ``stmt`` in ``fn`` (anywhere, when ``stmt`` is in a loop)."""
    end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
    in_loop = any(isinstance(n, (ast.For, ast.While, ast.AsyncFor)) and n.lineno <= stmt.lineno
                  and (n.end_lineno or n.lineno) >= (stmt.end_lineno or stmt.lineno) for n in ast.walk(fn))
    reads: dict[str, list[tuple[int, int]]] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            reads.setdefault(n.id, []).append((n.lineno, n.col_offset))
    return [name for name in names if any(in_loop or pos > end for pos in reads.get(name, ()))]


# ---------------------------------------------------------------------------------------------
class _Plan:
    """What one conversion writes: lines replacing ``first..last`` statements, and how safe it is."""

    def __init__(self, lines: list[str], unsafe: list[str], how: str) -> None:
        self.lines = lines
        self.unsafe = unsafe
        self.how = how


def _tensorish(value: Value, blocks: bool) -> bool:
    if value.kind is Kind.TENSOR:
        return True
    return blocks and value.kind is Kind.MAYBE and value.origin is not None \
        and value.origin.category is Category.BLOCK


class _Converter:
    def __init__(self, event: Event, F: str) -> None:
        self.event = event
        self.F = F
        self.site = event.site
        #: np-mode code (``npx.set_np()``): ``F.np.where`` on a 0-d condition; no ``F.contrib.cond``
        #: (MXNet 1.9.1's control-flow operators take legacy arrays only)
        self.np = event.site.np_mode
        self.fn = event.site.function.node
        self.env: dict[str, Value] = event.extra.get("env", {})
        self.values: dict = event.extra.get("values", {})
        self.src = _Source(event.site)
        self.taken = _names_in(self.fn, ast.Store) | _names_in(self.fn, ast.Load) | {
            a.arg for a in ast.walk(self.fn) if isinstance(a, ast.arg)} | {
            d.name for d in ast.walk(self.fn) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}

    # -- facts ----------------------------------------------------------------------------------
    def child_block(self, call: ast.Call) -> bool:
        """Is ``call`` (``self.attr(..)``) a child block's call, as the analysis resolved it?"""
        hit = self.values.get(id(call))
        return hit is not None and hit[0] is call and hit[1].origin is not None \
            and hit[1].origin.category is Category.BLOCK

    def is_tensor(self, node: ast.expr, blocks: bool = False) -> bool:
        """Does the analysis know ``node``'s value to be one tensor? ``blocks``: a child block's result
        counts too (the analysis leaves it open, as a block may return several; ``F.contrib.cond``
        carries any structure, and branches that disagree fail when the graph is built)."""
        hit = self.values.get(id(node))
        return hit is not None and hit[0] is node and _tensorish(hit[1], blocks)

    def name_is_tensor(self, name: str, blocks: bool = False) -> bool:
        value = self.env.get(name)
        return value is not None and _tensorish(value, blocks)

    def condition_ok(self, test: ast.expr) -> bool:
        """A condition we can hand to a graph: a tensor, computed purely, no ``and``/``or``/``not``."""
        if isinstance(test, ast.BoolOp) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            return False
        return self.is_tensor(test) and pure(test, self.F)

    def mask(self, test: ast.expr, like: str) -> str:
        cond = self.src.expr(test)
        if self.np:  # ``F.np.where`` broadcasts a 0-d condition against both sides
            return cond if scalar_shaped(test, self.F, self.env) else f"{self.F}.np.reshape({cond}, ())"
        if not scalar_shaped(test, self.F, self.env):
            cond = f"{self.F}.reshape({cond}, shape=(-1,))"
        return f"{self.F}.broadcast_like({cond}, {like}, lhs_axes=(0,), rhs_axes=(0,))"

    # -- select: F.where ----------------------------------------------------------------------
    def select_values(self, chain: list[_Branch], outputs: list[str]) -> Optional[dict[str, list[ast.expr]]]:
        """For each output, its expression in every branch (the name itself where not assigned)."""
        assigned_anywhere = set()
        for branch in chain:
            if not _plain_body(branch.body, self.F, blocks=None):
                return None
            seen: dict[str, ast.expr] = {}
            for stmt in branch.body:
                if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):  # type: ignore[attr-defined]
                    return None
                name = stmt.targets[0].id  # type: ignore[attr-defined]
                if name in seen or _names_in(stmt.value, ast.Load) & set(seen):  # type: ignore[attr-defined]
                    return None  # sequential dependencies inside a branch: not a select
                if not self.is_tensor(stmt.value):  # type: ignore[attr-defined]
                    return None
                seen[name] = stmt.value  # type: ignore[attr-defined]
            branch.assigned = list(seen.items())
            assigned_anywhere |= set(seen)
        if set(outputs) != assigned_anywhere:
            return None  # a temporary used by one branch only: not a select
        reads = set()
        for branch in chain:
            if branch.test is not None:
                reads |= _names_in(branch.test, ast.Load)
            for _, value in branch.assigned:
                reads |= _names_in(value, ast.Load)
        if len(outputs) > 1 and reads & set(outputs):
            return None  # rebinding one output would change what the next one reads
        out: dict[str, list[ast.expr]] = {}
        for name in outputs:
            per: list[ast.expr] = []
            for branch in chain:
                value = dict(branch.assigned).get(name)
                if value is None:
                    if not self.name_is_tensor(name):
                        return None
                    value = ast.Name(id=name, ctx=ast.Load())
                per.append(value)
            out[name] = per
        return out

    def where_expr(self, chain: list[_Branch], per: list[ast.expr]) -> str:
        text = [self.src.expr(v) if hasattr(v, "lineno") else v.id for v in per]  # type: ignore[attr-defined]
        expr = text[-1]
        like = self.like(per)
        for branch, value in reversed(list(zip(chain[:-1], text[:-1]))):
            expr = f"{self.where}({self.mask(branch.test, like)}, {value}, {expr})"  # type: ignore[arg-type]
        return expr

    @property
    def where(self) -> str:
        return f"{self.F}.np.where" if self.np else f"{self.F}.where"

    def like(self, per: Sequence[ast.expr]) -> str:
        """What the condition is broadcast against: a value's first axis (all values share their
        shape): a plain name among them, the one tensor an elementwise value is computed from, or
        else the first value itself."""
        for node in per:
            if isinstance(node, ast.Name):
                return node.id
        for node in per:
            leaves = shape_leaves(node, self.F, self.env)
            if leaves is not None and len(leaves) == 1:
                return next(iter(leaves))
        return self.src.expr(per[0])

    def same_shapes(self, pers: Sequence[Sequence[ast.expr]]) -> bool:
        for per in pers:
            leaves = [shape_leaves(v, self.F, self.env) for v in per]
            if any(lv is None or not lv for lv in leaves) or len(set(leaves)) != 1:
                return False
        return True

    # -- cond: F.contrib.cond ----------------------------------------------------------------------
    def branch_function(self, name: str, body: list[ast.stmt], returns: Optional[str], indent: str, unit: str,
                        nested: Optional[list[str]] = None) -> list[str]:
        """``def name(..):`` holding ``body`` (and ``nested`` lines), returning ``returns`` (``None``: the
        body ends with its own ``return``). A name the body reads before assigning it is a default
        argument, so the function sees the value it had before the branch (as the branch did)."""
        reads_first: set[str] = set()
        assigned: set[str] = set()
        for stmt in body:
            value = stmt.value if isinstance(stmt, (ast.Assign, ast.Return)) and stmt.value is not None else stmt
            reads_first |= _names_in(value, ast.Load) - assigned
            assigned |= _names_in(stmt, ast.Store)
        params = sorted(reads_first & assigned)
        lines = [f"{indent}def {name}({', '.join(f'{p}={p}' for p in params)}):"]
        if body:
            lines.extend(self.src.block(body, indent + unit))
        if nested:
            lines.extend(nested)
        if returns is not None:
            lines.append(f"{indent + unit}return {returns}")
        return lines

    def cond_lines(self, chain: list[_Branch], returns: str, target: str, indent: str, unit: str) -> list[str]:
        """``target F.contrib.cond(..)`` over the chain (nested for ``elif``)."""
        then_name = _unique("then_branch", self.taken)
        else_name = _unique("else_branch", self.taken)
        lines = self.branch_function(then_name, chain[0].body, returns, indent, unit)
        if len(chain) > 2:  # ``elif``: the else function is a nested cond
            inner = self.cond_lines(chain[1:], returns, "return", indent + unit, unit)
            lines += self.branch_function(else_name, [], None, indent, unit, nested=inner)
        else:
            lines += self.branch_function(else_name, chain[-1].body, returns, indent, unit)
        test = self.src.expr(chain[0].test)  # type: ignore[arg-type]
        lines.append(f"{indent}{target} {self.F}.contrib.cond({test}, {then_name}, {else_name})")
        return lines


_COND_UNSAFE = ["the branches' values are assumed to have one shape",
                "on MXNet 1.9.1 layers inside a branch need declared input sizes to hybridize"]


def _indent_unit(src: _Source, stmt: ast.stmt, body: Sequence[ast.stmt]) -> str:
    outer, inner = src.indent_of(stmt), src.indent_of(body[0]) if body else ""
    return inner[len(outer):] if inner.startswith(outer) and len(inner) > len(outer) else "    "


def _edit(site: Site, first: ast.stmt, last: ast.stmt, lines: list[str]) -> Edit:
    """Replace the statements ``first..last`` (their whole lines, trailing comments included); a
    comment after the ``if ...:`` header stays, on the statement that now does the choosing."""
    row, col, _, _ = site.span(first)
    end_row = last.end_lineno or last.lineno
    end_line = site.lines[end_row - 1].rstrip("\r\n")
    if isinstance(first, ast.If):
        test_row = first.test.end_lineno or first.test.lineno
        rest = site.lines[test_row - 1].rstrip("\r\n").encode("utf-8")[first.test.end_col_offset or 0:].decode(
            "utf-8", "replace")
        comment = rest[rest.find(":") + 1:].strip() if ":" in rest else ""
        if comment.startswith("#"):
            lines = lines[:-1] + [f"{lines[-1]}  {comment}"]
    content = "\n".join(lines)
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    return Edit(Location(row, col), Location(end_row, len(end_line) + 1), content[len(indent):])


def _if_fix(conv: _Converter, stmt: ast.If) -> Optional[tuple[list[Edit], list[str], str]]:
    src, F, fn = conv.src, conv.F, conv.fn
    chain = _chain(stmt)
    if not all(conv.condition_ok(b.test) for b in chain if b.test is not None):
        return None
    indent = src.indent_of(stmt)
    unit = _indent_unit(src, stmt, stmt.body)
    parents = _parents(fn)
    # the early-return form: ``if c: ...; return a`` followed by ``...; return b`` (function level)
    parent, field_name = parents.get(id(stmt), (None, ""))
    if parent is fn and not stmt.orelse and stmt.body and isinstance(stmt.body[-1], ast.Return):
        siblings = getattr(fn, "body")
        rest = siblings[siblings.index(stmt) + 1:]
        if not rest or not isinstance(rest[-1], ast.Return) or rest[-1].value is None \
                or stmt.body[-1].value is None:
            return None
        return _return_fix(conv, stmt, [_Branch(stmt.test, stmt.body), _Branch(None, rest)], indent, unit)
    if any(b.body and isinstance(b.body[-1], ast.Return) for b in chain):
        if parent is fn and all(b.body and isinstance(b.body[-1], ast.Return) and b.body[-1].value is not None
                                for b in chain):
            return _return_fix(conv, stmt, chain, indent, unit)
        return None
    for b in chain:
        if not _plain_body(b.body, F, blocks=conv.child_block):
            return None
    assigned = []
    for b in chain:
        for name in _assigned(b.body):
            if name not in assigned:
                assigned.append(name)
    outputs = _live_after(fn, stmt, assigned)
    if not outputs:
        return None  # nothing computed is used: leave the dead code to its author
    pers = conv.select_values(chain, outputs)
    if pers is not None:
        unsafe = [] if conv.same_shapes(list(pers.values())) else ["the branches' values are assumed to have one shape"]
        lines = [f"{indent}{name} = {conv.where_expr(chain, per)}" for name, per in pers.items()]
        return [_edit(conv.site, stmt, stmt, lines)], unsafe, f"`{conv.where}`"
    if conv.np:
        return None  # (no ``cond`` for np-mode arrays in MXNet 1.9.1)
    # cond: every output needs a tensor value in every branch
    for b in chain:
        last: dict[str, ast.expr] = {}
        for s in b.body:
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                last[s.targets[0].id] = s.value
            else:
                for n in _names_in(s, ast.Store):
                    last[n] = None  # type: ignore[assignment]
        for name in outputs:
            if name in last:
                if last[name] is None or not conv.is_tensor(last[name], blocks=True):
                    return None
            elif not conv.name_is_tensor(name, blocks=True):
                return None
    returns = ", ".join(outputs)
    lines = conv.cond_lines(chain, returns, f"{returns} =", indent, unit)
    return [_edit(conv.site, stmt, stmt, lines)], _COND_UNSAFE, f"`{F}.contrib.cond`"


def _return_fix(conv: _Converter, stmt: ast.If, chain: list[_Branch], indent: str,
                unit: str) -> Optional[tuple[list[Edit], list[str], str]]:
    """``if c: ..; return a`` + ``..; return b`` -> ``return F.where(..)`` / ``return F.contrib.cond(..)``."""
    F = conv.F
    for b in chain:
        if not _plain_body(b.body[:-1], F, blocks=conv.child_block) or not pure(b.body[-1].value, F, blocks=conv.child_block):  # type: ignore[attr-defined]
            return None
        if not conv.is_tensor(b.body[-1].value, blocks=True):  # type: ignore[attr-defined]
            return None
    last_stmt = chain[-1].body[-1]
    if all(len(b.body) == 1 and pure(b.body[-1].value, F) and conv.is_tensor(b.body[-1].value)  # type: ignore[attr-defined]
           for b in chain):
        per = [b.body[-1].value for b in chain]  # type: ignore[attr-defined]
        unsafe = [] if conv.same_shapes([per]) else ["the branches' values are assumed to have one shape"]
        lines = [f"{indent}return {conv.where_expr(chain, per)}"]
        return [_edit(conv.site, stmt, last_stmt, lines)], unsafe, f"`{conv.where}`"
    if conv.np:
        return None
    lines = _cond_return_lines(conv, chain, indent, unit)
    return [_edit(conv.site, stmt, last_stmt, lines)], _COND_UNSAFE, f"`{F}.contrib.cond`"


def _cond_return_lines(conv: _Converter, chain: list[_Branch], indent: str, unit: str) -> list[str]:
    """``return F.contrib.cond(..)`` whose branch functions end with the branches' own ``return``."""
    then_name = _unique("then_branch", conv.taken)
    else_name = _unique("else_branch", conv.taken)
    lines = conv.branch_function(then_name, chain[0].body, None, indent, unit)
    if len(chain) > 2:
        lines += conv.branch_function(else_name, [], None, indent, unit,
                                      nested=_cond_return_lines(conv, chain[1:], indent + unit, unit))
    else:
        lines += conv.branch_function(else_name, chain[-1].body, None, indent, unit)
    test = conv.src.expr(chain[0].test)  # type: ignore[arg-type]
    lines.append(f"{indent}return {conv.F}.contrib.cond({test}, {then_name}, {else_name})")
    return lines


def _ifexp_fix(conv: _Converter, node: ast.IfExp) -> Optional[tuple[list[Edit], list[str], str]]:
    """``a if c else b`` -> ``F.where(..)`` (pure sides) or ``F.contrib.cond(c, lambda: a, lambda: b)``."""
    F = conv.F
    if not conv.condition_ok(node.test) or not (conv.is_tensor(node.body, True) and conv.is_tensor(node.orelse, True)):
        return None
    chain = [_Branch(node.test, []), _Branch(None, [])]
    per = [node.body, node.orelse]
    if pure(node.body, F) and pure(node.orelse, F) and conv.is_tensor(node.body) and conv.is_tensor(node.orelse):
        text = conv.where_expr(chain, per)
        how = f"`{conv.where}`"
    elif not conv.np and pure(node.body, F, conv.child_block) and pure(node.orelse, F, conv.child_block):
        text = (f"{F}.contrib.cond({conv.src.expr(node.test)}, lambda: {conv.src.expr(node.body)}, "
                f"lambda: {conv.src.expr(node.orelse)})")
        how = f"`{F}.contrib.cond`"
    else:
        return None
    unsafe = [] if conv.same_shapes([per]) else _COND_UNSAFE[:1]
    if "cond" in how:
        unsafe = _COND_UNSAFE
    row, col, end_row, end_col = conv.site.span(node)
    return [Edit(Location(row, col), Location(end_row, end_col), text)], unsafe, how


def condition_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """The HY004 fix (see the module doc); ``None`` where no conversion is shown to be equivalent."""
    if event.construct not in ("if", "elif", "conditional expression"):
        return None
    F = f_name(event.site)
    if F is None or event.site.function is None:
        return None
    fn = event.site.function.node
    owner = None
    for node in ast.walk(fn):
        if isinstance(node, (ast.If, ast.IfExp)) and node.test is event.node:
            owner = node
            break
    if owner is None:
        return None
    conv = _Converter(event, F)
    if isinstance(owner, ast.If):
        # an ``elif`` is converted with the ``if`` that starts its chain
        parent = _parents(fn).get(id(owner))
        if parent is not None and isinstance(parent[0], ast.If) and parent[1] == "orelse" \
                and len(parent[0].orelse) == 1:
            return None
        result = _if_fix(conv, owner)
    else:
        result = _ifexp_fix(conv, owner)
    if result is None:
        return None
    edits, unsafe, how = result
    # imperatively a name no taken branch assigns is still the very array it was (``h = x`` and
    # the branch not taken: ``x += 1`` changes ``h``); the converted value is a new array. Only
    # in-place writes can tell: with any left in the function the results may change.
    changes = writes_in_place(event.site)
    if changes:
        unsafe = [*unsafe, "tensors are written in place, and a converted name no longer shares its array"]
    message = f"Put the branch into the graph with {how}"
    if unsafe:
        message += " (unsafe: " + "; ".join(unsafe) + ")"
    applicability = Applicability.UNSAFE if unsafe else Applicability.SAFE
    return Fix(message, tuple(edits) if with_edits else (), applicability, changes)
