"""Every pass keeps outputs equal to the unoptimized graph on the model fixtures.

For each model, the reference interpreter's output is compared with programs compiled with the
pipeline's passes enabled stage by stage (no pass; identity + cse + constant_fold; + bn_fold;
+ layout; + fuse + dce = the default pipeline), so a pass that breaks a model is named by the
first failing stage (each pass also has its own unit tests in test_passes.py).
Small inputs where the network allows them (global pooling), the fixture's size otherwise.
The unoptimized graph's output is the reference interpreter's at the small sizes; at the fixture's
size it is the program compiled with no pass, checked against MXNet's recorded output for the
fixture's input (running the interpreter there too would cost Inception v3 a third of its test;
tests/runtime/test_models.py checks the interpreter against MXNet on every fixture).

Default: 8 representative models (MLPs, ResNet v1 and v2, MobileNet v1 and v2, SqueezeNet,
Inception v3: concatenation, asymmetric kernels, average pooling, BatchNorm); ``HYBRIDIZE_SLOW=1``
runs all 16 (DenseNet's operators are Inception's, at 14 s of the suite's time).
"""
import os

import numpy as np
import pytest

from support import require_shared
from model_support import io, meta, model_dir, recipe_params, tolerance

from hybridize.runtime.graph import mxnet_json
from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.interpret import evaluate
from hybridize.runtime.graph.passes import all_passes

DEFAULT = ["seed_mlp", "seed_hybridnet", "resnet18_v1", "resnet50_v2", "mobilenet0.25", "mobilenetv2_1.0",
           "squeezenet1.1", "inceptionv3"]
ALL = ["alexnet", "densenet121", "inceptionv3", "mobilenet0.25", "mobilenet1.0", "mobilenetv2_0.25",
       "mobilenetv2_1.0", "resnet18_v1", "resnet18_v2", "resnet50_v1", "resnet50_v2", "seed_hybridnet", "seed_mlp",
       "squeezenet1.0", "squeezenet1.1", "vgg11_bn"]
MODELS = ALL if os.environ.get("HYBRIDIZE_SLOW") == "1" else DEFAULT
SMALL = {"resnet18_v1", "resnet18_v2", "resnet50_v1", "resnet50_v2", "mobilenet0.25", "mobilenet1.0",
         "mobilenetv2_0.25", "mobilenetv2_1.0"}


def _input_shape(name: str) -> tuple:
    full = tuple(meta(name)["input_shape"])
    if name in SMALL:
        return (2, 3, 40, 40)
    if len(full) == 4:
        return (1,) + full[1:]
    return (2,) + full[1:]


@pytest.mark.parametrize("name", MODELS)
def test_each_pass_keeps_outputs(name):
    require_shared()
    g = mxnet_json.load(model_dir(name) / "model-symbol.json")
    params = recipe_params(name)
    inputs = [n.name for n in g.variables() if n.name not in params]
    shape = _input_shape(name)
    if name in SMALL:
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        (ref,) = evaluate(g, {**params, inputs[0]: x})
    else:  # the fixture's input (its first rows): MXNet's output is known
        recorded = io(name)
        x, mxnet_y = recorded["x"][:shape[0]], recorded["y"][:shape[0]]
        (ref,) = compile_graph(g, input_names=inputs, shapes={inputs[0]: shape}, params=params, passes=[])(x)
        np.testing.assert_allclose(ref, mxnet_y, **tolerance(name, mxnet_y))
    tol = {"rtol": 1e-4, "atol": 1e-5 * max(1.0, float(np.abs(ref).max()))}
    names = [p.name for p in all_passes() if p.default]
    stages = [["identity", "cse", "constant_fold"], ["bn_fold"], ["pool_first"], ["layout"]]
    prefixes = [[]] + [sum(stages[:i + 1], []) for i in range(len(stages))] + [names]
    for passes in prefixes[0 if name in SMALL else 1:]:
        prog = compile_graph(g, input_names=inputs, shapes={inputs[0]: shape}, params=params, passes=passes)
        (y,) = prog(x)
        try:
            np.testing.assert_allclose(y, ref, **tol)
        except AssertionError as e:
            raise AssertionError(f"{name}: outputs change with passes {passes}: {e}") from None
    # the default pipeline is the last prefix; the graph it produced is really lowered
    if name not in ("seed_mlp", "seed_hybridnet"):
        assert prog.stats["layout"], prog.stats
        ops = {n.op.name for n in prog.graph.nodes if n.op is not None}
        assert "Convolution" not in ops and "BatchNorm" not in ops, ops
