"""The compiled executor: one generated straight-line Python function per graph.

Usage (what ``HybridBlock.hybridize`` and ``hybridize run`` call)::

    from hybridize.runtime.graph.codegen import compile_graph
    prog = compile_graph(graph, input_names=["data"], shapes={"data": (1, 3, 224, 224)},
                         params={"conv0_weight": w, ...})      # name -> numpy array
    y, = prog(x)                  # positional in ``input_names`` order (or by keyword) -> list
    prog.bind_params(new_params)  # after load_parameters: takes effect on the next call
    print(prog)                   # the generated source (also ``prog.code``)

``compile_graph(graph, *, input_names, shapes=None, dtypes=None, params=None, optimize=True,
training=False, passes=None, disable=None, options=None) -> CompiledProgram``

- ``graph``: a :class:`~.ir.Graph` (e.g. ``symbol.graph()``); it is copied, never modified.
- ``input_names``: the variables that are data inputs, in call order. Every other variable is a
  *parameter* (argument or auxiliary state such as BatchNorm's moving mean).
- ``shapes`` / ``dtypes``: shapes (required unless the variables carry ``__shape__``) and dtypes
  (default float32) of the inputs. The program is *specialized* on them: calling it with other
  shapes or dtypes raises :class:`~..base.ShapeError`; compile again for new shapes (Gluon keeps
  one program per input signature).
- ``params``: ``{name: np.ndarray}`` for every parameter, or ``None`` to bind them later with
  :meth:`CompiledProgram.bind_params` (parameter shapes are then inferred from the inputs, or
  given in ``param_shapes``). Calling an unbound program raises :class:`HybridizeError`.
- ``optimize``: run the pass pipeline (``passes/``): identity-op removal, CSE, constant folding,
  BatchNorm folding, lowering to fused NHWC kernels, memory planning... ``False`` gives the
  plain straight-line program over the registry's reference kernels.
- ``passes``: names of the passes to run (default: the whole default pipeline), ``disable``:
  ``{pass name: True}`` to leave some out, ``options``: pass options, e.g. ``{"winograd": False}``
  (None, the default: 3x3 stride-1 convolutions use whichever of im2col, Winograd F(2x2,3x3) and
  F(4x4,3x3) was fastest when timed on this shape; False: never Winograd; True or "f2" / "f4":
  always that Winograd variant).
- ``training``: compile for training mode (``Dropout``/``BatchNorm`` keep their training
  behaviour; inference-only passes such as BatchNorm folding are skipped).

``CompiledProgram``:

- ``prog(*inputs, **inputs_by_name) -> list[np.ndarray]``: the outputs, freshly allocated
  (they never alias the program's internal buffers, which are reused by the next call).
- ``prog.bind_params(params, partial=False)``: (re)binds parameters by name. Everything that
  depends only on parameters (folded BatchNorm weights, re-laid-out convolution weights,
  constant subexpressions) is computed here, once per bind, by the program's *prologue*.
  Arrays are read at bind time: after changing parameter values in place, bind again.
  With ``partial=True`` only the given parameters change.
- ``prog.code``: the generated source of the forward function; ``prog.prologue_code`` the
  bind-time part; ``str(prog)`` / ``repr(prog)`` show them.
- ``prog.input_names``, ``prog.param_names``, ``prog.output_shapes``, ``prog.output_dtypes``,
  ``prog.graph`` (the optimized graph), ``prog.stats`` (what each pass did, memory plan figures:
  ``stats["memory"]`` has ``peak_bytes`` and ``lower_bound_bytes``).

Thread safety: a program may be called from several threads at once. Reusable buffers are
per thread (``threading.local``); parameters are one immutable tuple swapped atomically by
``bind_params``.

Parallelism: big kernels split their work into chunks run by the caller plus a small pool of
worker threads (``kernels/parallel.py``; ``HYBRIDIZE_THREADS``, default the CPUs the process may use), and BLAS
runs single-threaded while such a program executes. OpenBLAS's own threads busy-wait for each
other and collapse when the machine is oversubscribed; the pool's workers sleep on a queue, and
the calling thread takes any chunk nobody has started, so a descheduled worker delays one chunk,
never the whole call.

Generated code only: attribute values never reach the source as text. Kernels, constants and
numpy callables are passed in the function's globals; identifiers are derived from node names
by keeping ``[A-Za-z0-9_]`` only, and node names appear in comments through ``repr``.
"""
from __future__ import annotations

import contextlib

import math
import re
import threading
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..base import HybridizeError, ShapeError
from ..ops._util import known
from .infer import complete_shape_attrs, var_shape_hint
from .ir import Entry, Graph, Node
from .kernels.fastpath import new_binding

__all__ = ["compile_graph", "CompiledProgram"]


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
        base = prefix + re.sub(r"[^0-9A-Za-z_]", "_", hint)[:48]
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
class CompiledProgram:
    """A compiled graph; see the module docstring for the API."""

    def __init__(self, *, forward: Callable, code: str, prologue: Callable, prologue_code: str,
                 input_names: list[str], param_names: list[str], param_shapes: dict[str, tuple],
                 output_shapes: list[tuple], output_dtypes: list[np.dtype], graph: Graph,
                 stats: dict, tls: threading.local, parallel: bool = False):
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
        self._tls = tls
        self._params: dict[str, np.ndarray] = {}
        self._consts: tuple | None = None
        self._lock = threading.Lock()
        self.parallel = parallel
        if parallel:
            from .kernels.parallel import blas_single_threaded
            self._blas1 = blas_single_threaded()

    # -- parameters --------------------------------------------------------------------------
    def bind_params(self, params: Mapping[str, Any], partial: bool = False) -> "CompiledProgram":
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
            consts = self._prologue(new)
            new_binding()             # kernels re-derive what they cached from constant values
            self._params = new
            self._consts = consts     # one atomic swap: callers see old or new, never a mix
        return self

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
        if self.parallel:
            with self._blas1:
                return self._forward(consts, *args)
        return self._forward(consts, *args)

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
        graph, recipe = source
        return (_recompile, (graph, recipe, dict(self._params) if self._consts is not None else None))

    def __repr__(self) -> str:
        return self.prologue_code + "\n\n" + self.code

    __str__ = __repr__


# ------------------------------------------------------------------------------------------
# memory planning
# ------------------------------------------------------------------------------------------
_ALIGN = 64


class _VBuf:
    __slots__ = ("index", "shape", "dtype", "nbytes", "first", "last", "offset", "scratch", "name")

    def __init__(self, index: int, shape: tuple, dtype: np.dtype, first: int, scratch: bool):
        self.index, self.shape, self.dtype = index, tuple(int(d) for d in shape), np.dtype(dtype)
        self.nbytes = math.prod(self.shape) * self.dtype.itemsize
        self.first = self.last = first
        self.offset = 0
        self.scratch = scratch
        self.name = ""


class _Planner:
    """Liveness-based buffer planning: every planned buffer is a view into one per-thread arena;
    buffers whose lifetimes (in steps) do not overlap share memory."""

    def __init__(self, glob: dict, names: _Names, last_use: dict[Entry, int]):
        self.glob, self.names, self.last_use = glob, names, last_use
        self.vbufs: list[_VBuf] = []
        self.owners: dict[Entry, frozenset[int]] = {}
        self.step = 0
        self.fresh_count = 0
        self.parallel = False      # some kernel runs row chunks on the thread pool
        self.users: dict[Entry, list] = {}         # entry -> the steps reading it
        self.augmented: dict[Entry, str] = {}      # entry -> a (1, n + 1) buffer holding it and a 1 (_hy_dense)
        self.slots: dict[tuple, str] = {}          # (buffer, offset, width) -> a view made with the buffers

    def owner(self, e: Entry) -> frozenset[int]:
        return self.owners.get(e, frozenset())

    def new(self, shape: tuple, dtype: Any, scratch: bool = False) -> _VBuf:
        vb = _VBuf(len(self.vbufs), shape, dtype, self.step, scratch)
        vb.name = self.names.make(f"_s{vb.index}" if scratch else f"_b{vb.index}", internal=True)
        self.vbufs.append(vb)
        return vb

    def slot(self, vb: _VBuf, off: int, width: int) -> str:
        """The name of a per-thread view ``vb[..., off:off + width]``, made once with the buffers
        (not sliced on every call)."""
        key = (vb.index, off, width)
        nm = self.slots.get(key)
        if nm is None:
            nm = self.slots[key] = self.names.make(f"_v{vb.index}_{off}", internal=True)
        return nm

    def define(self, e: Entry, owners: frozenset[int]) -> None:
        self.owners[e] = owners
        t = self.last_use.get(e, self.step)
        for i in owners:
            vb = self.vbufs[i]
            vb.last = max(vb.last, t)

    def finish(self, stats: dict) -> list[str]:
        """Assigns arena offsets (greedy by size, first fit) and returns the prelude lines."""
        if not self.vbufs:
            stats["memory"] = {"peak_bytes": 0, "lower_bound_bytes": 0, "buffers": 0, "unshared_bytes": 0}
            return []
        placed: list[_VBuf] = []
        total = 0
        for vb in sorted(self.vbufs, key=lambda v: (-v.nbytes, v.first)):
            size = -(-vb.nbytes // _ALIGN) * _ALIGN
            spans = sorted((p.offset, p.offset + -(-p.nbytes // _ALIGN) * _ALIGN) for p in placed
                           if not (p.last < vb.first or vb.last < p.first))
            off = 0
            for a, b in spans:
                if off + size <= a:
                    break
                off = max(off, b)
            vb.offset = off
            total = max(total, off + size)
            placed.append(vb)
        n_steps = max(v.last for v in self.vbufs) + 1
        live = np.zeros(n_steps + 1, np.int64)
        for v in self.vbufs:
            live[v.first] += v.nbytes
            live[v.last + 1] -= v.nbytes
        lower = int(np.cumsum(live).max())
        stats["memory"] = {"peak_bytes": int(total), "lower_bound_bytes": lower, "buffers": len(self.vbufs),
                           "unshared_bytes": int(sum(v.nbytes for v in self.vbufs))}
        layout = [(v.offset, v.nbytes, v.dtype, v.shape) for v in self.vbufs]
        slots = list(self.slots.items())
        tls = self.glob["_tls"]

        def alloc() -> tuple:
            arena = np.empty(total, np.uint8)
            bufs = tuple(arena[o:o + n].view(d).reshape(s) for o, n, d, s in layout)
            bufs += tuple(bufs[i][..., off:off + w] for (i, off, w), _ in slots)
            tls.bufs = bufs
            return bufs
        self.glob["_alloc"] = alloc
        return ["try:", "    _bufs = _tls.bufs", "except AttributeError:", "    _bufs = _alloc()",
                "(" + ", ".join([v.name for v in self.vbufs] + [nm for _, nm in slots]) + ",) = _bufs"]


class Emit:
    """What an emitter gets (see ``kernels/__init__.py`` for the contract)."""

    def __init__(self, plan: _Planner, *, node: Node, args: list[str], outs: list[str], in_shapes: list,
                 in_dtypes: list, out_shapes: list, out_dtypes: list, is_output: list[bool]):
        self.plan, self.node, self.args, self.outs = plan, node, args, outs
        self.in_shapes, self.in_dtypes, self.out_shapes, self.out_dtypes = in_shapes, in_dtypes, out_shapes, out_dtypes
        self.is_output = is_output
        self.glob, self.names = plan.glob, plan.names
        self.pre: list[str] = []
        self.owners: dict[int, frozenset[int]] = {}

    def bind(self, hint: str, value: Any) -> str:
        nm = self.names.make(hint, "_")
        self.glob[nm] = value
        return nm

    def out_buffer(self, i: int) -> str:
        if self.is_output[i]:
            nm = self.names.make(self.outs[i] + "_out")
            s = self.bind("shape", tuple(self.out_shapes[i]))
            d = self.bind("dtype", np.dtype(self.out_dtypes[i]))
            self.pre.append(f"{nm} = _empty({s}, {d})")
            return nm
        vb = self.plan.new(self.out_shapes[i], self.out_dtypes[i])
        self.owners[i] = frozenset({vb.index})
        return vb.name

    def scratch(self, shape: tuple, dtype: Any) -> str:
        return self.plan.new(shape, dtype, scratch=True).name

    def inplace(self, i: int, j: int) -> str | None:
        if self.is_output[i]:
            return None
        e = self.node.inputs[j]
        own = self.plan.owner(e)
        if len(own) != 1 or tuple(self.in_shapes[j]) != tuple(self.out_shapes[i]) \
                or np.dtype(self.in_dtypes[j]) != np.dtype(self.out_dtypes[i]):
            return None
        vb = self.plan.vbufs[next(iter(own))]
        if vb.last > self.plan.step or vb.scratch:
            return None
        self.owners[i] = own
        return self.args[j]

    def alias(self, i: int) -> None:
        own = frozenset().union(*[self.plan.owner(e) for e in self.node.inputs]) if self.node.inputs else frozenset()
        self.owners[i] = own


# ------------------------------------------------------------------------------------------
# compilation
# ------------------------------------------------------------------------------------------
def compile_graph(graph: Graph, *, input_names: Sequence[str], shapes: Mapping[str, Sequence[int]] | None = None,
                  dtypes: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
                  param_shapes: Mapping[str, Sequence[int]] | None = None, optimize: bool = True,
                  training: bool = False, passes: list[str] | None = None,
                  disable: Mapping[str, bool] | None = None,
                  options: Mapping[str, Any] | None = None) -> CompiledProgram:
    """Compiles ``graph`` into a :class:`CompiledProgram` (see the module docstring)."""
    from .passes import PassContext, run_pipeline

    input_names = list(input_names)
    g = graph.copy()
    var_names = {n.name for n in g.variables()}
    for nm in input_names:
        if nm not in var_names:
            raise HybridizeError(f"compile_graph: the graph has no input variable {nm!r}")
    in_shapes: dict[str, tuple] = {}
    for n in g.variables():
        if n.name in input_names:
            s = (shapes or {}).get(n.name)
            if s is None:
                s = var_shape_hint(n)
            if not known(s):
                raise ShapeError(f"compile_graph: the shape of input {n.name!r} is needed")
            in_shapes[n.name] = tuple(int(d) for d in s)
    in_dtypes = {nm: np.dtype((dtypes or {}).get(nm, np.float32)) for nm in input_names}
    p_arrays: dict[str, np.ndarray] = {}
    if params is not None:
        for k, v in params.items():
            p_arrays[k] = v if isinstance(v, np.ndarray) else np.asarray(getattr(v, "_data", v))
    p_shapes = {k: tuple(v.shape) for k, v in p_arrays.items()}
    p_shapes.update({k: tuple(int(d) for d in v) for k, v in (param_shapes or {}).items()})
    p_dtypes = {k: v.dtype for k, v in p_arrays.items()}
    ctx = PassContext(input_names=input_names, input_shapes=in_shapes, input_dtypes=in_dtypes,
                      param_shapes={k: v for k, v in p_shapes.items() if k in var_names},
                      param_dtypes={k: v for k, v in p_dtypes.items() if k in var_names},
                      training=training, options=dict(options or {}))
    # parameter shapes the caller did not give are completed from the graph
    meta = ctx.infer(g)
    # zeros((0, H)) begin states take their inferred shape (g is this signature's copy)
    complete_shape_attrs(g, {e: m.shape for e, m in meta.items()})
    for n in g.variables():
        if not ctx.is_input(n) and n.name not in ctx.param_shapes:
            s = meta[n.entry()].shape
            if not known(s):
                raise ShapeError(f"compile_graph: cannot infer the shape of parameter {n.name!r}")
            ctx.param_shapes[n.name] = tuple(s)
    original_params = {n.name: ctx.param_shapes[n.name] for n in g.variables() if ctx.is_param(n)}
    if optimize:
        g = run_pipeline(g, ctx, passes, disable)
    else:
        g.prune()
    prog = _generate(g, ctx, original_params, training)
    # what pickling needs to compile it again (the caller's graph is never modified by us)
    prog._source = (graph, {"input_names": input_names, "shapes": in_shapes, "dtypes": in_dtypes,
                            "param_shapes": p_shapes, "optimize": optimize, "training": training,
                            "passes": passes, "disable": disable, "options": options})
    if params is not None:
        prog.bind_params(p_arrays)
    return prog


def _recompile(graph: Graph, recipe: dict, params: dict | None) -> CompiledProgram:
    """Unpickling a :class:`CompiledProgram`: the same compile_graph call, parameters rebound."""
    return compile_graph(graph, params=params, **recipe)


def _generate(g: Graph, ctx: Any, original_params: dict[str, tuple], training: bool) -> CompiledProgram:
    from . import kernels as _kernels  # noqa: F401  (fast kernels and their emitters)
    from .kernels import EMITTERS

    meta = ctx.infer(g)
    dyn = ctx.dynamic(g)
    names = _Names()
    names.used.update({"_c", "_tls", "_bufs", "_alloc", "_matmul", "_dot", "_add", "_multiply", "_maximum",
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
    for nm in ctx.input_names:
        node = next(n for n in g.variables() if n.name == nm) if any(n.name == nm for n in g.variables()) else None
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

    # steps: one per dynamic op node, in order; last use of every entry (outputs: past the end)
    steps = [n for n in g.nodes if n.op is not None and id(n) in dyn]
    end_step = len(steps)
    last_use: dict[Entry, int] = {}
    for t, n in enumerate(steps):
        for e in n.inputs:
            last_use[e] = t
    for e in g.outputs:
        last_use[e] = end_step
    out_entries = set(g.outputs)
    plan = _Planner(glob, names, last_use)
    for n in steps:
        for e in n.inputs:
            plan.users.setdefault(e, []).append(n)
    kcount = 0
    for t, n in enumerate(steps):
        plan.step = t
        in_shapes = [meta[e].shape for e in n.inputs]
        in_dtypes = [meta[e].dtype for e in n.inputs]
        args = [ref[e] for e in n.inputs]
        nout = n.num_outputs
        outs = [names.make(n.name) if nout == 1 else names.make(f"{n.name}_{i}") for i in range(nout)]
        body.append(_comment(n))
        emitter = EMITTERS.get(n.op)
        if emitter is not None:
            em = Emit(plan, node=n, args=args, outs=outs, in_shapes=in_shapes, in_dtypes=in_dtypes,
                      out_shapes=[meta[Entry(n, i)].shape for i in range(nout)],
                      out_dtypes=[meta[Entry(n, i)].dtype for i in range(nout)],
                      is_output=[Entry(n, i) in out_entries for i in range(nout)])
            lines = emitter(em)
            body.extend(em.pre + lines)
            for i in range(nout):
                plan.define(Entry(n, i), em.owners.get(i, frozenset()))
        else:
            kcount += 1
            kname = names.make(f"_k{kcount}", internal=True)
            kern = n.op.kernel(n.resolved, in_shapes, in_dtypes)
            if nout == 1:
                kern = _first(kern)
                body.append(f"{outs[0]} = {kname}({', '.join(args)})")
            else:
                body.append(f"{', '.join(outs)}, *_ = {kname}({', '.join(args)})")
            glob[kname] = kern
            # a reference kernel may return views of its inputs: keep their buffers alive
            may_alias = frozenset().union(*[plan.owner(e) for e in n.inputs]) if n.inputs else frozenset()
            for i in range(nout):
                plan.define(Entry(n, i), may_alias)
        for i, o in enumerate(outs):
            ref[Entry(n, i)] = o
    rets = []
    for e in g.outputs:
        r = ref[e]
        # outputs never alias the per-thread buffers (reused by the next call) nor constants
        if id(e.node) not in dyn or plan.owner(e) or e.node.op is None:
            r = f"{r}.copy()"
        rets.append(r)
    body.append("return [" + ", ".join(rets) + "]")
    prelude = plan.finish(ctx.stats)
    body[len(const_lines):len(const_lines)] = prelude
    src = "def forward(_c, " + ", ".join(arg_names) + "):\n" + "\n".join("    " + line for line in body) + "\n"
    code_obj = compile(src, "<hybridize compiled graph>", "exec")
    exec(code_obj, glob)
    forward = glob["forward"]
    tls = glob["_tls"]
    out_shapes = [meta[e].shape for e in g.outputs]
    out_dtypes = [meta[e].dtype for e in g.outputs]
    params_used = sorted(original_params)
    return CompiledProgram(forward=forward, code=src, prologue=prologue, prologue_code=prologue_code,
                           input_names=ctx.input_names, param_names=params_used,
                           param_shapes=original_params, output_shapes=out_shapes,
                           output_dtypes=out_dtypes, graph=g, stats=ctx.stats, tls=tls, parallel=plan.parallel)


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
    from ..ops.registry import find_op
    from .kernels.parallel import blas_single_threaded, num_threads, run_chunks

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
    pooled = num_threads() > 1 and any(len(par) > 1 for par, _ in levels.values())

    def run_step(env: dict, n: Node, kern: Callable) -> None:
        r = kern(*[env[(id(e.node), e.index)] for e in n.inputs])
        if isinstance(r, (tuple, list)):
            for i, v in enumerate(r):
                env[(id(n), i)] = v
        else:
            env[(id(n), 0)] = r

    def prologue(params: Mapping[str, np.ndarray]) -> tuple:
        env: dict[tuple[int, int], Any] = {}
        for n, kern in steps:
            if kern is None:
                env[(id(n), 0)] = constants[n.name] if n.name in constants else params[n.name]
        with blas_single_threaded() if pooled else contextlib.nullcontext():
            for lv in sorted(levels):
                par, serial = levels[lv]
                for n, kern in serial:
                    run_step(env, n, kern)
                run_chunks(lambda i: run_step(env, *par[i]), len(par))
        out = []
        for e in needed:
            v = env[(id(e.node), e.index)]
            d = meta[e].dtype
            if isinstance(v, np.ndarray) and v.dtype != d:
                v = v.astype(d)
            out.append(v)
        return tuple(out)

    return prologue, "\n".join(lines), const_names
