"""Operator numbers MXNet 1.9.1's ``test_operator.py`` is sensitive to, against values recorded from
MXNet 1.9.1 (``tools/record_operator_fidelity.py``, ``fixtures/operator_fidelity.npz``)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime.graph.kernels import train as T

FIX = np.load(Path(__file__).parent / "fixtures" / "operator_fidelity.npz")
META = json.loads(str(FIX["meta"]))


def _case(name: str) -> dict:
    return {k.split("/", 1)[1]: FIX[k] for k in FIX.files if k.startswith(name + "/")}


def _grads(fn, inputs: list, head: np.ndarray) -> tuple[np.ndarray, list]:
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    for a in arrs:
        a.attach_grad()
    with mx.autograd.record():
        y = fn(*arrs)
    y.backward(mx.nd.array(head, dtype=head.dtype))
    return y.asnumpy(), [a.grad.asnumpy() for a in arrs]


class _Attrs:
    def __init__(self, **kw):
        self.__dict__.update(kw)


# -- BatchNorm's input gradient where it is mathematically 0 ------------------------------------------
def _bn(case: dict) -> tuple[np.ndarray, list]:
    def fn(d, g, b):
        return mx.nd.BatchNorm(d, g, b, mx.nd.zeros(3), mx.nd.ones(3), fix_gamma=False, eps=1e-5)
    return _grads(fn, [case["x"], case["gamma"], case["beta"]], case["head"])


def test_batchnorm_training_gradients_match_mxnet():
    """MXNet sums the mean of values ~20 sequentially in float32 (an error ~1e-5, 3e-5 once divided
    by the std); the runtime's sums are closer to exact: agreement to that error."""
    c = _case("bn_random")
    y, (dx, dgamma, dbeta) = _bn(c)
    np.testing.assert_allclose(y, c["y"], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(dx, c["dx"], rtol=1e-4, atol=5e-4)
    np.testing.assert_allclose(dgamma, c["dgamma"], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(dbeta, c["dbeta"], rtol=1e-5)


def test_batchnorm_gradient_of_a_constant_head_is_zero_up_to_elementwise_rounding():
    """With |mean| / std ~ 20, MXNet's dx (recorded) is the mean's float32 rounding times ``count``:
    noise up to 2e-4. The runtime takes the rounding out, so its dx is far smaller, and the registry
    (channel-first) and compiled (NHWC) kernels, which sum the mean in other orders, agree."""
    c = _case("bn_const")
    _, (dx, _, dbeta) = _bn(c)
    assert np.abs(dx).max() < 1e-3 * np.abs(c["dx"]).max()
    np.testing.assert_allclose(dx, c["dx"], atol=np.abs(c["dx"]).max())   # within MXNet's noise
    np.testing.assert_array_equal(dbeta, c["dbeta"])
    x = np.ascontiguousarray(c["x"].transpose(0, 2, 3, 1))
    mm, mv = np.zeros(3, np.float32), np.ones(3, np.float32)
    nhwc = T._bn_train_bwd(_Attrs(eps=1e-5, fix_gamma=False, momentum=0.9),
                           np.ascontiguousarray(c["head"].transpose(0, 2, 3, 1)), x, c["gamma"], c["beta"], mm, mv)
    np.testing.assert_allclose(nhwc[0].transpose(0, 3, 1, 2), dx, atol=1e-7)


@pytest.mark.parametrize("offset", [0.0, 30.0])
def test_batchnorm_compiled_and_imperative_gradients_agree_for_a_constant_head(offset):
    from hybridize.runtime.gluon import nn
    rng = np.random.default_rng(3)
    x = (rng.uniform(size=(2, 4, 6, 6)) + offset).astype(np.float32)
    grads = []
    for hybrid in (False, True):
        net = nn.BatchNorm(in_channels=4)
        net.initialize()
        if hybrid:
            net.hybridize()
        xa = mx.nd.array(x)
        xa.attach_grad()
        with mx.autograd.record():
            y = net(xa)
        y.backward()
        grads.append(xa.grad.asnumpy())
    # both 0 up to the roundings of sums of centered values (the kernels' BLAS sums differ)
    np.testing.assert_allclose(grads[0], grads[1], atol=2e-7)
    assert np.abs(grads[0]).max() < 2e-7


# -- BilinearResize2D: MXNet's float32 source indices and order of operations --------------------------
@pytest.mark.parametrize("name", sorted(k for k in META if k.startswith("bilinear_")))
def test_bilinear_resize_forward_is_mxnets_bit_for_bit_and_backward_close(name):
    c = _case(name)
    inputs = [c["x"]] + ([c["like"]] if "like" in c else [])
    y, grads = _grads(lambda *a: mx.nd.contrib.BilinearResize2D(*a, **META[name]), inputs, c["head"])
    np.testing.assert_array_equal(y, c["y"])
    # MXNet scatter-adds up to ~50 products per input (sums ~5, cancelling): another order's rounding
    np.testing.assert_allclose(grads[0], c["dx"], rtol=1e-5, atol=1e-5)
    if "like" in c:
        np.testing.assert_array_equal(grads[1], np.zeros_like(c["like"]))


# -- an executor's operator error is raised when its output is read (MXNet's asynchronous engine) ----
def test_take_raise_fails_at_the_first_read_of_the_executors_output():
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
    assert steps == META["take_raise"]
    exe.arg_dict["indices"][:] = mx.nd.array([2, 1])
    exe.forward()
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), FIX["take_raise/after"])


def test_a_deferred_error_surfaces_at_backward_and_waitall():
    a = mx.sym.Variable("a")
    r = mx.sym.take(a, mx.sym.Variable("indices"), axis=0, mode="raise")
    exe = r.simple_bind(mx.cpu(), a=(4, 3), indices=(1,))
    exe.arg_dict["indices"][:] = mx.nd.array([5])
    exe.forward(is_train=True)
    with pytest.raises(mx.base.MXNetError, match="out of range"):
        exe.backward(mx.nd.ones((1, 3)))
    exe.forward(is_train=False)
    with pytest.raises(IndexError):
        mx.nd.waitall()
    mx.nd.waitall()


# -- the gradient of % is 0 for integer dtypes (MXNet's mod_grad, mod_rgrad, rmod_grad) ---------------
@pytest.mark.parametrize("name", sorted(k for k in META if k.startswith(("mod_", "rmod_"))))
def test_modulo_gradients_match_mxnet(name):
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    sym = eval(META[name]["expr"], {"mx": mx, "a": a, "b": b})
    ga, gb = mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))
    exe = sym.bind(mx.cpu(), args={"a": mx.nd.array(FIX["mod/a"]), "b": mx.nd.array(FIX["mod/b"])}, args_grad=[ga, gb])
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(FIX["mod/head"])])
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), FIX[name + "/y"])
    np.testing.assert_allclose(ga.asnumpy(), FIX[name + "/da"], rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), FIX[name + "/db"], rtol=1e-6)


# -- relu at NaN: the gradient is NaN there (MXNet's relu_grad) ---------------------------------------
@pytest.mark.parametrize("name", ["relu_float32", "relu_float64"])
def test_relu_gradient_at_nan_is_nan_as_mxnets(name):
    c = _case(name)
    y, (dx,) = _grads(mx.nd.relu, [c["x"]], np.full(c["x"].shape, 3.0, c["x"].dtype))
    np.testing.assert_array_equal(y, c["y"])
    np.testing.assert_array_equal(dx, c["dx"])
    assert dx.dtype == c["dx"].dtype


# -- the legacy mx.operator.NumpyOp on the Custom machinery ---------------------------------------------
class _Mul(mx.operator.NumpyOp):
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


@pytest.mark.filterwarnings("ignore:NumpyOp has been deprecated", "ignore:PythonOp has been deprecated")
def test_numpy_op_defaults_and_subclass_run_as_mxnets():
    s = mx.operator.NumpyOp().get_symbol(mx.sym.Variable("X"), name="numpy_op")
    assert [s.list_arguments(), s.list_outputs()] == [META["numpy_op_default"]["arguments"],
                                                      META["numpy_op_default"]["outputs"]]
    dx = mx.nd.zeros((4,))
    exe = s.bind(mx.cpu(), args=[mx.nd.array([1.0, 2.0, 3.0, 4.0])], args_grad={"X": dx})
    exe.forward(is_train=True)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), FIX["numpy_op_default/y"])
    exe.backward(mx.nd.array([3.0, 3.0, 3.0, 3.0]))
    np.testing.assert_array_equal(dx.asnumpy(), FIX["numpy_op_default/dx"])

    s = _Mul().get_symbol(mx.sym.Variable("A"), mx.sym.Variable("B"), name="mul")
    assert [s.list_arguments(), s.list_outputs()] == [META["numpy_op_mul"]["arguments"], META["numpy_op_mul"]["outputs"]]
    da, db = mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))
    exe = s.bind(mx.cpu(), args=[mx.nd.array(np.arange(6).reshape(2, 3)), mx.nd.array(np.full((2, 3), 2.0))],
                 args_grad=[da, db])
    exe.forward(is_train=True)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), FIX["numpy_op_mul/y"])
    exe.backward(mx.nd.array(np.full((2, 3), 3.0)))
    np.testing.assert_array_equal(da.asnumpy(), FIX["numpy_op_mul/da"])
    np.testing.assert_array_equal(db.asnumpy(), FIX["numpy_op_mul/db"])


# -- Executor.debug_str's memory line: its relations as MXNet's (the numbers are an estimate) -----------
def test_executor_memory_report_orders_the_bindings_as_mxnet():
    import re
    data = mx.sym.Variable("data")
    for _ in range(10):
        data = data * data
    mb = {}
    for name, sym, req in (("grads", data, "write"), ("null", data, "null"),
                           ("stop_gradient", mx.sym.stop_gradient(data), "write")):
        exe = sym.simple_bind(ctx=mx.cpu(), data=(4, 3, 128, 128), grad_req=req)
        mb[name] = int(re.search(r"Total (\d+) MB allocated", exe.debug_str()).group(1))
    ref = META["memory_report"]     # MXNet at (10, 3, 256, 256): 90, 15, 15
    assert (mb["grads"] > mb["null"]) == (ref["grads"] > ref["null"])
    assert (mb["null"] == mb["stop_gradient"]) == (ref["null"] == ref["stop_gradient"])
