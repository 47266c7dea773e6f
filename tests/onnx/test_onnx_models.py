"""All 16 shared model fixtures export to ONNX, pass ``onnx.checker`` (full check) and run in
onnxruntime to MXNet 1.9.1's recorded outputs (rtol 1e-3, atol 1e-4 * max|y|): exported with
static shapes, and with a dynamic batch axis run at batch 1 (against MXNet) and batch 3 (rows
perturbed; against our numpy runtime at batch 3).

vgg11_bn and alexnet (133 M and 61 M parameters: ~20 s and ~10 s of protobuf serialisation,
checking and session building, a sixth of the suite's budget) and resnet50_v1/v2 (5 s each) run with
``HYBRIDIZE_SLOW=1``; every operator they export (Convolution, BatchNorm, Activation, Pooling, Flatten,
FullyConnected, Dropout, elementwise add) and both residual-unit versions are exported by the other
models here (resnet18_v1/v2)."""
from __future__ import annotations

import os

import numpy as np
import pytest

import model_support as ms
from onnx_support import checked_session, dim_values, run
from support import model_names

SLOW_ONLY = {"vgg11_bn", "alexnet", "resnet50_v1", "resnet50_v2"}
MODELS = [m for m in model_names() if os.environ.get("HYBRIDIZE_SLOW") == "1" or m not in SLOW_ONLY]


def _sources(name: str):
    """(symbol path, params as export_model takes them): the shipped .params path when there is one."""
    sym = str(ms.model_dir(name) / "model-symbol.json")
    if ms.shipped(name):
        return sym, str(ms.model_dir(name) / "model-0000.params")
    return sym, ms.recipe_params(name)


@pytest.mark.parametrize("name", MODELS)
def test_model_exports_and_matches_mxnet_static_and_with_a_dynamic_batch(name: str) -> None:
    from hybridize.runtime.graph.model import Model
    from hybridize.runtime.onnx import export_graph, load_graph_and_params

    io = ms.io(name)
    x, y = io["x"], io["y"]
    sym, params = _sources(name)

    static = export_graph(sym, params, [x.shape])
    assert dim_values(static.graph.input[0]) == list(x.shape)
    (ys,) = run(checked_session(static), {"data": x})
    del static
    assert ys.shape == y.shape and ys.dtype == np.float32
    np.testing.assert_allclose(ys, y, **ms.tolerance(name, y))

    model = export_graph(sym, params, [x.shape], dynamic=True, dynamic_input_shapes=[(None,) + x.shape[1:]])
    assert dim_values(model.graph.input[0]) == [None] + list(x.shape[1:])
    assert dim_values(model.graph.output[0])[0] is None
    dyn = checked_session(model)
    del model
    (y1,) = run(dyn, {"data": x[:1]})
    np.testing.assert_allclose(y1, y[:1], **ms.tolerance(name, y))

    rng = np.random.default_rng(3)
    x3 = np.concatenate([x, x[:1] * 0.5, x[-1:] + 0.1])[:3]
    x3 = (x3 + rng.normal(0, 0.01, x3.shape)).astype(np.float32)
    (y3,) = run(dyn, {"data": x3})
    graph, arrays = load_graph_and_params(sym, params)
    ours = Model(graph, arrays).run({"data": x3})[0]
    assert y3.shape == ours.shape == (3,) + y.shape[1:]
    np.testing.assert_allclose(y3, ours, **ms.tolerance(name, ours))
