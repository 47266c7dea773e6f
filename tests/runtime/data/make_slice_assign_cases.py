"""Records MXNet 1.9.1's ``_slice_assign`` / ``_slice_assign_scalar`` (what the HY003 conversion
emits for ``t[key] = v``) for ``tests/runtime/test_slice_assign.py``. Run by hand with a Python that
has real MXNet 1.9.1 (CI has none and never runs this)::

    /work/mxnet-venv/bin/python tests/runtime/data/make_slice_assign_cases.py

Writes ``slice_assign_cases.json`` next to this file: per case the function, its keyword
attributes (lists stand for tuples), the inputs and output (small float32 arrays as nested lists),
and the attribute strings MXNet's ``tojson()`` wrote.
"""
from __future__ import annotations

import json
import os

import numpy as np

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []


def record(case, func, inputs, **kwargs):
    inputs = [np.asarray(x, dtype=np.float32) for x in inputs]
    out = getattr(mx.nd._internal, func)(*[mx.nd.array(x) for x in inputs], **kwargs).asnumpy()
    names = ["lhs", "rhs"] if func == "_slice_assign" else ["data"]
    s = getattr(mx.sym._internal, func)(*[mx.sym.var(n) for n in names[:len(inputs)]], **kwargs)
    attrs = json.loads(s.tojson())["nodes"][-1].get("attrs", {})
    CASES.append({"case": case, "func": func, "kwargs": {k: list(v) if isinstance(v, tuple) else v
                                                          for k, v in kwargs.items()},
                  "inputs": [x.tolist() for x in inputs], "output": out.tolist(), "json_attrs": attrs})


x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
record("scalar_row", "_slice_assign_scalar", [x], scalar=-1.0, begin=(0,), end=(1,))
record("scalar_column_open_bounds", "_slice_assign_scalar", [x], scalar=7.5, begin=(None, 1), end=(None, None))
record("scalar_negative_step", "_slice_assign_scalar", [x], scalar=2.0, begin=(None, None, -1), end=(None, None, 0),
       step=(None, None, -2))
record("scalar_clamped_end", "_slice_assign_scalar", [x], scalar=0.5, begin=(1, 1), end=(100, 100))
record("tensor_block", "_slice_assign", [x, -np.ones((2, 1, 2))], begin=(None, 2, 1), end=(None, 3, 3))
record("tensor_stepped", "_slice_assign", [x, np.zeros((1, 2, 4))], begin=(-1, None), end=(None, None),
       step=(None, 2))
record("tensor_reversed", "_slice_assign", [x, np.arange(12).reshape(2, 3, 2) / 10.0],
       begin=(None, None, None), end=(None, None, None), step=(-1, None, 2))

with open(os.path.join(HERE, "slice_assign_cases.json"), "w", encoding="utf-8") as f:
    f.write('{"mxnet_version": "%s", "cases": [\n' % mx.__version__)
    f.write(",\n".join(json.dumps(c, sort_keys=True) for c in CASES))
    f.write("\n]}\n")
