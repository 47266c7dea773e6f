"""Record MXNet 1.9.1's hybridized np-mode blocks on zero-dim and zero-size inputs (MXNet venv, not
the suite).

    /tmp/mxnet-venv/bin/python tools/numpy_zero/record.py

Writes tests/numpy/fixtures/np_zero_shapes.npz: for every case of tests/numpy/np_zero_cases.py the
output of the hybridized block (``<case>``, the dtype and shape are the array's), called twice as
MXNet's CachedOp is; and for ``Dense(3)`` without ``in_units`` on a (0, 4) batch its weight's shape
(``dense/weight_shape``) and output (``dense/y``); ``x.dot(w)`` with ``w`` deferred (``dot/``); a
block returning a product and a comparison, recorded, the product's backward (``compare/``).
"""
from __future__ import annotations

import os
import sys

import mxnet as mx
import numpy as onp
from mxnet import np, npx
from mxnet.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "numpy"))
from np_zero_cases import CASES, block, compare_block, dense_block, dot_block, inputs  # noqa: E402
from mxnet import autograd  # noqa: E402

npx.set_np()


def main() -> None:
    out = {}
    for name, (body, shapes) in CASES.items():
        net = block(nn, body)
        net.hybridize()
        xs = [np.array(x) for x in inputs(shapes)]
        net(*xs)
        y = net(*xs)
        if isinstance(y, (list, tuple)):
            for i, yi in enumerate(y):
                out[f"{name}/{i}"] = yi.asnumpy()
        else:
            out[name] = y.asnumpy()
    mx.random.seed(0)
    net = dense_block(nn)
    net.initialize(mx.init.Constant(0.5))
    net.hybridize()
    y = net(np.zeros((0, 4)))
    out["dense/weight_shape"] = onp.array(net[0].weight.shape)
    out["dense/y"] = y.asnumpy()
    net = dot_block(nn)
    net.initialize(mx.init.Constant(0.25))
    net.hybridize()
    x, = inputs([(4, 3)])
    out["dot/y"] = net(np.array(x)).asnumpy()
    out["dot/w_shape"] = onp.array(net.w.shape)
    net = compare_block(nn)
    net.hybridize()
    x, y = (np.array(v) for v in inputs([(2, 3), (2, 3)]))
    x.attach_grad()
    with autograd.record():
        prod, greater = net(x, y)
    prod.backward()
    out["compare/greater"] = greater.asnumpy()
    out["compare/x_grad"] = x.grad.asnumpy()
    onp.savez(os.path.join(REPO, "tests", "numpy", "fixtures", "np_zero_shapes.npz"), **out)
    print(f"{len(out)} arrays")


if __name__ == "__main__":
    main()
