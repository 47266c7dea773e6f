"""MXNet's own model-zoo source (../shared/corpus, unmodified) runs on our Gluon and exports what MXNet exported.

The corpus package is mounted as ``hybridize.runtime.gluon.model_zoo`` so that its relative
imports (``from ...block import HybridBlock``) resolve to our modules, as the transpiler's
import mapping does.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import types

import numpy as np
import pytest

from support import CORPUS, FIXTURES, require_shared

import hybridize.runtime as mx

MODELS = FIXTURES / "models"


@pytest.fixture(scope="module")
def vision():
    require_shared()
    name = "hybridize.runtime.gluon.model_zoo"
    saved = {k: v for k, v in sys.modules.items() if k == name or k.startswith(name + ".")}
    mod = types.ModuleType(name)
    mod.__path__ = [str(CORPUS / "mxnet" / "gluon" / "model_zoo")]
    sys.modules[name] = mod
    try:
        yield importlib.import_module(name + ".vision")
    finally:
        for k in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[k]
        sys.modules.update(saved)


def _recipe():
    spec = importlib.util.spec_from_file_location("params_recipe", FIXTURES / "params_recipe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.recipe


# model, names taken before it in generate.py's process (so that prefixes match)
CASES = [("mobilenet0.25", []), ("mobilenetv2_0.25", []), ("squeezenet1.1", ["squeezenet"])]


@pytest.mark.parametrize("model,taken", CASES, ids=[c[0] for c in CASES])
def test_corpus_zoo_model_matches_mxnet(vision, tmp_path, model, taken):
    recipe = _recipe()
    io = np.load(MODELS / model / "io.npz")
    with mx.name.NameManager() as names:
        for hint in taken:
            names.get(None, hint)
        net = vision.get_model(model)
        net.initialize()
        x = mx.nd.array(io["x"])
        net(x)
        for sname, p in net._collect_params_with_prefix().items():
            p.set_data(mx.nd.array(recipe(sname, p.shape)))
        y_imp = net(x).asnumpy()
        net.hybridize()
        y = net(x).asnumpy()
    scale = float(np.abs(io["y"]).max())
    np.testing.assert_allclose(y_imp, io["y_imperative"], rtol=1e-3, atol=1e-4 * scale)
    np.testing.assert_allclose(y, io["y"], rtol=1e-3, atol=1e-4 * scale)
    prefix = str(tmp_path / "model")
    net.export(prefix)
    ours = json.loads(open(prefix + "-symbol.json").read())
    theirs = json.loads((MODELS / model / "model-symbol.json").read_text())
    assert ours == theirs
    names_json = json.loads((MODELS / model / "names.json").read_text())
    assert {k: p.name for k, p in net._collect_params_with_prefix().items()} == names_json


ZOO_ORDER = ["resnet18_v1", "resnet18_v2", "resnet50_v1", "resnet50_v2", "mobilenet0.25", "mobilenet1.0",
             "mobilenetv2_0.25", "mobilenetv2_1.0", "squeezenet1.0", "squeezenet1.1", "densenet121", "inceptionv3",
             "alexnet", "vgg11_bn"]


def test_all_zoo_graphs_equal_mxnet_exports(vision):
    """All 14 zoo networks, built in generate.py's order (so that prefixes match), traced with a
    Symbol input: every operator node (op, name, attrs) equals MXNet's model-symbol.json."""
    with mx.name.NameManager() as names:
        for hint in ["dense"] * 5 + ["hybridsequential", "hybridnet"]:   # the seed nets came first
            names.get(None, hint)
        for model in ZOO_ORDER:
            net = vision.get_model(model)
            out = net(mx.sym.var("data"))
            ours = json.loads(out.tojson())
            theirs = json.loads((MODELS / model / "model-symbol.json").read_text())

            def ops(doc):
                return [(n["op"], n["name"], n.get("attrs"), n["inputs"]) for n in doc["nodes"] if n["op"] != "null"]
            assert ops(ours) == ops(theirs), model
            assert [n["name"] for n in ours["nodes"]] == [n["name"] for n in theirs["nodes"]], model
