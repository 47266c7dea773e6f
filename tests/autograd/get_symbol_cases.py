"""What ``autograd.get_symbol`` shows of recorded calls that are not single operators: a hybridized
block (MXNet's CachedOp: one ``_CachedOp`` node, or its operators one by one when the graph has at
most ``inline_limit`` of them and ``static_alloc`` is off) and an ``autograd.Function``
(``_CustomFunction``). One module for both sides: ``tools/record_get_symbol.py`` runs it under MXNet
1.9.1 (``fixtures/get_symbol.json``), ``test_get_symbol.py`` under the runtime, each given its ``mx``."""
from __future__ import annotations

import json
from typing import Any


def _ops(mx: Any, y: Any) -> list[str]:
    return [n["op"] for n in json.loads(mx.autograd.get_symbol(y).tojson())["nodes"]]


def _dense3(mx: Any) -> Any:
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        for _ in range(3):
            net.add(mx.gluon.nn.Dense(4))
    net.initialize()
    return net


def _dense_relu(mx: Any) -> Any:
    class DenseRelu(mx.gluon.HybridBlock):
        def __init__(self) -> None:
            super().__init__()
            with self.name_scope():
                self.fc = mx.gluon.nn.Dense(4)

        def hybrid_forward(self, F: Any, x: Any) -> Any:
            return F.relu(self.fc(x))
    net = DenseRelu()
    net.initialize()
    return net


def _hybridized(mx: Any, make: Any, **flags: Any) -> list[str]:
    net = make(mx)
    net.hybridize(**flags)
    with mx.autograd.record():
        y = net(mx.nd.ones((2, 3)))
    ops = _ops(mx, y)
    y.backward()
    return ops


def _function(mx: Any) -> list[str]:
    class MulAdd(mx.autograd.Function):
        def forward(self, x: Any, y: Any) -> Any:
            return x * y, x + y

        def backward(self, da: Any, db: Any) -> Any:
            return da + db, da + db
    x, y = mx.nd.ones((2,)), mx.nd.ones((2,))
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        a, b = MulAdd()(x, y)
        c = mx.nd.elemwise_add(a, b)
    return _ops(mx, c)


def cases(mx: Any) -> dict[str, list[str]]:
    """case name -> the ops of the recorded symbol's nodes, in MXNet's JSON order (``null``: a variable)."""
    return {
        "dense3_inline_limit_3": _hybridized(mx, _dense3, inline_limit=3),
        "dense3_inline_limit_0": _hybridized(mx, _dense3, inline_limit=0),
        "dense3_default": _hybridized(mx, _dense3),
        "dense3_inline_limit_10_static_alloc": _hybridized(mx, _dense3, inline_limit=10, static_alloc=True),
        "dense_relu_default": _hybridized(mx, _dense_relu),
        "dense_relu_inline_limit_1": _hybridized(mx, _dense_relu, inline_limit=1),
        "function_two_outputs": _function(mx),
    }
