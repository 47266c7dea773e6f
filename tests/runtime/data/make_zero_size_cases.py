"""Records which calls MXNet 1.9.1 refuses on zero-size and 0-d shapes (its legacy shape semantics
read a 0 dimension, and ndim 0, as unknown) and which it runs, with and without numpy shape
semantics, for ``tests/runtime/test_zero_size_semantics.py``. Run by hand with a Python that has
real MXNet 1.9.1::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_zero_size_cases.py

Writes ``zero_size_cases.json`` next to this file: each call (a Python expression over ``mx`` and
``np``), the shape semantics it ran in, and whether it raised MXNetError or the result's shape.
"""
from __future__ import annotations

import json
import os
import tempfile

import numpy as np

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CALLS = [
    "mx.nd.zeros(())", "mx.nd.ones(())", "mx.nd.zeros((5, 0))", "mx.nd.ones((0, 1, 3, 0))", "mx.nd.zeros((2, 3))",
    "mx.nd.zeros((5, 0)).min()", "mx.nd.zeros((5, 0)).max()", "mx.nd.max(mx.nd.zeros((0, 3)), axis=1)",
    "mx.nd.min_axis(mx.nd.zeros((0, 3)), axis=0)", "mx.nd.zeros((5, 0)).sum()",
    "mx.nd.tile(mx.nd.ones((2, 2)), (1, 0))", "mx.nd.tile(mx.nd.ones((2, 2)), (1, 2, -3))",
    "mx.nd.tile(mx.nd.ones((2, 2)), (2, 1))",
    "mx.nd.depth_to_space(mx.nd.array(np.zeros((1, 4, 0, 3))), 2)",
    "mx.nd.space_to_depth(mx.nd.array(np.zeros((1, 1, 0, 4))), 2)",
    "mx.nd.depth_to_space(mx.nd.ones((1, 4, 2, 3)), 2)", "mx.nd.space_to_depth(mx.nd.ones((1, 1, 2, 4)), 2)",
]
SAVE_LOAD = [(False, False), (True, False), (False, True), (True, True)]


def run(expr: str) -> dict:
    try:
        out = eval(expr)  # noqa: S307  (the fixed expressions above)
        out.wait_to_read()
        return {"raises": False, "shape": list(out.shape)}
    except mx.MXNetError:
        return {"raises": True}


cases = []
for np_shape in (False, True):
    for expr in CALLS:
        with mx.np_shape(np_shape):
            cases.append({"call": expr, "np_shape": np_shape, **run(expr)})
save_load = []
for save_np, load_np in SAVE_LOAD:
    with tempfile.TemporaryDirectory() as tmp:
        fname = os.path.join(tmp, "arrays")
        with mx.np_shape(save_np):
            mx.nd.save(fname, [mx.nd.array(np.ones((2, 0, 1))), mx.nd.array(np.ones((2, 1)))])
        with mx.np_shape(load_np):
            try:
                shapes = [list(a.shape) for a in mx.nd.load(fname)]
                save_load.append({"save_np_shape": save_np, "load_np_shape": load_np, "raises": False,
                                  "shapes": shapes})
            except mx.MXNetError:
                save_load.append({"save_np_shape": save_np, "load_np_shape": load_np, "raises": True})
with open(os.path.join(HERE, "zero_size_cases.json"), "w") as f:
    json.dump({"calls": cases, "save_load": save_load}, f, indent=1)
print(len(cases), "calls,", len(save_load), "save/load cases")
