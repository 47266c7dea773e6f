"""An executor's backward as MXNet 1.9.1's: binding with gradients runs MXNet's gradient pass, so an
operator without a gradient that a nonzero gradient would reach fails at bind time (behind
``stop_gradient`` anything goes), and ``backward`` after an inference forward differentiates that
inference pass (MXNet's graph executor keeps what it needs either way)."""
from __future__ import annotations

import hybridize.runtime as mx
import numpy as np
import pytest
from hybridize.runtime.base import NonDifferentiableError

SHAPES = {"x": (4, 3), "idx": (4,), "type_dict": {"x": np.float32, "idx": np.int32}}


def test_binding_with_gradients_refuses_an_operator_without_one_on_the_gradient_path() -> None:
    y = mx.sym.batch_take(mx.sym.var("x"), mx.sym.var("idx"))
    with pytest.raises(NonDifferentiableError, match="^Operator batch_take is non-differentiable because it didn't "
                                                     "register FGradient attribute.$"):
        y.simple_bind(ctx=mx.cpu(), **SHAPES)
    y.simple_bind(ctx=mx.cpu(), grad_req="null", **SHAPES)  # no gradients: nothing to check


def test_behind_stop_gradient_no_gradient_is_needed() -> None:
    z = mx.sym.stop_gradient(mx.sym.batch_take(mx.sym.var("x"), mx.sym.var("idx")))
    exe = z.simple_bind(ctx=mx.cpu(), **SHAPES)
    exe.forward()
    exe.backward()
    assert not exe.grad_dict["x"].asnumpy().any()


def test_backward_after_an_inference_forward_differentiates_it() -> None:
    x = mx.sym.var("x")
    y = mx.sym.Dropout(x * 2, p=0.5)  # identity in inference mode
    exe = y.simple_bind(ctx=mx.cpu(), x=(2, 3))
    exe.arg_dict["x"][:] = 1.0
    exe.forward(is_train=False)
    exe.backward(mx.nd.ones((2, 3)))
    assert (exe.grad_dict["x"].asnumpy() == 2).all()
    assert (exe.outputs[0].asnumpy() == 2).all()


def test_a_gradient_array_bound_with_grad_req_null_stays_bound_and_untouched() -> None:
    x, y = mx.sym.var("x"), mx.sym.var("y")
    held = mx.nd.full((2,), 7.0)
    exe = (x * y).bind(mx.cpu(), args={"x": mx.nd.ones((2,)), "y": mx.nd.ones((2,)) * 3},
                       args_grad={"x": mx.nd.zeros((2,)), "y": held}, grad_req={"x": "write", "y": "null"})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2,)))
    assert exe.grad_dict["y"] is held and (held.asnumpy() == 7).all()
    assert (exe.grad_dict["x"].asnumpy() == 3).all()


def test_backward_without_a_forward_and_with_extra_head_gradients_as_mxnet() -> None:
    x = mx.sym.var("x")
    grad = mx.nd.zeros((2, 2))
    exe = mx.sym.Concat(x, dim=0).bind(mx.cpu(), args=[mx.nd.ones((2, 2))], args_grad=[grad])
    exe.backward([mx.nd.full((2, 2), 2.0), mx.nd.ones((3,))])  # no forward; the extra head gradient ignored
    assert (grad.asnumpy() == 2).all()


def test_a_head_gradient_is_copied_into_the_outputs_dtype() -> None:
    a, b = mx.sym.var("a"), mx.sym.var("b")
    c = mx.sym.cast(a, dtype="float64") % mx.sym.cast(b, dtype="float64")
    ga, gb = mx.nd.zeros((3,)), mx.nd.zeros((3,))
    exe = c.bind(mx.cpu(), args={"a": mx.nd.array([5, 7, 9]), "b": mx.nd.array([2, 2, 4])}, args_grad=[ga, gb])
    exe.forward(is_train=True)
    exe.backward([mx.nd.array([1, 2, 3])])  # float32 for a float64 output
    assert ga.asnumpy().tolist() == [1, 2, 3] and gb.asnumpy().tolist() == [-2, -6, -6]


def test_binding_without_gradient_arrays_needs_no_gradient() -> None:
    exe = mx.sym.all_finite(mx.sym.var("data")).bind(mx.cpu(), {"data": mx.nd.array([[0, 0]])})
    exe.forward(is_train=False)
    assert exe.outputs[0].asnumpy()[0] == 1
