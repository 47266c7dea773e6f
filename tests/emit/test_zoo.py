"""The whole model zoo transpiles; the OUTPUT package builds all 14 fixture networks on our runtime,
and (hybridized, parameters from params_recipe) reproduces MXNet's ``y`` for four of them.

benchmarks/bench_transpile_zoo.py runs the numerical comparison for all 14.
"""
from __future__ import annotations

import ast
import json

import numpy as np
import pytest

from support import FIXTURES

import hybridize.runtime as mx

MODELS = FIXTURES / "models"
ZOO = sorted(p.name for p in MODELS.iterdir() if (p / "meta.json").is_file()
             and "model_zoo" in json.loads((p / "meta.json").read_text()).get("built_by", "")) if MODELS.is_dir() else []


def test_fourteen_zoo_fixtures():
    assert len(ZOO) == 14, ZOO


def test_output_is_a_runtime_package(vision_out):
    files = sorted(p.name for p in vision_out.iterdir())
    assert files == ["__init__.py", "alexnet.py", "densenet.py", "inception.py", "mobilenet.py",
                     "resnet.py", "squeezenet.py", "vgg.py"]
    resnet = (vision_out / "resnet.py").read_text()
    assert "from hybridize.runtime.gluon.block import HybridBlock" in resnet
    assert "from hybridize.runtime.context import cpu" in resnet
    assert "from hybridize.runtime.util import is_np_array" in resnet
    assert resnet.count("    @static_graph\n    def hybrid_forward(self, F, x):") == 6
    for p in vision_out.iterdir():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("mxnet"), (p.name, node.module)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("mxnet") for a in node.names), p.name
    assert "from .resnet import *" in (vision_out / "__init__.py").read_text()  # stays relative


@pytest.mark.parametrize("model", ZOO)
def test_get_model_builds_every_zoo_network(vision_pkg, model):
    net = vision_pkg.get_model(model)
    structural = set(net._collect_params_with_prefix())
    expected = set(json.loads((MODELS / model / "names.json").read_text()))
    assert structural == expected


@pytest.mark.parametrize("model", ["resnet18_v1", "mobilenetv2_0.25", "squeezenet1.1", "densenet121"])
def test_hybridized_output_matches_mxnet(vision_pkg, params_recipe, model):
    io = np.load(MODELS / model / "io.npz")
    make = params_recipe
    net = vision_pkg.get_model(model)
    net.initialize()
    net.hybridize()
    x = mx.nd.array(io["x"])
    net(x)  # deferred shapes resolved
    for name, p in net._collect_params_with_prefix().items():
        p.set_data(mx.nd.array(make(name, p.shape)))
    y = net(x).asnumpy()
    scale = float(np.abs(io["y"]).max())
    np.testing.assert_allclose(y, io["y"], rtol=1e-3, atol=1e-4 * scale)


def test_static_graph_block_called_imperatively_runs_its_graph(vision_pkg, params_recipe, tmp_path):
    """Not hybridized: a transpiled block still runs as its compiled graph; parameters saved as .npz load back."""
    io = np.load(MODELS / "squeezenet1.1" / "io.npz")
    make = params_recipe
    net = vision_pkg.get_model("squeezenet1.1")
    net.initialize()
    x = mx.nd.array(io["x"])
    net(x)
    for name, p in net._collect_params_with_prefix().items():
        p.set_data(mx.nd.array(make(name, p.shape)))
    path = str(tmp_path / "sq.npz")
    net.save_parameters(path)
    other = vision_pkg.get_model("squeezenet1.1")
    other.load_parameters(path)
    y = other(x).asnumpy()
    scale = float(np.abs(io["y"]).max())
    np.testing.assert_allclose(y, io["y"], rtol=1e-3, atol=1e-4 * scale)
    assert type(other).hybrid_forward.__static_graph__
