"""gluon-ts 0.8's Binned distribution: quantile() loops with F.contrib.foreach (an output made
outside the body, int32 state); imperative vs hybridized, on our runtime or real MXNet.

    python tools/realworld/binned_quantile.py ours
    $RW_MXNET_PYTHON tools/realworld/binned_quantile.py mxnet

Prints both runs' results; outputs in /tmp/binned-MODE.npz. Needs the gluonts source of README.md."""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

for _n, _t in (("int", int), ("float", float), ("bool", bool), ("object", object)):
    if not hasattr(np, _n):
        setattr(np, _n, _t)
import run  # noqa: E402
from specs import SPECS  # noqa: E402

mode = sys.argv[1]
spec = next(s for s in SPECS if s["name"] == "gluonts.DeepARTrainingNetwork")
run.setup(mode, spec)
binned = importlib.import_module("gluonts.mx.distribution.binned")
import mxnet as mx  # noqa: E402
from mxnet.gluon import HybridBlock  # noqa: E402


class Quantiles(HybridBlock):
    def hybrid_forward(self, F, logits, centers, levels):
        return binned.Binned(F.log_softmax(logits), centers).quantile(levels)


rng = np.random.default_rng(0)
logits = mx.nd.array(rng.standard_normal((3, 8)).astype(np.float32))
centers = mx.nd.array(np.tile(np.linspace(-2, 2, 8, dtype=np.float32), (3, 1)))
levels = mx.nd.array(np.array([0.1, 0.5, 0.9], np.float32))
net = Quantiles()
imperative = net(logits, centers, levels).asnumpy()
net.hybridize()
hybridized = net(logits, centers, levels).asnumpy()
np.savez(f"/tmp/binned-{mode}.npz", imperative=imperative, hybridized=hybridized)
print(mode, "imperative == hybridized:", np.array_equal(imperative, hybridized), hybridized.tolist())
