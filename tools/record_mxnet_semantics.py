"""Records MXNet 1.9.1's numbers for semantic corners its unit tests reach, for
``tests/runtime/test_mxnet_semantics.py``: activations at NaN (oneDNN's float32 kernels against the
native ones), ``arange(infer_range=True)`` in a graph, and float32 ``exp``/``log`` on a sample.

Run with the MXNet 1.9.1 interpreter (never by the test suite)::

    /tmp/mxnet-venv/bin/python tools/record_mxnet_semantics.py

Writes ``tests/runtime/fixtures/mxnet_semantics.npz`` (``<case>/<name>`` keys; ``meta`` is a JSON
string describing each case).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "runtime" / "fixtures" / "mxnet_semantics.npz"

NAN_VALUES = [np.nan, -1.0, 2.0, np.inf, -np.inf, 0.0, -0.5, 3.0]
# (name, expression of F and x): float32 of 1-5 dimensions runs oneDNN, anything else the native kernels
ACTIVATIONS = [
    ("act_relu", "F.Activation(x, act_type='relu')"),
    ("leaky", "F.LeakyReLU(x, act_type='leaky', slope=0.25)"),
    ("leaky0", "F.LeakyReLU(x, act_type='leaky', slope=0.0)"),
    ("elu", "F.LeakyReLU(x, act_type='elu', slope=0.25)"),
    ("relu", "F.relu(x)"),
]
SHAPES = {"1d": (8,), "4d": (1, 2, 2, 2), "6d": (1, 1, 1, 1, 2, 4)}


def activations_at_nan(mx, out: dict, meta: dict) -> None:
    """Output and input gradient (head gradient 3) of each activation at NaN, +-inf and ordinary values."""
    for dt in ("float32", "float64", "float16"):
        for sname, shape in SHAPES.items():
            if dt != "float32" and sname != "4d":
                continue
            x = np.array(NAN_VALUES, dt).reshape(shape)
            for name, expr in ACTIVATIONS:
                a = mx.nd.array(x, dtype=dt)
                a.attach_grad()
                with mx.autograd.record():
                    y = eval(expr, {"F": mx.nd, "x": a})
                y.backward(mx.nd.full(shape, 3.0, dtype=dt))
                key = f"act/{name}/{dt}/{sname}"
                out[key + "/x"], out[key + "/y"], out[key + "/dx"] = x, y.asnumpy(), a.grad.asnumpy()
                meta[key] = {"expr": expr}


def conv_relu_nan(mx, out: dict, meta: dict) -> None:
    """A 3x3 convolution and Activation('relu') over data holding one NaN: every output the NaN
    reaches is 0 (oneDNN's relu), imperative and hybridized."""
    rng = np.random.RandomState(0)
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    x[0, 1, 2, 2] = np.nan
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    y = mx.nd.Activation(mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), kernel=(3, 3),
                                           pad=(1, 1), num_filter=3), act_type="relu")
    out.update({"conv_relu/x": x, "conv_relu/w": w, "conv_relu/b": b, "conv_relu/y": y.asnumpy()})


ARANGE = [  # (name, arange keywords, shape of the consumer's other operand)
    ("stop_inferred", {"start": 0}, (5,)),
    ("step_repeat", {"start": 2, "step": 0.5, "repeat": 2}, (6,)),
    ("int32", {"start": 3, "step": 2, "dtype": "int32"}, (4,)),
    ("negative_step", {"start": 1.5, "step": -0.25}, (7,)),
]


def arange_infer_range(mx, out: dict, meta: dict) -> None:
    """``arange(infer_range=True)`` without ``stop`` plus a variable: the length is the variable's."""
    for name, kw, shape in ARANGE:
        s = mx.sym.arange(stop=None, infer_range=True, **kw)
        s = mx.sym.elemwise_add(s, mx.sym.var("v", dtype=kw.get("dtype", "float32")))
        v = np.zeros(shape, kw.get("dtype", "float32"))
        exe = s.bind(mx.cpu(), args={"v": mx.nd.array(v, dtype=v.dtype)})
        out[f"arange/{name}/y"] = exe.forward()[0].asnumpy()
        meta[f"arange/{name}"] = {"kwargs": kw, "shape": list(shape)}


def unary_float32(mx, out: dict, meta: dict) -> None:
    """float32 ``exp``, ``log`` and friends over a spread of values (MXNet calls glibc's float
    functions: correctly rounded ``expf``/``logf``)."""
    rng = np.random.RandomState(1)
    x = np.concatenate([rng.uniform(-20, 20, 2000), rng.uniform(-1, 1, 1000), rng.standard_normal(1000)]).astype(np.float32)
    pos = np.abs(x) + np.float32(1e-3)
    for name in ("exp", "expm1", "sigmoid", "tanh"):
        out[f"unary/{name}"] = getattr(mx.nd, name)(mx.nd.array(x)).asnumpy()
    for name in ("log", "log1p", "sqrt", "log2", "log10"):
        out[f"unary/{name}"] = getattr(mx.nd, name)(mx.nd.array(pos)).asnumpy()
    out["unary/x"], out["unary/pos"] = x, pos
    sm = rng.standard_normal((8, 50)).astype(np.float32) * 4
    out["unary/softmax_x"], out["unary/softmax"] = sm, mx.nd.softmax(mx.nd.array(sm)).asnumpy()
    out["unary/log_softmax"] = mx.nd.log_softmax(mx.nd.array(sm)).asnumpy()


CASES = [activations_at_nan, conv_relu_nan, arange_infer_range, unary_float32]


def main() -> None:
    from record_operator_fidelity import record     # beside this script
    record(CASES, OUT)


if __name__ == "__main__":
    main()
