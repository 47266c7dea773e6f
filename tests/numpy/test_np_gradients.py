"""Gradient rules of the np operators (registry ``gradient``), checked against central finite
differences: each rule is run with ``F = nd`` on the forward's inputs and outputs, as the tape runs it."""
import numpy as onp
import pytest

from hybridize.runtime import nd
from hybridize.runtime.ops.registry import get_op

RS = onp.random.RandomState(0)
A = RS.uniform(0.5, 2.0, (2, 3)).astype("float64")
B = RS.uniform(0.5, 2.0, (3,)).astype("float64")
M = RS.uniform(-1.0, 1.0, (3, 4)).astype("float64")

# op, attrs, inputs
CASES = [
    ("_npi_add", {}, [A, B]),
    ("_npi_subtract", {}, [A, B]),
    ("_npi_multiply", {}, [A, B]),
    ("_npi_true_divide", {}, [A, B]),
    ("_npi_power", {}, [A, B]),
    ("_npi_multiply_scalar", {"scalar": 2.5}, [A]),
    ("_npi_rsubtract_scalar", {"scalar": 2.5}, [A]),
    ("_npi_true_divide_scalar", {"scalar": 2.5}, [A]),
    ("_npi_rtrue_divide_scalar", {"scalar": 2.5}, [A]),
    ("_npi_power_scalar", {"scalar": 3.0}, [A]),
    ("_npi_rpower_scalar", {"scalar": 2.0}, [A]),
    ("_np_sum", {"axis": (1,)}, [A]),
    ("_np_sum", {"axis": (0,), "keepdims": True}, [A]),
    ("_npi_mean", {}, [A]),
    ("_npi_mean", {"axis": (1,), "keepdims": True}, [A]),
    ("_np_max", {"axis": (1,)}, [A]),
    ("_np_min", {}, [A]),
    ("_np_reshape", {"newshape": (3, 2)}, [A]),
    ("_npx_reshape", {"newshape": (-1,)}, [A]),
    ("_np_transpose", {"axes": (1, 0)}, [A]),
    ("_np_transpose", {}, [RS.uniform(size=(2, 3, 4))]),
    ("_npi_matmul", {}, [A, M]),
    ("_npi_matmul", {}, [RS.uniform(size=(2, 2, 3)), M]),
    ("_npi_matmul", {}, [B, M]),
    ("_np_dot", {}, [A, M]),
    ("_np_dot", {}, [B, B]),
]


def numeric_grad(op, attrs, arrays, k, head):
    eps = 1e-6
    x = arrays[k]
    g = onp.zeros_like(x)
    for idx in onp.ndindex(*x.shape):
        for sign in (1, -1):
            xs = [a.copy() for a in arrays]
            xs[k][idx] += sign * eps
            out = op.compute(attrs, *xs)
            g[idx] += sign * float((onp.asarray(out) * head).sum()) / (2 * eps)
    return g


@pytest.mark.parametrize("case", range(len(CASES)), ids=lambda i: f"{CASES[i][0]}{CASES[i][1] or ''}")
def test_rule_matches_finite_differences(case):
    name, given, arrays = CASES[case]
    op = get_op(name)
    attrs = op.resolve(op.coerce_attrs(given))
    out = onp.asarray(op.compute(attrs, *arrays))
    head = onp.random.RandomState(1).uniform(-1, 1, out.shape)
    grads = op.gradient(nd, attrs, [nd.array(a, dtype=a.dtype) for a in arrays], [nd.array(out, dtype=out.dtype)],
                        [nd.array(head, dtype=out.dtype)])
    for k, g in enumerate(grads):
        onp.testing.assert_allclose(g.asnumpy(), numeric_grad(op, attrs, arrays, k, head), rtol=1e-4, atol=1e-6,
                                    err_msg=f"{name}: input {k}")


def test_where_routes_the_gradient_by_the_condition():
    op = get_op("_npi_where")
    c, x, y = onp.array([1.0, 0.0, 1.0]), onp.array([1.0, 2.0, 3.0]), onp.array([5.0])
    attrs = op.resolve({})
    gc, gx, gy = op.gradient(nd, attrs, [nd.array(c), nd.array(x), nd.array(y)], [None],
                             [nd.array([10.0, 20.0, 30.0])])
    assert gx.asnumpy().tolist() == [10.0, 0.0, 30.0] and gy.asnumpy().tolist() == [20.0]
    assert gc.asnumpy().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("base,exponent,want", [
    # recorded from MXNet 1.9.1: the exponent's gradient takes the log of the base in the result's dtype
    ("int32", "float16", [[0.0, 2.7734375], [1.9033203125, 0.0]]),
    ("bool", "float32", [[0.0, 0.0], [0.0, 0.0]]),
    ("int64", "float64", [[0.0, 2.772588722239781], [1.902852301792692, 0.0]]),
])
def test_power_of_an_integer_base_differentiates_the_float_exponent(base, exponent, want):
    from hybridize.runtime import autograd, np, npx
    npx.set_np()
    try:
        a = np.array(onp.array([[1, 2], [3, 1]], base))
        b = np.array(onp.array([[1.5, 2.0], [0.5, 2.5]], exponent))
        b.attach_grad()
        with autograd.record():
            y = np.power(a, b)
        y.backward()
        assert b.grad.dtype == onp.dtype(exponent)
        onp.testing.assert_allclose(b.grad.asnumpy(), want, rtol=1e-3 if exponent == "float16" else 1e-6)
    finally:
        npx.reset_np()
