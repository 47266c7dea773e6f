"""Graphs under ``autograd.record()``: a hybridized block's compiled training step, or its graph
run node by node through the tape.

**Compiled** (:func:`compile_training`, :class:`TrainingProgram`): the pipeline's differentiate
stage builds the backward graph from the operators' gradient rules; the forward program computes
the outputs and the activations the backward reads, the backward program the gradients of the
differentiated variables from the head gradients and those activations. ``HybridBlock`` records
the pair as ONE tape node whose inputs are the data and parameter arrays and whose rule calls the
backward program (:meth:`TrainingProgram.record`), so ``loss.backward()`` through the rest of the
tape fills ``param.grad()`` as before (``grad_req`` write/add/null, ``retain_graph``,
``autograd.grad`` are the tape's): a training step is two compiled calls.

**Op by op** (:func:`run_recorded`, the fallback for graphs the differentiate stage refuses:
subgraph operators, random draws the backward needs, rules that need values): every node is one
imperative operator call (``ndarray.invoke``), recorded like any other, on the parameters' own data
arrays (the marked variables), through the same gradient rules.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Mapping

import numpy as np

from ..base import HybridizeError
from .ir import Graph
from .kernels.parallel import blas_single_threaded

__all__ = ["TrainingProgram", "compile_training", "retain_heap", "run_recorded"]


class TrainingProgram:
    """A forward and a backward :class:`~.codegen.CompiledProgram` for one input signature and one
    set of differentiated variables (``wrt``, names).

    Both calls run with BLAS single-threaded, as a compiled program with parallel kernels does
    (``kernels/parallel.py``): OpenBLAS's spinning threads collapse on a busy machine, and the
    program's own pool parallelises the big kernels.
    """

    def __init__(self, forward, backward, spec, wrt: list[str], n_outputs: int):
        self.forward, self.backward, self.spec = forward, backward, spec
        self.wrt, self.n_outputs = list(wrt), n_outputs
        self.keep: list[int] | None = None
        self._checked: dict = {}    # gradient destinations checked against the bound parameters (-1: their ids)

    def bind_params(self, params: Mapping[str, np.ndarray]) -> None:
        """Rebinds both programs (after every update), their weight transforms written in place."""
        self.forward.bind_params(params, reuse=True)
        self.backward.bind_params(params, reuse=True)

    def memory(self) -> dict:
        """The step's memory plan, bytes. ``peak_bytes``: what the step holds at most as planned,
        the saved activations (fresh arrays made by the forward, held until the backward returns)
        plus the two programs' shared arena (the larger of their planned peaks); ``arena_bytes``:
        that arena, allocated at the first step and held (not a step's allocation).

        ``lower_bound_bytes``: the liveness bound of forward + backward, the most bytes alive at
        once over the forward's steps then the backward's, each step counting the program's planned
        buffers alive at it (scratch included) and the activations saved for the backward alive at
        it, each from the forward step that makes it to the backward step that last reads it.
        Reference kernels' own temporaries, numpy's ufunc buffers and the arrays around the
        programs (the loss, the head gradient) are not planned (``tracemalloc`` sees them); the
        gradients are written into the parameters' gradient buffers, which exist before and after
        the step."""
        fwd, bwd = self.forward.stats.get("memory", {}), self.backward.stats.get("memory", {})
        spec = self.spec
        nbytes = {n: int(np.prod(spec.shapes[n])) * np.dtype(spec.dtypes[n]).itemsize for n in spec.saved_names}
        saved = [(n, ref) for n, (kind, ref) in zip(spec.saved_names, spec.saved_from) if kind == "output"]
        total = sum(nbytes[n] for n, _ in saved)
        arena = max(self.forward.arena_bytes, self.backward.arena_bytes)
        return {"peak_bytes": total + max(fwd.get("peak_bytes", 0), bwd.get("peak_bytes", 0)),
                "lower_bound_bytes": self._liveness_bound(fwd, bwd, saved, nbytes),
                "saved_bytes": total, "arena_bytes": arena}

    def _liveness_bound(self, fwd: dict, bwd: dict, saved: list, nbytes: dict) -> int:
        made = fwd.get("output_steps") or []
        last = dict(zip(self.backward.input_names, bwd.get("input_last_use") or []))
        f_live = list(fwd.get("live_bytes") or [0])
        b_live = list(bwd.get("live_bytes") or [0])
        f_add = np.zeros(len(f_live) + 1, np.int64)
        b_del = np.zeros(len(b_live) + 1, np.int64)
        for name, k in saved:
            t = made[k] if k < len(made) and made[k] is not None else 0
            f_add[min(t, len(f_live))] += nbytes[name]
            u = last.get(name)          # None: the backward never reads it (dead after the forward)
            if u is not None:
                b_del[:min(u, len(b_live)) + 1] += nbytes[name]
        f_peak = int(np.max(np.asarray(f_live + [0], np.int64) + np.cumsum(f_add)))
        b_peak = int(np.max(np.asarray(b_live + [0], np.int64) + b_del))
        return max(f_peak, b_peak)

    def run(self, data: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(outputs, saved activations) of the forward program on the data arrays (input order)."""
        with blas_single_threaded():
            outs = self.forward(*data)
        by_input = dict(zip(self.forward.input_names, data))
        saved = [by_input[ref] if kind == "input" else outs[ref] for kind, ref in self.spec.saved_from]
        return outs[:self.n_outputs], saved

    def gradients(self, out_grads: list, saved: list, into: list | None = None) -> list[np.ndarray]:
        """The gradients of the ``wrt`` variables (in order) for the outputs' gradients; ``into[k]``,
        when an array of gradient ``k``'s shape and dtype, receives it (and is returned as it): the
        parameters' gradient buffers, written in place of fresh arrays copied there afterwards."""
        heads = []
        for i, name in zip(self.spec.head_outputs, self.spec.head_names):
            g = np.asarray(getattr(out_grads[i], "_data", out_grads[i]))
            heads.append(g.astype(self.spec.dtypes[name], copy=False))
        args = [*heads, *saved]
        if self.keep is not None:   # inputs the backward graph does not read (a zero gradient's head)
            args = [args[i] for i in self.keep]
        if into is not None:
            into = self._destinations(into, args)
        with blas_single_threaded():
            return self.backward.call_into(args, into)

    def _destinations(self, into: list, args: list) -> list | None:
        """``into`` with the arrays the backward may not write into dropped (wrong shape, dtype or
        layout, read-only, or sharing memory with what the backward reads); None when none is left.
        A destination's checks against the bound parameters are kept while the same arrays are bound
        (the same gradient buffers step after step); against the call's inputs they run every call."""
        out, ok = [], self._checked
        bound = tuple(map(id, self.backward._params.values()))
        if ok.get(-1) != bound:         # other parameter arrays bound: check again
            ok.clear()
            ok[-1] = bound
        for k, d in enumerate(into):
            if d is not None and ok.get(k) is not d:
                if not self._fits(k, d):
                    d = None
                else:
                    ok[k] = d
            if d is not None:
                for a in args:
                    if np.may_share_memory(d, a):
                        d = None
                        break
            out.append(d)
        return out if any(d is not None for d in out) else None

    def _fits(self, k: int, d: object) -> bool:
        return isinstance(d, np.ndarray) and d.shape == tuple(self.backward.output_shapes[k]) \
            and d.dtype == self.backward.output_dtypes[k] and d.flags.c_contiguous and d.flags.writeable \
            and not any(np.may_share_memory(d, a) for a in self.backward.params.values())


_HEAP_PAD_DEFAULT = 64 << 20
_heap_pad_done = False


def retain_heap() -> int:
    """Asks glibc's allocator to keep ``HYBRIDIZE_HEAP_PAD`` bytes (default 64 MiB; ``0``: leave the
    allocator alone) at the top of the heap when it trims, once per process; returns the pad set (0
    when none).

    A training step allocates and frees the same arrays every step (kernel outputs and
    temporaries of a few hundred KiB to MiB). glibc gives memory above its trim threshold (twice the
    largest freed mmap'd block, ~2 MiB for LeNet) back to the kernel after each free, so the next
    step page-faults it in again: 1,200 faults, 4.5 ms of system time and a cold cache per LeNet
    step, a third of the step. MXNet keeps its arrays in its own pool (``static_alloc``); this is the
    same trade, bounded: at most the pad stays mapped beyond what is in use."""
    global _heap_pad_done
    if _heap_pad_done:
        return 0
    _heap_pad_done = True
    try:
        pad = int(os.environ.get("HYBRIDIZE_HEAP_PAD", _HEAP_PAD_DEFAULT))
    except ValueError:
        pad = _HEAP_PAD_DEFAULT
    if pad <= 0 or not sys.platform.startswith("linux"):
        return 0
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):   # not glibc (musl has no mallopt)
        return 0
    M_TOP_PAD = -2
    return pad if mallopt(M_TOP_PAD, ctypes.c_int(min(pad, 2**31 - 1))) == 1 else 0


class _SharedArena:
    """Per-thread arena of a training step's two programs (``CompiledProgram.share_arena``)."""

    def __init__(self, nbytes: int):
        self.nbytes = nbytes
        self._tls = threading.local()

    def __call__(self, nbytes: int) -> np.ndarray:
        buf = getattr(self._tls, "buf", None)
        if buf is None or buf.size < nbytes:
            buf = self._tls.buf = np.empty(max(nbytes, self.nbytes), np.uint8)
        return buf


def compile_training(graph: Graph, input_names: list[str], shapes: Mapping[str, tuple], dtypes: Mapping[str, object],
                     params: Mapping[str, np.ndarray], wrt: list[str], training: bool) -> TrainingProgram:
    """The two programs of a training step; raises ``NotDifferentiable`` for a graph the differentiate
    stage refuses (the caller runs it op by op)."""
    from .codegen import compile_graph
    retain_heap()
    var_names = {n.name for n in graph.variables()}
    fwd = compile_graph(graph, input_names=input_names, shapes=shapes, dtypes=dtypes,
                        params={k: v for k, v in params.items() if k in var_names}, training=training, wrt=wrt,
                        options={"split_dense": True})
    spec = fwd.backward
    names = spec.head_names + spec.saved_names
    present = {n.name for n in spec.graph.variables()}
    used = [k for k in names if k in present]
    bwd = compile_graph(spec.graph, input_names=used, shapes={k: spec.shapes[k] for k in used},
                        dtypes={k: spec.dtypes[k] for k in used},
                        params={k: params[k] for k in spec.params}, training=training,
                        options={"nhwc_views": True, "output_args": True, "split_dense": True})
    # one arena for both: the forward's buffers are dead when it returns (its outputs are fresh
    # arrays), and the two never run at the same time in one thread
    arena = _SharedArena(max(fwd.arena_bytes, bwd.arena_bytes))
    fwd.share_arena(arena)
    bwd.share_arena(arena)
    prog = TrainingProgram(fwd, bwd, spec, wrt, len(graph.outputs))
    if len(used) != len(names):
        prog.keep = [i for i, k in enumerate(names) if k in present]
    return prog


def run_recorded(graph: Graph, values: Mapping[str, object], monitor=None, tape: dict | None = None) -> list:
    """The outputs (NDArrays) of ``graph`` given each variable's NDArray by name, every operator
    call recorded by autograd. ``monitor(node, inputs, outputs)`` (numpy values) after each op, as
    ``interpret.evaluate``'s (the executor's monitor callback). ``tape``, when given, gets the graph
    node of each recorded call (``id`` of the tape node -> node: the executor names backward nodes
    after them)."""
    from ..ndarray import NDArray, invoke
    from .infer import complete_shape_attrs, entry_shapes, needs_shape_completion

    if needs_shape_completion(graph):
        graph = graph.copy()
        known = {n.name: tuple(np.shape(values[n.name])) for n in graph.variables() if n.name in values}
        complete_shape_attrs(graph, entry_shapes(graph, known))
    env: dict = {}
    for n in graph.nodes:
        if n.op is None:
            if n.name not in values:
                raise HybridizeError(f"no value for variable {n.name!r}")
            v = values[n.name]
            env[(id(n), 0)] = v if isinstance(v, NDArray) else NDArray(np.asarray(v))
            continue
        args = [env[(id(e.node), e.index)] for e in n.inputs]
        out = invoke(n.op, args, n.resolved)
        if isinstance(out, (tuple, list)):
            for i, o in enumerate(out):
                env[(id(n), i)] = o
        else:
            env[(id(n), 0)] = out
        if tape is not None:
            first = out[0] if isinstance(out, (tuple, list)) else out
            if getattr(first, "_ag", None) is not None:
                tape[id(first._ag[0])] = n
        if monitor is not None:
            outs = out if isinstance(out, (tuple, list)) else [out]
            monitor(n, [a._data for a in args], [o._data for o in outs])
    return [env[(id(e.node), e.index)] for e in graph.outputs]
