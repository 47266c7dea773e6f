"""Records the size of ``Executor.get_optimized_symbol()`` in MXNet 1.9.1 with common-expression
elimination on and off (``MXNET_ELIMINATE_COMMON_EXPR`` at bind time), for
``tests/runtime/test_optimized_symbol.py``. Run by hand with real MXNet 1.9.1::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_optimized_symbol_cases.py
"""
from __future__ import annotations

import json
import os

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__
HERE = os.path.dirname(os.path.abspath(__file__))
SYMBOLS = ["(a + 1) + (a + 2)", "(a + b) + (a + b)", "((a + b) + c) + ((a + b) + c)",
           "mx.sym.Group([a * (a + 1), a * (a + 1)])", "mx.sym.Group([a * (a + 1) + b, a * (a + 1) + b])",
           "mx.sym.Dropout(a) + mx.sym.Dropout(a)", "mx.sym.exp(a) * mx.sym.exp(a) + mx.sym.exp(b)"]
a, b, c = mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c")
cases = []
for text in SYMBOLS:
    sym = eval(text)  # noqa: S307  (the fixed expressions above)
    sizes = {}
    for flag in ("0", "1"):
        os.environ["MXNET_ELIMINATE_COMMON_EXPR"] = flag
        ex = sym.simple_bind(mx.cpu(), **{n: (2, 3) for n in sym.list_inputs()})
        sizes[flag] = len(ex.get_optimized_symbol().get_internals())
    cases.append({"symbol": text, "internals_without_cse": sizes["0"], "internals_with_cse": sizes["1"]})
with open(os.path.join(HERE, "optimized_symbol_cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(cases)
