"""Records MXNet 1.9.1's ``mx.nd.CachedOp``: outputs of a small symbol called on NDArrays (one and
two outputs, ``out=``) and the gradients recorded through it, for
``tests/runtime/test_cached_op.py``. Run by hand with real MXNet 1.9.1::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_cached_op_cases.py
"""
from __future__ import annotations

import os

import numpy as np

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(3)
x, w, b = (rng.uniform(-1, 1, s).astype(np.float32) for s in ((2, 3, 5, 5), (4, 3, 3, 3), (4,)))
sym = mx.sym.Convolution(kernel=(3, 3), num_filter=4) * 2 + 1
a = mx.sym.var("a")
two = mx.sym.Group([mx.sym.relu(a), a * mx.sym.var("c")])
op, op2 = mx.nd.CachedOp(sym), mx.nd.CachedOp(two)
data, weight, bias = mx.nd.array(x), mx.nd.array(w), mx.nd.array(b)
y = op(data, weight, bias)
weight.attach_grad()
bias.attach_grad()
with mx.autograd.record():
    z = (op(data, weight, bias) ** 2).sum()
z.backward()
r, p = op2(mx.nd.array(x[0]), mx.nd.array(x[1]))
np.savez_compressed(os.path.join(HERE, "cached_op_cases.npz"), x=x, w=w, b=b, y=y.asnumpy(),
                    dweight=weight.grad.asnumpy(), dbias=bias.grad.asnumpy(), relu=r.asnumpy(), prod=p.asnumpy(),
                    inputs=np.array(sym.list_inputs()), inputs2=np.array(two.list_inputs()))
print(sym.list_inputs(), two.list_inputs())
