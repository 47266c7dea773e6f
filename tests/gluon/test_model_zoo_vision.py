"""``gluon.model_zoo.vision`` of the runtime (MXNet 1.9.1's zoo, ported): every model builds,
hybridizes and exports; the 14 shared fixtures equal MXNet; ``pretrained=True`` reads the local
model store only.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest

from support import FIXTURES, require_shared

import hybridize.runtime as mx
from hybridize.runtime.base import LoadError
from hybridize.runtime.gluon import SymbolBlock
from hybridize.runtime.gluon.model_zoo import model_store, vision

MODELS = FIXTURES / "models"

ALL = ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
       "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
       "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
       "alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
       "squeezenet1.0", "squeezenet1.1", "inceptionv3",
       "mobilenet1.0", "mobilenet0.75", "mobilenet0.5", "mobilenet0.25",
       "mobilenetv2_1.0", "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25"]

# smallest input each architecture accepts: fixed-size average pools (DenseNet 7, SqueezeNet 13,
# Inception 8) need the full resolution; AlexNet's 11x11/4 stem and three 3/2 pools need 63;
# the others end in a global pool (or a Dense with deferred input size) and take 32
MIN_SIZE = {"densenet": 224, "squeezenet": 224, "inception": 299, "alexnet": 63}


def _min_size(name: str) -> int:
    return next((s for prefix, s in MIN_SIZE.items() if name.startswith(prefix)), 32)


def test_get_model_knows_every_mxnet_vision_model():
    assert sorted(model_store._model_sha1) == sorted(ALL)   # the zoo and the store list the same 34
    with pytest.raises(ValueError, match="Model resnet19_v1 is not supported"):
        vision.get_model("resnet19_v1")


def test_named_constructors_build_the_same_architecture_as_get_model():
    pairs = [(vision.resnet50_v2, "resnet50_v2"), (vision.vgg13_bn, "vgg13_bn"), (vision.alexnet, "alexnet"),
             (vision.densenet169, "densenet169"), (vision.squeezenet1_0, "squeezenet1.0"),
             (vision.inception_v3, "inceptionv3"), (vision.mobilenet0_75, "mobilenet0.75"),
             (vision.mobilenet_v2_0_5, "mobilenetv2_0.5")]
    for ctor, name in pairs:
        a, b = ctor(), vision.get_model(name)
        assert type(a) is type(b)
        assert {k: p.shape for k, p in a._collect_params_with_prefix().items()} == \
               {k: p.shape for k, p in b._collect_params_with_prefix().items()}, name
    assert isinstance(vision.get_model("ResNet18_V1"), vision.ResNetV1)   # names are case-insensitive


# traced, shape-inferred and written as symbol JSON without compiling them (the compile, the
# initialization and the round trip of 20-100 MB of parameters dominate the test time):
# - deeper variants of an architecture tested in full (same blocks, more of them): resnet34 is
#   resnet18's basic blocks, vgg13-19 vgg11's layers, densenet161-201 densenet121's;
# - vgg11: vgg11_bn's layers without its BatchNorms;
# - resnet50_v1/v2, inceptionv3: among the 14 fixtures below, whose traced graph equals MXNet's export
#   node for node and whose hybridized output equals MXNet's (test_fixture_model_equals_mxnet); MXNet's
#   own export of each is loaded and run in tests/runtime/test_models.py. The export and SymbolBlock
#   round trip is the same code for every network: the 15 others run it here.
DEEPER = {"resnet101_v1", "resnet152_v1", "resnet101_v2", "resnet152_v2", "vgg13", "vgg16", "vgg19",
          "vgg13_bn", "vgg16_bn", "vgg19_bn", "densenet161", "densenet169", "densenet201",
          "resnet34_v1", "resnet34_v2", "vgg11", "resnet50_v1", "resnet50_v2", "inceptionv3"}


@pytest.mark.parametrize("name", [n for n in ALL if n not in DEEPER])
def test_every_vision_model_builds_hybridizes_and_exports(tmp_path, name):
    """Hybridized forward at the smallest input; the export reloads as a SymbolBlock that computes the
    same output."""
    size = _min_size(name)
    net = vision.get_model(name, classes=10)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.array(np.random.default_rng(0).uniform(-1, 1, (1, 3, size, size)).astype(np.float32))
    y = net(x)
    assert y.shape == (1, 10) and np.isfinite(y.asnumpy()).all()
    sym_file, params_file = net.export(str(tmp_path / "m"))
    loaded = SymbolBlock.imports(sym_file, ["data"], params_file)
    assert sorted(p.name for p in loaded.collect_params().values()) == \
        sorted(p.name for p in net.collect_params().values())
    np.testing.assert_allclose(loaded(x).asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(DEEPER))
def test_deeper_vision_models_trace_infer_and_export_their_graph(tmp_path, name):
    """The graph of the networks not compiled above: every parameter is an input of the traced symbol with the
    shape the layers declare once inferred, the output is (1, classes), and the JSON round-trips."""
    size = _min_size(name)
    net = vision.get_model(name, classes=10)
    out = net(mx.sym.var("data"))
    arg_shapes, out_shapes, aux_shapes = out.infer_shape(data=(1, 3, size, size))
    assert out_shapes == [(1, 10)]
    inferred = dict(zip(out.list_arguments() + out.list_auxiliary_states(), arg_shapes + aux_shapes))
    for p in net.collect_params().values():
        assert p.name in inferred and all(d in (0, i) for d, i in zip(p.shape, inferred[p.name])), p.name
    path = str(tmp_path / "m-symbol.json")
    out.save(path)
    assert mx.sym.load(path).tojson() == out.tojson()


def test_print_model_equals_mxnet():
    """``print(model)`` before initialization (``Conv2D(None -> 64, ...)``) is MXNet's text for all 34
    (sha1 of MXNet's ``repr``, recorded by tests/runtime/data/make_fidelity_cases.py)."""
    recorded = json.loads((Path(__file__).parent.parent / "runtime" / "data" / "fidelity_cases.json")
                          .read_text())["zoo_repr_sha1"]
    assert sorted(recorded) == sorted(ALL)
    ours = {name: hashlib.sha1(repr(vision.get_model(name)).encode()).hexdigest() for name in ALL}
    assert ours == recorded


@pytest.mark.parametrize("name", ["resnet18_v1", "mobilenetv2_0.25", "alexnet"])
def test_imperative_and_hybridized_agree(name):
    net = vision.get_model(name, classes=10)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.default_rng(1).uniform(-1, 1, (2, 3, 64, 64)).astype(np.float32))
    y = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), y, rtol=1e-4, atol=1e-5)


# -- pretrained: the local model store, never a download ------------------------------------------
def test_pretrained_missing_file_names_the_expected_file(tmp_path):
    with pytest.raises(LoadError) as err:
        vision.get_model("squeezenet1.1", pretrained=True, root=str(tmp_path))
    message = str(err.value)
    assert str(tmp_path / "squeezenet1.1-33ba0f93.params") in message
    assert "not found" in message and "does not download" in message


def test_pretrained_file_with_wrong_checksum_is_refused(tmp_path):
    (tmp_path / "alexnet-44335d1f.params").write_bytes(b"not the model")
    with pytest.raises(LoadError, match="does not match its checksum 44335d1f0046b328243b32a26a4fbd62d9057b45"):
        vision.alexnet(pretrained=True, root=str(tmp_path))


def test_pretrained_loads_the_checksummed_local_file(tmp_path, monkeypatch):
    """A store file whose sha1 is the table's entry is loaded into the new network."""
    src = vision.squeezenet1_1()
    src.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.default_rng(2).uniform(0, 1, (1, 3, 224, 224)).astype(np.float32))
    y = src(x).asnumpy()
    staged = tmp_path / "staged.params"
    src.save_parameters(str(staged))
    sha1 = hashlib.sha1(staged.read_bytes()).hexdigest()
    monkeypatch.setitem(model_store._model_sha1, "squeezenet1.1", sha1)
    staged.rename(tmp_path / "squeezenet1.1-{}.params".format(sha1[:8]))
    net = vision.get_model("squeezenet1.1", pretrained=True, root=str(tmp_path))
    np.testing.assert_array_equal(net(x).asnumpy(), y)


# -- the 14 shared fixtures: MXNet's outputs, exported graphs and parameter names ----------------
def _recipe():
    spec = importlib.util.spec_from_file_location("params_recipe", FIXTURES / "params_recipe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.recipe


class _Recipe(mx.init.Initializer):
    """Fills a parameter with ``params_recipe`` values for its structural name."""

    def __init__(self, recipe, structural_name: str):
        super().__init__()
        self._recipe, self._name = recipe, structural_name

    def _init_weight(self, desc, arr):    # called for any name: Parameter.initialize(init=...) wins
        arr[:] = self._recipe(self._name, arr.shape)


# the order generate.py built them in (automatic prefixes such as ``resnetv10_`` depend on it)
ZOO_ORDER = ["resnet18_v1", "resnet18_v2", "resnet50_v1", "resnet50_v2", "mobilenet0.25", "mobilenet1.0",
             "mobilenetv2_0.25", "mobilenetv2_1.0", "squeezenet1.0", "squeezenet1.1", "densenet121", "inceptionv3",
             "alexnet", "vgg11_bn"]


# vgg11_bn's 133M parameters cost the suite ~8 s to fill and run here; tests/runtime/test_models.py
# checks its numbers from MXNet's exported files, and its graph is still compared here
NUMBERS_SLOW_ONLY = {"vgg11_bn"}


@pytest.fixture(scope="module")
def fixture_nets():
    """The 14 networks constructed (not initialized) in generate.py's order, the seed nets first."""
    require_shared()
    nets = {}
    with mx.name.NameManager() as names:
        for hint in ["dense"] * 5 + ["hybridsequential", "hybridnet"]:
            names.get(None, hint)
        for model in ZOO_ORDER:
            nets[model] = vision.get_model(model)
    return nets


@pytest.mark.parametrize("model", ZOO_ORDER)
def test_fixture_model_equals_mxnet(fixture_nets, model):
    """The traced graph is MXNet's exported ``model-symbol.json`` (node for node, attributes and
    names), structural names are MXNet's, and with parameters from params_recipe.py the hybridized
    output equals MXNet's ``y``."""
    net = fixture_nets.pop(model)          # each network is used once: memory goes with it
    recipe = _recipe()
    io = np.load(MODELS / model / "io.npz")
    names_json = json.loads((MODELS / model / "names.json").read_text())
    assert {k: p.name for k, p in net._collect_params_with_prefix().items()} == names_json
    ours = json.loads(net(mx.sym.var("data")).tojson())
    theirs = json.loads((MODELS / model / "model-symbol.json").read_text())

    assert ours == theirs
    if model in NUMBERS_SLOW_ONLY and os.environ.get("HYBRIDIZE_SLOW") != "1":
        return
    for sname, p in net._collect_params_with_prefix().items():
        p.initialize(init=_Recipe(recipe, sname))    # one pass at the deferred shapes, no random init first
    net.hybridize()
    y = net(mx.nd.array(io["x"])).asnumpy()
    scale = float(np.abs(io["y"]).max())
    np.testing.assert_allclose(y, io["y"], rtol=1e-3, atol=1e-4 * scale)


@pytest.mark.parametrize("model", ["mobilenet0.25", "squeezenet1.1"])
def test_fixture_model_imperative_equals_mxnet(tmp_path, model):
    """Not hybridized: MXNet's ``y_imperative``."""
    require_shared()
    recipe = _recipe()
    io = np.load(MODELS / model / "io.npz")
    net = vision.get_model(model)
    net.initialize()
    x = mx.nd.array(io["x"])
    net(x)
    for sname, p in net._collect_params_with_prefix().items():
        p.set_data(mx.nd.array(recipe(sname, p.shape)))
    scale = float(np.abs(io["y"]).max())
    np.testing.assert_allclose(net(x).asnumpy(), io["y_imperative"], rtol=1e-3, atol=1e-4 * scale)
