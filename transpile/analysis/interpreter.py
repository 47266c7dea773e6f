"""The tensor dataflow: an abstract interpreter over libcst function bodies.

It executes a function's statements on abstract :class:`~.values.Value` s instead of real
objects: ``x = self.fc(x)`` binds ``x`` to "the result of a child block"; ``if``/``else``
branches are analysed separately and joined; loops run to a fixpoint; calls of methods of the
same class, module helpers and nested functions/lambdas are analysed with the abstract arguments
of the call (depth-limited). Along the way it emits :class:`~.events.Event` s (what was done to
which value) for the rules, and records usage :class:`~.events.Evidence` that decides values
left open (a ``hybrid_forward`` input may be a tensor or a list of tensors).

Branches that only run imperatively (``if F is nd:``, ``if isinstance(x, nd.NDArray):``) are
not analysed as symbolic code; their ``else`` is.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import libcst as cst

from . import knowledge as K
from .events import Event, EventKind, Evidence, Site
from .index import ClassInfo, ModuleIndex
from .values import STATIC, Category, Kind, Origin, Value, join, seq, static, tensor

MAX_CALL_DEPTH = 4
LOOP_ITERATIONS = 3

_AUG_TO_BIN = {
    "AddAssign": cst.Add, "SubtractAssign": cst.Subtract, "MultiplyAssign": cst.Multiply,
    "DivideAssign": cst.Divide, "FloorDivideAssign": cst.FloorDivide, "ModuloAssign": cst.Modulo,
    "PowerAssign": cst.Power, "MatrixMultiplyAssign": cst.MatrixMultiply,
    "LeftShiftAssign": cst.LeftShift, "RightShiftAssign": cst.RightShift,
    "BitAndAssign": cst.BitAnd, "BitOrAssign": cst.BitOr, "BitXorAssign": cst.BitXor,
}
_SELF = Value(Kind.STATIC, qual="<self>")
_STRING_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


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
    """The function being analysed: where it is, its class, and its recorded expression values."""

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

    def __init__(
        self,
        index: ModuleIndex,
        evidence: Evidence,
        decided: Optional[Evidence],
        emit: bool,
        init_ndarrays: dict[str, dict[str, tuple[str, int]]],
    ) -> None:
        self.index = index
        self.evidence = evidence
        self.decided = decided
        self.emit_enabled = emit
        self.silent = 0
        self.events: list[Event] = []
        self.values: dict[int, tuple[cst.CSTNode, Value, Site]] = {}
        self.init_ndarrays = init_ndarrays
        self.stack: list[int] = []
        self.memo: dict[tuple, Value] = {}
        self.analysed_nested: set[int] = set()
        self.pending_nested: list[tuple[cst.CSTNode, Env, FunctionContext]] = []
        self.errors: list[tuple[str, cst.CSTNode, Site]] = []
        self.env = Env()
        self.ctx: FunctionContext  # set while a function runs
        self.in_isinstance = 0
        self.trace: list[tuple[Value, cst.CSTNode]] = []
        self.escaped: set[int] = set()

    # ------------------------------------------------------------------ recording helpers
    @property
    def emitting(self) -> bool:
        return self.emit_enabled and self.silent == 0

    def emit(self, kind: EventKind, node: cst.CSTNode, **fields: Any) -> None:
        if self.emitting:
            self.events.append(Event(kind, node, self.ctx.site, **fields))

    def record(self, node: cst.CSTNode, value: Value) -> Value:
        if self.emitting:
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

    def origin(self, category: Category, node: cst.CSTNode, base: Optional[Origin] = None) -> Origin:
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

    def saw_tensor(self, value: Value, node: cst.CSTNode) -> None:
        if value.keys:
            self.evidence.saw_tensor(value, node, self.ctx.site)

    def saw_container(self, value: Value, strong: bool) -> None:
        if value.keys:
            self.evidence.saw_container(value, strong)

    # ------------------------------------------------------------------ entry points
    def run_hybrid_forward(self, cls: ClassInfo, fn: cst.FunctionDef, site: Site) -> None:
        ctx = FunctionContext(site, cls, "hybrid_forward")
        self.run_function(fn, ctx, self._bind_entry_params(fn, ctx), Env())
        self._drain_nested()

    def _bind_entry_params(self, fn: cst.FunctionDef, ctx: FunctionContext) -> dict[str, Value]:
        """``self`` -> self; ``F`` -> the F namespace; every other parameter is an input."""
        params = fn.params
        positional = list(params.posonly_params) + list(params.params)
        bound: dict[str, Value] = {}
        saved = getattr(self, "ctx", None)
        self.ctx = ctx
        try:
            for i, param in enumerate(positional):
                name = param.name.value
                if i == 0:
                    bound[name] = _SELF
                elif i == 1:
                    bound[name] = Value(Kind.FNS, names=frozenset({"F"}))
                else:
                    bound[name] = self._input_param(fn, param)
            for param in params.kwonly_params:
                bound[param.name.value] = self._input_param(fn, param)
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    key = ("param", id(fn), star.name.value)
                    org = self.origin(Category.INPUT, star.name)
                    item = self.maybe((key, "item"), replace(org, category=Category.ELEMENT))
                    bound[star.name.value] = Value(Kind.SEQ, origin=org, item=item, keys=frozenset({key}))
        finally:
            if saved is not None:
                self.ctx = saved
        return bound

    def _input_param(self, fn: cst.FunctionDef, param: cst.Param) -> Value:
        default = param.default
        if default is not None and not (isinstance(default, cst.Name) and default.value == "None"):
            # ``epsilon=1e-08``: a Python value unless the caller passes a tensor.
            return STATIC
        return self.maybe(("param", id(fn), param.name.value), self.origin(Category.INPUT, param.name))

    # ------------------------------------------------------------------ functions
    def run_function(self, fn: Union[cst.FunctionDef, cst.Lambda], ctx: FunctionContext,
                     bound: dict[str, Value], parent: Env) -> Value:
        saved_env, saved_ctx = self.env, getattr(self, "ctx", None)
        self.env = Env(parent, bound)
        self.ctx = ctx
        self.stack.append(id(fn))
        try:
            if isinstance(fn, cst.Lambda):
                return self.eval(fn.body)
            self.exec_block(fn.body)
            result: Optional[Value] = None
            for value in ctx.returns:
                result = value if result is None else join(result, value)
            return result if result is not None else STATIC
        finally:
            self.stack.pop()
            self.env = saved_env
            if saved_ctx is not None:
                self.ctx = saved_ctx

    def _drain_nested(self) -> None:
        """Analyse nested functions that were defined but never called (inputs undecided)."""
        while self.pending_nested:
            node, env, ctx = self.pending_nested.pop(0)
            if id(node) in self.analysed_nested:
                continue
            self.analysed_nested.add(id(node))
            bound = self._bind_unknown_params(node)
            self.run_function(node, FunctionContext(ctx.site, ctx.cls, ctx.display), bound, env)

    def _bind_unknown_params(self, fn: Union[cst.FunctionDef, cst.Lambda]) -> dict[str, Value]:
        bound: dict[str, Value] = {}
        for param in _all_params(fn.params):
            bound[param.name.value] = self.maybe(("param", id(fn), param.name.value),
                                                 self.origin(Category.INPUT, param.name))
        return bound

    def call_function(self, fn: Union[cst.FunctionDef, cst.Lambda], call: cst.Call, args: list[tuple[cst.Arg, Value]],
                      site: Site, cls: Optional[ClassInfo], display: str, parent: Env,
                      self_value: Optional[Value]) -> Value:
        """Analyse ``fn`` with the abstract arguments of ``call`` and return its abstract result."""
        tensors_in = any(v.holds_tensor or v.kind is Kind.FNS for _, v in args)
        if id(fn) in self.stack or len(self.stack) > MAX_CALL_DEPTH:
            return self._opaque_result(call, args, Category.HELPER)
        bound = self._bind_call(fn, args, self_value)
        memo_key = (id(fn), tuple(sorted((k, _sig(v)) for k, v in bound.items())), self.silent > 0)
        if memo_key in self.memo:
            return self.memo[memo_key]
        if isinstance(fn, (cst.FunctionDef, cst.Lambda)):
            self.analysed_nested.add(id(fn))
        chain = self.ctx.site.chain + (
            f"reached from `{self.ctx.display}` via `{self.ctx.site.text(call, 50)}`",
        ) if site is not self.ctx.site or display != self.ctx.display else self.ctx.site.chain
        callee_site = site if site is self.ctx.site else Site(site.module, site.line_offset, site.name, chain)
        if callee_site is not site:
            callee_site._positions = site._positions
        ctx = FunctionContext(callee_site, cls, display)
        result = self.run_function(fn, ctx, bound, parent)
        if result.holds_tensor and result.origin is None:
            result = result.with_origin(self.origin(Category.HELPER, call))
        elif result.kind is Kind.STATIC and tensors_in and not ctx.returns:
            result = STATIC
        self.memo[memo_key] = result
        return result

    def _bind_call(self, fn: Union[cst.FunctionDef, cst.Lambda], args: list[tuple[cst.Arg, Value]],
                   self_value: Optional[Value]) -> dict[str, Value]:
        params = fn.params
        positional = list(params.posonly_params) + list(params.params)
        bound: dict[str, Value] = {}
        if self_value is not None and positional:
            bound[positional[0].name.value] = self_value
            positional = positional[1:]
        extra: list[Value] = []
        star_fill: Optional[Value] = None
        pos_index = 0
        kw_extra: list[Value] = []
        for arg, value in args:
            if arg.star == "*":
                star_fill = value.item if value.kind is Kind.SEQ and value.item is not None else (
                    self.maybe(("star", id(arg)), self.origin(Category.ELEMENT, arg.value)) if value.holds_tensor else STATIC)
                continue
            if arg.star == "**":
                continue
            if arg.keyword is not None:
                name = arg.keyword.value
                if any(p.name.value == name for p in positional) or any(p.name.value == name for p in params.kwonly_params):
                    bound[name] = value
                else:
                    kw_extra.append(value)
                continue
            if pos_index < len(positional):
                bound[positional[pos_index].name.value] = value
                pos_index += 1
            else:
                extra.append(value)
        for param in positional[pos_index:] + list(params.kwonly_params):
            name = param.name.value
            if name in bound:
                continue
            if star_fill is not None:
                bound[name] = star_fill
            elif param.default is not None:
                bound[name] = self.eval(param.default) if not isinstance(param.default, cst.Name) else STATIC
            else:
                bound[name] = STATIC
        if isinstance(params.star_arg, cst.Param):
            item = None
            for v in extra + ([star_fill] if star_fill is not None else []):
                item = v if item is None else join(item, v)
            bound[params.star_arg.name.value] = seq(None, item) if item is not None and item.holds_tensor else STATIC
        if isinstance(params.star_kwarg, cst.Param):
            item = None
            for v in kw_extra:
                item = v if item is None else join(item, v)
            bound[params.star_kwarg.name.value] = seq(None, item) if item is not None and item.holds_tensor else STATIC
        return bound

    def _opaque_result(self, call: cst.Call, args: Sequence[tuple[Any, Value]], category: Category) -> Value:
        """Result of a call we cannot see into: undecided if tensors went in, static otherwise."""
        if any(v.holds_tensor for _, v in args):
            return self.maybe(("call", id(call)), self.origin(category, call))
        return STATIC

    # ------------------------------------------------------------------ statements
    def exec_block(self, block: Union[cst.BaseSuite, Sequence[cst.BaseStatement]]) -> None:
        if isinstance(block, cst.SimpleStatementSuite):
            for small in block.body:
                self.exec_small(small)
            return
        body = block.body if isinstance(block, cst.IndentedBlock) else block
        for stmt in body:
            self.exec_stmt(stmt)

    def exec_stmt(self, stmt: cst.BaseStatement) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.exec_small(small)
        elif isinstance(stmt, cst.If):
            self.exec_if(stmt)
        elif isinstance(stmt, cst.For):
            self.exec_for(stmt)
        elif isinstance(stmt, cst.While):
            self.exec_while(stmt)
        elif isinstance(stmt, cst.Try):
            self.exec_try(stmt)
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                value = self.eval(item.item)
                if item.asname is not None:
                    self.assign(item.asname.name, value, item.item)
            self.exec_block(stmt.body)
        elif isinstance(stmt, cst.FunctionDef):
            self.env.names[stmt.name.value] = Value(Kind.FUNC, func=(stmt, self.env, self.ctx))
            self.pending_nested.append((stmt, self.env, self.ctx))
        elif isinstance(stmt, cst.ClassDef):
            self.env.names[stmt.name.value] = STATIC
        elif hasattr(cst, "TryStar") and isinstance(stmt, getattr(cst, "TryStar")):
            self.exec_try(stmt)
        elif hasattr(cst, "Match") and isinstance(stmt, getattr(cst, "Match")):
            self.eval(stmt.subject)
            before = self.env.copy()
            merged = before.copy()
            for case in stmt.cases:
                self.env = before.copy()
                self.exec_block(case.body)
                merged.join_from(self.env)
            self.env = merged

    def exec_small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Expr):
            self.eval(small.value)
        elif isinstance(small, cst.Assign):
            value = self.eval(small.value)
            for target in small.targets:
                self.assign(target.target, value, small.value)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self.assign(small.target, self.eval(small.value), small.value)
        elif isinstance(small, cst.AugAssign):
            self.exec_augassign(small)
        elif isinstance(small, cst.Return):
            value = self.eval(small.value) if small.value is not None else STATIC
            self.ctx.returns.append(value)
        elif isinstance(small, cst.Assert):
            self.condition(small.test, "assert")
            if small.msg is not None:
                self.eval(small.msg)
        elif isinstance(small, cst.Raise):
            if small.exc is not None:
                self.eval(small.exc)
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            self.exec_import(small)
        elif isinstance(small, cst.Del):
            pass

    def exec_import(self, small: Union[cst.Import, cst.ImportFrom]) -> None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                full = _dotted_name(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.env.names[alias.asname.name.value] = static(full)
                else:
                    top = full.split(".", 1)[0]
                    self.env.names[top] = static(top)
            return
        if isinstance(small.names, cst.ImportStar):
            return
        base = "." * len(small.relative) + (_dotted_name(small.module) if small.module is not None else "")
        for alias in small.names:
            name = _dotted_name(alias.name)
            sep = "" if base.endswith(".") or not base else "."
            local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
            self.env.names[local] = static(f"{base}{sep}{name}")

    def exec_augassign(self, stmt: cst.AugAssign) -> None:
        rhs = self.eval(stmt.value)
        target = stmt.target
        op = type(stmt.operator).__name__
        if isinstance(target, cst.Name):
            old = self.lookup(target.value, target)
            self.emit(EventKind.AUG_ASSIGN, stmt, value=old, subject=target, name=target.value,
                      construct=op, extra={"rhs": rhs, "env": dict(self.env.names),
                                           "escaped": id(old) in self.escaped})
            new = self.arith(old, rhs, stmt, _AUG_TO_BIN.get(op, cst.Add)(), target, stmt.value)
            self.env.names[target.value] = new
        elif isinstance(target, cst.Subscript):
            container = self.eval(target.value)
            self.eval_slices(target, container)
            self.emit(EventKind.SUBSCRIPT_STORE, target, value=container, subject=target.value, construct=op)
        elif isinstance(target, cst.Attribute):
            base = self.eval(target.value)
            if base is _SELF:
                old = self.self_attribute(target)
                new = self.arith(old, rhs, stmt, _AUG_TO_BIN.get(op, cst.Add)(), target, stmt.value)
                if new.holds_tensor:
                    self.emit(EventKind.SELF_STORE, stmt, value=new, subject=stmt.value,
                              name=target.attr.value, construct="augmented assignment")

    def exec_if(self, stmt: cst.If, construct: str = "if") -> None:
        guard = self.classify_guard(stmt.test)
        if guard is None:
            self.condition(stmt.test, construct)
        before = self.env.copy()
        if guard != "imperative":
            self.exec_block(stmt.body)
        after_body = self.env
        self.env = before.copy()
        if stmt.orelse is not None and guard != "symbolic":
            if isinstance(stmt.orelse, cst.If):
                self.exec_if(stmt.orelse, "elif")
            else:
                self.exec_block(stmt.orelse.body)
        after_else = self.env
        if guard == "imperative":
            self.env = after_else
        elif guard == "symbolic":
            self.env = after_body
        else:
            after_body.join_from(after_else)
            self.env = after_body

    def run_loop(self, body: Callable[[], None]) -> None:
        """Run ``body`` silently until the bindings stop changing, then once more for real."""
        self.silent += 1
        try:
            for _ in range(LOOP_ITERATIONS):
                before = self.env.copy()
                body()
                self.env.join_from(before)
                if self.env.same(before):
                    break
        finally:
            self.silent -= 1
        before = self.env.copy()
        body()
        self.env.join_from(before)

    def exec_for(self, stmt: cst.For) -> None:
        iterable = self.eval(stmt.iter)
        element = self.iterate(iterable, stmt.iter, "for loop")

        def body() -> None:
            self.assign(stmt.target, element, stmt.iter, from_iteration=True)
            self.exec_block(stmt.body)

        self.run_loop(body)
        if stmt.orelse is not None:
            self.exec_block(stmt.orelse.body)

    def exec_while(self, stmt: cst.While) -> None:
        def body() -> None:
            self.condition(stmt.test, "while")
            self.exec_block(stmt.body)

        self.run_loop(body)
        if stmt.orelse is not None:
            self.exec_block(stmt.orelse.body)

    def exec_try(self, stmt: Any) -> None:
        before = self.env.copy()
        self.exec_block(stmt.body)
        merged = self.env.copy()
        for handler in stmt.handlers:
            self.env = before.copy()
            self.env.join_from(merged)
            if handler.type is not None:
                self.eval(handler.type)
            if handler.name is not None:
                self.assign(handler.name.name, STATIC, handler)
            self.exec_block(handler.body)
            merged.join_from(self.env)
        self.env = merged
        if stmt.orelse is not None:
            self.exec_block(stmt.orelse.body)
        if stmt.finalbody is not None:
            self.exec_block(stmt.finalbody.body)

    # ------------------------------------------------------------------ assignment
    def assign(self, target: cst.BaseExpression, value: Value, source: cst.CSTNode,
               from_iteration: bool = False) -> None:
        if isinstance(target, cst.Name):
            self.env.names[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            self.unpack(target, value, source)
        elif isinstance(target, cst.Attribute):
            base = self.eval(target.value)
            if base is _SELF and value.holds_tensor:
                self.escape(value)
                self.emit(EventKind.SELF_STORE, target, value=value, subject=source,
                          name=target.attr.value, construct="assignment")
        elif isinstance(target, cst.Subscript):
            container = self.eval(target.value)
            self.eval_slices(target, container)
            if container.kind is Kind.STATIC and container.qual.startswith("self.") and value.holds_tensor:
                self.emit(EventKind.SELF_STORE, target, value=value, subject=source,
                          name=container.qual[5:], construct="item assignment")
            self.emit(EventKind.SUBSCRIPT_STORE, target, value=container, subject=target.value, construct="=")
            if isinstance(target.value, cst.Name) and container.kind in (Kind.SEQ, Kind.STATIC) and value.holds_tensor:
                self.env.names[target.value.value] = join(container, seq(None, value)) if container.kind is Kind.SEQ else seq(None, value)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, seq(None, value) if value.holds_tensor else STATIC, source)

    def unpack(self, target: Union[cst.Tuple, cst.List], value: Value, source: cst.CSTNode) -> None:
        elements = list(target.elements)
        items = self.unpacked_items(value, len(elements), source, "unpacking")
        for element, item in zip(elements, items):
            if isinstance(element, cst.StarredElement):
                self.assign(element.value, seq(None, item) if item.holds_tensor else STATIC, source)
            else:
                self.assign(element.value, item, source)

    def unpacked_items(self, value: Value, count: int, source: cst.CSTNode, how: str) -> list[Value]:
        if value.kind is Kind.SEQ and value.elements is not None and len(value.elements) == count:
            return list(value.elements)
        element = self.iterate(value, source, how)
        if value.keys and value.kind is not Kind.TENSOR:
            key = sorted(value.keys, key=repr)[0]
            return [self.maybe((key, "unpack", i), self.origin(Category.ELEMENT, source)) for i in range(count)]
        # distinct objects: unpacked outputs are different tensors (aliasing matters for fixes)
        return [replace(element) for _ in range(count)]

    # ------------------------------------------------------------------ uses
    def iterate(self, value: Value, node: cst.CSTNode, how: str) -> Value:
        """Report iteration over ``value`` and return the abstract element."""
        self.saw_container(value, strong=False)
        if value.holds_tensor:
            self.emit(EventKind.ITERATE, node, value=value, subject=node, construct=how)
        if value.kind is Kind.SEQ:
            if value.item is not None:
                return value.item
            if value.elements:
                item = value.elements[0]
                for other in value.elements[1:]:
                    item = join(item, other)
                return item
            return tensor(self.origin(Category.ELEMENT, node))
        if value.kind is Kind.MAYBE:
            key = sorted(value.keys, key=repr)[0] if value.keys else ("iter", id(node))
            return self.maybe((key, "item"), self.origin(Category.ELEMENT, node))
        if value.kind is Kind.TENSOR:
            return tensor(self.origin(Category.ELEMENT, node, value.origin))
        return STATIC

    def condition(self, test: cst.BaseExpression, construct: str) -> Value:
        value = self.eval(test)
        self.emit(EventKind.CONDITION, test, value=value, subject=test, construct=construct)
        return value

    def lookup(self, name: str, node: cst.CSTNode) -> Value:
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

    # ------------------------------------------------------------------ guards
    def classify_guard(self, test: cst.BaseExpression) -> Optional[str]:
        """``"imperative"`` if ``test`` is only true when running imperatively (``F is nd``),
        ``"symbolic"`` if only when building a graph, else ``None``."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self.classify_guard(test.expression)
            return {"imperative": "symbolic", "symbolic": "imperative"}.get(inner or "")
        if isinstance(test, cst.BooleanOperation):
            left, right = self.classify_guard(test.left), self.classify_guard(test.right)
            if isinstance(test.operator, cst.And):
                return left or right
            return left if left == right else None
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            negate = isinstance(comp.operator, (cst.IsNot, cst.NotEqual))
            if not isinstance(comp.operator, (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)):
                return None
            sides = [test.left, comp.comparator]
            values = [self._peek(side) for side in sides]
            for mine, other in ((values[0], values[1]), (values[1], values[0])):
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
        if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance" \
                and len(test.args) == 2:
            classes = test.args[1].value
            nodes = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
            quals = [self._peek(node).qual for node in nodes]
            if quals and all(K.is_ndarray_class(q) for q in quals):
                return "imperative"
            if quals and all(K.is_symbol_class(q) for q in quals):
                return "symbolic"
        return None

    def _peek(self, node: cst.BaseExpression) -> Value:
        """Evaluate a name or attribute chain without events (for guard tests)."""
        if isinstance(node, cst.Name):
            return self.lookup(node.value, node)
        if isinstance(node, cst.Attribute):
            base = self._peek(node.value)
            if base.kind is Kind.FNS:
                return replace(base, names=frozenset(f"{n}.{node.attr.value}" for n in base.names))
            if base.kind is Kind.STATIC and base.qual:
                return static(f"{base.qual}.{node.attr.value}")
        return STATIC

    # ------------------------------------------------------------------ expressions
    def eval(self, node: cst.BaseExpression) -> Value:
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            for child in node.children:
                if isinstance(child, cst.BaseExpression):
                    self.eval(child)
            return STATIC
        return self.record(node, method(node))

    def eval_Name(self, node: cst.Name) -> Value:
        if node.value in ("True", "False", "None"):
            return STATIC
        return self.lookup(node.value, node)

    def eval_Attribute(self, node: cst.Attribute) -> Value:
        base = self.eval(node.value)
        attr = node.attr.value
        if base is _SELF:
            return self.self_attribute(node)
        if base.kind is Kind.FNS:
            return replace(base, names=frozenset(f"{n}.{attr}" for n in base.names))
        if base.kind is Kind.STATIC:
            if base.qual and not base.qual.startswith(("<", "builtins.")):
                qual = f"{base.qual}.{attr}"
                if K.api_family(qual) and not self.in_isinstance:
                    self.emit(EventKind.API_REF, node, name=qual, subject=node)
                return static(qual)
            if base.qual.startswith("self."):
                return static(f"{base.qual}.{attr}")
            return STATIC
        if base.holds_tensor:
            return self.tensor_attribute(base, node, attr)
        return STATIC

    def self_attribute(self, node: cst.Attribute) -> Value:
        attr = node.attr.value
        cls = self.ctx.cls
        if cls is not None:
            made = self.init_ndarrays.get(cls.name, {}).get(attr)
            if made is not None:
                text, row = made
                value = tensor(Origin(Category.INIT_NDARRAY, fixed_text=text, fixed_row=row, node_id=id(node)))
                self.emit(EventKind.SELF_ATTR_READ, node, value=value, subject=node, name=attr)
                return value
        return static(f"self.{attr}")

    def tensor_attribute(self, base: Value, node: cst.Attribute, attr: str) -> Value:
        if attr in K.CONTAINER_METHODS:
            self.saw_container(base, strong=True)
            return STATIC
        self.saw_tensor(base, node)
        self.emit(EventKind.ATTRIBUTE, node, value=base, subject=node.value, name=attr)
        if attr in K.METADATA_ATTRS:
            return STATIC
        return tensor(self.origin(Category.DERIVED, node, base.origin))

    def eval_Subscript(self, node: cst.Subscript) -> Value:
        base = self.eval(node.value)
        indices = self.eval_slices(node, base)
        if base.kind is Kind.STATIC:
            return static(base.qual) if base.qual.startswith("self.") else STATIC
        if base.kind is Kind.FNS:
            return STATIC
        multi = len(node.slice) > 1 or any(
            isinstance(s.slice, cst.Index) and (isinstance(s.slice.value, cst.Ellipsis) or
                                                (isinstance(s.slice.value, cst.Name) and s.slice.value.value == "None"))
            for s in node.slice)
        if multi:
            self.saw_tensor(base, node)
        self.emit(EventKind.SUBSCRIPT_LOAD, node, value=base, subject=node.value)
        if base.kind is Kind.TENSOR:
            return tensor(self.origin(Category.DERIVED, node, base.origin))
        is_slice = len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice)
        if base.kind is Kind.SEQ:
            if is_slice:
                return base
            if base.elements is not None and len(node.slice) == 1:
                index = _int_literal(node.slice[0].slice)
                if index is not None and -len(base.elements) <= index < len(base.elements):
                    return base.elements[index]
            if base.item is not None:
                return base.item
            if base.elements:
                item = base.elements[0]
                for other in base.elements[1:]:
                    item = join(item, other)
                return item
            return tensor(self.origin(Category.ELEMENT, node.value))
        # MAYBE: the element of an undecided value is itself undecided.
        if is_slice:
            return base
        key = sorted(base.keys, key=repr)[0] if base.keys else ("sub", id(node))
        return self.maybe((key, "item"), self.origin(Category.ELEMENT, node.value))

    def eval_slices(self, node: cst.Subscript, base: Value) -> list[Value]:
        out = []
        for element in node.slice:
            sl = element.slice
            if isinstance(sl, cst.Index):
                out.append(self.eval(sl.value))
            elif isinstance(sl, cst.Slice):
                for part in (sl.lower, sl.upper, sl.step):
                    if part is not None:
                        self.eval(part)
        return out

    def arith(self, left: Value, right: Value, node: cst.CSTNode, op: cst.BaseBinaryOp,
              left_node: cst.CSTNode, right_node: cst.CSTNode) -> Value:
        if isinstance(op, cst.Modulo) and isinstance(left_node, _STRING_NODES):
            return STATIC  # "%s" % x formats; the result is a string
        container_op = isinstance(op, (cst.Add, cst.Multiply))
        for mine, other, other_node in ((left, right, right_node), (right, left, left_node)):
            if mine.kind is Kind.MAYBE or (mine.keys and mine.kind is not Kind.SEQ):
                if container_op and (isinstance(other_node, (cst.List, cst.Tuple, cst.ListComp)) or other.kind is Kind.SEQ):
                    self.saw_container(mine, strong=True)
                else:
                    self.saw_tensor(mine, node)
        if left.kind is Kind.SEQ or right.kind is Kind.SEQ:
            if container_op and Kind.TENSOR not in (left.kind, right.kind):
                item = None
                for v in (left, right):
                    if v.kind is Kind.SEQ:
                        cand = v.item if v.item is not None else (join_all(v.elements) if v.elements else None)
                        if cand is not None:
                            item = cand if item is None else join(item, cand)
                return seq(left.origin or right.origin, item)
        for operand in (left, right):
            if operand.kind in (Kind.TENSOR, Kind.MAYBE):
                return tensor(self.origin(Category.DERIVED, node, operand.origin))
        return STATIC

    def eval_BinaryOperation(self, node: cst.BinaryOperation) -> Value:
        left = self.eval(node.left)
        right = self.eval(node.right)
        return self.arith(left, right, node, node.operator, node.left, node.right)

    def eval_UnaryOperation(self, node: cst.UnaryOperation) -> Value:
        if isinstance(node.operator, cst.Not):
            self.condition(node.expression, "not")
            return STATIC
        value = self.eval(node.expression)
        if value.kind in (Kind.TENSOR, Kind.MAYBE):
            self.saw_tensor(value, node)
            return tensor(self.origin(Category.DERIVED, node, value.origin))
        return STATIC

    def eval_BooleanOperation(self, node: cst.BooleanOperation) -> Value:
        construct = "and" if isinstance(node.operator, cst.And) else "or"
        left = self.condition(node.left, construct)
        right = self.eval(node.right)
        return join(left, right)

    def eval_Comparison(self, node: cst.Comparison) -> Value:
        left = self.eval(node.left)
        result = STATIC
        operands = [left]
        for comp in node.comparisons:
            right = self.eval(comp.comparator)
            operands.append(right)
            if isinstance(comp.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                continue
            prev = operands[-2]
            if isinstance(comp.operator, (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)):
                for operand in (prev, right):
                    if operand.kind is Kind.MAYBE or (operand.keys and operand.kind is not Kind.SEQ):
                        self.saw_tensor(operand, node)
            for operand in (prev, right):
                if operand.kind in (Kind.TENSOR, Kind.MAYBE):
                    result = tensor(self.origin(Category.DERIVED, node, operand.origin))
                    break
        return result

    def eval_IfExp(self, node: cst.IfExp) -> Value:
        guard = self.classify_guard(node.test)
        if guard == "imperative":
            return self.eval(node.orelse)
        if guard == "symbolic":
            return self.eval(node.body)
        self.condition(node.test, "conditional expression")
        return join(self.eval(node.body), self.eval(node.orelse))

    def eval_Lambda(self, node: cst.Lambda) -> Value:
        self.pending_nested.append((node, self.env, self.ctx))
        return Value(Kind.FUNC, func=(node, self.env, self.ctx))

    def eval_NamedExpr(self, node: cst.NamedExpr) -> Value:
        value = self.eval(node.value)
        self.assign(node.target, value, node.value)
        return value

    def _display(self, node: Union[cst.List, cst.Tuple, cst.Set]) -> Value:
        values: list[Value] = []
        starred = False
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                inner = self.eval(element.value)
                values.append(self.iterate(inner, element.value, "star-unpacking"))
                starred = True
            else:
                values.append(self.eval(element.value))
        if not any(v.holds_tensor for v in values):
            return STATIC
        if starred:
            return seq(None, join_all(values))
        return seq(None, None, tuple(values))

    eval_List = eval_Tuple = eval_Set = _display

    def eval_Dict(self, node: cst.Dict) -> Value:
        values = []
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self.eval(element.key)
                values.append(self.eval(element.value))
            else:
                values.append(self.eval(element.value))
        held = [v for v in values if v.holds_tensor]
        return seq(None, join_all(held)) if held else STATIC

    def _comprehension(self, node: Any) -> Value:
        saved = self.env
        self.env = Env(saved.parent, saved.names)
        try:
            comp = node.for_in
            while comp is not None:
                iterable = self.eval(comp.iter)
                element = self.iterate(iterable, comp.iter, "comprehension")
                self.assign(comp.target, element, comp.iter, from_iteration=True)
                for cond in comp.ifs:
                    self.condition(cond.test, "comprehension `if`")
                comp = comp.inner_for_in
            if isinstance(node, cst.DictComp):
                self.eval(node.key)
                elt = self.eval(node.value)
            else:
                elt = self.eval(node.elt)
        finally:
            self.env = saved
        return seq(None, elt) if elt.holds_tensor else STATIC

    eval_ListComp = eval_GeneratorExp = eval_SetComp = eval_DictComp = _comprehension

    def eval_FormattedString(self, node: cst.FormattedString) -> Value:
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.eval(part.expression)
        return STATIC

    def eval_Await(self, node: cst.Await) -> Value:
        return self.eval(node.expression)

    # ------------------------------------------------------------------ calls
    def eval_args(self, call: cst.Call) -> list[tuple[cst.Arg, Value]]:
        return [(arg, self.eval(arg.value)) for arg in call.args]

    def eval_Call(self, node: cst.Call) -> Value:
        func = node.func
        if isinstance(func, cst.Attribute):
            receiver = self.eval(func.value)
            return self.call_attribute(node, func, receiver)
        if isinstance(func, cst.Name) and self.env.lookup(func.value) is None \
                and func.value not in self.index.imports and func.value not in self.index.functions \
                and func.value not in self.index.module_names:
            return self.call_builtin(node, func.value)
        callee = self.eval(func)
        return self.call_value(node, callee)

    def call_attribute(self, node: cst.Call, func: cst.Attribute, receiver: Value) -> Value:
        attr = func.attr.value
        if receiver is _SELF:
            return self.call_self_method(node, attr)
        if receiver.kind is Kind.FNS:
            callee = replace(receiver, names=frozenset(f"{n}.{attr}" for n in receiver.names))
            return self.call_value(node, callee)
        if receiver.holds_tensor and receiver.kind is not Kind.SEQ:
            return self.call_tensor_method(node, func, receiver, attr)
        if receiver.kind is Kind.SEQ:
            args = self.eval_args(node)
            if attr in K.STORING_METHODS and isinstance(func.value, cst.Name):
                stored = join_all([v for _, v in args if v.holds_tensor]) if any(v.holds_tensor for _, v in args) else None
                if stored is not None:
                    self.env.names[func.value.value] = join(receiver, seq(None, stored))
            if attr == "pop":
                return receiver.item or STATIC
            if attr in ("values", "items", "keys", "copy"):
                return receiver
            return STATIC
        if receiver.kind is Kind.STATIC and receiver.qual and not receiver.qual.startswith(("<", "builtins.")) \
                and not receiver.qual.startswith("self."):
            qual = f"{receiver.qual}.{attr}"
            if K.api_family(qual) and not self.in_isinstance:
                self.emit(EventKind.API_REF, func, name=qual, subject=func)
            return self.call_value(node, static(qual))
        args = self.eval_args(node)
        if receiver.kind is Kind.STATIC and receiver.qual.startswith("self.") and attr in K.STORING_METHODS:
            for _, value in args:
                if value.holds_tensor:
                    self.escape(value)
                    self.emit(EventKind.SELF_STORE, node, value=value, subject=node.args[0].value if node.args else node,
                              name=receiver.qual[5:], construct=f"`.{attr}()`")
                    break
        if attr in K.STORING_METHODS and isinstance(func.value, cst.Name) and receiver.kind is Kind.STATIC:
            stored = [v for _, v in args if v.holds_tensor]
            for v in stored:
                self.escape(v)
            if stored:
                item = join_all(stored)
                if attr == "extend" and item.kind is Kind.SEQ:
                    item = item.item or STATIC
                if self.env.lookup(func.value.value) is not None:
                    self.env.names[func.value.value] = seq(None, item)
            return STATIC
        if receiver.kind is Kind.FUNC:
            return STATIC
        if isinstance(func.value, _STRING_NODES):
            return STATIC
        self.emit(EventKind.CALL, node, name=attr, args=tuple((v, a.value) for a, v in args))
        return self._opaque_result(node, args, Category.BLOCK if receiver.qual.startswith("self.") else Category.HELPER)

    def call_self_method(self, node: cst.Call, attr: str) -> Value:
        cls = self.ctx.cls
        args = self.eval_args(node)
        if cls is not None and attr not in ("__call__", "forward", "hybrid_forward"):
            hit = self.index.find_method(cls, attr)
            if hit is not None:
                owner, span = hit
                try:
                    snippet = span.snippet(self.index.lines)
                except Exception as exc:  # SourceError: too deep; reported once by the checker
                    self.errors.append((str(exc), node, self.ctx.site))
                    return self._opaque_result(node, args, Category.HELPER)
                site = Site(snippet.module, snippet.line_offset, span.qualname)
                return self.call_function(snippet.function, node, args, site, owner,
                                          f"{span.qualname}", Env(), _SELF)
        category = Category.BLOCK
        return self._opaque_result(node, args, category)

    def call_tensor_method(self, node: cst.Call, func: cst.Attribute, receiver: Value, attr: str) -> Value:
        if attr in K.CONTAINER_METHODS:
            self.saw_container(receiver, strong=True)
            args = self.eval_args(node)
            if attr in K.STORING_METHODS and isinstance(func.value, cst.Name):
                stored = [v for _, v in args if v.holds_tensor]
                if stored:
                    self.env.names[func.value.value] = seq(receiver.origin, join_all(stored))
            return STATIC
        self.saw_tensor(receiver, func)
        args = self.eval_args(node)
        self.emit(EventKind.METHOD_CALL, node, value=receiver, subject=func.value, name=attr, call=node,
                  args=tuple((v, a.value) for a, v in args))
        self.record(func, STATIC)
        if attr in K.CONCRETE_METHODS:
            return STATIC
        origin = self.origin(Category.DERIVED, node, receiver.origin)
        if attr in K.MULTI_OUTPUT_OPS or _has_num_outputs(node):
            return seq(origin, tensor(replace(origin, category=Category.ELEMENT)))
        return tensor(origin)

    def call_builtin(self, node: cst.Call, name: str) -> Value:
        start = len(self.trace)
        if name == "isinstance":
            self.in_isinstance += 1
            try:
                args = self.eval_args(node)
            finally:
                self.in_isinstance -= 1
        else:
            args = self.eval_args(node)
        qual = f"builtins.{name}"
        self.emit(EventKind.CALL, node, name=qual, args=tuple((v, a.value) for a, v in args),
                  extra={"tensors": tuple(self.trace[start:])})
        if name in ("float", "int", "complex", "round"):
            for _, value in args[:1]:
                if value.kind is Kind.MAYBE:
                    self.saw_tensor(value, node)
        if name == "getattr" and args:
            base = args[0][1]
            if base.kind is Kind.FNS:
                return replace(base, names=frozenset(f"{n}.<getattr>" for n in base.names))
            if base is _SELF:
                return static("self.<getattr>")
            if base.holds_tensor and len(args) > 1:
                self.saw_tensor(base, node)
                return tensor(self.origin(Category.DERIVED, node, base.origin))
            return STATIC
        if name in K.ITERATING_BUILTINS:
            iterated = args[1:] if name in ("map", "filter") else (args if name == "zip" else args[:1])
            items = [self.iterate(v, a.value, f"`{name}()`") for a, v in iterated if a.keyword is None]
            if name == "sum" and items and any(i.holds_tensor for i in items):
                return tensor(self.origin(Category.DERIVED, node, items[0].origin))
            if name in ("any", "all"):
                return STATIC
            if name == "enumerate" and items:
                return seq(None, seq(None, None, (STATIC, items[0])) if items[0].holds_tensor else STATIC) \
                    if items[0].holds_tensor else STATIC
            if name == "zip" and items:
                if any(i.holds_tensor for i in items):
                    return seq(None, seq(None, None, tuple(items)))
                return STATIC
            if name == "dict":
                held = [v for _, v in args if v.holds_tensor]
                return seq(None, join_all(held)) if held else STATIC
            if items and items[0].holds_tensor:
                return seq(None, items[0])
            return STATIC
        if name in ("max", "min") and len(args) > 1:
            held = [v for _, v in args if v.holds_tensor]
            if held:
                return tensor(self.origin(Category.DERIVED, node, held[0].origin))
        if name == "abs" and args and args[0][1].kind in (Kind.TENSOR, Kind.MAYBE):
            return tensor(self.origin(Category.DERIVED, node, args[0][1].origin))
        return STATIC

    def call_value(self, node: cst.Call, callee: Value) -> Value:
        if callee.kind is Kind.FNS:
            return self.call_f_op(node, callee)
        if callee.kind is Kind.FUNC:
            fn, env, ctx = callee.func
            args = self.eval_args(node)
            return self.call_function(fn, node, args, ctx.site, ctx.cls, ctx.display, env, None)
        if callee.kind is Kind.STATIC and callee.qual.startswith("<module-function>."):
            name = callee.qual.split(".", 1)[1]
            span = self.index.functions[name]
            args = self.eval_args(node)
            if not any(v.holds_tensor or v.kind is Kind.FNS for _, v in args):
                return STATIC
            try:
                snippet = span.snippet(self.index.lines)
            except Exception as exc:
                self.errors.append((str(exc), node, self.ctx.site))
                return self._opaque_result(node, args, Category.HELPER)
            site = Site(snippet.module, snippet.line_offset, span.qualname)
            return self.call_function(snippet.function, node, args, site, None, span.qualname, Env(), None)
        if callee.kind is Kind.STATIC and callee.qual.startswith("builtins."):
            return self.call_builtin(node, callee.qual.split(".", 1)[1])
        if callee.kind is Kind.STATIC and callee.qual and not callee.qual.startswith(("<", "self.")):
            return self.call_qualified(node, callee.qual)
        args = self.eval_args(node)
        if callee.holds_tensor:
            return self._opaque_result(node, args, Category.HELPER)
        return self._opaque_result(node, args, Category.BLOCK)

    def call_qualified(self, node: cst.Call, qual: str) -> Value:
        """A call of something imported: numpy/math/logging functions, mxnet's nd/sym APIs."""
        in_isinstance = qual.endswith(("NDArray", "Symbol"))
        start = len(self.trace)
        args = self.eval_args(node)
        self.emit(EventKind.CALL, node, name=qual, args=tuple((v, a.value) for a, v in args),
                  extra={"tensors": tuple(self.trace[start:])})
        family = K.api_family(qual)
        if family is not None and not in_isinstance:
            return tensor(self.origin(Category.IMPERATIVE, node))
        for _, value in args:
            if value.kind is Kind.MAYBE and (qual.startswith("numpy.") or qual.startswith("math.")):
                self.saw_tensor(value, node)
        if qual.startswith(("numpy.", "math.", "logging.", "warnings.")):
            return STATIC
        if any(v.kind is Kind.FNS for _, v in args):
            return self._opaque_result(node, [(a, v) for a, v in args if v.kind is not Kind.FNS] or args, Category.HELPER) \
                if any(v.holds_tensor for _, v in args) else STATIC
        return self._opaque_result(node, args, Category.HELPER)

    def call_f_op(self, node: cst.Call, callee: Value) -> Value:
        ops = {K.op_name(n) for n in callee.names}
        args = self.eval_args(node)
        sequence_taking = bool(ops & K.SEQUENCE_TAKING_OPS)
        for arg, value in args:
            if arg.star == "*":
                self.iterate(value, arg.value, "star-unpacking")
            elif arg.star == "**":
                continue
            elif value.kind is Kind.FUNC:
                fn, env, ctx = value.func
                if id(fn) not in self.analysed_nested:
                    self.analysed_nested.add(id(fn))
                    self.run_function(fn, FunctionContext(ctx.site, ctx.cls, ctx.display),
                                      self._bind_unknown_params(fn), env)
            elif not sequence_taking and (value.kind is Kind.MAYBE or (value.keys and value.kind is not Kind.SEQ)):
                self.saw_tensor(value, arg.value)
        origin = self.origin(Category.F_OP, node)
        if self._multi_output(ops, node):
            element = tensor(replace(origin, category=Category.ELEMENT))
            return seq(origin, element)
        if ops & {"cond"}:
            return self.maybe(("call", id(node)), origin)
        return tensor(origin)

    @staticmethod
    def _multi_output(ops: set[str], node: cst.Call) -> bool:
        if ops & K.MULTI_OUTPUT_OPS or _has_num_outputs(node):
            return True
        for op in ops:
            cond = K.CONDITIONAL_MULTI_OUTPUT.get(op)
            if cond is None:
                continue
            keyword, values = cond
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == keyword:
                    code = cst.Module([]).code_for_node(arg.value).strip()
                    if code in values:
                        return True
        return False


def join_all(values: Iterable[Value]) -> Value:
    result: Optional[Value] = None
    for value in values:
        result = value if result is None else join(result, value)
    return result if result is not None else STATIC


def _sig(value: Value) -> tuple:
    return (value.kind, value.keys, value.names, value.qual, len(value.elements or ()))


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star)
    return out


def _dotted_name(node: Union[cst.Name, cst.Attribute, cst.BaseExpression]) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted_name(node.value)}.{node.attr.value}"
    return ""


def _int_literal(sl: cst.BaseSlice) -> Optional[int]:
    if isinstance(sl, cst.Index):
        value = sl.value
        negative = False
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            negative, value = True, value.expression
        if isinstance(value, cst.Integer):
            number = int(value.value, 0)
            return -number if negative else number
    return None


def _has_num_outputs(node: cst.Call) -> bool:
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "num_outputs":
            if isinstance(arg.value, cst.Integer) and arg.value.value == "1":
                return False
            return True
    return False
