"""The graph compiler, as one list: :data:`PIPELINE`.

``compile_graph`` (``codegen.py``) checks its inputs, infers what the caller did not give, then
runs these stages in order over one graph; each stage is a named list of passes (one module of
``passes/`` each, or the emitter):

- **differentiate** (training compiles only, ``compile_graph(wrt=...)``): the backward graph from
  each operator's gradient rule; the forward graph keeps as extra outputs the activations the
  backward reads, and the backward graph is compiled by this same pipeline as a second program
  (``graph/differentiate.py``: a training step is two compiled calls);
- **optimise**: graph-to-graph rewrites over the registry's operators (no-op removal, common
  subexpressions, constant folding, BatchNorm folding, pooling before 1x1 convolutions);
- **lower**: to the compiler's internal NHWC ops (``kernels/``), each convolution's algorithm,
  epilogue/prologue fusion, dead code;
- **plan memory**: the schedule (which nodes run per call, which once per ``bind_params``) and
  every entry's last use;
- **emit**: the straight-line program (``emit/``), buffers taken from the plan as the emitters
  ask for them.

A new pass is one module of ``passes/`` exposing ``PASS = Pass(name, fn)`` and its name in a
stage's list below. A new stage is one more :class:`Stage` in the list, with a ``when`` that selects
the compiles it applies to (as ``differentiate``). With ``HYBRIDIZE_VERIFY=1`` the graph is checked
(``verify.py``) before the first stage and after every stage.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable

from ..base import OutOfMemoryError
from .emit.program import generate
from .ir import Graph
from .passes import (
    Pass,
    PassContext,
    bn_fold,
    constant_fold,
    conv_algo,
    cse,
    dce,
    differentiate,
    fuse,
    identity,
    layout,
    liveness,
    pool_first,
)
from .verify import verify

__all__ = ["PIPELINE", "Stage", "run"]


@dataclass(frozen=True)
class Stage:
    name: str
    passes: tuple[Pass, ...]
    when: Callable[[PassContext], bool] = lambda ctx: True    # does the stage apply to this compile?


PIPELINE: list[Stage] = [
    Stage("differentiate", (differentiate.PASS,), when=lambda ctx: ctx.differentiate is not None),
    Stage("optimise", (identity.PASS, cse.PASS, constant_fold.PASS, bn_fold.PASS, pool_first.PASS)),
    Stage("lower", (layout.PASS, conv_algo.PASS, fuse.PASS, dce.PASS)),
    Stage("plan memory", (liveness.PASS,)),
    Stage("emit", (Pass("generate", generate, optional=False),)),
]


def run(graph: Graph, ctx: PassContext, *, optimize: bool = True, passes: list[str] | None = None,
        disable: Mapping[str, bool] | None = None) -> Graph:
    """Runs the pipeline over ``graph``. Optional passes run when ``optimize`` and named in
    ``passes`` (default: those marked ``default``) and not ``disable``d; inference-only ones not
    when ``ctx.training``; the others always."""
    if passes is not None:
        names = {p.name for stage in PIPELINE for p in stage.passes if p.optional}
        for name in passes:
            if name not in names:
                raise KeyError(f"no graph pass named {name!r}")
    check = os.environ.get("HYBRIDIZE_VERIFY") == "1"
    if check:
        verify(graph, ctx, "input")
    for stage in PIPELINE:
        if not stage.when(ctx):
            continue
        for p in stage.passes:
            if p.optional and (not optimize or not (p.name in passes if passes is not None else p.default)
                               or (disable or {}).get(p.name)):
                continue
            if p.inference_only and ctx.training:
                continue
            try:
                graph = p(graph, ctx)
            except OutOfMemoryError:
                raise
            except MemoryError as e:
                raise OutOfMemoryError(f"out of memory compiling the graph (pass {p.name}): "
                                       f"{e}") from None
        if check:
            verify(graph, ctx, stage.name)
    return graph
