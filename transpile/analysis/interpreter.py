"""The tensor dataflow: an abstract interpreter over function bodies.

It executes a function's statements on abstract :class:`~.values.Value` s instead of real
objects: ``x = self.fc(x)`` binds ``x`` to "the result of a child block"; ``if``/``else``
branches are analysed separately and joined; loops run to a fixpoint; calls of methods of the
same class, module helpers and nested functions/lambdas are analysed with the abstract arguments
of the call (depth-limited). Along the way it emits :class:`~.events.Event` s (what was done to
which value) for the rules, and records usage :class:`~.events.Evidence` that decides values
left open (a ``hybrid_forward`` input may be a tensor or a list of tensors).

Branches that only run imperatively (``if F is nd:``, ``if isinstance(x, nd.NDArray):``) are
not analysed as symbolic code; their ``else`` is.

The trees are CPython :mod:`ast` trees, which the checker already has from validating the file:
analysing them costs a fraction of building libcst trees, and their nodes carry positions.
"""
from __future__ import annotations

import ast
import re
from typing import Any, Callable, Iterable, NamedTuple, Optional, Sequence, Union

from . import knowledge as K
from . import broadcast as BC
from .aux_states import AUX_INPUTS
from . import shapes as SH
from .events import Event, EventKind, Evidence, Site
from .index import ClassInfo, ModuleIndex
from .values import STATIC, Category, Kind, Origin, Value, join, replace, seq, static, tensor

MAX_CALL_DEPTH = 4
LOOP_ITERATIONS = 3

_SELF = Value(Kind.STATIC, qual="<self>")
FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
_ORDERING = (ast.Lt, ast.Gt, ast.LtE, ast.GtE)
_IDENTITY = (ast.Is, ast.IsNot, ast.In, ast.NotIn)
#: Annotations saying an input is a container (or optional): ``List[Tensor]``, ``Tuple[..]``, ``Optional[..]``.
_CONTAINER_ANNOTATION = re.compile(r"\b(List|Tuple|Sequence|Iterable|Dict|Mapping|Optional|Union|list|tuple|dict)\b")
#: Builtins whose use on an input says the code allows for it not being a tensor (see ``saw_hedge``).
HEDGING_BUILTINS = frozenset({"isinstance", "type", "len"})


class Arg(NamedTuple):
    """One argument of a call as written: its expression, keyword name and ``*``/``**``."""

    node: ast.expr
    keyword: Optional[str]
    star: str


def call_args(call: ast.Call) -> list[Arg]:
    out = [Arg(a.value, None, "*") if isinstance(a, ast.Starred) else Arg(a, None, "") for a in call.args]
    out.extend(Arg(k.value, k.arg, "**" if k.arg is None else "") for k in call.keywords)
    return out


def _is_string(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, ast.JoinedStr)


class Env:
    """Name bindings of one function activation; ``parent`` is the enclosing function's."""

    def __init__(self, parent: Optional["Env"] = None, names: Optional[dict[str, Value]] = None) -> None:
        self.parent = parent
        self.names: dict[str, Value] = dict(names or {})

    def lookup(self, name: str) -> Optional[Value]:
        env: Optional[Env] = self
        while env is not None:
            if name in env.names:
                return env.names[name]
            env = env.parent
        return None

    def copy(self) -> "Env":
        return Env(self.parent, self.names)

    def join_from(self, other: "Env") -> None:
        for name, value in other.names.items():
            mine = self.names.get(name)
            self.names[name] = value if mine is None else join(mine, value)

    def same(self, other: "Env") -> bool:
        return self.names == other.names


class FunctionContext:
    """The function being analysed: where it is, its class, and the values it returns."""

    def __init__(self, site: Site, cls: Optional[ClassInfo], display: str) -> None:
        self.site = site
        self.cls = cls
        self.display = display
        self.returns: list[Value] = []


class Interpreter:
    """One analysis pass over the ``hybrid_forward`` methods of a module (see module docstring).

    ``emit`` is false for evidence-gathering passes; events and expression values are recorded
    only when it is true and no loop is being iterated silently.
    """

    def __init__(self, index: ModuleIndex, evidence: Evidence, decided: Optional[Evidence], emit: bool,
                 init_ndarrays: dict[str, dict[str, tuple[str, int]]],
                 init_params: Optional[dict[str, dict[str, tuple[str, int]]]] = None,
                 init_layers: Optional[dict[str, dict[str, str]]] = None) -> None:
        self.index = index
        self.evidence = evidence
        self.decided = decided
        self.emit_enabled = emit
        self.silent = 0
        self.events: list[Event] = []
        self.values: dict[int, tuple[ast.AST, Value, Site]] = {}
        self.init_ndarrays = init_ndarrays
        self.init_params = init_params or {}
        #: class -> ``self.attr`` -> single-tensor Gluon layer class (``fc`` -> ``Dense``)
        self.init_layers = init_layers if init_layers is not None else {}
        self.stack: list[int] = []
        self.memo: dict[tuple, Value] = {}
        self.analysed_nested: set[int] = set()
        self.body_results: dict[int, Value] = {}  # loop bodies handed to F.contrib.foreach / while_loop
        self.pending_nested: list[tuple[FunctionNode, "Env", FunctionContext]] = []
        self.env = Env()
        self.ctx: FunctionContext = FunctionContext(Site(index.lines, "", np_mode=index.np_mode), None, "")
        self.in_isinstance = 0
        self.trace: list[tuple[Value, ast.AST]] = []
        self.escaped: set[int] = set()
        #: id(If/IfExp/Assert node) -> (node, value of its test while tracing or None)
        self.guards: dict[int, tuple[ast.AST, Optional[bool]]] = {}
        #: The current path cannot continue while tracing (after ``return``/``raise``, or after
        #: ``if F is sym: raise ...``): the rest of the block is not analysed.
        self.unreachable = False
        #: > 0 while the code being analysed only runs when ``F`` is the symbol API (the ``else``
        #: of ``if F is nd:``, or what follows ``if F is nd: return ...``).
        self.symbolic_only = 0
        #: The ``value`` of the attribute expression being evaluated (``nd`` in ``nd.relu``).
        self.attribute_base: Optional[ast.AST] = None
        #: id(node) -> (node, bindings there) for each call or arithmetic that uses a value computed
        #: from tensor metadata (``x.reshape((n, -1))`` with ``n = x.shape[0]``): a conversion
        #: (``convert/shapes.py``) asks which names hold which tensors at that point.
        self.meta_uses: dict[int, tuple[ast.AST, dict[str, Value]]] = {}

    # ------------------------------------------------------------------ recording helpers
    @property
    def emitting(self) -> bool:
        return self.emit_enabled and self.silent == 0

    def emit(self, kind: EventKind, node: ast.AST, **fields: Any) -> None:
        if self.emitting:
            self.events.append(Event(kind, node, self.ctx.site, values=self.values, **fields))

    def emit_api_ref(self, node: ast.AST, qual: str) -> None:
        """A reference into MXNet's nd/sym API; ``construct`` says whether it only runs while
        tracing (where ``sym.X`` is right)."""
        self.emit(EventKind.API_REF, node, name=qual, subject=node,
                  construct="symbolic-only" if self.symbolic_only else "")

    def record(self, node: ast.AST, value: Value) -> Value:
        if self.emit_enabled and self.silent == 0:  # (``emitting``, inlined: called per expression)
            self.values[id(node)] = (node, value, self.ctx.site)
            if value.holds_tensor:
                self.trace.append((value, node))
        return value

    def escape(self, value: Value) -> None:
        """``value`` is now also referenced from ``self`` or a container (matters for fixes)."""
        self.escaped.add(id(value))
        for inner in (value.item, *(value.elements or ())):
            if inner is not None:
                self.escaped.add(id(inner))

    def metadata(self, base: Value, node: ast.AST, attr: str) -> Value:
        """The static value of ``t.<attr>`` (``shape``, ``dtype``, ...): a :class:`~.shapes.Meta`
        says which tensor it describes (only while emitting, only for certain tensors)."""
        kind = SH.ATTRIBUTE_KINDS.get(attr)
        if kind is None or not self.emitting or base.kind is not Kind.TENSOR:
            return STATIC
        return Value(Kind.STATIC, meta=SH.Meta(kind, node, self.ctx.site.function, base))

    def meta_value(self, meta: Optional[SH.Meta]) -> Value:
        return STATIC if meta is None else Value(Kind.STATIC, meta=meta)

    def note_meta_use(self, node: ast.AST) -> None:
        """Remember the bindings where ``node`` uses a value computed from tensor metadata."""
        if not self.emitting:
            return
        names: dict[str, Value] = {}
        env: Optional[Env] = self.env
        chain = []
        while env is not None:
            chain.append(env.names)
            env = env.parent
        for scope in reversed(chain):
            names.update(scope)
        self.meta_uses[id(node)] = (node, names)

    def origin(self, category: Category, node: ast.AST, base: Optional[Origin] = None) -> Origin:
        return Origin(category, node=node, site=self.ctx.site, node_id=id(node),
                      function=self.ctx.display, base=base)

    def maybe(self, key: Any, origin: Origin) -> Value:
        """An undecided value, or its decision if a previous pass saw how it is used."""
        if self.decided is not None:
            verdict = self.decided.decide(key)
            if verdict == "tensor":
                ev = self.decided.tensor.get(key)
                if origin.category is Category.INPUT and ev is not None:
                    origin = replace(origin, evidence=ev)
                return Value(Kind.TENSOR, origin=origin, keys=frozenset({key}))
            if verdict == "container":
                item = self.maybe((key, "item"), replace(origin, category=Category.ELEMENT))
                return Value(Kind.SEQ, origin=origin, keys=frozenset({key}), item=item)
        return Value(Kind.MAYBE, origin=origin, keys=frozenset({key}))

    def saw_tensor(self, value: Value, node: ast.AST) -> None:
        if value.keys:
            self.evidence.saw_tensor(value, node, self.ctx.site)

    def saw_container(self, value: Value, strong: bool) -> None:
        if value.keys:
            self.evidence.saw_container(value, strong)

    def saw_hedge(self, value: Value) -> None:
        """``v is None``, ``isinstance(v, ..)``, ``len(v)``: the code allows for ``v`` being
        something other than a tensor, so an input is decided by its uses, not by the contract."""
        if value.keys and value.kind is not Kind.STATIC:
            self.evidence.saw_hedge(value)

    @staticmethod
    def _undecided(value: Value) -> bool:
        return value.kind is Kind.MAYBE or (bool(value.keys) and value.kind is not Kind.SEQ)

    # ------------------------------------------------------------------ entry points
    def run_hybrid_forward(self, cls: ClassInfo, fn: ast.FunctionDef, site: Site) -> None:
        ctx = FunctionContext(site, cls, "hybrid_forward")
        self.ctx = ctx
        cell = self.index.derives_from(cls, K.RECURRENT_CELLS)
        bound = self._bind_entry_params(fn, states_at=3 if cell else None)
        self.run_function(fn, ctx, bound, Env())
        self._drain_nested()

    def _bind_entry_params(self, fn: ast.FunctionDef, states_at: Optional[int] = None) -> dict[str, Value]:
        """``self`` -> self; ``F`` -> the F namespace; every other parameter is an input (a tensor
        by contract, see ``Evidence``), except a recurrent cell's ``states`` (position ``states_at``),
        a list by the cell's contract, decided by its uses."""
        args = fn.args
        positional = list(args.posonlyargs) + list(args.args)
        defaults: dict[str, ast.expr] = {}
        for param, default in zip(reversed(positional), reversed(args.defaults)):
            defaults[param.arg] = default
        for param, default in zip(args.kwonlyargs, args.kw_defaults):
            if default is not None:
                defaults[param.arg] = default
        bound: dict[str, Value] = {}
        for i, param in enumerate(positional):
            if i == 0:
                bound[param.arg] = _SELF
            elif i == 1:
                bound[param.arg] = Value(Kind.FNS, names=frozenset({"F"}))
            else:
                bound[param.arg] = self._input_param(fn, param, defaults.get(param.arg), contract=i != states_at)
        for param in args.kwonlyargs:
            bound[param.arg] = self._input_param(fn, param, defaults.get(param.arg))
        for star in (args.vararg, args.kwarg):
            if star is not None:
                key = ("param", id(fn), star.arg)
                org = self.origin(Category.INPUT, star)
                item = self.maybe((key, "item"), replace(org, category=Category.ELEMENT))
                bound[star.arg] = Value(Kind.SEQ, origin=org, item=item, keys=frozenset({key}))
        return bound

    def _input_param(self, fn: ast.FunctionDef, param: ast.arg, default: Optional[ast.expr],
                     contract: bool = True) -> Value:
        if default is not None and not (isinstance(default, ast.Constant) and default.value is None):
            # ``epsilon=1e-08``: a Python value unless the caller passes a tensor.
            return STATIC
        key = ("param", id(fn), param.arg)
        if param.annotation is not None and _CONTAINER_ANNOTATION.search(ast.unparse(param.annotation)):
            contract = False  # ``states: List[Tensor]``: the code says it is a list
        if default is None and contract:  # (a ``None`` default: may be absent, decided by its uses)
            self.evidence.inputs.add(key)
        return self.maybe(key, self.origin(Category.INPUT, param))

    # ------------------------------------------------------------------ functions
    def run_function(self, fn: FunctionNode, ctx: FunctionContext, bound: dict[str, Value], parent: Env) -> Value:
        saved_env, saved_ctx = self.env, self.ctx
        saved_flow = (self.unreachable, self.symbolic_only)
        self.env = Env(parent, bound)
        self.ctx = ctx
        self.unreachable, self.symbolic_only = False, 0
        self.stack.append(id(fn))
        try:
            if isinstance(fn, ast.Lambda):
                return self.eval(fn.body)
            self.exec_block(fn.body)
            result: Optional[Value] = None
            for value in ctx.returns:
                result = value if result is None else join(result, value)
            return result if result is not None else STATIC
        finally:
            self.stack.pop()
            self.env = saved_env
            self.ctx = saved_ctx
            self.unreachable, self.symbolic_only = saved_flow

    def _drain_nested(self) -> None:
        """Analyse nested functions that were defined but never called (inputs undecided)."""
        while self.pending_nested:
            node, env, ctx = self.pending_nested.pop(0)
            if id(node) in self.analysed_nested:
                continue
            self.analysed_nested.add(id(node))
            saved = self.ctx
            self.ctx = ctx
            bound = self._bind_unknown_params(node)
            self.ctx = saved
            self.run_function(node, FunctionContext(ctx.site, ctx.cls, ctx.display), bound, env)

    def _bind_unknown_params(self, fn: FunctionNode) -> dict[str, Value]:
        return {param.arg: self.maybe(("param", id(fn), param.arg), self.origin(Category.INPUT, param))
                for param in _all_params(fn.args)}

    def call_function(self, fn: FunctionNode, call: ast.Call, args: list[tuple[Arg, Value]], site: Site,
                      cls: Optional[ClassInfo], display: str, parent: Env, self_value: Optional[Value]) -> Value:
        """Analyse ``fn`` with the abstract arguments of ``call`` and return its abstract result."""
        if id(fn) in self.stack or len(self.stack) > MAX_CALL_DEPTH:
            return self._opaque_result(call, args, Category.HELPER)
        bound = self._bind_call(fn, args, self_value)
        memo_key = (id(fn), tuple(sorted((k, _sig(v)) for k, v in bound.items())), self.silent > 0)
        if memo_key in self.memo:
            return self.memo[memo_key]
        self.analysed_nested.add(id(fn))
        if display != self.ctx.display:
            chain = self.ctx.site.chain + (
                f"reached from `{self.ctx.display}` via `{self.ctx.site.text(call, 50)}` on line {call.lineno}",)
            site = Site(site.lines, site.name, chain, site.function, site.np_mode)
        ctx = FunctionContext(site, cls, display)
        result = self.run_function(fn, ctx, bound, parent)
        if result.holds_tensor and result.origin is None:
            result = result.with_origin(self.origin(Category.HELPER, call))
        if result.dims is not None:  # memoised: it may stand for calls with other tensors, so
            result = replace(result, dims=BC.absolute_only(result.dims))  # no relation to them
        self.memo[memo_key] = result
        return result

    def _bind_call(self, fn: FunctionNode, args: list[tuple[Arg, Value]], self_value: Optional[Value]) -> dict[str, Value]:
        spec = fn.args
        positional = list(spec.posonlyargs) + list(spec.args)
        defaults: dict[str, ast.expr] = {}
        for param, default in zip(reversed(positional), reversed(spec.defaults)):
            defaults[param.arg] = default
        bound: dict[str, Value] = {}
        if self_value is not None and positional:
            bound[positional[0].arg] = self_value
            positional = positional[1:]
        names = {p.arg for p in positional} | {p.arg for p in spec.kwonlyargs}
        extra: list[Value] = []
        kw_extra: list[Value] = []
        star_fill: Optional[Value] = None
        pos_index = 0
        for arg, value in args:
            if arg.star == "*":
                if value.kind is Kind.SEQ and value.item is not None:
                    star_fill = value.item
                elif value.holds_tensor:
                    star_fill = self.maybe(("star", id(arg.node)), self.origin(Category.ELEMENT, arg.node))
                else:
                    star_fill = STATIC
                continue
            if arg.star == "**":
                continue
            if arg.keyword is not None:
                if arg.keyword in names:
                    bound[arg.keyword] = value
                else:
                    kw_extra.append(value)
                continue
            if pos_index < len(positional):
                bound[positional[pos_index].arg] = value
                pos_index += 1
            else:
                extra.append(value)
        for param in positional[pos_index:] + list(spec.kwonlyargs):
            if param.arg in bound:
                continue
            if star_fill is not None:
                bound[param.arg] = star_fill
            elif param.arg in defaults and not isinstance(defaults[param.arg], ast.Name):
                bound[param.arg] = self.eval(defaults[param.arg])
            else:
                bound[param.arg] = STATIC
        if spec.vararg is not None:
            item = join_all(extra + ([star_fill] if star_fill is not None else [])) if extra or star_fill else None
            bound[spec.vararg.arg] = seq(None, item) if item is not None and item.holds_tensor else STATIC
        if spec.kwarg is not None:
            item = join_all(kw_extra) if kw_extra else None
            bound[spec.kwarg.arg] = seq(None, item) if item is not None and item.holds_tensor else STATIC
        return bound

    def _opaque_result(self, call: ast.Call, args: Sequence[tuple[Any, Value]], category: Category) -> Value:
        """Result of a call we cannot see into: undecided if tensors went in, static otherwise."""
        if any(v.holds_tensor for _, v in args):
            return self.maybe(("call", id(call)), self.origin(category, call))
        return STATIC

    # ------------------------------------------------------------------ statements
    def exec_block(self, body: Sequence[ast.stmt]) -> None:
        saved = self.symbolic_only
        try:
            for stmt in body:
                if self.unreachable:
                    break
                self.exec_stmt(stmt)
        finally:
            self.symbolic_only = saved

    def exec_stmt(self, stmt: ast.stmt) -> None:
        method = _EXEC_HANDLERS.get(type(stmt), _UNSEEN)
        if method is _UNSEEN:
            method = _handler(_EXEC_HANDLERS, "exec_", type(stmt))
        if method is not None:
            method(self, stmt)

    def exec_Expr(self, stmt: ast.Expr) -> None:
        self.eval(stmt.value)

    def exec_Assign(self, stmt: ast.Assign) -> None:
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.assign(target, value, stmt.value)

    def exec_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value), stmt.value)

    def exec_Return(self, stmt: ast.Return) -> None:
        self.ctx.returns.append(self.eval(stmt.value) if stmt.value is not None else STATIC)
        self.unreachable = True

    def exec_Assert(self, stmt: ast.Assert) -> None:
        guard = self.classify_guard(stmt.test)
        if guard == "imperative":  # ``assert F is nd``: tracing stops here
            self.unreachable = True
            return
        if guard == "symbolic":
            self.symbolic_only += 1
            return
        self.condition(stmt.test, "assert")
        if stmt.msg is not None:
            self.eval(stmt.msg)

    def exec_Raise(self, stmt: ast.Raise) -> None:
        if stmt.exc is not None:
            self.eval(stmt.exc)
        self.unreachable = True

    def exec_Import(self, stmt: ast.Import) -> None:
        for alias in stmt.names:
            if alias.asname:
                self.env.names[alias.asname] = static(alias.name)
            else:
                top = alias.name.split(".", 1)[0]
                self.env.names[top] = static(top)

    def exec_ImportFrom(self, stmt: ast.ImportFrom) -> None:
        base = "." * stmt.level + (stmt.module or "")
        for alias in stmt.names:
            if alias.name == "*":
                continue
            sep = "" if base.endswith(".") or not base else "."
            self.env.names[alias.asname or alias.name] = static(f"{base}{sep}{alias.name}")

    def exec_AugAssign(self, stmt: ast.AugAssign) -> None:
        rhs = self.eval(stmt.value)
        target = stmt.target
        op = type(stmt.op).__name__
        if isinstance(target, ast.Name):
            old = self.lookup(target.id)
            self.emit(EventKind.AUG_ASSIGN, stmt, value=old, subject=target, name=target.id, construct=op,
                      extra={"rhs": rhs, "env": dict(self.env.names), "escaped": id(old) in self.escaped})
            new = self.arith(old, rhs, stmt, stmt.op, target, stmt.value)
            # an NDArray is updated in place: the name keeps the very same array, so every alias
            # (another name, a view, a container) still shares it (what makes a later rewrite of
            # an in-place update unsafe); a Python number or a Symbol is rebound
            self.env.names[target.id] = old if old.kind is Kind.TENSOR and new.kind is Kind.TENSOR else new
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value)
            self.eval_index(target.slice)
            if container.kind is not Kind.SEQ:
                self.saw_hedge(container)  # ``v[i] = ..`` into an input: a list of values
            self.emit(EventKind.SUBSCRIPT_STORE, target, value=container, subject=target.value, construct=op,
                      extra={"rhs": rhs, "env": dict(self.env.names),
                             "escaped": id(container) in self.escaped})
        elif isinstance(target, ast.Attribute):
            base = self.eval(target.value)
            if base is _SELF:
                new = self.arith(self.self_attribute(target), rhs, stmt, stmt.op, target, stmt.value)
                if new.holds_tensor:
                    self.emit(EventKind.SELF_STORE, stmt, value=new, subject=stmt.value,
                              name=target.attr, construct="augmented assignment")

    def exec_If(self, stmt: ast.If, construct: str = "if") -> None:
        """Both branches are analysed and joined, except under a guard (``if F is nd:``): then only
        the branch that runs while tracing is, and it is marked symbolic-only. A branch that ends
        in ``return``/``raise`` does not flow into what follows; when the imperative branch of a
        guard does, what follows only runs while tracing (and vice versa)."""
        guard = self.classify_guard(stmt.test)
        truth = self.traced_truth(stmt.test)
        self._record_guard(stmt, truth)
        if guard is not None and truth is None:
            # ``if F is sym and self.flag:``: only one branch is tracing-only, both may be traced
            self._exec_partial_guard(stmt, guard, construct)
            return
        if guard is None:
            self.condition(stmt.test, construct)
        narrowed = self._container_test(stmt.test) if guard is None else None
        before = self.env.copy()
        body_dead = else_dead = False
        if guard != "imperative":
            if guard == "symbolic":
                self.symbolic_only += 1
            if narrowed is not None and narrowed[1]:
                self._narrow_to_container(narrowed[0])
            try:
                self.exec_block(stmt.body)
            finally:
                if guard == "symbolic":
                    self.symbolic_only -= 1
            body_dead, self.unreachable = self.unreachable, False
        after_body = self.env
        self.env = before.copy()
        if guard != "symbolic":
            if guard == "imperative":
                self.symbolic_only += 1
            if narrowed is not None and not narrowed[1]:
                self._narrow_to_container(narrowed[0])
            try:
                if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If):
                    self.exec_If(stmt.orelse[0], "elif")
                else:
                    self.exec_block(stmt.orelse)
            finally:
                if guard == "imperative":
                    self.symbolic_only -= 1
            else_dead, self.unreachable = self.unreachable, False
        after_else = self.env
        if guard == "imperative":
            self.env, self.unreachable = after_else, else_dead
            if _terminates(stmt.body):  # ``if F is nd: return ...``: the rest is traced only
                self.symbolic_only += 1
        elif guard == "symbolic":
            self.env, self.unreachable = after_body, body_dead
        elif body_dead and not else_dead:
            self.env = after_else
        elif else_dead and not body_dead:
            self.env = after_body
        else:
            after_body.join_from(after_else)
            self.env, self.unreachable = after_body, body_dead and else_dead

    def _exec_partial_guard(self, stmt: ast.If, guard: str, construct: str) -> None:
        """Both branches may run while tracing; the one the guard names only runs while tracing
        (``symbolic``: the body; ``imperative``: the ``else``)."""
        before = self.env.copy()
        deads = []
        envs = []
        for branch, sym_only in ((stmt.body, guard == "symbolic"), (stmt.orelse, guard == "imperative")):
            self.env = before.copy()
            self.symbolic_only += sym_only
            try:
                if len(branch) == 1 and isinstance(branch[0], ast.If) and branch is stmt.orelse:
                    self.exec_If(branch[0], "elif")
                else:
                    self.exec_block(branch)
            finally:
                self.symbolic_only -= sym_only
            deads.append(self.unreachable)
            self.unreachable = False
            envs.append(self.env)
        if deads[0] and not deads[1]:
            self.env = envs[1]
        elif deads[1] and not deads[0]:
            self.env = envs[0]
        else:
            envs[0].join_from(envs[1])
            self.env, self.unreachable = envs[0], deads[0] and deads[1]

    def _record_guard(self, node: ast.AST, truth: Optional[bool]) -> None:
        """Remember what ``node``'s test is while tracing (for the transpiler's rewrite); a node
        reached with different verdicts (never expected: the verdict depends on F only) is
        recorded as undecided."""
        if not self.emitting:
            return
        hit = self.guards.get(id(node))
        if hit is not None and hit[0] is node and hit[1] != truth:
            truth = None
        self.guards[id(node)] = (node, truth)

    def traced_truth(self, test: ast.expr) -> Optional[bool]:
        """The value of ``test`` while the block is traced (``F`` is the symbol API), if it is
        certain: ``F is nd and self.debug`` is False, ``not isinstance(x, nd.NDArray)`` is True,
        ``self.debug`` is unknown (None)."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.traced_truth(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            values = [self.traced_truth(v) for v in test.values]
            decisive = isinstance(test.op, ast.Or)  # True decides an ``or``, False an ``and``
            if decisive in values:
                return decisive
            return (not decisive) if all(v is not None for v in values) else None
        verdict = self.classify_guard(test)
        return {"imperative": False, "symbolic": True}.get(verdict or "")

    def _container_test(self, test: ast.expr) -> Optional[tuple[ast.Name, bool]]:
        """``isinstance(name, list)`` / ``(list, tuple)`` -> (name, True); under ``not`` -> False."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._container_test(test.operand)
            return (inner[0], not inner[1]) if inner is not None else None
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and self._is_builtin("isinstance") and len(test.args) == 2 and not test.keywords
                and isinstance(test.args[0], ast.Name)):
            return None
        classes = test.args[1]
        nodes = classes.elts if isinstance(classes, ast.Tuple) else [classes]
        if nodes and all(isinstance(n, ast.Name) and n.id in ("list", "tuple") and self._is_builtin(n.id)
                         for n in nodes):
            return test.args[0], True
        return None

    def _narrow_to_container(self, name_node: ast.Name) -> None:
        """Inside ``if isinstance(name, list):`` the name is a list (of tensors, if anything)."""
        name = name_node.id
        value = self.env.lookup(name)
        if value is None or value.kind is Kind.SEQ or not value.holds_tensor:
            return
        item = value.item
        if item is None:
            key = sorted(value.keys, key=repr)[0] if value.keys else ("narrow", id(name_node))
            item = self.maybe((key, "item"), replace(value.origin, category=Category.ELEMENT)
                              if value.origin is not None else self.origin(Category.ELEMENT, name_node))
        self.env.names[name] = seq(value.origin, item)

    def run_loop(self, body: Callable[[], None]) -> None:
        """Run ``body`` silently until the bindings stop changing, then once more for real."""
        self.silent += 1
        try:
            for _ in range(LOOP_ITERATIONS):
                before = self.env.copy()
                body()
                self.unreachable = False  # the loop may run no more, or break out
                self.env.join_from(before)
                if self.env.same(before):
                    break
        finally:
            self.silent -= 1
        before = self.env.copy()
        body()
        self.unreachable = False
        self.env.join_from(before)

    def exec_For(self, stmt: Union[ast.For, ast.AsyncFor]) -> None:
        iterable = self.eval(stmt.iter)
        element = self.iterate(iterable, stmt.iter, "for loop")

        def body() -> None:
            self.assign(stmt.target, element, stmt.iter)
            self.exec_block(stmt.body)

        self.run_loop(body)
        self.exec_block(stmt.orelse)

    exec_AsyncFor = exec_For

    def exec_While(self, stmt: ast.While) -> None:
        def body() -> None:
            self.condition(stmt.test, "while")
            self.exec_block(stmt.body)

        self.run_loop(body)
        self.exec_block(stmt.orelse)

    def exec_Try(self, stmt: Any) -> None:
        before = self.env.copy()
        self.exec_block(stmt.body)
        self.unreachable = False  # an exception may leave the body anywhere
        merged = self.env.copy()
        for handler in stmt.handlers:
            self.env = before.copy()
            self.env.join_from(merged)
            if handler.type is not None:
                self.eval(handler.type)
            if handler.name:
                self.env.names[handler.name] = STATIC
            self.exec_block(handler.body)
            self.unreachable = False
            merged.join_from(self.env)
        self.env = merged
        self.exec_block(stmt.orelse)
        self.unreachable = False
        self.exec_block(stmt.finalbody)

    exec_TryStar = exec_Try

    def exec_With(self, stmt: Union[ast.With, ast.AsyncWith]) -> None:
        for item in stmt.items:
            value = self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value, item.context_expr)
        self.exec_block(stmt.body)

    exec_AsyncWith = exec_With

    def exec_FunctionDef(self, stmt: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> None:
        self.env.names[stmt.name] = Value(Kind.FUNC, func=(stmt, self.env, self.ctx))
        self.pending_nested.append((stmt, self.env, self.ctx))

    exec_AsyncFunctionDef = exec_FunctionDef

    def exec_ClassDef(self, stmt: ast.ClassDef) -> None:
        self.env.names[stmt.name] = STATIC

    def exec_Match(self, stmt: Any) -> None:
        self.eval(stmt.subject)
        before = self.env.copy()
        merged = before.copy()
        for case in stmt.cases:
            self.env = before.copy()
            self.exec_block(case.body)
            self.unreachable = False
            merged.join_from(self.env)
        self.env = merged

    # ------------------------------------------------------------------ assignment
    def assign(self, target: ast.expr, value: Value, source: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if isinstance(source, ast.Subscript) and isinstance(source.value, ast.Name) \
                    and source.value.id == target.id and not isinstance(source.slice, (ast.Slice, ast.Tuple)):
                old = self.env.lookup(target.id)
                if old is not None:
                    self.saw_hedge(old)  # ``v = v[0]``: an element stands for the container
            self.env.names[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target, value, source)
        elif isinstance(target, ast.Attribute):
            base = self.eval(target.value)
            if base is _SELF and value.holds_tensor:
                self.escape(value)
                self.emit(EventKind.SELF_STORE, target, value=value, subject=source, name=target.attr,
                          construct="assignment")
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value)
            self.eval_index(target.slice)
            if container.kind is not Kind.SEQ:
                self.saw_hedge(container)  # ``v[i] = ..`` into an input: a list of values
            if container.kind is Kind.STATIC and container.qual.startswith("self.") and value.holds_tensor:
                self.escape(value)
                self.emit(EventKind.SELF_STORE, target, value=value, subject=source,
                          name=container.qual[5:], construct="item assignment")
            self.emit(EventKind.SUBSCRIPT_STORE, target, value=container, subject=target.value, construct="=",
                      extra={"rhs": value, "env": dict(self.env.names),
                             "escaped": id(container) in self.escaped})
            if isinstance(target.value, ast.Name) and container.kind in (Kind.SEQ, Kind.STATIC) \
                    and value.holds_tensor and not container.qual.startswith("self."):
                stored = seq(None, value)
                self.env.names[target.value.id] = join(container, stored) if container.kind is Kind.SEQ else stored
        elif isinstance(target, ast.Starred):
            self.assign(target.value, seq(None, value) if value.holds_tensor else STATIC, source)

    def unpack(self, target: Union[ast.Tuple, ast.List], value: Value, source: ast.AST) -> None:
        if value.meta is not None and value.kind is Kind.STATIC:
            dims = SH.unpacked(value.meta, target.elts)  # ``b, c, h, w = x.shape``
            if dims is not None:
                for element, meta in zip(target.elts, dims):
                    self.assign(element, Value(Kind.STATIC, meta=meta), source)
                return
        self.saw_hedge(value)  # ``a, b = v``: a tuple of values
        items = self.unpacked_items(value, len(target.elts), source, "unpacking")
        for element, item in zip(target.elts, items):
            if isinstance(element, ast.Starred):
                self.assign(element.value, seq(None, item) if item.holds_tensor else STATIC, source)
            else:
                self.assign(element, item, source)

    def unpacked_items(self, value: Value, count: int, source: ast.AST, how: str) -> list[Value]:
        if value.kind is Kind.SEQ and value.elements is not None and len(value.elements) == count:
            return list(value.elements)
        element = self.iterate(value, source, how)
        if value.keys and value.kind is not Kind.TENSOR:
            key = sorted(value.keys, key=repr)[0]
            return [self.maybe((key, "unpack", i), self.origin(Category.ELEMENT, source)) for i in range(count)]
        # distinct objects: unpacked outputs are different tensors (aliasing matters for fixes)
        return [replace(element) for _ in range(count)]

    # ------------------------------------------------------------------ uses
    def iterate(self, value: Value, node: ast.AST, how: str) -> Value:
        """Report iteration over ``value`` and return the abstract element."""
        self.saw_container(value, strong=False)
        if value.holds_tensor:
            self.emit(EventKind.ITERATE, node, value=value, subject=node, construct=how,
                      extra={"env": dict(self.env.names), "values": self.values})
        if value.kind is Kind.SEQ:
            if value.item is not None:
                return value.item
            if value.elements:
                return join_all(value.elements)
            return tensor(self.origin(Category.ELEMENT, node))
        if value.kind is Kind.MAYBE:
            key = sorted(value.keys, key=repr)[0] if value.keys else ("iter", id(node))
            return self.maybe((key, "item"), self.origin(Category.ELEMENT, node))
        if value.kind is Kind.TENSOR:  # a row: ``t[i]``, a view of ``t``
            return tensor(replace(self.origin(Category.ELEMENT, node, value.origin), row_of_base=True))
        return STATIC

    def condition(self, test: ast.expr, construct: str) -> Value:
        value = self.eval(test)
        # the bindings before the branch and the values of every expression (filled as the analysis
        # goes on): control-flow conversions decide from them which names hold tensors
        self.emit(EventKind.CONDITION, test, value=value, subject=test, construct=construct,
                  extra={"env": dict(self.env.names), "values": self.values})
        return value

    def lookup(self, name: str) -> Value:
        value = self.env.lookup(name)
        if value is not None:
            return value
        if name in self.index.imports:
            return static(self.index.imports[name])
        if name in self.index.functions:
            return Value(Kind.STATIC, qual=f"<module-function>.{name}")
        if name in self.index.module_names:
            qual = self.index.module_names[name]
            return static(qual) if qual else static(f"<module>.{name}")
        return static(f"builtins.{name}")

    def _is_builtin(self, name: str) -> bool:
        return (self.env.lookup(name) is None and name not in self.index.imports
                and name not in self.index.functions and name not in self.index.module_names)

    # ------------------------------------------------------------------ guards
    def classify_guard(self, test: ast.expr) -> Optional[str]:
        """``"imperative"`` if ``test`` is only true when running imperatively (``F is nd``),
        ``"symbolic"`` if only when building a graph, else ``None``."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.classify_guard(test.operand)
            return {"imperative": "symbolic", "symbolic": "imperative"}.get(inner or "")
        if isinstance(test, ast.BoolOp):
            verdicts = [self.classify_guard(v) for v in test.values]
            if isinstance(test.op, ast.And):
                return next((v for v in verdicts if v), None)
            return verdicts[0] if all(v == verdicts[0] for v in verdicts) else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op = test.ops[0]
            if not isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
                return None
            negate = isinstance(op, (ast.IsNot, ast.NotEq))
            left, right = self._peek(test.left), self._peek(test.comparators[0])
            for mine, other in ((left, right), (right, left)):
                if mine.kind is Kind.FNS and other.kind is Kind.STATIC:
                    if K.is_ndarray_module(other.qual):
                        verdict = "imperative"
                    elif K.is_symbol_module(other.qual):
                        verdict = "symbolic"
                    else:
                        continue
                    if negate:
                        verdict = "symbolic" if verdict == "imperative" else "imperative"
                    return verdict
            return None
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
                and len(test.args) == 2:
            classes = test.args[1]
            nodes = classes.elts if isinstance(classes, ast.Tuple) else [classes]
            quals = [self._peek(node).qual for node in nodes]
            if quals and all(K.is_ndarray_class(q) for q in quals):
                return "imperative"
            if quals and all(K.is_symbol_class(q) for q in quals):
                return "symbolic"
        return None

    def _peek(self, node: ast.expr) -> Value:
        """Evaluate a name or attribute chain without events (for guard tests)."""
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute):
            base = self._peek(node.value)
            if base.kind is Kind.FNS:
                return _fns(base, node.attr)
            if base.kind is Kind.STATIC and base.qual:
                return static(f"{base.qual}.{node.attr}")
        return STATIC

    # ------------------------------------------------------------------ expressions
    def eval(self, node: ast.expr) -> Value:
        method = _EVAL_HANDLERS.get(type(node), _UNSEEN)
        if method is _UNSEEN:
            method = _handler(_EVAL_HANDLERS, "eval_", type(node))
        if method is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child)
            return STATIC
        return self.record(node, method(self, node))

    def eval_Constant(self, node: ast.Constant) -> Value:
        return STATIC

    def eval_Name(self, node: ast.Name) -> Value:
        value = self.lookup(node.id)
        if node is self.attribute_base:  # ``nd`` of ``nd.relu``: the attribute is reported
            return value
        if value.kind is Kind.STATIC and value.qual and not self.in_isinstance \
                and not value.qual.startswith(("<", "builtins.", "self.")) and K.api_family(value.qual) \
                and not K.is_ndarray_module(value.qual) and not K.is_symbol_module(value.qual) \
                and not value.qual.endswith(("NDArray", "Symbol")):
            self.emit_api_ref(node, value.qual)  # ``from mxnet.ndarray import relu``; ``relu(x)``
        return value

    def eval_Attribute(self, node: ast.Attribute) -> Value:
        self.attribute_base = node.value
        base = self.eval(node.value)
        attr = node.attr
        if base is _SELF:
            return self.self_attribute(node)
        if base.kind is Kind.FNS:
            return _fns(base, attr)
        if base.kind is Kind.STATIC:
            if base.qual and not base.qual.startswith(("<", "builtins.", "self.")):
                qual = f"{base.qual}.{attr}"
                if K.api_family(qual) and not self.in_isinstance:
                    self.emit_api_ref(node, qual)
                return static(qual)
            if base.qual.startswith("self."):
                return static(f"{base.qual}.{attr}")
            return STATIC
        if base.holds_tensor and base.kind is not Kind.SEQ:
            return self.tensor_attribute(base, node, attr)
        return STATIC

    def self_attribute(self, node: ast.Attribute) -> Value:
        cls = self.ctx.cls
        if cls is not None:
            made = self.init_ndarrays.get(cls.name, {}).get(node.attr)
            if made is not None:
                text, row = made
                value = tensor(Origin(Category.INIT_NDARRAY, fixed_text=text, fixed_row=row, node_id=id(node)))
                self.emit(EventKind.SELF_ATTR_READ, node, value=value, subject=node, name=node.attr)
                return value
        return static(f"self.{node.attr}")

    def tensor_attribute(self, base: Value, node: ast.Attribute, attr: str) -> Value:
        if attr in K.CONTAINER_METHODS:
            self.saw_container(base, strong=True)
            return STATIC
        known = attr in K.METADATA_ATTRS or attr in K.TENSOR_ATTRS or attr in K.TENSOR_METHODS
        if known:
            self.saw_tensor(base, node)
        self.emit(EventKind.ATTRIBUTE, node, value=base, subject=node.value, name=attr,
                  extra={"uses": self.meta_uses})
        if attr in K.METADATA_ATTRS:
            return self.metadata(base, node, attr)
        if not known and base.kind is Kind.MAYBE:
            # ``distr.mean`` of an undecided value: an object built from tensors, perhaps
            return self.maybe(("attr", id(node)), self.origin(Category.DERIVED, node, base.origin))
        return tensor(self.origin(Category.DERIVED, node, base.origin))

    def eval_index(self, index: ast.expr) -> None:
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for part in parts:
            if isinstance(part, ast.Slice):
                for bound in (part.lower, part.upper, part.step):
                    if bound is not None:
                        self.eval(bound)
            else:
                self.eval(part)

    def eval_Subscript(self, node: ast.Subscript) -> Value:
        base = self.eval(node.value)
        self.eval_index(node.slice)
        if base.kind is Kind.STATIC:
            if base.meta is not None:
                return self.meta_value(SH.subscript(base.meta, node.slice, node))
            return static(base.qual) if base.qual.startswith("self.") else STATIC
        if base.kind in (Kind.FNS, Kind.FUNC):
            return STATIC
        index = node.slice
        multi = isinstance(index, ast.Tuple) or (
            isinstance(index, ast.Constant) and (index.value is None or index.value is Ellipsis))
        if multi:
            self.saw_tensor(base, node)
        elif base.keys and base.kind is not Kind.SEQ and not isinstance(index, ast.Slice):
            position = _int_literal(index)
            if position is not None and position < 0:
                self.saw_hedge(base)  # ``v[-1]``: the last of a list of feature maps or layers
            else:
                self.evidence.saw_index(base, position)
        self.emit(EventKind.SUBSCRIPT_LOAD, node, value=base, subject=node.value)
        if base.kind is Kind.TENSOR:
            result = tensor(self.origin(Category.DERIVED, node, base.origin))
            if self.emitting:
                change = BC.subscript_change(index)
                if change is not None:
                    result = replace(result, dims=BC.derive(base, change, node, self.ctx.site))
            return result
        is_slice = isinstance(index, ast.Slice)
        if base.kind is Kind.SEQ:
            if is_slice:
                return base
            if base.elements is not None:
                position = _int_literal(index)
                if position is not None and -len(base.elements) <= position < len(base.elements):
                    return base.elements[position]
            if base.item is not None:
                return base.item
            if base.elements:
                return join_all(base.elements)
            return tensor(self.origin(Category.ELEMENT, node.value))
        if is_slice:
            return base
        key = sorted(base.keys, key=repr)[0] if base.keys else ("sub", id(node))
        return self.maybe((key, "item"), self.origin(Category.ELEMENT, node.value))

    def arith(self, left: Value, right: Value, node: ast.AST, op: ast.operator,
              left_node: ast.AST, right_node: ast.AST) -> Value:
        if isinstance(op, ast.Mod) and _is_string(left_node):
            return STATIC  # "%s" % x formats; the result is a string
        container_op = isinstance(op, (ast.Add, ast.Mult))
        for mine, other, other_node in ((left, right, right_node), (right, left, left_node)):
            if self._undecided(mine):
                if container_op and (isinstance(other_node, (ast.List, ast.Tuple, ast.ListComp)) or other.kind is Kind.SEQ):
                    self.saw_container(mine, strong=True)
                else:
                    self.saw_tensor(mine, node)
        if (left.kind is Kind.SEQ or right.kind is Kind.SEQ) and container_op \
                and Kind.TENSOR not in (left.kind, right.kind):
            items = []
            for v in (left, right):
                if v.kind is Kind.SEQ:
                    cand = v.item if v.item is not None else (join_all(v.elements) if v.elements else None)
                    if cand is not None:
                        items.append(cand)
            return seq(left.origin or right.origin, join_all(items) if items else None)
        if left.kind is Kind.TENSOR and right.kind is Kind.TENSOR and self.emitting:
            return self.binary(node, op, left, right, left_node, right_node)
        for operand, other in ((left, right), (right, left)):
            if operand.kind in (Kind.TENSOR, Kind.MAYBE):
                if other.meta is not None:
                    self.note_meta_use(node)  # ``x / x.shape[1]``
                result = tensor(self.origin(Category.DERIVED, node, operand.origin))
                if self.emitting and operand.kind is Kind.TENSOR and other.kind is Kind.STATIC:
                    result = replace(result, dims=BC.keep(operand))  # ``x * 2``
                return result
        if (left.meta is not None or right.meta is not None) and self.emitting:
            return self.meta_value(self.meta_arith(node, op, left, right, left_node, right_node))
        return STATIC

    def binary(self, node: ast.AST, op: Any, left: Value, right: Value, left_node: ast.AST,
               right_node: ast.AST) -> Value:
        """``a <op> b`` of two tensors: the event HY013 checks (Python operators broadcast on
        NDArray, not on Symbol) and the result's shape facts."""
        name = type(op).__name__
        if isinstance(node, (ast.BinOp, ast.Compare)) and name in BC.BROADCAST_OPS:
            self.emit(EventKind.BINARY_OP, node, value=left, subject=node, construct=name,
                      args=((left, left_node), (right, right_node)))
        return Value(Kind.TENSOR, origin=self.origin(Category.DERIVED, node, left.origin),
                     dims=BC.arith_dims(left, right))

    def meta_arith(self, node: ast.AST, op: ast.operator, left: Value, right: Value,
                   left_node: ast.AST, right_node: ast.AST) -> Optional[SH.Meta]:
        """Arithmetic on values computed from metadata (``h * w``, ``c // 4``), or a tuple
        concatenation (``x.shape[:2] + (-1,)``)."""
        name = type(op).__name__
        fn = self.ctx.site.function
        sides = ((left, left_node), (right, right_node))
        if all(v.meta is None or v.meta.scalar for v, _ in sides) and name in SH.ARITH_OPS:
            operands = tuple(v.meta if v.meta is not None else SH.Static(n, SH.literal_number(n)) for v, n in sides)
            return SH.Meta("expr", node, fn, op=name, operands=operands)
        if name != "Add":
            return None
        items: list = []
        for value, side in sides:
            meta = value.meta
            if meta is not None and meta.kind == "shape":
                items.append(meta)
            elif meta is not None and meta.kind == "tuple":
                items.extend(meta.operands)
            elif meta is None and isinstance(side, (ast.Tuple, ast.List)) \
                    and not any(isinstance(e, ast.Starred) for e in side.elts):
                items.extend(SH.Static(e, SH.literal_number(e)) for e in side.elts)
            else:
                return None
        return SH.Meta("tuple", node, fn, operands=tuple(items))

    def eval_BinOp(self, node: ast.BinOp) -> Value:
        left = self.eval(node.left)
        right = self.eval(node.right)
        return self.arith(left, right, node, node.op, node.left, node.right)

    def eval_UnaryOp(self, node: ast.UnaryOp) -> Value:
        if isinstance(node.op, ast.Not):
            self.condition(node.operand, "not")
            return STATIC
        value = self.eval(node.operand)
        if value.kind in (Kind.TENSOR, Kind.MAYBE):
            self.saw_tensor(value, node)
            result = tensor(self.origin(Category.DERIVED, node, value.origin))
            if self.emitting and value.kind is Kind.TENSOR:
                result = replace(result, dims=BC.keep(value))
            return result
        return STATIC

    def eval_BoolOp(self, node: ast.BoolOp) -> Value:
        construct = "and" if isinstance(node.op, ast.And) else "or"
        values = [self.condition(v, construct) for v in node.values[:-1]]
        values.append(self.eval(node.values[-1]))
        return join_all(values)

    def eval_Compare(self, node: ast.Compare) -> Value:
        prev = self.eval(node.left)
        prev_node = node.left
        result = STATIC
        for op, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator)
            if isinstance(op, (ast.Is, ast.IsNot)):  # ``v is None``: the code allows for no tensor
                for operand, other_node in ((prev, comparator), (right, prev_node)):
                    if isinstance(other_node, ast.Constant) and other_node.value is None:
                        self.saw_hedge(operand)
            if not isinstance(op, _IDENTITY):
                for operand in (prev, right):
                    if isinstance(op, _ORDERING) and self._undecided(operand):
                        self.saw_tensor(operand, node)
                if len(node.ops) == 1 and prev.kind is Kind.TENSOR and right.kind is Kind.TENSOR and self.emitting:
                    return self.binary(node, op, prev, right, node.left, comparator)
                for operand, other in ((prev, right), (right, prev)):
                    if operand.kind in (Kind.TENSOR, Kind.MAYBE):
                        result = tensor(self.origin(Category.DERIVED, node, operand.origin))
                        if self.emitting and len(node.ops) == 1 and operand.kind is Kind.TENSOR \
                                and other.kind is Kind.STATIC:
                            result = replace(result, dims=BC.keep(operand))  # ``x > 0``
                        break
            prev, prev_node = right, comparator
        return result

    def eval_IfExp(self, node: ast.IfExp) -> Value:
        guard = self.classify_guard(node.test)
        truth = self.traced_truth(node.test)
        self._record_guard(node, truth)
        if guard is not None and truth is not None:
            self.symbolic_only += 1
            try:
                return self.eval(node.orelse if not truth else node.body)
            finally:
                self.symbolic_only -= 1
        self.condition(node.test, "conditional expression")
        narrowed = self._container_test(node.test)
        values = []
        for branch, positive in ((node.body, True), (node.orelse, False)):
            if narrowed is not None and narrowed[1] is positive:
                saved = self.env
                self.env = Env(saved.parent, saved.names)
                try:
                    self._narrow_to_container(narrowed[0])
                    values.append(self.eval(branch))
                finally:
                    self.env = saved
            else:
                values.append(self.eval(branch))
        return join(values[0], values[1])

    def eval_Lambda(self, node: ast.Lambda) -> Value:
        self.pending_nested.append((node, self.env, self.ctx))
        return Value(Kind.FUNC, func=(node, self.env, self.ctx))

    def eval_NamedExpr(self, node: ast.NamedExpr) -> Value:
        value = self.eval(node.value)
        self.assign(node.target, value, node.value)
        return value

    def _display(self, node: Union[ast.List, ast.Tuple, ast.Set]) -> Value:
        values: list[Value] = []
        starred = False
        for element in node.elts:
            if isinstance(element, ast.Starred):
                star = self.eval(element.value)
                self.saw_hedge(star)  # ``[*v]``: a sequence of values
                values.append(self.iterate(star, element.value, "star-unpacking"))
                starred = True
            else:
                values.append(self.eval(element))
        if not any(v.holds_tensor for v in values):
            if not starred and self.emitting and any(v.meta is not None for v in values) \
                    and all(v.meta is None or v.meta.scalar for v in values):
                return Value(Kind.STATIC, meta=SH.Meta("tuple", node, self.ctx.site.function, operands=tuple(
                    v.meta if v.meta is not None else SH.Static(e, SH.literal_number(e))
                    for v, e in zip(values, node.elts))))
            return STATIC
        if starred:
            return seq(None, join_all(values))
        return seq(None, None, tuple(values))

    eval_List = eval_Tuple = eval_Set = _display

    def eval_Dict(self, node: ast.Dict) -> Value:
        values = []
        for key, value in zip(node.keys, node.values):
            if key is not None:
                self.eval(key)
            values.append(self.eval(value))
        held = [v for v in values if v.holds_tensor]
        return seq(None, join_all(held)) if held else STATIC

    def _comprehension(self, node: Any) -> Value:
        saved = self.env
        self.env = Env(saved.parent, saved.names)
        try:
            for gen in node.generators:
                iterable = self.eval(gen.iter)
                element = self.iterate(iterable, gen.iter, "comprehension")
                self.assign(gen.target, element, gen.iter)
                for cond in gen.ifs:
                    self.condition(cond, "comprehension `if`")
            if isinstance(node, ast.DictComp):
                self.eval(node.key)
                elt = self.eval(node.value)
            else:
                elt = self.eval(node.elt)
        finally:
            self.env = saved
        return seq(None, elt) if elt.holds_tensor else STATIC

    eval_ListComp = eval_GeneratorExp = eval_SetComp = eval_DictComp = _comprehension

    def eval_JoinedStr(self, node: ast.JoinedStr) -> Value:
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                self.eval(part.value)
        return STATIC

    def eval_Await(self, node: ast.Await) -> Value:
        return self.eval(node.value)

    def eval_Starred(self, node: ast.Starred) -> Value:
        return self.eval(node.value)

    # ------------------------------------------------------------------ calls
    def eval_args(self, call: ast.Call) -> list[tuple[Arg, Value]]:
        return [(arg, self.eval(arg.node)) for arg in call_args(call)]

    def eval_Call(self, node: ast.Call) -> Value:
        func = node.func
        if isinstance(func, ast.Attribute):
            self.attribute_base = func.value
            return self.call_attribute(node, func, self.eval(func.value))
        if isinstance(func, ast.Name) and self._is_builtin(func.id):
            return self.call_builtin(node, func.id)
        return self.call_value(node, self.eval(func))

    def call_attribute(self, node: ast.Call, func: ast.Attribute, receiver: Value) -> Value:
        attr = func.attr
        if receiver is _SELF:
            return self.call_self_method(node, attr)
        if receiver.kind is Kind.FNS:
            return self.call_value(node, _fns(receiver, attr))
        if receiver.holds_tensor and receiver.kind is not Kind.SEQ:
            return self.call_tensor_method(node, func, receiver, attr)
        if receiver.kind is Kind.SEQ:
            args = self.eval_args(node)
            if attr in K.STORING_METHODS and isinstance(func.value, ast.Name):
                stored = [v for _, v in args if v.holds_tensor]
                for v in stored:
                    self.escape(v)
                if stored:
                    self.env.names[func.value.id] = join(receiver, seq(None, join_all(stored)))
            if attr == "pop":
                return receiver.item or STATIC
            if attr in ("values", "items", "keys", "copy"):
                return receiver
            return STATIC
        if receiver.kind is Kind.STATIC and receiver.qual and not receiver.qual.startswith(("<", "builtins.", "self.")):
            qual = f"{receiver.qual}.{attr}"
            if K.api_family(qual) and not self.in_isinstance:
                self.emit_api_ref(func, qual)
            return self.call_value(node, static(qual))
        args = self.eval_args(node)
        if receiver.kind is Kind.STATIC and receiver.qual.startswith("self.") and attr in K.PARAMETER_DATA_METHODS:
            declared = None
            if self.ctx.cls is not None:
                table = self.init_params.get(self.ctx.cls.name, {})
                path = receiver.qual[5:]
                owner, _, param = path.partition(".")
                declared = table.get(path) if "." not in path else (
                    table.get(owner + ".*") if param and "." not in param else None)
            if declared is not None:
                text, row = declared
                category = Category.PARAMETER_DATA if "." not in receiver.qual[5:] else Category.LAYER_PARAMETER_DATA
                value = tensor(Origin(category, fixed_text=text, fixed_row=row, node_id=id(node)))
                self.emit(EventKind.PARAMETER_DATA, node, value=value, subject=node, name=receiver.qual[5:],
                          construct=attr)
                return value
        if receiver.kind is Kind.STATIC and receiver.qual.startswith("self.") and attr in K.STORING_METHODS:
            for _, value in args:
                if value.holds_tensor:
                    self.escape(value)
                    self.emit(EventKind.SELF_STORE, node, value=value, subject=node.args[0] if node.args else node,
                              name=receiver.qual[5:], construct=f"`.{attr}()`")
                    break
            return STATIC
        if attr in K.STORING_METHODS and isinstance(func.value, ast.Name) and receiver.kind is Kind.STATIC:
            stored = [v for _, v in args if v.holds_tensor]
            for v in stored:
                self.escape(v)
            if stored and self.env.lookup(func.value.id) is not None:
                item = join_all(stored)
                if attr == "extend" and item.kind is Kind.SEQ:
                    item = item.item or STATIC
                self.env.names[func.value.id] = seq(None, item)
            return STATIC
        if receiver.kind is Kind.FUNC or _is_string(func.value):
            return STATIC
        category = Category.BLOCK if receiver.qual.startswith("self.") else Category.HELPER
        return self._opaque_result(node, args, category)

    def call_self_method(self, node: ast.Call, attr: str) -> Value:
        cls = self.ctx.cls
        args = self.eval_args(node)
        if cls is not None and attr not in ("__call__", "forward", "hybrid_forward"):
            hit = self.index.find_method(cls, attr)
            if hit is not None:
                owner, span = hit
                site = Site(self.index.lines, span.qualname, function=span, np_mode=self.index.np_mode)
                return self.call_function(span.node, node, args, site, owner, span.qualname, Env(), _SELF)
            try:
                layer = self.init_layers[cls.name].get(attr)  # (computed on first lookup)
            except KeyError:
                layer = None
            if layer is not None and len(node.args) == 1 and not node.keywords \
                    and not isinstance(node.args[0], ast.Starred):
                return self.call_layer(node, args[0][1], layer)
        return self._opaque_result(node, args, Category.BLOCK)

    def call_layer(self, node: ast.Call, data: Value, layer: str = "") -> Value:
        """``self.fc(x)`` where ``self.fc`` is a single-tensor Gluon layer (``nn.Dense``, see
        ``layers.py``): ``x`` is a tensor (evidence, as an ``F`` operator's argument is) and so is
        the result."""
        if self._undecided(data):
            self.saw_tensor(data, node.args[0])
        if not data.holds_tensor and data.kind is not Kind.STATIC:
            return self._opaque_result(node, [(None, data)], Category.BLOCK)
        result = tensor(self.origin(Category.BLOCK, node))
        if self.emitting and layer in BC.SHAPE_KEEPING_LAYERS and data.kind is Kind.TENSOR:
            result = replace(result, dims=BC.keep(data))
        return result

    def _analyse_bound_method(self, name: str, call: ast.Call) -> None:
        """A method of the class handed to a control-flow operator (``F.contrib.foreach(self.step,
        data, states)``): it runs while tracing with tensors the operator makes, so it is
        analysed like a nested function, its parameters undecided."""
        cls = self.ctx.cls
        hit = self.index.find_method(cls, name) if cls is not None and "." not in name else None
        if hit is None:
            return
        owner, span = hit
        fn = span.node
        if id(fn) in self.analysed_nested or id(fn) in self.stack:
            return
        self.analysed_nested.add(id(fn))
        site = Site(self.index.lines, span.qualname, self.ctx.site.chain + (
            f"reached from `{self.ctx.display}` via `{self.ctx.site.text(call, 50)}` on line {call.lineno}",),
            span, self.index.np_mode)
        ctx = FunctionContext(site, owner, span.qualname)
        saved = self.ctx
        self.ctx = ctx
        params = _all_params(fn.args)  # type: ignore[arg-type]
        bound = {p.arg: self.maybe(("param", id(fn), p.arg), self.origin(Category.INPUT, p)) for p in params[1:]}
        self.ctx = saved
        if params:
            bound[params[0].arg] = _SELF
        self.run_function(fn, ctx, bound, Env())

    def call_tensor_method(self, node: ast.Call, func: ast.Attribute, receiver: Value, attr: str) -> Value:
        if attr in K.CONTAINER_METHODS:
            self.saw_container(receiver, strong=True)
            args = self.eval_args(node)
            if attr in K.STORING_METHODS and isinstance(func.value, ast.Name):
                stored = [v for _, v in args if v.holds_tensor]
                if stored:
                    self.env.names[func.value.id] = seq(receiver.origin, join_all(stored))
            return STATIC
        if attr in K.METADATA_ATTRS:
            # ``t.size()``/``t.shape()``: the attribute is read first (and is no method of NDArray)
            self.saw_tensor(receiver, node)
            self.emit(EventKind.ATTRIBUTE, func, value=receiver, subject=func.value, name=attr,
                      extra={"uses": self.meta_uses})
            self.eval_args(node)
            return STATIC
        known = attr in K.TENSOR_METHODS
        if known:
            self.saw_tensor(receiver, node)
        args = self.eval_args(node)
        if self.emitting and any(v.meta is not None for _, v in args):
            self.note_meta_use(node)  # ``x.reshape((n, -1))``
        self.emit(EventKind.METHOD_CALL, node, value=receiver, subject=func.value, name=attr, call=node,
                  args=tuple((v, a.node) for a, v in args), extra={"uses": self.meta_uses})
        if attr in K.CONCRETE_METHODS:
            if attr == "asscalar" and not args and receiver.kind is Kind.TENSOR and self.emitting:
                # the number read out of a one-element tensor (HY001's conversion keeps it a tensor)
                return Value(Kind.STATIC, meta=SH.Meta("value", node, self.ctx.site.function, receiver))
            return STATIC
        origin = self.origin(Category.DERIVED, node, receiver.origin)
        if not known and receiver.kind is Kind.MAYBE:
            # ``lds.log_prob(x)`` on an undecided value: a method of some object built from
            # tensors (a distribution, a model state), which may return anything
            return self.maybe(("call", id(node)), replace(origin, category=Category.HELPER))
        if _multi_output({attr}, node):
            return seq(origin, tensor(replace(origin, category=Category.ELEMENT)))
        if self.emitting and receiver.kind is Kind.TENSOR:
            dims = BC.call_dims(attr, receiver, [(a.keyword, a.node, v) for a, v in args if not a.star],
                                node, self.ctx.site) if not any(a.star for a, _ in args) else None
            return Value(Kind.TENSOR, origin=origin, dims=dims)
        return tensor(origin)

    def call_builtin(self, node: ast.Call, name: str) -> Value:
        start = len(self.trace)
        if name == "isinstance":
            self.in_isinstance += 1
            try:
                args = self.eval_args(node)
            finally:
                self.in_isinstance -= 1
        else:
            args = self.eval_args(node)
        if name in HEDGING_BUILTINS and args:
            self.saw_hedge(args[0][1])
        self.emit(EventKind.CALL, node, name=f"builtins.{name}", args=tuple((v, a.node) for a, v in args),
                  extra={"tensors": tuple(self.trace[start:]), "uses": self.meta_uses})
        if name == "len" and len(args) == 1 and self.emitting:
            value = args[0][1]
            if value.kind is Kind.TENSOR:  # ``len(x)`` is ``x.shape[0]``
                return Value(Kind.STATIC, meta=SH.Meta("dim", node, self.ctx.site.function, value, index=0))
            meta = value.meta
            if meta is not None and meta.kind == "shape" and meta.start is None and meta.stop is None:
                return Value(Kind.STATIC, meta=SH.Meta("ndim", node, self.ctx.site.function, meta.tensor))
        if name in ("float", "int", "complex", "round"):
            for _, value in args[:1]:
                if value.kind is Kind.MAYBE:
                    self.saw_tensor(value, node)
            if name == "float" and len(args) == 1 and args[0][1].meta is not None and args[0][1].meta.kind == "value":
                return args[0][1]  # ``float(s.asscalar())``: the same number (as a Python float)
        if name == "getattr" and args:
            base = args[0][1]
            if base.kind is Kind.FNS:
                return replace(base, names=frozenset(f"{n}.<getattr>" for n in base.names))
            if base is _SELF:
                return static("self.<getattr>")
            if base.holds_tensor and base.kind is not Kind.SEQ and len(args) > 1:
                self.saw_tensor(base, node)
                return tensor(self.origin(Category.DERIVED, node, base.origin))
            return STATIC
        if name in K.ITERATING_BUILTINS:
            return self._iterating_builtin(node, name, args)
        held = [v for _, v in args if v.kind in (Kind.TENSOR, Kind.MAYBE)]
        if name in ("max", "min", "abs") and held and (name == "abs" or len(args) > 1):
            return tensor(self.origin(Category.DERIVED, node, held[0].origin))
        return STATIC

    def _iterating_builtin(self, node: ast.Call, name: str, args: list[tuple[Arg, Value]]) -> Value:
        if name in ("map", "filter"):
            iterated = args[1:]
        elif name == "zip":
            iterated = args
            if any(not v.holds_tensor for a, v in args if not a.star):  # ``zip(self.blocks, v)``
                for a, v in args:
                    self.saw_hedge(v)
        else:
            iterated = args[:1]
        items = [self.iterate(v, a.node, f"`{name}()`") for a, v in iterated if a.keyword is None and not a.star]
        if name in ("any", "all"):
            return STATIC
        if name == "sum" and items and items[0].holds_tensor:
            return tensor(self.origin(Category.DERIVED, node, items[0].origin))
        if name == "enumerate":
            return seq(None, seq(None, None, (STATIC, items[0]))) if items and items[0].holds_tensor else STATIC
        if name == "zip":
            return seq(None, seq(None, None, tuple(items))) if any(i.holds_tensor for i in items) else STATIC
        if name == "dict":
            held = [v for _, v in args if v.holds_tensor]
            return seq(None, join_all(held)) if held else STATIC
        if items and items[0].holds_tensor:
            return seq(None, items[0])
        return STATIC

    def call_value(self, node: ast.Call, callee: Value) -> Value:
        if callee.kind is Kind.FNS:
            return self.call_f_op(node, callee)
        if callee.kind is Kind.FUNC:
            fn, env, ctx = callee.func
            return self.call_function(fn, node, self.eval_args(node), ctx.site, ctx.cls, ctx.display, env, None)
        if callee.kind is Kind.STATIC and callee.qual.startswith("<module-function>."):
            span = self.index.functions[callee.qual.split(".", 1)[1]]
            args = self.eval_args(node)
            if not any(v.holds_tensor or v.kind is Kind.FNS for _, v in args):
                return STATIC
            site = Site(self.index.lines, span.qualname, function=span, np_mode=self.index.np_mode)
            return self.call_function(span.node, node, args, site, None, span.qualname, Env(), None)
        if callee.kind is Kind.STATIC and callee.qual.startswith("builtins."):
            return self.call_builtin(node, callee.qual.split(".", 1)[1])
        if callee.kind is Kind.STATIC and callee.qual and not callee.qual.startswith(("<", "self.")):
            return self.call_qualified(node, callee.qual)
        args = self.eval_args(node)
        return self._opaque_result(node, args, Category.HELPER if callee.holds_tensor else Category.BLOCK)

    def call_qualified(self, node: ast.Call, qual: str) -> Value:
        """A call of something imported: numpy/math/logging functions, mxnet's nd/sym APIs."""
        start = len(self.trace)
        args = self.eval_args(node)
        self.emit(EventKind.CALL, node, name=qual, args=tuple((v, a.node) for a, v in args),
                  extra={"tensors": tuple(self.trace[start:])})
        if K.api_family(qual) is not None and not qual.endswith(("NDArray", "Symbol")):
            return tensor(self.origin(Category.IMPERATIVE, node))
        if qual.startswith(("numpy.", "math.")):
            for _, value in args:
                if value.kind is Kind.MAYBE:
                    self.saw_tensor(value, node)
            if qual in ("math.sqrt", "numpy.sqrt") and len(args) == 1 and args[0][1].meta is not None \
                    and args[0][1].meta.scalar and self.emitting:
                return Value(Kind.STATIC, meta=SH.Meta("expr", node, self.ctx.site.function, op="sqrt",
                                                       operands=(args[0][1].meta,)))
            return STATIC
        if qual.startswith(("logging.", "warnings.")):
            return STATIC
        return self._opaque_result(node, args, Category.HELPER)

    def call_f_op(self, node: ast.Call, callee: Value) -> Value:
        ops = {K.op_name(n) for n in callee.names}
        legacy = {n.split(".", 1)[1] for n in callee.names if n.count(".") == 1}  # ``F.concat``
        for name in sorted(legacy & K.NDARRAY_ONLY_FUNCTIONS):
            self.emit(EventKind.API_REF, node.func, name=f"F.{name}", subject=node.func, construct="ndarray-only")
        args = self.eval_args(node)
        if self.emitting and any(v.meta is not None for _, v in args):
            self.note_meta_use(node)  # ``F.zeros((n, 4))``
        sequence_taking = bool(ops & K.SEQUENCE_TAKING_OPS)
        variadic = bool(legacy) and legacy <= K.VARIADIC_TENSOR_OPS
        for arg, value in args:
            if variadic and arg.keyword is None and not arg.star and self._undecided(value):
                self.saw_tensor(value, node)  # ``F.concat(a, b)``: each of a, b is one tensor
            if arg.star == "*":
                self.saw_hedge(value)  # ``f(*v)``: a sequence of arguments
                self.iterate(value, arg.node, "star-unpacking")
            elif arg.star == "**":
                continue
            elif value.kind is Kind.FUNC:
                fn, env, ctx = value.func
                if id(fn) not in self.analysed_nested:
                    self.analysed_nested.add(id(fn))
                    saved = self.ctx
                    self.ctx = ctx
                    bound = self._bind_unknown_params(fn)
                    self.ctx = saved
                    body_result = self.run_function(fn, FunctionContext(ctx.site, ctx.cls, ctx.display), bound, env)
                    self.body_results[id(fn)] = body_result
            elif value.kind is Kind.STATIC and value.qual.startswith("self.") and sequence_taking:
                self._analyse_bound_method(value.qual[5:], node)  # F.contrib.foreach(self.step, ...)
            elif not sequence_taking and self._undecided(value):
                self.saw_tensor(value, node)
        if self.emitting and len(ops) == 1:
            slots = AUX_INPUTS.get(next(iter(ops)))
            if slots is not None:
                self._state_inputs(node, next(iter(ops)), slots, args)
        origin = self.origin(Category.F_OP, node)
        if ops & K.NESTED_OUTPUT_OPS:
            # (outputs, states): the outputs' structure is whatever the body returns (undecided);
            # the final states have the structure of the initial ones (``init_states`` /
            # ``loop_vars``, the third argument): a list of tensors stays a list of tensors
            element = replace(origin, category=Category.ELEMENT)
            outputs = self.maybe(("call", id(node), "item"), element)
            if _body_outputs_tensor(args, self.body_results):
                outputs = tensor(element)  # the body returns one tensor per step: they are stacked
            initial = next((v for a, v in args if a.keyword in ("init_states", "loop_vars")), None)
            positional = [v for a, v in args if a.keyword is None and not a.star]
            if initial is None and len(positional) >= 3 and len(positional) == len(node.args):
                initial = positional[2]
            if initial is not None and initial.kind is Kind.TENSOR:
                return seq(origin, elements=(outputs, tensor(element)))
            if initial is not None and initial.kind is Kind.SEQ and initial.elements is not None \
                    and all(e.kind is Kind.TENSOR for e in initial.elements):
                states = seq(element, elements=tuple(tensor(element) for _ in initial.elements))
                return seq(origin, elements=(outputs, states))
            return seq(origin, outputs)
        if _multi_output(ops, node):
            return seq(origin, tensor(replace(origin, category=Category.ELEMENT)))
        if "cond" in ops:
            return self.maybe(("call", id(node)), origin)
        if self.emitting and len(ops) == 1 and not any(a.star for a, _ in args):
            return Value(Kind.TENSOR, origin=origin, dims=self._f_op_dims(next(iter(ops)), node, args))
        return tensor(origin)

    def _state_inputs(self, node: ast.Call, op: str, slots: tuple, args: list[tuple[Arg, Value]]) -> None:
        """``F.BatchNorm(x, g, b, mean, var)``: the values given for inputs the operator updates in
        place (a graph accepts only variables there: HY014)."""
        positional = [(a, v) for a, v in args if a.keyword is None and not a.star]
        if any(a.star == "*" for a, _ in args):
            return  # positions unknown (``**kwargs`` cannot fill a position given before it)
        by_name = {a.keyword: (a, v) for a, v in args if a.keyword is not None}
        for position, name in slots:
            hit = by_name.get(name) or (positional[position] if position < len(positional) else None)
            if hit is not None:
                self.emit(EventKind.STATE_INPUT, hit[0].node, value=hit[1], subject=hit[0].node, name=op,
                          construct=name, call=node)

    def _f_op_dims(self, op: str, node: ast.Call, args: list[tuple[Arg, Value]]) -> Optional[Any]:
        """Shape facts of ``F.<op>(...)``: the data is the first positional argument (or ``data=``)."""
        if not args or args[0][0].keyword not in (None, "data", "lhs") or op in BC.CONSTRUCTORS \
                or (op == "array" and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)):  # ``F.array``, not ``F.np.array``
            return BC.call_dims(op, None, [(a.keyword, a.node, v) for a, v in args], node, self.ctx.site)
        data_at = 0
        rest = [(a.keyword, a.node, v) for a, v in args[1:]]
        return BC.call_dims(op, args[data_at][1], rest, node, self.ctx.site)


#: node type -> ``Interpreter.eval_<Type>`` / ``exec_<Type>`` (or ``None``), filled on first use:
#: the dispatch of :meth:`Interpreter.eval` and :meth:`Interpreter.exec_stmt` runs for every node.
_EVAL_HANDLERS: dict[type, Optional[Callable[..., Any]]] = {}
_EXEC_HANDLERS: dict[type, Optional[Callable[..., Any]]] = {}
_UNSEEN = object()


def _handler(table: dict[type, Optional[Callable[..., Any]]], prefix: str,
             node_type: type) -> Optional[Callable[..., Any]]:
    found = table[node_type] = getattr(Interpreter, prefix + node_type.__name__, None)
    return found


def _body_outputs_tensor(args: Sequence[tuple[Any, Value]], results: dict[int, Value]) -> bool:
    """Does the loop body of ``F.contrib.foreach`` / ``while_loop`` (its first argument, a local
    function or lambda) return ``(one tensor, states)``? Then the outputs are one stacked tensor."""
    body = next((v for a, v in args if a.keyword in (None, "body", "func") and not a.star), None)
    if body is None or body.kind is not Kind.FUNC:
        return False
    result = results.get(id(body.func[0]))
    return result is not None and result.kind is Kind.SEQ and bool(result.elements) \
        and result.elements[0].kind is Kind.TENSOR


def _terminates(body: Sequence[ast.stmt]) -> bool:
    """The block always ends in ``return``/``raise`` (syntactically)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    return False


def _multi_output(ops: set[str], node: ast.Call) -> bool:
    if ops & K.MULTI_OUTPUT_OPS or _has_num_outputs(node):
        return True
    for op in ops:
        cond = K.CONDITIONAL_MULTI_OUTPUT.get(op)
        if cond is None:
            continue
        keyword, values = cond
        for kw in node.keywords:
            if kw.arg == keyword and isinstance(kw.value, ast.Constant) and repr(kw.value.value) in values | {
                    v.strip("'\"") for v in values}:
                return True
            if kw.arg == keyword and isinstance(kw.value, ast.Constant) and str(kw.value.value) in {
                    v.strip("'\"") for v in values}:
                return True
    return False


def _fns(base: Value, attr: str) -> Value:
    """``F.x`` -> the F-path(s) one attribute further (a hot path: no dataclasses.replace)."""
    return Value(Kind.FNS, names=frozenset([f"{n}.{attr}" for n in base.names]))


def join_all(values: Iterable[Value]) -> Value:
    result: Optional[Value] = None
    for value in values:
        result = value if result is None else join(result, value)
    return result if result is not None else STATIC


def _sig(value: Value) -> tuple:
    dims = value.dims
    return (value.kind, value.keys, value.names, value.qual, len(value.elements or ()),
            None if dims is None else (dims.rank, dims.ones))


def _all_params(args: ast.arguments) -> list[ast.arg]:
    out = list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)
    for star in (args.vararg, args.kwarg):
        if star is not None:
            out.append(star)
    return out


def _int_literal(node: ast.expr) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_literal(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def _has_num_outputs(node: ast.Call) -> bool:
    for kw in node.keywords:
        if kw.arg == "num_outputs":
            return not (isinstance(kw.value, ast.Constant) and kw.value.value == 1)
    return False
