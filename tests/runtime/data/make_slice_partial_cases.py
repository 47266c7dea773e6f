"""Records MXNet 1.9.1's partial shape inference through ``slice`` and ``slice_axis`` (an input with
unknown dimensions: 0 in legacy shapes, -1 with numpy shape semantics) for
``tests/runtime/test_slice_partial_infer.py``. Run by hand with real MXNet 1.9.1::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_slice_partial_cases.py
"""
from __future__ import annotations

import json
import os

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__
HERE = os.path.dirname(os.path.abspath(__file__))
SLICES = [((None, None), (None, 10), ()), ((None, None), (None, 10), (None, 2)), ((None, 3), (5, 10), ()),
          ((2, 3), (None, 10), (3, 3)), ((1,), (3,), ())]
AXES = [(0, 0, 5), (1, 0, 5), (1, 2, None), (0, -3, -1)]
cases = []
for np_shape, shapes in ((False, [(0, 20), (10, 0), (0, 0)]), (True, [(-1, 20), (10, -1), (-1, -1)])):
    with mx.np_shape(np_shape):
        for shape in shapes:
            data = mx.sym.var("data", shape=shape)
            for begin, end, step in SLICES:
                out = mx.sym.slice(data, begin=begin, end=end, step=step).infer_shape_partial()[1][0]
                cases.append({"np_shape": np_shape, "shape": shape, "op": "slice",
                              "kwargs": {"begin": begin, "end": end, "step": step}, "out": list(out)})
            for axis, begin, end in AXES:
                out = mx.sym.slice_axis(data, axis=axis, begin=begin, end=end).infer_shape_partial()[1][0]
                cases.append({"np_shape": np_shape, "shape": shape, "op": "slice_axis",
                              "kwargs": {"axis": axis, "begin": begin, "end": end}, "out": list(out)})
with open(os.path.join(HERE, "slice_partial_cases.json"), "w") as f:
    json.dump(cases, f, indent=0)
print(len(cases), "cases")
