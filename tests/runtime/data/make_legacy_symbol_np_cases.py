"""Records how MXNet 1.9.1 reads a symbol file saved without numpy shape semantics (a variable's
``__shape__`` with a 0, "unknown") when numpy shape semantics are on, for
``tests/runtime/test_symbol_shape_semantics.py``. Run by hand with real MXNet 1.9.1::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_legacy_symbol_np_cases.py

Writes ``legacy_symbol_np_cases.json`` next to this file.
"""
from __future__ import annotations

import json
import os
import tempfile

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__
HERE = os.path.dirname(os.path.abspath(__file__))

weight = mx.sym.var("weight", shape=(8, 0))
net = mx.sym.FullyConnected(mx.sym.var("data"), weight, num_hidden=8)
text = net.tojson()
out = {"json": text, "loads": []}
for np_shape in (False, True):
    with tempfile.TemporaryDirectory() as tmp:
        fname = os.path.join(tmp, "net.json")
        with open(fname, "w") as f:
            f.write(text)
        with mx.np_shape(np_shape):
            arg, outs, aux = mx.sym.load(fname).infer_shape(data=(2, 5))
            out["loads"].append({"np_shape": np_shape, "arg_shapes": [list(s) for s in arg],
                                 "out_shapes": [list(s) for s in outs],
                                 "saved_again_has_flag": "is_np_shape" in json.loads(mx.sym.load(fname).tojson())["attrs"]})
with open(os.path.join(HERE, "legacy_symbol_np_cases.json"), "w") as f:
    json.dump(out, f, indent=1)
print(out["loads"])
