"""Records MXNet 1.9.1's foreach: an exported hybridized block (symbol JSON with a _foreach subgraph,
params) and its outputs. Run with an MXNet venv: python mk2.py OUTDIR"""
import sys
import os
import numpy as np
import mxnet as mx
from mxnet.gluon import nn
out = sys.argv[1]
class Net(nn.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.dense = nn.Dense(4, flatten=False)
            self.extra_bias = self.params.get("extra_bias", shape=(4,), init=mx.init.Normal(0.5))
    def hybrid_forward(self, F, x, h, c, extra_bias):
        outer = F.relu(c) * 0.5                  # computed outside, read inside: a cut input
        def step(data, states):
            h_prev, n = states
            s = F.tanh(F.broadcast_add(self.dense(data) + h_prev + outer, extra_bias))
            return [s * 2, F.broadcast_add(s, n)], [s, n + 1]
        outs, states = F.contrib.foreach(step, x, [h, F.zeros((1,))])
        return outs[0], outs[1], states[0], states[1]
mx.random.seed(0)
net = Net(prefix="fe_"); net.initialize(mx.init.Normal(0.5))
rng = np.random.default_rng(0)
x = rng.standard_normal((5, 2, 3)).astype(np.float32)
h = rng.standard_normal((2, 4)).astype(np.float32)
c = rng.standard_normal((2, 4)).astype(np.float32)
net.hybridize()
ys = net(mx.nd.array(x), mx.nd.array(h), mx.nd.array(c))
os.makedirs(out, exist_ok=True)
net.export(os.path.join(out, "foreach"))
np.savez(os.path.join(out, "foreach-io.npz"), x=x, h=h, c=c, **{f"y{i}": y.asnumpy() for i, y in enumerate(ys)})
print("ok", mx.__version__, [y.shape for y in ys])
