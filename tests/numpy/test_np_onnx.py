"""ONNX export of np-mode graphs, as of legacy ones: MXNet 1.9.1's own np exports and np-mode
expressions run in onnxruntime to MXNet's outputs / the runtime's."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as onp
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onnx"))
from onnx_support import checked, run  # noqa: E402

from hybridize.runtime import sym  # noqa: E402
from hybridize.runtime.graph.interpret import evaluate  # noqa: E402
from hybridize.runtime.onnx import export_graph, load_graph_and_params  # noqa: E402
from np_models import MODELS  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "models"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_mxnet_np_export_converts_to_onnx_and_runs_to_mxnets_output(name):
    io = onp.load(FIXTURES / name / "io.npz")
    graph, params = load_graph_and_params(str(FIXTURES / name / "model-symbol.json"),
                                          str(FIXTURES / name / "model-0000.params"))
    model = checked(export_graph(graph, params, [io["x"].shape]))
    out = run(model, {model.graph.input[0].name: io["x"]})[0]
    onp.testing.assert_allclose(out, io["y"], rtol=1e-4, atol=1e-5)


EXPRESSIONS = (
    "x[1] + x[:, 1:3].sum() * y[-1, 0:2].mean()", "-x + 1 - 2 * y / (y * y + 1)", "(x > y) + (x <= 0.5)",
    "sym.np.exp(x) + sym.np.log(y * y + 1) - sym.np.tanh(x) ** 2", "x.T.reshape(2, -1).max(axis=0)",
    "sym.np.concatenate([x, y], axis=1).transpose(1, 0)", "sym.np.where(x > 0, x, y)",
    "sym.npx.relu(x) + sym.npx.sigmoid(y)", "sym.np.matmul(x, y.T)", "sym.np.stack([x, y]).sum()",
    "sym.npx.reshape(x, (-2, -1)) + sym.np.ones_like(y)", "sym.np.squeeze(sym.np.expand_dims(x, 0))",
    "x % 3 + sym.np.abs(y) ** 0.5",
)


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_np_expression_exports_and_runs_as_the_runtime_computes(expr):
    x, y = sym.var("x").as_np_ndarray(), sym.var("y").as_np_ndarray()
    graph = eval(expr, {"x": x, "y": y, "sym": sym}).graph()  # noqa: S307 - the expressions above
    rs = onp.random.RandomState(0)
    feeds = {"x": rs.normal(size=(2, 3)).astype("float32"), "y": rs.normal(size=(2, 3)).astype("float32")}
    names = [v.name for v in graph.variables()]
    model = checked(export_graph(graph, {}, [feeds[k].shape for k in names]))
    ours = run(model, {k: feeds[k] for k in names})[0]
    want = onp.asarray(evaluate(graph, {k: feeds[k] for k in names})[0])
    assert ours.shape == want.shape and ours.dtype == want.dtype
    onp.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-5)
