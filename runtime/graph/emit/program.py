"""The emit stage: a graph (lowered, scheduled) becomes one generated straight-line Python
function over planned buffers, plus the prologue that ``bind_params`` runs; the
:class:`CompiledProgram` holding them (its API: ``codegen``'s docstring).

Generated code only: attribute values never reach the source as text. Kernels, constants and
numpy callables are passed in the function's globals; identifiers are derived from node names
by keeping ``[A-Za-z0-9_]`` only, and node names appear in comments through ``repr``.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import re
import threading
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np

from ...base import HybridizeError, OutOfMemoryError, ShapeError
from ..interpreter import Interpreter
from ..ir import Entry, Graph, Node
from ..kernels.fastpath import new_binding
from .parts import split
from .planner import Emit, Planner
from .registry import EMITTERS

__all__ = ["CompiledProgram", "generate"]


# ------------------------------------------------------------------------------------------
# naming
# ------------------------------------------------------------------------------------------
class _Names:
    """Unique, safe Python identifiers for graph entries.

    Each base remembers the next suffix to try: names are never released, so every ``base_j`` below
    it is taken and trying them again (as a plain ``_2, _3, ...`` scan does) made a chain of n nodes
    sharing a truncated name cost n^2/2 probes. The names produced are the same as the scan's."""

    _KEYWORDS = frozenset(__import__("keyword").kwlist) | {"np", "self"}

    def __init__(self) -> None:
        self.used: set[str] = set()
        self._next: dict[str, int] = {}

    def make(self, hint: str, prefix: str = "", internal: bool = False) -> str:
        base = prefix + _safe(hint)
        if not prefix and base.startswith("_") and not internal:
            base = "v" + base          # leading underscores are reserved for the compiler's names
        if not base or base[0].isdigit() or base in self._KEYWORDS:
            base = "v_" + base
        i = self._next.get(base, 1)
        name = base if i == 1 else f"{base}_{i}"
        while name in self.used or name in self._KEYWORDS:
            i += 1
            name = f"{base}_{i}"
        self._next[base] = i + 1
        self.used.add(name)
        return name


@functools.lru_cache(maxsize=4096)
def _safe(hint: str) -> str:
    """``hint`` with ``[A-Za-z0-9_]`` kept (others as ``_``), at most 48 characters (hints repeat:
    cached)."""
    return _UNSAFE.sub("_", hint)[:48]


_UNSAFE = re.compile(r"[^0-9A-Za-z_]")


def _comment(node: Node) -> str:
    return f"# {node.op.name if node.op else 'var'} {node.name!r}"


def _first(kernel: Callable) -> Callable:
    """Kernel of a one-output op whose reference kernel may return a tuple (e.g. BatchNorm)."""
    def run(*args: Any) -> Any:
        r = kernel(*args)
        return r[0] if isinstance(r, (tuple, list)) else r
    return run


def _bad_input(name: str, expected_shape: tuple, expected_dtype: Any, got: Any) -> None:
    shape = getattr(got, "shape", None)
    dtype = getattr(got, "dtype", None)
    raise ShapeError(f"compiled program was specialized for input {name!r} of shape "
                     f"{expected_shape} and dtype {np.dtype(expected_dtype).name}, got "
                     f"{tuple(shape) if shape is not None else type(got).__name__}"
                     f"{'' if dtype is None else ' ' + np.dtype(dtype).name}; compile it again")


# ------------------------------------------------------------------------------------------
# the program
# ------------------------------------------------------------------------------------------
_SOURCE_NAME = "<hybridize compiled graph>"     # the forward function's file name in tracebacks


def _root(a: np.ndarray) -> np.ndarray:
    """The array owning ``a``'s memory (``a`` itself when not a view)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


class CompiledProgram:
    """A compiled graph; see the module docstring for the API."""

    def __init__(self, *, forward: Callable, code: str, prologue: Callable, prologue_code: str,
                 input_names: list[str], param_names: list[str], param_shapes: dict[str, tuple],
                 output_shapes: list[tuple], output_dtypes: list[np.dtype], graph: Graph,
                 stats: dict, parallel: bool = False, output_args: bool = False):
        self._forward = forward
        self.code = code
        self._prologue = prologue
        self.prologue_code = prologue_code
        self.input_names = list(input_names)
        self.param_names = list(param_names)
        self.param_shapes = dict(param_shapes)
        self.output_shapes = list(output_shapes)
        self.output_dtypes = list(output_dtypes)
        self.graph = graph
        self.stats = stats
        self._params: dict[str, np.ndarray] = {}
        self._consts: tuple | None = None
        # every constant bound is one of the parameters' arrays or a view of one (a training
        # program's transposed weights): an in-place update shows through, nothing to recompute
        self._views_only = False
        self._lock = threading.Lock()
        self.output_args = output_args
        self.parallel = parallel
        if parallel:
            from ..kernels.parallel import blas_single_threaded
            self._blas1 = blas_single_threaded()

    # -- parameters --------------------------------------------------------------------------
    def bind_params(self, params: Mapping[str, Any], partial: bool = False, reuse: bool = False) -> CompiledProgram:
        """Binds the parameters and evaluates the prologue. ``reuse``: the new constants are written
        into the previous ones' arrays where shapes and dtypes match (a training step rebinds after
        every update: no fresh weight transforms each step); calls running concurrently may then
        see a mix of old and new constants, so only the single-threaded training step asks."""
        if not partial and self._views_only and self._same_arrays(params):
            new_binding()             # values changed in place: kernels' caches derived from them go
            return self
        with self._lock:
            new = dict(self._params) if partial else {}
            for name, value in params.items():
                if name not in self.param_shapes:
                    continue   # extra entries (e.g. other blocks' parameters) are ignored
                arr = value if isinstance(value, np.ndarray) else np.asarray(getattr(value, "_data", value))
                if tuple(arr.shape) != self.param_shapes[name]:
                    raise ShapeError(f"parameter {name!r}: expected shape {self.param_shapes[name]}, "
                                     f"got {tuple(arr.shape)}")
                new[name] = arr
            missing = [n for n in self.param_names if n not in new]
            if missing:
                raise HybridizeError("compiled program: no value for parameter(s) " + ", ".join(map(repr, missing)))
            consts = self._prologue(new, self._consts if reuse else None)
            new_binding()             # kernels re-derive what they cached from constant values
            self._params = new
            self._consts = consts     # one atomic swap: callers see old or new, never a mix
            roots = {id(_root(a)) for a in new.values()}
            self._views_only = all(isinstance(c, np.ndarray) and id(_root(c)) in roots for c in consts)
        return self

    def _same_arrays(self, params: Mapping[str, Any]) -> bool:
        """``params`` gives every bound parameter the very array bound now."""
        bound = self._params
        for name, arr in bound.items():
            if params.get(name) is not arr:
                return False
        return True

    def share_arena(self, source: Callable[[int], np.ndarray]) -> None:
        """Takes this program's per-thread buffers from ``source(nbytes)`` (a uint8 array of at least
        ``nbytes``) from its next first call in a thread on: programs that never run at the same time
        in one thread (a training step's forward and backward) share one arena."""
        self._forward.__globals__["_arena"] = source
        self._forward.__globals__["_tls"].__dict__.clear()

    @property
    def arena_bytes(self) -> int:
        """Bytes of this program's per-thread buffers (its memory plan's peak)."""
        return int(self.stats.get("memory", {}).get("peak_bytes", 0))

    @property
    def params(self) -> dict[str, np.ndarray]:
        return dict(self._params)

    # -- calls -------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> list:
        consts = self._consts
        if consts is None:
            if self.param_names:
                raise HybridizeError("compiled program: parameters are not bound (call bind_params)")
            self.bind_params({})
            consts = self._consts
        if kwargs:
            args = self._collect(args, kwargs)
        if len(args) != len(self.input_names):
            raise HybridizeError(f"compiled program takes {len(self.input_names)} input(s) "
                                 f"({', '.join(self.input_names)}), got {len(args)}")
        try:
            if self.parallel:
                with self._blas1:
                    return self._forward(consts, *args)
            return self._forward(consts, *args)
        except MemoryError as e:
            raise self._out_of_memory(e) from None

    def call_into(self, args: list, outs: list | None) -> list:
        """``self(*args)`` with output ``k`` written into ``outs[k]`` when that is an array (of the
        output's shape and dtype, sharing no memory with the inputs or parameters) and returned as
        it; only for programs compiled with the ``output_args`` option (a training step's backward
        writes its gradients into the parameters' gradient buffers)."""
        if outs is None or not self.output_args:
            return self(*args)
        consts = self._consts
        if consts is None:
            return self(*args)
        try:
            if self.parallel:
                with self._blas1:
                    return self._forward(consts, *args, _out=outs)
            return self._forward(consts, *args, _out=outs)
        except MemoryError as e:
            raise self._out_of_memory(e) from None

    def _out_of_memory(self, e: MemoryError) -> MemoryError:
        """The node of the generated code running when memory ran out: the comment opening its
        lines (``# op 'name'``) above the line the traceback was at, in the forward function."""
        if isinstance(e, OutOfMemoryError):
            return e
        lineno = None
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == _SOURCE_NAME:
                lineno = tb.tb_lineno
            tb = tb.tb_next
        if lineno is None:
            return e
        for line in reversed(self.code.splitlines()[:lineno]):
            m = re.fullmatch(r"\s*# (\S+) ('.*'|\".*\")", line)
            if m:
                return OutOfMemoryError.at(ast.literal_eval(m.group(2)), m.group(1), e)
        return e

    def direct(self) -> tuple[Callable, Any]:
        """``(fn, consts)`` with ``fn(consts, *inputs) == self(*inputs)`` for positional inputs: the
        call without this wrapper's checks, for callers that cache it (Gluon's fast path). The
        constants are those bound now: call again after ``bind_params``."""
        consts = self._consts
        if consts is None:
            raise HybridizeError("compiled program: parameters are not bound (call bind_params)")
        if self.parallel:
            blas1, forward = self._blas1, self._forward

            def run(c: Any, *args: Any) -> Any:
                with blas1:
                    return forward(c, *args)
            return run, consts
        return self._forward, consts

    def _collect(self, args: tuple, kwargs: dict) -> tuple:
        values = list(args) + [None] * (len(self.input_names) - len(args))
        for k, v in kwargs.items():
            if k not in self.input_names:
                raise HybridizeError(f"compiled program has no input {k!r} (inputs: {', '.join(self.input_names)})")
            values[self.input_names.index(k)] = v
        return tuple(values)

    # -- pickling ----------------------------------------------------------------------------
    def __reduce__(self) -> tuple:
        """Pickled as the :func:`compile_graph` call that made it (graph as JSON, input
        signature, options) plus the bound parameters; unpickling compiles again, so nothing
        generated (code, closures, buffers, thread-locals) travels."""
        source = getattr(self, "_source", None)
        if source is None:
            raise TypeError("this CompiledProgram was not made by compile_graph and cannot be pickled")
        from ..codegen import _recompile
        graph, recipe = source
        return (_recompile, (graph, recipe, dict(self._params) if self._consts is not None else None))

    def __repr__(self) -> str:
        return self.prologue_code + "\n\n" + self.code

    __str__ = __repr__


class _Emitter(Interpreter):
    """The walk of the emit stage: values are the expressions naming each entry in the generated
    forward function (``env`` starts with the inputs' arguments and the prologue's constants);
    each operator step appends its lines to ``body``."""

    def __init__(self, env: dict[Entry, str], graph: Graph, meta: dict, plan: Planner, body: list[str],
                 dyn: set[int]):
        super().__init__(env)
        self.graph, self.meta, self.plan, self.body = graph, meta, plan, body
        self.out_entries = set(graph.outputs)
        self.dyn = dyn
        # a view returned as an output (a training forward's saved NHWC activation, NCHW-shaped):
        # its operand is written into a fresh array, as outputs are
        from ..kernels.nhwc import LAYOUT
        self.out_entries |= {n.inputs[0] for n in graph.nodes
                             if n.op is LAYOUT and n.resolved.view == 1 and Entry(n, 0) in self.out_entries}
        self.kernels = 0
        self.starts: list[int] = []     # where each step's lines begin in body

    def variable(self, n: Node) -> str:
        return self.env[n.entry()]

    def apply(self, n: Node, args: list) -> list[str]:
        plan, meta, names, body = self.plan, self.meta, self.plan.names, self.body
        in_shapes = [meta[e].shape for e in n.inputs]
        in_dtypes = [meta[e].dtype for e in n.inputs]
        nout = n.num_outputs
        outs = [names.make(n.name) if nout == 1 else names.make(f"{n.name}_{i}") for i in range(nout)]
        self.starts.append(len(body))
        body.append(_comment(n))
        plan.node = (n.name, n.op.name)  # type: ignore[union-attr]
        emit = EMITTERS.get(n.op)
        if emit is not None:
            em = Emit(plan, self.graph, node=n, args=args, outs=outs, in_shapes=in_shapes, in_dtypes=in_dtypes,
                      out_shapes=[meta[Entry(n, i)].shape for i in range(nout)],
                      out_dtypes=[meta[Entry(n, i)].dtype for i in range(nout)],
                      is_output=[Entry(n, i) in self.out_entries for i in range(nout)])
            try:
                lines = emit(em)
            except OutOfMemoryError:
                raise
            except MemoryError as e:     # emitters make their constants (zeros, masks) now
                raise OutOfMemoryError.at(n.name, n.op.name, e, "compiling") from None  # type: ignore[union-attr]
            body.extend(em.pre + lines)
            for i in range(nout):
                plan.define(Entry(n, i), em.owners.get(i, frozenset()))
        else:
            self.kernels += 1
            kname = names.make(f"_k{self.kernels}", internal=True)
            kern = n.op.kernel(n.resolved, in_shapes, in_dtypes)  # type: ignore[union-attr]
            if nout == 1:
                kern = _first(kern)
                body.append(f"{outs[0]} = {kname}({', '.join(args)})")
            else:
                body.append(f"{', '.join(outs)}, *_ = {kname}({', '.join(args)})")
            plan.glob[kname] = kern
            # a reference kernel may return views of its inputs: keep their buffers alive
            may_alias = frozenset().union(*[plan.owner(e) for e in n.inputs]) if n.inputs else frozenset()
            for i in range(nout):
                plan.define(Entry(n, i), may_alias)
        # references to fresh arrays (reference kernels' outputs) are dropped after their last
        # use, so numpy frees them then, not when the call returns
        dead = [e for e in dict.fromkeys(n.inputs) if self.meta[e].last_use == plan.step and e.node.op is not None
                and id(e.node) in self.dyn] + [Entry(n, i) for i in range(nout) if self.meta[Entry(n, i)].last_use is None]
        names = [self.env.get(e, outs[e.index] if e.node is n else None) for e in dead]
        names = [nm for nm in names if nm and nm.isidentifier()]
        if names:
            body.append(" = ".join(names) + " = None")
        plan.step += 1
        return outs


def generate(g: Graph, ctx: Any) -> Graph:
    """The emit stage: the program's source (forward and prologue), compiled; ``ctx.program``."""
    meta = ctx.infer(g)
    dyn = ctx.dynamic_ids
    names = _Names()
    names.used.update({"_c", "_tls", "_bufs", "_alloc", "_arena", "_out", "_NO_OUTS", "_matmul", "_dot", "_add", "_multiply", "_maximum",
                       "_minimum", "_copyto", "_concatenate", "_empty", "_ndarray", "_coerce", "_bad_input"})
    glob: dict[str, Any] = {"np": np, "_bad_input": _bad_input, "__builtins__": __builtins__,
                            "_matmul": np.matmul, "_dot": np.dot, "_add": np.add, "_multiply": np.multiply,
                            "_maximum": np.maximum, "_minimum": np.minimum, "_copyto": np.copyto,
                            "_concatenate": np.concatenate, "_empty": np.empty,
                            "_tls": threading.local()}
    ref: dict[Entry, str] = {}     # entry -> expression in the forward function

    # -- prologue: every static entry the dynamic part (or an output) reads ------------------
    needed_static: list[Entry] = []
    seen: set[Entry] = set()

    def need_static(e: Entry) -> None:
        if e not in seen:
            seen.add(e)
            needed_static.append(e)

    for n in g.nodes:
        if id(n) in dyn and n.op is not None:
            for e in n.inputs:
                if id(e.node) not in dyn:
                    need_static(e)
    for e in g.outputs:
        if id(e.node) not in dyn:
            need_static(e)
    static_nodes = [n for n in g.nodes if id(n) not in dyn]
    prologue, prologue_code, const_names = _make_prologue(g, static_nodes, needed_static, ctx, meta, names)
    for e, nm in zip(needed_static, const_names):
        ref[e] = nm

    # -- forward -----------------------------------------------------------------------------
    arg_names = []
    variables = {n.name: n for n in reversed(g.variables())}     # the first of a name, as before
    for nm in ctx.input_names:
        node = variables.get(nm)
        ident = names.make(nm, "x_")
        arg_names.append(ident)
        if node is not None:
            ref[Entry(node, 0)] = ident
    body: list[str] = []
    const_lines = ["(" + ", ".join(const_names) + ",) = _c"] if const_names else []
    body.extend(const_lines)
    for i, nm in enumerate(ctx.input_names):
        s, d = ctx.input_shapes[nm], ctx.input_dtypes[nm]
        names.used.update({f"_shape{i}", f"_dtype{i}"})
        glob[f"_shape{i}"], glob[f"_dtype{i}"] = s, d
        a = arg_names[i]
        body.append(f"if {a}.__class__ is not _ndarray or {a}.shape != _shape{i} or {a}.dtype != _dtype{i}:")
        body.append(f"    {a} = _coerce({i}, {a})")
    glob["_ndarray"] = np.ndarray

    def coerce(i: int, value: Any) -> np.ndarray:
        nm = ctx.input_names[i]
        arr = value if isinstance(value, np.ndarray) else getattr(value, "_data", value)
        if not isinstance(arr, np.ndarray):
            arr = np.asarray(arr, dtype=ctx.input_dtypes[nm])
        if tuple(arr.shape) != ctx.input_shapes[nm] or arr.dtype != ctx.input_dtypes[nm]:
            _bad_input(nm, ctx.input_shapes[nm], ctx.input_dtypes[nm], arr)
        return arr
    glob["_coerce"] = coerce

    # steps: one per dynamic op node, in order (the plan memory stage's schedule)
    plan = Planner(glob, names, meta)
    plan.split_dense = bool(ctx.options.get("split_dense"))
    out_args = bool(ctx.options.get("output_args"))
    if out_args:    # output k written into _out[k] where its emitter asks for its buffer
        for k, e in enumerate(g.outputs):
            if id(e.node) in dyn and e.node.op is not None:
                plan.dests.setdefault(e, k)
    emitter = _Emitter(ref, g, meta, plan, body, dyn)
    n_head = len(body)
    emitter.run(g, ctx.steps)
    rets = []
    tail = []
    for k, e in enumerate(g.outputs):
        r = ref[e]
        # outputs never alias the per-thread buffers (reused by the next call) nor constants
        fresh = not (id(e.node) not in dyn or plan.owner(e) or e.node.op is None)
        if out_args:        # a destination given: the value lands there (no copy when already written)
            tail += [f"if _out[{k}] is not None:", f"    if {r} is not _out[{k}]:",
                     f"        _copyto(_out[{k}], {r})", f"    _r{k} = _out[{k}]",
                     "else:", f"    _r{k} = {r}" + ("" if fresh else ".copy()")]
            r = f"_r{k}"
            names.used.add(r)
        elif not fresh:
            r = f"{r}.copy()"
        rets.append(r)
    if out_args:
        tail = ["if _out is None:", "    _out = _NO_OUTS"] + tail
        glob["_NO_OUTS"] = (None,) * len(g.outputs)
    tail.append("return [" + ", ".join(rets) + "]")
    prelude = plan.finish(ctx.stats)
    # when each output is made and each input last read (a training step's liveness bound)
    step_of = {id(n): t for t, n in enumerate(ctx.steps)}
    ctx.stats["memory"]["output_steps"] = [step_of.get(id(e.node)) for e in g.outputs]
    ctx.stats["memory"]["input_last_use"] = [
        None if nm not in variables else meta[Entry(variables[nm], 0)].last_use for nm in ctx.input_names]
    head = const_lines + prelude + body[len(const_lines):n_head]
    bounds = emitter.starts[1:] + [len(body)]
    steps = [body[a:b] for a, b in zip(emitter.starts, bounds)]
    forward_body, parts = split(head, steps, tail, ["_c"] + arg_names + (["_out"] if out_args else []),
                                lambda k: names.make(f"_part{k}", internal=True))
    src = "def forward(_c, " + ", ".join(arg_names + (["_out=None"] if out_args else [])) + "):\n" + "\n".join("    " + line for line in forward_body) + "\n"
    for _, lines in parts:
        src += "\n\n" + "\n".join(lines) + "\n"
    code_obj = compile(src, _SOURCE_NAME, "exec")
    exec(code_obj, glob)
    forward = glob["forward"]
    out_shapes = [meta[e].shape for e in g.outputs]
    out_dtypes = [meta[e].dtype for e in g.outputs]
    original_params = ctx.original_params
    ctx.program = CompiledProgram(forward=forward, code=src, prologue=prologue, prologue_code=prologue_code,
                                  input_names=ctx.input_names, param_names=sorted(original_params),
                                  param_shapes=original_params, output_shapes=out_shapes,
                                  output_dtypes=out_dtypes, graph=g, stats=ctx.stats, parallel=plan.parallel,
                                  output_args=out_args)
    return g


_POOL_MIN_WORK = 1 << 20     # input elements of a prologue level worth the thread pool


def _make_prologue(g: Graph, static_nodes: list[Node], needed: list[Entry], ctx: Any, meta: dict,
                   names: _Names) -> tuple[Callable, str, list[str]]:
    """The bind-time part: evaluates the parameter-only subgraph and returns the constants tuple."""
    const_names = [names.make(e.node.name if e.index == 0 else f"{e.node.name}_{e.index}", "c_")
                   for e in needed]
    # keep only the static nodes the needed entries depend on
    live: set[int] = set()
    stack = [e.node for e in needed]
    while stack:
        n = stack.pop()
        if id(n) in live:
            continue
        live.add(id(n))
        stack.extend(e.node for e in n.inputs)
    steps: list[tuple[Node, Callable | None]] = []
    lines = ["def prologue(params):   # runs at bind_params"]
    for n in static_nodes:
        if id(n) not in live:
            continue
        if n.op is None:
            steps.append((n, None))
            src = "constant" if ctx.is_constant(n) else "params"
            lines.append(f"    {_comment(n)}: {src}")
            continue
        in_shapes = [meta[e].shape for e in n.inputs]
        in_dtypes = [meta[e].dtype for e in n.inputs]
        steps.append((n, n.op.kernel(n.resolved, in_shapes, in_dtypes)))
        args = ", ".join(e.node.name + (f"[{e.index}]" if e.index else "") for e in n.inputs)
        lines.append(f"    #   {n.name!r} = {n.op.name}({args!r})")
    lines.append("    return (" + ", ".join(const_names) + ",)")
    constants = ctx.constants
    from ...ops.registry import find_op
    from ..kernels.parallel import blas_single_threaded, num_threads, run_chunks

    # The compiler's own static kernels (weight re-layouts, BatchNorm folds: internal ops, pure numpy
    # that releases the GIL) run on the thread pool, a dependency level at a time, biggest first: at
    # every bind_params, so on the first call's path (Winograd weight transforms of resnet18: ~0.2 s
    # on one core). Registry ops (anything a user could have put there, Custom included) run in order
    # on the calling thread, before the level's internal ops. Values do not depend on the order.
    level: dict[int, int] = {}
    for n, _ in steps:
        level[id(n)] = 1 + max((level[id(e.node)] for e in n.inputs), default=-1)
    levels: dict[int, tuple[list, list]] = {}
    for n, kern in steps:
        if kern is not None:
            internal = find_op(n.op.name) is not n.op
            levels.setdefault(level[id(n)], ([], []))[0 if internal else 1].append((n, kern))
    work = lambda n: sum(int(np.prod(meta[e].shape or (0,))) for e in n.inputs)
    for par, _ in levels.values():
        par.sort(key=lambda step: -work(step[0]))
    # a level goes to the pool only when its work outweighs waking the workers (a training step
    # rebinds after every update: small re-layouts run faster on the calling thread)
    pool_levels = {lv for lv, (par, _) in levels.items()
                   if len(par) > 1 and sum(work(n) for n, _ in par) >= _POOL_MIN_WORK}
    pooled = num_threads() > 1 and bool(pool_levels)

    position = {}
    for i, e in enumerate(needed):
        position.setdefault((id(e.node), e.index), i)

    def run_step(env: dict, n: Node, kern: Callable) -> None:
        try:
            r = kern(*[env[(id(e.node), e.index)] for e in n.inputs])
        except OutOfMemoryError:
            raise
        except MemoryError as e:
            raise OutOfMemoryError.at(n.name, n.op.name, e, "precomputing constants") from None  # type: ignore[union-attr]
        old, inputs = env.get("__old"), env.get("__inputs")
        for i, v in enumerate(r if isinstance(r, (tuple, list)) else (r,)):
            if old is not None and (id(n), i) in position and isinstance(v, np.ndarray):
                # the previous binding's array for this constant, when it is the compiler's own
                # (not a parameter's or a literal's memory, not v's): written in place, v dropped
                o = old[position[(id(n), i)]]
                if isinstance(o, np.ndarray) and o.shape == v.shape and o.dtype == v.dtype and o.flags.writeable \
                        and id(_root(o)) not in inputs and not np.may_share_memory(o, v):
                    np.copyto(o, v)
                    v = o
            env[(id(n), i)] = v

    def prologue(params: Mapping[str, np.ndarray], old: tuple | None = None) -> tuple:
        env: dict[Any, Any] = {}
        if old is not None:
            env["__old"] = old
            env["__inputs"] = {id(_root(a)) for a in list(params.values()) + list(constants.values())
                               if isinstance(a, np.ndarray)}
        for n, kern in steps:
            if kern is None:
                env[(id(n), 0)] = constants[n.name] if n.name in constants else params[n.name]
        with blas_single_threaded() if pooled else contextlib.nullcontext():
            for lv in sorted(levels):
                par, serial = levels[lv]
                for n, kern in serial:
                    run_step(env, n, kern)
                if pooled and lv in pool_levels:
                    run_chunks(lambda i: run_step(env, *par[i]), len(par))
                else:
                    for n, kern in par:
                        run_step(env, n, kern)
        out = []
        for e in needed:
            v = env[(id(e.node), e.index)]
            d = meta[e].dtype
            if isinstance(v, np.ndarray) and v.dtype != d:
                v = v.astype(d)
            out.append(v)
        return tuple(out)

    return prologue, "\n".join(lines), const_names
