"""MXNet 1.9.1's exported control-flow models (``tests/runtime/data/control_flow``) export to ONNX:
``_foreach`` as Scan, ``_while_loop`` as Loop, ``_cond`` as If; the models pass ONNX's full check and
onnxruntime reproduces MXNet's recorded outputs, with static shapes and with a dynamic batch axis
(batch 3 against our numpy runtime)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from onnx_support import checked, dim_values, run

DATA = Path(__file__).resolve().parent.parent / "runtime" / "data" / "control_flow"


def _model(kind: str):
    from hybridize.runtime.onnx import load_graph_and_params
    return load_graph_and_params(str(DATA / f"{kind}-symbol.json"), str(DATA / f"{kind}-0000.params"))


def _ours(graph, params, feeds):
    from hybridize.runtime.graph.model import Model
    return Model(graph, params).run(feeds)


def _export(graph, params, shapes: dict, dyn: dict | None = None):
    from hybridize.runtime.onnx import export_graph
    from hybridize.runtime.onnx.export import graph_inputs

    names = [v.name for v in graph_inputs(graph, params)]
    assert sorted(names) == sorted(shapes)
    dis = None if dyn is None else [tuple(None if i in dyn.get(k, ()) else d for i, d in enumerate(shapes[k]))
                                    for k in names]
    return checked(export_graph(graph, params, [shapes[k] for k in names], dynamic=dyn is not None,
                                dynamic_input_shapes=dis))


def _ops(model) -> set[str]:
    return {node.op_type for node in model.graph.node}


def test_foreach_exports_as_scan_and_matches_mxnet() -> None:
    io = np.load(DATA / "foreach-io.npz")
    graph, params = _model("foreach")
    feeds = {"data0": io["x"], "data1": io["h"], "data2": io["c"]}
    shapes = {k: v.shape for k, v in feeds.items()}
    static = _export(graph, params, shapes)
    assert "Scan" in _ops(static)
    for k, y in enumerate(run(static, feeds)):
        np.testing.assert_allclose(y, io[f"y{k}"], rtol=1e-5, atol=1e-6)
    # batch (axis 1 of the sequence, axis 0 of the states) dynamic, and the sequence length too
    dyn = _export(graph, params, shapes, {"data0": (0, 1), "data1": (0,), "data2": (0,)})
    assert dim_values(next(i for i in dyn.graph.input if i.name == "data0")) == [None, None, 3]
    rng = np.random.default_rng(5)
    for t, b in ((5, 2), (3, 3), (1, 1)):
        f = {"data0": rng.normal(size=(t, b, 3)).astype(np.float32),
             "data1": rng.normal(size=(b, 4)).astype(np.float32),
             "data2": rng.normal(size=(b, 4)).astype(np.float32)}
        for y, ref in zip(run(dyn, f), _ours(graph, params, f)):
            assert y.shape == ref.shape
            np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind,tag,runs,onnx_op", [("while_loop", "loop", ("a", "b"), "Loop"),
                                                   ("cond", "cond", ("then", "else"), "If")])
def test_while_loop_and_cond_export_and_match_mxnet(kind: str, tag: str, runs, onnx_op: str) -> None:
    io = np.load(DATA / "control-flow-io.npz")
    graph, params = _model(kind)
    shapes = {"data0": io["x"].shape, "data1": (1,)}
    static = _export(graph, params, shapes)
    dyn = _export(graph, params, shapes, {"data0": (0,)})
    second = "limit" if kind == "while_loop" else "p"
    for model in (static, dyn):
        assert onnx_op in _ops(model)
        for r in runs:
            pre = f"{tag}_{r}"
            ys = run(model, {"data0": io["x"], "data1": io[f"{pre}_{second}"]})
            for k, y in enumerate(ys):
                ref = io[f"{pre}_y{k}"]
                assert y.shape == ref.shape
                if kind == "while_loop" and k < 2:     # rows past the last step: undefined in MXNet
                    steps = int(io[f"{pre}_y2"][0])
                    np.testing.assert_array_equal(y[steps:], 0)
                    y, ref = y[:steps], ref[:steps]
                np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    x3 = np.concatenate([io["x"], io["x"][:1] * -0.5])
    for r in runs:
        f = {"data0": x3, "data1": io[f"{tag}_{r}_{second}"]}
        for y, ref in zip(run(dyn, f), _ours(graph, params, f)):
            np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_the_onnxruntime_backend_runs_control_flow_models_like_the_numpy_runtime() -> None:
    from hybridize.runtime.graph.model import Model

    io = np.load(DATA / "foreach-io.npz")
    graph, params = _model("foreach")
    feeds = {"data0": io["x"], "data1": io["h"], "data2": io["c"]}
    ours = Model(graph, params).run(feeds)
    theirs = Model(graph, params, executor="onnxruntime").run(feeds)
    assert len(ours) == len(theirs) == 4
    for a, b in zip(theirs, ours):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
