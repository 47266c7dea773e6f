"""All 16 model fixtures made by MXNet 1.9.1: ``model-symbol.json`` + parameters (the shipped
``model-0000.params`` or rebuilt from ``params_recipe.py``) reproduce ``io.npz`` ``y``
(rtol 1e-3, atol 1e-4 * max|y|), through the Python API, with both executors."""
from __future__ import annotations

import numpy as np
import pytest

import model_support as ms
from support import model_names

MODELS = model_names()


def _model(name: str, executor: str):
    from hybridize.runtime.graph.model import Model
    from hybridize.runtime.graph import mxnet_json

    symbol = ms.model_dir(name) / "model-symbol.json"
    if ms.shipped(name):
        return Model.load(symbol, executor=executor)   # finds model-0000.params next to it
    return Model(mxnet_json.load(symbol), ms.recipe_params(name), symbol_path=symbol, executor=executor)


@pytest.mark.parametrize("executor", ["compiled", "interpret"])
@pytest.mark.parametrize("name", MODELS)
def test_model_matches_mxnet(name: str, executor: str) -> None:
    io = ms.io(name)
    model = _model(name, executor)
    assert model.input_names == ["data"]
    outs = model.run({"data": io["x"]})
    assert len(outs) == 1
    y = outs[0]
    assert y.shape == io["y"].shape and y.dtype == np.float32
    np.testing.assert_allclose(y, io["y"], **ms.tolerance(name, io["y"]))


@pytest.mark.parametrize("name", [m for m in MODELS if ms.shipped(m)])
def test_shipped_params_equal_the_recipe(name: str) -> None:
    from hybridize.runtime.graph import params

    shipped = params.strip_prefixes(params.load(ms.model_dir(name) / "model-0000.params"))
    rebuilt = ms.recipe_params(name)
    assert shipped.keys() == rebuilt.keys()
    for k in rebuilt:
        np.testing.assert_array_equal(shipped[k], rebuilt[k])


def test_model_api_errors() -> None:
    from hybridize.runtime.base import LoadError, ShapeError
    from hybridize.runtime.graph.model import Model

    symbol = ms.model_dir("seed_mlp") / "model-symbol.json"
    model = Model.load(symbol)
    x = ms.io("seed_mlp")["x"]
    with pytest.raises(ShapeError, match=r"input 'data': got shape \(2, 100\).*FullyConnected 'dense0_fwd'"):
        model.run(x[:, :100])
    partial = dict(model.params)
    del partial["dense1_bias"]
    with pytest.raises(LoadError, match=r"missing parameter 'dense1_bias' \(needed by FullyConnected 'dense1_fwd'\)"):
        Model(model.graph, partial).run({"data": x})
    # one positional array for the sole input; other dtypes are fed as float32 like MXNet
    y = model.run(x.astype(np.float64))[0]
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, ms.io("seed_mlp")["y"], rtol=1e-3, atol=1e-5)


def test_declared_input_shape_is_checked() -> None:
    from hybridize.runtime import sym
    from hybridize.runtime.base import ShapeError
    from hybridize.runtime.graph.model import Model

    x = sym.var("data", shape=(1, 3, 8, 8))
    y = sym.Convolution(x, kernel=(3, 3), num_filter=2, no_bias=True, name="conv")
    model = Model(y.graph(), {"conv_weight": np.ones((2, 3, 3, 3), np.float32)})
    assert model.run(np.ones((1, 3, 8, 8), np.float32))[0].shape == (1, 2, 6, 6)
    with pytest.raises(ShapeError, match=r"input 'data': got shape \(1, 3, 9, 9\), expected \(1, 3, 8, 8\)"):
        model.run(np.ones((1, 3, 9, 9), np.float32))
