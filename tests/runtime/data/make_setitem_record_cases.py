"""Records which ``x[key] = y`` MXNet 1.9.1 refuses while recording (a part assignment of an array
that needs a gradient is an op whose output is its own input), and a sequence assigned to one
element, for ``tests/runtime/test_setitem_recording.py``. Run by hand with real MXNet 1.9.1::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_setitem_record_cases.py
"""
from __future__ import annotations

import json
import os

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__
HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ["0", "(1, 2)", "slice(1, 3)", "(slice(None), 1)", "slice(None)", "Ellipsis", "None", "(slice(None), slice(None))"]
cases = []
for key in KEYS:
    for needs_grad in (True, False):
        x = mx.nd.ones((3, 4))
        y = mx.nd.random.uniform(shape=x[eval(key)].shape)  # noqa: S307  (the fixed keys above)
        if needs_grad:
            y.attach_grad()
        try:
            with mx.autograd.record():
                x[eval(key)] = y  # noqa: S307
            raised = False
        except mx.MXNetError as e:
            raised = "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording" in str(e)
        cases.append({"key": key, "needs_grad": needs_grad, "raises": raised})
x = mx.nd.zeros((2, 3), dtype="int32")
x[1, 2] = [7]
with open(os.path.join(HERE, "setitem_record_cases.json"), "w") as f:
    json.dump({"recording": cases, "sequence_into_element": x.asnumpy().tolist()}, f, indent=0)
print(cases)
