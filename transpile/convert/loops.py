"""HY005 / HY006: Python loops over a tensor's rows as graph loops (``F.contrib.foreach``), and
unpacking a tensor (``a, b = t``) as ``F.split``.

Imperatively ``for r in t:`` iterates over the rows of an NDArray; a ``Symbol`` iterates over its
outputs (one), so a hybridized loop silently runs once. MXNet 1.9.1's ``F.contrib.foreach(body,
data, init_states)`` is the graph form of exactly this loop: ``body(row, states) -> (outputs,
new_states)`` runs once per row of ``data`` (axis 0), the per-row outputs are stacked along a new
axis 0 and the states of the last row are returned. Converted::

    rows = []                                  def loop_body(r, h):
    for r in x:                                    h = F.tanh(self.cell(r) + h)
        h = F.tanh(self.cell(r) + h)    ->         return h * 2, h
        rows.append(h * 2)                     rows, h = F.contrib.foreach(loop_body, x, h)
    return F.stack(*rows), h                   return rows, h

Loops converted (the finding on the loop carries the fix):

* ``for r in t:``, ``for i, r in enumerate(t):``, ``for a, b in zip(t, u):`` (each zipped value a
  tensor: several ``data``), and ``for i in range(len(t))`` / ``range(t.shape[0])`` whose body
  reads ``t[i]`` (the HY006 finding on ``len``/``.shape`` carries it). An index counter may only
  select rows, ``u[i]`` of tensors ``u`` the body does not assign: each such ``u`` becomes one more
  ``data`` (its row replaces ``u[i]``), so the counter itself disappears.
* Names the body assigns and reads before assigning them (in one iteration) are carried from row
  to row: they are the states, and must be tensors before the loop (one state is passed as a
  tensor, several as a list). Names the body only uses within an iteration stay local to it.
* A list filled by ``lst.append(v)`` once per iteration (at the body's top level; created as
  ``lst = []`` right before the loop and used by nothing else in between) becomes a ``foreach``
  output, the stacked values; what the code does with the list afterwards is rewritten on the
  stacked tensor: ``F.stack(*lst)`` -> ``lst``; ``F.stack(*lst, axis=1)`` -> ``F.swapaxes(lst,
  dim1=0, dim2=1)``; ``F.concat(*lst, dim=0)`` -> ``F.reshape(lst, shape=(-3, -2))`` (axes 0 and 1
  merged); ``F.concat(*lst)`` / ``dim=1`` -> ``F.reshape(F.swapaxes(lst, dim1=0, dim2=1), shape=(0,
  -3, -2))``; ``F.add_n(*lst)`` -> ``F.sum(lst, axis=0)``.

Not converted (the finding stays): ``break``/``continue``/``return``/``else:`` of the loop, any
statement in the body other than assignments to names and the ``append`` (``if``, nested loops,
augmented or item assignment, ``print``), calls other than ``F`` operators, pure tensor methods and
child blocks (Python side effects, randomness of ``F`` operators), a counter used as a number, a
row the body never reads (``foreach`` demands its data be used), a state that is not a tensor
before the loop (``acc = 0``), a name the body assigns that is read after the loop without being
carried (its last value has no initial one), a loop variable read after the loop, and a list used
in any other way (``len(lst)``, ``lst[-1]``, ``return lst``).

Applicability: *safe* when the outputs and states are exactly the original's for every input on
which the original runs, and the converted code fails where it fails. Unsafe (``--unsafe-fixes``):
several ``data`` (``zip``, ``u[i]``): the original stops at the shortest (or fails on a too short
one), the graph demands equal lengths and fails when built; a loop with no list output: over zero
rows the original keeps the initial states where ``foreach`` fails; a function that updates
tensors in place: a row was a *view* of the tensor, the ``foreach`` slice is not.

``a, b = t`` -> ``a, b = [F.squeeze(part, axis=0) for part in F.split(t, num_outputs=2, axis=0)]``
(``a = F.squeeze(t, axis=0)`` for ``a, = t``): the rows exactly (a 1-D ``t`` gives parts of shape
``(1,)``, as NDArray unpacking does, where ``squeeze_axis=True`` would give ``()``). Always unsafe:
a first axis of another length raises ``MXNetError`` (from ``split`` or ``squeeze``; when the graph
is built, hybridized) instead of Python's ``ValueError`` -- a change of exception that ruff, too,
classifies as unsafe -- and the parts are no longer views of ``t``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ..analysis.events import Event, Site
from ..analysis.values import Kind
from ..diagnostics import Applicability, Edit, Fix, Location
from .control_flow import _Source, _names_in, _parents, _unique, pure
from .indexing import f_name, writes_in_place

_FORBIDDEN = (ast.Return, ast.Break, ast.Continue, ast.Raise, ast.Global, ast.Nonlocal, ast.Delete,
              ast.Yield, ast.YieldFrom, ast.Await)


# ---------------------------------------------------------------------------------------------
# what the list of per-row values is used for after the loop
def _stack_use(call: ast.Call, F: str, name: str) -> Optional[str]:
    """``F.stack(*lst)`` & co. written on the stacked tensor ``name`` (see the module doc), or
    ``None`` when this use of the list has no equivalent on it."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == F):
        return None
    if len(call.args) != 1 or not isinstance(call.args[0], ast.Starred):
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords:
        return None
    op = func.attr

    def literal(key: str, default: int) -> Optional[int]:
        node = keywords.get(key)
        if node is None:
            return default
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        return None

    swapped = f"{F}.swapaxes({name}, dim1=0, dim2=1)"
    if op == "stack" and set(keywords) <= {"axis"}:
        axis = literal("axis", 0)
        return {0: name, 1: swapped}.get(axis) if axis is not None else None
    if op in ("concat", "Concat") and set(keywords) <= {"dim"}:
        dim = literal("dim", 1)
        if dim == 0:
            return f"{F}.reshape({name}, shape=(-3, -2))"
        if dim == 1:
            return f"{F}.reshape({swapped}, shape=(0, -3, -2))"
        return None
    if op in ("add_n", "ElementWiseSum") and not keywords:
        return f"{F}.sum({name}, axis=0)"
    return None


# np mode (``npx.set_np()``): MXNet 1.9.1's ``_foreach`` takes legacy arrays only (``TypeError`` on
# np-mode ones) and ``mx.npx`` has no loop, so the arrays are bridged: ``t.as_nd_ndarray()`` into
# ``F.contrib.foreach``, the body opening with ``r = r.as_np_ndarray()`` (rows and states) and
# returning ``.as_nd_ndarray()`` values, the results ``.as_np_ndarray()`` after the call (the casts
# share memory imperatively and are no nodes in a graph); the list's use after the loop is
# ``F.np.stack``/``F.np.concatenate`` (below).
def _atom(text: str) -> bool:
    """Can ``.method()`` follow ``text`` without parentheses?"""
    try:
        return isinstance(ast.parse(text, mode="eval").body, (ast.Name, ast.Call, ast.Attribute, ast.Subscript))
    except SyntaxError:
        return False


def _np_stack_use(fn: ast.AST, name: ast.Name, F: str, stacked: str) -> Optional[tuple[ast.Call, str]]:
    """np mode: ``F.np.stack(lst, axis=0|1)`` / ``F.np.concatenate(lst, axis=0|1)`` of the list
    ``name`` as the same computation on the stacked output ``stacked`` (``F.np.swapaxes``,
    ``F.npx.reshape`` merging the first two axes: ``-5``), or ``None``."""
    call = _parent_expr(fn, name)
    func = call.func if isinstance(call, ast.Call) else None
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)
            and isinstance(func.value.value, ast.Name) and func.value.value.id == F and func.value.attr == "np"):
        return None
    assert isinstance(call, ast.Call)
    if len(call.args) != 1 or call.args[0] is not name or any(k.arg != "axis" for k in call.keywords):
        return None
    axis_node = call.keywords[0].value if call.keywords else None
    axis = 0 if axis_node is None else (axis_node.value if isinstance(axis_node, ast.Constant)
                                        and type(axis_node.value) is int else None)
    swapped = f"{F}.np.swapaxes({stacked}, 0, 1)"
    if func.attr == "stack" and axis in (0, 1):
        return call, stacked if axis == 0 else swapped
    if func.attr == "concatenate" and axis == 0:
        return call, f"{F}.npx.reshape({stacked}, (-5, -4))"
    if func.attr == "concatenate" and axis == 1:
        return call, f"{F}.npx.reshape({swapped}, (-2, -5, -4))"
    return None


# ---------------------------------------------------------------------------------------------
@dataclass
class _Plan:
    """One loop's conversion, decided before any text is written."""

    stmt: ast.For
    #: (expression of the tensor iterated, the name its row has in the body)
    data: list[tuple[ast.expr, str]] = field(default_factory=list)
    #: id(``u[i]`` node) -> the row name that replaces it in the body
    row_reads: dict[int, tuple[ast.Subscript, str]] = field(default_factory=dict)
    states: list[str] = field(default_factory=list)
    #: output list name -> (its ``lst = []`` statement, the ``lst.append(v)`` statement)
    outputs: dict[str, tuple[ast.stmt, ast.Expr]] = field(default_factory=dict)
    #: the uses of each list after the loop: (call node, replacement text)
    uses: list[tuple[ast.Call, str]] = field(default_factory=list)
    unsafe: list[str] = field(default_factory=list)
    #: the conversion may change what the code computes (``Fix.changes_results``: rows were views
    #: and the function writes tensors in place); transpile never applies such a fix
    changes_results: bool = False
    #: inputs (data, then states, by position) passed as ``F.identity(..)``: maybe the same symbol
    copied: set[int] = field(default_factory=set)


def _loads(node: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def _stores(node: ast.AST) -> set[str]:
    return _names_in(node, ast.Store)


def _enclosing_loop(fn: ast.AST, stmt: ast.stmt, parents: dict) -> bool:
    current = parents.get(id(stmt))
    while current is not None and current[0] is not fn:
        if isinstance(current[0], (ast.For, ast.While, ast.AsyncFor)):
            return True
        current = parents.get(id(current[0]))
    return False


def _live_after(fn: ast.AST, stmt: ast.stmt, names: Sequence[str], parents: dict) -> set[str]:
    """Those of ``names`` the function may read after ``stmt`` before assigning them again.

    Conservative: only a plain assignment at the same block level, after ``stmt``, ends a name's
    life; any other read after ``stmt`` (or anywhere in an enclosing loop) keeps it alive."""
    wanted = set(names)
    if not wanted:
        return set()
    end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
    if _enclosing_loop(fn, stmt, parents):
        after = {n.id for n in _loads(fn) if n.id in wanted and (n.lineno, n.col_offset) > end}
        return after | (wanted & _names_read_in_enclosing_loops(fn, stmt, parents))
    parent, field_name = parents.get(id(stmt), (fn, "body"))
    siblings = getattr(parent, field_name)
    live: set[str] = set()
    open_names = set(wanted)
    for sibling in siblings[siblings.index(stmt) + 1:]:
        if not open_names:
            break
        if isinstance(sibling, ast.Assign):
            live |= {n.id for n in _loads(sibling.value) if n.id in open_names}
            for target in sibling.targets:
                live |= {n.id for n in _loads(target) if n.id in open_names}
            open_names -= live
            killed = {t.id for t in sibling.targets if isinstance(t, ast.Name)}
            open_names -= killed
            continue
        live |= {n.id for n in _loads(sibling) if n.id in open_names}
        open_names -= live
    if open_names and parent is not fn:
        # not at the function's top level: whatever follows the enclosing statement may read it
        live |= {n.id for n in _loads(fn) if n.id in open_names and (n.lineno, n.col_offset) > end}
    return live


def _names_read_in_enclosing_loops(fn: ast.AST, stmt: ast.stmt, parents: dict) -> set[str]:
    out: set[str] = set()
    current = parents.get(id(stmt))
    while current is not None and current[0] is not fn:
        if isinstance(current[0], (ast.For, ast.While, ast.AsyncFor)):
            out |= {n.id for n in _loads(current[0])}
        current = parents.get(id(current[0]))
    return out


class _Facts:
    """What the analysis knows about the function around the loop."""

    def __init__(self, event: Event, F: str) -> None:
        self.event = event
        self.F = F
        self.site: Site = event.site
        self.fn = event.site.function.node  # type: ignore[union-attr]
        self.parents = _parents(self.fn)
        self.env = event.extra.get("env")

    def value(self, node: ast.AST):
        return self.event.value_of(node)

    def is_tensor(self, node: ast.AST) -> bool:
        value = self.value(node)
        return value is not None and value.kind is Kind.TENSOR

    def child_block(self, call: ast.Call) -> bool:
        from ..analysis.values import Category

        value = self.value(call)
        return value is not None and value.origin is not None and value.origin.category is Category.BLOCK

    def value_before(self, name: str, loop: ast.For):
        """The value ``name`` has right before ``loop`` if the analysis knows it, else ``None``."""
        if self.env is not None:
            return self.env.get(name)
        # no bindings recorded with this event: the nearest statement before the loop (same
        # block) that binds the name must be ``name = <expression>``
        parent, field_name = self.parents.get(id(loop), (self.fn, "body"))
        siblings = getattr(parent, field_name)
        for sibling in reversed(siblings[:siblings.index(loop)]):
            if name not in _stores(sibling):
                continue
            if isinstance(sibling, ast.Assign) and len(sibling.targets) == 1 and isinstance(sibling.targets[0], ast.Name):
                return self.value(sibling.value)
            return None
        return None


def _target_names(target: ast.expr) -> Optional[list[str]]:
    elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
    return [e.id for e in elts] if all(isinstance(e, ast.Name) for e in elts) else None


def _range_of(node: ast.expr) -> Optional[ast.expr]:
    """``X`` of ``range(len(X))`` / ``range(X.shape[0])`` / ``range(0, ...)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
            and not node.keywords and 1 <= len(node.args) <= 2):
        return None
    if len(node.args) == 2 and not (isinstance(node.args[0], ast.Constant) and node.args[0].value == 0
                                    and type(node.args[0].value) is int):
        return None
    bound = node.args[-1]
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len" \
            and len(bound.args) == 1 and not bound.keywords:
        return bound.args[0]
    if isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Attribute) and bound.value.attr == "shape" \
            and isinstance(bound.slice, ast.Constant) and bound.slice.value == 0 and type(bound.slice.value) is int:
        return bound.value.value
    return None


def _find_loop(fn: ast.AST, node: ast.AST) -> Optional[tuple[ast.For, str]]:
    """The ``for`` statement whose iterable is (or is built from) ``node``, and how."""
    for stmt in ast.walk(fn):
        if not isinstance(stmt, ast.For):
            continue
        it = stmt.iter
        if it is node:
            return stmt, "rows"
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name):
            if it.func.id in ("enumerate", "zip") and any(a is node for a in it.args):
                return stmt, it.func.id
            if it.func.id == "range" and any(sub is node for sub in ast.walk(it)):
                return stmt, "range"
    return None


def _plan(facts: _Facts, loop: ast.For, how: str) -> Optional[_Plan]:
    F, fn = facts.F, facts.fn
    if loop.orelse or getattr(loop, "type_comment", None):
        return None
    plan = _Plan(loop)
    counter: Optional[str] = None
    targets = _target_names(loop.target)
    if targets is None:
        return None
    it = loop.iter
    if how == "rows":
        if len(targets) != 1 or isinstance(loop.target, (ast.Tuple, ast.List)) or not facts.is_tensor(it):
            return None
        plan.data.append((it, targets[0]))
    elif how == "enumerate":
        if len(it.args) != 1 or it.keywords or len(targets) != 2 or not facts.is_tensor(it.args[0]):  # type: ignore[attr-defined]
            return None
        counter = targets[0]
        plan.data.append((it.args[0], targets[1]))  # type: ignore[attr-defined]
    elif how == "zip":
        args = it.args  # type: ignore[attr-defined]
        if it.keywords or len(targets) != len(args) or any(isinstance(a, ast.Starred) for a in args) \
                or not all(facts.is_tensor(a) for a in args):  # type: ignore[attr-defined]
            return None
        plan.data.extend(zip(args, targets))
    else:  # range(len(X)) / range(X.shape[0])
        length = _range_of(it)
        if length is None or not isinstance(length, ast.Name) or len(targets) != 1 \
                or isinstance(loop.target, (ast.Tuple, ast.List)) or not facts.is_tensor(length):
            return None
        counter = targets[0]
    if len(set(targets)) != len(targets):
        return None
    taken = _names_in(fn, ast.Store) | _names_in(fn, ast.Load) | {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)} | {
        d.name for d in ast.walk(fn) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
        and hasattr(d, "name")}

    # -- the body: assignments to names and one ``lst.append(v)`` per output list -------------------
    body = loop.body
    appends: dict[str, ast.Expr] = {}
    for stmt in body:
        if any(isinstance(n, _FORBIDDEN) for n in ast.walk(stmt)):
            return None
        if isinstance(stmt, ast.Assign):
            if any(_target_names(t) is None for t in stmt.targets) or not pure(stmt.value, F, facts.child_block):
                return None
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "append" \
                and isinstance(stmt.value.func.value, ast.Name) and len(stmt.value.args) == 1 \
                and not stmt.value.keywords and not isinstance(stmt.value.args[0], ast.Starred):
            name = stmt.value.func.value.id
            if name in appends or not pure(stmt.value.args[0], F, facts.child_block) \
                    or not facts.is_tensor(stmt.value.args[0]):
                return None
            appends[name] = stmt
        else:
            return None
    stored = set().union(*(_stores(s) for s in body)) if body else set()
    if (counter is not None and counter in stored) or stored & set(appends):
        return None

    # -- an index counter may only select rows of tensors: ``u[i]`` ------------------------------
    if counter is not None:
        rows_of: dict[str, str] = {}
        if how == "enumerate":
            rows_of[ast.unparse(plan.data[0][0])] = plan.data[0][1]
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and node.id == counter and isinstance(node.ctx, ast.Load):
                    parent = _parent_expr(stmt, node)
                    if not (isinstance(parent, ast.Subscript) and parent.slice is node
                            and isinstance(parent.value, ast.Name) and isinstance(parent.ctx, ast.Load)
                            and parent.value.id not in stored and facts.is_tensor(parent.value)):
                        return None
                    tensor_name = parent.value.id
                    if tensor_name not in rows_of:
                        row = _unique(f"{tensor_name}_row", taken)
                        rows_of[tensor_name] = row
                        plan.data.append((parent.value, row))
                    plan.row_reads[id(parent)] = (parent, rows_of[tensor_name])
        if how == "range":
            length = _range_of(it)
            first = [d for d in plan.data if isinstance(d[0], ast.Name) and d[0].id == length.id]  # type: ignore[union-attr]
            if not first:
                return None  # the rows of the tensor that sets the length are never read
            plan.data.remove(first[0])
            plan.data.insert(0, first[0])

    # every row must be read by the body before it may be reassigned (MXNet's foreach demands its
    # data be used)
    read_first: set[str] = set()
    assigned: set[str] = set()
    for stmt in body:
        read_first |= {n.id for n in _loads(stmt)} - assigned
        assigned |= _stores(stmt)
    for expr, row in plan.data:
        if row not in read_first and not any(r == row for _, r in plan.row_reads.values()):
            return None

    # -- states: assigned, and read before being assigned in an iteration ------------------------
    seen_store: set[str] = set()
    carried: list[str] = []
    for stmt in body:
        loads = [n.id for n in _loads(stmt)]
        for name in loads:
            if name in stored and name not in seen_store and name not in carried and name not in targets:
                carried.append(name)
        seen_store |= _stores(stmt)
    initial = [facts.value_before(name, loop) for name in carried]
    if any(v is None or v.kind is not Kind.TENSOR for v in initial):
        return None
    plan.states = carried
    # foreach names its body's inputs after the outer symbols: one symbol passed twice (``hi =
    # lo`` as two states, ``zip(h, h)``) must be copied, or the graph cannot be built
    seen: list = []
    for i, value in enumerate([facts.value(e) for e, _ in plan.data] + initial):
        if value is None or value.origin is None or any(value is v or value.origin == v.origin for v in seen):
            plan.copied.add(i)
        seen.append(value)
    if not carried and not appends:
        return None  # nothing the loop computes is used: dead code is left to its author
    live = _live_after(fn, loop, sorted((stored | set(targets)) - set(carried)), facts.parents)
    if live:
        return None

    # -- output lists ---------------------------------------------------------------------------
    parent, field_name = facts.parents.get(id(loop), (fn, "body"))
    siblings = getattr(parent, field_name)
    index = siblings.index(loop)
    for name, append in appends.items():
        init = None
        for sibling in reversed(siblings[:index]):
            if name in _stores(sibling) or name in {n.id for n in _loads(sibling)}:
                init = sibling
                break
        if not (isinstance(init, ast.Assign) and len(init.targets) == 1 and isinstance(init.targets[0], ast.Name)
                and isinstance(init.value, ast.List) and not init.value.elts):
            return None
        # the list: nowhere else assigned, read only by its append and by mappable uses after
        if sum(1 for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)) != 1:
            return None
        uses = []
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                if node is append.value.func.value:  # type: ignore[attr-defined]
                    continue
                if (node.lineno, node.col_offset) < (loop.end_lineno or loop.lineno, loop.end_col_offset or 0):
                    return None
                uses.append(node)
        if not uses:
            return None
        for use in uses:
            if facts.site.np_mode:
                found = _np_stack_use(fn, use, F, name)
                if found is None:
                    return None
                plan.uses.append(found)
                continue
            call = _use_call(fn, use)
            text = _stack_use(call, F, name) if call is not None else None
            if text is None:
                return None
            plan.uses.append((call, text))  # type: ignore[arg-type]
        plan.outputs[name] = (init, append)

    # -- applicability --------------------------------------------------------------------------
    if len(plan.data) > 1:
        plan.unsafe.append("the iterated tensors are assumed to have the same number of rows")
    if not plan.outputs:
        plan.unsafe.append("over zero rows the loop kept the initial states, `foreach` fails")
    if writes_in_place(facts.site):
        plan.unsafe.append("a row was a view of its tensor, a `foreach` slice is not")
        plan.changes_results = True
    return plan


def _parent_expr(root: ast.AST, target: ast.AST) -> Optional[ast.AST]:
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            if child is target:
                return node
    return None


def _use_call(fn: ast.AST, name: ast.Name) -> Optional[ast.Call]:
    """The call ``F.op(*name, ...)`` that ``name`` is star-unpacked into, if it is."""
    starred = _parent_expr(fn, name)
    if not isinstance(starred, ast.Starred):
        return None
    call = _parent_expr(fn, starred)
    return call if isinstance(call, ast.Call) and starred in call.args else None


# ---------------------------------------------------------------------------------------------
# writing the conversion
def _trailing(site: Site, row: int, byte_col: int) -> str:
    """The comment after byte column ``byte_col`` of line ``row`` (``""`` if none)."""
    rest = site.lines[row - 1].rstrip("\r\n").encode("utf-8")[byte_col:].decode("utf-8", "replace").strip()
    return rest if rest.startswith("#") else ""


def _header_comment(site: Site, loop: ast.For) -> tuple[int, str]:
    """The last line of the ``for ...:`` header and the comment after its colon."""
    row = loop.iter.end_lineno or loop.iter.lineno
    rest = site.lines[row - 1].rstrip("\r\n").encode("utf-8")[loop.iter.end_col_offset or 0:].decode("utf-8", "replace")
    colon = rest.find(":")
    comment = rest[colon + 1:].strip() if colon >= 0 else ""
    return row, comment if comment.startswith("#") else ""


def _segment(site: Site, body: Sequence[ast.stmt], replacements: list[tuple[ast.AST, str]],
             indent: str, first: Optional[int] = None) -> list[str]:
    """The source lines of ``body`` (from line ``first``, to keep comments above it) with
    ``replacements`` (node -> text) applied, re-indented."""
    first, last = first or body[0].lineno, body[-1].end_lineno or body[-1].lineno
    lines = [line.rstrip("\r\n") for line in site.lines[first - 1:last]]
    for node, text in sorted(replacements, key=lambda r: (r[0].lineno, r[0].col_offset), reverse=True):
        row, col, end_row, end_col = site.span(node)
        i, j = row - first, end_row - first
        head, tail = lines[i][:col - 1], lines[j][end_col - 1:]
        lines[i:j + 1] = [head + text + tail]
    head = site.lines[body[0].lineno - 1]
    old = head[: len(head) - len(head.lstrip(" \t"))]
    return [indent + line[len(old):] if line.startswith(old) else (indent + line.lstrip() if line.strip() else "")
            for line in lines]


def _line_span(site: Site, stmt: ast.stmt) -> Optional[tuple[int, int]]:
    """Rows of ``stmt`` if it stands alone on its lines (nothing before it, only a comment after)."""
    first, last = stmt.lineno, stmt.end_lineno or stmt.lineno
    line = site.lines[first - 1]
    if line[: stmt.col_offset].strip():
        return None
    rest = site.lines[last - 1].encode("utf-8")[stmt.end_col_offset or 0:].decode("utf-8", "replace").strip()
    if rest and not rest.startswith("#"):
        return None
    return first, last


def _edits(facts: _Facts, plan: _Plan) -> list[Edit]:
    site, F, fn, loop = facts.site, facts.F, facts.fn, plan.stmt
    src = _Source(site)
    taken = _names_in(fn, ast.Store) | _names_in(fn, ast.Load) | {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)} | {
        d.name for d in ast.walk(fn) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    taken |= {row for _, row in plan.data}
    indent = src.indent_of(loop)
    inner = src.indent_of(loop.body[0])
    unit = inner[len(indent):] if inner.startswith(indent) and len(inner) > len(indent) else "    "
    body_name = _unique("loop_body", taken)

    # the per-row values: the last statement's is returned as it is, others are kept in a name
    returned: list[str] = []
    replacements: list[tuple[ast.AST, str]] = [(node, row) for node, row in plan.row_reads.values()]
    kept = list(loop.body)
    for name, (_, append) in plan.outputs.items():
        value = append.value.args[0]  # type: ignore[attr-defined]
        if append is loop.body[-1] and len(plan.outputs) == 1 \
                and not _trailing(site, append.end_lineno or append.lineno, append.end_col_offset or 0):
            kept.remove(append)
            returned.append(_expression(site, value, plan))
        else:
            row = _unique(f"{name}_row", taken)
            replacements.append((append, f"{row} = {src.expr(value)}"))
            returned.append(row)
    lines: list[str] = []
    np_mode = site.np_mode

    def arg(i: int, text: str) -> str:
        if np_mode:  # (MXNet 1.9.1's ``_foreach`` takes legacy arrays: bridged both ways)
            text = f"{text}.as_nd_ndarray()"
        return f"{F}.identity({text})" if i in plan.copied else text

    def to_np(names: list[str]) -> str:
        return f"{', '.join(names)} = {', '.join(f'{n}.as_np_ndarray()' for n in names)}"

    def to_nd(text: str) -> str:
        return f"{text}.as_nd_ndarray()" if _atom(text) else f"({text}).as_nd_ndarray()"

    data_texts = [arg(i, src.expr(e)) for i, (e, _) in enumerate(plan.data)]
    state_texts = [arg(len(plan.data) + i, name) for i, name in enumerate(plan.states)]
    if len(plan.data) == 1:
        data_param, data_arg = plan.data[0][1], data_texts[0]
    else:
        data_param = _unique("rows", taken)
        data_arg = "[" + ", ".join(data_texts) + "]"
    if len(plan.states) == 1:
        state_param = states_out = plan.states[0]
        init = state_texts[0]
    elif plan.states:
        state_param = _unique("states", taken)
        states_out = "[" + ", ".join(plan.states) + "]"
        init = "[" + ", ".join(state_texts) + "]"
    else:
        state_param = _unique("states", taken)
        init = states_out = "[]"
    lines.append(f"{indent}def {body_name}({data_param}, {state_param}):")
    if len(plan.data) > 1:
        lines.append(f"{indent}{unit}{', '.join(row for _, row in plan.data)} = {data_param}")
    if len(plan.states) > 1:
        lines.append(f"{indent}{unit}{', '.join(plan.states)} = {state_param}")
    if np_mode:
        lines.append(f"{indent}{unit}{to_np([row for _, row in plan.data] + plan.states)}")
    header_row, header_comment = _header_comment(site, loop)
    if kept:
        lines.extend(_segment(site, kept, [r for r in replacements if _inside(r[0], kept)], indent + unit,
                              first=header_row + 1 if header_row < kept[0].lineno else None))
    if np_mode:
        returned = [to_nd(r) for r in returned]
        states_out_value = states_out if not plan.states else (
            to_nd(plan.states[0]) if len(plan.states) == 1 else "[" + ", ".join(map(to_nd, plan.states)) + "]")
    else:
        states_out_value = states_out
    out_value = returned[0] if len(returned) == 1 else "[" + ", ".join(returned) + "]"
    lines.append(f"{indent}{unit}return {out_value}, {states_out_value}")
    names = list(plan.outputs)
    if not names:
        out_target = "_" if "_" not in taken else _unique("unused_outputs", taken)
    else:
        out_target = names[0] if len(names) == 1 else "[" + ", ".join(names) + "]"
    states_target = states_out if plan.states else ("_" if "_" not in taken else _unique("unused_states", taken))
    lines.append(f"{indent}{out_target}, {states_target} = {F}.contrib.foreach({body_name}, {data_arg}, {init})"
                 + (f"  {header_comment}" if header_comment else ""))
    if np_mode and (names or plan.states):
        lines.append(f"{indent}{to_np(names + plan.states)}")

    row, col, _, _ = site.span(loop)
    end_row = loop.end_lineno or loop.lineno
    end_line = site.lines[end_row - 1].rstrip("\r\n")
    edits = [Edit(Location(row, col), Location(end_row, len(end_line) + 1), "\n".join(lines)[len(indent):])]
    for name, (init_stmt, _) in plan.outputs.items():
        span = _line_span(site, init_stmt)
        if span is not None:  # ``lst = []`` goes (left in place when it shares its line)
            comment = _trailing(site, span[1], init_stmt.end_col_offset or 0)
            kept_line = src.indent_of(init_stmt) + comment + "\n" if comment else ""
            edits.append(Edit(Location(span[0], 1), Location(span[1] + 1, 1), kept_line))
    for call, text in plan.uses:
        r, c, er, ec = site.span(call)
        edits.append(Edit(Location(r, c), Location(er, ec), text))
    return edits


def _inside(node: ast.AST, stmts: Sequence[ast.stmt]) -> bool:
    return any(sub is node for stmt in stmts for sub in ast.walk(stmt))


def _expression(site: Site, node: ast.expr, plan: _Plan) -> str:
    """Source of ``node`` with the plan's row reads replaced."""
    text = _segment_expr(site, node, [(n, row) for n, row in plan.row_reads.values() if _inside(n, [node])])
    return text if "\n" not in text and not isinstance(node, (ast.IfExp, ast.Lambda, ast.NamedExpr)) else f"({text})"


def _segment_expr(site: Site, node: ast.expr, replacements: list[tuple[ast.AST, str]]) -> str:
    text = site.source(node)
    row0, col0, _, _ = site.span(node)
    lines = text.split("\n")
    for sub, repl in sorted(replacements, key=lambda r: (r[0].lineno, r[0].col_offset), reverse=True):
        row, col, end_row, end_col = site.span(sub)
        i, j = row - row0, end_row - row0
        start = col - (col0 if i == 0 else 1)
        end = end_col - (col0 if j == 0 else 1)
        lines[i:j + 1] = [lines[i][:start] + repl + lines[j][end:]]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
def _scope(event: Event) -> Optional[tuple[str, ast.AST]]:
    """The ``F`` name and the function node a loop fix rewrites in; ``None`` (no fix) outside a
    function or where there is no ``F`` to build the graph operators with (``f_name``)."""
    if event.site.function is None:
        return None
    F = f_name(event.site)
    return None if F is None else (F, event.site.function.node)


def row_loop_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """The fix of a finding on a loop over a tensor's rows (HY005 on ``for r in t`` / ``enumerate``
    / ``zip``; HY006 on ``range(len(t))`` / ``range(t.shape[0])``), or ``None``."""
    scope = _scope(event)
    if scope is None:
        return None
    F, fn = scope
    found = _find_loop(fn, event.node)
    if found is None:
        return None
    loop, how = found
    facts = _Facts(event, F)
    plan = _plan(facts, loop, how)
    if plan is None:
        return None
    message = f"Loop over the rows in the graph with `{F}.contrib.foreach`"
    if event.site.np_mode:
        message += " (np-mode arrays bridged with `as_nd_ndarray`/`as_np_ndarray`)"
    if plan.unsafe:
        message += " (unsafe: " + "; ".join(plan.unsafe) + ")"
    applicability = Applicability.UNSAFE if plan.unsafe else Applicability.SAFE
    return Fix(message, tuple(_edits(facts, plan)) if with_edits else (), applicability, plan.changes_results)


_RANGE_NODES: dict[int, tuple[ast.AST, frozenset[int]]] = {}


def in_range_loop(event: Event) -> bool:
    """Is this HY006 event the ``len(t)`` / ``t.shape`` of a ``for i in range(...)``? (On the
    checker's path for every HY006 finding: one walk per function, cached.)"""
    fn = event.site.function.node if event.site.function is not None else None
    if fn is None:
        return False
    cached = _RANGE_NODES.get(id(fn))
    if cached is None or cached[0] is not fn:
        ids = frozenset(id(sub) for stmt in ast.walk(fn) if isinstance(stmt, ast.For)
                        and isinstance(stmt.iter, ast.Call) and isinstance(stmt.iter.func, ast.Name)
                        and stmt.iter.func.id == "range" for sub in ast.walk(stmt.iter))
        if len(_RANGE_NODES) > 64:
            _RANGE_NODES.clear()
        cached = _RANGE_NODES[id(fn)] = (fn, ids)
    return id(event.node) in cached[1]


def unpack_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """``a, b = t`` -> ``a, b = [F.squeeze(part, axis=0) for part in F.split(t, ...)]`` (unsafe); in
    np-mode code ``F.np.squeeze`` of ``F.np.split(t, n, axis=0)`` (a list on an np-mode Symbol too)."""
    scope = _scope(event)
    if scope is None:
        return None
    F, fn = scope
    stmt = next((s for s in ast.walk(fn) if isinstance(s, ast.Assign) and s.value is event.node), None)
    if stmt is None or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], (ast.Tuple, ast.List)):
        return None
    names = _target_names(stmt.targets[0])
    if not names or not pure(stmt.value, F):
        return None
    np_mode = event.site.np_mode
    split = f"{F}.np.split" if np_mode else f"{F}.split"
    squeeze = f"{F}.np.squeeze" if np_mode else f"{F}.squeeze"
    message = (f"Split the rows with `{split}` (unsafe: a first axis of another length raises MXNetError "
               f"instead of ValueError; the parts are no longer views)")
    # the parts were views: with tensors written in place, the copies may compute something else
    changes = writes_in_place(event.site)
    if not with_edits:
        return Fix(message, (), Applicability.UNSAFE, changes)
    src = _Source(event.site)
    value = src.expr(stmt.value)
    if len(names) == 1:
        text = f"{squeeze}({value}, axis=0)"
    else:
        taken = _names_in(fn, ast.Store) | _names_in(fn, ast.Load)
        part = _unique("part", taken)
        sections = str(len(names)) if np_mode else f"num_outputs={len(names)}"
        text = f"[{squeeze}({part}, axis=0) for {part} in {split}({value}, {sections}, axis=0)]"
    row, col, end_row, end_col = event.site.span(stmt.value)
    if len(names) == 1:
        # ``a, = t`` -> ``a = F.squeeze(t, axis=0)``: the target loses its tuple
        trow, tcol, _, _ = event.site.span(stmt.targets[0])
        return Fix(message, (Edit(Location(trow, tcol), Location(end_row, end_col), f"{names[0]} = {text}"),),
                   Applicability.UNSAFE, changes)
    return Fix(message, (Edit(Location(row, col), Location(end_row, end_col), text),), Applicability.UNSAFE, changes)


# ---------------------------------------------------------------------------------------------
# bounded ``while`` loops on a tensor condition: ``F.contrib.while_loop``
#
# MXNet's ``while_loop(cond, func, loop_vars, max_iterations)`` needs a static bound. Two forms have
# one that can be shown:
#
#   i = 0                                       def loop_step(h):
#   while i < n and F.norm(h) > 1:                  h = h / 2
#       h = h / 2                       ->          return [], [h]
#       i += 1                                  _, [h] = F.contrib.while_loop(lambda h: F.norm(h) > 1,
#                                                                             loop_step, [h], max_iterations=n)
#
# (a counter from an int literal, ``+= 1`` once per iteration, read nowhere else, against a bound the
# body does not change: ``max_iterations`` is the bound minus the start), and
#
#   for _ in range(n):
#       if F.norm(h) <= 1:              ->      ... F.contrib.while_loop(lambda h: F.logical_not(F.norm(h) <= 1), ...)
#           break
#       h = h / 2
#
# The loop variables are the names the body carries from one iteration to the next (all tensors
# before the loop); the body may only assign names (no lists: ``while_loop`` pads its step outputs
# to ``max_iterations`` once hybridized). MXNet 1.9.1 refuses ``max_iterations=0`` when the graph
# is built, so a bound that is 0 at run time fails there (imperatively the loop runs 0 times, as
# the original did). Safe: the condition is evaluated before every iteration, as Python's.


@dataclass
class _WhilePlan:
    stmt: ast.stmt            # the ``while`` (or ``for ... in range``) statement replaced
    body: list[ast.stmt]      # the statements of one iteration (counter and ``if ..: break`` left out)
    test: ast.expr            # the tensor condition as written
    cond: str                 # the condition ``while_loop`` evaluates (negated for ``if c: break``)
    bound: str                # ``max_iterations``
    loop_vars: list[str] = field(default_factory=list)
    copied: set[int] = field(default_factory=set)
    #: ``i = 0`` of a counter nothing else reads: removed with the loop
    counter_init: Optional[ast.stmt] = None


def _is_increment(stmt: ast.stmt, name: str) -> bool:
    """``name += 1`` / ``name = name + 1``."""
    one = lambda n: isinstance(n, ast.Constant) and n.value == 1 and type(n.value) is int  # noqa: E731
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == name and isinstance(stmt.op, ast.Add) \
            and one(stmt.value)
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
        and stmt.targets[0].id == name and isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, ast.Add) \
        and isinstance(stmt.value.left, ast.Name) and stmt.value.left.id == name and one(stmt.value.right)


def _static_bound(facts: _Facts, node: ast.expr, body: Sequence[ast.stmt]) -> bool:
    """A Python value the loop cannot change: a literal, or an expression of names/attributes that
    the analysis knows are not tensors and the body does not assign."""
    stored = set().union(*(_stores(s) for s in body)) if body else set()
    if any(isinstance(n, (ast.Call, ast.Subscript, ast.Lambda, ast.NamedExpr)) for n in ast.walk(node)):
        return False
    if {n.id for n in _loads(node)} & stored:
        return False
    value = facts.value(node)
    return isinstance(node, ast.Constant) and type(node.value) is int or (value is not None and value.kind is Kind.STATIC)


def _int_start(facts: _Facts, loop: ast.stmt, name: str) -> Optional[tuple[int, ast.stmt]]:
    """The int literal ``name`` is set to by the nearest statement before ``loop`` (same block),
    and that statement."""
    parent, field_name = facts.parents.get(id(loop), (facts.fn, "body"))
    siblings = getattr(parent, field_name)
    for sibling in reversed(siblings[:siblings.index(loop)]):
        if name not in _stores(sibling) and name not in {n.id for n in _loads(sibling)}:
            continue
        if isinstance(sibling, ast.Assign) and len(sibling.targets) == 1 and isinstance(sibling.targets[0], ast.Name) \
                and isinstance(sibling.value, ast.Constant) and type(sibling.value.value) is int:
            return sibling.value.value, sibling
        return None
    return None


def _bound_text(src: _Source, bound: ast.expr, start: int, inclusive: bool) -> Optional[str]:
    extra = (1 if inclusive else 0) - start
    if isinstance(bound, ast.Constant):
        total = bound.value + extra
        return str(total) if total >= 1 else None  # a loop that never runs: nothing to convert
    text = src.expr(bound)
    if extra == 0:
        return text
    if not isinstance(bound, (ast.Name, ast.Attribute)):
        text = f"({text})"
    return f"{text} + {extra}" if extra > 0 else f"{text} - {-extra}"


def _counted_while(facts: _Facts, loop: ast.While) -> Optional[_WhilePlan]:
    """``while i < n and c:`` / ``while c and i < n:`` with ``i = <int>`` before and ``i += 1`` inside."""
    test = loop.test
    if loop.orelse or not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and len(test.values) == 2):
        return None
    counter = cond = None
    bound: Optional[ast.expr] = None
    inclusive = False
    for i, part in enumerate(test.values):
        other = test.values[1 - i]
        if isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.left, ast.Name) \
                and isinstance(part.ops[0], (ast.Lt, ast.LtE)):
            counter, bound, cond = part.left.id, part.comparators[0], other
            inclusive = isinstance(part.ops[0], ast.LtE)
            break
    if counter is None or bound is None or cond is None:
        return None
    increments = [s for s in loop.body if _is_increment(s, counter)]
    if len(increments) != 1:
        return None
    body = [s for s in loop.body if s is not increments[0]]
    uses = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == counter]
    if uses or counter in {n.id for n in _loads(cond)} or not _static_bound(facts, bound, loop.body):
        return None
    found = _int_start(facts, loop, counter)
    if found is None or _live_after(facts.fn, loop, [counter], facts.parents):
        return None
    bound_text = _bound_text(_Source(facts.site), bound, found[0], inclusive)
    if bound_text is None:
        return None
    return _WhilePlan(loop, body, cond, _Source(facts.site).expr(cond), bound_text, counter_init=found[1])


def _breaking_for(facts: _Facts, stmt: ast.If) -> Optional[_WhilePlan]:
    """``for _ in range(n): if c: break; ...`` (the ``if`` first in the body, ``break`` all it does)."""
    parent = facts.parents.get(id(stmt))
    loop = parent[0] if parent is not None else None
    if not isinstance(loop, ast.For) or parent[1] != "body" or loop.body[0] is not stmt or loop.orelse:
        return None
    if stmt.orelse or len(stmt.body) != 1 or not isinstance(stmt.body[0], ast.Break):
        return None
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1
            and not it.keywords and isinstance(loop.target, ast.Name)):
        return None
    body = loop.body[1:]
    target = loop.target.id
    if any(isinstance(n, ast.Name) and n.id == target for s in loop.body for n in ast.walk(s)) \
            or _live_after(facts.fn, loop, [target], facts.parents) or not _static_bound(facts, it.args[0], loop.body):
        return None
    bound_text = _bound_text(_Source(facts.site), it.args[0], 0, False)
    if bound_text is None:
        return None
    return _WhilePlan(loop, body, stmt.test, f"{facts.F}.logical_not({_Source(facts.site).expr(stmt.test)})",
                      bound_text)


def _while_vars(facts: _Facts, plan: _WhilePlan) -> Optional[_WhilePlan]:
    """Check the body (names assigned from pure expressions only) and find the loop variables."""
    F, body, cond = facts.F, plan.body, plan.test
    if not body:
        return None
    for stmt in body:
        if not isinstance(stmt, ast.Assign) or any(isinstance(n, _FORBIDDEN) for n in ast.walk(stmt)) \
                or any(_target_names(t) is None for t in stmt.targets) or not pure(stmt.value, F, facts.child_block):
            return None
    if not pure(cond, F) or not facts.is_tensor(cond):
        return None
    stored = set().union(*(_stores(s) for s in body))
    carried: list[str] = []
    seen: set[str] = set()
    for stmt in body:
        for name in (n.id for n in _loads(stmt)):
            if name in stored and name not in seen and name not in carried:
                carried.append(name)
        seen |= _stores(stmt)
    if not carried or ({n.id for n in _loads(cond)} & stored) - set(carried):
        return None  # the condition reads a name the body only overwrites: no value to start from
    initial = [facts.value_before(name, plan.stmt) for name in carried]  # type: ignore[arg-type]
    if any(v is None or v.kind is not Kind.TENSOR for v in initial):
        return None
    if _live_after(facts.fn, plan.stmt, sorted(stored - set(carried)), facts.parents):
        return None
    plan.loop_vars = carried
    for i, value in enumerate(initial):
        if value.origin is None or any(value is v or value.origin == v.origin for v in initial[:i]):
            plan.copied.add(i)
    return plan


def _while_edits(facts: _Facts, plan: _WhilePlan, header_row: int, header_comment: str) -> list[Edit]:
    site, F, fn, loop = facts.site, facts.F, facts.fn, plan.stmt
    src = _Source(site)
    taken = _names_in(fn, ast.Store) | _names_in(fn, ast.Load) | {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)} | {
        d.name for d in ast.walk(fn) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    indent = src.indent_of(loop)
    inner = src.indent_of(plan.body[0])
    unit = inner[len(indent):] if inner.startswith(indent) and len(inner) > len(indent) else "    "
    step = _unique("loop_step", taken)
    params = ", ".join(plan.loop_vars)
    listed = "[" + params + "]"
    init = "[" + ", ".join(f"{F}.identity({n})" if i in plan.copied else n for i, n in enumerate(plan.loop_vars)) + "]"
    if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and loop.target.id == "_" \
            and not any(isinstance(n, ast.Name) and n.id == "_" for n in ast.walk(fn) if not _inside(n, [loop])):
        taken.discard("_")  # only the replaced ``for _ in range(n)`` used it
    unused = "_" if "_" not in taken else _unique("unused_outputs", taken)
    lines = [f"{indent}def {step}({params}):"]
    # comments between the header (and a skipped ``if c: break``) and the body stay with the body
    skipped = [s.end_lineno or s.lineno for s in getattr(loop, "body") if s not in plan.body
               and s.lineno < plan.body[0].lineno]
    first = max([header_row] + skipped) + 1
    lines.extend(_segment(site, plan.body, [], indent + unit, first=first if first < plan.body[0].lineno else None))
    lines.append(f"{indent}{unit}return [], {listed}")
    lines.append(f"{indent}{unused}, {listed} = {F}.contrib.while_loop(lambda {params}: {plan.cond}, {step}, {init}, "
                 f"max_iterations={plan.bound})" + (f"  {header_comment}" if header_comment else ""))
    row, col, _, _ = site.span(loop)
    end_row = loop.end_lineno or loop.lineno
    end_line = site.lines[end_row - 1].rstrip("\r\n")
    edits = [Edit(Location(row, col), Location(end_row, len(end_line) + 1), "\n".join(lines)[len(indent):])]
    span = _line_span(site, plan.counter_init) if plan.counter_init is not None else None
    if span is not None:
        comment = _trailing(site, span[1], plan.counter_init.end_col_offset or 0)  # type: ignore[union-attr]
        edits.append(Edit(Location(span[0], 1), Location(span[1] + 1, 1),
                          src.indent_of(plan.counter_init) + comment + "\n" if comment else ""))  # type: ignore[arg-type]
    return edits


def while_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """HY004 on ``while <tensor condition>`` bounded by a counter, or on ``if c: break`` opening a
    ``for _ in range(n)`` loop: ``F.contrib.while_loop`` (see above), or ``None``."""
    scope = _scope(event) if event.construct in ("while", "if") and not event.site.np_mode else None
    if scope is None:  # (np mode: MXNet 1.9.1's ``_while_loop`` takes legacy arrays only)
        return None
    F, fn = scope
    owner = next((n for n in ast.walk(fn) if isinstance(n, (ast.While, ast.If)) and n.test is event.node), None)
    if owner is None:
        return None
    facts = _Facts(event, F)
    if isinstance(owner, ast.While):
        plan = _counted_while(facts, owner)
        header_row = owner.test.end_lineno or owner.test.lineno
        rest = facts.site.lines[header_row - 1].rstrip("\r\n").encode("utf-8")[owner.test.end_col_offset or 0:].decode(
            "utf-8", "replace")
        header_comment = rest[rest.find(":") + 1:].strip() if ":" in rest else ""
    else:
        plan = _breaking_for(facts, owner)
        header_row, header_comment = _header_comment(facts.site, plan.stmt) if plan is not None else (0, "")  # type: ignore[arg-type]
    if plan is None or _while_vars(facts, plan) is None:
        return None
    message = f"Loop in the graph with `{F}.contrib.while_loop` (max_iterations={plan.bound})"
    edits = tuple(_while_edits(facts, plan, header_row, header_comment if header_comment.startswith("#") else "")) \
        if with_edits else ()
    return Fix(message, edits, Applicability.SAFE)


# ---------------------------------------------------------------------------------------------
# list comprehensions over rows: ``F.stack(*[f(r) for r in t])``, ``outs = [f(r) for r in t]``
def comprehension_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """HY005 on ``[f(r) for r in t]`` whose list is only star-unpacked into ``F.stack`` /
    ``F.concat`` / ``F.add_n`` (directly, or through one name): the stacked ``foreach`` output,
    ``F.contrib.foreach(lambda r, states: (f(r), []), t, [])[0]``, with the use rewritten on it."""
    scope = _scope(event)
    if scope is None:
        return None
    F, fn = scope
    comp = next((n for n in ast.walk(fn) if isinstance(n, (ast.ListComp, ast.GeneratorExp))
                 and n.generators[0].iter is event.node), None)
    if comp is None or len(comp.generators) != 1:
        return None
    gen = comp.generators[0]
    facts = _Facts(event, F)
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name) or not facts.is_tensor(gen.iter) \
            or not pure(comp.elt, F, facts.child_block) or not facts.is_tensor(comp.elt) \
            or gen.target.id not in {n.id for n in _loads(comp.elt)}:
        return None
    src = _Source(event.site)
    taken = _names_in(fn, ast.Store) | _names_in(fn, ast.Load) | {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)}
    states = _unique("states", taken)
    np_mode = event.site.np_mode
    if np_mode:  # arrays bridged to the legacy ``_foreach`` (see ``_np_stack_use``)
        row = gen.target.id
        elt = _segment_expr(event.site, comp.elt, [(n, f"{row}.as_np_ndarray()") for n in _loads(comp.elt)
                                                   if n.id == row])
        elt = elt if _atom(elt) else f"({elt})"
        stacked = (f"{F}.contrib.foreach(lambda {row}, {states}: ({elt}.as_nd_ndarray(), []), "
                   f"{src.expr(gen.iter)}.as_nd_ndarray(), [])[0].as_np_ndarray()")
    else:
        stacked = (f"{F}.contrib.foreach(lambda {gen.target.id}, {states}: ({src.expr(comp.elt)}, []), "
                   f"{src.expr(gen.iter)}, [])[0]")
    parent = _parent_expr(fn, comp)
    edits: list[Edit] = []
    if np_mode and isinstance(parent, ast.Call):
        found = _np_stack_use(fn, comp, F, stacked)  # type: ignore[arg-type]
        if found is None:
            return None
        edits.append(_node_edit(event.site, found[0], found[1]))
    elif isinstance(parent, ast.Starred) and not np_mode:
        call = _parent_expr(fn, parent)
        text = _stack_use(call, F, stacked) if isinstance(call, ast.Call) and parent in call.args else None
        if text is None:
            return None
        edits.append(_node_edit(event.site, call, text))  # type: ignore[arg-type]
    elif isinstance(parent, ast.Assign) and isinstance(comp, ast.ListComp) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        if sum(1 for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)) != 1:
            return None
        uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if not uses:
            return None
        edits.append(_node_edit(event.site, comp, stacked))
        for use in uses:
            if (use.lineno, use.col_offset) < (parent.end_lineno or parent.lineno, parent.end_col_offset or 0):
                return None
            if np_mode:
                found = _np_stack_use(fn, use, F, name)
                if found is None:
                    return None
                edits.append(_node_edit(event.site, found[0], found[1]))
                continue
            call = _use_call(fn, use)
            text = _stack_use(call, F, name) if call is not None else None
            if text is None:
                return None
            edits.append(_node_edit(event.site, call, text))  # type: ignore[arg-type]
    else:
        return None
    unsafe = writes_in_place(event.site)
    message = f"Map the rows in the graph with `{F}.contrib.foreach`"
    if unsafe:
        message += " (unsafe: a row was a view of its tensor, a `foreach` slice is not)"
    return Fix(message, tuple(edits) if with_edits else (), Applicability.UNSAFE if unsafe else Applicability.SAFE,
               unsafe)


def _node_edit(site: Site, node: ast.AST, text: str) -> Edit:
    row, col, end_row, end_col = site.span(node)
    return Edit(Location(row, col), Location(end_row, end_col), text)
