"""Records MXNet 1.9.1's while_loop and cond inside hybridized blocks: exported symbol JSON,
params and outputs. Run with an MXNet venv: python make_control_flow_cases.py OUTDIR"""
import sys
import os
import numpy as np
import mxnet as mx
from mxnet.gluon import nn
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
class Loop(nn.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.dense = nn.Dense(3, in_units=3, flatten=False)
    def hybrid_forward(self, F, x, limit):
        scale = F.sigmoid(limit)                         # computed outside, read in both subgraphs
        def cond(i, s):
            return F.broadcast_lesser(i, limit).sum() > 0
        def func(i, s):
            s2 = F.broadcast_mul(F.tanh(self.dense(s)), scale)
            return [s2, s2.sum(axis=1)], [i + 1, s2]
        outs, (i, s) = F.contrib.while_loop(cond, func, [F.zeros((1,)), x], max_iterations=6)
        return outs[0], outs[1], i, s
class Branch(nn.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.dense = nn.Dense(3, in_units=3, flatten=False)
    def hybrid_forward(self, F, x, p):
        y = F.relu(x)
        out = F.contrib.cond(p.sum() > 0, lambda: [self.dense(y) * 2, y + 1], lambda: [F.tanh(x) - y, x * 3])
        return out[0], out[1]
rng = np.random.default_rng(0)
x = rng.standard_normal((2, 3)).astype(np.float32)
arrays = {"x": x}
mx.random.seed(0)
loop = Loop(prefix="wl_"); loop.initialize(mx.init.Normal(0.5)); loop.hybridize()
for tag, limit in (("a", 3.0), ("b", 9.0)):              # 3 steps; the 6-step cap
    ys = loop(mx.nd.array(x), mx.nd.array([limit]))
    arrays.update({f"loop_{tag}_limit": np.array([limit], np.float32)})
    arrays.update({f"loop_{tag}_y{i}": y.asnumpy() for i, y in enumerate(ys)})
loop.export(os.path.join(out, "while_loop"))
branch = Branch(prefix="cd_"); branch.initialize(mx.init.Normal(0.5)); branch.hybridize()
for tag, p in (("then", 1.0), ("else", -1.0)):
    ys = branch(mx.nd.array(x), mx.nd.array([p]))
    arrays.update({f"cond_{tag}_p": np.array([p], np.float32)})
    arrays.update({f"cond_{tag}_y{i}": y.asnumpy() for i, y in enumerate(ys)})
branch.export(os.path.join(out, "cond"))
np.savez(os.path.join(out, "control-flow-io.npz"), **arrays)
print("ok", mx.__version__)
