"""Records MXNet 1.9.1's numbers for operator cases its ``test_operator.py`` is sensitive to, for
``tests/runtime/test_operator_fidelity.py``.

Run with the MXNet 1.9.1 interpreter (never by the test suite), one OpenMP thread so that MXNet's
scatter-adds run in index order::

    OMP_NUM_THREADS=1 /tmp/mxnet-venv/bin/python tools/record_operator_fidelity.py

Writes ``tests/runtime/fixtures/operator_fidelity.npz``: for each case its inputs and MXNet's
outputs and gradients under ``<case>/<name>`` keys, and ``meta`` (a JSON string: each case's
attributes).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "runtime" / "fixtures" / "operator_fidelity.npz"


def _grad(mx, fn, inputs, head):
    """Output and input gradients of ``fn(*inputs)`` under autograd with head gradient ``head``."""
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    for a in arrs:
        a.attach_grad()
    with mx.autograd.record():
        y = fn(*arrs)
    y.backward(mx.nd.array(head, dtype=head.dtype))
    return y.asnumpy(), [a.grad.asnumpy() for a in arrs]


def batchnorm(mx, out: dict, meta: dict) -> None:
    """Training-mode BatchNorm on data whose mean is far from 0 (|mean| / std ~ 20), head gradients
    random and constant (where the input gradient is mathematically 0)."""
    rng = np.random.RandomState(0)
    x = (rng.uniform(size=(4, 3, 8, 8)) + 20 * np.array([1.0, -2.0, 0.5]).reshape(1, 3, 1, 1)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, 3).astype(np.float32)
    beta = rng.standard_normal(3).astype(np.float32)
    for name, head in (("bn_random", rng.standard_normal(x.shape).astype(np.float32)),
                       ("bn_const", np.ones(x.shape, np.float32))):
        def fn(d, g, b):
            return mx.nd.BatchNorm(d, g, b, mx.nd.zeros(3), mx.nd.ones(3), fix_gamma=False, eps=1e-5)
        y, grads = _grad(mx, fn, [x, gamma, beta], head)
        out.update({f"{name}/x": x, f"{name}/gamma": gamma, f"{name}/beta": beta, f"{name}/head": head,
                    f"{name}/y": y, f"{name}/dx": grads[0], f"{name}/dgamma": grads[1], f"{name}/dbeta": grads[2]})
        meta[name] = {"fix_gamma": False, "eps": 1e-5}


BILINEAR = [  # (name, data shape, attributes, like shape)
    ("up_align", (2, 2, 21, 21), {"scale_height": 5.0, "scale_width": 10.0, "mode": "odd_scale"}, None),
    ("down_align", (2, 2, 20, 20), {"scale_height": 0.1, "scale_width": 0.2, "mode": "odd_scale"}, None),
    ("size_align", (1, 3, 10, 10), {"height": 13, "width": 17}, None),
    ("size_half_pixel", (1, 3, 10, 10), {"height": 15, "width": 7, "align_corners": False}, None),
    ("to_odd_up", (2, 1, 20, 20), {"mode": "to_odd_up"}, None),
    ("like", (1, 2, 21, 21), {"mode": "like"}, (1, 2, 10, 12)),
]


def bilinear(mx, out: dict, meta: dict) -> None:
    """``contrib.BilinearResize2D`` forward (exact: the test compares with atol 0) and backward."""
    rng = np.random.RandomState(1)
    for name, shape, attrs, like in BILINEAR:
        x = rng.uniform(size=shape).astype(np.float32)
        x.flat[::7] *= 1e-4                      # small values: their relative error shows
        inputs = [x] if like is None else [x, rng.uniform(size=like).astype(np.float32)]
        y = mx.nd.contrib.BilinearResize2D(*[mx.nd.array(a) for a in inputs], **attrs).asnumpy()
        head = rng.standard_normal(y.shape).astype(np.float32)
        y, grads = _grad(mx, lambda *a: mx.nd.contrib.BilinearResize2D(*a, **attrs), inputs, head)
        key = "bilinear_" + name
        out.update({f"{key}/x": x, f"{key}/y": y, f"{key}/head": head, f"{key}/dx": grads[0]})
        if like is not None:
            out[f"{key}/like"] = inputs[1]
        meta[key] = attrs


def take_raise(mx, out: dict, meta: dict) -> None:
    """When an executor's ``take(mode='raise')`` meets an index out of range: which step raises
    (MXNet's engine runs operators asynchronously: the error comes at the first read), whether a
    second read raises again, and whether a later forward with good indices works."""
    a = mx.sym.Variable("a")
    r = mx.sym.take(a, mx.sym.BlockGrad(mx.sym.Variable("indices")), axis=0, mode="raise")
    exe = r.simple_bind(mx.cpu(), a=(4, 3), indices=(2,))
    exe.arg_dict["a"][:] = mx.nd.array(np.arange(12).reshape(4, 3))
    exe.arg_dict["indices"][:] = mx.nd.array([8, 1])
    steps = {}
    for step, fn in (("forward", lambda: exe.forward(is_train=True)), ("outputs", lambda: exe.outputs[0]),
                     ("asnumpy", lambda: exe.outputs[0].asnumpy()),
                     ("asnumpy_again", lambda: exe.outputs[0].asnumpy())):
        try:
            fn()
            steps[step] = "ok"
        except mx.base.MXNetError:
            steps[step] = "MXNetError"
    exe.arg_dict["indices"][:] = mx.nd.array([2, 1])
    exe.forward()
    out["take_raise/after"] = exe.outputs[0].asnumpy()
    meta["take_raise"] = steps


MOD = {  # name -> expression of the symbols a, b (float32 arguments)
    "mod_broadcast_int": "mx.sym.broadcast_mod(mx.sym.cast(a, dtype='int32'), mx.sym.cast(b, dtype='int32'))",
    "mod_elemwise_int": "mx.sym.cast(a, dtype='int32') % mx.sym.cast(b, dtype='int32')",
    "mod_scalar_int": "mx.sym.cast(a, dtype='int32') % 7 + 0 * mx.sym.cast(b, dtype='int32')",
    "rmod_scalar_int": "7 % mx.sym.cast(a, dtype='int32') + 0 * mx.sym.cast(b, dtype='int32')",
    "mod_broadcast_float": "mx.sym.broadcast_mod(a, b)",
    "rmod_scalar_float": "7 % a + 0 * b",
}


def mod(mx, out: dict, meta: dict) -> None:
    """Gradients of ``%``: MXNet's ``mod_grad``/``mod_rgrad``/``rmod_grad`` are defined for floating
    types only and 0 for integers (through ``cast``, the arguments' gradients are then 0)."""
    rng = np.random.RandomState(2)
    a_val = rng.randint(1, 60, (2, 3)).astype(np.float32)
    b_val = rng.randint(1, 9, (2, 3)).astype(np.float32)
    head = rng.uniform(0.5, 3, (2, 3)).astype(np.float32)
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    for name, expr in MOD.items():
        sym = eval(expr, {"mx": mx, "a": a, "b": b})
        ga, gb = mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))
        exe = sym.bind(mx.cpu(), args={"a": mx.nd.array(a_val), "b": mx.nd.array(b_val)}, args_grad=[ga, gb])
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(head)])
        out.update({f"{name}/y": exe.outputs[0].asnumpy(), f"{name}/da": ga.asnumpy(), f"{name}/db": gb.asnumpy()})
        meta[name] = {"expr": expr}
    out.update({"mod/a": a_val, "mod/b": b_val, "mod/head": head})


def relu_nan(mx, out: dict, meta: dict) -> None:
    """``relu`` at NaN and infinities: the forward keeps NaN, the gradient is NaN there
    (``mshadow_op::relu_grad`` returns a NaN argument)."""
    for dt in ("float32", "float64"):
        x = mx.nd.array([np.nan, -1.0, 2.0, np.inf, -np.inf, 0.0], dtype=dt)
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.relu(x)
        y.backward(mx.nd.array([3.0] * 6, dtype=dt))
        out.update({f"relu_{dt}/x": x.asnumpy(), f"relu_{dt}/y": y.asnumpy(), f"relu_{dt}/dx": x.grad.asnumpy()})
        meta[f"relu_{dt}"] = {"dtype": dt}


def numpy_op(mx, out: dict, meta: dict) -> None:
    """The legacy ``mx.operator.NumpyOp``: the base class's defaults (copy forward, a backward writing
    1.0 whatever the output gradient) and a two-input subclass, bound and run by an executor."""
    import warnings
    warnings.simplefilter("ignore")

    class Mul(mx.operator.NumpyOp):
        def list_arguments(self):
            return ["a", "b"]

        def list_outputs(self):
            return ["prod"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]]

        def forward(self, in_data, out_data):
            out_data[0][:] = in_data[0] * in_data[1]

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = out_grad[0] * in_data[1]
            in_grad[1][:] = out_grad[0] * in_data[0]

    x = mx.sym.Variable("X")
    s = mx.operator.NumpyOp().get_symbol(x, name="numpy_op")
    dx = mx.nd.zeros((4,))
    exe = s.bind(mx.cpu(), args=[mx.nd.array([1.0, 2.0, 3.0, 4.0])], args_grad={"X": dx})
    exe.forward(is_train=True)
    out["numpy_op_default/y"] = exe.outputs[0].asnumpy()
    exe.backward(mx.nd.array([3.0, 3.0, 3.0, 3.0]))
    out["numpy_op_default/dx"] = dx.asnumpy()
    meta["numpy_op_default"] = {"arguments": s.list_arguments(), "outputs": s.list_outputs()}
    a, b = mx.sym.Variable("A"), mx.sym.Variable("B")
    s = Mul().get_symbol(a, b, name="mul")
    da, db = mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))
    exe = s.bind(mx.cpu(), args=[mx.nd.array(np.arange(6).reshape(2, 3)), mx.nd.array(np.full((2, 3), 2.0))],
                 args_grad=[da, db])
    exe.forward(is_train=True)
    out["numpy_op_mul/y"] = exe.outputs[0].asnumpy()
    exe.backward(mx.nd.array(np.full((2, 3), 3.0)))
    out.update({"numpy_op_mul/da": da.asnumpy(), "numpy_op_mul/db": db.asnumpy()})
    meta["numpy_op_mul"] = {"arguments": s.list_arguments(), "outputs": s.list_outputs()}


def memory_report(mx, out: dict, meta: dict) -> None:
    """``Executor.debug_str()``'s last line, ``Total N MB allocated``, for ten chained squares bound
    with gradients, without (``grad_req='null'``), and behind a ``stop_gradient``."""
    import re
    data = mx.sym.Variable("data")
    for _ in range(10):
        data = data * data
    mb = {}
    for name, sym, req in (("grads", data, "write"), ("null", data, "null"),
                           ("stop_gradient", mx.sym.stop_gradient(data), "write")):
        exe = sym.simple_bind(ctx=mx.cpu(), data=(10, 3, 256, 256), grad_req=req)
        mb[name] = int(re.search(r"Total (\d+) MB allocated", exe.debug_str()).group(1))
    meta["memory_report"] = mb


CASES = [batchnorm, bilinear, take_raise, mod, relu_nan, numpy_op, memory_report]


def record(cases: list, path: Path) -> None:
    """Runs each case on real MXNet (``case(mx, arrays, meta)``) and writes the arrays, with the
    JSON metadata under ``meta``, to ``path``."""
    import mxnet as mx
    out: dict = {}
    meta: dict = {}
    for case in cases:
        case(mx, out, meta)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, meta=np.array(json.dumps(meta, sort_keys=True)), **out)
    print(f"wrote {path}: {len(out)} arrays, {len(meta)} metadata entries")


def main() -> None:
    record(CASES, OUT)


if __name__ == "__main__":
    main()
