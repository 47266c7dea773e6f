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

import functools

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..base import HybridizeError, ShapeError
from ..ops._util import known
from .emit.program import CompiledProgram, _Names  # noqa: F401  (_Names: the generated code's identifiers)
from .infer import complete_shape_attrs, var_shape_hint
from .ir import Graph, no_cyclic_gc
from .passes import PassContext
from .pipeline import run

__all__ = ["compile_graph", "CompiledProgram"]


def compile_graph(graph: Graph, *, input_names: Sequence[str], shapes: Mapping[str, Sequence[int]] | None = None,
                  dtypes: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
                  param_shapes: Mapping[str, Sequence[int]] | None = None, optimize: bool = True,
                  training: bool = False, passes: list[str] | None = None,
                  disable: Mapping[str, bool] | None = None,
                  options: Mapping[str, Any] | None = None, wrt: Sequence[str] | None = None) -> CompiledProgram:
    """Compiles ``graph`` into a :class:`CompiledProgram` (see the module docstring). ``wrt``: the
    variables to differentiate (the differentiate stage runs; the program computes the forward
    outputs then the saved activations, ``prog.backward`` is the backward graph to compile:
    ``differentiate.compile_training`` does both)."""
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
                      training=training, options=dict(options or {}),
                      differentiate=list(wrt) if wrt is not None else None)
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
    ctx.original_params = {n.name: ctx.param_shapes[n.name] for n in g.variables() if ctx.is_param(n)}
    if not optimize:
        g.prune()
    run(g, ctx, optimize=optimize, passes=passes, disable=disable)
    prog = ctx.program
    prog.backward = ctx.backward
    # what pickling needs to compile it again (the caller's graph is never modified by us)
    prog._source = (graph, {"input_names": input_names, "shapes": in_shapes, "dtypes": in_dtypes,
                            "param_shapes": p_shapes, "optimize": optimize, "training": training,
                            "passes": passes, "disable": disable, "options": options})
    if params is not None:
        prog.bind_params(p_arrays)
    return prog



_compile_graph = compile_graph


@functools.wraps(_compile_graph)
def compile_graph(graph: Graph, **kwargs: Any) -> CompiledProgram:  # noqa: F811  (the same, without cyclic GC)
    with no_cyclic_gc():
        return _compile_graph(graph, **kwargs)


def _recompile(graph: Graph, recipe: dict, params: dict | None) -> CompiledProgram:
    """Unpickling a :class:`CompiledProgram`: the same compile_graph call, parameters rebound."""
    return compile_graph(graph, params=params, **recipe)
