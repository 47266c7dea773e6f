"""Operation counts of the graph compiler, stage by stage: the unit of a scaling test that does not
depend on the machine's speed or load.

An operation is one line of the package's own code executed (``sys.settrace`` line events in
frames whose file lies inside the installed ``hybridize`` package; numpy and the standard library
are not traced, their calls count as the line that makes them). Counts are kept per stage and per
function, so a quadratic helper shows as a function whose count grows 16x when the graph grows 4x
even when its share of its stage is small.

Stages: ``load`` (symbol JSON text to a Graph), ``setup`` (compile_graph's own checks),
``infer`` (the first shape and dtype inference), one per pass of ``pipeline.PIPELINE`` by its name
(later inferences are counted in the pass that asks for them), and ``pack buffers`` (the memory
planner's arena placement, inside ``generate``).

Also used by ``benchmarks/bench_compile_scaling.py``."""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
import time
from collections.abc import Iterator
from types import CodeType, FrameType
from typing import Any, Callable

import hybridize
from hybridize.runtime.graph import codegen, mxnet_json, pipeline
from hybridize.runtime.graph.emit import planner
from hybridize.runtime.graph.passes import PassContext

PACKAGE_DIR = os.path.dirname(os.path.abspath(hybridize.__file__)) + os.sep


def chain_json(units: int) -> str:
    """A symbol JSON chain of ``units`` blocks of 8 operators (about 14 nodes with the parameters),
    every pass having something to do: FullyConnected, BatchNorm (folded), ReLU, two equal sigmoids
    (merged by CSE) added, Dropout (an identity at inference), plus a scalar. Names repeat, as in a
    long exported chain."""
    nodes: list[dict] = [{"op": "null", "name": "data", "inputs": []}]

    def add(op: str, name: str, inputs: list[int], attrs: dict | None = None) -> int:
        nodes.append({"op": op, "name": name, "attrs": attrs or {}, "inputs": [[i, 0, 0] for i in inputs]})
        return len(nodes) - 1

    x = 0
    for k in range(units):
        w, b = add("null", f"fc{k}_weight", []), add("null", f"fc{k}_bias", [])
        x = add("FullyConnected", "fc", [x, w, b], {"num_hidden": "4"})
        stats = [add("null", f"bn{k}_{p}", []) for p in ("gamma", "beta", "moving_mean", "moving_var")]
        x = add("BatchNorm", "bn", [x, *stats])
        x = add("Activation", "relu", [x], {"act_type": "relu"})
        s1, s2 = add("sigmoid", "s", [x]), add("sigmoid", "s", [x])
        x = add("elemwise_add", "add", [s1, s2])
        x = add("Dropout", "drop", [x], {"p": "0.5"})
        x = add("_plus_scalar", "plus", [x], {"scalar": "1"})
    return json.dumps({"nodes": nodes, "arg_nodes": [i for i, n in enumerate(nodes) if n["op"] == "null"],
                       "node_row_ptr": list(range(len(nodes) + 1)), "heads": [[x, 0, 0]],
                       "attrs": {"mxnet_version": ["int", 10901]}})


def op_chain_json(n: int) -> str:
    """A plain chain of ``n`` operators (ReLU, +1, sigmoid, *0.5 in turn), every one named ``node``."""
    ops = [("Activation", {"act_type": "relu"}), ("_plus_scalar", {"scalar": "1.0"}), ("sigmoid", {}),
           ("_mul_scalar", {"scalar": "0.5"})]
    nodes = [{"op": "null", "name": "data", "inputs": []}]
    nodes += [{"op": ops[i % 4][0], "name": "node", "attrs": ops[i % 4][1], "inputs": [[i, 0, 0]]} for i in range(n)]
    return json.dumps({"nodes": nodes, "arg_nodes": [0], "node_row_ptr": list(range(n + 2)), "heads": [[n, 0, 0]],
                       "attrs": {"mxnet_version": ["int", 10901]}})


class Counter:
    """Line events per stage and per function (code object) while :meth:`compile` runs; with
    ``trace=False`` nothing is traced and only each stage's seconds are kept (``seconds``)."""

    def __init__(self, trace: bool = True) -> None:
        self.trace = trace
        self.by_stage: dict[str, dict[CodeType, int]] = {}
        self.seconds: dict[str, float] = {}
        self._cur: dict[CodeType, int] = {}
        self._since = time.perf_counter()
        self.stage = ""

    def enter(self, stage: str) -> str:
        now = time.perf_counter()
        self.seconds[self.stage] = self.seconds.get(self.stage, 0.0) + now - self._since
        self._since = now
        prev, self.stage = self.stage, stage
        self._cur = self.by_stage.setdefault(stage, {})
        return prev

    def labelled(self, stage: str, fn: Callable) -> Callable:
        def run(*args: Any, **kwargs: Any) -> Any:
            prev = self.enter(stage)
            try:
                return fn(*args, **kwargs)
            finally:
                self.enter(prev)
        return run

    def _local(self, frame: FrameType, event: str, arg: Any) -> Callable:
        if event == "line":
            cur, code = self._cur, frame.f_code
            cur[code] = cur.get(code, 0) + 1
        return self._local

    def _global(self, frame: FrameType, event: str, arg: Any) -> Callable | None:
        return self._local if frame.f_code.co_filename.startswith(PACKAGE_DIR) else None

    @contextlib.contextmanager
    def _tracing(self) -> Iterator[None]:
        if not self.trace:
            yield
            return
        old = sys.gettrace()
        sys.settrace(self._global)
        try:
            yield
        finally:
            sys.settrace(old)

    def compile(self, text: str) -> Any:
        """Loads ``text`` and compiles it (input ``data`` of shape (2, 4)), counting every stage."""
        stages = [dataclasses.replace(s, passes=tuple(dataclasses.replace(p, fn=self.labelled(p.name, p.fn))
                                                       for p in s.passes)) for s in pipeline.PIPELINE]
        infer = PassContext.infer

        def first_infer(ctx: PassContext, graph: Any) -> Any:
            return self.labelled("infer", infer)(ctx, graph) if self.stage == "setup" else infer(ctx, graph)

        saved = (pipeline.PIPELINE, planner.Planner.finish)
        pipeline.PIPELINE, PassContext.infer = stages, first_infer
        planner.Planner.finish = self.labelled("pack buffers", saved[1])
        try:
            with self._tracing():
                graph = self.labelled("load", mxnet_json.loads)(text)
                return self.labelled("setup", codegen.compile_graph)(graph, input_names=["data"],
                                                                     shapes={"data": (2, 4)})
        finally:
            pipeline.PIPELINE, planner.Planner.finish = saved
            PassContext.infer = infer

    def totals(self) -> dict[str, int]:
        return {stage: sum(c.values()) for stage, c in self.by_stage.items() if stage}

    def functions(self) -> dict[tuple[str, str], int]:
        """``(stage, "file:line function")`` -> count."""
        out = {}
        for stage, c in self.by_stage.items():
            for code, k in c.items():
                where = os.path.relpath(code.co_filename, PACKAGE_DIR)
                out[(stage, f"{where}:{code.co_firstlineno} {code.co_name}")] = k
        return out


def count(units: int, trace: bool = True) -> Counter:
    c = Counter(trace)
    c.compile(chain_json(units))
    return c
